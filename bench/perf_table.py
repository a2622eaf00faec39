#!/usr/bin/env python3
"""The performance table in one command (issue 15; docs/performance.md, "The
table"): the evacuation benchmark (bench/make_evacuation.py, every
constraint on) measured by throng-bench

  gpu1    one GPU at --gpu-sizes agents (default 1e5 1e6 1e7)
  weak    --per-gpu agents per GPU (default 2e6) on 1, 2, 4, ... GPUs (one rank each)
  strong  --strong agents (default 4e6) on 1, 2, 4, ... GPUs
  cpu     the CPU backend, one rank with every core's OpenMP threads, at
          --cpu-sizes agents (default 1e3 1e4 1e5 1e6)

and appends one row per measurement, with the date, the commit, the GPU
model and the CPU, to --table (default docs/performance-runs.csv).
scripts/plot_performance.py draws the table.

  perf_table.py --bench build-gpu/bin/throng-bench [--gpus N] [--table CSV] [--only gpu1,weak,strong,cpu]
                [--transports auto|mpi,nccl]

--transports runs every multi-GPU row once per halo transport
(THRONG_HALO_TRANSPORT); their backend column then reads cuda/TRANSPORT.
"""
import argparse
import csv
import datetime
import io
import os
import platform
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["date", "commit", "gpu", "cpu", "kind", "backend", "ranks", "agents", "steps", "ms_per_step",
           "agent_steps_per_s", "synced_ms_per_step", "long_range_ms", "contact_ms", "grid_ms", "halo_ms",
           "migrate_ms", "memory_bytes_per_agent"]


def sh(cmd, **kw):
    """The command's stdout, stripped; "" when it cannot run."""
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, **kw).stdout.strip()
    except OSError:
        return ""


def machine():
    gpu = sh(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"])
    gpu = gpu.splitlines()[0] if gpu else "none"
    cpu = platform.processor() or ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cpu = "%s x%d" % (cpu, os.cpu_count() or 1)
    # THRONG_COMMIT: where the tree is a copy without its history (the GPU machine)
    commit = os.environ.get("THRONG_COMMIT") or sh(["git", "-C", HERE, "rev-parse", "--short", "HEAD"]) or "unknown"
    if not os.environ.get("THRONG_COMMIT") and sh(["git", "-C", HERE, "status", "--porcelain", "--untracked-files=no"]):
        commit += "+changes"
    return gpu, cpu, commit


def bench(a, yaml, ranks, backend, steps, transport):
    cmd = [a.bench, "--backend", backend, "--steps", str(steps), "--warmup", "3", yaml]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               THRONG_HALO_TRANSPORT=transport)
    if ranks > 1:
        cmd = ["mpirun", "-n", str(ranks), "--bind-to", "none", "--oversubscribe", "-x", "LD_LIBRARY_PATH",
               "-x", "THRONG_HALO_TRANSPORT"] + cmd
    if backend == "cpu":
        env["OMP_NUM_THREADS"] = str(os.cpu_count() or 1)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        print("FAILED: %s\n%s" % (" ".join(cmd), p.stderr[-800:]), file=sys.stderr)
        return None
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return rows[-1] if rows else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", required=True, help="throng-bench of a CUDA build")
    ap.add_argument("--gpus", type=int, default=0, help="GPUs to scale over (default: all nvidia-smi lists)")
    ap.add_argument("--table", default=os.path.join(HERE, "..", "docs", "performance-runs.csv"))
    ap.add_argument("--only", default="gpu1,weak,strong,cpu")
    ap.add_argument("--gpu-sizes", default="100000,1000000,10000000")
    ap.add_argument("--per-gpu", type=int, default=2000000)
    ap.add_argument("--strong", type=int, default=4000000)
    ap.add_argument("--cpu-sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--transports", default="auto", help="halo transports of the multi-GPU rows (auto, mpi, nccl)")
    a = ap.parse_args()
    gpu, cpu, commit = machine()
    ngpu = a.gpus or len([l for l in sh(["nvidia-smi", "-L"]).splitlines() if l.startswith("GPU")])
    only = set(a.only.split(","))
    plan = []  # (kind, backend, ranks, agents, steps, transport)
    transports = a.transports.split(",")
    if ngpu:
        if "gpu1" in only:
            plan += [("gpu1", "cuda", 1, int(n), 50 if int(n) < 10**7 else 20, "auto") for n in a.gpu_sizes.split(",")]
        for kind in ("weak", "strong"):
            g = 1
            while g <= ngpu and kind in only:
                for t in transports if g > 1 else ["auto"]:
                    plan.append((kind, "cuda" if t == "auto" or g == 1 else "cuda/" + t, g,
                                 a.per_gpu * g if kind == "weak" else a.strong, 30, t))
                g *= 2
    if "cpu" in only:
        plan += [("cpu", "cpu", 1, int(n), max(3, min(200, 2 * 10**7 // int(n))), "auto")
                 for n in a.cpu_sizes.split(",")]
    new = not os.path.exists(a.table)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%MZ")
    with tempfile.TemporaryDirectory(prefix="throng-perf-") as tmp, open(a.table, "a", newline="") as f:
        w = csv.writer(f)
        if new:
            w.writerow(COLUMNS)
        print(",".join(COLUMNS), flush=True)
        for kind, backend, ranks, agents, steps, transport in plan:
            yaml = os.path.join(tmp, "evac-%d.yaml" % agents)
            if not os.path.exists(yaml):
                subprocess.run([sys.executable, os.path.join(HERE, "make_evacuation.py"), str(agents), yaml],
                               check=True, stdout=subprocess.DEVNULL)
            r = bench(a, yaml, ranks, backend.split("/")[0], steps, transport)
            if not r:
                continue
            row = [date, commit, gpu if backend.startswith("cuda") else "", cpu, kind, backend, ranks, r.get("agents", agents),
                   r.get("steps", steps)] + [r.get(k, "") for k in COLUMNS[9:]]
            w.writerow(row)
            f.flush()
            print(",".join(str(x) for x in row), flush=True)


if __name__ == "__main__":
    main()
