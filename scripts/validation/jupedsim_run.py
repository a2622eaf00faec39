#!/usr/bin/env python3
"""Run JuPedSim 1.4 on a throng scenario YAML and write throng's output layout.

    jupedsim_run.py SCENARIO.yaml --out DIR [--model collision_free_speed|anticipation_velocity]
                    [--seed N] [--start TRAJ0.csv] [--set KEY=VALUE ...] [--frame-every SECONDS]
                    [--max-time SECONDS] [--exit-margin METRES] [--stall SECONDS] [--overwrite]
                    [--throng PATH]

The second simulator of throng's validation report: the same scenario file,
the same people (throng's per-agent random draws are reproduced: same seed,
same ids, same speeds, radii and pre-movement times; `--start` takes throng's
very start positions too), and the same output files, so that one analysis
measures both. See scripts/validation/README.md for what is supported.

A scenario with `model.preset` (e.g. `model: {preset: pedestrian}`) takes the
preset's defaults for what the runner uses (the agents' radius and speed,
`model.radius_scale` in placement) from throng's own table, the "### Model
presets" section of `throng schema`: the throng executable is --throng PATH, else
$THRONG, else build/bin/throng (in the current directory, then in the repository).

Exit status: 0 done, 1 failed (I/O, JuPedSim error), 2 bad or unsupported input.
"""

import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

PROG = "jupedsim_run.py"
DT = 0.01  # JuPedSim's time step, whatever time.dt says

try:
    import numpy as np
    import shapely
    import yaml
    from shapely.geometry import LineString, Point, Polygon
    from shapely.ops import unary_union
    from shapely.prepared import prep
except ImportError as e:  # pragma: no cover
    sys.exit(f"{PROG}: cannot import {e.name}: create the environment with scripts/validation/setup_venv.sh "
             f"and run this script with .venv-validation/bin/python")

try:
    import jupedsim as jps
except ImportError:  # pragma: no cover
    sys.exit(f"{PROG}: cannot import jupedsim (JuPedSim 1.4 from PyPI): create the environment with "
             f"scripts/validation/setup_venv.sh and run this script with .venv-validation/bin/python")


class InputError(Exception):
    """Bad or unsupported input: exit status 2."""


def unsupported(src, key, why=""):
    raise InputError(f"{PROG}: {src}: {key}: not supported by the JuPedSim runner" + (f" ({why})" if why else ""))


def bad(src, key, what):
    raise InputError(f"{PROG}: {src}: {key}: {what}")


# ---- throng's counter-based random numbers (src/kernels/rng.h) -----------------
# A draw is a pure function of (seed, id, step, stream), so the same seed gives
# the same people here as in throng: speeds, radii, pre-movement, placement.

M64 = (1 << 64) - 1
STREAM_RADIUS, STREAM_MASS, STREAM_SPEED, STREAM_JITTER_X, STREAM_JITTER_Y = 1, 2, 3, 4, 5
STREAM_RANDOM_X, STREAM_RANDOM_Y, STREAM_PREMOVE, STREAM_NORMAL_U = 16, 17, 24, 25
f32 = np.float32


def mix64(z):
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def rng_uniform(seed, ident, step, stream):
    """Uniform in [0, 1) with 24 random bits (exact in float32)."""
    h = mix64(seed ^ mix64((ident + 0x632BE59BD9B4E019) & M64))
    h = mix64(h ^ mix64((step * 0x8CB92BA72F3D8DD7 + stream) & M64))
    return f32((h >> 40) / 16777216.0)


def draw_range(seed, ident, stream, lo, hi):
    lo, hi = f32(lo), f32(hi)
    if not hi > lo:
        return lo
    return f32(lo + f32(f32(hi - lo) * rng_uniform(seed, ident, 0, stream)))


def draw_jitter(seed, ident, stream, amp):
    amp = f32(amp)
    if not amp > 0:
        return f32(0)
    return f32(amp * f32(f32(f32(2) * rng_uniform(seed, ident, 0, stream)) - f32(1)))


def draw_normal(seed, ident, stream, mean, sd, lo, hi):
    """Normal(mean, sd) drawn again until inside [lo, hi] (64 attempts, then clamped)."""
    mean, sd, lo, hi = f32(mean), f32(sd), f32(lo), f32(hi)
    for a in range(64):
        u1 = 1.0 - float(rng_uniform(seed, ident, a, stream))
        u2 = float(rng_uniform(seed, ident, a, stream + 1))
        z = math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)
        v = f32(float(mean) + float(sd) * z)
        if lo <= v <= hi:
            return v
    return lo if mean < lo else (hi if mean > hi else mean)


# ---- the scenario ---------------------------------------------------------------

# The keys the runner uses and their values without a preset (the table's `paper` column,
# which is throng's schema default). A preset's column gives them other defaults.
PRESET_KEYS = {"model.radius_scale": 1.05, "agents[].agent_radius.min": 0.5, "agents[].agent_radius.max": 0.5,
               "agents[].speed.mean": 1.4, "agents[].speed.spread": 0.1}
_PRESET_TABLE = {}

RIMEA = {"under_30": (0.58, 1.61), "30_to_50": (1.41, 1.54), "over_50": (0.68, 1.41), "impaired": (0.46, 0.76)}

# Keys of throng's own model and numerics: they set how throng moves its agents
# and have no meaning for JuPedSim's models, so they are accepted and left out.
THRONG_ONLY = {"solver", "contact", "long_range", "avoidance", "walls", "xsph", "neighbors", "decomposition",
               "routing", "output", "world", "name", "description", "model", "time"}
BLOCK_KEYS = {"name", "layout", "min", "max", "center", "radius", "polygon", "rows", "cols", "spacing", "count",
              "density", "jitter", "speed", "agent_radius", "mass", "group", "premovement", "exit", "goal",
              "journey", "semi_axes"}


def parse_keypath(key):
    """'agents[0].speed.mean' -> ['agents', 0, 'speed', 'mean']."""
    segs = []
    for part in key.split("."):
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)", part.strip())
        if not m:
            return None
        segs.append(m.group(1))
        segs += [int(i) for i in re.findall(r"\[(\d+)\]", m.group(2))]
    return segs


