#!/usr/bin/env python3
"""Robustness tests (label `robustness`): what a hostile or unlucky user
can do to a run, and what throng must do about it.

Usage: check_robustness.py THRONG CASE [--mpiexec MPIEXEC]

Cases (each prints what it saw and exits 0 when every check holds):
  diverge            a scenario whose state becomes non-finite: exit 3, a message naming the step, the
                     agent and the field, run.json state "diverged" with the reason, every metrics row
                     finite, no --final-state file
  diverge-no-output  the same without any output: the check does not depend on metrics or outputs
  diverge-mpi        the same on 2 ranks (needs --mpiexec)
  steps-overflow     --steps beyond a long: exit 2 naming the largest value; nothing written
  steps-long         --steps written with 130 digits (leading zeros): accepted
  yaml-long-numbers  a scenario number of 155 digits and an integer of 141: accepted, read right
  final-in-out       --final-state inside the output directory: exit 2 before anything runs
  final-is-scenario  --final-state naming the scenario file: exit 2, the scenario untouched
  final-is-dir       --final-state naming a directory: exit 2
  final-no-parent    --final-state in a directory that does not exist: exit 2
  out-not-empty      an earlier run's output directory: refused without --overwrite; with it, cleared
                     (no frame of the earlier, longer run remains)
  out-foreign        a non-empty directory that is no throng output: refused even with --overwrite,
                     its files untouched
  out-too-long       an output path longer than the system allows: exit 2, the reason is not "Success"
  disk-full          a run on a filesystem that fills up (a 24 KiB tmpfs in a private mount namespace;
                     where none can be mounted, THRONG_FAULT_WRITE injects the same failure): exit 1,
                     the message names metrics.csv and "No space left on device", no temporary files
  fault-final        the --final-state write fails: exit 1, neither the file nor its .tmp remains
  fault-frame        a trajectory frame write fails: exit 1, no .tmp remains, the series index valid
  fault-run-json     the closing run.json write fails: exit 1, no .tmp remains
  sigterm            SIGTERM during a run: exit 143, metrics.csv ends with a complete row of the last
                     step, rows consecutive, run.json state "interrupted", series index valid
"""
import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MINIMAL = os.path.join(ROOT, "tests", "data", "good", "minimal.yaml")
DIVERGE = ["--set", "solver.omega=1e38", "--set", "agents[0].agent_radius=1.2", "--set", "model.max_speed=0"]
problems = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        problems.append(what)


def run(cmd, cwd, env=None, timeout=120):
    p = subprocess.run(cmd, cwd=cwd, env=dict(os.environ, **(env or {})), capture_output=True, text=True,
                       timeout=timeout, errors="replace")
    print("$ " + " ".join(cmd) + "\n  exit %d\n  stderr: %s" % (p.returncode, p.stderr.strip()[-600:]))
    return p


def tmp_files(top):
    return [os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs if f.endswith(".tmp")]


def metrics_rows(path):
    with open(path, newline="") as f:
        text = f.read()
    lines = text.split("\n")
    return text, [l.split(",") for l in lines[1:] if l]


def run_json(out):
    with open(os.path.join(out, "run.json")) as f:
        return json.load(f)


def diverge(a, tmp, mpi=False, output=True):
    out, final = os.path.join(tmp, "out"), os.path.join(tmp, "final.csv")
    cmd = [a.throng, "run", MINIMAL, "--steps", "30", "--final-state", final] + DIVERGE
    cmd += ["--out", out] if output else ["--no-output"]
    env = {}
    if mpi:
        cmd = [a.mpiexec, "-n", "2", "--oversubscribe"] + cmd
        env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    p = run(cmd, tmp, env)
    check(p.returncode == 3, "exit status 3 (got %d)" % p.returncode)
    m = re.search(r"not finite at step (\d+) .*: agent (\d+), (x|p|v) ", p.stderr)
    check(m is not None, "the message names the step, the agent and the field")
    check(not os.path.exists(final), "no --final-state file of a diverged run")
    if output:
        rj = run_json(out)
        check(rj["state"] == "diverged" and "not finite" in rj.get("reason", ""), "run.json: diverged, with the reason")
        _, rows = metrics_rows(os.path.join(out, "metrics.csv"))
        finite = all(math.isfinite(float(v)) for r in rows for v in r)
        check(rows and finite, "%d metrics rows, all finite" % len(rows))
        check(not tmp_files(out), "no temporary files")


