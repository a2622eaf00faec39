#!/usr/bin/env python3
"""The ORCA model (label `orca`; seed paper 002, docs/orca.md). Each case
runs throng and prints what it measured; exit 0 when every check holds, 1
otherwise, 77 when it cannot run (no GPU).

Usage: check_orca.py THRONG CASE --scenario FILE

Cases:
  pair         configs/orca/pair-head-on.yaml (two agents exactly head-on), a CSV
               frame every step: never closer than r_a + r_b (1e-4 m), each passes
               on its right (the eastbound one at y < 0, the westbound one at y > 0
               where they cross) as exact mirror images, both at their goals.
  crossing     configs/orca/crossing.yaml run 900 steps (90 s), metrics every step:
               at least 98 % of the 400 agents at their goals at the end; the
               largest overlap below half a radius at every step (ORCA avoids
               collisions among the 10 nearest; the denser moments overlap).
  bottleneck   configs/orca/bottleneck.yaml (200 agents through a 1.2 m gap to an
               exit, routed around the wall): every agent leaves within 140 s, no
               agent ever overlaps the wall by 1e-4 m (the obstacle half-planes),
               the largest overlap of two agents below 0.75 of a radius.
  stability    configs/orca/stability.yaml (an aggressive pusher through 50 standing
               agents) at dt 0.01, 0.02, 0.05, 0.1 and 0.2 s for 15 s each: the peak
               of lp_fallbacks / agents at most 0.05 at every dt (002 §6: 95 % of the
               agents find a feasible velocity), and the pusher reaches its goal.
  bottlenecks  configs/orca/two-bottlenecks.yaml (1,000 agents, 120 s) with pushing
               and with --set forces.enabled=false: pushing gets at least 1.3 x as
               many out through both gaps (002: twice as many) and more past the
               first (two-agent) one; no agent overlaps a wall by 1e-3 m
               (measured over seeds 1-7: 1.40-2.01 x and 1.04-1.49 x).
  pair_rude    tests/data/orca/pair-rude.yaml, per-state responsibility: the rude
               agent (0) keeps |y| below 1e-3 m, the polite one (1) steps aside by
               at least r_a + r_b and they never touch; both reach their goals.
  rusher       configs/orca/rusher.yaml with and without forces: the 25 standing
               agents are displaced at least 1.3 x as far (mean) with them; with the
               rushing state's push_gain 6 (a rude pusher) 1.1 x as far as with the
               default 2, with 0 less far.
  bookkeeping  configs/orca/two-bottlenecks.yaml, 300 steps, a CSV frame every step (pushing,
               LP fallbacks): every displacement is dt times the velocity stored after the
               step (2e-4 m/s; the CSV's 9 digits), no agent moves faster than 2 m/s.
  rusher_speed configs/orca/rusher.yaml, 20 steps: the rusher's stored speed reaches its
               configured 3 m/s (model.max_speed 3), and it moves with it.
  push_line    configs/orca/push-line.yaml, a CSV frame every step, with and without
               forces: with them the push reaches the last agent of the row earlier
               and agents 5-9 move 0.3 m or more on average; without, under 0.1 m.
  tawaf        the scenario (a reduced Tawaf, scripts/make_tawaf.py), 600 steps:
               the circling agents go counter-clockwise, agents of the block that has
               walked 6 circuits leave through the gates and no agent of the blocks
               with 4 or fewer does; no wall overlap of 1e-3 m. Prints the peak
               density (1 m x 1 m cells, and 2 m x 2 m cells per m²). states.csv:
               a row per state at every metrics step, adding up to the agents;
               everyone circles at the start; the exiting share over the second
               half between 0.5 and 5 % (002: about 2 %).
  tawaf_figures the reduced Tawaf, 1,500 steps, with the queue join chance 2e-4 per second
               (10 x the scenario's, so that a queue forms), with and without forces,
               read by scripts/tawaf_figures.py (002 Figs. 13-15): the mean speed of
               all 7 regions between 0.5 and 1.2 m/s, 1-4 % of the agents exiting over
               20-60 s, a queue of 20 or more; without forces region 1 (the start line,
               prayer) is the slowest, pushing raises its speed by 0.03 m/s or more;
               with forces 8 or more touches of the stone, at least 3 x as many as
               without (the queue stalls without physical interaction).
  ranks        --ranks 1,2,3,4 (mpiexec): --final-state, states.csv and evacuated.csv (when the
               scenario has exits) byte-identical on every rank count.
  cpu_vs_cuda  --final-state and states.csv after 500 steps (agents still in the bottleneck)
               byte-identical on the CPU and CUDA backends
               (THRONG_STRICT_FP builds with a GPU; else skipped).
"""
import argparse
import csv
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

