#!/usr/bin/env python3
"""Scenario-level tests of group formations with Short Range Destinations
(CTest label `formations`; seed paper 004, spec sections 5.2 and 5.3;
docs/decisions/0008-formations.md).

Usage: check_formations.py THRONG CASE SCENARIO [--mpiexec M --np-flag=-n --mpi-flags="..."] [options]

formations.csv has one row per formation and output step: step, time,
formation, group, agents, rms_error (RMS distance of the group's agents to
their SRDs), broken (agents whose formation is dropped), waypoint, arrived,
x, y (the group position P). Every run here writes it every step
(output.metrics_every=1) and runs on one OpenMP thread per process.

Options of every case: --set KEY=VALUE (repeatable) for every run, --backend B.

Cases (each prints what it measured and exits 0 when every check holds, 1
when one fails, 77 when it cannot run here):
  turn        spec 5.2.1 and 5.2.2 (a square through a 90-degree turn, then the stop):
              --steps N; formations.csv has N+1 rows of one formation; rms_error <= --max-rms
              at every step; the waypoint index reaches --last-waypoint; arrived = 1 from some
              step A on, with P on --end X,Y then; from A + --settle seconds to the end
              rms_error <= --settled-rms and metrics.csv mean_speed <= --settled-speed; no
              broken agent; the shape is not rotated: for every agent, final position - final
              P equals start position (a 0-step run's --final-state) - start P within --shape-tol
  crossing    spec 5.2.4 (two formations walking through each other): --steps N; for every
              group: the peak broken count >= --min-broken (and, when given, < --max-broken-
              fraction x agents; --only-peak: these two checks alone); from the group's last
              step with a broken agent L, rms_error <= --recovered-rms at every step from
              L + --recover-within seconds to the end (and that span exists);
              arrived = 1 and waypoint = --last-waypoint at the end; metrics.csv: every step
              max_overlap_ratio <= --max-overlap-ratio, wall_penetrations 0 and max_wall_overlap
              <= --max-wall-overlap. By construction (spec 5.2.4 a), on CSV frames every
              --frame-every steps, with c the grid cell (from `throng check`) and R the
              look-ahead rings: a group with broken agents has an agent of another group within
              (R + 1) c sqrt(2) + 0.2 m of one of its own; a group with none has no agent of
              another group nearer than R c - 0.2 m (0.2 m: the steps' motion between the
              congestion test and the frame)
  restart     (spec 5.3 and the checkpoint's state/formations) --steps N --restart-step K
              [--ranks P]: a 1-rank run to N with output.checkpoint_every=K; some agent is broken
              at step K (the checkpoint falls inside the crossing); the checkpoint of step K
              restarted on P ranks (1 without mpiexec) to N: exit 0, final state byte-identical
              to the uninterrupted run's, formations.csv rows K..N identical; 77 in a build
              without HDF5
  ranks_csv   (spec 5.3.1 and 5.3.4) --steps N --ranks 1,P,...: formations.csv of every rank
              count byte-identical to the 1-rank run's, with broken agents in it (the group
              table and the quantised RMS reduction do not depend on the decomposition);
              77 without mpiexec (the final state: tests/mpi/check_mpi.py equal)
  cpu_vs_cuda (spec 5.3.2) --steps N: --backend cpu and cuda give byte-identical --final-state
              and formations.csv, with broken agents in it; 77 without a CUDA backend, without
              a GPU, or in a build without THRONG_STRICT_FP (a default build contracts FMAs on
              the GPU; docs/backends.md)
  agility     004's agility per agent (--steps N): the crossing at agility 1 / 1 and 0.25 / 2; the less
              agile formation's largest rms_error at most half the default's, the agile one's at least
              1.5 times
  reaction    004's reaction per agent (--steps N --delay D --rings R --min-shift S): the crossing with
              restore_delay D for all, then the circle alone with lookahead_rings R, then alone with
              restore_delay 0: it first breaks >= S steps earlier, resp. its last broken agent is back
              >= S steps sooner; the rectangle's first break does not move
  speed_weight 004's weight on the group speed (--steps N --after T --weight W --max-ratio Q --min-wait M):
              weight 0 = no key byte for byte; weight W: largest rms_error <= Q x weight 0's, the group
              position at step T >= M m behind
  fig11       004 Fig. 11 / spec 5.2.3 (--plain SCENARIO --steps N --frame-every F --min-r2 --min-slope
              --plain-min --srd-max): shape error without the formation grows linearly (least-squares
              line from 5 s), with it stays <= --srd-max
  fig20       004 Fig. 20 (--steps N --min-ratio Q --wrecked E): the crossing as Xu et al. (break false, no
              avoidance) has >= Q x the overlapping pairs and the deepest overlap of the 004 run, nobody
              broken, a formation ending >= E m rms_error off; the 004 run ends on its SRDs
  recovery    spec 5.2.5 (a formation passes a standing block; --plain SCENARIO is the same
              agents with plain goals, each its final SRD): --steps N --after T --frame-every F
              (T a multiple of F); the shape error
              (RMS over the group's agents of |(x_i - c) - (x_i(0) - c(0))|, c the centroid)
              at step T (past the block, before anyone arrives): formation run <= --srd-max,
              plain run >= --plain-min; the formation run had broken agents and an rms_error of at
              least --min-peak on the way (the block does deform it)
Standard library only.
"""
import argparse
import csv
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

