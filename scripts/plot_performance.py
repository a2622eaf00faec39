#!/usr/bin/env python3
"""Figures of the performance table (bench/perf_table.py appends to
docs/performance-runs.csv):

  plot_performance.py [TABLE] [--out DIR] [--commits C1,C2,...]

  gpu1.png     agent-steps per second against agents, one GPU, a line per (commit, GPU)
  weak.png     weak-scaling efficiency t(1 GPU) / t(N GPUs) against N
  strong.png   strong-scaling speed-up t(1) / t(N) against N, with the ideal line
  cpu.png      agent-steps per second against agents, CPU backend, a line per (commit, CPU)

By default every commit in the table; --commits picks some (e.g. before and
after a change). Needs matplotlib.
"""
import argparse
import csv
import os
import sys


def series(rows, kind, x, y):
    """{(commit, machine): [(x, y), ...]} of one kind of row, sorted by x."""
    out = {}
    for r in rows:
        if r["kind"] != kind or not r[y]:
            continue
        key = (r["commit"], r["gpu"] or r["cpu"])
        out.setdefault(key, []).append((float(r[x]), float(r[y])))
    return {k: sorted(v) for k, v in out.items()}


def scaling(rows, kind):
    """{(commit, gpu, agents per GPU or total, transport): [(gpus, ratio)]}: efficiency (weak) or
    speed-up (strong); multi-GPU rows of backend cuda/TRANSPORT form their own series over the
    same 1-GPU row."""
    one, groups = {}, {}
    for r in rows:
        if r["kind"] != kind or not r["ms_per_step"]:
            continue
        ranks, agents = int(r["ranks"]), int(float(r["agents"]))
        size = agents // ranks if kind == "weak" else agents
        base = (r["commit"], r["gpu"], size)
        if ranks == 1:
            one[base] = float(r["ms_per_step"])
            continue
        transport = r["backend"].split("/", 1)[1] if "/" in r["backend"] else ""
        groups.setdefault(base + (transport,), {})[ranks] = float(r["ms_per_step"])
    out = {}
    for k, t in groups.items():
        t1 = one.get(k[:3])
        if t1:
            out[k] = [(1, 1.0)] + sorted((n, t1 / tn) for n, tn in t.items())
    return out


def save(plt, fig, ax, path):
    """Legend, layout, PNG; returns the path."""
    ax.legend(fontsize="x-small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("table", nargs="?", default=os.path.join(here, "..", "docs", "performance-runs.csv"))
    ap.add_argument("--out", default=os.path.join(here, "..", "docs", "figures"))
    ap.add_argument("--commits", default="")
    a = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_performance.py: needs matplotlib (python3-matplotlib)", file=sys.stderr)
        return 1
    with open(a.table, newline="") as f:
        rows = list(csv.DictReader(f))
    if a.commits:
        keep = set(a.commits.split(","))
        rows = [r for r in rows if r["commit"] in keep]
    os.makedirs(a.out, exist_ok=True)
    written = []
    for kind, title in (("gpu1", "one GPU, evacuation benchmark"), ("cpu", "CPU backend, one rank, all cores")):
        s = series(rows, kind, "agents", "agent_steps_per_s")
        if not s:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        for (commit, m), pts in s.items():
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label="%s, %s" % (commit, m))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("agents")
        ax.set_ylabel("agent-steps per second")
        ax.set_title(title)
        written.append(save(plt, fig, ax, os.path.join(a.out, kind + ".png")))
    for kind, ylabel in (("weak", "efficiency t(1) / t(N)"), ("strong", "speed-up t(1) / t(N)")):
        s = scaling(rows, kind)
        if not s:
            continue
        fig, ax = plt.subplots(figsize=(6, 4))
        top = 1
        for (commit, gpu, size, transport), pts in s.items():
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-",
                    label="%s%s, %s, %.0e agents%s" % (commit, " " + transport if transport else "", gpu, size,
                                                       " per GPU" if kind == "weak" else ""))
            top = max(top, max(p[0] for p in pts))
        if kind == "strong":
            ax.plot([1, top], [1, top], "k:", label="ideal")
        else:
            ax.axhline(0.9, color="k", ls=":", label="90 %")
            ax.set_ylim(0, 1.1)
        ax.set_xlabel("GPUs (one rank each)")
        ax.set_ylabel(ylabel)
        written.append(save(plt, fig, ax, os.path.join(a.out, kind + ".png")))
    print("\n".join(written) if written else "nothing to draw")
    return 0


if __name__ == "__main__":
    sys.exit(main())
