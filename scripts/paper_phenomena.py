#!/usr/bin/env python3
"""The phenomena of Weiss et al. 2017 (seed paper 000, §5.2) as numbers, measured on
a throng run's outputs (issue 21, item 1; configs/paper/README.md says what each
scenario should show; the tests are tests/paper/).

  paper_phenomena.py OUTDIR [OUTDIR ...] [--gap X,Y] [--t0 T] [--t1 T] [--json]
      prints every measurement that applies to each run (two or more groups: the
      passing measures; --gap: the bottleneck measures), over the window [t0, t1]

Reads an output directory of `throng run`: run.json (Δt, model.radius_scale),
metrics.csv (at_goal, mean_speed, overlaps) and the trajectory frames, either
trajectory.h5 (needs h5py) or the CSV frames of `--set output.trajectory_format=csv`
(trajectory/trajectory.NNNNNNNN.csv, columns id,x,y,vx,vy,radius,group). Frame
times are step × Δt. numpy only (h5py for .h5). Units: metres, seconds. The
passing scenarios walk along ±x ("along"); y is "across" (lateral).

Definitions
-----------
contact            agents i, j touch in a frame when |x_i − x_j| ≤ (r_i + r_j)·s + 1 mm,
                   s = model.radius_scale (1.05), the distance at which the contact
                   constraint (eq. 2) acts (the constraint projects a touching pair
                   back to exactly that distance, hence the 1 mm: `tol`). With
                   `between_groups` only pairs of different groups count (the
                   encounters of passing scenarios).
contacts()         over all frames: `pairs` the distinct pairs that touched at least
                   once; `frames_mean`/`frames_median`/`frames_max` the number of frames
                   in which such a pair touched (with trajectory_every = 1 these are
                   steps: "time in contact" = frames × frame interval, `time_mean`);
                   `per_agent` = 2·pairs / agents (distinct partners touched per agent,
                   agents of the groups considered); `frames_per_agent` = 2·Σ frames /
                   agents (an agent's total time in contact, in frames); `locked` the
                   pairs in contact for `lock` (5 s) or more (a head-on pair held by
                   static friction, configs/paper/README.md "Model behaviour"),
                   `frames_mean_unlocked` the mean over the other pairs, `frames_p90`
                   the 90th percentile; `touched` the share of agents with
                   at least one contact; `encounters` the pairs (of different groups)
                   whose closest approach is below `near` (default 2 m, i.e. they
                   passed within one body width of touching) and `per_encounter` =
                   pairs / encounters (the share of close passes that touched);
                   `contact_frames` the sum of frames in contact over all pairs.
                   Needs every step (trajectory_every = 1) to count steps; with a
                   coarser interval the counts are frames of that interval.
lane_order()       for passing along x. An agent i is *in the crossing zone* of a frame
                   when an agent of another group is within `mix` (4 m) of it. Its lane
                   neighbours are the agents j ≠ i with |y_j − y_i| < w (0.5 m: the
                   centres lie within one radius across, they walk in the same file)
                   and |x_j − x_i| < L (5 m ahead or behind; more than the 4.5 m sparse
                   spacing). With n_s lane neighbours of i's group and n_o of others
                   (n_s + n_o > 0), φ_i = (n_s − n_o)/(n_s + n_o). `order` = mean φ_i
                   over every such (agent, frame) sample of the time window: 1 when
                   every file holds one group only (lanes), about 0 for well-mixed
                   files, below 0 when opposing agents still meet head-on in files.
                   `own` = share of samples with n_o = 0; `samples` their number.
lane_width()       the crossing-zone agents of a frame cut into slabs of width `slab`
                   (4 m) along x; within a slab, sorted by y, a lane is a maximal run of
                   consecutive agents of one group; `width` = mean run length in agents
                   (each run counted once), `width_m` = mean lateral extent of the runs
                   of two or more agents plus one body (2 r). Random 50/50 mixing gives
                   runs of 2 on average; narrow alternating lanes give 1.
crossings()        pairs (group-0 agent, group-1 agent) whose x order has swapped since
                   the first frame (group 0 starts at smaller x), as a share of all such
                   pairs, per frame; `t99`/`t100` the first time at 99 %/100 %.
lateral_deviation() per group, the mean over its agents of max |y(t) − y(0)| over the
                   frames up to t1.
shape()            per frame and group: centroid, standard deviations along x and y,
                   `aspect` = sd_x / sd_y (the dense ellipsoid's shape).
cohesion()         per frame and group: clusters of the group's agents linked when
                   within `link` (2 m: 1 m of free space between the bodies);
                   `largest` = share of the group in its largest cluster, `clusters`
                   the number of clusters of 3 or more agents.
packed()           per frame: clusters of all agents linked when within `link` (1.3 m:
                   at most 0.3 m between two radius-0.5 bodies, a packed crowd);
                   `share` = share of the agents in clusters of `min_size` (10) or
                   more, `mixed` = share in such clusters holding agents of two or
                   more groups (the "bottleneck clusters" of dense passing, where the
                   groups push against each other).
gap_flow()         a bottleneck whose gap lies in the wall x = X: an agent *passes* when
                   its x first exceeds X (in a frame); `flow` = passes per second
                   between t0 and t1, `passes` the times, `longest_pause` the longest
                   time between consecutive passes in [t0, t1] (jamming).
arch()             one frame of a bottleneck whose gap is centred at c = (X, Y) in the wall
                   x = X, the room at x < X. The agents in the room are sorted into
                   `sectors` (18) equal angular sectors of the half plane in front of c.
                   The crowd's *outer boundary* is the farthest agent of each sector, its
                   *first layer* the nearest (the agents that block the opening). A
                   circle is fitted to each set (algebraic least squares, Kåsa):
                   `outer_radius`, `outer_centre`, `outer_share` = share of the
                   boundary agents within `band` (1 m) of the fitted circle (a huddle
                   in a semicircle round the gap: close to 1; the starting block, a
                   rectangle: 0.25); `front_radius`, `front_centre`, `front_share`
                   (within band/2), `front_distance` = mean distance of the first
                   layer from c. `moving` = agents faster than `v_move` (0.3 m/s),
                   `moving_radius` = 90th percentile of their distance from c,
                   `moving_inside`/`moving_outside` = share of the agents within /
                   beyond that radius that move (the moving half disk at the gap).
arch_mean()        the scalar values of arch() averaged over the frames of [t0, t1].
arrival()          from metrics.csv: the first times at which 50 %, 90 % and 100 % of the
                   agents are at their goal (`at_goal`), None if never.
speed(), overlap() from metrics.csv: min/mean of mean_speed, largest max_overlap_ratio.
"""
import argparse
import json
import math
import os
import re
import sys

