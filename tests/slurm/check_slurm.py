#!/usr/bin/env python3
"""The job scripts of jobs/ against a real Slurm (label slurm; docs/slurm.md).

Usage: check_slurm.py THRONG CASE --source DIR

Each case starts a private single-node Slurm (tests/slurm/local_slurm.sh:
munged, slurmctld and slurmd on localhost, under a temporary directory),
submits the project's own scripts from the source directory, waits for the
jobs with a timeout, checks what they wrote (never only the job state), and
stops the daemons it started. Exit 77 (skip) without root or the Slurm
packages.

Cases:
  cpu_job   jobs/cpu.sbatch with tests/data/io/exit_room.yaml on 2 tasks: the
            job COMPLETED; its log names 2 ranks; run.json complete on 2
            ranks; summary.json counts every agent; the final state equals a
            1-rank run's outside Slurm byte for byte.
  chain     jobs/chain.sbatch with --time=1 and --signal=USR1@50 on 2 tasks
            (tests/data/mpi/lanes.yaml),
            sized (from a measured rate) to need about 75 s: every link but
            the last is warned, checkpoints and exits 75, the next link
            resumes from its checkpoint; at least 2 links; run.json
            "checkpointed" then "complete"; OUT/final points to the last link;
            the final state equals an uninterrupted run's byte for byte.
  bad_override  jobs/cpu.sbatch with a bad --set in EXTRA_ARGS: the job fails
            with exit status 2 at its `throng check`, the log names the key,
            no rank started (no output directory).
  binding_none, binding_affinity
            jobs/cpu.sbatch with tests/data/mpi/lanes.yaml on 2 tasks x 1 CPU
            under TaskPlugin=task/none (tasks not bound) and task/affinity
            (bound): the run's wall time (run.json) is at most 2 x that of
            `mpirun -n 2` outside Slurm (the larger of a run before and one
            after the job; a script that pinned threads itself ran 30 x
            slower without task binding), and the final states agree byte
            for byte.
  chain_paths  jobs/chain.sbatch with a comma in SCENARIO's path and
            ",THRONG=/bin/echo," and "%j" in OUT's (1 task, lanes.yaml; the
            part of OUT before its first comma links to OUT, so that a split
            OUT would run /bin/echo from the checkpoint): the
            first link is sent SIGUSR1 (scancel --signal) once it runs,
            checkpoints, and submits the next link, which gets both paths as
            they are (Slurm's --export=ALL,NAME=VALUE would split them at the
            commas): it resumes from OUT/link-001's checkpoint with the real
            throng (its run.json names the scenario file verbatim), its Slurm
            log is OUT/link-002.log, and the final state equals an
            uninterrupted run's byte for byte.
  ensemble  jobs/submit-ensemble.sh with a 3-run manifest (exit_room.yaml,
            seeds 1-3) and --account=study42 -p debug: the array's runs and the
            aggregation job, which got the same account and partition; runs.csv
            has the 3 runs, summary.csv's mean and 95 % interval of the
            evacuation time are those of the runs' summary.json (Student's t,
            2 degrees of freedom), the plots and each run's report exist.
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
TERMINAL = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
            "DEADLINE"}


def fail(msg):
    print("FAIL: " + msg)
    raise SystemExit(1)


def need(cond, msg):
    if not cond:
        fail(msg)


class Cluster:
    def __init__(self, base):
        self.base = base
        p = subprocess.run(["bash", os.path.join(HERE, "local_slurm.sh"), "start", base], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if p.returncode == SKIP:
            print("SKIP: " + p.stdout.strip())
            raise SystemExit(SKIP)
        need(p.returncode == 0, "the private Slurm did not start:\n" + p.stdout)
        self.env = dict(os.environ, SLURM_CONF=os.path.join(base, "slurm.conf"))
        for k in ("OMPI_MCA_rmaps_base_oversubscribe", "OMP_NUM_THREADS"):
            self.env.pop(k, None)

    def stop(self):
        subprocess.run(["bash", os.path.join(HERE, "local_slurm.sh"), "stop", self.base])

    def sbatch(self, args, cwd, env=None):
        e = dict(self.env)
        e.update(env or {})
        p = subprocess.run(["sbatch", "--parsable"] + args, cwd=cwd, env=e, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        need(p.returncode == 0, "sbatch %s: %s" % (" ".join(args), p.stdout))
        return p.stdout.strip().split(";")[0]

    def job(self, jid):
        """{field: value} of scontrol show job (one line), or {} once it is gone."""
        p = subprocess.run(["scontrol", "-o", "show", "job", jid], env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=30)
        return dict(re.findall(r"(\w+)=(\S*)", p.stdout)) if p.returncode == 0 else {}

    def wait(self, jid, timeout):
        """The job's final JobState and ExitCode; fails after timeout seconds."""
        end = time.time() + timeout
        while time.time() < end:
            j = self.job(jid)
            if j.get("JobState") in TERMINAL:
                return j["JobState"], j.get("ExitCode", "")
            time.sleep(0.5)
        self.dump_logs()
        fail("job %s did not finish within %d s (state %s)" % (jid, timeout, self.job(jid).get("JobState")))

    def jobs(self):
        p = subprocess.run(["squeue", "-h", "-o", "%i %T"], env=self.env, stdout=subprocess.PIPE, text=True,
                           timeout=30)
        return [l.split() for l in p.stdout.splitlines() if l.strip()]

    def dump_logs(self):
        for name in ("slurmctld.log", "slurmd.log"):
            path = os.path.join(self.base, "log", name)
            if os.path.exists(path):
                print("---- %s (last lines)" % path)
                print("".join(open(path).readlines()[-15:]))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def direct_run(a, scenario, out, extra, ranks=1):
    cmd = [a.throng, "run", scenario, "--out", out, "--quiet"] + extra
    if ranks > 1:
        cmd = ["mpirun", "-n", str(ranks), "--oversubscribe"] + cmd
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    need(p.returncode == 0, "%s: exit %d\n%s" % (" ".join(cmd), p.returncode, p.stdout))
    return time.time() - t0