def steps_overflow(a, tmp):
    p = run([a.throng, "run", MINIMAL, "--steps", "99999999999999999999999", "--out", "o"], tmp)
    check(p.returncode == 2 and "at most 9223372036854775807" in p.stderr, "exit 2 naming the largest value")
    check(not os.listdir(tmp), "nothing written")


def steps_long(a, tmp):
    p = run([a.throng, "run", MINIMAL, "--steps", "0" * 129 + "3", "--no-output", "--quiet", "--final-state", "f.csv"],
            tmp)
    check(p.returncode == 0 and os.path.exists(os.path.join(tmp, "f.csv")), "130-digit --steps accepted")


def yaml_long_numbers(a, tmp):
    path = os.path.join(tmp, "long.yaml")
    with open(path, "w") as f:
        f.write("world: {min: [0, 0], max: [20, 20]}\n")
        f.write("time: {dt: 0.0208%s, steps: %s7}\n" % ("3" * 150, "0" * 140))
        f.write("agents: [{layout: grid, min: [2, 2], max: [8, 8], rows: 2, cols: 2}]\n")
    p = run([a.throng, "check", path], tmp)
    check(p.returncode == 0 and "dt 0.0208333 s, 7 steps" in p.stdout, "long numbers read as 0.0208333 and 7")


def refused(a, tmp, args, pattern, what, scenario=MINIMAL):
    before = sorted(os.listdir(tmp))
    p = run([a.throng, "run", scenario, "--steps", "2"] + args, tmp)
    check(p.returncode == 2, what + ": exit 2 (got %d)" % p.returncode)
    check(re.search(pattern, p.stderr) is not None, what + ": message matches /%s/" % pattern)
    check(sorted(os.listdir(tmp)) == before, what + ": nothing written")
    return p


def final_in_out(a, tmp):
    os.mkdir(os.path.join(tmp, "out"))
    refused(a, tmp, ["--out", "out", "--final-state", "out/metrics.csv"], r"lies in the output directory",
            "final state inside the output directory")


def final_is_scenario(a, tmp):
    scen = os.path.join(tmp, "s.yaml")
    shutil.copy(MINIMAL, scen)
    before = open(scen).read()
    refused(a, tmp, ["--no-output", "--final-state", scen], r"is the scenario file", "final state = scenario",
            scenario=scen)
    check(open(scen).read() == before, "the scenario file is untouched")


def final_is_dir(a, tmp):
    os.mkdir(os.path.join(tmp, "d"))
    refused(a, tmp, ["--no-output", "--final-state", "d"], r"is a directory", "final state = a directory")


def final_no_parent(a, tmp):
    refused(a, tmp, ["--no-output", "--final-state", "no/such/dir/f.csv"], r"does not exist",
            "final state without a parent directory")


def out_not_empty(a, tmp):
    p = run([a.throng, "run", MINIMAL, "--steps", "12", "--out", "out", "--quiet", "--set",
             "output.trajectory_every=1", "--set", "output.trajectory_format=csv"], tmp)
    check(p.returncode == 0, "an earlier run of 12 steps, a frame every step")
    refused(a, tmp, ["--out", "out"], r"not empty.*--overwrite", "a second run into the same directory")
    p = run([a.throng, "run", MINIMAL, "--steps", "2", "--out", "out", "--quiet", "--overwrite", "--set",
             "output.trajectory_every=1", "--set", "output.trajectory_format=csv"], tmp)
    frames = sorted(f for f in os.listdir(os.path.join(tmp, "out", "trajectory")) if f.endswith(".csv"))
    check(p.returncode == 0 and len(frames) == 3, "--overwrite: the directory holds this run's 3 frames only (%d)"
          % len(frames))