import numpy as np

__all__ = ["Run", "load", "pairs_within", "contacts", "lane_order", "lane_width", "crossings",
           "lateral_deviation", "shape", "cohesion", "packed", "gap_flow", "arch", "arch_mean", "arrival",
           "speed", "overlap", "summary"]


# ---- loading ----------------------------------------------------------------------------

class Frame:
    """One frame: step, time t and numpy arrays id, x, y, vx, vy, radius, group (sorted by id)."""
    __slots__ = ("step", "t", "id", "x", "y", "vx", "vy", "radius", "group")

    def __init__(self, step, t, cols):
        self.step, self.t = int(step), float(t)
        order = np.argsort(cols["id"], kind="stable")
        self.id = np.asarray(cols["id"], dtype=np.int64)[order]
        for k in ("x", "y", "vx", "vy", "radius"):
            setattr(self, k, np.asarray(cols[k], dtype=float)[order])
        self.group = np.asarray(cols["group"], dtype=np.int64)[order]

    def __len__(self):
        return len(self.id)


class Run:
    """An output directory: frames (time order), metrics (dict of numpy columns), params."""

    def __init__(self, path, frames, metrics, params):
        self.path, self.frames, self.metrics, self.params = path, frames, metrics, params
        self.dt = float(params.get("dt", 1.0 / 48.0))
        self.radius_scale = float(params.get("radius_scale", 1.05))

    @property
    def frame_interval(self):
        if len(self.frames) < 2:
            return self.dt
        return float(np.median(np.diff([f.step for f in self.frames]))) * self.dt


def _numbers(text):
    """The comma/newline separated numbers of a CSV body as one flat float array."""
    text = text.strip().replace("\r", "").replace("\n", ",")
    return np.fromstring(text, sep=",") if text else np.zeros(0)


def _read_csv_frame(path, step, t):
    with open(path) as f:
        head = f.readline().strip().split(",")
        text = f.read()
    vals = _numbers(text)
    vals = vals.reshape(-1, len(head))
    return Frame(step, t, {name: vals[:, k] for k, name in enumerate(head)})