def plotting_python():
    """An interpreter with matplotlib for the aggregation's plots (Debian's first)."""
    for py in ("/usr/bin/python3", sys.executable):
        if os.path.exists(py) and subprocess.run([py, "-c", "import matplotlib"], stderr=subprocess.DEVNULL).returncode == 0:
            return py
    return "python3"


def job_env(a, **kw):
    env = {"THRONG": a.throng, "SRUN_MPI": "pmix", "PYTHON": plotting_python()}
    env.update(kw)
    return env


# ---- cases ----------------------------------------------------------------------


def case_cpu_job(a, c, tmp):
    scenario = os.path.join(a.source, "tests", "data", "io", "exit_room.yaml")
    out, log, final = os.path.join(tmp, "out"), os.path.join(tmp, "job.log"), os.path.join(tmp, "final-slurm.csv")
    t0 = time.time()
    jid = c.sbatch(["--ntasks=2", "--cpus-per-task=1", "--time=5", "--output=" + log, "jobs/cpu.sbatch"], a.source,
                   job_env(a, SCENARIO=scenario, OUT=out, EXTRA_ARGS="--quiet --final-state " + final))
    state, code = c.wait(jid, 180)
    cycle = time.time() - t0
    text = open(log).read() if os.path.exists(log) else ""
    need(state == "COMPLETED" and code == "0:0", "job %s: %s %s\n%s" % (jid, state, code, text))
    need(re.search(r"job %s: 2 rank\(s\) x 1 thread" % jid, text), "the log does not name 2 ranks:\n" + text)
    run = json.load(open(os.path.join(out, "run.json")))
    need(run["state"] == "complete" and run["ranks"] == 2, "run.json: %s on %s ranks" % (run["state"], run["ranks"]))
    s = json.load(open(os.path.join(out, "summary.json")))
    need(s["evacuated"] + s["remaining"] == s["agents_initial"] + s["agents_added"] == 30,
         "summary.json does not add up: %s" % s)
    direct_run(a, scenario, os.path.join(tmp, "direct"), ["--final-state", os.path.join(tmp, "final-direct.csv")])
    need(read(final) == read(os.path.join(tmp, "final-direct.csv")),
         "the job's final state differs from a 1-rank run's")
    print("ok: job %s on 2 tasks: outputs complete, final state equal to a 1-rank run's; submit to finish %.1f s"
          % (jid, cycle))