SKIP = 77
problems = []
A = None


class Skip(Exception):
    pass


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        problems.append(what)
    return cond


def fatal(what):
    print("FAIL: " + what)
    print("FAIL (stopped)")
    sys.exit(1)


# ---- running throng ------------------------------------------------------------

def throng(args, ranks=1, expect=0, timeout=600):
    cmd = [A.throng] + args
    if ranks > 1:
        if not A.mpiexec:
            raise Skip("no mpiexec for a %d-rank run" % ranks)
        cmd = [A.mpiexec, A.np_flag, str(ranks)] + shlex.split(A.mpi_flags) + cmd
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=timeout,
                       env=dict(os.environ, OMP_NUM_THREADS="1"))
    print("$ %s\n  exit %d in %.2f s" % (" ".join(shlex.quote(c) for c in cmd), p.returncode, time.time() - t0))
    if expect is not None and p.returncode != expect:
        fatal("exit status %d, expected %d\n%s" % (p.returncode, expect, p.stderr[-3000:]))
    return p


def run(scenario, out, steps, *extra, ranks=1, expect=0):
    """A run writing formations.csv and metrics.csv every step (no trajectory unless extra asks)."""
    args = ["run", scenario, "--out", out, "--steps", str(steps), "--quiet", "--set", "output.metrics_every=1",
            "--set", "output.trajectory_every=0"]
    for s in A.set:
        args += ["--set", s]
    if A.backend and "--backend" not in extra:
        args += ["--backend", A.backend]
    return throng(args + list(extra), ranks=ranks, expect=expect)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def final_state(path):
    """{id: (x, y)} of a --final-state file (hexadecimal floats)."""
    return {int(r["id"]): (float.fromhex(r["x"]), float.fromhex(r["y"])) for r in rows(path)}


def by_group(frows):
    """formations.csv rows per group: {group: [row, ...]} in step order."""
    res = {}
    for r in frows:
        res.setdefault(int(r["group"]), []).append(r)
    return res


def info():
    return subprocess.run([A.throng, "info"], capture_output=True, text=True).stdout


def cell_size(scenario):
    p = throng(["check", scenario] + sum((["--set", s] for s in A.set), []))
    m = re.search(r"grid \d+ x \d+ cells of ([0-9.eE+-]+) m", p.stdout)
    if not m:
        fatal("`throng check` printed no grid cell size:\n" + p.stdout)
    return float(m.group(1))


def set_value(key, default):
    for s in A.set:
        k, _, v = s.partition("=")
        if k == key:
            return v
    return default


# ---- turn (spec 5.2.1, 5.2.2) ------------------------------------------------------

def turn(tmp):
    start, final = os.path.join(tmp, "start.csv"), os.path.join(tmp, "final.csv")
    run(A.scenario, os.path.join(tmp, "out0"), 0, "--final-state", start)
    out = os.path.join(tmp, "out")
    run(A.scenario, out, A.steps, "--final-state", final)
    f = rows(os.path.join(out, "formations.csv"))
    m = rows(os.path.join(out, "metrics.csv"))
    if not check(len(f) == A.steps + 1 and len({r["formation"] for r in f}) == 1,
                 "formations.csv: %d rows of %d formation(s) (want %d rows of 1)"
                 % (len(f), len({r["formation"] for r in f}), A.steps + 1)):
        return
    check(len(m) == len(f), "metrics.csv has a row per step too (%d)" % len(m))
    worst = max(f, key=lambda r: float(r["rms_error"]))
    check(float(worst["rms_error"]) <= A.max_rms, "largest rms_error %s m at step %s (t = %.2f s) <= %g m"
          % (worst["rms_error"], worst["step"], float(worst["time"]), A.max_rms))
    broken = max(int(r["broken"]) for r in f)
    check(broken == 0, "no agent ever drops its formation (no other group): largest broken %d" % broken)
    wp = [int(r["waypoint"]) for r in f]
    check(max(wp) == A.last_waypoint and wp[-1] == A.last_waypoint and wp == sorted(wp),
          "the waypoint index only grows and ends at %d (last %d, first at step %s)"
          % (A.last_waypoint, wp[-1], next((r["step"] for r in f if int(r["waypoint"]) == A.last_waypoint), None)))
    arr = [k for k, r in enumerate(f) if r["arrived"] == "1"]
    if not check(bool(arr) and arr == list(range(arr[0], len(f))), "arrived = 1 from some step on, to the end"):
        return
    a = f[arr[0]]
    ta = float(a["time"])
    end = [float(v) for v in A.end.split(",")]
    check(math.dist((float(a["x"]), float(a["y"])), end) <= 1e-3,
          "arrived at step %s (t = %.2f s) with P = (%s, %s) on the path's last point (%g, %g)"
          % (a["step"], ta, a["x"], a["y"], end[0], end[1]))
    late = [k for k, r in enumerate(f) if float(r["time"]) >= ta + A.settle]
    if not check(bool(late), "the run goes on %g s past the arrival (to t = %.2f s)"
                 % (A.settle, float(f[-1]["time"]))):
        return
    rms_late = max(float(f[k]["rms_error"]) for k in late)
    speed_late = max(float(m[k]["mean_speed"]) for k in late)
    check(rms_late <= A.settled_rms, "from %g s after the arrival (step %s) to the end: rms_error <= %s m (want <= %g)"
          % (A.settle, f[late[0]]["step"], rms_late, A.settled_rms))
    check(speed_late <= A.settled_speed, "... and metrics.csv mean_speed <= %g m/s (want <= %g)"
          % (speed_late, A.settled_speed))
    s0, s1 = final_state(start), final_state(final)
    p0 = (float(f[0]["x"]), float(f[0]["y"]))
    p1 = (float(f[-1]["x"]), float(f[-1]["y"]))
    dev = max((math.dist((s1[i][0] - p1[0], s1[i][1] - p1[1]), (s0[i][0] - p0[0], s0[i][1] - p0[1])), i) for i in s0)
    check(sorted(s0) == sorted(s1) and len(s0) == int(f[0]["agents"]),
          "%d agents at the start and the end, formations.csv says %s" % (len(s0), f[0]["agents"]))
    check(dev[0] <= A.shape_tol, "shape not rotated: final x_i - P(end) equals x_i(0) - P(0) within %.3g m "
          "(agent %d; want <= %g m; P(0) = (%g, %g), P(end) = (%g, %g))"
          % (dev[0], dev[1], A.shape_tol, p0[0], p0[1], p1[0], p1[1]))


