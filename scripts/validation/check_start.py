#!/usr/bin/env python3
"""Check that jupedsim_run.py places the same agents as throng: for each scenario, throng's
step-0 trajectory file (`throng run SCEN --set output.trajectory_every=1 --steps 1`) against
the runner's start positions and radii (read_scenario + make_agents, nothing simulated).

    .venv-validation/bin/python scripts/validation/check_start.py [--throng build/bin/throng] [SCENARIO.yaml ...]

Without scenarios: every configs/validation/*.yaml. Exit status 0 when every scenario
matches (ids, positions to 1e-4 m, radii to 1e-5 m), 1 otherwise.
"""
import argparse
import csv
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import jupedsim_run as J  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="*")
    ap.add_argument("--throng", default=None)
    ap.add_argument("--tol", type=float, default=1e-4)
    a = ap.parse_args()
    throng = J.throng_executable(a.throng)
    files = a.scenarios or sorted(glob.glob(os.path.join(ROOT, "configs", "validation", "*.yaml")))
    bad = 0
    with tempfile.TemporaryDirectory(prefix="check-start-") as tmp:
        for path in files:
            name = os.path.splitext(os.path.basename(path))[0]
            out = os.path.join(tmp, name)
            p = subprocess.run([throng, "run", path, "--out", out, "--quiet", "--set", "output.trajectory_every=1",
                                "--steps", "1"], capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
            if p.returncode != 0:
                print("%-24s throng failed (%d): %s" % (name, p.returncode, p.stderr.strip()[-300:]))
                bad += 1
                continue
            with open(os.path.join(out, "trajectory", "trajectory.00000000.csv")) as fh:
                th = {int(r["id"]): (float(r["x"]), float(r["y"]), float(r["radius"])) for r in csv.DictReader(fh)}
            try:
                sc = J.read_scenario(path, [], None, throng)
                ag = J.make_agents(sc, None)
            except J.InputError as e:
                print("%-24s runner refused: %s" % (name, e))
                bad += 1
                continue
            js = {i: (x, y, r) for i, _, x, y, r, _, _ in ag}
            dpos = max((abs(js[i][0] - th[i][0]) + abs(js[i][1] - th[i][1]) for i in th if i in js), default=0.0)
            drad = max((abs(js[i][2] - th[i][2]) for i in th if i in js), default=0.0)
            good = set(js) == set(th) and dpos <= a.tol and drad <= 1e-5
            bad += not good
            print("%-24s %s agents throng %d runner %d, max |dx|+|dy| %.2g m, max |dr| %.2g m, preset %s"
                  % (name, "ok  " if good else "DIFF", len(th), len(js), dpos, drad, sc["preset"]))
    print("PASS" if not bad else "FAIL (%d)" % bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
