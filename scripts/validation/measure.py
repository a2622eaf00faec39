"""Measurements on a throng output directory, for the validation suite
(tests/validation/check_validation.py) and the reports that compare throng with
experiments and other simulators.

It reads throng's layout, which a JuPedSim run can be written in too:
  trajectory/trajectory.NNNNNNNN.csv   columns id,x,y,vx,vy,radius,group (a frame)
  trajectory/trajectory.csv.series     JSON {"files": [{"name": ..., "time": ...}, ...]}
  evacuated.csv                        id,exit,time,... (one row per agent that left)
  summary.json                         evacuation_time, ...
  lines.csv                            step,time,line,crossings,flow (throng only)
Only numpy, csv and json. Units: metres, seconds.

Definitions (docs/testing.md, "Validation tests"):
  density         classic: N / A, N the agents whose centre lies in the area
  speed           mean |v| of those agents (`speed="v"`), or the mean displacement to the
                  next frame over the frame interval (`speed="displacement"`)
  steady flow     J = (n - 1) / (t_last - t_first) over the crossings whose rank in time
                  order lies between the 10th and 90th percentile of the order
                  (indices floor(0.1 (N-1)) .. ceil(0.9 (N-1)))
  mean flow       the same over all crossings
  release time    the first frame at which an agent moves: speed >= v_min or displacement
                  from its first position >= d_min
"""
import csv
import json
import math
import os
import re

import numpy as np

__all__ = ["Frame", "load_frames", "tracks", "walking_time", "area_density_speed", "line_crossings",
           "lines_csv_crossings", "exit_times", "steady_flow", "mean_flow", "evacuation_time",
           "release_times", "free_speeds", "parse_wkt", "points_in_area", "wall_check", "linear_fit",
           "weidmann_speed", "summary"]


# ---- loading -------------------------------------------------------------------------

class Frame:
    """One trajectory frame: time t and numpy arrays id, x, y, vx, vy, radius, group, and z
    (the elevation in a building, the altitude of 3D agents; 0 where the file has none)."""
    __slots__ = ("t", "id", "x", "y", "vx", "vy", "radius", "group", "z")

    def __init__(self, t, cols):
        self.t = float(t)
        n = len(cols.get("id", []))
        self.id = np.asarray(cols.get("id", []), dtype=np.int64)
        for k in ("x", "y", "vx", "vy", "radius"):
            setattr(self, k, np.asarray(cols[k], dtype=float) if k in cols else np.full(n, np.nan))
        self.group = np.asarray(cols["group"], dtype=np.int64) if "group" in cols else np.zeros(n, np.int64)
        self.z = np.asarray(cols["z"], dtype=float) if "z" in cols else np.zeros(n)

    def __len__(self):
        return len(self.id)

    @property
    def speed(self):
        return np.hypot(self.vx, self.vy)


def _read_frame(path, t):
    with open(path, newline="") as f:
        r = csv.reader(f)
        head = next(r, None)
        if head is None:
            return Frame(t, {"id": []})
        rows = [row for row in r if row]
    cols = {}
    for j, name in enumerate(head):
        name = name.strip()
        vals = [row[j] for row in rows]
        cols[name] = [int(v) for v in vals] if name in ("id", "group") else [float(v) for v in vals]
    return Frame(t, cols)


def load_frames(out, tmin=None, tmax=None):
    """The trajectory frames of an output directory, in time order. Times come from
    trajectory/trajectory.csv.series; without it, from the step in the file name
    times `dt` of run.json. tmin/tmax keep only frames in [tmin, tmax]."""
    d = os.path.join(out, "trajectory")
    series = os.path.join(d, "trajectory.csv.series")
    if os.path.exists(series):
        with open(series) as f:
            files = [(float(e["time"]), e["name"]) for e in json.load(f)["files"]]
    else:
        with open(os.path.join(out, "run.json")) as f:
            dt = float(json.load(f)["parameters"]["dt"])
        files = []
        for name in os.listdir(d):
            m = re.match(r"trajectory\.(\d+)\.csv$", name)
            if m:
                files.append((int(m.group(1)) * dt, name))
    files.sort()
    return [_read_frame(os.path.join(d, name), t) for t, name in files
            if (tmin is None or t >= tmin - 1e-9) and (tmax is None or t <= tmax + 1e-9)]


def tracks(frames):
    """{id: (t, x, y, vx, vy)} numpy arrays over the frames in which the agent appears."""
    acc = {}
    for fr in frames:
        for k, i in enumerate(fr.id.tolist()):
            acc.setdefault(i, []).append((fr.t, fr.x[k], fr.y[k], fr.vx[k], fr.vy[k]))
    return {i: tuple(np.array(c) for c in zip(*v)) for i, v in acc.items()}


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