def _load_h5(path, dt, tmin, tmax):
    try:
        import h5py  # only for .h5 runs
    except ImportError:
        sys.exit("%s: reading trajectory.h5 needs h5py (%s has none; /usr/bin/python3 may), or run "
                 "throng with --set output.trajectory_format=csv" % (path, sys.executable))
    frames = []
    with h5py.File(path, "r") as f:
        fr = f["frames"][:]
        for row in fr:
            t = float(row["time"])
            if (tmin is not None and t < tmin - 0.5 * dt) or (tmax is not None and t > tmax + 0.5 * dt):
                continue
            a, n = int(row["first_row"]), int(row["rows"])
            tr = f["trajectory"][a:a + n]
            vel = f["velocity"][a:a + n]
            cols = {"id": tr["id"], "x": tr["x"], "y": tr["y"], "vx": vel[:, 0], "vy": vel[:, 1],
                    "radius": f["radius"][a:a + n], "group": f["group"][a:a + n]}
            frames.append(Frame(int(row["step"]), t, cols))
    return frames


def load(path, tmin=None, tmax=None):
    """A run's output directory (trajectory.h5 or CSV frames, metrics.csv, run.json)."""
    params = {}
    rj = os.path.join(path, "run.json")
    if os.path.exists(rj):
        with open(rj) as f:
            params = json.load(f).get("parameters", {})
    dt = float(params.get("dt", 1.0 / 48.0))
    frames = []
    tdir = os.path.join(path, "trajectory")
    h5 = os.path.join(path, "trajectory.h5")
    if os.path.isdir(tdir):
        files = []
        for name in os.listdir(tdir):
            m = re.match(r"trajectory\.(\d+)\.csv$", name)
            if m:
                files.append((int(m.group(1)), name))
        for step, name in sorted(files):
            t = step * dt
            if (tmin is not None and t < tmin - 0.5 * dt) or (tmax is not None and t > tmax + 0.5 * dt):
                continue
            frames.append(_read_csv_frame(os.path.join(tdir, name), step, t))
    elif os.path.exists(h5):
        frames = _load_h5(h5, dt, tmin, tmax)
    metrics = {}
    mpath = os.path.join(path, "metrics.csv")
    if os.path.exists(mpath):
        with open(mpath) as f:
            head = f.readline().strip().split(",")
            vals = _numbers(f.read()).reshape(-1, len(head))
        metrics = {name: vals[:, k] for k, name in enumerate(head)}
    return Run(path, frames, metrics, params)


# ---- geometry helpers ---------------------------------------------------------------------

def pairs_within(x, y, d):
    """All pairs (i < j) of points closer than d, as two index arrays (cell binning, numpy)."""
    n = len(x)
    if n < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    cx = np.floor((x - x.min()) / d).astype(np.int64)
    cy = np.floor((y - y.min()) / d).astype(np.int64)
    m = int(cy.max()) + 3
    key = (cx + 1) * m + (cy + 1)
    order = np.argsort(key, kind="stable")
    sk = key[order]
    ii, jj = [], []
    idx = np.arange(n)
    for ox in (-1, 0, 1):
        for oy in (-1, 0, 1):
            nk = key + ox * m + oy
            lo = np.searchsorted(sk, nk, "left")
            hi = np.searchsorted(sk, nk, "right")
            cnt = hi - lo
            tot = int(cnt.sum())
            if tot == 0:
                continue
            i = np.repeat(idx, cnt)
            start = np.repeat(lo - (np.cumsum(cnt) - cnt), cnt)
            j = order[start + np.arange(tot)]
            keep = i < j
            ii.append(i[keep])
            jj.append(j[keep])
    i = np.concatenate(ii) if ii else np.zeros(0, np.int64)
    j = np.concatenate(jj) if jj else np.zeros(0, np.int64)
    close = (x[i] - x[j]) ** 2 + (y[i] - y[j]) ** 2 < d * d
    return i[close], j[close]


def _window(run, t0=None, t1=None):
    eps = 0.5 * run.dt
    return [f for f in run.frames if (t0 is None or f.t >= t0 - eps) and (t1 is None or f.t <= t1 + eps)]


# ---- pair encounters ----------------------------------------------------------------------

