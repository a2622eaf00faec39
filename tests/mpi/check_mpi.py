#!/usr/bin/env python3
"""MPI tests of the domain decomposition (label `mpi`).

Usage:
  check_mpi.py --mpiexec MPIEXEC --np-flag=-n [--mpi-flags="..."] THRONG equal SCENARIO
               --ranks 1,2,3,4 [--steps N] [--set KEY=VALUE]... [checks]
  check_mpi.py ... THRONG refuse SCENARIO --ranks P (--largest M | --message TEXT) [--status N|any]

equal: runs the scenario on every rank count (the first must be 1) with
--final-state and an output directory, and requires for every run:
  - exit status 0;
  - a final state holding every id 0..N-1 exactly once (nothing lost or
    duplicated), N the agent count of the one-rank run;
  - the final-state file byte-identical to the one-rank file;
and, on more than one rank, the optional checks:
  --max-imbalance X       every re-partition in balance.csv ends with
                          imbalance_after <= X
  --min-repartitions R    balance.csv shows at least R re-partitions
  --min-migration-steps M agents migrated between ranks on at least M steps
                          (THRONG_DECOMP_VERBOSE lines)
  --expect-stderr REGEX   the multi-rank runs' stderr (THRONG_DECOMP_VERBOSE) matches REGEX
  --expect-narrow         some rank's rectangle is fewer cells wide (x) than
                          the ghost rings, and some rank exchanges ghosts
                          directly with a rank two or more slabs away (ranks
                          r and r+2 or further; for slabs cut along x, RCB
                          numbers ranks in x order)
refuse: the run must exit with status 2 (--status: another, or any non-zero
one), write no final state, and say "the largest rank count this scenario
admits is M" (--largest) or TEXT (--message).

Options of every mode: --env KEY=VALUE sets a variable for the runs (e.g.
THRONG_HALO_TRANSPORT), --backend B runs that backend, --need-gpus N skips
the test (exit 77) where nvidia-smi lists fewer GPUs.
fault: with THRONG_DECOMP_FAULT=STEP the ranks lose one migrating agent at
the first migration from STEP on (as a faulty backend would); the run must
stop with a non-zero status and a message naming the step and the rank
whose count went wrong.

Runs set OMP_NUM_THREADS=1 (one thread per rank) and THRONG_DECOMP_VERBOSE=1.
"""
import argparse
import csv
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, ranks, extra, cwd, **more_env):
    if args.backend:
        extra = extra[:2] + ["--backend", args.backend] + extra[2:]
    cmd = [args.mpiexec, args.np_flag, str(ranks)] + shlex.split(args.mpi_flags) + [args.throng] + extra
    env = dict(os.environ, OMP_NUM_THREADS="1", THRONG_DECOMP_VERBOSE="1", **more_env)
    env.update(kv.split("=", 1) for kv in args.env or [])
    t0 = time.time()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=args.timeout)
    return p, time.time() - t0, " ".join(shlex.quote(c) for c in cmd)


def read_final(path):
    with open(path, "rb") as f:
        data = f.read()
    lines = data.decode().splitlines()
    if not lines or lines[0] != "id,x,y,vx,vy":
        fail("%s: unexpected header %r" % (path, lines[:1]))
    ids = [int(line.split(",", 1)[0]) for line in lines[1:]]
    return data, lines, ids


def check_ids(path, ids, n):
    seen = {}
    for i in ids:
        seen[i] = seen.get(i, 0) + 1
    dup = sorted(i for i, c in seen.items() if c > 1)
    lost = sorted(set(range(n)) - set(seen))
    extra = sorted(i for i in seen if i < 0 or i >= n)
    if dup or lost or extra or len(ids) != n:
        fail("%s: %d agents, expected ids 0..%d once each; duplicated %s, lost %s, unknown %s"
             % (path, len(ids), n - 1, dup[:10], lost[:10], extra[:10]))


