#!/usr/bin/env python3
"""Validation tests (label `validation`): the RiMEA test cases, the IMO door-flow
test and a bottleneck width scan, run on the scenarios that
configs/validation/make_validation.py generates, measured with
scripts/validation/measure.py and judged by the criteria of
docs/testing.md ("Validation tests"; the numbers are in CRITERIA below).

Usage: check_validation.py THRONG CASE [--full] [--json FILE] [--keep DIR] [--set KEY=VALUE]...

CASE is one of the cases below or `all`. Each prints what it measured in one table
and exits 0 when every criterion holds, 1 otherwise, 77 when it cannot run here
(no numpy). --full runs the full sizes (rimea04_fd: all seven densities and
60 s of measurement; rimea09: 1000 agents; bottleneck_scan: five widths x three seeds) instead of the
CI sizes; --json FILE writes the measurements and verdicts as JSON; --keep DIR
keeps the run outputs there.

When the throng under test knows the pedestrian preset (`throng schema` lists
`model.preset`), the committed configs/validation/*.yaml are run (and must equal
what the generator writes); otherwise the generator's --no-preset variant, written
to a temporary directory. Every run uses one OpenMP thread.

  rimea01         one agent, 1.33 m/s: the 40 m walk (x 1 -> 41) takes 26-34 s
  rimea02         one agent (1.34 m/s) up a stair (rise 3.5 m, run 5.5 m): its horizontal speed over
                  the middle half of the rise in Fruin's 0.5-0.7 m/s and within 5 % of the configured
                  stair speed (stairs[].speed_up; docs/floors.md)
  rimea03         the same down the stair: Fruin's 0.6-0.8 m/s, within 5 % of speed_down
  rimea04_fd      fundamental diagram in a 3 m corridor: classic density and mean speed in a
                  4 m x 3 m area (areas.csv, every 0.5 s) from 10 s until the crowd's tail reaches
                  it; speed within +-0.15 m/s of Weidmann at the measured density (nominal
                  0.5..4 /m2); the peak specific flow rho v in 1.1-1.6 /(m s)
  rimea05         reaction times 10..100 s: each agent starts moving within 2 frames (1 s) of
                  its own; evacuated.csv's release equals it
  rimea06         20 agents round a corner, a frame every step: no centre outside the corridor,
                  no move across a wall, no disk more than 1 cm into a wall; everyone out
  rimea07         free speeds (displacement 5..15 s) inside their group's range, spread over
                  >= 80 % of it, mean within 12 % of the range of its middle
  rimea08         (document) the tower study at 3 storeys, as drawn and with one parameter changed at a
                  time (more people, later pre-movement, slower stairs): evacuation times; everyone out
  rimea09         agents evenly spread, 4 doors, then 2 (diagonal): evacuation time ratio 1.6-2.4,
                  both drain; CI 250 agents (a 25 x 10 lattice over the room), full 1000
  rimea10         23 agents in 12 rooms: 100 % leave through their assigned exit
  rimea12         room 1 -> corridor -> room 2 -> door: steady corridor flow >= last-door flow
                  - 0.05 /s; the mean density in front of the last door at most half that in
                  front of the corridor (the jam only in room 1); everyone out
  rimea13         150 agents up a 2 m stair: the mean density in front of it at least twice that
                  beyond its top while they climb (a queue at the stair); everyone out
  rimea14         a level way or one over two stairs, as long in plan: the share over the stairs
                  (documented); everyone out
  rimea15         short / long / corner corridor: corner evacuation time between the others
  imo_door        100 agents, 1 m door: mean flow (N-1)/(last - first crossing) <= 1.33 p/s
  bottleneck_scan door widths 0.8, 1.6, 2.5 m (full: 0.8..2.5, 3 seeds): steady flow
                  J = (n-1)/(t90 - t10) through the door; linear fit R2 >= 0.95, slope 1.9 +- 0.3
                  /(m s); every width drains (no 30 s without a crossing while agents remain)
  merge           two 2 m corridors merging at a T-junction into one: the steady flow after the
                  merge is at least 0.7 of one straight corridor's with the same crowd; everyone out
  counterflow     IMO test 8: 100 agents cross a 10 m x 2 m corridor while 0, 10, 50, 100 come the
                  other way: everyone arrives; the last of the 100 arrives later the more come
  exit_choice     240 agents much nearer one of two equal 1.2 m doors: both used, the two doors'
                  last agents out within 20 % of each other (exit choice by time)
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SKIP = 77

try:
    import numpy as np
except ImportError:
    print("SKIPPED: numpy is not installed for %s (Debian: apt-get install python3-numpy)" % sys.executable)
    sys.exit(SKIP)

sys.path.insert(0, os.path.join(ROOT, "scripts", "validation"))
sys.path.insert(0, os.path.join(ROOT, "configs", "validation"))
import measure as M            # noqa: E402
import make_validation as G    # noqa: E402

# ---- the criteria: every threshold the suite asserts, in one place -------------------
CRITERIA = {
    "rimea01_time": (26.0, 34.0),          # s for the 40 m
    "fd_speed_tol": 0.15,                  # m/s, |v - Weidmann(rho)|
    "fd_rho_range": (0.5, 4.0),            # nominal densities where the speed is judged
    "fd_peak_flow": (1.1, 1.6),            # 1/(m s), peak of rho v
    "fd_warmup": 10.0,                     # s
    "rimea05_frames": 2,                   # frames between reaction time and first move
    "move_speed": 0.3,                     # m/s: an agent "moves" from this speed ...
    "move_distance": 0.1,                  # ... or this displacement from its start [m]
    "wall_tol": 0.01,                      # m a disk may reach into a wall (rimea06)
    "rimea07_cover": 0.8,                  # measured spread / configured range, at least
    "rimea07_mean": 0.12,                  # |mean - middle| / range, at most
    "rimea07_tol": 0.005,                  # m/s outside the range still counted inside
    "rimea09_ratio": (1.6, 2.4),           # T(2 exits) / T(4 exits)
    "rimea10_share": 1.0,                  # share of agents out through their assigned exit
    "rimea12_margin": 0.05,                # 1/s: J(corridor) >= J(last door) - margin
    "rimea12_density_ratio": 0.5,          # density before the last door / before the corridor, at most
    "imo_flow": 1.33,                      # p/s, at most
    "bn_r2": 0.95,                         # linear fit J(b), at least
    "bn_slope": (1.6, 2.2),                # 1/(m s): 1.9 +- 0.3
    "clog_stall": 30.0,                    # s without a door crossing while agents remain = clogged
    "merge_share": G.MG_SHARE,             # flow after a T-junction merge / one straight corridor's, at least
    "exit_balance": G.EC_BALANCE,          # |T(west) - T(east)| / max, at most
    "stair_speed_tol": 0.05,               # |v - configured| / configured on a stair (rimea02, 03)
}
SIZES = {   # CI size, full size
    "fd_densities": ([0.5, 1, 2, 3, 4], G.FD_DENSITIES),
    "fd_t_end": (20.0, G.FD_T_END),
    "r09_lattice": ((10, 25), (25, 40)),        # rows x cols: 250 agents in CI, the scenario's 1000 in full
    "bn_widths": ([0.8, 1.6, 2.5], G.BN_WIDTHS),
    "bn_seeds": ([1], [1, 2, 3]),
}

problems = []
results = {}


def check(cond, what):
    if not cond:
        problems.append(what)
    return bool(cond)


def table(title, head, rows):
    """Print one readable table: head and rows are lists of cells."""
    cells = [[str(c) for c in head]] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[k]) for r in cells) for k in range(len(head))]
    line = "+".join("-" * (x + 2) for x in w)
    print("\n" + title)
    print(" " + " | ".join(c.ljust(w[k]) for k, c in enumerate(cells[0])))
    print(" " + line.replace("+", "|"))
    for r in cells[1:]:
        print(" " + " | ".join(c.ljust(w[k]) for k, c in enumerate(r)))


def ok(b):
    return "ok" if b else "FAIL"


def f(v, d=3):
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else ("%.*f" % (d, v))


# ---- scenarios and runs ------------------------------------------------------------

class Runner:
    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp
        schema = subprocess.run([a.throng, "schema"], capture_output=True, text=True).stdout
        self.preset = "model.preset" in schema
        self.dir = os.path.join(ROOT, "configs", "validation")
        texts = G.scenarios(self.preset)
        if self.preset:
            stale = [n for n, t in texts.items()
                     if not os.path.exists(os.path.join(self.dir, n)) or open(os.path.join(self.dir, n)).read() != t]
            check(not stale, "configs/validation/ up to date with make_validation.py (stale: %s)" % stale)
            if stale:
                print("FAIL: configs/validation/ differs from make_validation.py's output: %s" % stale)
        else:
            self.dir = os.path.join(tmp, "configs")
            os.makedirs(self.dir)
            for n, t in texts.items():
                with open(os.path.join(self.dir, n), "w") as fh:
                    fh.write(t)
        print("scenarios: %s (%s)" % (self.dir, "model preset pedestrian" if self.preset else
                                     "generated --no-preset: this throng has no model.preset"))
        results["variant"] = "preset" if self.preset else "no-preset"

    def run(self, scenario, tag, *extra, watch_line=None):
        """Run a scenario; returns its output directory. With watch_line, the run is stopped
        (SIGTERM) once CRITERIA['clog_stall'] s of simulated time pass without a crossing of
        that line: a permanent clog (the outputs end there)."""
        out = os.path.join(self.tmp, "out", tag)
        cmd = [self.a.throng, "run", os.path.join(self.dir, scenario), "--out", out, "--quiet"] + list(extra)
        for kv in self.a.set or []:
            cmd += ["--set", kv]
        env = dict(os.environ, OMP_NUM_THREADS="1")
        t0 = time.time()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        stopped, watch = None, []
        if watch_line:
            watch = [watch_line] if isinstance(watch_line, str) else list(watch_line)
            path, pos, last_n, last_t, buf, count = os.path.join(out, "lines.csv"), 0, 0, 0.0, "", {}
            while p.poll() is None:
                time.sleep(0.5)
                if not os.path.exists(path):
                    continue
                with open(path) as fh:
                    fh.seek(pos)
                    buf += fh.read()
                    pos = fh.tell()
                *done, buf = buf.split("\n")
                for ln in done:
                    c = ln.split(",")
                    if len(c) == 5 and c[2] in watch:
                        count[c[2]] = int(c[3])
                        if c[2] != watch[-1]:
                            continue
                        t, n = float(c[1]), sum(count.values())
                        if n > last_n:
                            last_n, last_t = n, t
                        elif t - last_t > CRITERIA["clog_stall"] and stopped is None:
                            stopped = t
                            p.terminate()
        so, se = p.communicate()
        print("$ %s\n  exit %d in %.1f s%s" % (" ".join(cmd), p.returncode, time.time() - t0,
                                               "" if stopped is None else
                                               " (stopped at t = %.1f s: %g s without a crossing of %s)"
                                               % (stopped, CRITERIA["clog_stall"], "/".join(watch))))
        # stopped by SIGTERM: 143, or 75 where throng has HDF5 and writes a checkpoint first
        if p.returncode not in (0, 75, 143) or (p.returncode in (75, 143) and stopped is None):
            print(se[-3000:])
            check(False, "%s: throng exited %d" % (tag, p.returncode))
        if self.a.keep:
            dst = os.path.join(self.a.keep, tag)
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(out, dst)
        return out


def drained(out):
    s = M.summary(out)
    return s["remaining"] == 0 and s["evacuation_time"] is not None, s


# ---- cases --------------------------------------------------------------------------

def rimea01(r):
    out = r.run("rimea01.yaml", "rimea01")
    fr = M.load_frames(out)
    t = M.walking_time(fr, 0, G.R01_X0, G.R01_X1)
    lo, hi = CRITERIA["rimea01_time"]
    good = check(t is not None and lo <= t <= hi, "rimea01: walking time %s s in [%g, %g]" % (f(t, 2), lo, hi))
    table("RiMEA 1: one agent, free speed %g m/s, 40 m" % G.R01_SPEED, ["quantity", "measured", "criterion", ""],
          [["time for x %g -> %g [s]" % (G.R01_X0, G.R01_X1), f(t, 2), "%g-%g" % (lo, hi), ok(good)],
           ["mean speed [m/s]", f(40.0 / t if t else None), "(configured %g)" % G.R01_SPEED, ""]])
    results["rimea01"] = {"walking_time": t, "pass": good}


def fd_one(r, rho, t_end):
    out = r.run(G.fd_name(rho), "fd-rho%g" % rho, "--steps", str(round(t_end * 48)))
    fr = M.load_frames(out)
    # the window ends when the crowd's tail (its rearmost agent) reaches the area
    x0 = G.FD_AREA[0]
    tt = np.array([q.t for q in fr if len(q)])
    rear = np.array([q.x.min() for q in fr if len(q)])
    k = np.nonzero(rear >= x0)[0]
    if len(k) == 0:
        t_tail = t_end
    elif k[0] == 0:
        t_tail = 0.0
    else:
        j = k[0]
        t_tail = tt[j - 1] + (x0 - rear[j - 1]) * (tt[j] - tt[j - 1]) / (rear[j] - rear[j - 1])
    t1 = min(t_end, t_tail)
    t0 = CRITERIA["fd_warmup"]
    import csv
    rows = [q for q in csv.DictReader(open(os.path.join(out, "areas.csv"))) if q["area"] == "fd"]
    samp = [(float(q["time"]), float(q["density"]), float(q["mean_speed"]), int(q["agents"])) for q in rows
            if t0 - 1e-6 <= float(q["time"]) <= t1 + 1e-6 and int(q["agents"]) > 0]
    # the frames give the same counts at their times (areas.csv and measure.py agree)
    byt = {round(s[0], 3): s[3] for s in samp}
    poly = [(G.FD_AREA[0], 0), (G.FD_AREA[1], 0), (G.FD_AREA[1], G.FD_W), (G.FD_AREA[0], G.FD_W)]
    ft, frho, _ = M.area_density_speed(fr, poly, t0, t1)
    area = (G.FD_AREA[1] - G.FD_AREA[0]) * G.FD_W
    agree = all(round(frho[i] * area) == byt[round(ft[i], 3)] for i in range(len(ft)) if round(ft[i], 3) in byt)
    check(agree, "rimea04 rho %g: the frames' counts in the area equal areas.csv's" % rho)
    if not samp:
        return {"rho": rho, "density": None, "speed": None, "samples": 0, "window": [t0, t1]}
    d = float(np.mean([s[1] for s in samp]))
    v = float(np.mean([s[2] for s in samp]))
    return {"rho": rho, "density": d, "speed": v, "flow": d * v, "samples": len(samp), "window": [t0, t1],
            "weidmann": float(M.weidmann_speed(d))}


def rimea04_fd(r):
    i = 1 if r.a.full else 0
    rhos, t_end = SIZES["fd_densities"][i], SIZES["fd_t_end"][i]
    res = [fd_one(r, rho, t_end) for rho in rhos]
    tol, (rlo, rhi), (plo, phi) = CRITERIA["fd_speed_tol"], CRITERIA["fd_rho_range"], CRITERIA["fd_peak_flow"]
    rows = []
    for q in res:
        judged = rlo <= q["rho"] <= rhi
        if q["density"] is None:
            good = check(not judged, "rimea04 rho %g: no sample in the window" % q["rho"])
            rows.append([q["rho"], "-", "-", "-", "-", "%g-%g" % tuple(q["window"]), 0, ok(good)])
            continue
        dv = q["speed"] - q["weidmann"]
        good = abs(dv) <= tol
        if judged:
            check(good, "rimea04 rho %g: speed %.3f vs Weidmann %.3f at %.3f /m2 (|diff| > %g)"
                  % (q["rho"], q["speed"], q["weidmann"], q["density"], tol))
        q["pass"] = good or not judged
        rows.append([q["rho"], f(q["density"], 2), f(q["speed"]), f(q["weidmann"]), "%+.3f" % dv,
                     "%g-%g" % (q["window"][0], round(q["window"][1], 1)), q["samples"],
                     ok(good) if judged else "(not judged)"])
    flows = [q["flow"] for q in res if q["density"] is not None]
    peak = max(flows) if flows else None
    pgood = check(peak is not None and plo <= peak <= phi, "rimea04: peak specific flow %s in [%g, %g]"
                  % (f(peak), plo, phi))
    table("RiMEA 4: fundamental diagram, 3 m corridor, area x %g-%g (classic density, mean |v|); speed within "
          "+-%g m/s of Weidmann for nominal %g-%g /m2" % (G.FD_AREA + (tol, rlo, rhi)),
          ["nominal rho", "rho [1/m2]", "v [m/s]", "Weidmann v", "v - W", "window [s]", "samples", ""], rows)
    table("RiMEA 4: specific flow", ["quantity", "measured", "criterion", ""],
          [["peak rho*v [1/(m s)]", f(peak), "%g-%g" % (plo, phi), ok(pgood)]] +
          [["rho*v at nominal %g" % q["rho"], f(q.get("flow")), "", ""] for q in res])
    results["rimea04_fd"] = {"densities": res, "peak_flow": peak, "size": "full" if r.a.full else "ci",
                             "pass": not [p for p in problems if p.startswith("rimea04")]}


def rimea05(r):
    out = r.run("rimea05.yaml", "rimea05")
    fr = M.load_frames(out)
    dframe = G.R05_FRAME_STEPS / 48.0
    moved = M.release_times(fr, CRITERIA["move_speed"], CRITERIA["move_distance"])
    import csv
    rel = {int(q["id"]): float(q["release"]) for q in csv.DictReader(open(os.path.join(out, "evacuated.csv")))}
    lim = CRITERIA["rimea05_frames"] * dframe
    rows, res = [], []
    for k, t in enumerate(G.R05_PREMOVEMENT):
        m = moved.get(k)
        good = m is not None and abs(m - t) <= lim + 1e-6 and k in rel and abs(rel[k] - t) < 1e-3
        check(good, "rimea05 agent %d: reaction %d s, first move %s, release %s" % (k, t, f(m, 2), rel.get(k)))
        rows.append([k, t, f(rel.get(k), 2), f(m, 2), f(None if m is None else m - t, 2), ok(good)])
        res.append({"id": k, "reaction": t, "release": rel.get(k), "first_move": m})
    dr, s = drained(out)
    check(dr, "rimea05: everyone out (remaining %d)" % s["remaining"])
    table("RiMEA 5: reaction times; first move = first frame with |v| >= %g m/s or %g m from the start "
          "(frames every %g s); within %d frames" % (CRITERIA["move_speed"], CRITERIA["move_distance"], dframe,
                                                    CRITERIA["rimea05_frames"]),
          ["id", "reaction [s]", "release (evacuated.csv)", "first move [s]", "difference [s]", ""], rows)
    results["rimea05"] = {"agents": res, "pass": not [p for p in problems if p.startswith("rimea05")]}


def rimea06(r):
    out = r.run("rimea06.yaml", "rimea06")
    fr = M.load_frames(out)
    w = M.wall_check(fr, G.R06_WKT, CRITERIA["wall_tol"])
    dr, s = drained(out)
    rows = [["frames / points", "%d / %d" % (len(fr), w["points"]), "", ""],
            ["centres outside the corridor", w["n_outside"], "0", ok(check(w["n_outside"] == 0,
                                                                          "rimea06: centres outside %s" % w["outside"][:3]))],
            ["moves across a wall", w["n_crossings"], "0", ok(check(w["n_crossings"] == 0,
                                                                   "rimea06: moves across a wall %s" % w["crossings"][:3]))],
            ["disks > %g m into a wall" % CRITERIA["wall_tol"], w["n_overlap"], "0",
             ok(check(w["n_overlap"] == 0, "rimea06: %d disk positions reach into a wall" % w["n_overlap"]))],
            ["smallest clearance (centre to wall - r) [m]", f(w["min_clearance"], 4), "", ""],
            ["everyone out", "%d of %d (%s s)" % (s["evacuated"], s["agents_initial"], f(s["evacuation_time"], 1)),
             "all", ok(check(dr, "rimea06: everyone out"))]]
    table("RiMEA 6: 20 agents round a left-hand corner, a frame every step", ["quantity", "measured", "criterion", ""],
          rows)
    results["rimea06"] = {k: w[k] for k in ("points", "n_outside", "n_crossings", "n_overlap", "min_clearance")}
    results["rimea06"]["pass"] = not [p for p in problems if p.startswith("rimea06")]


def rimea07(r):
    out = r.run("rimea07.yaml", "rimea07", "--steps", str(round(G.R07_T1 * 48)))
    fr = M.load_frames(out)
    v = M.free_speeds(fr, G.R07_T0, G.R07_T1)
    grp = {int(i): int(g) for i, g in zip(fr[0].id, fr[0].group)}
    rows, res = [], {}
    tol = CRITERIA["rimea07_tol"]
    for k, (name, lo, hi) in enumerate(G.R07_GROUPS):
        s = np.array(sorted(x for i, x in v.items() if grp[i] == k))
        inside = int(np.sum((s >= lo - tol) & (s <= hi + tol)))
        cover = (s[-1] - s[0]) / (hi - lo) if len(s) else 0.0
        mean_off = abs(s.mean() - (lo + hi) / 2) / (hi - lo) if len(s) else 1.0
        g1 = check(len(s) == G.R07_PER_GROUP and inside == len(s), "rimea07 %s: %d of %d speeds in [%g, %g]"
                   % (name, inside, len(s), lo, hi))
        g2 = check(cover >= CRITERIA["rimea07_cover"], "rimea07 %s: spread covers %.0f%% of the range" % (name, 100 * cover))
        g3 = check(mean_off <= CRITERIA["rimea07_mean"], "rimea07 %s: mean off the middle by %.0f%% of the range"
                   % (name, 100 * mean_off))
        rows.append([name, "%g-%g" % (lo, hi), len(s), "%.3f-%.3f" % (s[0], s[-1]), f(s.mean()), inside,
                     "%.0f%%" % (100 * cover), "%.0f%%" % (100 * mean_off), ok(g1 and g2 and g3)])
        res[name] = {"range": [lo, hi], "speeds": s.tolist()}
    table("RiMEA 7: free speeds (displacement %g-%g s); all inside the range (+-%g), spread >= %.0f%% of it, "
          "mean within %.0f%% of the range of its middle" % (G.R07_T0, G.R07_T1, tol, 100 * CRITERIA["rimea07_cover"],
                                                           100 * CRITERIA["rimea07_mean"]),
          ["group", "range [m/s]", "n", "measured", "mean", "inside", "spread", "|mean-mid|", ""], rows)
    results["rimea07"] = {"groups": res, "pass": not [p for p in problems if p.startswith("rimea07")]}


TOWER_SMALL = os.path.join(ROOT, "configs", "evacuation", "tower", "tower-small.yaml")
R08_VARIANTS = [("as drawn: 40 a storey, pre-movement 30 +- 10 s", []),
                ("80 a storey", ["agents[%d].count=80" % k for k in range(3)]),
                ("pre-movement 60 +- 10 s", ["agents[%d].premovement.mean=60" % k for k in range(3)]),
                ("stairs 20 % slower", ["stairs[%d].speed_%s=%s" % (k, d, f) for k in range(8)
                                        for d, f in (("down", "0.465"), ("up", "0.395"))])]


def rimea08(r):
    """RiMEA 8: the parameter study on a three-storey building (document): the tower study at 3 storeys
    (configs/evacuation/tower/tower-small.yaml) as drawn and with one parameter changed at a time."""
    rows, res = [], {}
    for k, (what, sets) in enumerate(R08_VARIANTS):
        extra = ["--set", "output.trajectory_every=0"]
        for kv in sets:
            extra += ["--set", kv]
        out = r.run(TOWER_SMALL, "rimea08-%d" % k, *extra)
        dr, s = drained(out)
        check(dr, "rimea08 (%s): everyone out (remaining %d)" % (what, s["remaining"]))
        rows.append([what, s["agents_initial"], f(s["evacuation_time"], 1), "%d / %d" % (s["exits"].get("west", 0),
                                                                                       s["exits"].get("east", 0))])
        res[what] = s["evacuation_time"]
    table("RiMEA 8: three storeys, two switchback stair cores (tower-small.yaml); one parameter at a time",
          ["variant", "people", "evacuation time [s]", "west / east"], rows)
    results["rimea08"] = {"times": res, "pass": not [p for p in problems if p.startswith("rimea08")]}


def rimea09(r):
    T = {}
    i = 1 if r.a.full else 0
    rows, cols = SIZES["r09_lattice"][i]
    for n in (4, 2):
        keep = sorted(G.R09_DOORS) if n == 4 else G.R09_KEEP
        out = r.run("rimea09-%dexits.yaml" % n, "rimea09-%d" % n, "--set", "agents[0].rows=%d" % rows,
                    "--set", "agents[0].cols=%d" % cols, watch_line=["door_" + k for k in sorted(keep)])
        dr, s = drained(out)
        check(dr, "rimea09 %d exits: everyone out (remaining %d)" % (n, s["remaining"]))
        T[n] = (M.evacuation_time(out) if dr else None, s)
    lo, hi = CRITERIA["rimea09_ratio"]
    ratio = T[2][0] / T[4][0] if T[2][0] and T[4][0] else None
    good = check(ratio is not None and lo <= ratio <= hi, "rimea09: ratio %s in [%g, %g]" % (f(ratio), lo, hi))
    table("RiMEA 9: %d agents (a %d x %d lattice), 30 x 20 m room, 1 m doors" % (rows * cols, cols, rows), ["quantity", "measured", "criterion", ""],
          [["evacuation time, 4 doors [s]", f(T[4][0], 1), "drains", ok(T[4][0] is not None)],
           ["evacuation time, 2 doors (%s) [s]" % "+".join(G.R09_KEEP), f(T[2][0], 1), "drains", ok(T[2][0] is not None)],
           ["per door, 4 doors", str(T[4][1]["exits"]), "", ""],
           ["per door, 2 doors", str(T[2][1]["exits"]), "", ""],
           ["ratio T2 / T4", f(ratio), "%g-%g" % (lo, hi), ok(good)]])
    results["rimea09"] = {"t4": T[4][0], "t2": T[2][0], "ratio": ratio, "agents": rows * cols,
                          "pass": not [p for p in problems if p.startswith("rimea09")]}


def rimea10(r):
    import csv
    out = r.run("rimea10.yaml", "rimea10")
    ev = list(csv.DictReader(open(os.path.join(out, "evacuated.csv"))))
    n = sum(G.R10_AGENTS)
    right = sum(1 for q in ev if q["exit"] == G.R10_EXIT[int(q["group"])])
    wrong = [(q["id"], q["group"], q["exit"]) for q in ev if q["exit"] != G.R10_EXIT[int(q["group"])]]
    share = right / n
    good = check(share >= CRITERIA["rimea10_share"], "rimea10: %d of %d through their assigned exit; wrong %s"
                 % (right, n, wrong))
    far = [i for i, e in enumerate(G.R10_EXIT) if (e == "east") == ((i % G.R10_ROOMS) < G.R10_ROOMS / 2)]
    rows = [["agents out", "%d of %d" % (len(ev), n), "all", ok(check(len(ev) == n, "rimea10: everyone out"))],
            ["through the assigned exit", "%d (%.0f%%)" % (right, 100 * share), "100%", ok(good)],
            ["of them sent to the far exit (rooms %s)" % far,
             sum(1 for q in ev if int(q["group"]) in far and q["exit"] == G.R10_EXIT[int(q["group"])]), "", ""]]
    table("RiMEA 10: 23 agents in 12 rooms, assigned exits", ["quantity", "measured", "criterion", ""], rows)
    results["rimea10"] = {"agents": n, "out": len(ev), "assigned": right, "pass": good and len(ev) == n}


def rimea12(r):
    import csv
    out = r.run("rimea12.yaml", "rimea12", watch_line="last_door")
    tc, tl = M.lines_csv_crossings(out, "corridor"), M.lines_csv_crossings(out, "last_door")
    jc, jl = M.steady_flow(tc), M.steady_flow(tl)
    dr, s = drained(out)
    # mean density in front of the corridor and of the last door while each has its steady flow
    rows_a = [q for q in csv.DictReader(open(os.path.join(out, "areas.csv")))]

    def dens(area, times):
        if len(times) < 2:
            return None
        a, b = times[int(0.1 * (len(times) - 1))], times[int(math.ceil(0.9 * (len(times) - 1)))]
        v = [float(q["density"]) for q in rows_a if q["area"] == area and a <= float(q["time"]) <= b]
        return float(np.mean(v)) if v else None
    de, dx = dens("corridor_entry", tc), dens("exit_front", tl)
    m, rr = CRITERIA["rimea12_margin"], CRITERIA["rimea12_density_ratio"]
    g1 = check(not math.isnan(jc) and not math.isnan(jl) and jc >= jl - m,
               "rimea12: corridor flow %s >= last-door flow %s - %g" % (f(jc), f(jl), m))
    g2 = check(de is not None and dx is not None and dx <= rr * de,
               "rimea12: density before the last door %s <= %g x that before the corridor %s" % (f(dx, 2), rr, f(de, 2)))
    g3 = check(dr, "rimea12: everyone out (remaining %d)" % s["remaining"])
    table("RiMEA 12: room 1 -> 1 m corridor -> room 2 -> 1 m door; steady flow over the 10-90 % crossings",
          ["quantity", "measured", "criterion", ""],
          [["crossings corridor / last door", "%d / %d" % (len(tc), len(tl)), "", ""],
           ["J corridor [1/s]", f(jc), ">= J last door - %g" % m, ok(g1)],
           ["J last door [1/s]", f(jl), "", ""],
           ["density before the corridor [1/m2]", f(de, 2), "", ""],
           ["density before the last door [1/m2]", f(dx, 2), "<= %g x before the corridor" % rr, ok(g2)],
           ["everyone out", "%d of %d (%s s)" % (s["evacuated"], s["agents_initial"], f(s["evacuation_time"], 1)),
            "all", ok(g3)]])
    results["rimea12"] = {"j_corridor": jc, "j_last_door": jl, "density_entry": de, "density_exit": dx,
                          "remaining": s["remaining"], "pass": g1 and g2 and g3}


def stair_walk(r, up):
    """RiMEA 2 (up) and 3 (down): the lone walker's horizontal speed over the middle half of
    the stair's rise (clear of the speed change at either landing)."""
    n, name = (2, "rimea02") if up else (3, "rimea03")
    out = r.run("%s.yaml" % name, name)
    fr = [q for q in M.load_frames(out) if len(q)]
    t = np.array([q.t for q in fr])
    x = np.array([q.x[0] for q in fr])
    z = np.array([q.z[0] for q in fr])
    mid = (z > 0.25 * G.ST_RISE) & (z < 0.75 * G.ST_RISE)
    v = abs(x[mid][-1] - x[mid][0]) / (t[mid][-1] - t[mid][0]) if mid.sum() >= 2 else None
    with open(os.path.join(out, "run.json")) as fh:
        stair = json.load(fh).get("stairs", [{}])[0]
    factor = stair.get("speed_up" if up else "speed_down")
    want = factor * G.ST_SPEED if factor else None
    lo, hi = G.ST_BAND_UP if up else G.ST_BAND_DOWN
    g1 = check(v is not None and lo <= v <= hi, "%s: horizontal speed on the stair %s m/s in Fruin's [%g, %g]"
               % (name, f(v), lo, hi))
    g2 = check(v is not None and want is not None and abs(v - want) <= CRITERIA["stair_speed_tol"] * want,
               "%s: within %g %% of the configured %s m/s" % (name, 100 * CRITERIA["stair_speed_tol"], f(want)))
    dr, s = drained(out)
    g3 = check(dr and z.max() >= G.ST_RISE - 1e-3 and z.min() <= 1e-3,
               "%s: walked the whole stair (z %s to %s m) and out" % (name, f(z.min(), 2), f(z.max(), 2)))
    table("RiMEA %d: one agent (free speed %g m/s) %s a stair, rise %g m, run %g m" % (
        n, G.ST_SPEED, "up" if up else "down", G.ST_RISE, G.ST_RUN), ["quantity", "measured", "criterion", ""],
          [["horizontal speed on the stair [m/s]", f(v), "Fruin %g-%g" % (lo, hi), ok(g1)],
           ["configured (SFPE, docs/floors.md) [m/s]", f(want), "within %g %%" % (100 * CRITERIA["stair_speed_tol"]),
            ok(g2)],
           ["elevations walked [m]", "%s-%s" % (f(z.min(), 2), f(z.max(), 2)), "0-%g" % G.ST_RISE, ok(g3)]])
    results[name] = {"speed": v, "configured": want, "pass": g1 and g2 and g3}