# ---- crossing (spec 5.2.4) -------------------------------------------------------

def min_dist_to_others(frame, group, reach):
    """Smallest distance from an agent of `group` to an agent of another group (inf beyond `reach`)."""
    buckets = {}
    for x, y, g in frame:
        if g != group:
            buckets.setdefault((math.floor(x / reach), math.floor(y / reach)), []).append((x, y))
    best = math.inf
    for x, y, g in frame:
        if g != group:
            continue
        bx, by = math.floor(x / reach), math.floor(y / reach)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for (u, v) in buckets.get((bx + dx, by + dy), ()):
                    d = math.hypot(x - u, y - v)
                    if d < best:
                        best = d
    return best


def crossing(tmp):
    out = os.path.join(tmp, "out")
    extra = []
    if A.frame_every:
        extra = ["--set", "output.trajectory_format=csv", "--set", "output.trajectory_every=%d" % A.frame_every]
    run(A.scenario, out, A.steps, *extra)
    f = rows(os.path.join(out, "formations.csv"))
    m = rows(os.path.join(out, "metrics.csv"))
    groups = by_group(f)
    check(len(groups) >= 2 and all(len(g) == A.steps + 1 for g in groups.values()),
          "formations.csv: %d groups, a row per step each" % len(groups))
    for g, gr in sorted(groups.items()):
        n = int(gr[0]["agents"])
        peak = max(gr, key=lambda r: int(r["broken"]))
        pb = int(peak["broken"])
        brk = [int(r["step"]) for r in gr if int(r["broken"]) > 0]
        check(pb >= A.min_broken, "group %d (%d agents): broken agents on %d steps (%s..%s), peak %d at step %s "
              "(want a peak >= %d)" % (g, n, len(brk), brk[0] if brk else "-", brk[-1] if brk else "-", pb,
                                       peak["step"], A.min_broken))
        if A.max_broken_fraction is not None:
            check(pb < A.max_broken_fraction * n, "group %d: at the peak %d of %d agents broken (%.3f; want < %g of "
                  "the group)" % (g, pb, n, pb / n, A.max_broken_fraction))
        if A.only_peak:
            continue
        if brk:
            last = brk[-1]
            back = next((int(r["step"]) for r in gr if int(r["step"]) > last and
                         float(r["rms_error"]) <= A.recovered_rms), None)
            window = [r for r in gr if float(r["time"]) >= float(gr[last]["time"]) + A.recover_within]
            worst = max(((float(r["rms_error"]), r["step"]) for r in window), default=(math.nan, "-"))
            check(bool(window) and worst[0] <= A.recovered_rms,
                  "group %d: last broken agent at step %d; rms_error <= %g m again %s steps later; from %g s after "
                  "it (step %s) to the end at most %g m (step %s)"
                  % (g, last, A.recovered_rms, back - last if back is not None else "never", A.recover_within,
                     window[0]["step"] if window else "-", worst[0], worst[1]))
        arr = next((r["step"] for r in gr if r["arrived"] == "1"), None)
        check(gr[-1]["arrived"] == "1" and int(gr[-1]["waypoint"]) == A.last_waypoint,
              "group %d arrived (from step %s; waypoint %s at the end, want %d), P = (%s, %s)"
              % (g, arr, gr[-1]["waypoint"], A.last_waypoint, gr[-1]["x"], gr[-1]["y"]))
    if A.only_peak:
        return
    check(len(m) == A.steps + 1, "metrics.csv has a row per step (%d)" % len(m))
    ov = max((float(r["max_overlap_ratio"]), r["step"]) for r in m)
    check(ov[0] <= A.max_overlap_ratio, "largest overlap %g of a radius at step %s (want <= %g)"
          % (ov[0], ov[1], A.max_overlap_ratio))
    pen = max(int(r["wall_penetrations"]) for r in m)
    wall = max(float(r["max_wall_overlap"]) for r in m)
    check(pen == 0 and wall <= A.max_wall_overlap, "wall penetrations %d, largest wall overlap %g m (want 0, <= %g)"
          % (pen, wall, A.max_wall_overlap))
    nonfinite = [r["step"] for r in m if not all(math.isfinite(float(r[k])) for k in ("mean_speed", "max_overlap"))]
    check(not nonfinite, "finite metrics at every step")
    if not A.frame_every:
        return
    # spec 5.2.4 (a): broken agents only where another group's agent is within the look-ahead cells
    cell, rings = cell_size(A.scenario), int(set_value("formations.lookahead_rings", "1"))
    near_max = (rings + 1) * cell * math.sqrt(2) + 0.2
    far_min = rings * cell - 0.2
    reach = max(near_max, 1.0)
    fdir = os.path.join(out, "trajectory")
    frames = 0
    bad = []
    both = {"broken and near": 0, "clear and far": 0}
    far_broken, near_clear = 0.0, math.inf
    idx = {(int(r["group"]), int(r["step"])): int(r["broken"]) for r in f}
    for name in sorted(os.listdir(fdir)):
        mm = re.match(r"trajectory\.(\d+)\.csv$", name)
        if not mm:
            continue
        step = int(mm.group(1))
        frame = [(float(r["x"]), float(r["y"]), int(r["group"])) for r in rows(os.path.join(fdir, name))]
        frames += 1
        for g in groups:
            d = min_dist_to_others(frame, g, reach)
            b = idx[(g, step)]
            if b > 0 and not d <= near_max:
                bad.append("step %d: group %d has %d broken agents, the nearest other agent %.2f m away"
                           % (step, g, b, d))
            elif b == 0 and d < far_min:
                bad.append("step %d: group %d has no broken agent, another group's agent %.2f m away" % (step, g, d))
            elif b > 0:
                both["broken and near"] += 1
                far_broken = max(far_broken, d)
            else:
                both["clear and far"] += 1
                near_clear = min(near_clear, d)
    check(frames > 0 and not bad and both["broken and near"] > 0,
          "%d frames: broken agents only while another group is within (R + 1) c sqrt(2) + 0.2 = %.2f m, and always "
          "while one is nearer than R c - 0.2 = %.2f m (c = %g m, R = %d): %d group-frames broken (nearest other "
          "agent at most %.2f m away), %d clear (at least %.2f m)%s"
          % (frames, near_max, far_min, cell, rings, both["broken and near"], far_broken, both["clear and far"],
             near_clear, "" if not bad else "; " + "; ".join(bad[:5])))