def apply_set(tree, text):
    """throng run --set KEY=VALUE: VALUE parsed as YAML, KEY a dotted path with list indices."""
    if "=" not in text:
        raise InputError(f"{PROG}: --set {text}: expected KEY=VALUE (e.g. --set seed=3)")
    key, value = text.split("=", 1)
    segs = parse_keypath(key.strip())
    if not segs:
        raise InputError(f"{PROG}: --set {text}: bad key '{key}': expected a dotted path such as seed or "
                         f"agents[0].count")
    try:
        val = yaml.safe_load(value) if value.strip() else None
    except yaml.YAMLError as e:
        raise InputError(f"{PROG}: --set {text}: VALUE is not YAML: {e}")
    cur = tree
    for k, nxt in zip(segs, segs[1:] + [None]):
        last = nxt is None
        if isinstance(k, int):
            if not isinstance(cur, list) or k >= len(cur):
                raise InputError(f"{PROG}: --set {text}: index [{k}] past the end of the list or not a list")
            if last:
                cur[k] = val
            else:
                cur = cur[k]
        else:
            if not isinstance(cur, dict):
                raise InputError(f"{PROG}: --set {text}: '{k}' is under a value that is not a map")
            if last:
                cur[k] = val
            else:
                if cur.get(k) is None:
                    if isinstance(nxt, int):
                        raise InputError(f"{PROG}: --set {text}: '{k}' is not a list in the scenario")
                    cur[k] = {}
                cur = cur[k]


def number(src, key, v, lo=None, positive=False):
    if isinstance(v, str) and re.fullmatch(r"\s*[-+]?[\d.]+\s*/\s*[\d.]+\s*", v):  # throng takes 1/48
        a, b = v.split("/")
        v = float(a) / float(b)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        bad(src, key, f"expected a number, got {v!r}")
    v = float(v)
    if positive and not v > 0:
        bad(src, key, f"must be > 0, got {v}")
    if lo is not None and v < lo:
        bad(src, key, f"must be >= {lo}, got {v}")
    return v


def point(src, key, v):
    if not (isinstance(v, list) and len(v) == 2):
        bad(src, key, f"expected a point [x, y], got {v!r}")
    return (number(src, key, v[0]), number(src, key, v[1]))


def points(src, key, v, least):
    if not (isinstance(v, list) and len(v) >= least):
        bad(src, key, f"expected a list of at least {least} points")
    return [point(src, f"{key}[{i}]", p) for i, p in enumerate(v)]


