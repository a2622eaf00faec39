#!/usr/bin/env python3
"""`throng report` on synthetic output directories (tests/report/report_tests.cmake).

Usage: check_report.py THRONG CASE
       check_report.py --write DIR        only write the synthetic directory (to look at it)

Cases:
  full        every output file (3 exits, 200 agents, a walkable area with a hole, the
              five maps, a density threshold of 1.5 in run.json): every figure is a
              valid PNG of reasonable size, index.html shows each; no formation figure
              (no formations.csv), and the page does not ask for formations.csv; no
              absolute path on the page. exit_table.csv against the test's own
              numbers: width the exit's longest edge, flow (n - 1) / (last - first),
              congestion the longest time_above of the cells whose centre lies within
              3 m of the exit (hand-set cells at 2.9, 3.14 and 3.9 m); the level of
              service table (cells and shares of A to F, the bounds set by hand)
              and its shares adding up to 100 %; the last cell cleared; the snapshot
              at the frame with the most agents within 10 m of the busiest exit, not
              the frame after the last step packed at it. Then --out DIR, without
              time_above.csv and with every release 0: those two figures are listed
              as not drawn, with the reason
  many_exits  a stadium's plan (the 28 exits of configs/evacuation/stadium/, 8 areas
              and 11 lines at the edges): with THRONG_REPORT_LAYOUT, layout.json shows
              every exit, area and line labelled on each map and no two labels
              overlapping (nor on the snapshot, whose zoom is 30-40 m across), no two
              curves of a panel in one colour, the 8 busiest exits and a band in
              exits.png, and the legends outside the axes
  formations_synthetic
              the same run with a formations.csv of its two groups (CSV trajectories
              with a group column, the floor plan): formations.png and
              formation_snapshots.png as well; run.json without a density threshold:
              the page says the default 2 is assumed; then 12 formations, none broken
              (thin lines and their mean, no legend of groups)
  formations  a real run of formations (data/formations-crossing.yaml, two groups
              that break while they cross and recover, about 3 s): exit 0,
              formations.png and formation_snapshots.png over 10 kB, index.html
              shows them and names the moments of the snapshots
  partial     only run.json and metrics.csv: exit 0, agents.png, the page lists what is
              missing, and the newer maps' figures as not drawn
  edge        nobody left (evacuated.csv without rows, null times), one metrics row,
              an empty last trajectory frame: exit 0 and a page
  not_output  a directory without run.json, and one that does not exist: exit 2 and a message

The cases that draw skip (exit 77) when no python3 that `throng report` would
use can import matplotlib. The formations case writes CSV trajectories when
that python3 lacks h5py (python3-h5py), so that the snapshots are drawn.
Standard library only: the numbers are made up but consistent (counts, times
and maps agree with each other).
"""
import bisect
import csv
import html
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77
ALL_FIGURES = ["agents.png", "exits.png", "areas.png", "lines.png", "density.png", "speed.png", "density_max.png",
               "los.png", "time_above.png", "rset.png", "snapshot.png", "travel.png", "premovement.png"]
DEFAULT_THRESHOLD = 2.0  # measurement.maps.threshold [1/m²] when run.json does not give it
LOS_BOUNDS = (0.31, 0.43, 0.72, 1.08, 2.17)  # Fruin's walkways: the upper bounds of A to E
FORMATION_FIGURES = ["formations.png", "formation_snapshots.png"]
FORMATIONS_SCENARIO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "formations-crossing.yaml")

# ---- the synthetic run ----------------------------------------------------------------------------
# A 40 m x 24 m hall with a 6 m x 6 m pillar block (a hole in the walkable area),
# three exits, two obstacles, two measurement areas and one measurement line.
WORLD = ((0.0, 0.0), (40.0, 24.0))
HOLE = [(17.0, 9.0), (17.0, 15.0), (23.0, 15.0), (23.0, 9.0)]
EXITS = {
    "west door": [(0.0, 10.0), (0.6, 10.0), (0.6, 13.0), (0.0, 13.0)],
    "north door": [(8.0, 23.4), (11.0, 23.4), (11.0, 24.0), (8.0, 24.0)],
    "east gate": [(39.4, 3.0), (40.0, 3.0), (40.0, 8.0), (39.4, 8.0)],
}
EXIT_CAPACITY = {"west door": 1.6, "north door": 1.6, "east gate": 2.4}  # agents per second
OBSTACLES = [[(30.0, 14.0), (30.0, 20.0)], [(5.0, 3.0), (8.0, 3.0), (8.0, 5.0), (5.0, 5.0), (5.0, 3.0)]]
AREAS = {"hall centre": [(11.0, 14.0), (15.0, 14.0), (15.0, 18.0), (11.0, 18.0)],
         "east queue": [(35.0, 2.0), (39.4, 2.0), (39.4, 9.0), (35.0, 9.0)]}
LINES = {"west line": [(4.0, 7.0), (4.0, 16.0)]}
N_AGENTS = 200
DT = 0.05            # time step [s]
METRICS_DT = 0.5     # metrics every 10 steps
FRAME_DT = 10.0      # trajectory frames every 200 steps
CELL = 1.0


def inside(p, poly):
    x, y = p
    c = False
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            c = not c
    return c


def centre(poly):
    return (sum(p[0] for p in poly) / len(poly), sum(p[1] for p in poly) / len(poly))


def make_agents(seed=7):
    rng = random.Random(seed)
    agents = []
    while len(agents) < N_AGENTS:
        p = (rng.uniform(1.5, 38.5), rng.uniform(1.5, 22.5))
        if inside(p, HOLE) or inside(p, OBSTACLES[1][:-1]) or abs(p[0] - 30.0) < 0.6 and 13.5 < p[1] < 20.5:
            continue
        if any(math.dist(p, a["start"]) < 0.6 for a in agents):
            continue
        name = min(EXITS, key=lambda e: math.dist(p, centre(EXITS[e])))
        target = centre(EXITS[name])
        # stop just inside the exit, queue there
        agents.append({"id": len(agents), "start": p, "exit": name, "target": target,
                       "speed": max(0.7, rng.gauss(1.3, 0.2)), "release": rng.uniform(0.0, 8.0),
                       "radius": round(rng.uniform(0.2, 0.26), 3), "group": 0 if p[0] < 20 else 1})
    for a in agents:
        a["walk"] = math.dist(a["start"], a["target"])
        a["arrive"] = a["release"] + a["walk"] / a["speed"]
    for name in EXITS:  # each exit lets one agent out every 1/capacity seconds
        free = 0.0
        users = sorted((a for a in agents if a["exit"] == name), key=lambda a: (a["arrive"], a["id"]))
        for a in users:
            a["out"] = round(max(a["arrive"], free), 2)
            free = a["out"] + 1.0 / EXIT_CAPACITY[name]
        outs = sorted(a["out"] for a in users)
        for a in users:
            a["queue"] = outs
            a["side"] = rng.uniform(-1.0, 1.0)
    return agents