def contacts(run, t0=None, t1=None, between_groups=True, near=2.0, groups=None, tol=1e-3, lock=5.0):
    """Contacts between agents (of different groups with between_groups): see the module doc."""
    s = run.radius_scale
    frames_in = {}
    closest = {}
    agents = None
    for f in _window(run, t0, t1):
        sel = np.ones(len(f), bool) if groups is None else np.isin(f.group, groups)
        ids = f.id[sel]
        x, y, r, g = f.x[sel], f.y[sel], f.radius[sel], f.group[sel]
        if agents is None:
            agents = len(ids)
        rmax = float(r.max()) if len(r) else 0.5
        d = max(near, 2 * rmax * s)
        i, j = pairs_within(x, y, d)
        if between_groups:
            k = g[i] != g[j]
            i, j = i[k], j[k]
        dist = np.hypot(x[i] - x[j], y[i] - y[j])
        a, b = ids[i], ids[j]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        for p, q, dd, touch in zip(lo.tolist(), hi.tolist(), dist.tolist(),
                                   (dist <= (r[i] + r[j]) * s + tol).tolist()):
            key = (p, q)
            if dd < closest.get(key, math.inf):
                closest[key] = dd
            if touch:
                frames_in[key] = frames_in.get(key, 0) + 1
    fr = np.array(list(frames_in.values()), dtype=float)
    locked = fr * run.frame_interval >= lock
    free = fr[~locked]
    enc = sum(1 for v in closest.values() if v < near)
    agents = agents or 0
    touched = set()
    for p, q in frames_in:
        touched.add(p)
        touched.add(q)
    out = {
        "pairs": len(frames_in),
        "agents": agents,
        "per_agent": 2.0 * len(frames_in) / agents if agents else float("nan"),
        "touched": len(touched) / agents if agents else float("nan"),
        "frames_mean": float(fr.mean()) if len(fr) else 0.0,
        "frames_median": float(np.median(fr)) if len(fr) else 0.0,
        "frames_max": int(fr.max()) if len(fr) else 0,
        "frames_p90": float(np.percentile(fr, 90)) if len(fr) else 0.0,
        "locked": int(locked.sum()),
        "frames_mean_unlocked": float(free.mean()) if len(free) else 0.0,
        "frames_per_agent": 2.0 * float(fr.sum()) / agents if agents else float("nan"),
        "contact_frames": int(fr.sum()),
        "frame_interval": run.frame_interval,
        "encounters": enc,
        "per_encounter": len(frames_in) / enc if enc else 0.0,
    }
    out["time_mean"] = out["frames_mean"] * run.frame_interval
    return out


# ---- lanes --------------------------------------------------------------------------------

def _crossing_zone(f, mix):
    i, j = pairs_within(f.x, f.y, mix)
    k = f.group[i] != f.group[j]
    zone = np.zeros(len(f), bool)
    zone[i[k]] = True
    zone[j[k]] = True
    return zone


def lane_order(run, t0=None, t1=None, w=0.5, length=5.0, mix=4.0):
    """Lane order parameter of passing along x (module doc): mean φ_i, share with no other
    group in the file, the number of samples, and the per-frame means."""
    phis, own, per_frame = [], 0, []
    for f in _window(run, t0, t1):
        zone = _crossing_zone(f, mix)
        if not zone.any():
            continue
        i, j = pairs_within(f.x, f.y, math.hypot(w, length))
        k = (np.abs(f.y[i] - f.y[j]) < w) & (np.abs(f.x[i] - f.x[j]) < length)
        i, j = i[k], j[k]
        same = (f.group[i] == f.group[j]).astype(float)
        n = len(f)
        ns = np.bincount(i, same, n) + np.bincount(j, same, n)
        no = np.bincount(i, 1 - same, n) + np.bincount(j, 1 - same, n)
        sel = zone & (ns + no > 0)
        if not sel.any():
            continue
        phi = (ns[sel] - no[sel]) / (ns[sel] + no[sel])
        phis.append(phi)
        own += int((no[sel] == 0).sum())
        per_frame.append((f.t, float(phi.mean()), int(sel.sum())))
    allphi = np.concatenate(phis) if phis else np.zeros(0)
    return {"order": float(allphi.mean()) if len(allphi) else float("nan"),
            "own": own / len(allphi) if len(allphi) else float("nan"),
            "samples": int(len(allphi)), "frames": per_frame}