# ---- restart (checkpoint) --------------------------------------------------------

def restart(tmp):
    if not re.search(r"HDF5\s+ON", info()):
        raise Skip("this build has no HDF5 (checkpoints need it)")
    n, k = A.steps, A.restart_step
    ranks = A.ranks_n if A.mpiexec else 1
    ref, ref_final = os.path.join(tmp, "ref"), os.path.join(tmp, "ref.csv")
    run(A.scenario, ref, n, "--final-state", ref_final, "--set", "output.checkpoint_every=%d" % k,
        "--set", "output.checkpoint_keep=1000")
    ck = os.path.join(ref, "checkpoints", "checkpoint-%08d.h5" % k)
    if not check(os.path.isfile(ck), "the uninterrupted run wrote %s" % os.path.relpath(ck, tmp)):
        return
    f = rows(os.path.join(ref, "formations.csv"))
    at_k = [r for r in f if int(r["step"]) == k]
    check(at_k and all(int(r["broken"]) > 0 for r in at_k),
          "at step %d every group has broken agents (%s): the checkpoint falls inside the crossing"
          % (k, ", ".join("group %s: %s of %s" % (r["group"], r["broken"], r["agents"]) for r in at_k)))
    try:
        import h5py  # noqa: F401 (optional: the checkpoint's layout)
        with h5py.File(ck, "r") as h:
            check("state/formations" in h, "the checkpoint holds state/formations")
    except ImportError:
        print("note: no h5py here; state/formations not looked at")
    again, again_final = os.path.join(tmp, "again"), os.path.join(tmp, "again.csv")
    run(A.scenario, again, n, "--final-state", again_final, "--restart", ck, ranks=ranks)
    a, b = read_bytes(again_final), read_bytes(ref_final)
    check(a == b and b.count(b"\n") > 1, "final state after the restart from step %d on %d rank(s) byte-identical to "
          "the uninterrupted run's (%d agents)" % (k, ranks, b.count(b"\n") - 1))
    g = rows(os.path.join(again, "formations.csv"))
    tail = [r for r in f if int(r["step"]) >= int(g[0]["step"])] if g else []
    check(g and int(g[0]["step"]) <= k + 1 and g == tail,
          "formations.csv of the restart (steps %s..%s) equals the uninterrupted run's rows"
          % (g[0]["step"] if g else "-", g[-1]["step"] if g else "-"))


