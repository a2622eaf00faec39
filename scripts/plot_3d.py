#!/usr/bin/env python3
"""Pictures of a 3D run (docs/3d.md): the agents' paths from above (x, y)
and from the side (x, z), coloured by group, with the positions at one
moment as spheres' outlines; the figures of seed paper 003 (Figs. 2-5).

usage: plot_3d.py OUTDIR [--png FILE] [--at SECONDS] [--title TEXT]

OUTDIR is a run's output directory with a CSV trajectory
(`--set output.trajectory_format=csv`; a frame every few steps). --at marks
the agents at that time (default: when two agents of different groups are
closest). Writes OUTDIR/paths3d.png unless --png says where. Needs
matplotlib (pip install matplotlib).
"""
import argparse
import csv
import glob
import json
import math
import os
import re
import sys


def frames(out):
    res = []
    for f in sorted(glob.glob(os.path.join(out, "trajectory", "trajectory.*.csv"))):
        step = int(re.search(r"\.(\d+)\.csv$", f).group(1))
        with open(f) as fh:
            res.append((step, {int(r["id"]): {k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)}))
    return res


def closest_step(fr):
    best = (math.inf, fr[0][0])
    for step, ag in fr:
        items = list(ag.values())
        for i, a in enumerate(items):
            for b in items[i + 1:]:
                if a["group"] == b["group"]:
                    continue
                d = math.dist((a["x"], a["y"], a["z"]), (b["x"], b["y"], b["z"]))
                if d < best[0]:
                    best = (d, step)
    return best[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--png")
    ap.add_argument("--at", type=float)
    ap.add_argument("--title")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Circle
    except ImportError:
        sys.exit("plot_3d.py: needs matplotlib (pip install matplotlib)")
    fr = frames(a.out)
    if not fr or "z" not in next(iter(fr[0][1].values())):
        sys.exit("plot_3d.py: %s has no 3D CSV trajectory (run a 3D scenario with "
                 "--set output.trajectory_format=csv)" % a.out)
    run = json.load(open(os.path.join(a.out, "run.json")))
    dt = run["parameters"]["dt"]
    at = closest_step(fr) if a.at is None else round(a.at / dt)
    mark = min(fr, key=lambda f: abs(f[0] - at))
    ids = sorted(fr[0][1])
    groups = sorted({int(r["group"]) for r in fr[0][1].values()})
    colours = plt.get_cmap("tab10")
    fig, (top, side) = plt.subplots(2, 1, figsize=(10, 8), sharex=True)
    for i in ids:
        pts = [ag[i] for _, ag in fr if i in ag]
        c = colours(groups.index(int(pts[0]["group"])) % 10)
        top.plot([p["x"] for p in pts], [p["y"] for p in pts], color=c, lw=0.8, alpha=0.8)
        side.plot([p["x"] for p in pts], [p["z"] for p in pts], color=c, lw=0.8, alpha=0.8)
        if i in mark[1]:
            p = mark[1][i]
            top.add_patch(Circle((p["x"], p["y"]), p["radius"], fill=False, color=c, lw=1.2))
            side.add_patch(Circle((p["x"], p["z"]), p["radius"], fill=False, color=c, lw=1.2))
    top.set_ylabel("y [m] (from above)")
    side.set_ylabel("z [m] (from the side)")
    side.set_xlabel("x [m]")
    for ax in (top, side):
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(alpha=0.3)
    plane = run["parameters"]["avoidance"].get("plane", "?")
    top.set_title(a.title or "%s, avoidance.plane %s; circles: t = %.2f s" % (run["scenario"], plane, mark[0] * dt))
    png = a.png or os.path.join(a.out, "paths3d.png")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    print(png)


if __name__ == "__main__":
    main()
