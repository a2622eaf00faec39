#!/usr/bin/env python3
"""The paper's phenomena as tests (CTest label `paper`; tests/paper/paper_tests.cmake).

  check_paper.py THRONG CASE SCENARIO --steps N [--every K] [--set K=V]...
                 [--control-set K=V]... [--window T0,T1] [case options]
                 --expect 'NAME OP BOUND'...

Runs SCENARIO with `throng run` (CSV frames every K steps, metrics every step),
measures it with scripts/paper_phenomena.py (which defines every quantity) and
checks each --expect. With --control-set the same scenario runs a second time with
those overrides added (the control: e.g. long range and avoidance off), and a
bound may name the control's value: `order > control.order`,
`per_agent <= 0.9*control.per_agent`, or check the control itself:
`control.frames_max > 2` (the measure can fail). OP is one of < <= > >=; BOUND a
number or [F*]control.NAME. With --seeds S1,S2,... every run is repeated with each seed
(--set seed=S) and the values checked are the means over the seeds (printed
seed by seed too). Every measured value of both runs is printed.

CASE and the values it measures (the window is --window T0,T1 in seconds):
  contacts   agents of different groups in contact (needs --every 1): pairs,
             per_agent, frames_max, frames_mean, frames_median, frames_p90,
             frames_per_agent, locked, frames_mean_unlocked, per_encounter, touched,
             encounters; t99 (time at which 99 % of the (group 0, group 1) pairs have
             crossed, 1e9 if never)
  passing    lane order over the window: order, own, width (lane width in agents);
             packed clusters: packed_peak (largest share of agents in mixed packed
             clusters, any frame), packed_end (at the last frame), packed_peak_t;
             speed_min (lowest mean speed after 1 s, metrics.csv); max_overlap (largest
             max_overlap_ratio); t99, t100 (crossings; 1e9 if never)
  deviation  dev0, dev1 (mean largest |y - y0| per group over the window's end);
             ratio = dev of --more / dev of --less
  shape      of group --group: aspect0 (first frame), aspect_min (over the window),
             aspect_end (last frame), min_ratio = aspect_min/aspect0,
             end_ratio = aspect_end/aspect0, drift (largest |centroid y - y0|)
  cohesion   cohesion (share of each group in its largest cluster, link --link m,
             mean over groups and the window's frames), cohesion_min; crossed (share
             of the (group 0, group 1) pairs crossed at the last frame), t99
  arrival    t50, t90, t100 (1e9 if never), final (share at goal at the end),
             max_overlap
  bottleneck arch over the window (arch_mean): outer_share, outer_radius,
             outer_offset (fitted centre to the gap), front_distance, front_radius;
             the same at the first frame with suffix 0 (outer_share0, ...);
             flow, passes and longest_pause over --flow-window; max_overlap
Exit 0 when every expectation holds, 1 otherwise, 77 (skipped) without numpy.
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
try:
    import numpy as np
    import paper_phenomena as P
except ImportError as e:  # numpy missing
    print("SKIPPED: %s (%s; Debian: apt-get install python3-numpy)" % (e, sys.executable))
    sys.exit(77)

NEVER = 1e9


def run(a, out, extra_sets, scenario=None):
    cmd = [a.throng, "run", scenario or a.scenario, "--steps", str(a.steps), "--out", out, "--quiet",
           "--set", "output.trajectory_format=csv", "--set", "output.trajectory_every=%d" % a.every,
           "--set", "output.metrics_every=1"]
    for s in list(a.set) + list(extra_sets):
        cmd += ["--set", s]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("FAIL: %s exited %d\n%s" % (" ".join(cmd), proc.returncode, proc.stderr))
    return P.load(out)


def _t(v):
    return NEVER if v is None else v


def measure(case, r, a):
    t0, t1 = a.window if a.window else (None, None)
    if case == "contacts":
        v = {k: x for k, x in P.contacts(r, t0, t1).items() if isinstance(x, (int, float))}
        v["t99"] = _t(P.crossings(r)["t99"])
        return v
    if case == "passing":
        lo = P.lane_order(r, t0, t1)
        pk = P.packed(r)
        peak = max(pk, key=lambda p: p[2])
        cr = P.crossings(r)
        return {"order": lo["order"], "own": lo["own"], "samples": lo["samples"],
                "width": P.lane_width(r, t0, t1)["width"],
                "packed_peak": peak[2], "packed_peak_t": peak[0], "packed_end": pk[-1][2],
                "speed_min": P.speed(r, 1.0)["min"], "max_overlap": P.overlap(r)["max_ratio"],
                "t99": _t(cr["t99"]), "t100": _t(cr["t100"])}
    if case == "deviation":
        dev = P.lateral_deviation(r, t1)
        v = {"dev%d" % g: d for g, d in dev.items()}
        v["ratio"] = dev[a.more] / dev[a.less] if dev[a.less] > 0 else math.inf
        return v
    if case == "shape":
        sh = P.shape(r, a.group)
        win = P.shape(r, a.group, t0, t1)
        a0, amin, aend = sh[0][5], min(s[5] for s in win), sh[-1][5]
        return {"aspect0": a0, "aspect_min": amin, "aspect_end": aend, "min_ratio": amin / a0,
                "end_ratio": aend / a0, "drift": max(abs(s[2] - sh[0][2]) for s in sh)}
    if case == "cohesion":
        co = P.cohesion(r, t0, t1, link=a.link)
        per = [float(np.mean([s for s, _ in res.values()])) for _, res in co]
        cr = P.crossings(r)
        return {"cohesion": float(np.mean(per)), "cohesion_min": float(min(per)),
                "crossed": cr["series"][-1][1], "t99": _t(cr["t99"])}
    if case == "arrival":
        ar = P.arrival(r)
        return {"t50": _t(ar[0.5]), "t90": _t(ar[0.9]), "t100": _t(ar[1.0]), "final": ar["final"],
                "max_overlap": P.overlap(r)["max_ratio"]}
    if case == "bottleneck":
        gap = tuple(a.gap)

        def offset(x):
            return math.hypot(x["outer_centre"][0] - gap[0], x["outer_centre"][1] - gap[1])
        rows = [x for x in (P.arch(f, gap) for f in P._window(r, t0, t1)) if x]
        v = {k: float(np.mean([x[k] for x in rows]))
             for k in ("outer_share", "outer_radius", "front_distance", "front_radius")}
        v["outer_offset"] = float(np.mean([offset(x) for x in rows]))
        first = P.arch(r.frames[0], gap)
        v.update({"outer_share0": first["outer_share"], "front_distance0": first["front_distance"],
                  "outer_offset0": offset(first)})
        f0, f1 = a.flow_window if a.flow_window else (None, None)
        fl = P.gap_flow(r, gap[0], f0, f1)
        v.update({"flow": fl["flow"], "passes": fl["passes"], "longest_pause": fl["longest_pause"],
                  "max_overlap": P.overlap(r)["max_ratio"]})
        return v
    sys.exit("unknown case %s" % case)


EXPECT = re.compile(r"^\s*(control\.)?([A-Za-z_]\w*)\s*(<=|>=|<|>)"          # [control.]NAME OP
                    r"\s*(?:([-+0-9.eE]+)\s*\*\s*)?(control\.)?([-+\w.]+)\s*$")  # [F*][control.]BOUND


def check(expr, main, control):
    m = EXPECT.match(expr)
    if not m:
        sys.exit("bad --expect %r" % expr)
    lhs_control, name, op, factor, is_control, rhs = m.groups()
    if (lhs_control or is_control) and control is None:
        sys.exit("--expect %r needs a control (--control-set or --control-scenario)" % expr)
    side = control if lhs_control else main
    if name not in side:
        sys.exit("--expect %r: no value %s (have %s)" % (expr, name, ", ".join(sorted(side))))
    if is_control:
        if rhs not in control:
            sys.exit("--expect %r: no value %s" % (expr, rhs))
        bound = control[rhs] * (float(factor) if factor else 1.0)
    else:
        bound = float(rhs) * (float(factor) if factor else 1.0)
    val = side[name]
    ok = {"<": val < bound, "<=": val <= bound, ">": val > bound, ">=": val >= bound}[op]
    label = ("control." if lhs_control else "") + name
    return ok, "%s = %.4g %s %.4g%s" % (label, val, op, bound, " (%s)" % expr if is_control else "")


def pair(s):
    return tuple(float(v) for v in s.split(","))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("throng")
    p.add_argument("case", choices=["contacts", "passing", "deviation", "shape", "cohesion", "arrival",
                                    "bottleneck"])
    p.add_argument("scenario")
    p.add_argument("--steps", type=int, required=True)
    p.add_argument("--every", type=int, default=24, help="trajectory frame every K steps")
    p.add_argument("--set", action="append", default=[])
    p.add_argument("--control-set", action="append", default=[])
    p.add_argument("--control-scenario", help="the control runs this scenario (with --set and --control-set)")
    p.add_argument("--window", type=pair)
    p.add_argument("--flow-window", type=pair)
    p.add_argument("--gap", type=pair)
    p.add_argument("--group", type=int, default=0)
    p.add_argument("--less", type=int, default=1)
    p.add_argument("--more", type=int, default=0)
    p.add_argument("--link", type=float, default=2.0)
    p.add_argument("--seeds", help="S1,S2,...: run (and the control) once per seed; the values are the means")
    p.add_argument("--expect", action="append", default=[])
    a = p.parse_args()
    seeds = [int(x) for x in a.seeds.split(",")] if a.seeds else [None]
    mains, controls = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            extra = ["seed=%d" % seed] if seed is not None else []
            mains.append(measure(a.case, run(a, os.path.join(tmp, "run"), extra), a))
            if a.control_set or a.control_scenario:
                controls.append(measure(a.case, run(a, os.path.join(tmp, "control"), extra + a.control_set,
                                                    a.control_scenario), a))
            shutil.rmtree(tmp)
            os.mkdir(tmp)
    main_v = {k: float(np.mean([m[k] for m in mains])) for k in mains[0]}
    control_v = {k: float(np.mean([m[k] for m in controls])) for k in controls[0]} if controls else None
    if len(seeds) > 1:
        print("per seed (%s):" % a.seeds)
        for k in mains[0]:
            print("  %s: %s%s" % (k, " ".join("%.4g" % m[k] for m in mains),
                                  " | control " + " ".join("%.4g" % c[k] for c in controls) if controls else ""))
        print("means over the seeds:")
    name = os.path.basename(a.scenario)
    print("%s %s, %d steps%s:" % (a.case, name, a.steps, " " + " ".join(a.set) if a.set else ""))
    print("  " + ", ".join("%s %.4g" % kv for kv in main_v.items()))
    if control_v is not None:
        print("control (%s):" % " ".join(([os.path.basename(a.control_scenario)] if a.control_scenario else [])
                                          + a.control_set))
        print("  " + ", ".join("%s %.4g" % kv for kv in control_v.items()))
    failures = []
    for e in a.expect:
        ok, msg = check(e, main_v, control_v)
        print("  %s %s" % ("ok  " if ok else "FAIL", msg))
        if not ok:
            failures.append(msg)
    if not a.expect:
        failures.append("no --expect given")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