# ---- ranks_csv -------------------------------------------------------------------

def ranks_csv(tmp):
    ranks = [int(r) for r in A.ranks.split(",")]
    if ranks[0] != 1:
        fatal("--ranks must start with 1")
    if not A.mpiexec:
        raise Skip("no mpiexec")
    ref = None
    for P in ranks:
        out = os.path.join(tmp, "out-%d" % P)
        run(A.scenario, out, A.steps, ranks=P)
        data = read_bytes(os.path.join(out, "formations.csv"))
        if ref is None:
            ref = data
            f = rows(os.path.join(out, "formations.csv"))
            nb = sum(1 for r in f if int(r["broken"]) > 0)
            check(nb > 0 and len(f) == len(by_group(f)) * (A.steps + 1),
                  "1 rank: %d rows, broken agents in %d of them" % (len(f), nb))
            continue
        same = data == ref
        first = ""
        if not same:
            la, lb = ref.decode().splitlines(), data.decode().splitlines()
            d = next((i for i in range(min(len(la), len(lb))) if la[i] != lb[i]), min(len(la), len(lb)))
            first = "; first difference:\n  1 rank:  %s\n  %d ranks: %s" % (la[d] if d < len(la) else "<end>", P,
                                                                         lb[d] if d < len(lb) else "<end>")
        check(same, "%d ranks: formations.csv byte-identical to the 1-rank run's%s" % (P, first))


# ---- cpu_vs_cuda -----------------------------------------------------------------

def cpu_vs_cuda(tmp):
    text = info()
    m = re.search(r"cuda\s+built; (\d+) GPU", text)
    if not m or int(m.group(1)) == 0:
        raise Skip("no CUDA backend in this build or no GPU visible")
    if not re.search(r"THRONG_STRICT_FP\)?:\s*ON", text):
        raise Skip("byte identity needs a THRONG_STRICT_FP=ON build (gpu.cpu_vs_cuda.* compares default builds "
                   "within tolerance)")
    got = {}
    for backend in ("cpu", "cuda"):
        out, final = os.path.join(tmp, "out-" + backend), os.path.join(tmp, "final-%s.csv" % backend)
        run(A.scenario, out, A.steps, "--backend", backend, "--final-state", final)
        got[backend] = (read_bytes(final), read_bytes(os.path.join(out, "formations.csv")))
    f = rows(os.path.join(tmp, "out-cpu", "formations.csv"))
    check(any(int(r["broken"]) > 0 for r in f), "the runs include broken formations (congestion active)")
    check(got["cpu"][0] == got["cuda"][0], "final state byte-identical on cpu and cuda (%d agents)"
          % (got["cpu"][0].count(b"\n") - 1))
    check(got["cpu"][1] == got["cuda"][1], "formations.csv byte-identical on cpu and cuda")


# ---- recovery (spec 5.2.5) ---------------------------------------------------------

def shape_errors(out, groups):
    """{step: {group: shape error}} from the CSV frames (translation-free, against frame 0)."""
    fdir = os.path.join(out, "trajectory")
    first, res = None, {}
    for name in sorted(os.listdir(fdir)):
        mm = re.match(r"trajectory\.(\d+)\.csv$", name)
        if not mm:
            continue
        pts = {int(r["id"]): (float(r["x"]), float(r["y"]), int(r["group"])) for r in rows(os.path.join(fdir, name))}
        if first is None:
            first = pts
        res[int(mm.group(1))] = {}
        for g in groups:
            ids = [i for i in first if first[i][2] == g]
            c0 = [sum(first[i][k] for i in ids) / len(ids) for k in (0, 1)]
            c = [sum(pts[i][k] for i in ids) / len(ids) for k in (0, 1)]
            res[int(mm.group(1))][g] = math.sqrt(sum(
                ((pts[i][0] - c[0]) - (first[i][0] - c0[0])) ** 2 + ((pts[i][1] - c[1]) - (first[i][1] - c0[1])) ** 2
                for i in ids) / len(ids))
    return res


def srd_and_plain(tmp):
    """Run the scenario (SRDs) and --plain with CSV frames every --frame-every steps; their output
    directories, formations.csv's rows of the SRD run and its group."""
    csvf = ["--set", "output.trajectory_format=csv", "--set", "output.trajectory_every=%d" % A.frame_every]
    srd, plain = os.path.join(tmp, "srd"), os.path.join(tmp, "plain")
    run(A.scenario, srd, A.steps, *csvf)
    run(A.plain, plain, A.steps, *csvf)
    f = rows(os.path.join(srd, "formations.csv"))
    return srd, plain, f, int(f[0]["group"])