def read_balance(path):
    if not os.path.exists(path):
        fail("%s was not written" % path)
    with open(path) as f:
        rows = list(csv.DictReader(f))
    want = ["step", "ranks", "imbalance_before", "imbalance_after", "max_owned", "mean_owned", "repartitioned"]
    if not rows or list(rows[0].keys()) != want:
        fail("%s: expected columns %s and at least one row" % (path, ",".join(want)))
    return rows


def equal(args):
    ranks = [int(r) for r in args.ranks.split(",")]
    if ranks[0] != 1:
        fail("--ranks must start with 1 (the reference run)")
    common = ["run", args.scenario, "--quiet"]
    if args.steps is not None:
        common += ["--steps", str(args.steps)]
    for s in args.set or []:
        common += ["--set", s]
    with tempfile.TemporaryDirectory(prefix="throng_mpi_") as tmp:
        ref = None
        for P in ranks:
            final = os.path.join(tmp, "final-%d.csv" % P)
            out = os.path.join(tmp, "out-%d" % P)
            p, secs, cmd = run(args, P, common + ["--final-state", final, "--out", out], tmp)
            if p.returncode != 0:
                fail("%d rank(s): exit status %d\n$ %s\n%s" % (P, p.returncode, cmd, p.stderr[-3000:]))
            data, lines, ids = read_final(final)
            if ref is None:
                ref = (data, lines, len(ids))
            check_ids(final, ids, ref[2])
            note = ""
            if data != ref[0]:
                diff = [k for k in range(1, min(len(lines), len(ref[1]))) if lines[k] != ref[1][k]]
                fail("%d ranks: final state differs from the 1-rank run in %d of %d agents; first:\n"
                     "  1 rank:  %s\n  %d ranks: %s" % (P, len(diff), ref[2], ref[1][diff[0]] if diff else "",
                                                       P, lines[diff[0]] if diff else ""))
            if P > 1:
                rows = read_balance(os.path.join(out, "balance.csv"))
                if any(int(r["ranks"]) != P for r in rows):
                    fail("%d ranks: balance.csv names another rank count" % P)
                reparts = [r for r in rows if r["repartitioned"] == "1"]
                worst = max([float(r["imbalance_after"]) for r in reparts] or [1.0])
                mig_steps = set(re.findall(r"decomposition step (\d+): rank \d+ migrated", p.stderr))
                rects = re.findall(r"owns cells \[\d+, \d+\) x \[\d+, \d+\) \((\d+) x (\d+)\), ghost rings (\d+)",
                                   p.stderr)
                narrowest = min((min(int(a), int(b)) for a, b, _ in rects), default=0)
                rings = int(rects[0][2]) if rects else 0
                note = ("; %d balance checks, %d re-partitions (worst imbalance after %.3f), migrations on %d "
                        "steps, narrowest rectangle %d cells (ghost rings %d)"
                        % (len(rows), len(reparts), worst, len(mig_steps), narrowest, rings))
                if args.max_imbalance is not None:
                    for r in reparts:
                        if float(r["imbalance_after"]) > args.max_imbalance:
                            fail("%d ranks: step %s re-partitioned to imbalance %s > %g"
                                 % (P, r["step"], r["imbalance_after"], args.max_imbalance))
                if len(reparts) < args.min_repartitions:
                    fail("%d ranks: %d re-partitions, expected at least %d" % (P, len(reparts), args.min_repartitions))
                if len(mig_steps) < args.min_migration_steps:
                    fail("%d ranks: migrations on %d steps, expected at least %d"
                         % (P, len(mig_steps), args.min_migration_steps))
                if args.expect_stderr and not re.search(args.expect_stderr, p.stderr):
                    fail("%d ranks: stderr does not match /%s/" % (P, args.expect_stderr))
                if args.expect_narrow:
                    thinnest = min((int(a) for a, _, _ in rects), default=0)
                    if not any(int(a) < int(k) for a, _, k in rects):
                        fail("%d ranks: no rectangle narrower than the ghost width (thinnest %d cells, %d rings)"
                             % (P, thinnest, rings))
                    reach = 0
                    for r, lst in re.findall(r"rank (\d+) exchanges ghosts with \d+ ranks:([ \d]*)", p.stderr):
                        for s in lst.split():
                            reach = max(reach, abs(int(s) - int(r)))
                    if reach < 2:
                        fail("%d ranks: every rank exchanges ghosts only with adjacent ranks" % P)
                    note += "; thinnest slab %d cells, ghosts from up to %d slabs away" % (thinnest, reach)
            print("ok: %d rank(s) in %.2f s: %d agents, final state %s%s"
                  % (P, secs, ref[2], "(reference)" if P == 1 else "identical to 1 rank", note))