# ---- walking, density, speed -----------------------------------------------------------

def _first_reach(t, s, target):
    """First time the series s (along t) reaches target (>=), linearly interpolated; None if never."""
    hit = np.nonzero(s >= target)[0]
    if len(hit) == 0:
        return None
    k = hit[0]
    if k == 0 or s[k] == s[k - 1]:
        return float(t[k])
    return float(t[k - 1] + (target - s[k - 1]) * (t[k] - t[k - 1]) / (s[k] - s[k - 1]))


def walking_time(frames, agent, x0, x1, axis="x"):
    """Time agent `agent` takes from first reaching x0 to first reaching x1 (along `axis`;
    x1 < x0 walks towards smaller x), interpolated between frames; None if it never does."""
    tr = tracks(frames).get(agent)
    if tr is None:
        return None
    t, pos = tr[0], tr[1] if axis == "x" else tr[2]
    sign = 1.0 if x1 >= x0 else -1.0
    a, b = _first_reach(t, sign * pos, sign * x0), _first_reach(t, sign * pos, sign * x1)
    return None if a is None or b is None else b - a


def _rect_or_poly(area):
    if len(area) == 4 and not hasattr(area[0], "__len__"):        # (xmin, ymin, xmax, ymax)
        x0, y0, x1, y1 = area
        return [[(x0, y0), (x1, y0), (x1, y1), (x0, y1)]]
    return [[tuple(p) for p in area]]


def area_density_speed(frames, area, t0=-math.inf, t1=math.inf, speed="v"):
    """Classic density and mean speed in `area` (a rectangle (xmin, ymin, xmax, ymax) or a
    polygon [[x, y], ...]) in every frame with t0 <= t <= t1. Returns (t, density, speed)
    arrays; speed is nan where the area is empty. speed="v": mean |v|; "displacement":
    mean |p(next frame) - p| / the frame interval of the agents present in both."""
    poly = _rect_or_poly(area)
    A = abs(_ring_area(np.asarray(poly[0], float)))
    ts, rho, v = [], [], []
    for k, fr in enumerate(frames):
        if not (t0 - 1e-9 <= fr.t <= t1 + 1e-9):
            continue
        inside = points_in_area([poly], fr.x, fr.y)
        n = int(inside.sum())
        if speed == "v":
            s = float(fr.speed[inside].mean()) if n else math.nan
        else:
            if k + 1 >= len(frames):
                continue
            nx = frames[k + 1]
            where = {i: j for j, i in enumerate(nx.id.tolist())}
            d = [math.hypot(nx.x[where[i]] - fr.x[j], nx.y[where[i]] - fr.y[j])
                 for j, i in enumerate(fr.id.tolist()) if inside[j] and i in where]
            s = float(np.mean(d)) / (nx.t - fr.t) if d else math.nan
        ts.append(fr.t)
        rho.append(n / A)
        v.append(s)
    return np.array(ts), np.array(rho), np.array(v)


def free_speeds(frames, t0, t1):
    """{id: displacement between the frames nearest t0 and t1 / their time difference} for
    the agents present in both."""
    times = np.array([f.t for f in frames])
    a, b = frames[int(np.argmin(abs(times - t0)))], frames[int(np.argmin(abs(times - t1)))]
    pb = {i: (b.x[j], b.y[j]) for j, i in enumerate(b.id.tolist())}
    return {i: math.hypot(pb[i][0] - a.x[j], pb[i][1] - a.y[j]) / (b.t - a.t)
            for j, i in enumerate(a.id.tolist()) if i in pb}


def release_times(frames, v_min=0.3, d_min=0.1):
    """{id: time of the first frame at which the agent moves}: speed >= v_min or
    displacement from its first position >= d_min (None if it never does)."""
    res = {}
    for i, (t, x, y, vx, vy) in tracks(frames).items():
        moved = (np.hypot(vx, vy) >= v_min) | (np.hypot(x - x[0], y - y[0]) >= d_min)
        hit = np.nonzero(moved)[0]
        res[i] = float(t[hit[0]]) if len(hit) else None
    return res


# ---- flows ----------------------------------------------------------------------------