def recovery(tmp):
    srd, plain, f, g = srd_and_plain(tmp)
    peak = max(int(r["broken"]) for r in f)
    worst = max(f, key=lambda r: float(r["rms_error"]))
    check(peak > 0 and float(worst["rms_error"]) >= A.min_peak,
          "the formation (group %d) breaks while it passes the block: peak %d broken, rms_error up to %s m at step %s "
          "(want >= %g: the block deforms it)" % (g, peak, worst["rms_error"], worst["step"], A.min_peak))
    at = [r for r in f if int(r["step"]) == A.after][0]
    check(int(at["broken"]) == 0 and at["arrived"] == "0",
          "at step %d it is past the block (broken %s) and has not arrived" % (A.after, at["broken"]))
    se, sp = shape_errors(srd, [g]), shape_errors(plain, [g])
    m = rows(os.path.join(plain, "metrics.csv"))
    at_goal = int([r for r in m if int(r["step"]) == A.after][0]["at_goal"])
    check(at_goal == 0, "plain run: nobody at a goal yet at step %d (%d)" % (A.after, at_goal))
    peak_plain = max(v[g] for v in sp.values())
    check(se[A.after][g] <= A.srd_max, "with SRDs the shape error at step %d is %.4f m (want <= %g; formations.csv "
          "rms_error %s m)" % (A.after, se[A.after][g], A.srd_max, at["rms_error"]))
    check(sp[A.after][g] >= A.plain_min, "with plain goals the shape error at step %d is %.4f m (want >= %g; largest "
          "%.4f m)" % (A.after, sp[A.after][g], A.plain_min, peak_plain))


def agility(tmp):
    """004's agility per agent: the crossing with both formations at agility 1, then the first at 0.25 and the
    second at 2. The less agile one leaves the avoiding to the other: its largest rms_error falls to at most
    half, the agile one's rises to at least 1.5 times."""
    peak = {}
    for name, a0, a1 in (("default", 1, 1), ("mixed", 0.25, 2)):
        out = os.path.join(tmp, name)
        run(A.scenario, out, A.steps, "--set", "agents[0].agility=%g" % a0, "--set", "agents[1].agility=%g" % a1)
        f = rows(os.path.join(out, "formations.csv"))
        peak[name] = [max(float(r["rms_error"]) for r in f if int(r["formation"]) == k) for k in (0, 1)]
        print("agility %g / %g: largest rms_error %.3f m and %.3f m" % (a0, a1, peak[name][0], peak[name][1]))
    d, m = peak["default"], peak["mixed"]
    check(m[0] <= 0.5 * d[0], "the less agile formation (0.25) keeps its shape: largest rms_error %.3f m, %.2f x the "
          "default's %.3f m (want <= 0.5)" % (m[0], m[0] / d[0], d[0]))
    check(m[1] >= 1.5 * d[1], "the agile one (2) does the avoiding: largest rms_error %.3f m, %.2f x the default's "
          "%.3f m (want >= 1.5)" % (m[1], m[1] / d[1], d[1]))


def broken_span(frows, k):
    """First and last step with a broken agent in formation k, or (None, None)."""
    steps = [int(r["step"]) for r in frows if int(r["formation"]) == k and int(r["broken"]) > 0]
    return (steps[0], steps[-1]) if steps else (None, None)


def reaction(tmp):
    """004's reaction per agent (agents[].lookahead_rings, restore_delay): the crossing with every agent on the
    formations' settings (restore_delay --delay, lookahead_rings 1), then the circle (formation 0) alone with a
    look-ahead of --rings, then alone with a restore delay of 0. The further-seeing circle breaks at least
    --min-shift steps earlier, the quicker one takes its places back at least --min-shift steps sooner; the
    rectangle, whose reaction did not change, starts breaking at the same step."""
    base = ["--set", "formations.restore_delay=%d" % A.delay]
    span = {}
    for name, extra in (("formations'", []), ("circle looks further", ["--set", "agents[0].lookahead_rings=%d" % A.rings]),
                        ("circle restores sooner", ["--set", "agents[0].restore_delay=0"])):
        out = os.path.join(tmp, name.replace(" ", "_").replace("'", ""))
        run(A.scenario, out, A.steps, *(base + extra))
        f = rows(os.path.join(out, "formations.csv"))
        span[name] = [broken_span(f, k) for k in (0, 1)]
        print("%s: circle broken on steps %s..%s, rectangle %s..%s" % ((name,) + span[name][0] + span[name][1]))
    b, far, quick = span["formations'"], span["circle looks further"], span["circle restores sooner"]
    if not check(None not in b[0] + b[1] + far[0] + quick[0], "every run breaks both formations"):
        return
    check(far[0][0] <= b[0][0] - A.min_shift, "look-ahead %d rings: the circle first breaks at step %d, %d steps "
          "before step %d with the formations' 1 ring (want >= %d)" % (A.rings, far[0][0], b[0][0] - far[0][0],
                                                                         b[0][0], A.min_shift))
    check(far[1][0] == b[1][0], "the rectangle (its own reaction unchanged) first breaks at the same step (%d, %d)"
          % (far[1][0], b[1][0]))
    check(quick[0][1] <= b[0][1] - A.min_shift, "restore delay 0: the circle's last broken agent is back at step "
          "%d, %d steps before step %d with the formations' %d (want >= %d)"
          % (quick[0][1], b[0][1] - quick[0][1], b[0][1], A.delay, A.min_shift))
    check(quick[0][0] == b[0][0], "the delay alone does not change when the circle first breaks (%d, %d)"
          % (quick[0][0], b[0][0]))