def lane_width(run, t0=None, t1=None, slab=4.0, mix=4.0):
    """Mean lane width in agents (runs of one group across y within x slabs; module doc)."""
    runs, extents = [], []
    for f in _window(run, t0, t1):
        zone = _crossing_zone(f, mix)
        if zone.sum() < 2:
            continue
        x, y, g, r = f.x[zone], f.y[zone], f.group[zone], f.radius[zone]
        sl = np.floor(x / slab).astype(np.int64)
        order = np.lexsort((y, sl))
        sl, y, g, r = sl[order], y[order], g[order], r[order]
        start = 0
        for k in range(1, len(g) + 1):
            if k == len(g) or sl[k] != sl[start] or g[k] != g[start]:
                runs.append(k - start)
                if k - start >= 2:
                    extents.append(y[k - 1] - y[start] + 2 * float(r[start:k].mean()))
                start = k
    return {"width": float(np.mean(runs)) if runs else float("nan"),
            "width_m": float(np.mean(extents)) if extents else float("nan"),
            "runs": len(runs)}


# ---- passing --------------------------------------------------------------------------------

def crossings(run, g0=0, g1=1):
    """Share of (g0, g1) pairs whose x order has swapped, per frame; t99 and t100."""
    out, t99, t100 = [], None, None
    for f in run.frames:
        a = np.sort(f.x[f.group == g0])
        b = np.sort(f.x[f.group == g1])
        if not len(a) or not len(b):
            continue
        crossed = np.searchsorted(b, a, "left").sum()   # b agents behind each a agent
        share = crossed / (len(a) * len(b))
        out.append((f.t, float(share)))
        if t99 is None and share >= 0.99:
            t99 = f.t
        if t100 is None and share >= 1.0:
            t100 = f.t
    return {"series": out, "t99": t99, "t100": t100}


def lateral_deviation(run, t1=None):
    """Per group: mean over its agents of the largest |y − y0| over the frames up to t1."""
    frames = _window(run, None, t1)
    y0 = frames[0].y
    dev = np.zeros_like(y0)
    for f in frames:
        dev = np.maximum(dev, np.abs(f.y - y0))
    g = frames[0].group
    return {int(k): float(dev[g == k].mean()) for k in np.unique(g)}


def shape(run, group, t0=None, t1=None):
    """Per frame: (t, centroid x, centroid y, sd_x, sd_y, aspect = sd_x / sd_y) of one group."""
    out = []
    for f in _window(run, t0, t1):
        m = f.group == group
        x, y = f.x[m], f.y[m]
        sx, sy = float(x.std()), float(y.std())
        out.append((f.t, float(x.mean()), float(y.mean()), sx, sy, sx / sy if sy > 0 else float("nan")))
    return out


def cohesion(run, t0=None, t1=None, link=2.0):
    """Per frame and group: (t, {group: (share in the largest cluster, clusters of >= 3)})."""
    out = []
    for f in _window(run, t0, t1):
        res = {}
        for grp in np.unique(f.group):
            m = np.nonzero(f.group == grp)[0]
            root = _components(f.x[m], f.y[m], link)
            sizes = np.bincount(root)
            sizes = sizes[sizes > 0]
            res[int(grp)] = (float(sizes.max()) / len(m), int((sizes >= 3).sum()))
        out.append((f.t, res))
    return out


def _components(x, y, link):
    i, j = pairs_within(x, y, link)
    parent = np.arange(len(x))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    for a, b in zip(i.tolist(), j.tolist()):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return np.array([find(a) for a in range(len(x))], dtype=np.int64)


def packed(run, t0=None, t1=None, link=1.3, min_size=10):
    """Per frame: (t, share of agents in packed clusters, share in mixed packed clusters)."""
    out = []
    for f in _window(run, t0, t1):
        root = _components(f.x, f.y, link)
        sizes = np.bincount(root, minlength=len(f))
        big = sizes[root] >= min_size
        mixed = np.zeros(len(f), bool)
        for rt in np.unique(root[big]):
            m = root == rt
            if len(np.unique(f.group[m])) > 1:
                mixed |= m
        out.append((f.t, float(big.mean()), float(mixed.mean())))
    return out


# ---- bottlenecks ----------------------------------------------------------------------------

