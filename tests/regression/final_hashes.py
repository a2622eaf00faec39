#!/usr/bin/env python3
"""Behaviour lock: SHA-256 of the --final-state files of the paper scenarios
and of the MPI cases, recorded once and compared on every later build.

A refactoring that must not change results (docs/decisions/0002) runs
`check`; a change that moves results on purpose re-records with `record`
and says why in its commit message.

Usage:
  final_hashes.py THRONG check  [--cases NAME,...] [--mpiexec MPIEXEC] [--list FILE]
  final_hashes.py THRONG record [--mpiexec MPIEXEC] [--list FILE]

The list (tests/regression/final-state.sha256 by default) holds one line per
case: `SHA256  NAME`. Cases:
  paper.NAME           configs/paper/NAME.yaml, 300 steps (100 for bottleneck-100048), 1 rank
  mpi.NAME.PRANKS      an MPI case on P ranks (the same hash as its 1-rank run: decomposition
                       invariance), skipped without --mpiexec
Exit status: 0 all equal, 1 a difference or a failed run, 77 nothing to compare (no mpiexec for
the MPI-only selection).
"""
import argparse
import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PAPER = ["antipodal-circle", "bears-rabbits", "bottleneck-100048", "bottleneck-3600", "bottleneck-480",
         "dense-ellipsoid", "dense-passing-high-avoid", "dense-passing-high-lr", "dense-passing-low-avoid",
         "dense-passing-low-lr", "proximal-avoid", "proximal-lr", "sparse-passing-avoid", "sparse-passing-lr",
         "target-locomotion"]
BALANCE = ["--set", "decomposition.balance_every=10", "--set", "decomposition.balance_threshold=1.02"]


def cases():
    out = {}
    for name in PAPER:
        steps = 100 if name == "bottleneck-100048" else 300
        out["paper." + name] = (1, ["configs/paper/%s.yaml" % name, "--steps", str(steps)])
    low_lr = ["configs/paper/dense-passing-low-lr.yaml", "--steps", "300"]
    for p in (2, 3, 4):
        out["mpi.dense-passing-low-lr.%d" % p] = (p, low_lr)
    out["mpi.bottleneck-3600-balance.4"] = (4, ["configs/paper/bottleneck-3600.yaml", "--steps", "300"] + BALANCE)
    out["mpi.lanes.1"] = (1, ["tests/data/mpi/lanes.yaml"])
    out["mpi.lanes.3"] = (3, ["tests/data/mpi/lanes.yaml"])
    out["mpi.narrow.8"] = (8, ["tests/data/mpi/narrow.yaml"])
    return out


def run_case(args, ranks, argv, tmp):
    final = os.path.join(tmp, "final.csv")
    if os.path.exists(final):
        os.remove(final)
    cmd = [args.throng, "run"] + argv + ["--no-output", "--quiet", "--final-state", final]
    if ranks > 1 or args.mpiexec:
        if not args.mpiexec:
            return None, "needs --mpiexec"
        cmd = [args.mpiexec, "-n", str(ranks)] + shlex.split(args.mpi_flags) + cmd
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    p = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return None, "exit status %d: %s\n%s" % (p.returncode, " ".join(cmd), p.stderr[-2000:])
    with open(final, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest(), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("mode", choices=["check", "record"])
    ap.add_argument("--cases", help="comma-separated case names or prefixes (default: all)")
    ap.add_argument("--mpiexec")
    ap.add_argument("--mpi-flags", default="")
    ap.add_argument("--list", default=os.path.join(ROOT, "tests", "regression", "final-state.sha256"))
    args = ap.parse_args()
    args.throng = os.path.abspath(args.throng)

    all_cases = cases()
    names = sorted(all_cases)
    if args.cases:
        want = args.cases.split(",")
        names = [n for n in names if any(n == w or n.startswith(w + ".") or n.startswith(w) for w in want)]
    expected = {}
    if args.mode == "check":
        with open(args.list) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    h, n = line.split()
                    expected[n] = h
    got, bad, ran = {}, 0, 0
    with tempfile.TemporaryDirectory(prefix="throng_hash_") as tmp:
        for n in names:
            ranks, argv = all_cases[n]
            if ranks > 1 and not args.mpiexec:
                print("skip: %s (needs --mpiexec)" % n)
                continue
            t0 = time.time()
            h, err = run_case(args, ranks, argv, tmp)
            dt = time.time() - t0
            ran += 1
            if err:
                print("FAIL: %s: %s" % (n, err))
                bad += 1
                continue
            got[n] = h
            if args.mode == "check":
                if n not in expected:
                    print("FAIL: %s: no recorded hash in %s" % (n, args.list))
                    bad += 1
                elif expected[n] != h:
                    print("FAIL: %s: final state changed (%.1f s): %s, recorded %s" % (n, dt, h[:16], expected[n][:16]))
                    bad += 1
                else:
                    print("ok: %s identical (%.1f s)" % (n, dt))
            else:
                print("recorded: %s %s (%.1f s)" % (n, h[:16], dt))
    if args.mode == "record":
        with open(args.list, "w") as f:
            f.write("# SHA-256 of --final-state files; tests/regression/final_hashes.py record writes this.\n")
            for n in sorted(got):
                f.write("%s  %s\n" % (got[n], n))
    if ran == 0:
        sys.exit(77)
    print("%d case(s), %d failed" % (ran, bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