def speed_weight(tmp):
    """004's weight on the group speed (formations.groups[0].speed_weight): a formation passing a block
    (--after: a step past it) at weight 0 and at --weight. The weighted group waits while its agents lag: its
    largest rms_error is at most --max-ratio times the unweighted one's and its position at --after lies at
    least --min-wait m behind. Weight 0 gives the run without the key byte for byte."""
    got = {}
    for name, extra in (("no key", []), ("weight 0", ["--set", "formations.groups[0].speed_weight=0"]),
                        ("weight %g" % A.weight, ["--set", "formations.groups[0].speed_weight=%g" % A.weight])):
        out = os.path.join(tmp, "run%d" % len(got))
        run(A.scenario, out, A.steps, *extra)
        path = os.path.join(out, "formations.csv")
        f = rows(path)
        worst = max(f, key=lambda r: float(r["rms_error"]))
        at = [r for r in f if int(r["step"]) == A.after][0]
        got[name] = (read_bytes(path), float(worst["rms_error"]), math.hypot(float(at["x"]), float(at["y"])))
        print("%s: largest rms_error %s m (step %s); group %.3f m from the origin at step %d"
              % (name, worst["rms_error"], worst["step"], got[name][2], A.after))
    check(got["no key"][0] == got["weight 0"][0], "weight 0: formations.csv byte-identical to the run without the key")
    w0, w = got["weight 0"], got["weight %g" % A.weight]
    check(w[1] <= A.max_ratio * w0[1], "weight %g: largest rms_error %.3f m, %.2f x the unweighted %.3f m (want <= %g)"
          % (A.weight, w[1], w[1] / w0[1], w0[1], A.max_ratio))
    check(w0[2] - w[2] >= A.min_wait, "weight %g: the group has waited: %.3f m behind the unweighted one at step %d "
          "(want >= %g)" % (A.weight, w0[2] - w[2], A.after, A.min_wait))


def linear_fit(ts, es):
    """Slope, intercept and R^2 of the least-squares line e = a t + b."""
    n = len(ts)
    mt, me = sum(ts) / n, sum(es) / n
    stt = sum((t - mt) ** 2 for t in ts)
    ste = sum((t - mt) * (e - me) for t, e in zip(ts, es))
    a = ste / stt
    b = me - a * mt
    ss = sum((e - me) ** 2 for e in es)
    res = sum((e - (a * t + b)) ** 2 for t, e in zip(ts, es))
    return a, b, 1.0 - res / ss if ss > 0 else 0.0


def fig11(tmp):
    """004 Fig. 11 (spec 5.2.3): a square of agents with different speeds, with the formation (SCENARIO) and
    without (--plain: each agent walks to its final SRD as a plain goal), --steps N, CSV frames every
    --frame-every steps. The shape error (as in recovery) of the plain square grows about linearly with time
    (least-squares line over t >= 5 s: R^2 >= --min-r2, slope >= --min-slope m/s, the error at the end >=
    --plain-min m); the formation's stays bounded (shape error and rms_error <= --srd-max m at every frame)."""
    srd, plain, f, g = srd_and_plain(tmp)
    dt = float(f[1]["time"]) / float(f[1]["step"])
    se, sp = shape_errors(srd, [g]), shape_errors(plain, [g])
    print("t [s]  shape error with the formation / without [m]")
    for k in sorted(sp):
        if k % (10 * A.frame_every) == 0:
            print("%5.1f  %.4f / %.4f" % (k * dt, se[k][g], sp[k][g]))
    pts = [(k * dt, sp[k][g]) for k in sorted(sp) if k * dt >= 5.0]
    a, b, r2 = linear_fit([t for t, _ in pts], [e for _, e in pts])
    end = sp[max(sp)][g]
    check(r2 >= A.min_r2 and a >= A.min_slope, "without the formation the shape error grows linearly: %.4f m/s x t "
          "%+.3f m, R^2 %.4f (want slope >= %g, R^2 >= %g)" % (a, b, r2, A.min_slope, A.min_r2))
    check(end >= A.plain_min, "without the formation the shape error ends at %.3f m (want >= %g)" % (end, A.plain_min))
    worst_se = max(v[g] for v in se.values())
    worst_rms = max(float(r["rms_error"]) for r in f)
    check(worst_se <= A.srd_max and worst_rms <= A.srd_max, "with the formation it stays bounded: largest shape "
          "error %.4f m, largest rms_error %.4f m (want <= %g)" % (worst_se, worst_rms, A.srd_max))


