#!/usr/bin/env python3
"""How often ORCA's linear program has no feasible velocity, and how far
bodies overlap, per scenario (docs/orca.md, "Dense ORCA"; issue 37).

Runs each SCENARIO (default: every configs/orca/*.yaml up to 3,000 agents)
with metrics every step and prints a markdown table: the share of agent-steps
whose half-planes had no common velocity (`lp_fallbacks`), its peak share in
one step, the agents that felt a force, the largest overlap of two agents (in
radii), overlapping pairs per agent at the worst step and the deepest wall
overlap. (Speeds: every stored velocity lies in the disc of model.max_speed
and is the one the agent moved with; test orca.velocity_bookkeeping.)

Usage: scripts/orca_feasibility.py THRONG [SCENARIO ...] [--steps N] [--set K=V ...]
"""
import argparse
import csv
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = ["pair-head-on", "crossing", "bottleneck", "rusher", "push-line", "stability", "two-bottlenecks",
           "tawaf-small"]


def run(throng, scenario, out, steps, sets):
    cmd = [throng, "run", scenario, "--quiet", "--out", out, "--set", "output.metrics_every=1",
           "--set", "output.trajectory_every=0"]
    if steps:
        cmd += ["--steps", str(steps)]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit("orca_feasibility.py: %s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    with open(os.path.join(out, "metrics.csv")) as fh:
        return list(csv.DictReader(fh))


def figures(rows):
    live = [r for r in rows if int(r["agents"]) > 0]
    steps = sum(int(r["agents"]) for r in live)
    lp = sum(int(r["lp_fallbacks"]) for r in live)
    worst = max(live, key=lambda r: int(r["overlap_pairs"]) / int(r["agents"]))
    return {
        "agents": int(rows[0]["agents"]),
        "lp": 100.0 * lp / max(steps, 1),
        "lp_peak": max(100.0 * int(r["lp_fallbacks"]) / int(r["agents"]) for r in live),
        "forced": 100.0 * sum(int(r["forced"]) for r in live) / max(steps, 1),
        "overlap": max(float(r["max_overlap_ratio"]) for r in live),
        "pairs": int(worst["overlap_pairs"]) / int(worst["agents"]),
        "wall": max(float(r["max_wall_overlap"]) for r in live),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng", help="the throng executable")
    ap.add_argument("scenarios", nargs="*", help="scenario files (default: %s in configs/orca)" % ", ".join(DEFAULT))
    ap.add_argument("--steps", type=int, default=0, help="run until this step (default: each scenario's time.steps)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="passed to every run")
    a = ap.parse_args()
    if not os.access(a.throng, os.X_OK):
        sys.exit("orca_feasibility.py: %s is not an executable (give the throng binary)" % a.throng)
    scen = a.scenarios or [os.path.join(HERE, "..", "configs", "orca", n + ".yaml") for n in DEFAULT]
    for s in scen:
        if not os.path.isfile(s):
            sys.exit("orca_feasibility.py: no scenario file %s" % s)
    print("| scenario | agents | LP without a feasible point | peak in one step | forced | largest overlap "
          "| overlapping pairs per agent (worst step) | deepest wall overlap |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="orca_feasibility_") as tmp:
        for k, s in enumerate(scen):
            f = figures(run(a.throng, s, os.path.join(tmp, str(k)), a.steps, a.set))
            print("| `%s` | %d | %.1f %% | %.1f %% | %.1f %% | %.2f r | %.2f | %.3g m |"
                  % (os.path.basename(s), f["agents"], f["lp"], f["lp_peak"], f["forced"], f["overlap"], f["pairs"],
                     f["wall"]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