def case_chain(a, c, tmp):
    # lanes of agents that keep walking or standing at their goals: the same
    # work in every step (a scenario whose agents leave would speed up)
    scenario = os.path.join(a.source, "tests", "data", "mpi", "lanes.yaml")
    # the rate on 2 ranks from two probes (start-up cancels out), for a run of
    # about 75 s: links are warned 10-40 s after they start (Slurm checks the
    # time limits every 30 s)
    t1 = direct_run(a, scenario, os.path.join(tmp, "probe1"), ["--steps", "400"], ranks=2)
    t2 = direct_run(a, scenario, os.path.join(tmp, "probe2"), ["--steps", "2400"], ranks=2)
    per_step = max((t2 - t1) / 2000.0, 1e-5)
    steps = max(2000, int(75.0 / per_step))
    out = os.path.join(tmp, "chain")
    final = os.path.join(tmp, "final-chain.csv")
    t0 = time.time()
    jid = c.sbatch(["--ntasks=2", "--cpus-per-task=1", "--time=1", "--signal=USR1@50",
                    "--output=" + os.path.join(tmp, "link-001.log"), "jobs/chain.sbatch"], a.source,
                   job_env(a, SCENARIO=scenario, OUT=out, CHAIN_MAX="12",
                           EXTRA_ARGS="--quiet --steps %d --final-state %s" % (steps, final)))
    # wait for the chain: until the last link has ended and nothing is queued
    end = time.time() + 900
    while time.time() < end:
        log = open(os.path.join(out, "chain.log")).read() if os.path.exists(os.path.join(out, "chain.log")) else ""
        if "chain complete" in log or "the chain stops" in log or "give up" in log or "no checkpoint" in log:
            if not c.jobs():
                break
        time.sleep(1)
    cycle = time.time() - t0
    log = open(os.path.join(out, "chain.log")).read()
    print(log)
    need("chain complete" in log, "the chain did not complete within 900 s:\n" + log)
    links = sorted(d for d in os.listdir(out) if re.fullmatch(r"link-\d{3}", d))
    need(len(links) >= 2, "only %d link: the first job ended before Slurm warned it (%d steps, sized for 75 s at "
         "%.2f ms per step: the machine ran much faster than probed)" % (len(links), steps, 1e3 * per_step))
    for d in links[:-1]:
        run = json.load(open(os.path.join(out, d, "run.json")))
        need(run["state"] == "checkpointed" and os.path.exists(os.path.join(out, d, "checkpoints", "latest.h5")),
             "%s: run.json %s, expected checkpointed with latest.h5" % (d, run["state"]))
    for prev, d in zip(links, links[1:]):
        run = json.load(open(os.path.join(out, d, "run.json")))
        need(os.path.join(prev, "checkpoints", "latest.h5") in run.get("restarted_from", ""),
             "%s did not continue from %s: %s" % (d, prev, run.get("restarted_from")))
    last = json.load(open(os.path.join(out, links[-1], "run.json")))
    need(last["state"] == "complete" and last["last_step"] == steps, "the last link: %s at step %s"
         % (last["state"], last["last_step"]))
    need(os.path.realpath(os.path.join(out, "final")) == os.path.realpath(os.path.join(out, links[-1])),
         "OUT/final does not point to the last link")
    direct_run(a, scenario, os.path.join(tmp, "direct"),
               ["--steps", str(steps), "--final-state", os.path.join(tmp, "final-direct.csv")], ranks=2)
    need(read(final) == read(os.path.join(tmp, "final-direct.csv")),
         "the chain's final state differs from an uninterrupted run's")
    print("ok: %d steps in %d links (each warned by Slurm, checkpointed, resumed); final state equal to an "
          "uninterrupted run's; chain %.0f s" % (steps, len(links), cycle))