def read_walkable(src, scen, ydir):
    g = scen.get("geometry")
    if g is None:
        w = scen.get("world")
        if not isinstance(w, dict):
            bad(src, "geometry", "a scenario needs geometry.walkable (or world) for JuPedSim")
        (x0, y0), (x1, y1) = point(src, "world.min", w.get("min")), point(src, "world.max", w.get("max"))
        print(f"{PROG}: no geometry: the walkable area is the world rectangle", file=sys.stderr)
        return Polygon([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    if not isinstance(g, dict):
        bad(src, "geometry", "expected a map")
    for k in g:
        if k not in ("walkable", "walkable_file"):
            unsupported(src, f"geometry.{k}")
    if ("walkable" in g) == ("walkable_file" in g):
        bad(src, "geometry", "give exactly one of walkable and walkable_file")
    if "walkable" in g:
        text, where = g["walkable"], "geometry.walkable"
    else:
        path = os.path.join(ydir, str(g["walkable_file"]))
        try:
            with open(path) as f:
                text = f.read()
        except OSError as e:
            bad(src, "geometry.walkable_file", f"{path}: {e.strerror}")
        where = "geometry.walkable_file"
    try:
        area = shapely.from_wkt(str(text))
    except Exception as e:  # shapely.errors.GEOSException and friends
        bad(src, where, f"bad WKT: {e}")
    if area.geom_type not in ("Polygon", "MultiPolygon") or area.is_empty:
        bad(src, where, f"expected a POLYGON or MULTIPOLYGON, got {area.geom_type}")
    if not area.is_valid:
        bad(src, where, f"invalid polygon: {shapely.is_valid_reason(area)}")
    return area


def read_obstacles(src, scen):
    """Obstacles as polygons to cut out of the walkable area (lines buffered 0.05 m), and as throng lists them."""
    cut, drawn = [], []
    for i, ob in enumerate(scen.get("obstacles") or []):
        key = f"obstacles[{i}]"
        if not isinstance(ob, dict) or len(ob) != 1:
            bad(src, key, "expected exactly one of segment, polyline, polygon, rect")
        (kind, v), = ob.items()
        if kind in ("segment", "polyline"):
            pts = points(src, f"{key}.{kind}", v, 2)
            if kind == "segment" and len(pts) != 2:
                bad(src, f"{key}.segment", "expected 2 points")
            cut.append(LineString(pts).buffer(0.05, cap_style="flat", join_style="mitre"))
            drawn.append(pts)
        elif kind == "polygon":
            pts = points(src, f"{key}.polygon", v, 3)
            cut.append(Polygon(pts))
            drawn.append(pts + pts[:1])
        elif kind == "rect":
            (x0, y0), (x1, y1) = point(src, f"{key}.rect.min", v.get("min")), point(src, f"{key}.rect.max", v.get("max"))
            pts = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
            cut.append(Polygon(pts))
            drawn.append(pts + pts[:1])
        else:
            unsupported(src, f"{key}.{kind}")
    return cut, drawn


def segment_strip(src, key, area, a, b, depth):
    """throng's strip for a segment exit: `depth` deep on the walkable side of the boundary edge holding a, b."""
    polys = list(area.geoms) if area.geom_type == "MultiPolygon" else [area]
    for poly in polys:
        for ring in [poly.exterior] + list(poly.interiors):
            c = list(ring.coords)
            for p, q in zip(c, c[1:]):
                e = LineString([p, q])
                if e.distance(Point(a)) <= 1e-3 and e.distance(Point(b)) <= 1e-3:
                    L = math.hypot(q[0] - p[0], q[1] - p[1])
                    ux, uy = (q[0] - p[0]) / L, (q[1] - p[1]) / L

                    def proj(s):
                        t = (s[0] - p[0]) * ux + (s[1] - p[1]) * uy
                        return (p[0] + t * ux, p[1] + t * uy)
                    pa, pb = proj(a), proj(b)
                    mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
                    nx, ny = -uy, ux
                    probe = Point(mid[0] + 1e-3 * nx, mid[1] + 1e-3 * ny)
                    if not area.contains(probe):
                        nx, ny = -nx, -ny
                    return [pa, pb, (pb[0] + depth * nx, pb[1] + depth * ny), (pa[0] + depth * nx, pa[1] + depth * ny)]
    bad(src, key, "both ends must lie within 0.001 m of one edge of the walkable area's boundary")


def read_exits(src, scen, area):
    exits = []
    for i, ex in enumerate(scen.get("exits") or []):
        key = f"exits[{i}]"
        if not isinstance(ex, dict) or not ex.get("name"):
            bad(src, key, "an exit needs a name")
        for k in ex:
            if k not in ("name", "polygon", "segment", "depth"):
                unsupported(src, f"{key}.{k}")
        if ("polygon" in ex) == ("segment" in ex):
            bad(src, key, "give exactly one of polygon and segment")
        if "polygon" in ex:
            ring = points(src, f"{key}.polygon", ex["polygon"], 3)
        else:
            a, b = points(src, f"{key}.segment", ex["segment"], 2)
            depth = number(src, f"{key}.depth", ex.get("depth", 0.5), positive=True)
            ring = segment_strip(src, f"{key}.segment", area, a, b, depth)
        exits.append({"name": str(ex["name"]), "ring": ring})
    names = [e["name"] for e in exits]
    if len(set(names)) != len(names) or "nearest" in names:
        bad(src, "exits", "exit names must be unique and not 'nearest'")
    return exits


def read_dist(src, key, v, kind, defaults=PRESET_KEYS):
    """speed / agent_radius / premovement -> ('const', a) | ('uniform', lo, hi) | ('spread', mean, spread)
    | ('normal', mean, sd, lo, hi), as throng reads them; `defaults` (PRESET_KEYS' keys) are the
    block defaults of the scenario's model preset."""
    d_mean, d_spread = defaults["agents[].speed.mean"], defaults["agents[].speed.spread"]
    if v is None:
        if kind == "speed":
            return ("spread", d_mean, min(d_spread, d_mean))
        if kind == "agent_radius":
            return ("uniform", defaults["agents[].agent_radius.min"], defaults["agents[].agent_radius.max"])
        return ("const", 0.0)
    if not isinstance(v, dict):
        x = number(src, key, v, lo=0, positive=(kind == "agent_radius"))
        return ("spread", x, 0.0) if kind == "speed" else ("const", x) if kind == "premovement" else ("uniform", x, x)
    allowed = {"speed": {"mean", "spread", "sd", "min", "max", "rimea"},
               "agent_radius": {"min", "max", "mean", "sd"},
               "premovement": {"min", "max", "mean", "sd"}}[kind]
    for k in v:
        if k not in allowed:
            unsupported(src, f"{key}.{k}")
    if kind == "speed" and "rimea" in v:
        if len(v) != 1 or v["rimea"] not in RIMEA:
            bad(src, f"{key}.rimea", f"expected {{rimea: GROUP}} alone, GROUP one of {', '.join(RIMEA)}")
        lo, hi = (f32(x) for x in RIMEA[v["rimea"]])
        return ("spread", f32(f32(0.5) * f32(lo + hi)), f32(f32(0.5) * f32(hi - lo)))
    normal_keys = ("sd", "min", "max") if kind == "speed" else ("mean", "sd")
    if any(k in v for k in normal_keys):
        for k in ("mean", "sd", "min", "max"):
            if k not in v:
                bad(src, f"{key}.{k}", "the normal form needs mean, sd, min and max")
        mean, sd, lo, hi = (number(src, f"{key}.{k}", v[k], lo=0) for k in ("mean", "sd", "min", "max"))
        if hi < lo or not lo <= mean <= hi:
            bad(src, key, "needs min <= mean <= max")
        return ("normal", mean, sd, lo, hi)
    if kind == "speed":
        mean = number(src, f"{key}.mean", v.get("mean", d_mean), lo=0)
        if "spread" in v:
            spread = number(src, f"{key}.spread", v["spread"], lo=0)
            if spread > mean:
                bad(src, f"{key}.spread", "must not exceed mean")
        else:
            spread = min(d_spread, mean)  # throng: the default spread, never above the mean
        return ("spread", mean, spread)
    if "min" not in v or "max" not in v:
        bad(src, key, "the map needs both min and max")
    lo, hi = number(src, f"{key}.min", v["min"], lo=0), number(src, f"{key}.max", v["max"], lo=0)
    if hi < lo:
        bad(src, f"{key}.max", "must be >= min")
    return ("uniform", lo, hi)


def draw(seed, ident, dist, kind):
    """One agent's value, with throng's streams (src/core/populate.c)."""
    if kind == "agent_radius":
        if dist[0] == "normal":
            return float(draw_normal(seed, ident, STREAM_NORMAL_U, *dist[1:]))
        return float(draw_range(seed, ident, STREAM_RADIUS, dist[1], dist[2]))
    if kind == "speed":
        if dist[0] == "normal":
            v = draw_normal(seed, ident, STREAM_NORMAL_U + 8, *dist[1:])
        else:
            v = f32(f32(dist[1]) + draw_jitter(seed, ident, STREAM_SPEED, dist[2]))
        return max(float(v), 0.0)
    # premovement
    if dist[0] == "const":
        return float(f32(dist[1]))
    if dist[0] == "uniform":
        return float(draw_range(seed, ident, STREAM_PREMOVE, dist[1], dist[2]))
    return float(draw_normal(seed, ident, STREAM_PREMOVE, *dist[1:]))


def place_random(src, key, seed, first_id, n, radii, lo, hi, region, scale):
    """throng's dart throwing (random and polygon layouts): attempt a of agent id draws with step a."""
    x0, y0 = float(f32(lo[0])), float(f32(lo[1]))
    w, h = float(f32(hi[0])) - x0, float(f32(hi[1])) - y0
    cs = max(2.0 * max(radii, default=0.5) * scale, 1e-9)
    cells = {}
    out = []
    prepared = prep(region) if region is not None else None
    for k in range(n):
        ident = first_id + k
        for a in range(1000):
            x = x0 + w * float(rng_uniform(seed, ident, a, STREAM_RANDOM_X))
            y = y0 + h * float(rng_uniform(seed, ident, a, STREAM_RANDOM_Y))
            if prepared is not None and not prepared.contains(Point(float(f32(x)), float(f32(y)))):
                continue
            cx, cy = int((x - x0) // cs), int((y - y0) // cs)
            clear = True
            for xx in (cx - 1, cx, cx + 1):
                for yy in (cy - 1, cy, cy + 1):
                    for o in cells.get((xx, yy), ()):
                        md = (radii[k] + radii[o]) * scale
                        if (x - out[o][0]) ** 2 + (y - out[o][1]) ** 2 < md * md:
                            clear = False
                            break
                    if not clear:
                        break
                if not clear:
                    break
            if clear:
                cells.setdefault((cx, cy), []).append(k)
                out.append((x, y))
                break
        else:
            bad(src, key, f"cannot place agent {k} of {n} without overlap after 1000 attempts; enlarge the "
                          f"region or lower count/density")
    return out


def block_positions(src, key, blk, seed, first_id, dist_radius, scale):
    layout = blk.get("layout")
    if layout == "grid":
        lo, hi = point(src, f"{key}.min", blk.get("min")), point(src, f"{key}.max", blk.get("max"))
        lo, hi = tuple(float(f32(c)) for c in lo), tuple(float(f32(c)) for c in hi)
        if "rows" in blk or "cols" in blk:
            rows, cols = int(blk.get("rows", 0)), int(blk.get("cols", 0))
            if rows < 1 or cols < 1:
                bad(src, key, "grid needs rows and cols > 0")
            sx = (hi[0] - lo[0]) / (cols - 1) if cols > 1 else 0.0
            sy = (hi[1] - lo[1]) / (rows - 1) if rows > 1 else 0.0
            x0 = lo[0] if cols > 1 else 0.5 * (lo[0] + hi[0])
            y0 = lo[1] if rows > 1 else 0.5 * (lo[1] + hi[1])
        elif "spacing" in blk:
            sp = blk["spacing"]
            sx, sy = point(src, f"{key}.spacing", sp) if isinstance(sp, list) else (number(src, f"{key}.spacing", sp, positive=True),) * 2
            sx, sy = float(f32(sx)), float(f32(sy))
            cols = int(math.floor((hi[0] - lo[0]) / sx + 1e-6)) + 1
            rows = int(math.floor((hi[1] - lo[1]) / sy + 1e-6)) + 1
            x0, y0 = lo
        else:
            bad(src, key, "layout 'grid' needs rows and cols, or spacing")
        pts = [(x0 + c * sx, y0 + r * sy) for r in range(rows) for c in range(cols)]
        if "count" in blk:
            n = int(blk["count"])
            if n > len(pts):
                bad(src, f"{key}.count", f"count {n} exceeds the {len(pts)} lattice points")
            pts = pts[:n]
        return pts
    if layout == "circle":
        c = point(src, f"{key}.center", blk.get("center"))
        r = number(src, f"{key}.radius", blk.get("radius"), positive=True)
        n = int(blk.get("count", 0))
        return [(float(f32(c[0])) + float(f32(r)) * math.cos(2 * math.pi * k / n),
                 float(f32(c[1])) + float(f32(r)) * math.sin(2 * math.pi * k / n)) for k in range(n)]
    if layout in ("random", "polygon"):
        if layout == "random":
            lo, hi = point(src, f"{key}.min", blk.get("min")), point(src, f"{key}.max", blk.get("max"))
            region = None
            n = int(blk.get("count", 0))
        else:
            ring = points(src, f"{key}.polygon", blk.get("polygon"), 3)
            region = Polygon(ring)
            xs, ys = [float(f32(p[0])) for p in ring], [float(f32(p[1])) for p in ring]
            lo, hi = (min(xs), min(ys)), (max(xs), max(ys))
            if ("count" in blk) == ("density" in blk):
                bad(src, key, "layout 'polygon' needs count or density, not both")
            if "count" in blk:
                n = int(blk["count"])
            else:
                n = int(math.floor(number(src, f"{key}.density", blk["density"], positive=True) * region.area + 0.5))
        if n < 1:
            bad(src, f"{key}.count", "needs a count > 0")
        radii = [draw(seed, first_id + k, dist_radius, "agent_radius") for k in range(n)]
        return place_random(src, key, seed, first_id, n, radii, lo, hi, region, scale)
    if layout in ("disk", "ellipse"):
        unsupported(src, f"{key}.layout", f"layout '{layout}'; use grid, random, polygon or circle")
    bad(src, f"{key}.layout", f"expected grid, random, polygon or circle, got {layout!r}")


# ---- model presets (throng's table, from `throng schema`) -------------------------


def throng_executable(given=None):
    """--throng PATH, else $THRONG, else build/bin/throng (here, then in the repository)."""
    if given:
        return given
    if os.environ.get("THRONG"):
        return os.environ["THRONG"]
    here = os.path.join("build", "bin", "throng")
    if os.path.exists(here):
        return here
    repo = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", here))
    return repo if os.path.exists(repo) else here


def preset_table(throng, src="throng"):
    """{preset: {key: value}} from the "### Model presets" markdown table of `throng schema`
    (| key | paper | pedestrian |, keys in backquotes); values as YAML scalars."""
    if throng in _PRESET_TABLE:
        return _PRESET_TABLE[throng]
    how = ("build throng (cmake -S . -B build && cmake --build build), or give its path with --throng PATH "
           "or the THRONG environment variable")
    try:
        p = subprocess.run([throng, "schema"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        raise InputError(f"{PROG}: {src}: model.preset: cannot run '{throng} schema' to read throng's preset table "
                         f"({e}); {how}")
    if p.returncode != 0:
        raise InputError(f"{PROG}: {src}: model.preset: '{throng} schema' exited {p.returncode}: "
                         f"{p.stderr.strip()[:300]}; {how}")
    lines = p.stdout.splitlines()
    try:
        k = next(i for i, ln in enumerate(lines) if ln.strip().lower() == "### model presets")
    except StopIteration:
        raise InputError(f"{PROG}: {src}: model.preset: '{throng} schema' has no \"### Model presets\" table "
                         f"(a throng without presets?)")
    rows = []
    for ln in lines[k + 1:]:
        if ln.startswith("#"):
            break
        if ln.strip().startswith("|"):
            rows.append([c.strip() for c in ln.strip().strip("|").split("|")])
        elif rows and ln.strip():
            break
    if len(rows) < 3 or rows[0][0].lower() != "key":
        raise InputError(f"{PROG}: {src}: model.preset: cannot read the \"### Model presets\" table of '{throng} schema'")
    names = rows[0][1:]
    table = {n: {} for n in names}
    for r in rows[2:]:
        key = r[0].strip("`")
        for n, v in zip(names, r[1:]):
            table[n][key] = yaml.safe_load(v)
    _PRESET_TABLE[throng] = table
    return table


def preset_defaults(src, scen, throng):
    """The runner's defaults (PRESET_KEYS) under the scenario's model.preset."""
    model = scen.get("model")
    preset = model.get("preset") if isinstance(model, dict) else None
    d = dict(PRESET_KEYS)
    if preset is None:
        return d, None
    table = preset_table(throng_executable(throng), src)
    if str(preset) not in table:
        bad(src, "model.preset", f"throng's preset table has {', '.join(table)}, not {preset!r}")
    col = table[str(preset)]
    for k in d:
        if k in col:
            d[k] = number(src, f"model.preset {preset}: {k}", col[k])
    return d, str(preset)


def read_scenario(path, sets, seed_override, throng=None):
    src = path
    try:
        with open(path) as f:
            scen = yaml.safe_load(f)
    except OSError as e:
        raise InputError(f"{PROG}: {path}: {e.strerror}")
    except yaml.YAMLError as e:
        raise InputError(f"{PROG}: {path}: not YAML: {e}")
    if not isinstance(scen, dict):
        raise InputError(f"{PROG}: {path}: the scenario is not a map of keys")
    for s in sets:
        apply_set(scen, s)
    if seed_override is not None:
        scen["seed"] = seed_override

    # every key either used, throng-only (no meaning for JuPedSim) or refused
    for k, v in scen.items():
        if k in THRONG_ONLY or k in ("seed", "geometry", "obstacles", "exits", "agents"):
            continue
        if k == "measurement":
            if v:
                print(f"{PROG}: {path}: measurement: areas.csv, lines.csv and maps/ are not written by the "
                      f"JuPedSim runner (compute them from the trajectory files)", file=sys.stderr)
            continue
        if k in ("goals", "stages", "journeys", "sources") and not v:
            continue
        unsupported(src, k)
    t = scen.get("time") or {}
    for k in t:
        if k not in ("dt", "steps"):
            unsupported(src, f"time.{k}")
    dt_throng = number(src, "time.dt", t.get("dt", 1 / 48), positive=True)
    steps = int(t.get("steps", 1000))
    seed = int(scen.get("seed", 1))
    defaults, preset = preset_defaults(src, scen, throng)
    scale = number(src, "model.radius_scale",
                   (scen.get("model") or {}).get("radius_scale", defaults["model.radius_scale"]), lo=1)

    area = read_walkable(src, scen, os.path.dirname(os.path.abspath(path)))
    cut, drawn_obstacles = read_obstacles(src, scen)
    walk = area.difference(unary_union(cut)) if cut else area
    exits = read_exits(src, scen, area)
    if not exits:
        unsupported(src, "exits", "a scenario without exits: JuPedSim agents need an exit to walk to")

    blocks = scen.get("agents")
    if not isinstance(blocks, list) or not blocks:
        bad(src, "agents", "expected a list of agent blocks")
    exit_names = [e["name"] for e in exits]
    out_blocks = []
    for b, blk in enumerate(blocks):
        key = f"agents[{b}]"
        if not isinstance(blk, dict):
            bad(src, key, "expected a map")
        for k in blk:
            if k not in BLOCK_KEYS:
                unsupported(src, f"{key}.{k}")
        for k in ("goal", "journey"):
            if k in blk:
                unsupported(src, f"{key}.{k}", "JuPedSim agents here walk to exits only")
        route = blk.get("exit", "nearest")
        if route != "nearest" and route not in exit_names:
            bad(src, f"{key}.exit", f"unknown exit '{route}' (exits: {', '.join(exit_names)})")
        out_blocks.append({
            "name": str(blk.get("name", f"block{b}")),
            "group": int(blk.get("group", b)),
            "speed": read_dist(src, f"{key}.speed", blk.get("speed"), "speed", defaults),
            "radius": read_dist(src, f"{key}.agent_radius", blk.get("agent_radius"), "agent_radius", defaults),
            "premove": read_dist(src, f"{key}.premovement", blk.get("premovement"), "premovement", defaults),
            "jitter": number(src, f"{key}.jitter", blk.get("jitter", 0), lo=0),
            "exit": route,
            "raw": blk,
            "key": key,
        })
    return {"src": src, "name": str(scen.get("name") or os.path.splitext(os.path.basename(path))[0]),
            "seed": seed, "steps": steps, "dt_throng": dt_throng, "scale": scale, "preset": preset,
            "area": area, "walk": walk,
            "obstacles": drawn_obstacles, "exits": exits, "blocks": out_blocks}


def make_agents(sc, start_file):
    """[(id, block index, x, y, radius, speed, release)] in id order."""
    seed, src = sc["seed"], sc["src"]
    agents = []
    if start_file is None:
        next_id = 0
        for b, blk in enumerate(sc["blocks"]):
            pts = block_positions(src, blk["key"], blk["raw"], seed, next_id, blk["radius"], sc["scale"])
            for (x, y) in pts:
                ident = next_id
                next_id += 1
                x = float(f32(f32(x) + draw_jitter(seed, ident, STREAM_JITTER_X, blk["jitter"])))
                y = float(f32(f32(y) + draw_jitter(seed, ident, STREAM_JITTER_Y, blk["jitter"])))
                agents.append([ident, b, x, y, draw(seed, ident, blk["radius"], "agent_radius")])
    else:
        by_group = {}
        for b, blk in enumerate(sc["blocks"]):
            by_group.setdefault(blk["group"], []).append(b)
        try:
            with open(start_file, newline="") as f:
                rows = list(csv.DictReader(f))
        except OSError as e:
            raise InputError(f"{PROG}: --start {start_file}: {e.strerror}")
        for need in ("id", "x", "y", "radius", "group"):
            if rows and need not in rows[0]:
                raise InputError(f"{PROG}: --start {start_file}: no column '{need}' (expected id,x,y,vx,vy,radius,group)")
        for r in rows:
            g = int(r["group"])
            if g not in by_group:
                raise InputError(f"{PROG}: --start {start_file}: agent {r['id']} has group {g}, which no agent block has")
            if len(by_group[g]) > 1:
                raise InputError(f"{PROG}: --start {start_file}: group {g} belongs to several agent blocks; "
                                 f"give the blocks distinct groups")
            agents.append([int(r["id"]), by_group[g][0], float(r["x"]), float(r["y"]), float(r["radius"])])
        agents.sort()
        if not agents:
            raise InputError(f"{PROG}: --start {start_file}: no agents")
    out = []
    walk = prep(sc["walk"])
    for ident, b, x, y, r in agents:
        blk = sc["blocks"][b]
        if not walk.contains(Point(x, y)):
            bad(src, blk["key"], f"agent {ident} at ({x:g}, {y:g}) is not inside the walkable area (less obstacles)")
        out.append((ident, b, x, y, r, draw(seed, ident, blk["speed"], "speed"),
                    draw(seed, ident, blk["premove"], "premovement")))
    return out


# ---- output ---------------------------------------------------------------------

def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        f.write(text)
    os.replace(tmp, path)


def prepare_out(out, overwrite):
    if os.path.exists(out):
        if not os.path.isdir(out):
            raise InputError(f"{PROG}: --out {out}: exists and is not a directory")
        if os.listdir(out):
            if not overwrite:
                raise InputError(f"{PROG}: --out {out}: exists and is not empty (use --overwrite to replace an "
                                 f"earlier run's output)")
            try:
                with open(os.path.join(out, "summary.json")) as f:
                    ours = json.load(f).get("simulator") == "jupedsim"
            except (OSError, ValueError, AttributeError):
                ours = False
            if not ours:
                raise InputError(f"{PROG}: --out {out}: not the output of an earlier jupedsim_run.py run (no "
                                 f"summary.json saying so); refusing to clear it")
            for name in os.listdir(out):
                p = os.path.join(out, name)
                shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
    os.makedirs(os.path.join(out, "trajectory"), exist_ok=True)


def g9(v):
    return f"{v:.9g}"


# ---- the run --------------------------------------------------------------------

def exit_area(sc, ring, margin):
    """The JuPedSim exit polygon: the exit grown by `margin` (an agent centre within margin of throng's exit
    means its disk touches it), inside the walkable area."""
    poly = Polygon(ring)
    grown = poly.buffer(margin, quad_segs=4) if margin > 0 else poly
    inside = grown.intersection(sc["walk"])
    if inside.geom_type == "MultiPolygon" or inside.geom_type == "GeometryCollection":
        parts = [g for g in getattr(inside, "geoms", []) if g.geom_type == "Polygon"]
        inside = max(parts, key=lambda g: g.intersection(poly).area, default=Polygon())
    if inside.is_empty or inside.area <= 0:
        raise InputError(f"{PROG}: {sc['src']}: exits: exit {ring} does not overlap the walkable area")
    return shapely.make_valid(inside) if not inside.is_valid else inside


def path_length_to(engine, frm, target_poly):
    """Walking distance from frm to the exit polygon along JuPedSim's route to its centroid."""
    c = target_poly.centroid
    if not target_poly.contains(c):
        c = target_poly.representative_point()
    wps = engine.compute_waypoints(frm, (c.x, c.y))
    d = 0.0
    for p, q in zip(wps, wps[1:]):
        seg = LineString([p, q])
        if target_poly.intersects(seg):
            hit = seg.intersection(target_poly)
            # distance along the segment to its first point inside the exit
            d += min(Point(p).distance(Point(pt)) for g in getattr(hit, "geoms", [hit])
                     for pt in (g.coords if g.geom_type != "Polygon" else g.exterior.coords))
            return d
        d += math.hypot(q[0] - p[0], q[1] - p[1])
    return d


def run(args):
    t_wall = time.time()
    sc = read_scenario(args.scenario, args.set or [], args.seed, args.throng)
    agents = make_agents(sc, args.start)
    max_time = args.max_time if args.max_time is not None else sc["steps"] * sc["dt_throng"]
    margin = args.exit_margin if args.exit_margin is not None else float(f"{max(a[4] for a in agents):.7g}")
    prepare_out(args.out, args.overwrite)

    walk = sc["walk"]
    if args.model == "collision_free_speed":
        model = jps.CollisionFreeSpeedModel()
    else:
        model = jps.AnticipationVelocityModel()
    sim = jps.Simulation(model=model, geometry=walk, dt=DT)
    exits = sc["exits"]
    polys, journeys, stages = [], [], []
    for e in exits:
        poly = exit_area(sc, e["ring"], margin)
        st = sim.add_exit_stage(poly)
        polys.append(poly)
        stages.append(st)
        journeys.append(sim.add_journey(jps.JourneyDescription([st])))
    engine = jps.RoutingEngine(walk) if len(exits) > 1 else None
    inner = [p.buffer(-0.1) for p in polys]
    inner = [max(g.geoms, key=lambda h: h.area) if g.geom_type == "MultiPolygon" else g for g in inner]
    names = [e["name"] for e in exits]

    jid_of, info = {}, {}  # throng id -> JuPedSim id; JuPedSim id -> (throng id, group, exit, release, speed)
    pending = []  # (release, jps id, speed)
    for ident, b, x, y, r, v0, release in agents:
        blk = sc["blocks"][b]
        if blk["exit"] == "nearest" and len(exits) > 1:
            k = min(range(len(exits)), key=lambda i: (path_length_to(engine, (x, y), polys[i]), i))
        else:
            k = names.index(blk["exit"]) if blk["exit"] != "nearest" else 0
        v_start = v0 if release <= 0 else 0.0
        journey, stage = journeys[k], stages[k]
        if args.exit_aim == "nearest_point":
            # a waypoint of its own at the exit's closest point, then the exit (JuPedSim aims at its centroid)
            # 0.1 m inside its edge, reached within 0.05 m: the agent is inside the exit when it turns to it
            core = inner[k] if not inner[k].is_empty else polys[k]
            ring = core.exterior
            q = ring.interpolate(ring.project(Point(x, y)))
            q = (q.x, q.y)
            wp = sim.add_waypoint_stage(q, 0.05)
            jd = jps.JourneyDescription([wp, stages[k]])
            jd.set_transition_for_stage(wp, jps.Transition.create_fixed_transition(stages[k]))
            journey, stage = sim.add_journey(jd), wp
        if args.model == "collision_free_speed":
            p = jps.CollisionFreeSpeedModelAgentParameters(position=(x, y), radius=r, desired_speed=v_start,
                                                           journey_id=journey, stage_id=stage)
        else:
            p = jps.AnticipationVelocityModelAgentParameters(position=(x, y), radius=r, desired_speed=v_start,
                                                             journey_id=journey, stage_id=stage)
        try:
            aid = sim.add_agent(p)
        except Exception as e:
            raise InputError(f"{PROG}: {sc['src']}: {blk['key']}: JuPedSim refused agent {ident} at ({x:g}, {y:g}): {e}")
        jid_of[ident] = aid
        info[aid] = (ident, blk["group"], k, release, r)
        if release > 0:
            pending.append((release, aid, v0))
    pending.sort()
    n_agents = len(agents)

    # outputs
    traj_dir = os.path.join(args.out, "trajectory")
    series = []
    stride = max(1, int(round(args.frame_every / DT)))
    max_iter = int(math.floor(max_time / DT + 1e-9))

    def positions():
        return {a.id: a.position for a in sim.agents()}

    def write_frame(it, cur, prev, final=False):
        lines = ["id,x,y,vx,vy,radius,group\n"]
        for aid in sorted(cur, key=lambda a: info[a][0]):
            ident, group, _, _, r = info[aid]
            x, y = cur[aid]
            px, py = prev.get(aid, (x, y)) if prev is not None else (x, y)
            lines.append(f"{ident},{g9(x)},{g9(y)},{g9((x - px) / DT)},{g9((y - py) / DT)},{r:.7g},{group}\n")
        name = f"trajectory.{it:08d}.csv"
        write_atomic(os.path.join(traj_dir, name), "".join(lines))
        series.append((name, it * DT))
        if len(series) % 50 == 1 or final:
            write_series()

    def write_series():
        write_atomic(os.path.join(traj_dir, "trajectory.csv.series"),
                     '{\n  "file-series-version" : "1.0",\n  "files" : [\n' +
                     ",\n".join(f'    {{ "name" : "{n}", "time" : {t:.9g} }}' for n, t in series) + "\n  ]\n}\n")

    exits_rows = [f"step,time,{','.join(names)}\n"]
    counts = [0] * len(exits)
    left = []  # (time, throng id, exit k, release, distance, group)
    dist = {aid: 0.0 for aid in info}

    it = 0
    prev = positions()
    write_frame(0, prev, None)
    exits_rows.append(f"0,{0:.6f}," + ",".join("0" for _ in names) + "\n")
    stopped = None
    last_exit_it, still_since = 0, None
    next_progress = 10.0
    while True:
        if len(left) == n_agents:
            stopped = "all_left"
            break
        if it >= max_iter:
            stopped = "max_time"
            break
        t_now = it * DT
        while pending and pending[0][0] <= t_now + 1e-9:
            _, aid, v0 = pending.pop(0)
            sim.agent(aid).model.desired_speed = v0
        try:
            sim.iterate()
        except Exception as e:
            print(f"{PROG}: JuPedSim failed at iteration {it + 1}: {e}", file=sys.stderr)
            stopped = "failed"
            break
        it += 1
        # JuPedSim reports an agent in removed_agents() at the iteration after the one that brought its
        # centre into the exit (it checks before it moves, and still moves it once more): it left at the end
        # of the previous iteration, where throng would count it, and its last move does not count.
        removed = set(sim.removed_agents())
        cur = {aid: p for aid, p in positions().items() if aid not in removed}
        moved = 0.0
        for aid, (x, y) in cur.items():
            px, py = prev[aid]
            d = math.hypot(x - px, y - py)
            dist[aid] += d
            moved += d
        for aid in sorted(removed, key=lambda a: info[a][0]):
            ident, group, k, release, _ = info[aid]
            counts[k] += 1
            left.append(((it - 1) * DT, ident, k, release, dist[aid], group))
            last_exit_it = it
        if it % stride == 0 or not cur:
            write_frame(it, cur, prev)
            exits_rows.append(f"{it},{it * DT:.6f}," + ",".join(str(c) for c in counts) + "\n")
        prev = cur
        # a crowd that stands still with nobody leaving and nobody still to set off stays so: a freeze
        mean_speed = moved / DT / len(cur) if cur else 0.0
        if cur and not pending and mean_speed < 0.01:
            still_since = it if still_since is None else still_since
        else:
            still_since = None
        if (args.stall > 0 and still_since is not None and (it - max(still_since, last_exit_it)) * DT >= args.stall):
            print(f"{PROG}: t = {it * DT:.2f} s: {len(cur)} agents have stood still (mean speed < 0.01 m/s) with "
                  f"nobody leaving for {args.stall:g} s: a freeze; the run stops", file=sys.stderr)
            stopped = "stalled"
            break
        if it * DT >= next_progress:
            next_progress += 10.0
            print(f"{PROG}: t = {it * DT:6.1f} s  agents {len(cur)}  left {len(left)}  "
                  f"mean speed {mean_speed:.2f} m/s  wall {time.time() - t_wall:.1f} s", file=sys.stderr)
    if series[-1][0] != f"trajectory.{it:08d}.csv":
        write_frame(it, prev, None if it == 0 else prev, final=True)
        exits_rows.append(f"{it},{it * DT:.6f}," + ",".join(str(c) for c in counts) + "\n")
    else:
        write_series()

    left.sort(key=lambda r: (r[0], r[1]))
    ev = ["id,exit,time,release,born,travel_time,distance,group\n"]
    for t, ident, k, release, d, group in left:
        ev.append(f"{ident},{names[k]},{t:.6f},{release:.6f},{0:.6f},{t:.6f},{d:.6f},{group}\n")
    write_atomic(os.path.join(args.out, "evacuated.csv"), "".join(ev))
    write_atomic(os.path.join(args.out, "exits.csv"), "".join(exits_rows))

    def rings(poly):
        return [[list(p) for p in r.coords[:-1]] for r in [poly.exterior] + list(poly.interiors)]
    area = sc["area"]
    geometry = {
        "world": [list(area.bounds[:2]), list(area.bounds[2:])],
        "walkable": [rings(p) for p in (area.geoms if area.geom_type == "MultiPolygon" else [area])],
        "obstacles": [[list(p) for p in o] for o in sc["obstacles"]],
        "exits": {e["name"]: [list(p) for p in e["ring"]] for e in exits},
        "exits_jupedsim": {e["name"]: rings(p)[0] for e, p in zip(exits, polys)},
        "areas": {}, "lines": {},
    }
    write_atomic(os.path.join(args.out, "geometry.json"), json.dumps(geometry, indent=1) + "\n")

    n_left = len(left)
    need95 = math.ceil(0.95 * n_agents)
    wall = time.time() - t_wall
    summary = {
        "simulator": "jupedsim",
        "version": jps.__version__,
        "model": args.model,
        "scenario": sc["name"],
        "scenario_file": os.path.abspath(args.scenario),
        "preset": sc["preset"],
        "start": os.path.abspath(args.start) if args.start else None,
        "seed": sc["seed"],
        "dt": DT,
        "exit_margin": margin,
        "exit_aim": args.exit_aim,
        "agents": n_agents,
        "agents_initial": n_agents,
        "evacuated": n_left,
        "remaining": n_agents - n_left,
        "evacuation_time": round(left[-1][0], 6) if n_left and n_left == n_agents else None,
        "t95": round(left[need95 - 1][0], 6) if n_left >= need95 else None,
        "exits": dict(zip(names, counts)),
        "iterations": it,
        "time": round(it * DT, 6),
        "wall_time_s": round(wall, 3),
        "stopped": stopped,
    }
    write_atomic(os.path.join(args.out, "summary.json"), json.dumps(summary, indent=2) + "\n")
    run_json = {"simulator": "jupedsim", "version": jps.__version__, "scenario": sc["name"],
                "scenario_file": os.path.abspath(args.scenario), "state": "failed" if stopped == "failed" else "complete",
                "last_step": it, "agents": n_agents - n_left, "wall_seconds": round(wall, 3),
                "command": [PROG] + sys.argv[1:]}
    write_atomic(os.path.join(args.out, "run.json"), json.dumps(run_json, indent=2) + "\n")
    et = summary["evacuation_time"]
    print(f"{PROG}: {sc['name']}: {n_left} of {n_agents} agents left ({', '.join(f'{n} {c}' for n, c in zip(names, counts))}); "
          f"evacuation time {et if et is None else f'{et:.2f} s'}; stopped: {stopped} at t = {it * DT:.2f} s; "
          f"wall {wall:.1f} s; output in {args.out}", file=sys.stderr)
    return 1 if stopped == "failed" else 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description="Run JuPedSim 1.4 on a throng scenario; write throng's "
                                 "output layout (trajectory/, evacuated.csv, exits.csv, summary.json).")
    ap.add_argument("scenario", metavar="SCENARIO.yaml")
    ap.add_argument("--out", required=True, metavar="DIR", help="output directory (new or empty)")
    ap.add_argument("--model", choices=("collision_free_speed", "anticipation_velocity"),
                    default="collision_free_speed", help="JuPedSim model, with its defaults (default %(default)s)")
    ap.add_argument("--seed", type=int, help="the scenario's seed instead of its `seed`")
    ap.add_argument("--start", metavar="TRAJ0.csv", help="start positions and radii from a throng trajectory file")
    ap.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a scenario key, as throng run --set")
    ap.add_argument("--frame-every", type=float, default=0.1, metavar="SECONDS",
                    help="a trajectory file every SECONDS of simulated time (default %(default)s)")
    ap.add_argument("--max-time", type=float, metavar="SECONDS",
                    help="simulated time limit (default time.steps x time.dt of the scenario)")
    ap.add_argument("--exit-margin", type=float, metavar="METRES",
                    help="grow each exit by this for JuPedSim, which removes an agent when its centre is inside; "
                         "throng removes it when its disk touches (default: the largest agent radius)")
    ap.add_argument("--exit-aim", choices=("centroid", "nearest_point"), default="centroid",
                    help="where agents head: the exit polygon's centroid, as JuPedSim's exit stages do (default), "
                         "or each agent first to a waypoint at the exit's point closest to its start, nearer "
                         "throng's distance fields for exits along a whole wall")
    ap.add_argument("--stall", type=float, default=60.0, metavar="SECONDS",
                    help="stop when every agent is released, nobody leaves and the mean speed stays below 0.01 m/s "
                         "for this long (a freeze; 0: never; default %(default)s)")
    ap.add_argument("--throng", metavar="PATH",
                    help="throng executable whose `throng schema` gives the model presets' defaults (for a "
                         "scenario with model.preset; default $THRONG, else build/bin/throng)")
    ap.add_argument("--overwrite", action="store_true", help="replace an earlier jupedsim_run.py output in DIR")
    args = ap.parse_args(argv)
    if not args.frame_every > 0:
        ap.error("--frame-every must be > 0")
    if args.max_time is not None and args.max_time < 0:
        ap.error("--max-time must be >= 0")
    if args.seed is not None and args.seed < 0:
        ap.error("--seed must be >= 0")
    try:
        return run(args)
    except InputError as e:
        print(e, file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{PROG}: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