def rimea02(r):
    stair_walk(r, True)


def rimea03(r):
    stair_walk(r, False)


def rimea13(r):
    import csv
    out = r.run("rimea13.yaml", "rimea13")
    dr, s = drained(out)
    t = M.lines_csv_crossings(out, "stair") if os.path.exists(os.path.join(out, "lines.csv")) else []
    rows_a = list(csv.DictReader(open(os.path.join(out, "areas.csv"))))
    a, b = (t[int(0.1 * (len(t) - 1))], t[int(math.ceil(0.9 * (len(t) - 1)))]) if len(t) >= 2 else (0, 0)

    def dens(area):
        v = [float(q["density"]) for q in rows_a if q["area"] == area and a <= float(q["time"]) <= b]
        return float(np.mean(v)) if v else None
    front, top = dens("stair_front"), dens("stair_top")
    j = M.steady_flow(t)
    js = j / 2.0 if j == j else float("nan")   # the stair is 2 m wide
    g1 = check(front is not None and top is not None and front >= 2.0 * top,
               "rimea13: density in front of the stair %s >= 2 x beyond its top %s" % (f(front, 2), f(top, 2)))
    g2 = check(dr, "rimea13: everyone out (remaining %d)" % s["remaining"])
    table("RiMEA 13: %d agents up a 2 m stair; mean densities over the 10-90 %% stair crossings" % G.R13_N,
          ["quantity", "measured", "criterion", ""],
          [["density in front of the stair [1/m2]", f(front, 2), ">= 2 x beyond its top", ok(g1)],
           ["density beyond its top [1/m2]", f(top, 2), "", ""],
           ["steady specific flow on the stair [1/(m s)]", f(js, 2), "(SFPE 0.94-1.16, Green Guide 1.1)", ""],
           ["everyone out", "%d of %d (%s s)" % (s["evacuated"], s["agents_initial"], f(s["evacuation_time"], 1)),
            "all", ok(g2)]])
    results["rimea13"] = {"density_front": front, "density_top": top, "specific_flow": js, "pass": g1 and g2}


