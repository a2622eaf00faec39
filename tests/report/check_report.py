#!/usr/bin/env python3
"""`throng report` on synthetic output directories (tests/report/report_tests.cmake).

Usage: check_report.py THRONG CASE
       check_report.py --write DIR        only write the synthetic directory (to look at it)

Cases:
  full        every output file (3 exits, 200 agents, a walkable area with a hole):
              every figure is a valid PNG of reasonable size, index.html shows each;
              --out DIR writes the report there instead; no formation figure (no
              formations.csv), and the page does not ask for formations.csv
  formations_synthetic
              the same run with a formations.csv of its two groups (CSV trajectories
              with a group column, the floor plan): formations.png and
              formation_snapshots.png as well; then 12 formations, none broken
              (thin lines and their mean, no legend of groups)
  formations  a real run of formations (data/formations-crossing.yaml, two groups
              that break while they cross and recover, about 3 s): exit 0,
              formations.png and formation_snapshots.png over 10 kB, index.html
              shows them and names the moments of the snapshots
  partial     only run.json and metrics.csv: exit 0, agents.png, the page lists what is missing
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
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77
ALL_FIGURES = ["agents.png", "exits.png", "areas.png", "lines.png", "density.png", "speed.png", "snapshot.png",
               "travel.png"]
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


def write_outputs(d):
    """Every output file of a finished evacuation run into d."""
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
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump(run, f, indent=2)

    nx, ny = int(WORLD[1][0] / CELL), int(WORLD[1][1] / CELL)
    dens = [[0.0] * nx for _ in range(ny)]
    speed_sum = [[0.0] * nx for _ in range(ny)]
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
        for a, s in live:
            (x, y), v = s
            i, j = min(nx - 1, max(0, int(x / CELL))), min(ny - 1, max(0, int(y / CELL)))
            dens[j][i] += 1.0
            speed_sum[j][i] += math.hypot(*v)
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


def case_full(throng, tmp):
    d = os.path.join(tmp, "full")
    summary = write_outputs(d)
    p = run(throng, d)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}, expected 0")
    text = check_page(os.path.join(d, "report"), ALL_FIGURES,
                      must_contain=["synthetic-hall", *EXITS, str(summary["exits"]["east gate"])],
                      must_not_reference=FORMATION_FIGURES)
    if "every input was there" not in text:
        fail("the page lists missing inputs although every file is there")
    if "formations.csv" in text:
        fail("the page mentions formations.csv, which only runs with formations write")
    other = os.path.join(tmp, "elsewhere")
    p = run(throng, d, "--out", other)
    if p.returncode != 0:
        fail(f"--out: exit status {p.returncode}, expected 0")
    check_page(other, ALL_FIGURES)


def case_formations_synthetic(throng, tmp):
    d = os.path.join(tmp, "formations")
    write_outputs(d)
    write_formations(d)
    p = run(throng, d)
    if p.returncode != 0:
        fail(f"exit status {p.returncode}, expected 0")
    if "Traceback" in p.stderr:
        fail("a Python traceback on stderr")
    text = check_page(os.path.join(d, "report"), ALL_FIGURES + FORMATION_FIGURES,
                      must_contain=["most broken", "last broken", "group 0", "group 1"], least=10000)
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
                             "maps/density.csv", "maps/speed.csv", "areas.csv", "lines.csv"],
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
         "formations_synthetic": case_formations_synthetic, "formations": case_formations}


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