def state(a, t):
    """(position, velocity) at time t, or None once the agent has left. Agents
    walk straight to their exit and wait in a half disc in front of it (about
    2 agents per m²) whose radius shrinks as the agents ahead leave."""
    if t >= a["out"]:
        return None
    (x0, y0), (x1, y1) = a["start"], a["target"]
    d = max(a["walk"], 1e-9)
    ux, uy = (x1 - x0) / d, (y1 - y0) / d
    if t < a["release"]:
        return (x0, y0), (0.0, 0.0)
    outs = a["queue"]
    ahead = bisect.bisect_left(outs, a["out"]) - bisect.bisect_right(outs, t)
    wait = 0.4 + math.sqrt(ahead / math.pi)
    left = a["walk"] - (t - a["release"]) * a["speed"]
    if left > wait:
        return (x1 - ux * left, y1 - uy * left), (ux * a["speed"], uy * a["speed"])
    side = a["side"] * 0.6 * wait
    return (x1 - ux * wait - uy * side, y1 - uy * wait + ux * side), (0.1 * ux, 0.1 * uy)


def write_csv(path, header, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def g(v):
    return "nan" if isinstance(v, float) and math.isnan(v) else f"{v:.6g}"


def write_map(d, name, grid, x0=0.0, y0=0.0, cell=CELL):
    """maps/NAME.csv: the header, then the rows of grid[j][i] (None: nan), lowest row first."""
    os.makedirs(os.path.join(d, "maps"), exist_ok=True)
    with open(os.path.join(d, "maps", f"{name}.csv"), "w") as f:
        f.write(f"# x0,y0,cell,nx,ny\n{x0:g},{y0:g},{cell:g},{len(grid[0])},{len(grid)}\n")
        for row in grid:
            f.write(",".join("nan" if v is None else g(v) for v in row) + "\n")


def read_map(path):
    """(grid with None for nan, x0, y0, cell) of a maps/*.csv file."""
    with open(path) as f:
        lines = [ln.strip() for ln in f if ln.strip()]
    x0, y0, cell, _, _ = (float(v) for v in lines[1].split(","))
    grid = [[None if v == "nan" else float(v) for v in ln.split(",")] for ln in lines[2:]]
    return grid, x0, y0, cell


def distance_to_shape(p, pts):
    """Euclidean distance of p to a polygon (0 inside) or a segment (two points)."""
    if len(pts) >= 3 and inside(p, pts):
        return 0.0
    ring = list(zip(pts, pts[1:] + pts[:1])) if len(pts) >= 3 else [tuple(pts)]
    best = math.inf
    for (ax, ay), (bx, by) in ring:
        vx, vy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((p[0] - ax) * vx + (p[1] - ay) * vy) / (vx * vx + vy * vy)))
        best = min(best, math.hypot(p[0] - ax - t * vx, p[1] - ay - t * vy))
    return best


# Cells of the hall's time_above map set by hand around the west door (x 0-0.6, y 10-13): the
# centre (3.5, 11.5) lies 2.9 m from it and counts for its congestion; (4.5, 11.5), 3.9 m away,
# and (2.5, 15.5), 3.14 m away (but within 3 m in x and in y), do not.
QUEUE_CELLS = {(3, 11): 123.0, (4, 11): 999.0, (2, 15): 777.0}
# Cells of the density_max map set by hand inside the pillar block (where no agent goes), at
# and beside the bounds of Fruin's levels: A, B, C, E, F, F
LOS_CELLS = {(18, 10): 0.31, (19, 10): 0.43, (20, 10): 0.5, (21, 10): 2.17, (18, 11): 2.1701, (19, 11): 3.0}