problems = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        problems.append(what)


def run(args, ranks=1):
    cmd = [A.throng, "run", A.scenario, "--quiet"] + args
    if ranks > 1:
        if not A.mpiexec:
            print("SKIPPED: no mpiexec")
            sys.exit(77)
        cmd = [A.mpiexec, A.np_flag, str(ranks)] + A.mpi_flags.split() + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if p.returncode:
        sys.stderr.write(p.stderr)
    check(p.returncode == 0, "throng run %s %s exits 0" % (os.path.basename(A.scenario), " ".join(args[:4])))


def metrics(out):
    with open(os.path.join(out, "metrics.csv")) as fh:
        return list(csv.DictReader(fh))


def case_pair():
    out = os.path.join(A.tmp, "pair")
    run(["--out", out, "--set", "output.trajectory_format=csv"])
    res = []
    for f in sorted(glob.glob(os.path.join(out, "trajectory", "*.csv"))):
        with open(f) as fh:
            ag = {int(r["id"]): {k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)}
        a, b = ag[0], ag[1]
        res.append((math.hypot(a["x"] - b["x"], a["y"] - b["y"]), abs(a["x"] - b["x"]), a, b))
    dmin = min(r[0] for r in res)
    R = res[0][2]["radius"] + res[0][3]["radius"]
    check(dmin >= R - 1e-4, "closest %.4f m >= r_a + r_b = %.2f m" % (dmin, R))
    cross = min(res, key=lambda r: r[1])
    a, b = cross[2], cross[3]
    check(a["y"] < 0.0 < b["y"], "each passes on its right (eastbound y %.3f, westbound y %.3f)" % (a["y"], b["y"]))
    check(all(r[2]["y"] == -r[3]["y"] and r[2]["x"] == -r[3]["x"] for r in res),
          "the two paths are exact mirror images at every frame")
    check(int(metrics(out)[-1]["at_goal"]) == 2, "both at their goals at the end")


def case_crossing():
    out = os.path.join(A.tmp, "crossing")
    run(["--out", out, "--steps", "900"])
    m = metrics(out)
    worst = max(float(r["max_overlap_ratio"]) for r in m)
    home = int(m[-1]["at_goal"])
    print("largest overlap %.4f of a radius; %d of %s at their goals after %s s" % (worst, home, m[-1]["agents"],
                                                                                  m[-1]["time"]))
    check(home >= 0.98 * int(m[-1]["agents"]), "at least 98 %% at their goals (%d)" % home)
    check(worst < 0.5, "largest overlap below half a radius (%.4f)" % worst)


def case_bottleneck():
    out = os.path.join(A.tmp, "bottleneck")
    run(["--out", out])
    m = metrics(out)
    wall = max(float(r["max_wall_overlap"]) for r in m)
    worst = max(float(r["max_overlap_ratio"]) for r in m)
    print("all out by %s s (%s steps); deepest wall overlap %.2g m; largest overlap %.4f of a radius"
          % (m[-1]["time"], m[-1]["step"], wall, worst))
    check(int(m[-1]["agents"]) == 0 and float(m[-1]["time"]) <= 140.0, "every agent left within 140 s")
    check(wall < 1e-4, "no agent overlaps the wall by 1e-4 m (%.2g)" % wall)
    check(worst < 0.75, "largest overlap below 0.75 of a radius (%.4f)" % worst)


