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
  out-1000           a legal --out of 1,000 characters: accepted
  out-empty          --out '': exit 2 naming --out, nothing written (not out/<name>)
  out-concurrent     two runs started 0.3 s apart into one --out: the second is refused at once (exit 2, "in use
                     by another run"), the first completes; a lock left by a killed run is taken over
  overwrite-foreign  --overwrite of an earlier run's directory that also holds a file of the user's: refused
                     (exit 2, the file named), nothing removed
  final-symlink      --final-state naming a symbolic link: exit 2, the link and its target untouched
  final-device       --final-state naming a character device (mknod, as root; else /dev/null): written in
                     place, still a device afterwards
  disk-full-hdf5     a run whose HDF5 trajectory fills a 12 MiB tmpfs: exit 1 (never a crash), trajectory.h5
                     kept with every complete frame, the message names the frames kept
  sighup             SIGHUP during a run: handled like SIGTERM (checkpoint and exit 75 with HDF5, else 129)
  check-tiny-dt      `check` refuses time.dt = 1e-45 (a subnormal float), as `run` would fail on it
  input-special      /dev/zero and a FIFO as points file, a FIFO as scenario, checkpoint and Catalyst script:
                     exit 2 at once naming the file and "not a regular file"
  input-large        a 65 MiB scenario and a 2 GB points file of zeros: refused within seconds (the cap, the
                     first bad line)
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
import stat
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
    long_dir = "/".join(["x" * 200] * 25)  # 5,024 characters: past Linux's PATH_MAX of 4,096
    p = run([a.throng, "run", MINIMAL, "--steps", "2", "--out", long_dir], tmp)
    check(p.returncode == 2 and "Success" not in p.stderr and "too long" in p.stderr,
          "exit 2, 'too long', never 'Success'")
    check(not os.listdir(tmp), "nothing written")


def mount_tmpfs_cmd(mnt, inner, size="24k", after=""):
    """A command running `inner` (then the shell text `after`) with a tmpfs of `size` on mnt in a private
    mount namespace, or None."""
    if not shutil.which("unshare"):
        return None
    for flags in (["-m"], ["-rm"]):
        probe = subprocess.run(["unshare"] + flags + ["sh", "-c", "mount -t tmpfs -o size=%s tmpfs %s" % (size, mnt)],
                               capture_output=True)
        if probe.returncode == 0:
            quoted = " ".join("'%s'" % c for c in inner)
            run_inner = ("%s; rc=$?; %s; exit $rc" % (quoted, after)) if after else "exec " + quoted
            return ["unshare"] + flags + ["sh", "-c", "mount -t tmpfs -o size=%s tmpfs %s && %s" % (size, mnt, run_inner)]
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


def signal_mid_run(a, tmp, out, sig, extra=()):
    """bottleneck-3600 writing into out, sent `sig` once metrics.csv has 3000 bytes: (proc, stderr)."""
    cmd = [a.throng, "run", os.path.join(ROOT, "configs", "paper", "bottleneck-3600.yaml"), "--steps", "100000",
           "--out", out] + list(extra)
    proc = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"))
    path = os.path.join(out, "metrics.csv")
    t0 = time.time()
    while time.time() - t0 < 60 and (not os.path.exists(path) or os.path.getsize(path) < 3000):
        time.sleep(0.1)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    print("$ " + " ".join(cmd) + " (%s after %.1f s)\n  exit %d\n  stderr: %s" % (
        signal.Signals(sig).name, time.time() - t0, proc.returncode, err.strip()[-400:]))
    return proc, err


def has_hdf5(a):
    info = subprocess.run([a.throng, "info"], capture_output=True, text=True).stdout
    return re.search(r"HDF5\s+ON", info) is not None


def sigterm(a, tmp):
    out = os.path.join(tmp, "out")
    proc, err = signal_mid_run(a, tmp, out, signal.SIGTERM,
                               ["--set", "output.trajectory_every=10", "--set", "output.trajectory_format=csv"])
    hdf5 = has_hdf5(a)  # checkpoints need HDF5
    want = 75 if hdf5 else 143
    check(proc.returncode == want, "exit %d: %s (got %d)" % (want, "checkpointed" if hdf5 else "128 + SIGTERM",
                                                             proc.returncode))
    text, rows = metrics_rows(os.path.join(out, "metrics.csv"))
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


def out_1000(a, tmp):
    d = "/".join(["o" * 199] * 5)  # 999 characters
    p = run([a.throng, "run", MINIMAL, "--steps", "2", "--quiet", "--out", d], tmp)
    check(p.returncode == 0 and os.path.isfile(os.path.join(tmp, d, "run.json")), "a 999-character --out works")


def out_empty(a, tmp):
    refused(a, tmp, ["--out", ""], r"--out: the output directory's path is empty", "--out ''")


def out_concurrent(a, tmp):
    cmd = [a.throng, "run", os.path.join(ROOT, "configs", "paper", "bottleneck-3600.yaml"), "--backend", "cpu", "--steps", "1000",
           "--out", "shared", "--quiet"]
    first = subprocess.Popen(cmd, cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=dict(os.environ, OMP_NUM_THREADS="1"))
    # the second starts 0.3 s after the first holds the directory (MPI_Init
    # alone can take longer than that on a loaded machine)
    lock = os.path.join(tmp, "shared", ".throng.lock")
    t0 = time.time()
    while time.time() - t0 < 60 and not os.path.exists(lock) and first.poll() is None:
        time.sleep(0.01)
    time.sleep(0.3)
    t0 = time.time()
    second = run(cmd, tmp)
    took = time.time() - t0
    _, err = first.communicate(timeout=300)
    print("first run: exit %d %s" % (first.returncode, err.strip()[-300:]))
    check(second.returncode == 2 and "in use by another run" in second.stderr, "the second run: exit 2, in use")
    check(took < 5, "refused at once (%.1f s), before placement and routing" % took)
    check(first.returncode == 0 and run_json(os.path.join(tmp, "shared"))["state"] == "complete",
          "the first run completes undisturbed")
    check(not os.path.exists(os.path.join(tmp, "shared", ".throng.lock")), "the lock is gone after the run")
    # a lock left by a killed run (its process gone) is taken over
    killed = subprocess.Popen(cmd + ["--overwrite"], cwd=tmp, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while time.time() - t0 < 30 and not os.path.exists(os.path.join(tmp, "shared", "run.json.tmp")) and \
            run_json(os.path.join(tmp, "shared"))["state"] == "complete":
        time.sleep(0.05)
    killed.kill()
    killed.communicate()
    check(os.path.exists(os.path.join(tmp, "shared", ".throng.lock")), "SIGKILL leaves the lock behind")
    p = run([a.throng, "run", MINIMAL, "--steps", "2", "--out", "shared", "--overwrite", "--quiet"], tmp)
    check(p.returncode == 0 and "taking over the lock" in p.stderr, "a stale lock is taken over")


def overwrite_foreign(a, tmp):
    p = run([a.throng, "run", MINIMAL, "--steps", "3", "--out", "out", "--quiet"], tmp)
    mine = os.path.join(tmp, "out", "notes.txt")
    with open(mine, "w") as f:
        f.write("my notes\n")
    before = sorted(os.listdir(os.path.join(tmp, "out")))
    p = run([a.throng, "run", MINIMAL, "--steps", "2", "--out", "out", "--overwrite"], tmp)
    check(p.returncode == 2 and "notes.txt" in p.stderr and "no throng run writes" in p.stderr,
          "refused, naming the user's file")
    check(sorted(os.listdir(os.path.join(tmp, "out"))) == before and open(mine).read() == "my notes\n",
          "nothing removed")


def final_symlink(a, tmp):
    target = os.path.join(tmp, "target.csv")
    with open(target, "w") as f:
        f.write("precious\n")
    os.symlink("target.csv", os.path.join(tmp, "link.csv"))
    os.symlink("nowhere.csv", os.path.join(tmp, "dangling.csv"))
    for name in ("link.csv", "dangling.csv"):
        p = run([a.throng, "run", MINIMAL, "--steps", "2", "--no-output", "--final-state", name], tmp)
        check(p.returncode == 2 and "symbolic link" in p.stderr, name + ": exit 2, 'symbolic link'")
        check(os.path.islink(os.path.join(tmp, name)), name + ": still a link")
    check(open(target).read() == "precious\n", "the target untouched")
    check(not os.path.exists(os.path.join(tmp, "nowhere.csv")), "nothing made where the dangling link points")


def final_device(a, tmp):
    dev = os.path.join(tmp, "null")
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError as e:
        print("(mknod: %s; /dev/null itself, which this user %s replace)" % (e, "could" if os.getuid() == 0 else
                                                                             "cannot"))
        dev = "/dev/null"
    p = run([a.throng, "run", MINIMAL, "--steps", "2", "--no-output", "--final-state", dev], tmp)
    check(p.returncode == 0, "exit 0 (got %d)" % p.returncode)
    check(stat.S_ISCHR(os.lstat(dev).st_mode), dev + " is still a character device")
    check(not os.path.exists(dev + ".tmp"), "no temporary file beside it")


def disk_full_hdf5(a, tmp):
    if not has_hdf5(a):
        print("SKIPPED: this throng has no HDF5")
        sys.exit(77)
    mnt = os.path.join(tmp, "disk")
    os.mkdir(mnt)
    keep = os.path.join(tmp, "kept")
    out = os.path.join(mnt, "out")
    inner = [a.throng, "run", os.path.join(ROOT, "configs", "paper", "bottleneck-3600.yaml"), "--steps", "400",
             "--out", out, "--quiet", "--set", "output.trajectory_every=5"]
    cmd = mount_tmpfs_cmd(mnt, inner, "12m", "cp -r '%s' '%s'" % (out, keep))
    if not cmd:
        print("SKIPPED: no tmpfs can be mounted here (unshare -m / -rm refused), and the HDF5 library's own "
              "writes cannot be made to fail by the fault hook")
        sys.exit(77)
    p = run(cmd, tmp, timeout=300)
    check(p.returncode == 1, "exit 1, never a crash (got %d)" % p.returncode)
    m = re.search(r"trajectory\.h5: .*No space left on device.* keeps its (\d+) complete frame", p.stderr)
    check(m is not None, "the message names trajectory.h5, ENOSPC and the frames kept")
    kept = int(m.group(1)) if m else -1
    h5 = os.path.join(keep, "trajectory.h5")
    check(os.path.isfile(h5) and not tmp_files(keep), "trajectory.h5 is there, no .tmp")
    xdmf = open(os.path.join(keep, "trajectory.xdmf")).read() if os.path.isfile(os.path.join(keep, "trajectory.xdmf")) else ""
    check(kept > 0 and xdmf.count('<Grid Name="frame ') == kept, "trajectory.xdmf shows the %d frames" % kept)
    try:
        import h5py
        with h5py.File(h5, "r") as f:
            frames, rows = f["frames"][:], f["trajectory"].shape[0]
        check(len(frames) == kept and rows == kept * 3600 and list(frames["step"]) == [5 * k for k in range(kept)],
              "the file opens: %d frames of 3600 rows" % len(frames))
    except ImportError:
        print("(no h5py: the file's frames are checked through the XDMF only)")
    check(run_json(keep)["state"] == "failed", "run.json: failed")


def sighup(a, tmp):
    out = os.path.join(tmp, "out")
    proc, err = signal_mid_run(a, tmp, out, signal.SIGHUP)
    hdf5 = has_hdf5(a)
    check(proc.returncode == (75 if hdf5 else 129), "exit %d (got %d)" % (75 if hdf5 else 129, proc.returncode))
    rj = run_json(out)
    check(rj["state"] == ("checkpointed" if hdf5 else "interrupted"), "run.json: %s" % rj["state"])
    check("SIGHUP" in err, "the message names SIGHUP")
    check(not tmp_files(tmp), "no temporary files")


def check_tiny_dt(a, tmp):
    p = run([a.throng, "check", MINIMAL, "--set", "time.dt=1e-45"], tmp)
    check(p.returncode == 2 and "time.dt" in p.stderr and "too small" in p.stderr, "check: exit 2 naming time.dt")


POINTS_SCENARIO = """world: {min: [0, 0], max: [20, 20]}
time: {dt: 0.05, steps: 3}
agents: [{layout: points, points_file: %s}]
goals: [{name: exit, point: [19, 10]}]
"""


def timed_refusal(a, tmp, args, pattern, what, limit=10):
    t0 = time.time()
    try:
        p = run([a.throng] + args, tmp, timeout=limit + 20)
    except subprocess.TimeoutExpired:
        check(False, what + ": it hangs")
        return
    took = time.time() - t0
    check(p.returncode == 2 and re.search(pattern, p.stderr) is not None,
          "%s: exit 2, /%s/ (got %d)" % (what, pattern, p.returncode))
    check(took < limit, "%s: at once (%.1f s)" % (what, took))


def input_special(a, tmp):
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    for name, target in (("/dev/zero", "/dev/zero"), ("a FIFO", fifo)):
        with open(os.path.join(tmp, "p.yaml"), "w") as f:
            f.write(POINTS_SCENARIO % target)
        timed_refusal(a, tmp, ["check", "p.yaml"], re.escape(target) + r".*not a regular file",
                      "points_file " + name)
    timed_refusal(a, tmp, ["check", fifo], "fifo: cannot read the scenario file: is a FIFO", "a FIFO as scenario")
    timed_refusal(a, tmp, ["run", MINIMAL, "--restart", fifo, "--out", "o"], "is a FIFO", "a FIFO as checkpoint")
    timed_refusal(a, tmp, ["run", MINIMAL, "--catalyst", fifo, "--out", "o2"], "is a FIFO",
                  "a FIFO as Catalyst script")
    check(not os.path.exists(os.path.join(tmp, "o")) and not os.path.exists(os.path.join(tmp, "o2")),
          "no output directory left behind")


def input_large(a, tmp):
    big = os.path.join(tmp, "big.yaml")
    with open(big, "wb") as f:
        f.write(open(MINIMAL, "rb").read())
        f.truncate(65 << 20)  # sparse: no disk used
    timed_refusal(a, tmp, ["check", big], r"big\.yaml: cannot read the scenario file: is 65 MiB, more than the 64 MiB",
                  "a 65 MiB scenario")
    pts = os.path.join(tmp, "zeros.csv")
    with open(pts, "wb") as f:
        f.truncate(2 << 30)
    with open(os.path.join(tmp, "p.yaml"), "w") as f:
        f.write(POINTS_SCENARIO % pts)
    timed_refusal(a, tmp, ["check", "p.yaml"], r"zeros\.csv:1: a NUL byte", "a 2 GiB points file of zeros", 5)


CASES = {
    "diverge": diverge,
    "diverge-no-output": lambda a, t: diverge(a, t, output=False),
    "diverge-mpi": lambda a, t: diverge(a, t, mpi=True),
    "steps-overflow": steps_overflow, "steps-long": steps_long, "yaml-long-numbers": yaml_long_numbers,
    "final-in-out": final_in_out, "final-is-scenario": final_is_scenario, "final-is-dir": final_is_dir,
    "final-no-parent": final_no_parent, "out-not-empty": out_not_empty, "out-foreign": out_foreign,
    "out-too-long": out_too_long, "disk-full": disk_full, "fault-final": fault_final, "fault-frame": fault_frame,
    "fault-run-json": fault_run_json, "sigterm": sigterm, "out-1000": out_1000, "out-empty": out_empty,
    "out-concurrent": out_concurrent, "overwrite-foreign": overwrite_foreign, "final-symlink": final_symlink,
    "final-device": final_device, "disk-full-hdf5": disk_full_hdf5, "sighup": sighup,
    "check-tiny-dt": check_tiny_dt, "input-special": input_special, "input-large": input_large,
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
