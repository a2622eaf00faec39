#!/usr/bin/env python3
"""What HDF5 output costs (issue 12): bytes per agent per frame of
trajectory.h5, seconds per frame, checkpoint size and seconds.

  io_bench.py THRONG N [N ...] [--ranks P] [--backend cpu|cuda] [--steps S]
              [--every E] [--compression C] [--mpiexec mpirun] [--dir DIR]

For each N: the evacuation benchmark of make_evacuation.py (N agents), run
S steps with a frame every E steps and one checkpoint at the end; the times
come from run.json's output_seconds (each frame is written and flushed to
disk before the run goes on). Prints one CSV row per N.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("throng")
    p.add_argument("n", type=int, nargs="+")
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--backend", default=None)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--every", type=int, default=2)
    p.add_argument("--compression", type=int, default=0)
    p.add_argument("--mpiexec", default=os.environ.get("MPIEXEC", "mpirun"))
    p.add_argument("--dir", default=None, help="work directory (default: a temporary one, removed)")
    a = p.parse_args()
    work = a.dir or tempfile.mkdtemp(prefix="throng-io-bench-")
    os.makedirs(work, exist_ok=True)
    print("agents,ranks,backend,frames,bytes_per_agent_frame,seconds_per_frame,checkpoint_mb,"
          "checkpoint_bytes_per_agent,checkpoint_seconds")
    try:
        for n in a.n:
            yaml = os.path.join(work, f"evac-{n}.yaml")
            subprocess.run([sys.executable, os.path.join(HERE, "make_evacuation.py"), str(n), yaml], check=True)
            out = os.path.join(work, f"out-{n}")
            shutil.rmtree(out, ignore_errors=True)
            cmd = [a.throng, "run", yaml, "--out", out, "--steps", str(a.steps), "--quiet",
                   "--set", f"output.trajectory_every={a.every}", "--set", f"output.checkpoint_every={a.steps}",
                   "--set", f"output.metrics_every={a.steps}", "--set", f"output.compression={a.compression}",
                   "--set", "output.trajectory_format=hdf5"]
            if a.backend:
                cmd += ["--backend", a.backend]
            if a.ranks > 1:
                cmd = [a.mpiexec, "-n", str(a.ranks)] + cmd
            subprocess.run(cmd, check=True)
            with open(os.path.join(out, "run.json")) as f:
                run = json.load(f)
            io = run["output_seconds"]
            frames = io["trajectory_frames"]
            rows = frames * n  # nobody leaves in so few steps
            size = os.path.getsize(os.path.join(out, "trajectory.h5"))
            ckpt = sorted(glob.glob(os.path.join(out, "checkpoints", "checkpoint-*.h5")))[-1]
            csize = os.path.getsize(ckpt)
            print(f"{n},{a.ranks},{run['backend']},{frames},{size / rows:.1f},{io['trajectory'] / frames:.4f},"
                  f"{csize / 1e6:.1f},{csize / n:.1f},{io['checkpoints']:.3f}", flush=True)
            shutil.rmtree(out, ignore_errors=True)
    finally:
        if not a.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