def gap_flow(run, gap_x, t0=None, t1=None):
    """Passes through the wall x = gap_x (first frame with x > gap_x): flow in [t0, t1]."""
    first = {}
    for f in run.frames:
        for i in f.id[f.x > gap_x].tolist():
            if i not in first:
                first[i] = f.t
    times = np.sort(np.array(list(first.values()), dtype=float))
    a = run.frames[0].t if t0 is None else t0
    b = run.frames[-1].t if t1 is None else t1
    inside = times[(times > a) & (times <= b)]
    flow = len(inside) / (b - a) if b > a else float("nan")
    pause = float(np.diff(np.concatenate([[a], inside, [b]])).max()) if b > a else float("nan")
    return {"flow": flow, "passes": len(inside), "total": len(times), "longest_pause": pause,
            "t0": a, "t1": b, "times": times.tolist()}


def _fit_circle(x, y):
    """Kåsa fit: centre (a, b) and radius R minimising Σ (x² + y² − 2ax − 2by − c)²."""
    if len(x) < 3:
        return float("nan"), float("nan"), float("nan")
    A = np.column_stack([2 * x, 2 * y, np.ones_like(x)])
    sol, *_ = np.linalg.lstsq(A, x * x + y * y, rcond=None)
    a, b, c = sol
    return float(a), float(b), float(math.sqrt(max(c + a * a + b * b, 0.0)))


def arch(frame, gap, sectors=18, band=1.0, v_move=0.3):
    """Arch in front of a gap at gap = (X, Y) in the wall x = X, the room at x < X (module doc)."""
    gx, gy = gap
    m = frame.x < gx
    x, y = frame.x[m], frame.y[m]
    if len(x) < 3:
        return None
    v = np.hypot(frame.vx[m], frame.vy[m])
    dx, dy = x - gx, y - gy
    rho = np.hypot(dx, dy)
    ang = np.arctan2(dy, -dx)            # 0 straight into the room, ±π/2 along the wall
    sec = np.clip(((ang + math.pi / 2) / math.pi * sectors).astype(int), 0, sectors - 1)
    front, outer = [], []
    for s in range(sectors):
        k = np.nonzero(sec == s)[0]
        if len(k):
            front.append(k[np.argmin(rho[k])])
            outer.append(k[np.argmax(rho[k])])
    front, outer = np.array(front, int), np.array(outer, int)
    fa, fb, fr = _fit_circle(x[front], y[front])
    oa, ob, orr = _fit_circle(x[outer], y[outer])
    fdist = np.abs(np.hypot(x[front] - fa, y[front] - fb) - fr)
    odist = np.abs(np.hypot(x[outer] - oa, y[outer] - ob) - orr)
    moving = v >= v_move
    out = {"t": frame.t, "agents": int(len(x)),
           "front_radius": fr, "front_centre": (fa, fb), "front_distance": float(rho[front].mean()),
           "front_share": float((fdist < band / 2).mean()),
           "outer_radius": orr, "outer_centre": (oa, ob), "outer_share": float((odist < band).mean()),
           "moving": int(moving.sum())}
    if moving.sum() >= 3:
        rm = float(np.percentile(rho[moving], 90))
        near = rho <= rm
        out.update({"moving_radius": rm, "moving_inside": float(moving[near].mean()),
                    "moving_outside": float(moving[~near].mean()) if (~near).any() else 0.0})
    else:
        out.update({"moving_radius": 0.0, "moving_inside": float("nan"), "moving_outside": float("nan")})
    return out


def arch_mean(run, gap, t0=None, t1=None, **kw):
    """The scalar values of arch() averaged over the frames of [t0, t1]."""
    rows = [a for a in (arch(f, gap, **kw) for f in _window(run, t0, t1)) if a]
    keys = [k for k, v in rows[0].items() if isinstance(v, (int, float)) and k != "t"] if rows else []
    return {k: float(np.nanmean([r[k] for r in rows])) for k in keys} | {"frames": len(rows)}


# ---- metrics.csv --------------------------------------------------------------------------

def arrival(run, fractions=(0.5, 0.9, 1.0)):
    """First time at which each fraction of the agents is at its goal (metrics.csv)."""
    m = run.metrics
    share = m["at_goal"] / np.maximum(m["agents"], 1)
    out = {}
    for q in fractions:
        k = np.nonzero(share >= q - 1e-12)[0]
        out[q] = float(m["time"][k[0]]) if len(k) else None
    out["final"] = float(share[-1])
    return out