def rimea14(r):
    out = r.run("rimea14.yaml", "rimea14")
    dr, s = drained(out)
    up = set()
    for q in M.load_frames(out):
        up.update(int(i) for i, zz in zip(q.id, q.z) if zz > 0.05)
    g = check(dr, "rimea14: everyone out (remaining %d)" % s["remaining"])
    table("RiMEA 14: %d agents, a level way (60 m) or one over two stairs (as long in plan)" % G.R14_N,
          ["quantity", "measured", "criterion", ""],
          [["agents over the stairs", "%d of %d" % (len(up), G.R14_N), "document", ""],
           ["everyone out", "%d of %d (%s s)" % (s["evacuated"], s["agents_initial"], f(s["evacuation_time"], 1)),
            "all", ok(g)]])
    results["rimea14"] = {"over_stairs": len(up), "pass": g}


def rimea15(r):
    T = {}
    for kind in ("short", "corner", "long"):
        out = r.run("rimea15-%s.yaml" % kind, "rimea15-%s" % kind)
        dr, s = drained(out)
        check(dr, "rimea15 %s: everyone out" % kind)
        T[kind] = M.evacuation_time(out) if dr else None
    good = check(None not in T.values() and T["short"] <= T["corner"] <= T["long"],
                 "rimea15: short %s <= corner %s <= long %s" % (f(T["short"], 1), f(T["corner"], 1), f(T["long"], 1)))
    table("RiMEA 15: %d agents through a 2 m corridor" % G.R15_N, ["case", "centre line [m]", "evacuation time [s]",
                                                                  "criterion", ""],
          [["short", G.R15_LEN["short"], f(T["short"], 2), "", ""],
           ["corner", G.R15_LEN["corner"], f(T["corner"], 2), "between short and long", ok(good)],
           ["long", G.R15_LEN["long"], f(T["long"], 2), "", ""]])
    results["rimea15"] = {"times": T, "pass": not [p for p in problems if p.startswith("rimea15")]}


