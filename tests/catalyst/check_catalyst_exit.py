#!/usr/bin/env python3
"""A Catalyst script that tries to end the process (labels robustness, catalyst;
docs/insitu.md, "What a failing script does").

Usage: check_catalyst_exit.py THRONG CASE [--source DIR] [--mpiexec M --np-flag F --mpi-flags "..."]

CASE is HOW-WHEN-RANKS:
  HOW    exit0 (sys.exit(0)), exit7 (sys.exit(7)), raise (raise SystemExit(0)),
         osexit (os._exit(0));
  WHEN   import (in the script's body, while Catalyst imports it at step 0)
         or execute (in catalyst_execute at step 240);
  RANKS  1, or 2 (mpiexec; only rank 1's script exits, rank 0's goes on).

Runs throng on tests/data/catalyst/hall.yaml with --final-state and expects,
within 120 s: exit status 1 (mpiexec's too), run.json "failed" with a
reason naming the script and how it tried to end the run, and no
final-state file. A hang is killed (with the processes this script started)
and fails. Exit 77 (skip) when throng was built without ParaView Catalyst.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
TIMEOUT = 120

CALLS = {"exit0": ("sys.exit(0)", "sys.exit(0)"), "exit7": ("sys.exit(7)", "sys.exit(7)"),
         "raise": ("raise SystemExit(0)", "SystemExit(0)"), "osexit": ("os._exit(0)", "os._exit(0)")}

SCRIPT = """# script-version: 2
import os, sys
from paraview.simple import *
from paraview import catalyst
from vtkmodules.vtkParallelCore import vtkMultiProcessController
RANK = vtkMultiProcessController.GetGlobalController().GetLocalProcessId()
agents = TrivialProducer(registrationName='agents')
# a parallel extract: collective, so a rank that leaves it alone hangs the others
vtp = CreateExtractor('VTP', agents, registrationName='agents_vtp')
vtp.Writer.FileName = 'agents_{timestep:06d}.pvtp'
options = catalyst.Options()
options.ExtractsOutputDirectory = 'catalyst'
options.GlobalTrigger = 'TimeStep'
if %(at_import)s and RANK == %(rank)d:
    %(call)s
def catalyst_execute(info):
    if %(at_execute)s and info.timestep >= 240 and RANK == %(rank)d:
        %(call)s
"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def need(cond, msg):
    if not cond:
        fail(msg)


def catalyst_built(exe):
    p = subprocess.run([exe, "info"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return any(line.split()[:2] == ["Catalyst", "ON"] for line in p.stdout.splitlines())


def descendants(pid):
    """Every process below pid (mpiexec's ranks may sit in process groups of their own)."""
    parent = {}
    for entry in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % entry) as f:
                parent[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (ValueError, OSError, IndexError):
            pass
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found += kids
        todo += kids
    return found


def run(cmd, env, cwd):
    """(exit status or None when it hung, output); a hang's processes (the ones started here) are killed."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=cwd,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=TIMEOUT)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        for pid in descendants(p.pid) + [p.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        out, _ = p.communicate()
        return None, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("throng")
    ap.add_argument("case")
    ap.add_argument("--source")
    ap.add_argument("--mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--mpi-flags", default="")
    args = ap.parse_args()
    how, when, ranks = args.case.split("-")
    ranks = int(ranks)
    call, named = CALLS[how]
    exe = os.path.abspath(args.throng)
    if not catalyst_built(exe):
        print("SKIP: throng was built without ParaView Catalyst")
        return SKIP
    if ranks > 1 and not args.mpiexec:
        print("SKIP: no mpiexec for %d ranks" % ranks)
        return SKIP
    source = os.path.abspath(args.source or os.path.join(HERE, "..", ".."))
    tmp = tempfile.mkdtemp(prefix="throng-catalyst-exit-")
    try:
        script = os.path.join(tmp, "ends_%s_%s.py" % (how, when))
        with open(script, "w") as f:
            f.write(SCRIPT % {"at_import": when == "import", "at_execute": when == "execute",
                              "rank": ranks - 1, "call": call})
        out, final = os.path.join(tmp, "out"), os.path.join(tmp, "final.csv")
        cmd = [exe, "run", os.path.join(source, "tests", "data", "catalyst", "hall.yaml"), "--out", out, "--quiet",
               "--final-state", final, "--catalyst", script]
        if ranks > 1:
            cmd = [args.mpiexec, args.np_flag, str(ranks)] + args.mpi_flags.split() + cmd
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        rc, log = run(cmd, env, tmp)
        need(rc is not None, "%s on %d rank(s) hung for %d s:\n%s" % (call, ranks, TIMEOUT, log))
        need(rc == 1, "exit %d, expected 1:\n%s" % (rc, log))
        need(not os.path.exists(final), "the final state was written")
        run_json = os.path.join(out, "run.json")
        need(os.path.exists(run_json), "no run.json:\n" + log)
        with open(run_json) as f:
            info = json.load(f)
        reason = info.get("reason") or ""
        need(info.get("state") == "failed", "run.json state %r, expected failed (reason %r)" % (info.get("state"), reason))
        need(script in reason and named in reason,
             "run.json reason %r should name %s and %s" % (reason, script, named))
        need(script in log and named in log, "the message should name %s and %s:\n%s" % (script, named, log))
        print("ok: %s %s on %d rank(s): exit 1, run.json failed (%s), no final state" % (call, when, ranks, reason))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
