#!/usr/bin/env python3
"""Seed paper 004's Table 1 series and its Fig. 19 overhead check, timed here
(issue 16; docs/formations.md "Timings").

For each agent count N (default 100 200 400 800 1600) two rectangle
formations of N/2 agents at 1.3 m cross on paths that meet in the middle
(human-sized agents, the pedestrian preset), and, for comparison, the same
agents without formations walking to the same destinations (plain agents
of the base model). Each run is `throng run --no-output --steps S` (default
960, i.e. 20 s of simulated time, the groups meeting halfway); the time per
step is throng's own wall time of the stepping loop over S. Prints a
markdown table with the paper's reported frame rates beside ours.

  formations_table1.py THRONG [--backend cpu|cuda] [--threads T] [--steps S] [--sizes 100,200,...]
  formations_table1.py --write-configs DIR [--sizes ...]   only write the scenarios (formations
                                                           ones as table1-N.yaml) into DIR

configs/formations/table1/ holds the formation scenarios of the default
sizes, written by --write-configs.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

PAPER_AVG_FPS = {100: 89, 200: 72, 400: 55, 800: 35, 1600: 16}
SPACING = 1.3


def shape(half):
    """rows x cols of a rectangle of `half` agents, as square as possible."""
    rows = int(half ** 0.5)
    while half % rows:
        rows -= 1
    return rows, half // rows


def scenario(n, formations):
    rows, cols = shape(n // 2)
    w, h = (cols - 1) * SPACING, (rows - 1) * SPACING
    d = max(40.0, 2 * w)  # start distance between the group centres
    blocks, forms = [], []
    for g, (x, tx, bend) in enumerate(((-d / 2, d / 2, h / 4), (d / 2, -d / 2, -h / 4))):
        goal = "" if formations else f", goal: {{offset: [{tx - x:.2f}, 0]}}"
        blocks.append(f"  - {{layout: grid, min: [{x - w / 2:.2f}, {-h / 2:.2f}], max: [{x + w / 2:.2f}, {h / 2:.2f}], "
                      f"rows: {rows}, cols: {cols}, group: {g}{goal}}}")
        forms.append(f"    - {{group: {g}, path: [[{x:.2f}, 0], [0, {bend:.2f}], [{tx:.2f}, 0]], speed: 1.2}}")
    text = (f"name: table1-{n}{'' if formations else '-plain'}\n"
            f"description: seed paper 004 Table 1 series, {n} agents (bench/formations_table1.py)\n"
            "model: {preset: pedestrian}\n"
            f"world: {{min: [{-d - w:.1f}, {-h - 20:.1f}], max: [{d + w:.1f}, {h + 20:.1f}]}}\n"
            f"time: {{steps: {int(2 * d / 1.2 * 48)}}}\n"
            "agents:\n" + "\n".join(blocks) + "\n")
    if formations:
        text += "formations:\n  groups:\n" + "\n".join(forms) + "\n"
    return text


def time_per_step(exe, path, steps, backend, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    cmd = [exe, "run", path, "--no-output", "--steps", str(steps), "--backend", backend]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
    if res.returncode:
        sys.exit(f"{' '.join(cmd)}: exit {res.returncode}\n{res.stderr}")
    m = re.search(r" in ([0-9.]+) s \(", res.stderr)
    if not m:
        sys.exit(f"no timing in: {res.stderr}")
    return float(m.group(1)) / steps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng", nargs="?")
    ap.add_argument("--write-configs", metavar="DIR")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=960)
    ap.add_argument("--sizes", default="100,200,400,800,1600")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.write_configs:
        for n in sizes:
            with open(os.path.join(a.write_configs, f"table1-{n}.yaml"), "w") as f:
                f.write(scenario(n, True))
        return
    if not a.throng:
        ap.error("THRONG is required unless --write-configs is given")
    print(f"backend {a.backend}, {a.threads} thread(s), {a.steps} steps per run\n")
    print("| agents | paper avg FPS (ms/frame) | throng ms/step, formations | steps/s | plain agents ms/step | "
          "formation overhead |")
    print("|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            t = {}
            for formations in (True, False):
                path = os.path.join(tmp, f"t{n}{formations}.yaml")
                with open(path, "w") as f:
                    f.write(scenario(n, formations))
                t[formations] = time_per_step(a.throng, path, a.steps, a.backend, a.threads)
            fps = PAPER_AVG_FPS.get(n)
            paper = f"{fps} ({1000.0 / fps:.1f})" if fps else "–"
            print(f"| {n} | {paper} | {1e3 * t[True]:.3f} | {1 / t[True]:.0f} | {1e3 * t[False]:.3f} | "
                  f"{100 * (t[True] / t[False] - 1):+.0f} % |", flush=True)


if __name__ == "__main__":
    main()