def imo_door(r):
    out = r.run("imo-door.yaml", "imo-door", watch_line="door")
    t = M.lines_csv_crossings(out, "door")
    jm, js = M.mean_flow(t), M.steady_flow(t)
    je = M.mean_flow(M.exit_times(out))
    dr, s = drained(out)
    good = check(not math.isnan(jm) and jm <= CRITERIA["imo_flow"], "imo_door: mean flow %s <= %g"
                 % (f(jm), CRITERIA["imo_flow"]))
    g2 = check(dr and len(t) == G.IMO_N, "imo_door: all %d through the door (%d crossings, remaining %d)"
               % (G.IMO_N, len(t), s["remaining"]))
    table("IMO exit-flow test: %d agents, 8 x 5 m room, 1 m door" % G.IMO_N, ["quantity", "measured", "criterion", ""],
          [["door crossings", len(t), str(G.IMO_N), ok(g2)],
           ["mean flow (N-1)/(last - first) [p/s]", f(jm), "<= %g" % CRITERIA["imo_flow"], ok(good)],
           ["steady flow (10-90 %) [p/s]", f(js), "", ""],
           ["mean flow from evacuated.csv [p/s]", f(je), "", ""],
           ["evacuation time [s]", f(s["evacuation_time"], 1), "", ""]])
    results["imo_door"] = {"mean_flow": jm, "steady_flow": js, "pass": good and g2}


