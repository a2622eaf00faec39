#!/usr/bin/env python3
"""Scenario-level checks of throng runs (CTest label `scenario`).

  check_scenario.py THRONG invariants SCENARIO --steps N [--agents N] [--min-at-goal F]
                    [--min-speed V] [--max-overlap-ratio R] [--max-wall-overlap M] [--set K=V]...
      Runs the scenario and asserts after EVERY step: finite state, the largest
      agent-agent overlap below R of the smaller radius, wall overlap below M;
      at the end: the agent count, at-goal fraction >= F, mean speed >= V.
  check_scenario.py THRONG deterministic SCENARIO --steps N [--threads A,B] [--set K=V]...
      Two runs (optionally with different OpenMP thread counts) must write
      byte-identical --final-state files.
  check_scenario.py THRONG deviation SCENARIO --steps N --less GROUP --more GROUP [--factor F]
      Mean lateral (y) deviation from the start line of group --less must be
      below that of group --more divided by F (bears deflect less than rabbits).
  check_scenario.py THRONG headway SCENARIO --steps N [--gap G] [--speed V] [--tol T]
      Single file behind a slow leader (tests/data/model/single_file.yaml): at
      the last step every follower walks at the leader's speed V and keeps the
      gap G = time_gap * V between its body and the body ahead (time-gap law),
      each within T.
  check_scenario.py THRONG positions SCENARIO --steps 0 --expect FILE.csv [--set K=V]...
      The start positions (a run of 0 steps, --final-state) must be exactly
      those of FILE.csv (id,x,y in decimal), agent by agent.
Standard library only.
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile


def run(throng, scenario, steps, out, sets, extra=(), env=None):
    # these checks read the CSV frames
    cmd = [throng, "run", scenario, "--steps", str(steps), "--out", out, "--quiet", "--set",
           "output.trajectory_format=csv"]
    for s in sets:
        cmd += ["--set", s]
    cmd += list(extra)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {proc.returncode}\n{proc.stderr}")
    return proc


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def invariants(a):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        final = os.path.join(tmp, "final.csv")
        sets = list(a.set) + ["output.metrics_every=1", "output.trajectory_every=0"]
        run(a.throng, a.scenario, a.steps, out, sets, ["--final-state", final])
        rows = read_csv(os.path.join(out, "metrics.csv"))
        agents = read_csv(final)
    failures = []
    if len(rows) != a.steps + 1:
        failures.append(f"metrics.csv has {len(rows)} rows, expected {a.steps + 1}")
    worst_ov = max((float(r["max_overlap_ratio"]), int(r["step"])) for r in rows)
    worst_wall = max((float(r["max_wall_overlap"]), int(r["step"])) for r in rows)
    for r in rows:
        vals = [float(r[k]) for k in ("mean_speed", "max_overlap", "max_overlap_ratio", "max_wall_overlap")]
        if not all(math.isfinite(v) for v in vals):
            failures.append(f"non-finite metrics at step {r['step']}: {r}")
            break
    if worst_ov[0] >= a.max_overlap_ratio:
        failures.append(f"largest overlap {worst_ov[0]:.4f} of a radius at step {worst_ov[1]} "
                        f"(limit {a.max_overlap_ratio})")
    if worst_wall[0] >= a.max_wall_overlap:
        failures.append(f"wall overlap {worst_wall[0]:.4f} m at step {worst_wall[1]} (limit {a.max_wall_overlap} m)")
    for row in agents:
        if not all(math.isfinite(float.fromhex(row[k])) for k in ("x", "y", "vx", "vy")):
            failures.append(f"non-finite final state of agent {row['id']}")
            break
    if a.agents is not None and len(agents) != a.agents:
        failures.append(f"final state has {len(agents)} agents, expected {a.agents}")
    ids = [int(r["id"]) for r in agents]
    if ids != sorted(set(ids)):
        failures.append("final state ids are not unique and sorted")
    last = rows[-1]
    at_goal = int(last["at_goal"]) / max(1, int(last["agents"]))
    if at_goal < a.min_at_goal:
        failures.append(f"{at_goal:.3f} of the agents at their goal after {a.steps} steps (need {a.min_at_goal})")
    if float(last["mean_speed"]) < a.min_speed:
        failures.append(f"mean speed {float(last['mean_speed']):.3f} m/s at the end (need {a.min_speed})")
    print(f"{a.scenario}: {a.steps} steps, {len(agents)} agents, largest overlap {worst_ov[0]:.4f} r "
          f"(step {worst_ov[1]}), wall overlap {worst_wall[0]:.4f} m, at goal {at_goal:.3f}, "
          f"final mean speed {float(last['mean_speed']):.3f} m/s")
    return failures


def deterministic(a):
    threads = (a.threads or "").split(",") if a.threads else [None, None]
    outputs = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, t in enumerate(threads):
            env = dict(os.environ)
            if t:
                env["OMP_NUM_THREADS"] = t
            final = os.path.join(tmp, f"final{k}.csv")
            run(a.throng, a.scenario, a.steps, os.path.join(tmp, f"out{k}"), list(a.set),
                ["--final-state", final], env)
            with open(final, "rb") as f:
                outputs.append(f.read())
    rows = outputs[0].count(b"\n") - 1
    print(f"{a.scenario}: {a.steps} steps, {rows} agents, runs with threads {threads}: "
          f"{'identical' if all(o == outputs[0] for o in outputs) else 'DIFFERENT'}")
    failures = []
    if rows <= 0:
        failures.append("empty final state")
    if a.agents is not None and rows != a.agents:
        failures.append(f"final state has {rows} rows, expected {a.agents}")
    if any(o != outputs[0] for o in outputs):
        failures.append("final states differ")
    return failures


def deviation(a):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        sets = list(a.set) + [f"output.trajectory_every={a.every}", "output.metrics_every=0"]
        run(a.throng, a.scenario, a.steps, out, sets)
        tdir = os.path.join(out, "trajectory")
        frames = sorted(f for f in os.listdir(tdir) if f.endswith(".csv"))
        start, dev, group = {}, {}, {}
        for name in frames:
            for r in read_csv(os.path.join(tdir, name)):
                i, y = int(r["id"]), float(r["y"])
                group[i] = int(r["group"])
                start.setdefault(i, y)
                dev[i] = max(dev.get(i, 0.0), abs(y - start[i]))
    def mean_dev(g):
        d = [dev[i] for i in dev if group[i] == g]
        return sum(d) / len(d) if d else float("nan")
    less, more = mean_dev(a.less), mean_dev(a.more)
    print(f"{a.scenario}: mean largest lateral deviation: group {a.less} {less:.3f} m, "
          f"group {a.more} {more:.3f} m over {a.steps} steps ({len(frames)} frames)")
    failures = []
    if not (math.isfinite(less) and math.isfinite(more)):
        failures.append("a group has no agents")
    elif not less * a.factor < more:
        failures.append(f"group {a.less} deviates {less:.3f} m, not less than group {a.more}'s "
                        f"{more:.3f} m / {a.factor}")
    elif more < a.min_more:
        failures.append(f"group {a.more} deviates only {more:.3f} m (need {a.min_more}): no interaction?")
    return failures


def headway(a):
    """Followers in single file settle at the leader's speed and the law's gap."""
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        run(a.throng, a.scenario, a.steps, out, a.set + ["output.trajectory_every=%d" % a.steps])
        rows = read_csv(os.path.join(out, "trajectory", "trajectory.%08d.csv" % a.steps))
    rows.sort(key=lambda r: -float(r["x"]))
    print(" id   gap [m]  speed [m/s]   (want gap %.3f, speed %.3f, within %.3f)" % (a.gap, a.speed, a.tol))
    print("%3s %9s %10.4f   leader" % (rows[0]["id"], "", float(rows[0]["vx"])))
    for ahead, r in zip(rows, rows[1:]):
        gap = float(ahead["x"]) - float(r["x"]) - float(ahead["radius"]) - float(r["radius"])
        speed = math.hypot(float(r["vx"]), float(r["vy"]))
        print("%3s %9.4f %10.4f" % (r["id"], gap, speed))
        if abs(gap - a.gap) > a.tol or abs(speed - a.speed) > a.tol:
            failures.append("agent %s: gap %.4f m, speed %.4f m/s" % (r["id"], gap, speed))
    if len(rows) < 2:
        failures.append("fewer than two agents left in the corridor")
    return failures


def positions(a):
    """The start positions, exactly as expected (layouts that place agents on given slots)."""
    with tempfile.TemporaryDirectory() as tmp:
        final = os.path.join(tmp, "final.csv")
        run(a.throng, a.scenario, 0, os.path.join(tmp, "out"), a.set, ["--final-state", final])
        got = [(int(r["id"]), float.fromhex(r["x"]), float.fromhex(r["y"])) for r in read_csv(final)]
    want = [(int(r["id"]), float(r["x"]), float(r["y"])) for r in read_csv(a.expect)]
    failures = [f"agent {g[0]} at ({g[1]!r}, {g[2]!r}), expected agent {w[0]} at ({w[1]!r}, {w[2]!r})"
                for g, w in zip(got, want) if g != w]
    if len(got) != len(want):
        failures.append(f"{len(got)} agents, expected {len(want)}")
    print(f"{a.scenario}: {len(got)} start positions, {len(failures)} differ from {a.expect}")
    return failures


def main():
    p = argparse.ArgumentParser()
    p.add_argument("throng")
    p.add_argument("check", choices=["invariants", "deterministic", "deviation", "headway", "positions"])
    p.add_argument("scenario")
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--set", action="append", default=[])
    p.add_argument("--agents", type=int)
    p.add_argument("--min-at-goal", type=float, default=0.0)
    p.add_argument("--min-speed", type=float, default=0.0)
    p.add_argument("--max-overlap-ratio", type=float, default=0.05)
    p.add_argument("--max-wall-overlap", type=float, default=0.025)
    p.add_argument("--threads")
    p.add_argument("--less", type=int)
    p.add_argument("--more", type=int)
    p.add_argument("--factor", type=float, default=1.0)
    p.add_argument("--min-more", type=float, default=0.1)
    p.add_argument("--every", type=int, default=12)
    p.add_argument("--gap", type=float, default=0.25)
    p.add_argument("--speed", type=float, default=0.5)
    p.add_argument("--tol", type=float, default=0.02)
    p.add_argument("--expect")
    a = p.parse_args()
    failures = {"invariants": invariants, "deterministic": deterministic, "deviation": deviation,
                "headway": headway, "positions": positions}[a.check](a)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