def out_foreign(a, tmp):
    d = os.path.join(tmp, "mine")
    os.mkdir(d)
    with open(os.path.join(d, "thesis.tex"), "w") as f:
        f.write("precious\n")
    p = run([a.throng, "run", MINIMAL, "--steps", "2", "--out", "mine", "--overwrite"], tmp)
    check(p.returncode == 2 and "holds no run.json" in p.stderr, "refused even with --overwrite")
    check(os.listdir(d) == ["thesis.tex"], "the directory's files are untouched")


def out_too_long(a, tmp):
    long_dir = "/".join(["x" * 200] * 12)
    p = run([a.throng, "run", MINIMAL, "--steps", "2", "--out", long_dir], tmp)
    check(p.returncode == 2 and "Success" not in p.stderr and "too long" in p.stderr,
          "exit 2, 'too long', never 'Success'")
    check(not os.listdir(tmp), "nothing written")


def mount_tmpfs_cmd(mnt, inner):
    """A command running `inner` with a 24 KiB tmpfs on mnt in a private mount namespace, or None."""
    if not shutil.which("unshare"):
        return None
    for flags in (["-m"], ["-rm"]):
        probe = subprocess.run(["unshare"] + flags + ["sh", "-c", "mount -t tmpfs -o size=24k tmpfs %s" % mnt],
                               capture_output=True)
        if probe.returncode == 0:
            quoted = " ".join("'%s'" % c for c in inner)
            return ["unshare"] + flags + ["sh", "-c", "mount -t tmpfs -o size=24k tmpfs %s && exec %s" % (mnt, quoted)]
    return None


def disk_full(a, tmp):
    mnt = os.path.join(tmp, "disk")
    os.mkdir(mnt)
    out = os.path.join(mnt, "out")
    inner = [a.throng, "run", MINIMAL, "--steps", "3000", "--out", out, "--quiet", "--set",
             "output.trajectory_every=0"]
    cmd = mount_tmpfs_cmd(mnt, inner + ["--final-state", os.path.join(mnt, "final.csv")])
    if cmd:
        print("(a real full filesystem: 24 KiB tmpfs in a private mount namespace)")
        p = run(cmd, tmp)
        check(p.returncode == 1, "exit 1 (got %d)" % p.returncode)
        check(re.search(r"metrics\.csv: write failed: No space left on device", p.stderr) is not None,
              "the message names metrics.csv and the system's reason")
        print("(the namespace's files are gone with it; the fault hook checks what is left behind below)")
    env = {"THRONG_FAULT_WRITE": "metrics.csv:40"}
    out = os.path.join(tmp, "out")
    p = run([a.throng, "run", MINIMAL, "--steps", "300", "--out", out, "--quiet"], tmp, env)
    check(p.returncode == 1 and "metrics.csv: write failed: No space left on device" in p.stderr,
          "fault hook: exit 1 naming metrics.csv and ENOSPC")
    check(not tmp_files(tmp), "no temporary files")
    rj = run_json(out)
    check(rj["state"] == "failed" and "metrics.csv" in rj.get("reason", ""), "run.json: failed, with the reason")


def fault_final(a, tmp):
    p = run([a.throng, "run", MINIMAL, "--steps", "3", "--no-output", "--final-state", "final.csv"], tmp,
            {"THRONG_FAULT_WRITE": "final.csv"})
    check(p.returncode == 1 and "final.csv: write failed: No space left on device" in p.stderr, "exit 1 with reason")
    check(not os.path.exists(os.path.join(tmp, "final.csv")) and not tmp_files(tmp), "neither the file nor .tmp")


def fault_frame(a, tmp):
    out = os.path.join(tmp, "out")
    p = run([a.throng, "run", MINIMAL, "--steps", "10", "--out", out, "--quiet", "--set", "output.trajectory_every=2",
             "--set", "output.trajectory_format=csv"], tmp, {"THRONG_FAULT_WRITE": "trajectory.00000006.csv"})
    check(p.returncode == 1 and "trajectory.00000006.csv: write failed" in p.stderr, "exit 1 naming the frame")
    check(not tmp_files(tmp), "no temporary files")
    series = json.load(open(os.path.join(out, "trajectory", "trajectory.csv.series")))
    check([f["name"] for f in series["files"]][-1] == "trajectory.00000004.csv", "the series ends with the last frame")