def refuse(args):
    P = int(args.ranks)
    with tempfile.TemporaryDirectory(prefix="throng_mpi_") as tmp:
        final = os.path.join(tmp, "final.csv")
        p, secs, cmd = run(args, P, ["run", args.scenario, "--no-output", "--final-state", final], tmp)
        msg = args.message or "the largest rank count this scenario admits is %d" % args.largest
        if p.returncode == 0 if args.status == "any" else p.returncode != int(args.status):
            fail("%d ranks: exit status %d, expected %s\n$ %s\n%s"
                 % (P, p.returncode, "non-zero" if args.status == "any" else args.status, cmd, p.stderr[-3000:]))
        if msg not in p.stderr:
            fail("%d ranks: stderr lacks %r:\n%s" % (P, msg, p.stderr[-3000:]))
        if os.path.exists(final):
            fail("%d ranks: a refused run wrote %s" % (P, final))
        line = [l for l in p.stderr.splitlines() if msg in l][0]
        print("ok: %d ranks refused in %.2f s: %s" % (P, secs, line))


def fault(args):
    P = int(args.ranks)
    with tempfile.TemporaryDirectory(prefix="throng_mpi_") as tmp:
        p, secs, cmd = run(args, P, ["run", args.scenario, "--no-output", "--quiet"], tmp,
                           THRONG_DECOMP_FAULT=str(args.fault_step))
        if p.returncode == 0:
            fail("%d ranks: a run that lost an agent exited with status 0\n$ %s" % (P, cmd))
        m = re.search(r"agent conservation violated at step (\d+): .*", p.stderr)
        if not m:
            fail("%d ranks: no conservation message:\n%s" % (P, p.stderr[-3000:]))
        if int(m.group(1)) < args.fault_step or not re.search(r" rank \d+ \(had \d+, sent \d+, received \d+, "
                                                              r"now \d+\)", m.group(0)):
            fail("%d ranks: the message names no step >= %d and no rank: %s" % (P, args.fault_step, m.group(0)))
        print("ok: %d ranks stopped in %.2f s (status %d): %s" % (P, secs, p.returncode, m.group(0)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--mpi-flags", default="")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("throng")
    ap.add_argument("mode", choices=["equal", "refuse", "fault"])
    ap.add_argument("scenario")
    ap.add_argument("--ranks", required=True)
    ap.add_argument("--steps", type=int)
    ap.add_argument("--set", action="append")
    ap.add_argument("--max-imbalance", type=float)
    ap.add_argument("--min-repartitions", type=int, default=0)
    ap.add_argument("--min-migration-steps", type=int, default=0)
    ap.add_argument("--expect-narrow", action="store_true")
    ap.add_argument("--expect-stderr")
    ap.add_argument("--largest", type=int)
    ap.add_argument("--fault-step", type=int, default=100)
    ap.add_argument("--message")
    ap.add_argument("--status", default="2")
    ap.add_argument("--env", action="append")
    ap.add_argument("--backend")
    ap.add_argument("--need-gpus", type=int, default=0)
    args = ap.parse_args()
    if args.need_gpus:
        try:
            gpus = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, text=True).stdout.count("GPU ")
        except OSError:
            gpus = 0
        if gpus < args.need_gpus:
            print("SKIP: %d GPU(s) visible, the test needs %d" % (gpus, args.need_gpus))
            sys.exit(77)
    if args.mode == "equal":
        equal(args)
    elif args.mode == "fault":
        fault(args)
    else:
        if args.largest is None and not args.message:
            fail("refuse needs --largest or --message")
        refuse(args)


if __name__ == "__main__":
    main()