def line_crossings(frames, segment, direction=None):
    """Times at which an agent's move from one frame to the next crosses `segment`
    [[x0, y0], [x1, y1]] (interpolated along the move), sorted. direction: None counts
    both ways; +1 only moves to the left of the segment's direction a -> b (its normal
    (-dy, dx)), -1 only the other way."""
    (ax, ay), (bx, by) = segment
    ex, ey = bx - ax, by - ay
    times = []
    for f0, f1 in zip(frames, frames[1:]):
        where = {i: j for j, i in enumerate(f1.id.tolist())}
        idx = [(j, where[i]) for j, i in enumerate(f0.id.tolist()) if i in where]
        if not idx:
            continue
        j0, j1 = np.array(idx).T
        px, py, qx, qy = f0.x[j0], f0.y[j0], f1.x[j1], f1.y[j1]
        s0 = ex * (py - ay) - ey * (px - ax)          # side of p (left > 0)
        s1 = ex * (qy - ay) - ey * (qx - ax)
        cross = (s0 <= 0) & (s1 > 0) | (s0 > 0) & (s1 <= 0)
        if direction == 1:
            cross &= s1 > 0
        elif direction == -1:
            cross &= s1 <= 0
        with np.errstate(divide="ignore", invalid="ignore"):
            u = np.where(s0 != s1, s0 / (s0 - s1), 0.0)       # where along the move
            cx, cy = px + u * (qx - px), py + u * (qy - py)
            L2 = ex * ex + ey * ey
            w = ((cx - ax) * ex + (cy - ay) * ey) / L2           # where along the segment
        cross &= (w >= 0) & (w <= 1)
        times += (f0.t + u[cross] * (f1.t - f0.t)).tolist()
    return sorted(times)