def bottleneck_scan(r):
    i = 1 if r.a.full else 0
    widths, seeds = SIZES["bn_widths"][i], SIZES["bn_seeds"][i]
    pts, rows = [], []
    for w in widths:
        for seed in seeds:
            out = r.run(G.bn_name(w), "bn-%.1f-s%d" % (w, seed), "--set", "seed=%d" % seed, watch_line="door")
            t = M.lines_csv_crossings(out, "door")
            j = M.steady_flow(t)
            dr, s = drained(out)
            n = G.bn_count(w)
            check(dr, "bottleneck b %.1f seed %d: drains completely (remaining %d)" % (w, seed, s["remaining"]))
            rows.append([w, seed, n, len(t), f(s["evacuation_time"], 1), f(j), f(j / w), ok(dr)])
            pts.append({"width": w, "seed": seed, "agents": n, "crossings": len(t), "flow": j,
                        "evacuation_time": s["evacuation_time"], "drained": dr})
    good_pts = [p for p in pts if not math.isnan(p["flow"])]
    slope, icpt, r2 = M.linear_fit([p["width"] for p in good_pts], [p["flow"] for p in good_pts]) \
        if len({p["width"] for p in good_pts}) >= 2 else (math.nan, math.nan, math.nan)
    slo, shi = CRITERIA["bn_slope"]
    g1 = check(r2 >= CRITERIA["bn_r2"], "bottleneck: R2 %s >= %g" % (f(r2), CRITERIA["bn_r2"]))
    g2 = check(slo <= slope <= shi, "bottleneck: slope %s in [%g, %g]" % (f(slope), slo, shi))
    table("Bottleneck: steady flow through the door (10-90 % of the crossings)",
          ["width [m]", "seed", "agents", "crossings", "evacuation [s]", "J [1/s]", "J/b [1/(m s)]", "drained"], rows)
    table("Bottleneck: linear fit J = a + s b", ["quantity", "measured", "criterion", ""],
          [["slope s [1/(m s)]", f(slope), "%g-%g" % (slo, shi), ok(g2)],
           ["intercept a [1/s]", f(icpt), "", ""],
           ["R2", f(r2), ">= %g" % CRITERIA["bn_r2"], ok(g1)]])
    results["bottleneck_scan"] = {"points": pts, "slope": slope, "intercept": icpt, "r2": r2,
                                  "size": "full" if r.a.full else "ci",
                                  "pass": not [p for p in problems if p.startswith("bottleneck")]}