def case_chain_paths(a, c, tmp):
    scenario_dir = os.path.join(tmp, "scenario, a copy")
    os.makedirs(scenario_dir)
    scenario = os.path.join(scenario_dir, "lanes.yaml")
    shutil.copy(os.path.join(a.source, "tests", "data", "mpi", "lanes.yaml"), scenario)
    # split at its commas, OUT would become tmp/chain, a link to OUT itself, so
    # that the next link finds its checkpoint and runs what THRONG says
    out = os.path.join(tmp, "chain,THRONG=/bin/echo,x%j")
    os.makedirs(out)
    os.symlink(out, os.path.join(tmp, "chain"))
    final = os.path.join(tmp, "final-chain.csv")
    steps = 2000
    jid = c.sbatch(["--ntasks=1", "--cpus-per-task=1", "--time=10", "--output=" + os.path.join(tmp, "link-001.log"),
                    "jobs/chain.sbatch"], a.source,
                   job_env(a, SCENARIO=scenario, OUT=out, CHAIN_MAX="3",
                           EXTRA_ARGS="--quiet --steps %d --final-state %s" % (steps, final)))
    # the first link's warning, once throng runs (it catches SIGUSR1 from its start)
    end = time.time() + 120
    while time.time() < end and not os.path.exists(os.path.join(out, "link-001", "run.json")):
        time.sleep(0.2)
    need(os.path.exists(os.path.join(out, "link-001", "run.json")),
         "the first link did not start throng within 120 s:\n" + open(os.path.join(tmp, "link-001.log")).read())
    time.sleep(1)
    p = subprocess.run(["scancel", "--signal=USR1", jid], env=c.env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    need(p.returncode == 0, "scancel --signal=USR1 %s: %s" % (jid, p.stdout))
    # until nothing is queued: a link submits the next before it ends
    end = time.time() + 300
    while time.time() < end and c.jobs():
        time.sleep(1)
    path = os.path.join(out, "chain.log")
    log = open(path).read() if os.path.exists(path) else ""
    print(log)
    logs = "".join("---- %s\n%s" % (f, open(os.path.join(d, f)).read()) for d in (tmp, out)
                   for f in sorted(os.listdir(d)) if f.endswith(".log") and f != "chain.log")
    need("chain complete after 2 link(s)" in log, "the chain did not complete in 2 links:\n%s\n%s" % (log, logs))
    first = json.load(open(os.path.join(out, "link-001", "run.json")))
    need(first["state"] == "checkpointed", "link-001: run.json %s, expected checkpointed" % first["state"])
    need(os.path.exists(os.path.join(out, "link-002", "run.json")), "link-002 wrote no run.json: throng did not run")
    run = json.load(open(os.path.join(out, "link-002", "run.json")))
    ckpt = os.path.join(out, "link-001", "checkpoints", "latest.h5")
    need(run.get("restarted_from") == ckpt, "link-002 restarted from %r, expected %r" % (run.get("restarted_from"), ckpt))
    need(run["scenario_file"] == scenario, "link-002 ran %r, expected %r" % (run["scenario_file"], scenario))
    need(run["state"] == "complete" and run["last_step"] == steps, "link-002: %s at step %s"
         % (run["state"], run["last_step"]))
    need(os.path.exists(os.path.join(out, "link-002.log")), "no Slurm log OUT/link-002.log: %s" % os.listdir(out))
    direct_run(a, scenario, os.path.join(tmp, "direct"),
               ["--steps", str(steps), "--final-state", os.path.join(tmp, "final-direct.csv")])
    need(read(final) == read(os.path.join(tmp, "final-direct.csv")),
         "the chain's final state differs from an uninterrupted run's")
    print("ok: SCENARIO %r and OUT %r reached link 2 verbatim; it resumed at step %d with the real throng; final "
          "state equal to an uninterrupted run's" % (scenario, out, first["last_step"]))


def case_ensemble(a, c, tmp):
    scenario = "tests/data/io/exit_room.yaml"
    manifest = os.path.join(tmp, "study.csv")
    with open(manifest, "w") as f:
        f.write("group,scenario,seed,overrides\n")
        for seed in (1, 2, 3):
            f.write("room,%s,%d,output.trajectory_every=0\n" % (scenario, seed))
    out = os.path.join(tmp, "study")
    t0 = time.time()
    env = dict(c.env, **job_env(a, EXTRA_ARGS="--quiet"))
    # the account and partition (two forms) must reach the aggregation job as well as the runs
    p = subprocess.run(["bash", "jobs/submit-ensemble.sh", manifest, out, "--ntasks=1", "--cpus-per-task=1",
                        "--time=5", "--account=study42", "-p", "debug"], cwd=a.source, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    need(p.returncode == 0, "submit-ensemble.sh: exit %d\n%s" % (p.returncode, p.stdout))
    m = re.search(r"job array (\d+) \(1-3\); aggregation: job (\d+)", p.stdout)
    need(m, "submit-ensemble.sh did not print the job ids:\n" + p.stdout)
    agg = c.job(m.group(2))
    need(agg.get("Account") == "study42" and agg.get("Partition") == "debug",
         "aggregation job %s: Account=%s Partition=%s, expected study42 and debug"
         % (m.group(2), agg.get("Account"), agg.get("Partition")))
    state, code = c.wait(m.group(2), 300)
    cycle = time.time() - t0
    logs = "".join(open(os.path.join(out, "logs", f)).read() for f in sorted(os.listdir(os.path.join(out, "logs"))))
    need(state == "COMPLETED" and code == "0:0", "aggregation job: %s %s\n%s" % (state, code, logs))
    with open(os.path.join(out, "runs.csv")) as f:
        runs = list(csv.DictReader(f))
    need(len(runs) == 3 and all(r["state"] == "complete" for r in runs), "runs.csv: %s" % runs)
    times = []
    for r in runs:
        s = json.load(open(os.path.join(out, "runs", r["run"], "summary.json")))
        need(abs(float(r["evacuation_time"]) - s["evacuation_time"]) < 1e-6, "runs.csv evacuation time of %s"
             % r["run"])
        need(os.path.exists(os.path.join(out, "runs", r["run"], "report", "index.html")), "no report of %s" % r["run"])
        times.append(s["evacuation_time"])
    with open(os.path.join(out, "summary.csv")) as f:
        rows = {(r["group"], r["quantity"]): r for r in csv.DictReader(f)}
    row = rows[("room", "evacuation_time")]
    mean = sum(times) / 3
    sd = math.sqrt(sum((t - mean) ** 2 for t in times) / 2)
    half = 4.302652730 * sd / math.sqrt(3)  # Student's t(0.975, 2), exact (the tables round it to 4.303)
    need(row["runs"] == "3" and row["complete"] == "3", "summary.csv counts: %s" % row)
    need(abs(float(row["mean"]) - mean) < 1e-5 and abs(float(row["sd"]) - sd) < 1e-5, "summary.csv mean/sd: %s" % row)
    need(abs(float(row["ci95_low"]) - (mean - half)) < 1e-5 and abs(float(row["ci95_high"]) - (mean + half)) < 1e-5,
         "summary.csv 95 %% interval: %s, expected %.6f +- %.6f" % (row, mean, half))
    need(("room", "flow_east") in rows and rows[("room", "flow_east")]["mean"], "no flow of exit east in summary.csv")
    for png in ("evacuation_time.png", "exit_flows.png"):
        need(os.path.getsize(os.path.join(out, png)) > 2000, "%s missing or empty" % png)
    need("| room | evacuation_time | 3/3 |" in open(os.path.join(out, "summary.md")).read(), "summary.md table")
    print("ok: 3 runs and their aggregate: evacuation time %.2f s, 95 %% CI [%.2f, %.2f]; submit to finish %.1f s"
          % (mean, mean - half, mean + half, cycle))


def case_bad_override(a, c, tmp):
    scenario = os.path.join(a.source, "tests", "data", "io", "exit_room.yaml")
    out, log = os.path.join(tmp, "out"), os.path.join(tmp, "job.log")
    jid = c.sbatch(["--ntasks=2", "--cpus-per-task=1", "--time=5", "--output=" + log, "jobs/cpu.sbatch"], a.source,
                   job_env(a, SCENARIO=scenario, OUT=out, EXTRA_ARGS="--quiet --set solver.iterations=-3"))
    state, code = c.wait(jid, 120)
    text = open(log).read() if os.path.exists(log) else ""
    need(state == "FAILED" and code == "2:0", "job %s: %s %s, expected FAILED 2:0\n%s" % (jid, state, code, text))
    need("solver.iterations=-3" in text and "expected an integer >= 0" in text,
         "the log does not name the bad override:\n" + text)
    need(not os.path.exists(out), "an output directory was written: a rank started")
    print("ok: job %s stopped at its check (exit 2), naming --set solver.iterations=-3; no rank started" % jid)


def binding_case(a, c, tmp):
    scenario = os.path.join(a.source, "tests", "data", "mpi", "lanes.yaml")
    out, log, final = os.path.join(tmp, "out"), os.path.join(tmp, "job.log"), os.path.join(tmp, "final-slurm.csv")
    steps = ["--steps", "300"]

    def mpirun_wall(name):
        d = os.path.join(tmp, name)
        direct_run(a, scenario, d, ["--backend", "cpu", "--final-state", os.path.join(tmp, "final-direct.csv")] + steps,
                   ranks=2)
        return json.load(open(os.path.join(d, "run.json")))["wall_seconds"]

    before = mpirun_wall("direct-before")  # and after the job: the larger is the reference (machine load varies)
    jid = c.sbatch(["--ntasks=2", "--cpus-per-task=1", "--time=5", "--output=" + log, "jobs/cpu.sbatch"], a.source,
                   job_env(a, SCENARIO=scenario, OUT=out, EXTRA_ARGS=" ".join(["--quiet", "--final-state", final] + steps)))
    state, code = c.wait(jid, 300)
    text = open(log).read() if os.path.exists(log) else ""
    need(state == "COMPLETED" and code == "0:0", "job %s: %s %s\n%s" % (jid, state, code, text))
    job_wall = json.load(open(os.path.join(out, "run.json")))["wall_seconds"]
    direct_wall = max(before, mpirun_wall("direct-after"))
    need(read(final) == read(os.path.join(tmp, "final-direct.csv")), "the job's final state differs from mpirun's")
    need(job_wall <= 2.0 * direct_wall, "the job's run took %.2f s, more than 2 x mpirun -n 2's %.2f s"
         % (job_wall, direct_wall))
    print("ok: %s: job %s ran 2 ranks in %.2f s, mpirun -n 2 in %.2f s (ratio %.2f); final states equal"
          % (os.environ.get("THRONG_SLURM_TASK_PLUGIN", "task/none"), jid, job_wall, direct_wall,
             job_wall / direct_wall))


def case_binding_none(a, c, tmp):
    binding_case(a, c, tmp)


def case_binding_affinity(a, c, tmp):
    binding_case(a, c, tmp)


CASES = {"cpu_job": case_cpu_job, "chain": case_chain, "chain_paths": case_chain_paths, "ensemble": case_ensemble, "bad_override": case_bad_override,
         "binding_none": case_binding_none, "binding_affinity": case_binding_affinity}
# the private Slurm's TaskPlugin per case (local_slurm.sh; default task/none)
TASK_PLUGIN = {"binding_affinity": "task/affinity"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    a.throng = os.path.abspath(a.throng)
    a.source = os.path.abspath(a.source)
    os.environ["THRONG_SLURM_TASK_PLUGIN"] = TASK_PLUGIN.get(a.case, "task/none")
    tmp = tempfile.mkdtemp(prefix="throng-slurm-")
    os.chmod(tmp, 0o755)  # munged wants its socket's directories open to all
    cluster = None
    try:
        cluster = Cluster(os.path.join(tmp, "slurm"))
        CASES[a.case](a, cluster, tmp)
        return 0
    except SystemExit as e:
        if e.code not in (0, SKIP) and cluster:
            cluster.dump_logs()
        return e.code
    finally:
        if cluster:
            cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
