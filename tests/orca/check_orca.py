#!/usr/bin/env python3
"""The ORCA model (label `orca`; seed paper 002, docs/orca.md). Each case
runs throng and prints what it measured; exit 0 when every check holds, 1
otherwise, 77 when it cannot run (no GPU).

Usage: check_orca.py THRONG CASE --scenario FILE

Cases:
  pair         configs/orca/pair-head-on.yaml (two agents exactly head-on), a CSV
               frame every step: never closer than r_a + r_b (1e-4 m), each passes
               on its right (the eastbound one at y < 0, the westbound one at y > 0
               where they cross) as exact mirror images, both at their goals.
  crossing     configs/orca/crossing.yaml run 900 steps (90 s), metrics every step:
               at least 98 % of the 400 agents at their goals at the end; the
               largest overlap below half a radius at every step (ORCA avoids
               collisions among the 10 nearest; the denser moments overlap).
  bottleneck   configs/orca/bottleneck.yaml (200 agents through a 1.2 m gap to an
               exit, routed around the wall): every agent leaves within 120 s, no
               agent ever overlaps the wall by 1e-4 m (the obstacle half-planes),
               the largest overlap of two agents below 0.75 of a radius.
  ranks        --ranks 1,2,3,4 (mpiexec): --final-state and evacuated.csv (when the
               scenario has exits) byte-identical on every rank count.
  cpu_vs_cuda  --final-state after 500 steps (agents still in the bottleneck)
               byte-identical on the CPU and CUDA backends
               (THRONG_STRICT_FP builds with a GPU; else skipped).
"""
import argparse
import csv
import glob
import math
import os
import re
import subprocess
import sys
import tempfile

problems = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        problems.append(what)


def run(args, ranks=1):
    cmd = [A.throng, "run", A.scenario, "--quiet"] + args
    if ranks > 1:
        if not A.mpiexec:
            print("SKIPPED: no mpiexec")
            sys.exit(77)
        cmd = [A.mpiexec, A.np_flag, str(ranks)] + A.mpi_flags.split() + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode:
        sys.stderr.write(p.stderr)
    check(p.returncode == 0, "throng run %s %s exits 0" % (os.path.basename(A.scenario), " ".join(args[:4])))


def metrics(out):
    with open(os.path.join(out, "metrics.csv")) as fh:
        return list(csv.DictReader(fh))


def case_pair():
    out = os.path.join(A.tmp, "pair")
    run(["--out", out, "--set", "output.trajectory_format=csv"])
    res = []
    for f in sorted(glob.glob(os.path.join(out, "trajectory", "*.csv"))):
        with open(f) as fh:
            ag = {int(r["id"]): {k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)}
        a, b = ag[0], ag[1]
        res.append((math.hypot(a["x"] - b["x"], a["y"] - b["y"]), abs(a["x"] - b["x"]), a, b))
    dmin = min(r[0] for r in res)
    R = res[0][2]["radius"] + res[0][3]["radius"]
    check(dmin >= R - 1e-4, "closest %.4f m >= r_a + r_b = %.2f m" % (dmin, R))
    cross = min(res, key=lambda r: r[1])
    a, b = cross[2], cross[3]
    check(a["y"] < 0.0 < b["y"], "each passes on its right (eastbound y %.3f, westbound y %.3f)" % (a["y"], b["y"]))
    check(all(r[2]["y"] == -r[3]["y"] and r[2]["x"] == -r[3]["x"] for r in res),
          "the two paths are exact mirror images at every frame")
    check(int(metrics(out)[-1]["at_goal"]) == 2, "both at their goals at the end")


def case_crossing():
    out = os.path.join(A.tmp, "crossing")
    run(["--out", out, "--steps", "900"])
    m = metrics(out)
    worst = max(float(r["max_overlap_ratio"]) for r in m)
    home = int(m[-1]["at_goal"])
    print("largest overlap %.4f of a radius; %d of %s at their goals after %s s" % (worst, home, m[-1]["agents"],
                                                                                  m[-1]["time"]))
    check(home >= 0.98 * int(m[-1]["agents"]), "at least 98 %% at their goals (%d)" % home)
    check(worst < 0.5, "largest overlap below half a radius (%.4f)" % worst)


def case_bottleneck():
    out = os.path.join(A.tmp, "bottleneck")
    run(["--out", out])
    m = metrics(out)
    wall = max(float(r["max_wall_overlap"]) for r in m)
    worst = max(float(r["max_overlap_ratio"]) for r in m)
    print("all out by %s s (%s steps); deepest wall overlap %.2g m; largest overlap %.4f of a radius"
          % (m[-1]["time"], m[-1]["step"], wall, worst))
    check(int(m[-1]["agents"]) == 0 and float(m[-1]["time"]) <= 120.0, "every agent left within 120 s")
    check(wall < 1e-4, "no agent overlaps the wall by 1e-4 m (%.2g)" % wall)
    check(worst < 0.75, "largest overlap below 0.75 of a radius (%.4f)" % worst)


def case_ranks():
    got = []
    for n in [int(k) for k in A.ranks.split(",")]:
        out, final = os.path.join(A.tmp, "out-%d" % n), os.path.join(A.tmp, "final-%d.csv" % n)
        run(["--out", out, "--final-state", final], ranks=n)
        ev = os.path.join(out, "evacuated.csv")
        got.append((n, open(final, "rb").read(), open(ev, "rb").read() if os.path.exists(ev) else None))
    for n, final, ev in got[1:]:
        check(final == got[0][1], "%d ranks: final state byte-identical to 1 rank's" % n)
        check(ev == got[0][2], "%d ranks: evacuated.csv identical to 1 rank's (%s rows)"
              % (n, "no" if ev is None else ev.count(b"\n") - 1))


def case_cpu_vs_cuda():
    text = subprocess.run([A.throng, "info"], capture_output=True, text=True).stdout
    mm = re.search(r"cuda\s+built; (\d+) GPU", text)
    if not mm or int(mm.group(1)) == 0:
        print("SKIPPED: no CUDA backend in this build or no GPU visible")
        sys.exit(77)
    if not re.search(r"THRONG_STRICT_FP\)?:\s*ON", text):
        print("SKIPPED: byte identity needs a THRONG_STRICT_FP=ON build")
        sys.exit(77)
    got = {}
    for backend in ("cpu", "cuda"):
        f = os.path.join(A.tmp, "final-%s.csv" % backend)
        run(["--no-output", "--steps", "500", "--backend", backend, "--final-state", f])
        got[backend] = open(f, "rb").read() if os.path.exists(f) else b""
    check(got["cpu"] == got["cuda"] and got["cpu"].count(b"\n") > 2,
          "final state byte-identical on cpu and cuda (%d agents)" % (got["cpu"].count(b"\n") - 1))


CASES = {"pair": case_pair, "crossing": case_crossing, "bottleneck": case_bottleneck, "ranks": case_ranks,
         "cpu_vs_cuda": case_cpu_vs_cuda}


def main():
    global A
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--mpi-flags", default="")
    A = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="throng_orca_") as tmp:
        A.tmp = tmp
        CASES[A.case]()
    print("PASS" if not problems else "FAIL (%d problem(s))" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