def final_state(path):
    with open(path) as fh:
        return {int(r["id"]): (float.fromhex(r["x"]), float.fromhex(r["y"])) for r in csv.DictReader(fh)}


def case_stability():
    for dt in (0.01, 0.02, 0.05, 0.1, 0.2):
        out = os.path.join(A.tmp, "stability-%g" % dt)
        run(["--out", out, "--set", "time.dt=%g" % dt, "--steps", str(int(round(15.0 / dt))),
             "--set", "output.trajectory_every=0"])
        m = metrics(out)
        peak = max(int(r["lp_fallbacks"]) for r in m)
        n = int(m[0]["agents"])
        print("dt %g s: peak %d of %d agents without a feasible velocity (%.1f %%), %d forced at most"
              % (dt, peak, n, 100.0 * peak / n, max(int(r["forced"]) for r in m)))
        check(peak <= 0.05 * n, "dt %g: at least 95 %% feasible at the peak" % dt)
        check(int(m[-1]["at_goal"]) >= 1, "dt %g: the pusher reached its goal" % dt)


def past_gaps(final):
    xs = [x for x, _ in final.values()]
    return sum(x > 0.0 for x in xs), len(xs)


def case_bottlenecks():
    got = {}
    for forces in ("true", "false"):
        out, f = os.path.join(A.tmp, "tb-" + forces), os.path.join(A.tmp, "tb-%s.csv" % forces)
        run(["--out", out, "--set", "forces.enabled=" + forces, "--final-state", f])
        m = metrics(out)
        inside, left = past_gaps(final_state(f))
        gone = int(m[0]["agents"]) - left
        wall = max(float(r["max_wall_overlap"]) for r in m)
        got[forces] = (gone, gone + inside, wall)
        print("forces %s: %d out through both gaps, %d past the first after %s s; deepest wall overlap %.2g m"
              % (forces, gone, gone + inside, m[-1]["time"], wall))
    on, off = got["true"], got["false"]
    check(on[0] >= 1.3 * off[0], "pushing: %.2f x as many out through both (>= 1.3)" % (on[0] / max(off[0], 1)))
    check(on[1] > off[1], "pushing: %.2f x as many past the first gap (more)" % (on[1] / max(off[1], 1)))
    check(max(on[2], off[2]) < 1e-3, "no agent overlaps a wall by 1e-3 m")


def case_rusher():
    start = os.path.join(A.tmp, "start.csv")
    run(["--steps", "0", "--no-output", "--final-state", start])
    x0 = final_state(start)
    crowd = [i for i in x0 if i < max(x0)]
    mean = {}
    for forces in ("true", "false"):
        f = os.path.join(A.tmp, "r-%s.csv" % forces)
        run(["--no-output", "--set", "forces.enabled=" + forces, "--final-state", f])
        x = final_state(f)
        mean[forces] = sum(math.dist(x[i], x0[i]) for i in crowd) / len(crowd)
        print("forces %s: the standing agents moved %.3f m on average" % (forces, mean[forces]))
    check(mean["true"] >= 1.3 * mean["false"], "forces displace the crowd %.2f x as far (>= 1.3)"
          % (mean["true"] / mean["false"]))
    # per-state push gain (issue 37): the rushing state's push_gain, 0 and 3 x the default forces.push_gain 2
    for gain in (0, 6):
        f = os.path.join(A.tmp, "r-gain%d.csv" % gain)
        run(["--no-output", "--set", "behaviors.states[1].push_gain=%d" % gain, "--final-state", f])
        x = final_state(f)
        mean[gain] = sum(math.dist(x[i], x0[i]) for i in crowd) / len(crowd)
        print("rushing with push_gain %d: the standing agents moved %.3f m on average" % (gain, mean[gain]))
    check(mean[0] < mean["true"] and mean[6] >= 1.1 * mean["true"],
          "a rude rusher (push_gain 6) displaces the crowd %.2f x as far as the default (>= 1.1); push_gain 0 "
          "less (%.3f < %.3f m)" % (mean[6] / mean["true"], mean[0], mean["true"]))


