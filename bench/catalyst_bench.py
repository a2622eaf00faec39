#!/usr/bin/env python3
"""What ParaView Catalyst costs (issue 13): seconds per call of each script
of configs/catalyst/ and their share of the run time at a cadence.

  catalyst_bench.py THRONG N [N ...] [--ranks P] [--steps S] [--every E]
                    [--cadence C] [--scripts extracts,render_speed,...]
                    [--mpiexec mpirun] [--dir DIR]

For each N: the evacuation benchmark of make_evacuation.py (N agents), run
S steps without Catalyst (the step time), then S steps with each script
called every E steps (run.json's output_seconds: calls, seconds, the first
call apart: it imports the script and opens its views). Rendering scripts
run under `xvfb-run -a`. Prints one CSV row per N and script:
  per_call_seconds   mean of the calls after the first
  first_call_seconds the first call
  step_seconds       a step without Catalyst (outputs off)
  share_at_cadence   per_call / (C * step + per_call): the share of the run
                     time Catalyst takes when called every C steps (default
                     48, catalyst.every's default)
Run it on an idle machine; on a shared one set OMP_WAIT_POLICY=passive.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "configs", "catalyst")


def run(a, yaml, out, steps, extra, render):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [a.throng, "run", yaml, "--out", out, "--steps", str(steps), "--quiet",
           "--set", "output.trajectory_every=0", "--set", f"output.metrics_every={steps}"] + extra
    if a.ranks > 1:
        cmd = [a.mpiexec, "-n", str(a.ranks)] + cmd
    if render:
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24 -noreset"] + cmd
    subprocess.run(cmd, check=True)
    with open(os.path.join(out, "run.json")) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("throng")
    p.add_argument("n", type=int, nargs="+")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--every", type=int, default=2)
    p.add_argument("--cadence", type=int, default=48)
    p.add_argument("--scripts", default="extracts,render_speed")
    p.add_argument("--mpiexec", default=os.environ.get("MPIEXEC", "mpirun"))
    p.add_argument("--dir", default=None, help="work directory (default: a temporary one, removed)")
    a = p.parse_args()
    work = a.dir or tempfile.mkdtemp(prefix="throng-catalyst-bench-")
    os.makedirs(work, exist_ok=True)
    print("agents,ranks,script,calls,per_call_seconds,first_call_seconds,step_seconds,cadence,share_at_cadence",
          flush=True)
    try:
        for n in a.n:
            yaml = os.path.join(work, f"evac-{n}.yaml")
            subprocess.run([sys.executable, os.path.join(HERE, "make_evacuation.py"), str(n), yaml], check=True)
            base = run(a, yaml, os.path.join(work, f"base-{n}"), a.steps, [], False)
            step = base["wall_seconds"] / base["steps"]
            for name in a.scripts.split(","):
                script = os.path.abspath(os.path.join(SCRIPTS, name + ".py"))
                r = run(a, yaml, os.path.join(work, f"{name}-{n}"), a.steps,
                        ["--catalyst", script, "--set", f"catalyst.every={a.every}"], name.startswith("render"))
                io = r["output_seconds"]
                calls = io["catalyst_calls"]
                per_call = (io["catalyst"] - io["catalyst_first_call"]) / max(calls - 1, 1)
                share = per_call / (a.cadence * step + per_call)
                print(f"{n},{a.ranks},{name},{calls},{per_call:.4f},{io['catalyst_first_call']:.3f},{step:.4f},"
                      f"{a.cadence},{share:.4f}", flush=True)
    finally:
        if not a.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