def merge(r):
    J, S = {}, {}
    for kind in ("straight", "t"):
        out = r.run("merge-%s.yaml" % kind, "merge-%s" % kind, watch_line="flow")
        t = M.lines_csv_crossings(out, "flow")
        J[kind] = M.steady_flow(t)
        dr, S[kind] = drained(out)
        check(dr, "merge %s: everyone out (remaining %d)" % (kind, S[kind]["remaining"]))
    share = J["t"] / J["straight"] if J["straight"] > 0 else float("nan")
    lo = CRITERIA["merge_share"]
    good = check(not math.isnan(share) and share >= lo, "merge: flow after the T-junction %s = %s of the straight "
                 "corridor's %s (at least %g)" % (f(J["t"]), f(share), f(J["straight"]), lo))
    table("Merging flows: 2 m corridors, steady flow (10-90 % of the crossings of `flow`)",
          ["case", "J [1/s]", "J / (2 m) [1/(m s)]", "evacuation [s]", "criterion", ""],
          [["straight corridor", f(J["straight"]), f(J["straight"] / G.MG_W), f(S["straight"]["evacuation_time"], 1),
            "", ""],
           ["T-junction, after the merge", f(J["t"]), f(J["t"] / G.MG_W), f(S["t"]["evacuation_time"], 1),
            ">= %g x straight" % lo, ok(good)]])
    results["merge"] = {"j_straight": J["straight"], "j_t": J["t"], "share": share,
                        "pass": not [p for p in problems if p.startswith("merge")]}