def moved_vs_stored(out, dt):
    """Per agent-step: the speed it moved at, (x_n+1 - x_n)/dt, and how far
    that is from the velocity stored after the step."""
    fr = []
    for f in sorted(glob.glob(os.path.join(out, "trajectory", "*.csv"))):
        with open(f) as fh:
            fr.append({int(r["id"]): [float(r[k]) for k in ("x", "y", "vx", "vy")] for r in csv.DictReader(fh)})
    rows = []
    for a, b in zip(fr, fr[1:]):
        for i, (x, y, vx, vy) in b.items():
            if i in a:
                mx, my = (x - a[i][0]) / dt, (y - a[i][1]) / dt
                rows.append((i, math.hypot(mx, my), math.hypot(mx - vx, my - vy), math.hypot(vx, vy)))
    return rows


def case_bookkeeping():
    """Issue 37: an ORCA agent moves with the velocity it keeps (the final
    pass does not clamp it), in the densest scenario with pushing, LP
    fallbacks and forces; no agent outruns model.max_speed."""
    out = os.path.join(A.tmp, "bookkeeping")
    run(["--out", out, "--steps", "300", "--set", "output.trajectory_format=csv", "--set", "output.trajectory_every=1"])
    rows = moved_vs_stored(out, 0.1)
    m = metrics(out)
    worst = max(r[2] for r in rows)
    fastest = max(r[1] for r in rows)
    lp = sum(int(r["lp_fallbacks"]) for r in m) / max(sum(int(r["agents"]) for r in m), 1)
    print("%d agent-steps (%.0f %% with LP fallbacks, %d forced at most): largest |dx/dt - v| %.2g m/s, fastest "
          "%.4f m/s" % (len(rows), 100.0 * lp, max(int(r["forced"]) for r in m), worst, fastest))
    check(lp > 0.3 and max(int(r["forced"]) for r in m) > 100, "the run has LP fallbacks and forces (the hard case)")
    check(worst <= 2e-4, "every displacement is dt times the stored velocity (within 2e-4 m/s: %.2g)" % worst)
    check(fastest <= 2.0 + 2e-4, "no agent moves faster than model.max_speed 2 m/s (%.4f)" % fastest)


def case_rusher_speed():
    """The rusher walks at its configured 3 m/s (model.max_speed 3) before it
    meets the crowd, and its displacement is dt times its stored velocity."""
    out = os.path.join(A.tmp, "rusher-speed")
    run(["--out", out, "--steps", "20", "--set", "output.trajectory_format=csv"])
    rows = [r for r in moved_vs_stored(out, 0.1) if r[0] == 25]
    top = max(r[3] for r in rows)
    print("the rusher: stored speeds %s m/s" % " ".join("%.3f" % r[3] for r in rows[:12]))
    check(abs(top - 3.0) <= 1e-4, "the rusher reaches its configured 3 m/s (%.5f)" % top)
    check(max(r[2] for r in rows) <= 1e-4, "it moves with its stored velocity")


def case_pair_rude():
    """Per-state responsibility: a rude agent (0) walks straight, the polite one (1) steps aside."""
    out = os.path.join(A.tmp, "rude")
    run(["--out", out, "--set", "output.trajectory_format=csv"])
    fr = frames(out)
    both = [f for f in fr if 0 in f and 1 in f]
    dmin = min(math.dist(f[0], f[1]) for f in both)
    rude, polite = max(abs(f[0][1]) for f in fr if 0 in f), max(abs(f[1][1]) for f in fr if 1 in f)
    print("rude agent: largest |y| %.3g m; polite: %.4f m; closest %.4f m" % (rude, polite, dmin))
    check(rude < 1e-3, "the rude agent (responsibility 0) walks straight on (|y| at most %.2g m)" % rude)
    check(polite >= 0.6 and dmin >= 0.6 - 1e-4, "the polite one (responsibility 1) steps aside by %.3f m, the "
          "whole of r_a + r_b, and they never touch (closest %.4f m >= 0.6)" % (polite, dmin))
    check(int(metrics(out)[-1]["at_goal"]) == 2, "both at their goals at the end")