def fig20(tmp):
    """004 Fig. 20 (against Xu et al. 2015, which keeps its formation and has no avoidance of another group):
    the crossing as 004 (the defaults) and as Xu (formations.break false, long_range and avoidance off: the
    groups only collide). Xu: nobody breaks, at least --min-ratio x the 004 run's overlapping pair-samples
    (metrics.csv overlap_pairs summed over the steps) and x its deepest overlap, and a formation ends at least
    --wrecked m rms_error away from its SRDs (dragged by the other group); 004: both end on their SRDs
    (rms_error <= 0.01 m)."""
    got = {}
    xu = ["--set", "formations.break=false", "--set", "long_range.enabled=false", "--set", "avoidance.enabled=false"]
    for name, extra in (("004", []), ("Xu", xu)):
        out = os.path.join(tmp, name)
        run(A.scenario, out, A.steps, *extra)
        f, m = rows(os.path.join(out, "formations.csv")), rows(os.path.join(out, "metrics.csv"))
        last = {int(r["formation"]): float(r["rms_error"]) for r in f}
        got[name] = {"broken": max(int(r["broken"]) for r in f), "pairs": sum(int(r["overlap_pairs"]) for r in m),
                     "deepest": max(float(r["max_overlap_ratio"]) for r in m),
                     "peak": max(float(r["rms_error"]) for r in f), "end": [last[k] for k in sorted(last)]}
        print("%s: peak broken %d, overlapping pairs %d (summed over steps), deepest overlap %.4f r, largest "
              "rms_error %.3f m, at the end %s m" % ((name, got[name]["broken"], got[name]["pairs"],
                                                      got[name]["deepest"], got[name]["peak"], got[name]["end"])))
    p, x = got["004"], got["Xu"]
    check(p["broken"] > 0 and x["broken"] == 0, "004 breaks (%d at the peak), Xu never (%d)" % (p["broken"],
                                                                                                x["broken"]))
    check(x["pairs"] >= A.min_ratio * max(p["pairs"], 1) and x["deepest"] >= A.min_ratio * p["deepest"],
          "Xu collides: %d overlapping pairs (%.1f x 004's %d), deepest %.4f r (%.1f x 004's %.4f) (want >= %g x)"
          % (x["pairs"], x["pairs"] / max(p["pairs"], 1), p["pairs"], x["deepest"], x["deepest"] / p["deepest"],
             p["deepest"], A.min_ratio))
    check(max(x["end"]) >= A.wrecked and max(p["end"]) <= 0.01, "at the end Xu's formations are %s m off their "
          "SRDs (want one >= %g), 004's %s m (want <= 0.01)" % (x["end"], A.wrecked, p["end"]))


CASES = {"turn": turn, "crossing": crossing, "restart": restart, "ranks_csv": ranks_csv,
         "cpu_vs_cuda": cpu_vs_cuda, "recovery": recovery, "agility": agility, "reaction": reaction,
         "speed_weight": speed_weight, "fig11": fig11, "fig20": fig20}


def main():
    global A
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("scenario")
    ap.add_argument("--mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--mpi-flags", default="")
    ap.add_argument("--steps", type=int, required=True)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--backend", help="run this backend (default: throng's own choice)")
    # turn
    ap.add_argument("--max-rms", type=float, default=0.05)
    ap.add_argument("--last-waypoint", type=int)
    ap.add_argument("--end", default="0,0")
    ap.add_argument("--settle", type=float, default=10.0)
    ap.add_argument("--settled-rms", type=float, default=0.01)
    ap.add_argument("--settled-speed", type=float, default=0.01)
    ap.add_argument("--shape-tol", type=float, default=0.05)
    # crossing
    ap.add_argument("--min-broken", type=int, default=10)
    ap.add_argument("--max-broken-fraction", type=float)
    ap.add_argument("--only-peak", action="store_true")
    ap.add_argument("--recovered-rms", type=float, default=0.2)
    ap.add_argument("--recover-within", type=float, default=10.0)
    ap.add_argument("--max-overlap-ratio", type=float, default=0.05)
    ap.add_argument("--max-wall-overlap", type=float, default=0.0)
    ap.add_argument("--frame-every", type=int, default=0)
    # restart, ranks_csv
    ap.add_argument("--restart-step", type=int)
    ap.add_argument("--ranks", default="1")
    # recovery
    ap.add_argument("--plain")
    ap.add_argument("--after", type=int)
    ap.add_argument("--srd-max", type=float, default=0.2)
    ap.add_argument("--plain-min", type=float, default=0.2)
    ap.add_argument("--min-peak", type=float, default=0.5)
    # reaction
    ap.add_argument("--delay", type=int, default=48)
    ap.add_argument("--rings", type=int, default=3)
    ap.add_argument("--min-shift", type=int, default=12)
    # speed_weight
    ap.add_argument("--weight", type=float, default=1.0)
    ap.add_argument("--max-ratio", type=float, default=0.6)
    ap.add_argument("--min-wait", type=float, default=1.5)
    # fig11
    ap.add_argument("--min-r2", type=float, default=0.98)
    ap.add_argument("--min-slope", type=float, default=0.05)
    # fig20
    ap.add_argument("--min-ratio", type=float, default=2.0)
    ap.add_argument("--wrecked", type=float, default=1.0)
    A = ap.parse_args()
    A.throng = os.path.abspath(A.throng)
    A.scenario = os.path.abspath(A.scenario)
    A.ranks_n = int(A.ranks.split(",")[-1])
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="throng_formations_") as tmp:
        try:
            CASES[A.case](tmp)
        except Skip as e:
            print("SKIPPED: %s" % e)
            return SKIP
    print("%s in %.1f s" % ("PASS" if not problems else "FAIL (%d problem(s))" % len(problems), time.time() - t0))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