def speed(run, t0=None, t1=None):
    m = run.metrics
    sel = np.ones(len(m["time"]), bool)
    if t0 is not None:
        sel &= m["time"] >= t0 - 0.5 * run.dt
    if t1 is not None:
        sel &= m["time"] <= t1 + 0.5 * run.dt
    sp, t = m["mean_speed"][sel], m["time"][sel]
    k = int(np.argmin(sp))
    return {"min": float(sp[k]), "t_min": float(t[k]), "mean": float(sp.mean())}


def overlap(run):
    m = run.metrics
    k = int(np.argmax(m["max_overlap_ratio"]))
    return {"max_ratio": float(m["max_overlap_ratio"][k]), "step": int(m["step"][k])}


# ---- everything at once ---------------------------------------------------------------------

def summary(run, gap=None, t0=None, t1=None):
    """Every measurement that applies to the run (two or more groups: passing; a gap:
    bottleneck), over the window [t0, t1] where a measurement has one."""
    out = {"frames": len(run.frames), "frame_interval": run.frame_interval}
    if run.metrics:
        ar = arrival(run)
        out["arrival"] = {"t50": ar[0.5], "t90": ar[0.9], "t100": ar[1.0], "final": ar["final"]}
        out["speed"] = speed(run, 1.0)
        out["overlap"] = overlap(run)
    if not run.frames:
        return out
    groups = [int(g) for g in np.unique(run.frames[0].group)]
    out["agents"] = len(run.frames[0])
    if len(groups) >= 2:
        c = contacts(run, t0, t1)
        if run.frame_interval > 1.5 * run.dt:
            c["note"] = "frames every %.3g s: contact counts are frames, not steps" % run.frame_interval
        out["contacts"] = c
        lo = lane_order(run, t0, t1)
        out["lane_order"] = {k: lo[k] for k in ("order", "own", "samples")}
        out["lane_width"] = lane_width(run, t0, t1)
        pk = packed(run, t0, t1)
        peak = max(pk, key=lambda p: p[2]) if pk else (None, 0.0, 0.0)
        out["packed"] = {"peak": peak[2], "t_peak": peak[0], "end": pk[-1][2] if pk else 0.0}
        cr = crossings(run, groups[0], groups[1])
        out["crossings"] = {"t99": cr["t99"], "t100": cr["t100"],
                            "end": cr["series"][-1][1] if cr["series"] else None}
        out["lateral_deviation"] = lateral_deviation(run, t1)
        out["cohesion"] = {g: float(np.mean([res[g][0] for _, res in cohesion(run, t0, t1)])) for g in groups}
    out["shape"] = {}
    for g in groups:
        sh = shape(run, g, t0, t1)
        out["shape"][g] = {"aspect_first": sh[0][5], "aspect_min": min(x[5] for x in sh), "aspect_last": sh[-1][5]}
    if gap is not None:
        out["gap_flow"] = {k: v for k, v in gap_flow(run, gap[0], t0, t1).items() if k != "times"}
        out["arch"] = arch_mean(run, gap, t0, t1)
        out["arch_first_frame"] = {k: v for k, v in arch(run.frames[0], gap).items()
                                   if k in ("outer_share", "outer_radius", "front_distance")}
    return out


def _fmt(v):
    if isinstance(v, float):
        return "%.4g" % v
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (k, _fmt(x)) for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "(" + ", ".join(_fmt(x) for x in v) + ")"
    return str(v)


def main(argv=None):
    p = argparse.ArgumentParser(description="The phenomena of Weiss et al. 2017 measured on throng runs "
                                            "(definitions: the module's docstring).")
    p.add_argument("runs", nargs="+", help="output directories of throng run")
    p.add_argument("--gap", help="X,Y: the centre of a bottleneck gap in the wall x = X (the room at x < X)")
    p.add_argument("--t0", type=float, help="start of the time window [s]")
    p.add_argument("--t1", type=float, help="end of the time window [s]")
    p.add_argument("--json", action="store_true", help="one JSON object per run")
    a = p.parse_args(argv)
    gap = tuple(float(v) for v in a.gap.split(",")) if a.gap else None
    for path in a.runs:
        res = summary(load(path), gap, a.t0, a.t1)
        if a.json:
            print(json.dumps(dict(res, path=path), default=str))
        else:
            print(path)
            for k, v in res.items():
                print("  %s: %s" % (k, _fmt(v)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