def frames(out):
    res = []
    for f in sorted(glob.glob(os.path.join(out, "trajectory", "*.csv"))):
        with open(f) as fh:
            res.append({int(r["id"]): (float(r["x"]), float(r["y"])) for r in csv.DictReader(fh)})
    return res


def case_push_line():
    got = {}
    for forces in ("true", "false"):
        out = os.path.join(A.tmp, "pl-" + forces)
        run(["--out", out, "--set", "forces.enabled=" + forces, "--set", "output.trajectory_format=csv"])
        fr = frames(out)
        moved = lambda i: next((s for s, f in enumerate(fr) if math.dist(f[i], fr[0][i]) > 1e-3), None)
        disp = [math.dist(fr[-1][i], fr[0][i]) for i in range(10)]
        got[forces] = (moved(9), sum(disp[5:]) / 5.0)
        print("forces %s: agent 9 first moves at step %s; displacements %s" % (forces, moved(9),
                                                                              " ".join("%.3f" % d for d in disp)))
    on, off = got["true"], got["false"]
    check(on[0] is not None and (off[0] is None or on[0] < off[0]), "the push reaches the end of the row earlier")
    check(on[1] >= 0.3, "with forces agents 5-9 move %.3f m on average (>= 0.3)" % on[1])
    check(off[1] < 0.1, "without forces agents 5-9 move %.3f m on average (< 0.1)" % off[1])


def case_tawaf():
    out = os.path.join(A.tmp, "tawaf")
    run(["--out", out, "--set", "output.trajectory_format=csv", "--set", "output.trajectory_every=100"])
    fr = frames(out)
    m = metrics(out)
    # block k (laps k) holds ids [k * per, (k + 1) * per) (make_tawaf.py: equal blocks, the first larger)
    n0 = len(fr[0])
    per = n0 // 7
    first_id = [0]
    for k in range(7):
        first_id.append(first_id[-1] + per + (1 if k < n0 - per * 7 else 0))
    block = lambda i: next(k for k in range(7) if first_id[k] <= i < first_id[k + 1])
    left = [i for i in fr[0] if i not in fr[-1]]
    by_block = [sum(block(i) == k for i in left) for k in range(7)]
    print("%d of %d agents left in %s s; by block (circuits walked at the start): %s"
          % (len(left), n0, m[-1]["time"], by_block))
    check(by_block[6] > 0, "agents with 6 circuits walked leave")
    check(sum(by_block[:5]) == 0, "no agent with 4 or fewer circuits leaves")
    a, b = fr[1], fr[2]
    ccw = [math.atan2(b[i][1], b[i][0]) - math.atan2(a[i][1], a[i][0]) for i in a if i in b]
    ccw = [((d + math.pi) % (2 * math.pi)) - math.pi for d in ccw]
    share = sum(d > 0 for d in ccw) / len(ccw)
    check(share >= 0.95, "%.1f %% of the agents go counter-clockwise around the Kaaba" % (100 * share))
    wall = max(float(r["max_wall_overlap"]) for r in m)
    check(wall < 1e-3, "no agent overlaps a wall by 1e-3 m (%.2g)" % wall)
    peak1 = peak2 = 0
    for f in fr:
        c1, c2 = {}, {}
        for x, y in f.values():
            k1, k2 = (math.floor(x), math.floor(y)), (math.floor(x / 2), math.floor(y / 2))
            c1[k1] = c1.get(k1, 0) + 1
            c2[k2] = c2.get(k2, 0) + 1
        peak1, peak2 = max(peak1, max(c1.values())), max(peak2, max(c2.values()))
    print("peak density: %d in a 1 m x 1 m cell; %.2f /m² over 2 m x 2 m; largest overlap %.3f of a radius"
          % (peak1, peak2 / 4.0, max(float(r["max_overlap_ratio"]) for r in m[1:])))
    # states.csv: the agents in each behaviour state at every metrics row (issue 37)
    with open(os.path.join(out, "states.csv")) as fh:
        st = list(csv.DictReader(fh))
    names = ["circling", "prayer", "queue", "touch", "exiting"]
    by_step = {}
    for r in st:
        by_step.setdefault(int(r["step"]), {})[r["name"]] = int(r["agents"])
    agents = {int(r["step"]): int(r["agents"]) for r in m}
    check(sorted(by_step) == sorted(agents) and all(sorted(v) == sorted(names) for v in by_step.values()),
          "states.csv: a row per state (%s) at every metrics step" % ", ".join(names))
    check(all(sum(by_step[k].values()) == agents[k] for k in agents),
          "states.csv: the states' counts add up to metrics.csv's agents at every step")
    late = [k for k in agents if k >= max(agents) / 2]
    share = sum(by_step[k]["exiting"] for k in late) / max(1, sum(agents[k] for k in late))
    check(by_step[0]["circling"] == agents[0] and 0.005 <= share <= 0.05,
          "everyone circles at the start; the exiting share over the second half is %.2f %% (002: about 2 %%)"
          % (100 * share))
    left_ids = len(left)
    print("per state at the end: %s; %d left through the gates" % (by_step[max(by_step)], left_ids))


