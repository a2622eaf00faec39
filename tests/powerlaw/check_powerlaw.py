#!/usr/bin/env python3
"""The power-law model (label `powerlaw`; Karamouzas et al. 2014, the comparison of
seed paper 000's Fig. 11; docs/powerlaw.md). Each case runs throng and prints what it
measured; exit 0 when every check holds, 1 otherwise, 77 when it cannot run.

Usage: check_powerlaw.py THRONG CASE --scenario FILE

Cases:
  pair         configs/powerlaw/pair-head-on.yaml (two agents 0.1 m off one line,
               head-on), a CSV frame every step: never closer than r_a + r_b, they
               have swapped sides and both reached their goals.
  dense        configs/powerlaw/dense-passing.yaml, 60 s, metrics every step, with the
               power law and with PBD (--set model.kind=pbd): the power law's largest
               overlap exceeds PBD's and it leaves at least twice as many agents
               slower than 0.1 m/s mid-passing (000 Fig. 11 right: "the agents collide,
               overlap, and are not able to pass smoothly").
  sparse       configs/powerlaw/sparse-passing.yaml, 60 s: neither model overlaps
               (000 Fig. 11 left: "the agents successfully avoid collisions").
  cpu_vs_cuda  --final-state after 600 steps byte-identical on the CPU and CUDA
               backends (THRONG_STRICT_FP builds with a GPU; else skipped).
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


def run(args):
    cmd = [A.throng, "run", A.scenario, "--quiet"] + args
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode:
        sys.stderr.write(p.stderr)
    check(p.returncode == 0, "throng run %s %s exits 0" % (os.path.basename(A.scenario), " ".join(args[:4])))


def metrics(out):
    with open(os.path.join(out, "metrics.csv")) as fh:
        return list(csv.DictReader(fh))


def case_pair():
    out = os.path.join(A.tmp, "pair")
    run(["--out", out])
    frames = []
    for f in sorted(glob.glob(os.path.join(out, "trajectory", "*.csv"))):
        with open(f) as fh:
            frames.append({int(r["id"]): {k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)})
    dmin = min(math.hypot(f[0]["x"] - f[1]["x"], f[0]["y"] - f[1]["y"]) for f in frames)
    R = frames[0][0]["radius"] + frames[0][1]["radius"]
    print("closest %.4f m (r_a + r_b = %.2f m)" % (dmin, R))
    check(dmin > R, "never in contact")
    check(frames[-1][0]["x"] > 9.0 and frames[-1][1]["x"] < -9.0, "they passed each other")
    check(int(metrics(out)[-1]["at_goal"]) == 2, "both at their goals at the end")


def both_models(tag):
    got = {}
    for model in ("powerlaw", "pbd"):
        out, final = os.path.join(A.tmp, tag + model), os.path.join(A.tmp, tag + model + ".csv")
        run(["--out", out, "--steps", "2880", "--set", "model.kind=" + model, "--set", "output.metrics_every=1",
             "--set", "output.trajectory_every=0", "--final-state", final])
        m = metrics(out)
        with open(final) as fh:
            slow = sum(math.hypot(float.fromhex(r["vx"]), float.fromhex(r["vy"])) < 0.1 for r in csv.DictReader(fh))
        got[model] = (max(float(r["max_overlap_ratio"]) for r in m), max(int(r["overlap_pairs"]) for r in m), slow,
                      int(m[-1]["at_goal"]))
        print("%s: largest overlap %.4f of a radius, at most %d pairs overlapping, %d agents slower than 0.1 m/s "
              "at 60 s (%d at their goals)" % ((model,) + got[model]))
    return got


def case_dense():
    got = both_models("dense-")
    pl, pbd = got["powerlaw"], got["pbd"]
    check(pl[0] > pbd[0], "the power law overlaps more than PBD (%.4f vs %.4f of a radius)" % (pl[0], pbd[0]))
    check(pl[2] >= 2 * max(pbd[2], 1), "the power law stalls at least twice as many agents (%d vs %d)"
          % (pl[2], pbd[2]))


def case_sparse():
    got = both_models("sparse-")
    check(got["powerlaw"][0] == 0.0, "the power law: no overlap in the sparse crowd")
    check(got["pbd"][0] == 0.0, "PBD: no overlap in the sparse crowd")


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
        run(["--no-output", "--steps", "600", "--backend", backend, "--final-state", f])
        got[backend] = open(f, "rb").read() if os.path.exists(f) else b""
    check(got["cpu"] == got["cuda"] and got["cpu"].count(b"\n") > 2,
          "final state byte-identical on cpu and cuda (%d agents)" % (got["cpu"].count(b"\n") - 1))


CASES = {"pair": case_pair, "dense": case_dense, "sparse": case_sparse, "cpu_vs_cuda": case_cpu_vs_cuda}


def main():
    global A
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--scenario", required=True)
    A = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="throng_powerlaw_") as tmp:
        A.tmp = tmp
        CASES[A.case]()
    print("PASS" if not problems else "FAIL (%d problem(s))" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
