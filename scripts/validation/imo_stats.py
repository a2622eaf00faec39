#!/usr/bin/env python3
"""The IMO circular's statistics (MSC.1/Circ.1533): a component test judged over
many runs at a stated percentile, not on one run. Runs the validation scenarios
of configs/validation/ with seeds 1..N (each seed a new population: positions,
speeds and radii drawn anew) and judges the 95th percentile (the circular's
default; --percentile) of each test's figure against its criterion:

  imo4   exit flow through a 1 m door (imo-door.yaml): mean flow (N-1)/(last - first crossing)
         <= 1.33 p/s
  imo11  congestion at a staircase (rimea13.yaml): the density in front of the stair, at least
         twice that beyond its top (the 5th percentile of the ratio: the weakest queue)
  imo2/3 speed up / down a staircase (rimea02/03.yaml, one walker, its speed drawn from the
         pedestrian preset's distribution instead of 1.34 m/s): its horizontal speed over the
         middle half of the rise over its speed on the level before the stair is the configured
         factor (stairs[].speed_up / speed_down) within 5 %

Usage: imo_stats.py THRONG [--runs 50] [--percentile 95] [--tests imo4,imo11,imo2,imo3] [--json FILE]

Prints one table; exits 0 when every test passes at the percentile, 1 otherwise. 50 runs of all
four take about 5 minutes on one core. Needs numpy.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "configs", "validation"))
import measure as M            # noqa: E402
import make_validation as G    # noqa: E402

CFG = os.path.join(ROOT, "configs", "validation")


def run(throng, scenario, out, seed, *sets):
    cmd = [throng, "run", os.path.join(CFG, scenario), "--out", out, "--quiet", "--overwrite",
           "--set", "seed=%d" % seed]
    for kv in sets:
        cmd += ["--set", kv]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    if p.returncode:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr[-2000:]))
    return out


def imo4(throng, out, seed):
    t = M.lines_csv_crossings(run(throng, "imo-door.yaml", out, seed), "door")
    return M.mean_flow(t)


def imo11(throng, out, seed):
    import csv
    run(throng, "rimea13.yaml", out, seed)
    t = M.lines_csv_crossings(out, "stair")
    if len(t) < 2:
        return math.nan
    a, b = t[int(0.1 * (len(t) - 1))], t[int(math.ceil(0.9 * (len(t) - 1)))]
    rows = list(csv.DictReader(open(os.path.join(out, "areas.csv"))))

    def dens(area):
        v = [float(q["density"]) for q in rows if q["area"] == area and a <= float(q["time"]) <= b]
        return float(np.mean(v)) if v else math.nan
    top = dens("stair_top")
    return dens("stair_front") / top if top > 0 else math.inf


def stair(throng, out, seed, up):
    """The walker's speed on the stair over its speed on the level before it (its speed drawn as a
    crowd's, the preset's normal distribution): the configured factor (stairs[].speed_up/down) is what
    the model must reproduce whatever the walker's own speed."""
    run(throng, "rimea%02d.yaml" % (2 if up else 3), out, seed,
        "agents[0].speed={mean: 1.34, sd: 0.26, min: 0.9, max: 1.6}")
    fr = [q for q in M.load_frames(out) if len(q)]
    t = np.array([q.t for q in fr])
    x = np.array([q.x[0] for q in fr])
    z = np.array([q.z[0] for q in fr])
    mid = (z > 0.25 * G.ST_RISE) & (z < 0.75 * G.ST_RISE)
    x1 = 12.0 + G.ST_RUN
    level = (z < 1e-6) & (x > 3.0) & (x < 10.0) if up else (z > G.ST_RISE - 1e-6) & (x > x1 + 2.0) & (x < x1 + 9.5)
    if mid.sum() < 2 or level.sum() < 2:
        return math.nan
    v_stair = abs(x[mid][-1] - x[mid][0]) / (t[mid][-1] - t[mid][0])
    v_level = abs(x[level][-1] - x[level][0]) / (t[level][-1] - t[level][0])
    with open(os.path.join(out, "run.json")) as fh:
        factor = json.load(fh)["stairs"][0]["speed_up" if up else "speed_down"]
    return abs(v_stair / v_level / factor - 1.0)


TESTS = {
    "imo4": ("IMO 4 exit flow, 1 m door [p/s]", imo4, lambda v, p: (np.percentile(v, p), "<= 1.33",
                                                                     np.percentile(v, p) <= 1.33)),
    "imo11": ("IMO 11 congestion at a stair: density before / beyond", imo11,
              lambda v, p: (np.percentile(v, 100 - p), ">= 2 (at the %gth percentile)" % (100 - p),
                            np.percentile(v, 100 - p) >= 2.0)),
    "imo2": ("IMO 2 speed up a stair: (stair / level speed) / speed_up, error", lambda th, o, s: stair(th, o, s, True),
             lambda v, p: (np.percentile(v, p), "<= 0.05", np.percentile(v, p) <= 0.05)),
    "imo3": ("IMO 3 speed down a stair: (stair / level speed) / speed_down, error",
             lambda th, o, s: stair(th, o, s, False),
             lambda v, p: (np.percentile(v, p), "<= 0.05", np.percentile(v, p) <= 0.05)),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("throng")
    ap.add_argument("--runs", type=int, default=50, help="seeds 1..RUNS (the circular: at least 50)")
    ap.add_argument("--percentile", type=float, default=95.0)
    ap.add_argument("--tests", default="imo4,imo11,imo2,imo3")
    ap.add_argument("--json")
    a = ap.parse_args()
    results, failed = {}, []
    print("| test | runs | median | at the percentile | criterion | |\n|---|---:|---:|---:|---|---|")
    with tempfile.TemporaryDirectory(prefix="throng-imo-") as tmp:
        for name in a.tests.split(","):
            what, fn, judge = TESTS[name]
            v = np.array([fn(os.path.abspath(a.throng), os.path.join(tmp, name), s) for s in range(1, a.runs + 1)])
            v = v[np.isfinite(v)]
            at, crit, good = judge(v, a.percentile) if len(v) else ("n/a", "", False)
            at = at if isinstance(at, str) else "%.3f" % at
            print("| %s | %d | %.3f | %s | %s | %s |" % (what, len(v), float(np.median(v)) if len(v) else math.nan,
                                                       at, crit, "pass" if good else "FAIL"))
            sys.stdout.flush()
            results[name] = {"values": v.tolist(), "at_percentile": at, "pass": bool(good)}
            if not good:
                failed.append(name)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"runs": a.runs, "percentile": a.percentile, "results": results}, fh, indent=1)
    print("FAIL: %s" % ", ".join(failed) if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