def case_tawaf_figures():
    # 002 Figs. 13-15 (issue 37): the queue to the Black Stone with a join chance 10 x the scenario's, so
    # that a queue forms within the run, with and without forces; read by scripts/tawaf_figures.py
    outs = {}
    for label, extra in (("pushing", []), ("no forces", ["--set", "forces.enabled=false"])):
        outs[label] = os.path.join(A.tmp, label.replace(" ", "_"))
        run(["--out", outs[label], "--steps", "1500", "--set", "output.trajectory_every=0",
             "--set", "behaviors.transitions[2].chance=0.0002"] + extra)
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "tawaf_figures.py")
    js = os.path.join(A.tmp, "figures.json")
    p = subprocess.run([sys.executable, script, "--json", js, "--base", "no forces"] +
                       ["%s=%s" % kv for kv in outs.items()], capture_output=True, text=True)
    print(p.stdout + p.stderr)
    check(p.returncode == 0, "scripts/tawaf_figures.py reads both runs")
    if p.returncode:
        return
    with open(js) as fh:
        res = {r["label"]: r for r in json.load(fh)}
    on, off = res["pushing"], res["no forces"]
    regions = ["region%d" % k for k in range(1, 8)]
    for r in (on, off):
        sp = [r["regions"][n]["mean_speed"] for n in regions]
        check(all(0.5 <= v <= 1.2 for v in sp), "%s: the mean speed of all 7 regions measured, 0.5-1.2 m/s (%s)"
              % (r["label"], ", ".join("%.3f" % v for v in sp)))
        check(0.01 <= r["exiting_to_60s"] <= 0.04, "%s: %.2f %% of the agents exiting over 20-60 s (002: about 2 %%)"
              % (r["label"], 100 * r["exiting_to_60s"]))
        check(r["queue"]["max"] >= 20, "%s: a queue to the Black Stone forms (%d agents at most)"
              % (r["label"], r["queue"]["max"]))
    sp = {n: off["regions"][n]["mean_speed"] for n in regions}
    check(min(sp, key=sp.get) == "region1",
          "no forces: region 1 (after the start line, where agents pray) is the slowest (002 Fig. 14: 1 and 7)")
    gain = on["regions"]["region1"]["mean_speed"] - sp["region1"]
    check(gain >= 0.03, "pushing raises region 1's mean speed by %.3f m/s (at least 0.03)" % gain)
    a_on, a_off = on["queue"]["arrivals"], off["queue"]["arrivals"]
    check(a_on >= 8 and on["queue"]["first_touch"] is not None,
          "pushing: queue agents reach the stone (%.1f touches, the first at %s)"
          % (a_on, "never" if on["queue"]["first_touch"] is None else "%.1f s" % on["queue"]["first_touch"]))
    check(a_on >= 3 * max(1.0, a_off), "002 Fig. 13: without forces the queue stalls (%.1f touches against %.1f)"
          % (a_off, a_on))


