#!/usr/bin/env python3
"""Calibration of the pedestrian preset: the validation cases that the
model's parameters move, run for every combination of the values given, one
table row each. docs/decisions/0004-pedestrian-model.md has the runs that
chose the preset's values.

    python3 scripts/validation/calibrate.py [--throng build/bin/throng]
        [--grid KEY=V1,V2,...]... [--set KEY=VALUE]... [--cases C1,C2,...] [--full] [--json FILE]

Each --grid key varies (the rows are their Cartesian product); --set keys are
fixed for every row; every run is `tests/validation/check_validation.py
THRONG CASE --set ...` on configs/validation/ (the CI sizes, --full the full
ones), so a row is judged by the very criteria of `ctest -L validation`.
Default cases: rimea04_fd (speed - Weidmann at each nominal density, peak
specific flow), bottleneck_scan (slope, R2, the flow at 0.8 m), imo_door (mean
flow), rimea15 (corner and long corridor times). A row passes when every case
does. Needs a python with numpy (as the validation tests). Example, the scan
that chose the preset's time gap and standing gap:

    python3 scripts/validation/calibrate.py --grid headway.time_gap=0.3,0.35,0.4 \\
        --grid headway.min_gap=0.03,0.05,0.08
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CHECK = os.path.join(ROOT, "tests", "validation", "check_validation.py")
DEFAULT_CASES = "rimea04_fd,bottleneck_scan,imo_door,rimea15"


def parse_grid(items):
    grid = []
    for it in items:
        key, sep, vals = it.partition("=")
        if not sep or not key or not vals:
            sys.exit("calibrate.py: --grid %r: expected KEY=V1,V2,..." % it)
        grid.append((key, [v for v in vals.split(",") if v]))
    return grid


def run_case(a, case, sets):
    """check_validation.py's JSON entry for one case with these overrides."""
    with tempfile.TemporaryDirectory(prefix="throng-calibrate-") as tmp:
        out = os.path.join(tmp, "r.json")
        cmd = [sys.executable, CHECK, a.throng, case, "--json", out] + (["--full"] if a.full else [])
        for kv in sets:
            cmd += ["--set", kv]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode not in (0, 1) or not os.path.exists(out):
            sys.exit("calibrate.py: %s exited %d:\n%s" % (" ".join(cmd), p.returncode, (p.stdout + p.stderr)[-2000:]))
        with open(out) as fh:
            return json.load(fh).get(case, {})


def summary(case, r):
    """One short text for a case's result."""
    if case == "rimea04_fd":
        dv = " ".join("%+.2f" % (d["speed"] - d["weidmann"]) for d in r.get("densities", []) if "speed" in d)
        return "v-W %s, peak %.2f" % (dv, r.get("peak_flow", float("nan")))
    if case == "bottleneck_scan":
        pts = r.get("points", [])
        narrow = min(pts, key=lambda p: p["width"]) if pts else None
        return "slope %.2f R2 %.3f J(%.1f) %.2f%s" % (
            r.get("slope", float("nan")), r.get("r2", float("nan")), narrow["width"] if narrow else 0,
            narrow["flow"] if narrow else float("nan"), "" if all(p.get("drained") for p in pts) else " CLOG")
    if case == "imo_door":
        return "IMO %.2f p/s" % r.get("mean_flow", float("nan"))
    if case == "rimea15":
        t = r.get("times", {})
        return "15: %s" % "/".join("%.0f" % t[k] for k in ("short", "corner", "long") if k in t)
    return "pass" if r.get("pass") else "fail"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--throng", default=os.environ.get("THRONG") or os.path.join(ROOT, "build", "bin", "throng"))
    ap.add_argument("--grid", action="append", default=[], metavar="KEY=V1,V2,...")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--json", metavar="FILE", help="write every row's results here")
    a = ap.parse_args()
    a.throng = os.path.abspath(a.throng)
    if not os.access(a.throng, os.X_OK):
        sys.exit("calibrate.py: %s: no throng executable (build it, or pass --throng)" % a.throng)
    try:
        import numpy  # noqa: F401  (check_validation.py needs it)
    except ImportError:
        sys.exit("calibrate.py: needs a python with numpy (Debian: apt-get install python3-numpy)")
    grid = parse_grid(a.grid)
    cases = [c for c in a.cases.split(",") if c]
    rows = []
    combos = list(itertools.product(*[vals for _, vals in grid])) or [()]
    for combo in combos:
        sets = list(a.set) + ["%s=%s" % (k, v) for (k, _), v in zip(grid, combo)]
        res = {c: run_case(a, c, sets) for c in cases}
        ok = all(r.get("pass") for r in res.values())
        label = " ".join("%s=%s" % (k.split(".")[-1], v) for (k, _), v in zip(grid, combo)) or "(as given)"
        print("%-32s %s | %s" % (label, "PASS" if ok else "fail", " | ".join(summary(c, res[c]) for c in cases)),
              flush=True)
        rows.append({"sets": sets, "pass": ok, "results": res})
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