def lines_csv_crossings(out, line):
    """Crossing times of measurement line `line` from throng's lines.csv: each increase of
    the cumulative count at a row counts that many crossings at the row's time (exact to the
    row interval; with output.metrics_every 1, to the step)."""
    times, prev = [], 0
    with open(os.path.join(out, "lines.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["line"] != line:
                continue
            c = int(r["crossings"])
            times += [float(r["time"])] * (c - prev)
            prev = c
    return times


def exit_times(out, exit=None):
    """Leaving times from evacuated.csv, sorted (only through `exit` if given)."""
    with open(os.path.join(out, "evacuated.csv"), newline="") as f:
        return sorted(float(r["time"]) for r in csv.DictReader(f) if exit is None or r["exit"] == exit)


def _flow(t):
    if len(t) < 2 or t[-1] <= t[0]:
        return math.nan
    return (len(t) - 1) / (t[-1] - t[0])


def steady_flow(times, lo=0.1, hi=0.9):
    """Steady-state flow [1/s]: (n - 1) / (t_last - t_first) over the crossings of rank
    floor(lo (N-1)) .. ceil(hi (N-1)) in time order (nan with fewer than 2)."""
    t = sorted(times)
    if len(t) < 2:
        return math.nan
    i0, i1 = int(math.floor(lo * (len(t) - 1))), int(math.ceil(hi * (len(t) - 1)))
    return _flow(t[i0:i1 + 1])


def mean_flow(times):
    """(N - 1) / (t_last - t_first) over all crossings."""
    return _flow(sorted(times))


def evacuation_time(out):
    """summary.json's evacuation_time, else the last time in evacuated.csv (None if nobody left)."""
    p = os.path.join(out, "summary.json")
    if os.path.exists(p):
        t = summary(out).get("evacuation_time")
        if t is not None:
            return float(t)
    t = exit_times(out)
    return t[-1] if t else None


# ---- geometry --------------------------------------------------------------------------

def parse_wkt(text):
    """POLYGON / MULTIPOLYGON WKT -> [[ring, ...], ...], each ring an (n, 2) numpy array
    (the closing point dropped)."""
    s = text.strip()
    kw = re.match(r"\s*(MULTIPOLYGON|POLYGON)\s*", s, re.I)
    if not kw:
        raise ValueError("not a POLYGON or MULTIPOLYGON: %r" % s[:40])
    body = s[kw.end():]
    polys, stack, cur_ring, rings = [], 0, "", []
    depth_ring = 3 if kw.group(1).upper() == "MULTIPOLYGON" else 2
    for ch in body:
        if ch == "(":
            stack += 1
            if stack == depth_ring:
                cur_ring = ""
        elif ch == ")":
            if stack == depth_ring:
                pts = [tuple(float(v) for v in p.split()) for p in cur_ring.split(",") if p.strip()]
                if len(pts) > 1 and pts[0] == pts[-1]:
                    pts = pts[:-1]
                rings.append(np.array(pts, float))
            if stack == depth_ring - 1:
                polys.append(rings)
                rings = []
            stack -= 1
        elif stack == depth_ring:
            cur_ring += ch
    return polys


def _ring_area(r):
    x, y = r[:, 0], r[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def _in_ring(ring, x, y):
    ring = np.asarray(ring, float)
    inside = np.zeros(np.shape(x), bool)
    for (x0, y0), (x1, y1) in zip(ring, np.roll(ring, -1, axis=0)):
        c = (y0 > y) != (y1 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xc = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
        inside ^= c & (x < xc)
    return inside


def points_in_area(polys, x, y):
    """Boolean array: the points inside the area (a polygon's outer ring, not in its holes)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    res = np.zeros(x.shape, bool)
    for poly in polys:
        p = _in_ring(poly[0], x, y)
        for h in poly[1:]:
            p &= ~_in_ring(h, x, y)
        res |= p
    return res


def _edges(polys):
    for poly in polys:
        for ring in poly:
            r = np.asarray(ring, float)
            for a, b in zip(r, np.roll(r, -1, axis=0)):
                yield a, b


def _dist_to_walls(polys, x, y):
    best = np.full(np.shape(x), np.inf)
    for (ax, ay), (bx, by) in _edges(polys):
        dx, dy = bx - ax, by - ay
        L2 = dx * dx + dy * dy
        u = np.clip(((x - ax) * dx + (y - ay) * dy) / L2, 0.0, 1.0) if L2 > 0 else 0.0
        best = np.minimum(best, np.hypot(x - ax - u * dx, y - ay - u * dy))
    return best


def _moves_cross_walls(polys, px, py, qx, qy):
    hit = np.zeros(np.shape(px), bool)
    for (ax, ay), (bx, by) in _edges(polys):
        d1 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
        d2 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax)
        d3 = (qx - px) * (ay - py) - (qy - py) * (ax - px)
        d4 = (qx - px) * (by - py) - (qy - py) * (bx - px)
        hit |= (np.sign(d1) * np.sign(d2) < 0) & (np.sign(d3) * np.sign(d4) < 0)
    return hit


def wall_check(frames, wkt, tol=0.0):
    """Every trajectory point against the walkable area `wkt` (a WKT string or parsed
    polygons). Returns a dict: points, outside (centres outside the area: list of
    (t, id, x, y), at most 20), crossings (moves from one frame to the next that cross a wall
    edge, at most 20), n_outside, n_crossings, n_overlap (disks reaching more than `tol`
    into a wall), min_clearance (smallest distance centre-to-wall minus radius)."""
    polys = parse_wkt(wkt) if isinstance(wkt, str) else wkt
    res = {"points": 0, "outside": [], "crossings": [], "n_outside": 0, "n_crossings": 0, "n_overlap": 0,
           "min_clearance": math.inf}
    prev = None
    for fr in frames:
        if len(fr) == 0:
            prev = fr
            continue
        res["points"] += len(fr)
        ins = points_in_area(polys, fr.x, fr.y)
        out = np.nonzero(~ins)[0]
        res["n_outside"] += len(out)
        res["outside"] += [(fr.t, int(fr.id[k]), float(fr.x[k]), float(fr.y[k])) for k in out[:20]]
        clear = _dist_to_walls(polys, fr.x, fr.y) - np.nan_to_num(fr.radius)
        clear = np.where(ins, clear, -np.inf)
        res["min_clearance"] = min(res["min_clearance"], float(clear.min()))
        res["n_overlap"] += int((clear < -tol).sum())
        if prev is not None and len(prev):
            where = {i: j for j, i in enumerate(prev.id.tolist())}
            idx = [(where[i], k) for k, i in enumerate(fr.id.tolist()) if i in where]
            if idx:
                j0, j1 = np.array(idx).T
                hit = _moves_cross_walls(polys, prev.x[j0], prev.y[j0], fr.x[j1], fr.y[j1])
                res["n_crossings"] += int(hit.sum())
                res["crossings"] += [(fr.t, int(fr.id[k])) for k in j1[hit][:20]]
        prev = fr
    res["outside"], res["crossings"] = res["outside"][:20], res["crossings"][:20]
    return res


# ---- fits and references ------------------------------------------------------------------

def linear_fit(x, y):
    """Least squares y = a + b x: (slope b, intercept a, R^2)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    b, a = np.polyfit(x, y, 1)
    ss = float(np.sum((y - y.mean()) ** 2))
    r2 = 1.0 - float(np.sum((y - (a + b * x)) ** 2)) / ss if ss > 0 else 1.0
    return float(b), float(a), r2


def weidmann_speed(rho, v0=1.34, gamma=1.913, rho_max=5.4):
    """Weidmann's v(rho) = v0 [1 - exp(-gamma (1/rho - 1/rho_max))] [m/s] (0 at and above rho_max)."""
    rho = np.asarray(rho, float)
    with np.errstate(divide="ignore"):
        v = v0 * (1.0 - np.exp(-gamma * (1.0 / rho - 1.0 / rho_max)))
    return np.where(rho >= rho_max, 0.0, v)