def fault_run_json(a, tmp):
    p = run([a.throng, "run", MINIMAL, "--steps", "3", "--out", "out", "--quiet"], tmp,
            {"THRONG_FAULT_WRITE": "run.json:2"})
    check(p.returncode == 1 and "run.json: write failed" in p.stderr, "exit 1 naming run.json")
    check(not tmp_files(tmp), "no temporary files")


def sigterm(a, tmp):
    out = os.path.join(tmp, "out")
    cmd = [a.throng, "run", os.path.join(ROOT, "configs", "paper", "bottleneck-3600.yaml"), "--steps", "100000",
           "--out", out, "--set", "output.trajectory_every=10", "--set", "output.trajectory_format=csv"]
    proc = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    path = os.path.join(out, "metrics.csv")
    t0 = time.time()
    while time.time() - t0 < 60 and (not os.path.exists(path) or os.path.getsize(path) < 3000):
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    print("$ " + " ".join(cmd) + " (SIGTERM after %.1f s)\n  exit %d\n  stderr: %s" % (time.time() - t0,
                                                                                  proc.returncode, err.strip()[-400:]))
    info = subprocess.run([a.throng, "info"], capture_output=True, text=True).stdout
    hdf5 = re.search(r"HDF5\s+ON", info) is not None  # checkpoints need HDF5
    want = 75 if hdf5 else 143
    check(proc.returncode == want, "exit %d: %s (got %d)" % (want, "checkpointed" if hdf5 else "128 + SIGTERM",
                                                             proc.returncode))
    text, rows = metrics_rows(path)
    steps = [int(r[0]) for r in rows]
    ncol = len(text.split("\n", 1)[0].split(","))  # the header's columns
    check(text.endswith("\n") and ncol >= 10 and all(len(r) == ncol for r in rows),
          "metrics.csv ends with a complete row (%d columns)" % ncol)
    check(steps == list(range(len(steps))), "rows of consecutive steps 0..%d" % (steps[-1] if steps else -1))
    rj = run_json(out)
    check(rj["state"] == ("checkpointed" if hdf5 else "interrupted") and rj["last_step"] == steps[-1],
          "run.json: %s at the last row's step" % rj["state"])
    if hdf5:
        ckpt = os.path.join(out, "checkpoints", "checkpoint-%08d.h5" % steps[-1])
        check(os.path.isfile(ckpt) and rj.get("checkpoint", "").endswith(os.path.basename(ckpt)),
              "the checkpoint of that step is there and run.json names it")
    series = json.load(open(os.path.join(out, "trajectory", "trajectory.csv.series")))
    check(len(series["files"]) >= 1, "the series index is valid JSON")
    check(not tmp_files(tmp), "no temporary files")


CASES = {
    "diverge": diverge,
    "diverge-no-output": lambda a, t: diverge(a, t, output=False),
    "diverge-mpi": lambda a, t: diverge(a, t, mpi=True),
    "steps-overflow": steps_overflow, "steps-long": steps_long, "yaml-long-numbers": yaml_long_numbers,
    "final-in-out": final_in_out, "final-is-scenario": final_is_scenario, "final-is-dir": final_is_dir,
    "final-no-parent": final_no_parent, "out-not-empty": out_not_empty, "out-foreign": out_foreign,
    "out-too-long": out_too_long, "disk-full": disk_full, "fault-final": fault_final, "fault-frame": fault_frame,
    "fault-run-json": fault_run_json, "sigterm": sigterm,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--mpiexec")
    a = ap.parse_args()
    a.throng = os.path.abspath(a.throng)
    if a.case == "diverge-mpi" and not a.mpiexec:
        print("SKIPPED: no mpiexec")
        return 77
    with tempfile.TemporaryDirectory(prefix="throng_robust_") as tmp:
        CASES[a.case](a, tmp)
    print("PASS" if not problems else "FAIL (%d problem(s))" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