def write_outputs(d, threshold=1.5):
    """Every output file of a finished evacuation run into d (the maps with a
    density threshold of `threshold` 1/m², None: run.json does not give it)."""
    agents = make_agents()
    names = list(EXITS)
    t_end = max(a["out"] for a in agents) + 1.0
    n_rows = int(math.ceil(t_end / METRICS_DT)) + 1
    times = [round(k * METRICS_DT, 6) for k in range(n_rows)]
    steps = [int(round(t / DT)) for t in times]
    run = {"throng_version": "0.1.0", "complete": True, "state": "complete", "scenario": "synthetic-hall",
           "scenario_file": "tests/report/synthetic-hall.yaml", "seed": 7, "agents": N_AGENTS, "ranks": 1,
           "backend": "cpu", "parameters": {"dt": DT}, "steps": steps[-1], "last_step": steps[-1],
           "wall_seconds": 1.25, "agent_steps_per_second": 2.4e5}
    if threshold is not None:
        run["measurement"] = {"maps": {"cell": CELL, "every": int(round(METRICS_DT / DT)), "threshold": threshold}}
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump(run, f, indent=2)

    nx, ny = int(WORLD[1][0] / CELL), int(WORLD[1][1] / CELL)
    dens = [[0.0] * nx for _ in range(ny)]
    speed_sum = [[0.0] * nx for _ in range(ny)]
    # the per sample extremes: the most agents in one sample, the time at or above the threshold,
    # the last time with an agent
    peak = [[0] * nx for _ in range(ny)]
    above = [[0.0] * nx for _ in range(ny)]
    last = [[None] * nx for _ in range(ny)]
    metrics, exits_rows, area_rows, line_rows = [], [], [], []
    crossed = set()
    prev_x = {a["id"]: a["start"][0] for a in agents}
    crossings_prev, t_prev = 0, 0.0
    for step, t in zip(steps, times):
        live = [(a, state(a, t)) for a in agents]
        live = [(a, s) for a, s in live if s]
        sp = [math.hypot(*s[1]) for _, s in live]
        metrics.append([step, f"{t:.6f}", len(live), N_AGENTS - len(live), g(sum(sp) / len(sp) if sp else 0.0),
                        0, 0, 0, 0, 0])
        exits_rows.append([step, f"{t:.6f}"] + [sum(1 for a in agents if a["exit"] == n and a["out"] <= t)
                                                for n in names])
        for name, poly in AREAS.items():
            ins = [math.hypot(*s[1]) for a, s in live if inside(s[0], poly)]
            area = abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]))) / 2
            area_rows.append([step, f"{t:.6f}", name, len(ins), g(len(ins) / area),
                              g(sum(ins) / len(ins) if ins else math.nan)])
        (lx, ly0), (_, ly1) = LINES["west line"]
        for a, s in live:
            (x, y), _ = s
            if a["id"] not in crossed and (prev_x[a["id"]] - lx) * (x - lx) < 0 and ly0 <= y <= ly1:
                crossed.add(a["id"])
            prev_x[a["id"]] = x
        flow = (len(crossed) - crossings_prev) / (t - t_prev) if t > t_prev else 0.0
        line_rows.append([step, f"{t:.6f}", "west line", len(crossed), g(flow)])
        crossings_prev, t_prev = len(crossed), t
        now = {}
        for a, s in live:
            (x, y), v = s
            i, j = min(nx - 1, max(0, int(x / CELL))), min(ny - 1, max(0, int(y / CELL)))
            dens[j][i] += 1.0
            speed_sum[j][i] += math.hypot(*v)
            now[i, j] = now.get((i, j), 0) + 1
        for (i, j), n in now.items():
            peak[j][i] = max(peak[j][i], n)
            if n / (CELL * CELL) >= (DEFAULT_THRESHOLD if threshold is None else threshold):
                above[j][i] += METRICS_DT
            last[j][i] = t
    write_csv(os.path.join(d, "metrics.csv"), ["step", "time", "agents", "at_goal", "mean_speed", "overlap_pairs",
                                               "max_overlap", "max_overlap_ratio", "wall_penetrations",
                                               "max_wall_overlap"], metrics)
    write_csv(os.path.join(d, "exits.csv"), ["step", "time"] + names, exits_rows)
    write_csv(os.path.join(d, "areas.csv"), ["step", "time", "area", "agents", "density", "mean_speed"], area_rows)
    write_csv(os.path.join(d, "lines.csv"), ["step", "time", "line", "crossings", "flow"], line_rows)

    evac = sorted(agents, key=lambda a: (a["out"], a["id"]))
    write_csv(os.path.join(d, "evacuated.csv"),
              ["id", "exit", "time", "release", "born", "travel_time", "distance", "group"],
              [[a["id"], a["exit"], g(a["out"]), g(a["release"]), 0, g(a["out"]), g(a["walk"] + 0.3), a["group"]]
               for a in evac])

    os.makedirs(os.path.join(d, "maps"), exist_ok=True)
    for name in ("density", "speed"):
        with open(os.path.join(d, "maps", f"{name}.csv"), "w") as f:
            f.write(f"# x0,y0,cell,nx,ny\n0,0,{CELL:g},{nx},{ny}\n")
            for j in range(ny):
                vals = []
                for i in range(nx):
                    c = dens[j][i]
                    if name == "density":
                        vals.append(g(c / len(times) / (CELL * CELL)) if c else "nan")
                    else:
                        vals.append(g(speed_sum[j][i] / c) if c else "nan")
                f.write(",".join(vals) + "\n")
    seen = [[dens[j][i] > 0 for i in range(nx)] for j in range(ny)]
    density_max = [[peak[j][i] / (CELL * CELL) if seen[j][i] else None for i in range(nx)] for j in range(ny)]
    for (i, j), v in LOS_CELLS.items():
        density_max[j][i] = v
    write_map(d, "density_max", density_max)
    time_above = [[above[j][i] if seen[j][i] else None for i in range(nx)] for j in range(ny)]
    for (i, j), v in QUEUE_CELLS.items():
        time_above[j][i] = v
    write_map(d, "time_above", time_above)
    write_map(d, "last_occupied", last)

    outer = [(0.0, 0.0), (40.0, 0.0), (40.0, 24.0), (0.0, 24.0)]
    geometry = {"walkable": [[[list(p) for p in outer], [list(p) for p in HOLE]]],
                "obstacles": [[list(p) for p in o] for o in OBSTACLES],
                "exits": {n: [list(p) for p in v] for n, v in EXITS.items()},
                "areas": {n: [list(p) for p in v] for n, v in AREAS.items()},
                "lines": {n: [list(p) for p in v] for n, v in LINES.items()},
                "world": [list(WORLD[0]), list(WORLD[1])]}
    with open(os.path.join(d, "geometry.json"), "w") as f:
        json.dump(geometry, f)

    out_times = sorted(a["out"] for a in agents)
    summary = {"scenario": "synthetic-hall", "agents_initial": N_AGENTS, "agents_added": 0, "evacuated": N_AGENTS,
               "remaining": 0, "evacuation_time": out_times[-1],
               "t95": out_times[math.ceil(0.95 * N_AGENTS) - 1],
               "exits": {n: sum(1 for a in agents if a["exit"] == n) for n in names}, "steps": steps[-1],
               "time": times[-1], "wall_seconds": 1.25, "agent_steps_per_second": 2.4e5}
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)

    frames = []
    frame_every = int(round(FRAME_DT / DT))
    for step, t in zip(steps, times):
        if step % frame_every and step != steps[-1]:
            continue
        rows = []
        for a in agents:
            s = state(a, t)
            if s:
                (x, y), (vx, vy) = s
                rows.append([a["id"], g(x), g(y), g(vx), g(vy), a["radius"], a["group"]])
        name = f"trajectory.{step:08d}.csv"
        write_csv(os.path.join(d, "trajectory", name), ["id", "x", "y", "vx", "vy", "radius", "group"], rows)
        frames.append({"name": name, "time": t})
    with open(os.path.join(d, "trajectory", "trajectory.csv.series"), "w") as f:
        json.dump({"file-series-version": "1.0", "files": frames}, f, indent=1)
    return summary