def counterflow(r):
    import csv
    rows, T = [], {}
    for n in G.CF_COUNTER:
        out = r.run("counterflow-%d.yaml" % n, "counterflow-%d" % n)
        dr, s = drained(out)
        check(dr, "counterflow %d: everyone arrives (remaining %d)" % (n, s["remaining"]))
        # the last of room 1 (group 1) out through room 2's far wall
        ev = [q for q in csv.DictReader(open(os.path.join(out, "evacuated.csv"))) if q["group"] == "1"]
        last = max(float(q["time"]) for q in ev) if dr and ev else None
        T[n] = last
        rows.append([n, s["evacuated"], f(last, 1), str(s["exits"]), ok(dr)])
    ts = [T[n] for n in G.CF_COUNTER]
    grows = None not in ts and all(b >= a for a, b in zip(ts, ts[1:]))
    check(grows, "counterflow: the time for room 1 grows with the counterflow: %s" % [f(t, 1) for t in ts])
    table("IMO test 8, counterflow: %d agents from room 1 to room 2 through a 10 x 2 m corridor" % G.CF_MAIN,
          ["agents the other way", "out", "last of room 1 out of room 2 [s]", "per exit", "everyone out"], rows)
    table("IMO test 8: criterion", ["quantity", "measured", "criterion", ""],
          [["times for 0, 10, 50, 100", " / ".join(f(t, 1) for t in ts), "grow with the counterflow", ok(grows)]])
    results["counterflow"] = {"times": T, "pass": not [p for p in problems if p.startswith("counterflow")]}


