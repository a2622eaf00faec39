#!/usr/bin/env python3
"""Fig. 11 of seed paper 000 in numbers: the power-law force model (Karamouzas et al.
2014) against PBD on the sparse and the dense passing crowds of configs/powerlaw/
(docs/powerlaw.md).

For each scenario and model it runs throng (one core, --steps N) and prints:
  largest overlap    the largest overlap of two agents over the run, as a fraction of
                     the smaller radius (metrics.csv max_overlap_ratio), and the most
                     overlapping pairs at any one time (overlap_pairs)
  stalled            agents not at their goal whose speed is below 0.1 m/s at the end
                     (--final-state); the crowds are still passing then
  through            the throughput: agents that have come out beyond the far end of
                     the other group's starting block by the end
  at goal            agents at their goals at the end
  agent-steps/s      throng's own figure for the run (one core)
With --plot FILE (needs matplotlib) it draws the overlap ratio and the overlapping
pairs over time; with --json FILE it writes the table.

    scripts/powerlaw_compare.py build/bin/throng [--steps 2880] [--plot fig11.png]
"""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = os.path.join(HERE, "..", "configs", "powerlaw")


def run(throng, scenario, model, steps, tmp):
    tag = "%s-%s" % (os.path.basename(scenario)[:-5], model)
    out, final = os.path.join(tmp, tag), os.path.join(tmp, tag + ".csv")
    cmd = [throng, "run", scenario, "--set", "model.kind=" + model, "--steps", str(steps), "--out", out,
           "--set", "output.trajectory_every=0", "--set", "output.metrics_every=1", "--final-state", final]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    if p.returncode:
        sys.exit("%s failed:\n%s" % (" ".join(cmd), p.stderr))
    rate = re.search(r"\(([0-9.e+]+) agent-steps/s\)", p.stdout + p.stderr)
    with open(os.path.join(out, "metrics.csv")) as fh:
        m = list(csv.DictReader(fh))
    with open(final) as fh:
        rows = list(csv.DictReader(fh))
    speeds = [math.hypot(float.fromhex(r["vx"]), float.fromhex(r["vy"])) for r in rows]
    start = os.path.join(tmp, tag + "-start.csv")
    subprocess.run([throng, "run", scenario, "--set", "model.kind=" + model, "--steps", "0", "--no-output",
                    "--final-state", start], capture_output=True, check=True)
    with open(start) as fh:
        x0 = {r["id"]: float.fromhex(r["x"]) for r in csv.DictReader(fh)}
    hi, lo = max(x0.values()), min(x0.values())  # the far ends of the right and the left group
    through = sum((float.fromhex(r["x"]) > hi) if x0[r["id"]] < 0 else (float.fromhex(r["x"]) < lo) for r in rows)
    at_goal = int(m[-1]["at_goal"])
    return {"scenario": os.path.basename(scenario)[:-5], "model": model, "steps": steps,
            "max_overlap_ratio": max(float(r["max_overlap_ratio"]) for r in m),
            "max_overlap_pairs": max(int(r["overlap_pairs"]) for r in m),
            "stalled": sum(s < 0.1 for s in speeds) - at_goal if at_goal == 0 else None,
            "slow": sum(s < 0.1 for s in speeds), "at_goal": at_goal, "agents": len(speeds), "through": through,
            "agent_steps_per_s": float(rate.group(1)) if rate else None,
            "series": [(float(r["time"]), float(r["max_overlap_ratio"]), int(r["overlap_pairs"])) for r in m]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("--steps", type=int, default=2880, help="steps of each run (default 2880: 60 s)")
    ap.add_argument("--plot")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="throng_powerlaw_") as tmp:
        for sc in ("sparse-passing", "dense-passing"):
            for model in ("powerlaw", "pbd"):
                rows.append(run(a.throng, os.path.join(CONFIGS, sc + ".yaml"), model, a.steps, tmp))
    print("| scenario | model | largest overlap (of a radius) | most overlapping pairs | slower than 0.1 m/s "
          "at %g s | through | at goal | agent-steps/s (one core) |" % (a.steps / 48.0))
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %s | %.3f | %d | %d | %d | %d | %.3g |" % (r["scenario"], r["model"], r["max_overlap_ratio"],
                                                                 r["max_overlap_pairs"], r["slow"], r["through"],
                                                                 r["at_goal"], r["agent_steps_per_s"] or float("nan")))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump([{k: v for k, v in r.items() if k != "series"} for r in rows], fh, indent=1)
    if a.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            sys.exit("--plot needs matplotlib (pip install matplotlib)")
        fig, ax = plt.subplots(1, 2, figsize=(11, 4))
        for r in rows:
            t = [s[0] for s in r["series"]]
            style = "-" if r["model"] == "powerlaw" else "--"
            label = "%s, %s" % (r["scenario"], r["model"])
            ax[0].plot(t, [s[1] for s in r["series"]], style, label=label)
            ax[1].plot(t, [s[2] for s in r["series"]], style, label=label)
        ax[0].set(xlabel="time [s]", ylabel="largest overlap / radius")
        ax[1].set(xlabel="time [s]", ylabel="overlapping pairs")
        ax[0].legend(fontsize=8)
        fig.suptitle("Fig. 11 of Weiss et al. 2017: power law vs PBD, 1,344 agents passing")
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)
        print("wrote", a.plot)


if __name__ == "__main__":
    main()