def case_ranks():
    got = []
    for n in [int(k) for k in A.ranks.split(",")]:
        out, final = os.path.join(A.tmp, "out-%d" % n), os.path.join(A.tmp, "final-%d.csv" % n)
        run(["--out", out, "--final-state", final], ranks=n)
        ev, sts = os.path.join(out, "evacuated.csv"), os.path.join(out, "states.csv")
        got.append((n, open(final, "rb").read(), open(ev, "rb").read() if os.path.exists(ev) else None,
                    open(sts, "rb").read() if os.path.exists(sts) else None))
    for n, final, ev, sts in got[1:]:
        check(final == got[0][1], "%d ranks: final state byte-identical to 1 rank's" % n)
        check(ev == got[0][2], "%d ranks: evacuated.csv identical to 1 rank's (%s rows)"
              % (n, "no" if ev is None else ev.count(b"\n") - 1))
        check(sts == got[0][3], "%d ranks: states.csv identical to 1 rank's (%s rows)"
              % (n, "no" if sts is None else sts.count(b"\n") - 1))


def case_cpu_vs_cuda():
    text = subprocess.run([A.throng, "info"], capture_output=True, text=True).stdout
    mm = re.search(r"cuda\s+built; (\d+) GPU", text)
    if not mm or int(mm.group(1)) == 0:
        print("SKIPPED: no CUDA backend in this build or no GPU visible")
        sys.exit(77)
    if not re.search(r"THRONG_STRICT_FP\)?:\s*ON", text):
        print("SKIPPED: byte identity needs a THRONG_STRICT_FP=ON build")
        sys.exit(77)
    got, states = {}, {}
    for backend in ("cpu", "cuda"):
        f, out = os.path.join(A.tmp, "final-%s.csv" % backend), os.path.join(A.tmp, "out-%s" % backend)
        run(["--out", out, "--set", "output.trajectory_every=0", "--set", "output.metrics_every=50", "--steps", "500",
             "--backend", backend, "--final-state", f])
        got[backend] = open(f, "rb").read() if os.path.exists(f) else b""
        sts = os.path.join(out, "states.csv")
        states[backend] = open(sts, "rb").read() if os.path.exists(sts) else None
    check(got["cpu"] == got["cuda"] and got["cpu"].count(b"\n") > 2,
          "final state byte-identical on cpu and cuda (%d agents)" % (got["cpu"].count(b"\n") - 1))
    check(states["cpu"] == states["cuda"], "states.csv identical on cpu and cuda (%s rows)"
          % ("no" if states["cpu"] is None else states["cpu"].count(b"\n") - 1))


CASES = {"pair": case_pair, "pair_rude": case_pair_rude, "crossing": case_crossing, "bottleneck": case_bottleneck, "ranks": case_ranks,
         "cpu_vs_cuda": case_cpu_vs_cuda, "stability": case_stability, "bottlenecks": case_bottlenecks,
         "rusher": case_rusher, "push_line": case_push_line, "tawaf": case_tawaf, "bookkeeping": case_bookkeeping,
         "rusher_speed": case_rusher_speed, "tawaf_figures": case_tawaf_figures}


def main():
    global A
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--mpi-flags", default="")
    A = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="throng_orca_") as tmp:
        A.tmp = tmp
        CASES[A.case]()
    print("PASS" if not problems else "FAIL (%d problem(s))" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