def exit_choice(r):
    import csv
    out = r.run("exit-choice.yaml", "exit-choice")
    dr, s = drained(out)
    check(dr, "exit_choice: everyone out (remaining %d)" % s["remaining"])
    ev = list(csv.DictReader(open(os.path.join(out, "evacuated.csv"))))
    last = {e: max([float(q["time"]) for q in ev if q["exit"] == e] or [float("nan")]) for e in ("west", "east")}
    n = {e: sum(1 for q in ev if q["exit"] == e) for e in ("west", "east")}
    tw, te = last["west"], last["east"]
    gap = abs(tw - te) / max(tw, te) if not (math.isnan(tw) or math.isnan(te)) else float("nan")
    hi = CRITERIA["exit_balance"]
    good = check(not math.isnan(gap) and gap <= hi, "exit_choice: last out west %s s, east %s s: %s apart (at most %g)"
                 % (f(tw, 1), f(te, 1), f(gap), hi))
    table("Exit choice: %d agents nearer the west of two %g m doors" % (G.EC_N, G.EC_DOOR),
          ["door", "agents", "last out [s]", "criterion", ""],
          [["west (near)", n["west"], f(tw, 1), "", ""], ["east (far)", n["east"], f(te, 1), "", ""],
           ["|difference| / later", "", f(gap), "<= %g" % hi, ok(good)]])
    results["exit_choice"] = {"agents": n, "last_out": last, "gap": gap,
                              "pass": not [p for p in problems if p.startswith("exit_choice")]}


CASES = [rimea01, rimea02, rimea03, rimea04_fd, rimea05, rimea06, rimea07, rimea08, rimea09, rimea10, rimea12, rimea13,
         rimea14, rimea15, imo_door,
         bottleneck_scan, merge, counterflow, exit_choice]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("throng")
    ap.add_argument("case", choices=[c.__name__ for c in CASES] + ["all"])
    ap.add_argument("--full", action="store_true", help="full sizes instead of the CI sizes")
    ap.add_argument("--json", help="write the measurements and verdicts to this JSON file")
    ap.add_argument("--keep", help="keep the run outputs in this directory")
    ap.add_argument("--set", action="append", metavar="KEY=VALUE",
                    help="a scenario override for every run (throng run --set), e.g. to calibrate a parameter "
                    "(scripts/validation/calibrate.py)")
    a = ap.parse_args()
    cases = CASES if a.case == "all" else [c for c in CASES if c.__name__ == a.case]
    with tempfile.TemporaryDirectory(prefix="throng-validation-") as tmp:
        r = Runner(a, tmp)
        for c in cases:
            c(r)
    results["criteria"] = CRITERIA
    results["problems"] = problems
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(results, fh, indent=1, default=lambda o: o.item() if hasattr(o, "item") else str(o))
    print()
    for p in problems:
        print("FAIL: " + p)
    print("FAIL (%d)" % len(problems) if problems else "PASS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