def write_formations(d, count=2, broken=True):
    """formations.csv beside write_outputs' files: formation k of group k, at the
    centre of the agents of group k % 2 (the groups of the trajectory: agents of
    groups beyond 1 do not exist); with `broken`, up to 30 agents of each break
    between t = 10 s and 30 s."""
    agents = make_agents()
    with open(os.path.join(d, "metrics.csv")) as f:
        steps_times = [(int(r["step"]), float(r["time"])) for r in csv.DictReader(f)]
    rows = []
    where = {}  # the group's position: where its last agents were once all have left
    for step, t in steps_times:
        live = [(a, state(a, t)) for a in agents]
        for k in range(count):
            mine = [s[0] for a, s in live if s and a["group"] == k % 2]
            if mine:
                where[k] = (sum(p[0] for p in mine) / len(mine), sum(p[1] for p in mine) / len(mine))
            x, y = where.get(k, (0.0, 0.0))
            bump = max(0.0, math.sin(math.pi * (t - 10.0 - k) / 20.0)) if 10.0 + k <= t <= 30.0 + k else 0.0
            rows.append([step, f"{t:.6f}", k, k, len(mine), g(0.05 + (1.2 + 0.1 * k) * bump),
                         int(round(30 * bump)) if broken else 0, 1 + int(t // 20), int(not mine), g(x), g(y)])
    write_csv(os.path.join(d, "formations.csv"), ["step", "time", "formation", "group", "agents", "rms_error",
                                                  "broken", "waypoint", "arrived", "x", "y"], rows)


def write_edge(d):
    """One metrics row, nobody out yet, an empty last frame: what an early stop leaves."""
    os.makedirs(os.path.join(d, "trajectory"), exist_ok=True)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump({"scenario": "edge", "state": "interrupted"}, f)
    write_csv(os.path.join(d, "metrics.csv"), ["step", "time", "agents", "at_goal", "mean_speed", "overlap_pairs",
                                               "max_overlap", "max_overlap_ratio", "wall_penetrations",
                                               "max_wall_overlap"], [[0, "0.000000", 3, 0, 0, 0, 0, 0, 0, 0]])
    write_csv(os.path.join(d, "exits.csv"), ["step", "time", "only exit"], [[0, "0.000000", 0]])
    write_csv(os.path.join(d, "evacuated.csv"),
              ["id", "exit", "time", "release", "born", "travel_time", "distance", "group"], [])
    write_csv(os.path.join(d, "areas.csv"), ["step", "time", "area", "agents", "density", "mean_speed"],
              [[0, "0.000000", "a", 0, 0, "nan"]])
    write_csv(os.path.join(d, "lines.csv"), ["step", "time", "line", "crossings", "flow"], [])
    os.makedirs(os.path.join(d, "maps"), exist_ok=True)
    for name in ("density", "speed"):  # nothing measured yet: every cell empty
        with open(os.path.join(d, "maps", f"{name}.csv"), "w") as f:
            f.write("# x0,y0,cell,nx,ny\n0,0,1,3,2\nnan,nan,nan\nnan,nan,nan\n")
    with open(os.path.join(d, "geometry.json"), "w") as f:
        json.dump({"walkable": [[[[0, 0], [3, 0], [3, 2], [0, 2]]]], "exits": {"only exit": [[3, 0.5], [3, 1.5]]}},
                  f)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump({"scenario": "edge", "agents_initial": 3, "agents_added": 0, "evacuated": 0, "remaining": 3,
                   "evacuation_time": None, "t95": None, "exits": {"only exit": 0}, "steps": 0, "time": 0.0,
                   "wall_seconds": 0.0, "agent_steps_per_second": 0.0}, f)
    write_csv(os.path.join(d, "trajectory", "trajectory.00000000.csv"),
              ["id", "x", "y", "vx", "vy", "radius", "group"], [])


# ---- a stadium's plan: 28 exits ---------------------------------------------------------------------
# The exits of configs/evacuation/stadium/ (a 290 m x 250 m bowl): those of the east half; the west
# half is the east half turned by 180 degrees. The outline is a superellipse through them.
STADIUM_EAST = [("gate00", (-3, 125), (3, 125)), ("door01", (23.554, 125), (27.554, 125)),
                ("door02", (52.969, 124.818), (56.956, 124.493)), ("door03", (99.634, 109.666), (102.963, 107.45)),
                ("tunnel0", (113.551, 98.937), (117.828, 94.73)), ("door04", (133.106, 73.795), (134.944, 70.242)),
                ("door05", (144.998, 27.554), (145, 23.554)), ("gate06", (145, 3), (145, -3)),
                ("door07", (145, -23.554), (144.998, -27.554)), ("door08", (134.944, -70.242), (133.106, -73.795)),
                ("door09", (102.963, -107.45), (99.634, -109.666)),
                ("tunnel1", (87.696, -116.151), (82.165, -118.474)),
                ("door10", (56.956, -124.493), (52.969, -124.818)), ("door11", (27.554, -125), (23.554, -125))]
STADIUM_WEST = ["gate12", "door13", "door14", "door15", "tunnel2", "door16", "door17", "gate18", "door19", "door20",
                "door21", "tunnel3", "door22", "door23"]
STADIUM_AREAS = ["gate00", "door03", "tunnel0", "gate06"]  # before_NAME: 5 m x 4 m inside the exit
STADIUM_LINES = ["gate00", "door03", "tunnel0", "gate06", "door09", "gate12", "gate18"]  # at_NAME: 1 m inside
STADIUM_CELL = 2.0


def stadium_exits():
    """{name: door strip, 0.5 m deep on the inside of the segment} of the 28 exits."""
    segs = [(n, a, b) for n, a, b in STADIUM_EAST]
    segs += [(w, (-a[0], -a[1]), (-b[0], -b[1])) for w, (_, a, b) in zip(STADIUM_WEST, STADIUM_EAST)]
    out = {}
    for name, a, b in segs:
        m = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        n = math.hypot(*m)
        ix, iy = -0.5 * m[0] / n, -0.5 * m[1] / n  # towards the middle
        out[name] = [a, b, (b[0] + ix, b[1] + iy), (a[0] + ix, a[1] + iy)]
    return out


def inward(p, metres):
    n = math.hypot(*p)
    return p[0] * (1 - metres / n), p[1] * (1 - metres / n)


def write_stadium(d):
    """A stadium-sized run: 28 exits, 8 measurement areas and 11 lines crowded at the plan's
    edges as in the stadium study, 1,400 agents, every map, CSV trajectories."""
    exits = stadium_exits()
    rng = random.Random(11)
    outline = [(145 * math.copysign(abs(math.cos(a)) ** (2 / 3), math.cos(a)),
                125 * math.copysign(abs(math.sin(a)) ** (2 / 3), math.sin(a)))
               for a in (2 * math.pi * k / 96 for k in range(96))]
    pitch = [(-50, -30), (50, -30), (50, 30), (-50, 30)]
    areas = {}
    for name in STADIUM_AREAS:
        c = inward(centre(exits[name]), 3.0)
        areas[f"before_{name}"] = [(c[0] - 2.5, c[1] - 2), (c[0] + 2.5, c[1] - 2), (c[0] + 2.5, c[1] + 2),
                                   (c[0] - 2.5, c[1] + 2)]
    for name, angle in (("vomitory01", 80), ("vomitory08", -15), ("vomitory16", -95)):
        c = (118 * math.cos(math.radians(angle)), 102 * math.sin(math.radians(angle)))
        areas[f"{name}_mouth"] = [(c[0] - 2, c[1] - 2), (c[0] + 2, c[1] - 2), (c[0] + 2, c[1] + 2),
                                  (c[0] - 2, c[1] + 2)]
    areas["front_of_stage"] = [(-40, -3), (-34, -3), (-34, 3), (-40, 3)]
    lines = {}
    for name in STADIUM_LINES:
        a, b = exits[name][0], exits[name][1]
        lines[f"at_{name}"] = [inward(a, 1.0), inward(b, 1.0)]
    for name, angle in (("vomitory01", 80), ("vomitory08", -15), ("vomitory16", -95), ("tunnel04", 40)):
        c = (112 * math.cos(math.radians(angle)), 97 * math.sin(math.radians(angle)))
        t = (-math.sin(math.radians(angle)), math.cos(math.radians(angle)))
        lines[name] = [(c[0] - 2 * t[0], c[1] - 2 * t[1]), (c[0] + 2 * t[0], c[1] + 2 * t[1])]
    # agents between the pitch and the outline, each to its nearest exit, 1.3 per metre and second
    agents = []
    while len(agents) < 1400:
        p = (rng.uniform(-140, 140), rng.uniform(-120, 120))
        if not inside(p, outline) or inside(p, pitch):
            continue
        name = min(exits, key=lambda e: math.dist(p, centre(exits[e])))
        agents.append({"id": len(agents), "start": p, "exit": name, "target": inward(centre(exits[name]), 0.8),
                       "speed": rng.uniform(1.0, 1.5), "release": rng.uniform(0, 30),
                       "radius": 0.22})
    for name in exits:
        width = math.dist(exits[name][0], exits[name][1])
        free = 0.0
        for a in sorted((a for a in agents if a["exit"] == name),
                        key=lambda a: a["release"] + math.dist(a["start"], a["target"]) / a["speed"]):
            arrive = a["release"] + math.dist(a["start"], a["target"]) / a["speed"]
            a["out"] = round(max(arrive, free), 2)
            free = a["out"] + 1 / (1.3 * width)

    def where(a, t):
        if t >= a["out"]:
            return None
        (x0, y0), (x1, y1) = a["start"], a["target"]
        d = math.dist(a["start"], a["target"])
        s = min(d, max(0.0, t - a["release"]) * a["speed"])
        wait = 0.4 * math.sqrt(max(0.0, a["out"] - t))  # the queue: further back, the longer the wait
        s = min(s, max(0.0, d - wait))
        return (x0 + (x1 - x0) * s / d, y0 + (y1 - y0) * s / d)

    t_end = max(a["out"] for a in agents) + 1.0
    times = [float(k) for k in range(int(t_end) + 2)]
    steps = [int(k * 48) for k in range(len(times))]
    names = list(exits)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump({"scenario": "stadium-synthetic", "state": "complete", "last_step": steps[-1], "agents": 1400,
                   "measurement": {"maps": {"cell": STADIUM_CELL, "every": 96, "threshold": 2.0}}}, f)
    summary = {"scenario": "stadium-synthetic", "agents_initial": 1400, "agents_added": 0, "evacuated": 1400,
               "remaining": 0, "evacuation_time": max(a["out"] for a in agents),
               "exits": {n: sum(1 for a in agents if a["exit"] == n) for n in names}, "steps": steps[-1],
               "time": times[-1]}
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summary, f)
    with open(os.path.join(d, "geometry.json"), "w") as f:
        json.dump({"world": [[-146, -126], [146, 126]], "walkable": [[outline, pitch[::-1]]], "obstacles": [],
                   "exits": exits, "areas": areas, "lines": lines}, f)
    write_csv(os.path.join(d, "metrics.csv"), ["step", "time", "agents", "at_goal", "mean_speed", "overlap_pairs",
                                               "max_overlap", "max_overlap_ratio", "wall_penetrations",
                                               "max_wall_overlap"],
              [[s, t, sum(1 for a in agents if a["out"] > t), 0, 1.0, 0, 0, 0, 0, 0] for s, t in zip(steps, times)])
    write_csv(os.path.join(d, "exits.csv"), ["step", "time"] + names,
              [[s, t] + [sum(1 for a in agents if a["exit"] == n and a["out"] <= t) for n in names]
               for s, t in zip(steps, times)])
    write_csv(os.path.join(d, "evacuated.csv"),
              ["id", "exit", "time", "release", "born", "travel_time", "distance", "group"],
              [[a["id"], a["exit"], g(a["out"]), g(a["release"]), 0, g(a["out"]),
                g(math.dist(a["start"], a["target"])), 0] for a in sorted(agents, key=lambda a: a["out"])])
    write_csv(os.path.join(d, "lines.csv"), ["step", "time", "line", "crossings", "flow"],
              [[s, t, n, int(t * (k + 1)) // 4, (k + 1) / 4] for s, t in zip(steps, times)
               for k, n in enumerate(lines)])
    write_csv(os.path.join(d, "areas.csv"), ["step", "time", "area", "agents", "density", "mean_speed"],
              [[s, t, n, 1, g(0.1 * (k + 1) * math.exp(-t / 60)), 1.0] for s, t in zip(steps, times)
               for k, n in enumerate(areas)])
    nx, ny = int(292 / STADIUM_CELL), int(252 / STADIUM_CELL)
    count = [[0] * nx for _ in range(ny)]
    peak = [[0] * nx for _ in range(ny)]
    above = [[0.0] * nx for _ in range(ny)]
    last = [[None] * nx for _ in range(ny)]
    frames = []
    for step, t in zip(steps, times):
        if step % 96:  # a map sample every 2 s
            continue
        now = {}
        rows = []
        for a in agents:
            p = where(a, t)
            if p is None:
                continue
            k = (int((p[0] + 146) / STADIUM_CELL), int((p[1] + 126) / STADIUM_CELL))
            now[k] = now.get(k, 0) + 1
            rows.append([a["id"], g(p[0]), g(p[1]), 1.0, 0.0, a["radius"], 0])
        for (i, j), n in now.items():
            count[j][i] += n
            peak[j][i] = max(peak[j][i], n)
            above[j][i] += 2.0 if n / STADIUM_CELL ** 2 >= 2.0 else 0.0
            last[j][i] = t
        if step % 480 == 0:  # a frame every 10 s
            name = f"trajectory.{step:08d}.csv"
            write_csv(os.path.join(d, "trajectory", name), ["id", "x", "y", "vx", "vy", "radius", "group"], rows)
            frames.append({"name": name, "time": t})
    with open(os.path.join(d, "trajectory", "trajectory.csv.series"), "w") as f:
        json.dump({"file-series-version": "1.0", "files": frames}, f)
    samples = len([s for s in steps if s % 96 == 0])
    seen = lambda i, j: count[j][i] > 0  # noqa: E731
    for name, value in (("density", lambda i, j: count[j][i] / samples / STADIUM_CELL ** 2),
                        ("speed", lambda i, j: 1.2), ("density_max", lambda i, j: peak[j][i] / STADIUM_CELL ** 2),
                        ("time_above", lambda i, j: above[j][i]), ("last_occupied", lambda i, j: last[j][i])):
        write_map(d, name, [[value(i, j) if seen(i, j) else None for i in range(nx)] for j in range(ny)],
                  -146, -126, STADIUM_CELL)
    return exits, areas, lines


def boxes_overlap(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.01 and min(a[3], b[3]) - max(a[1], b[1]) > 0.01


def case_many_exits(throng, tmp):
    """A stadium's plan (28 exits, 8 areas, 11 lines at its edges): no two labels of a figure
    overlap, every exit is labelled, no two curves of a panel share a colour, the legends lie
    outside the axes; layout.json (THRONG_REPORT_LAYOUT) says where they were drawn."""
    d = os.path.join(tmp, "stadium")
    exits, areas, lines = write_stadium(d)
    os.environ["THRONG_REPORT_LAYOUT"] = "1"  # `throng report` passes it on to report.py
    p = run(throng, d)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}, expected 0")
    if "Traceback" in p.stderr:
        fail("a Python traceback on stderr")
    report = os.path.join(d, "report")
    text = check_page(report, ALL_FIGURES, must_contain=["stadium-synthetic", "peak of congestion"])
    check_no_absolute_path(text, d, tmp)
    with open(os.path.join(report, "layout.json")) as f:
        layout = json.load(f)
    maps = ["density.png", "speed.png", "density_max.png", "los.png", "time_above.png", "rset.png"]
    for name in maps + ["snapshot.png"]:
        labels = [lab for ax in layout[name] for lab in ax["labels"]]
        whole = [lab for ax in layout[name] if "m across" not in ax["title"] for lab in ax["labels"]]  # not the zoom
        kinds = {k: sorted(lab["text"] for lab in whole if lab["kind"] == k) for k in ("exit", "area", "line")}
        want = {"exit": sorted(exits), "area": sorted(areas) if name != "snapshot.png" else [],
                "line": sorted(lines) if name != "snapshot.png" else []}
        if kinds != want:
            fail(f"{name}: labelled {kinds}, expected {want}")
        for lab in labels:
            w, h = lab["box"][2] - lab["box"][0], lab["box"][3] - lab["box"][1]
            if not (w > 8 and h > 5):
                fail(f"{name}: the label {lab['text']} is {w:.1f} x {h:.1f} px: not drawn")
        for k, a in enumerate(labels):
            for b in labels[k + 1:]:
                if boxes_overlap(a["box"], b["box"]):
                    fail(f"{name}: the labels {a['text']!r} {a['box']} and {b['text']!r} {b['box']} overlap")
        print(f"ok {name}: {len(labels)} labels, none overlapping another")
    zoom = [ax for ax in layout["snapshot.png"] if "m across" in ax["title"]]
    if len(zoom) != 1 or not 30 <= zoom[0]["xlim"][1] - zoom[0]["xlim"][0] <= 40:
        fail(f"snapshot.png has no zoomed panel 30 to 40 m across: {[ax['title'] for ax in layout['snapshot.png']]}")
    for name in ("agents.png", "exits.png", "areas.png", "lines.png"):
        axes = layout[name]
        for ax in axes:
            colours = [c["colour"] for c in ax["curves"]]
            if len(set(colours)) != len(colours):
                fail(f"{name}: curves of one panel share a colour: {ax['curves']}")
            if ax["legend"] and any(boxes_overlap(ax["legend"], other["box"]) for other in axes):
                fail(f"{name}: a legend covers the axes")
        print(f"ok {name}: {max(len(ax['curves']) for ax in axes)} curves in distinct colours, legends outside")
    if len(layout["lines.png"][0]["curves"]) != len(lines):
        fail(f"lines.png draws {len(layout['lines.png'][0]['curves'])} lines, expected {len(lines)}")
    if len(layout["exits.png"][0]["curves"]) != 9:
        fail(f"exits.png: {len(layout['exits.png'][0]['curves'])} curves, expected the 8 busiest exits and the "
             f"band of the others")


# ---- checks ---------------------------------------------------------------------------------------

def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(throng, *args):
    p = subprocess.run([throng, "report", *args], capture_output=True, text=True, timeout=300)
    print(f"$ throng report {' '.join(args)}  -> exit {p.returncode}")
    if p.stdout.strip():
        print(p.stdout.rstrip())
    if p.stderr.strip():
        print(p.stderr.rstrip())
    return p


def check_png(path, name, least=8000):
    if not os.path.isfile(path):
        fail(f"{name} was not written")
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        fail(f"{name} is not a PNG file")
    w, h = struct.unpack(">II", head[16:24])
    size = os.path.getsize(path)
    if not (400 <= w <= 4000 and 250 <= h <= 4000):
        fail(f"{name}: {w} x {h} pixels, expected between 400 x 250 and 4000 x 4000")
    if size < least:
        fail(f"{name}: {size} bytes, too small to hold a figure (expected at least {least})")
    print(f"ok {name}: {w} x {h} px, {size} bytes")


def check_page(report, figures, must_contain=(), must_not_reference=(), least=8000):
    page = os.path.join(report, "index.html")
    if not os.path.isfile(page):
        fail("index.html was not written")
    text = open(page, encoding="utf-8").read()
    if not text.lstrip().lower().startswith("<!doctype html>") or "</html>" not in text:
        fail("index.html is not a whole HTML page")
    for name in figures:
        check_png(os.path.join(report, name), name, least)
        if f'src="{name}"' not in text:
            fail(f"index.html does not show {name}")
    for name in must_not_reference:
        if f'src="{name}"' in text:
            fail(f"index.html shows {name}, which should not have been drawn")
        if os.path.exists(os.path.join(report, name)):
            fail(f"{name} was written, but its inputs are missing")
    for s in must_contain:
        if s not in text:
            fail(f"index.html does not mention {s!r}")
    print(f"ok index.html ({len(text)} characters)")
    return text


def report_python():
    """The python3 that `throng report` would use with matplotlib, or None: it
    runs python3 from PATH, and report.py falls back on /usr/bin/python3."""
    for py in (shutil.which("python3"), "/usr/bin/python3"):
        if py and os.access(py, os.X_OK):
            if subprocess.run([py, "-c", "import matplotlib"], capture_output=True).returncode == 0:
                return py
    return None


def matplotlib_usable():
    return report_python() is not None


def table_rows(text, cls):
    """The rows of index.html's <table class="cls">, each a list of its cells' text."""
    m = re.search(rf'<table class="{cls}">(.*?)</table>', text, re.S)
    if not m:
        fail(f"index.html has no table of class {cls}")
    rows = []
    for tr in re.findall(r"<tr>(.*?)</tr>", m.group(1), re.S):
        rows.append([html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                     for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", tr, re.S)])
    return rows


def write_leavers_frame(d, summary):
    """A CSV frame after the run's last step (as trajectory.h5 holds the last
    leavers in frames of their own) with 150 agents packed at the busiest exit:
    the snapshot must not take it for the peak of congestion."""
    with open(os.path.join(d, "run.json")) as f:
        last = json.load(f)["last_step"]
    step = last + int(round(FRAME_DT / DT))
    busiest = max(summary["exits"].items(), key=lambda kv: kv[1])[0]
    cx, cy = centre(EXITS[busiest])
    rows = [[1000 + k, g(cx + 0.5 * math.cos(k)), g(cy + 0.5 * math.sin(k)), 0, 0, 0.2, 0] for k in range(150)]
    name = f"trajectory.{step:08d}.csv"
    write_csv(os.path.join(d, "trajectory", name), ["id", "x", "y", "vx", "vy", "radius", "group"], rows)
    series = os.path.join(d, "trajectory", "trajectory.csv.series")
    with open(series) as f:
        s = json.load(f)
    s["files"].append({"name": name, "time": step * DT})
    with open(series, "w") as f:
        json.dump(s, f, indent=1)


def check_no_absolute_path(text, d, tmp):
    for where in {tmp, os.path.realpath(tmp)}:
        if where in text:
            fail(f"index.html shows the absolute path {where}")
    if f"<code>{os.path.basename(d)}</code>" not in text:
        fail("index.html does not name the output directory by its base name")
    print("ok: no absolute path on the page")


def check_exit_table(d, report, text):
    """exit_table.csv against evacuated.csv and the time_above map: width from the exit's shape
    (its longest edge: the run gives none), flow (n - 1) / (last - first), congestion the
    longest time_above of the cells whose centre lies within 3 m of the exit."""
    with open(os.path.join(d, "evacuated.csv")) as f:
        evac = list(csv.DictReader(f))
    with open(os.path.join(report, "exit_table.csv")) as f:
        table = {r["exit"]: r for r in csv.DictReader(f)}
    grid, x0, y0, cell = read_map(os.path.join(d, "maps", "time_above.csv"))
    for name, pts in EXITS.items():
        row = table.get(name)
        if row is None:
            fail(f"exit_table.csv has no row of {name}")
        t = sorted(float(r["time"]) for r in evac if r["exit"] == name)
        width = max(math.dist(a, b) for a, b in zip(pts, pts[1:] + pts[:1]))
        flow = (len(t) - 1) / (t[-1] - t[0])
        near = [v for j, line in enumerate(grid) for i, v in enumerate(line)
                if distance_to_shape((x0 + (i + 0.5) * cell, y0 + (j + 0.5) * cell), pts) <= 3.0]
        congested = max((v for v in near if v is not None), default=0.0)
        for key, want in (("people", len(t)), ("width", width), ("first", t[0]), ("last", t[-1]), ("flow", flow),
                          ("congested", congested)):
            got = float(row[key]) if row[key] else math.nan
            if not abs(got - want) <= 1e-4 * max(1.0, abs(want)):
                fail(f"exit_table.csv, {name}: {key} {row[key]}, expected {want:.4f}")
        print(f"ok {name}: width {width:g} m, flow {flow:.4f} p/s over {len(t)} people, congested {congested:g} s")
        if name == "west door" and congested != QUEUE_CELLS[(3, 11)]:
            fail(f"the test's own west door congestion is {congested}, expected the hand-set 123 s")
    rows = table_rows(text, "exits")
    if "congested [s]" not in rows[0] or "†" not in text:
        fail("the page's exit table lacks the congested column or the mark of widths from the shape")
    col = rows[0].index("congested [s]")
    if [float(r[col]) for r in rows[1:] if r[0] == "west door"] != [123.0]:
        fail(f"the page's exit table does not give the west door 123.0 s of congestion: {rows}")


def los_of(v):
    """Fruin's level (0 = A .. 5 = F): each band's upper bound belongs to it."""
    return next((k for k, bound in enumerate(LOS_BOUNDS) if v <= bound), len(LOS_BOUNDS))


def check_los(d, text):
    grid, _, _, _ = read_map(os.path.join(d, "maps", "density_max.csv"))
    levels = [los_of(v) for line in grid for v in line if v is not None and v > 0]
    rows = [r for r in table_rows(text, "los") if r[0] in "ABCDEF" and len(r[0]) == 1]
    if [r[0] for r in rows] != list("ABCDEF"):
        fail(f"the level of service table has the rows {[r[0] for r in rows]}, expected A to F")
    total = 0.0
    for k, r in enumerate(rows):
        n = sum(1 for v in levels if v == k)
        share = float(r[4].rstrip(" %"))
        if int(r[2]) != n or abs(share - 100.0 * n / len(levels)) > 0.051:
            fail(f"LOS {r[0]}: {r[2]} cells, {r[4]}; expected {n} cells, {100.0 * n / len(levels):.2f} %")
        total += share
    if abs(total - 100.0) > 0.3:
        fail(f"the shares of the levels of service add up to {total:.1f} %, not 100 %")
    if sum(1 for k in range(6) if k in levels) < 5:
        fail("the test's density_max map should reach at least five levels")
    print(f"ok level of service: {len(levels)} occupied cells, shares add up to {total:.1f} %")


def check_rset(d, text):
    grid, _, _, _ = read_map(os.path.join(d, "maps", "last_occupied.csv"))
    latest = max(v for line in grid for v in line if v is not None)
    if f"the last cell cleared, at {latest:.1f} s" not in text:
        fail(f"rset.png's caption does not name the last cell cleared at {latest:.1f} s")
    print(f"ok rset.png: the last cell cleared at {latest:.1f} s")


def check_peak_snapshot(d, summary, text):
    """The snapshot's frame: the one (of the run's steps) with the most agents within 10 m of the exit
    that let the most out, the earliest of equals."""
    busiest = max(summary["exits"].items(), key=lambda kv: kv[1])[0]
    with open(os.path.join(d, "run.json")) as f:
        last = json.load(f)["last_step"]
    with open(os.path.join(d, "trajectory", "trajectory.csv.series")) as f:
        frames = json.load(f)["files"]
    best = None
    for fr in frames:
        if int(fr["name"].split(".")[1]) > last:
            continue
        with open(os.path.join(d, "trajectory", fr["name"])) as f:
            n = sum(1 for r in csv.DictReader(f)
                    if distance_to_shape((float(r["x"]), float(r["y"])), EXITS[busiest]) <= 10.0)
        if best is None or n > best[0]:
            best = (n, fr["time"])
    want = (f"t = {best[1]:.1f} s, the frame in which the most agents, {best[0]}, were within 10 m of the busiest "
            f"exit, {busiest}")
    if want not in text:
        fail(f"snapshot.png is not of the peak of congestion: the caption lacks {want!r}")
    print(f"ok snapshot.png: {best[0]} agents near {busiest} at t = {best[1]:.1f} s")


def case_full(throng, tmp):
    d = os.path.join(tmp, "full")
    summary = write_outputs(d)
    write_leavers_frame(d, summary)
    p = run(throng, d)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}, expected 0")
    report = os.path.join(d, "report")
    text = check_page(report, ALL_FIGURES,
                      must_contain=["synthetic-hall", *EXITS, str(summary["exits"]["east gate"]), "1.5 persons/m²",
                                    "measurement.maps.threshold in run.json", "within 3 m of the exit",
                                    f"When each of the {N_AGENTS} agents that left started to move"],
                      must_not_reference=FORMATION_FIGURES)
    if "every input was there" not in text:
        fail("the page lists missing inputs although every file is there")
    if "formations.csv" in text:
        fail("the page mentions formations.csv, which only runs with formations write")
    check_no_absolute_path(text, d, tmp)
    check_exit_table(d, report, text)
    check_los(d, text)
    check_rset(d, text)
    check_peak_snapshot(d, summary, text)
    # a run made before the newer maps, without pre-movement: no time_above.png, no histogram
    os.remove(os.path.join(d, "maps", "time_above.csv"))
    with open(os.path.join(d, "evacuated.csv")) as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["release"] = "0"
    write_csv(os.path.join(d, "evacuated.csv"), list(rows[0]), [list(r.values()) for r in rows])
    other = os.path.join(tmp, "elsewhere")
    p = run(throng, d, "--out", other)
    if p.returncode != 0:
        fail(f"--out: exit status {p.returncode}, expected 0")
    text = check_page(other, [f for f in ALL_FIGURES if f not in ("time_above.png", "premovement.png")],
                      must_not_reference=["time_above.png", "premovement.png"],
                      must_contain=["maps/time_above.csv is not in the output directory",
                                    "the run modelled no pre-movement time", "Congested: not known"])
    if "every input was there" not in text:
        fail("a missing newer map is listed as a missing input, not as a figure not drawn")


def case_formations_synthetic(throng, tmp):
    d = os.path.join(tmp, "formations")
    write_outputs(d, threshold=None)  # run.json without measurement.maps.threshold: the default
    write_formations(d)
    p = run(throng, d)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}, expected 0")
    if "Traceback" in p.stderr:
        fail("a Python traceback on stderr")
    text = check_page(os.path.join(d, "report"), ALL_FIGURES + FORMATION_FIGURES,
                      must_contain=["most broken", "last broken", "group 0", "group 1",
                                    "run.json does not give measurement.maps.threshold: the default, 2 persons/m², "
                                    "is assumed", "at or above 2 persons/m²"], least=10000)
    if "every input was there" not in text:
        fail("the page lists missing inputs although every file is there")
    many = os.path.join(tmp, "many")
    write_outputs(many)
    write_formations(many, count=12, broken=False)
    p = run(throng, many)
    if p.returncode != 0:
        fail(f"12 formations: exit status {p.returncode}, expected 0")
    check_page(os.path.join(many, "report"), FORMATION_FIGURES, least=10000,
               must_contain=["each of the 12 formations", "no agent&#x27;s formation was dropped", "a third in"])


def case_formations(throng, tmp):
    d = os.path.join(tmp, "formations")
    have_h5py = subprocess.run([report_python(), "-c", "import h5py"], capture_output=True).returncode == 0
    cmd = [throng, "run", FORMATIONS_SCENARIO, "--out", d, "--quiet",
           "--set", f"output.trajectory_format={'auto' if have_h5py else 'csv'}"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    print(f"$ {' '.join(cmd[1:])}  -> exit {p.returncode}")
    if p.returncode != 0:
        fail(f"the run failed: {p.stderr.strip()}")
    if not os.path.isfile(os.path.join(d, "formations.csv")):
        fail("the run wrote no formations.csv")
    p = run(throng, d)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}, expected 0")
    if "Traceback" in p.stderr:
        fail("a Python traceback on stderr")
    text = check_page(os.path.join(d, "report"), ["agents.png", "snapshot.png"] + FORMATION_FIGURES, least=10000,
                      must_contain=["start (t = 0.0 s)", "most broken (", "last broken (t = ", "end (t = ",
                                    "2 of 2 formations reached the end of their path"])
    for name in FORMATION_FIGURES:
        if f"<strong>{name}</strong>" not in text:
            fail(f"index.html has no caption of {name}")


def case_partial(throng, tmp):
    full = os.path.join(tmp, "full")
    write_outputs(full)
    d = os.path.join(tmp, "partial")
    os.makedirs(d)
    for name in ("run.json", "metrics.csv"):
        shutil.copy(os.path.join(full, name), d)
    p = run(throng, d)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}, expected 0")
    check_page(os.path.join(d, "report"), ["agents.png"],
               must_contain=["synthetic-hall", "summary.json", "exits.csv", "evacuated.csv", "geometry.json",
                             "maps/density.csv", "maps/speed.csv", "areas.csv", "lines.csv",
                             "maps/density_max.csv is not in the output directory",
                             "maps/last_occupied.csv is not in the output directory"],
               must_not_reference=[f for f in ALL_FIGURES if f != "agents.png"])


def case_edge(throng, tmp):
    d = os.path.join(tmp, "edge")
    write_edge(d)
    p = run(throng, d)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}, expected 0")
    if "Traceback" in p.stderr:
        fail("a Python traceback on stderr")
    check_page(os.path.join(d, "report"), ["agents.png"], must_contain=["edge", "only exit"],
               must_not_reference=["travel.png"])


def case_not_output(throng, tmp):
    d = os.path.join(tmp, "not-output")
    os.makedirs(d)
    with open(os.path.join(d, "metrics.csv"), "w") as f:
        f.write("step,time,agents\n0,0,1\n")
    for target, words in ((d, "run.json"), (os.path.join(tmp, "nowhere"), "no such directory")):
        p = run(throng, target)
        if p.returncode != 2:
            fail(f"{target}: exit status {p.returncode}, expected 2")
        if words not in p.stderr:
            fail(f"{target}: the message does not say {words!r}")
    if os.path.exists(os.path.join(d, "report")):
        fail("a report directory was made for a directory that is not a run's")
    p = subprocess.run([throng, "report"], capture_output=True, text=True, timeout=60)
    if p.returncode != 2 or "report" not in p.stderr:
        fail(f"'throng report' without a directory: exit {p.returncode}, expected 2 with a message")
    print("ok: exit 2 with a message")


CASES = {"full": case_full, "partial": case_partial, "edge": case_edge, "not_output": case_not_output,
         "formations_synthetic": case_formations_synthetic, "formations": case_formations,
         "many_exits": case_many_exits}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        write_outputs(sys.argv[2])
        return 0
    if len(sys.argv) != 3 or sys.argv[2] not in CASES:
        print(__doc__)
        return 2
    throng, case = sys.argv[1], sys.argv[2]
    if case != "not_output" and not matplotlib_usable():
        print("SKIP: matplotlib is not importable (apt-get install python3-matplotlib)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix=f"throng-report-{case}-")
    try:
        CASES[case](throng, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
