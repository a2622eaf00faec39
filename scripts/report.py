#!/usr/bin/env python3
"""throng report: figures and an HTML page of an evacuation run's outputs.

Usage: report.py OUTDIR [--out DIR] [--flow-window SECONDS]
(normally run as `throng report OUTDIR`; docs/user-guide.md, "Reports").

Reads what the run wrote into OUTDIR (metrics.csv, exits.csv, evacuated.csv,
areas.csv, lines.csv, maps/density.csv, maps/speed.csv, geometry.json,
summary.json, run.json, trajectory/) and writes into OUTDIR/report/ (or DIR):
agents.png, exits.png, areas.png, lines.png, density.png, speed.png,
snapshot.png, travel.png and index.html. Each figure is drawn when its inputs
exist; the page lists the inputs that were missing or unreadable.

Runs with group formations also write formations.csv: then formations.png
(each formation's RMS error and its broken agents over time) and
formation_snapshots.png (the agents coloured by group at the start, when the
most agents were broken, when the last were, and at the end) are drawn too.
Without formations.csv neither is, and the page does not list it as missing.

Exit status: 0 the page was written, 1 it could not be (matplotlib missing,
report directory not writable), 2 OUTDIR is not a throng output directory
(no run.json) or bad usage.

Needs Python 3 and matplotlib (Debian: python3-matplotlib), nothing else.
"""
import argparse
import csv
import glob
import html
import json
import math
import os
import re
import sys
import warnings

FIGURES = ("agents.png", "exits.png", "areas.png", "lines.png", "density.png", "speed.png", "snapshot.png",
           "travel.png", "formations.png", "formation_snapshots.png")
DEBIAN_PYTHON = "/usr/bin/python3"
MANY_AGENTS = 50000  # above this, the snapshot draws dots instead of true-size circles
MANY_FORMATIONS = 10  # above this, formations.png draws thin lines and their mean, without a legend


def fail(code, msg):
    print(f"throng report: {msg}", file=sys.stderr)
    sys.exit(code)


def has_module(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def load_matplotlib(want_h5py=False):
    """Import matplotlib with the Agg backend. Debian's python3-matplotlib
    (and python3-h5py) belong to /usr/bin/python3: when another python3
    comes first on PATH (pyenv, a virtual environment) and lacks matplotlib,
    or lacks h5py where the run wrote trajectory.h5 (`want_h5py`: the
    snapshot figures read it), run again with Debian's."""
    try:
        import matplotlib
        if want_h5py and not has_module("h5py"):
            raise ImportError("h5py")
    except ImportError:
        here = os.path.realpath(sys.executable or "")
        if (os.access(DEBIAN_PYTHON, os.X_OK) and here != os.path.realpath(DEBIAN_PYTHON)
                and not os.environ.get("THRONG_REPORT_REEXEC")):
            os.environ["THRONG_REPORT_REEXEC"] = "1"
            sys.stdout.flush()
            sys.stderr.flush()
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(__file__)] + sys.argv[1:])
        if not has_module("matplotlib"):
            fail(1, f"matplotlib is not installed for {sys.executable or 'python3'}; "
                    "install it with: apt-get install python3-matplotlib")
        import matplotlib  # h5py alone is missing: the snapshots say so
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({
        "figure.dpi": 110, "savefig.dpi": 110, "font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10,
        "legend.fontsize": 9, "axes.grid": False, "savefig.bbox": "tight", "savefig.pad_inches": 0.15,
    })
    return matplotlib


# ---- reading ------------------------------------------------------------------------------------

class Inputs:
    """What the output directory holds; `missing` and `problems` for the page."""

    def __init__(self, outdir):
        self.dir = outdir
        self.missing = []   # files that are not there
        self.problems = []  # files that are there but could not be read

    def path(self, name):
        return os.path.join(self.dir, name)

    def exists(self, name):
        ok = os.path.isfile(self.path(name))
        if not ok and name not in self.missing:
            self.missing.append(name)
        return ok

    def problem(self, name, err):
        self.problems.append((name, str(err) or type(err).__name__))

    def json(self, name):
        if not self.exists(name):
            return None
        try:
            with open(self.path(name), encoding="utf-8") as f:
                value = json.load(f)
            if not isinstance(value, dict):
                raise ValueError("not a JSON object")
            return value
        except (OSError, ValueError) as err:
            self.problem(name, err)
            return None

    def csv(self, name, required=(), text_columns=()):
        """(header, rows) with rows as dicts, numbers as floats (nan when not
        a number) except text_columns; None when absent, unreadable or without
        a required column. Rows that lack a text column are left out."""
        if not self.exists(name):
            return None
        try:
            with open(self.path(name), newline="", encoding="utf-8") as f:
                reader = csv.reader(f)
                header = next(reader, None)
                if not header:
                    raise ValueError("empty file (no header)")
                header = [h.strip() for h in header]
                lacking = [c for c in required if c not in header]
                if lacking:
                    raise ValueError(f"the header lacks {', '.join(lacking)}")
                rows = []
                for rec in reader:
                    if not rec:
                        continue
                    row = {}
                    for key, value in zip(header, rec):
                        row[key] = value if key in text_columns else to_float(value)
                    if all(row.get(c) is not None for c in text_columns):
                        rows.append(row)
            return header, rows
        except (OSError, ValueError, csv.Error, UnicodeDecodeError) as err:
            self.problem(name, err)
            return None


def to_float(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def number(value):
    """A JSON number as float, else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def column(rows, key):
    return [r.get(key, math.nan) for r in rows]


def read_map(inp, name, np):
    """maps/*.csv: (array ny x nx, x0, y0, cell) or None."""
    if not inp.exists(name):
        return None
    try:
        with open(inp.path(name), encoding="utf-8") as f:
            lines = [ln.strip() for ln in f if ln.strip()]
        if len(lines) < 2 or not lines[0].startswith("#"):
            raise ValueError("expected '# x0,y0,cell,nx,ny' then those numbers")
        head = [to_float(v) for v in lines[1].split(",")]
        if len(head) != 5 or not all(math.isfinite(v) for v in head):
            raise ValueError("line 2 must hold the five numbers x0,y0,cell,nx,ny")
        x0, y0, cell, nx, ny = head
        nx, ny = int(nx), int(ny)
        if nx <= 0 or ny <= 0 or not cell > 0:
            raise ValueError(f"bad grid: cell {cell}, nx {nx}, ny {ny}")
        body = lines[2:]
        if len(body) != ny:
            raise ValueError(f"{len(body)} rows of values, expected ny = {ny}")
        grid = np.array([[to_float(v) for v in ln.split(",")] for ln in body], dtype=float)
        if grid.shape != (ny, nx):
            raise ValueError(f"rows of {grid.shape[1] if grid.ndim == 2 else '?'} values, expected nx = {nx}")
        return grid, x0, y0, cell
    except (OSError, ValueError) as err:
        inp.problem(name, err)
        return None


def trajectory_frames_h5(inp):
    """Frames of trajectory.h5: [(step, time, (path, first_row, rows))], or None
    when there is no such file or h5py cannot read it."""
    path = inp.path("trajectory.h5")
    if not os.path.isfile(path):
        return None
    try:
        import h5py  # Debian: python3-h5py
    except ImportError:
        inp.problem("trajectory.h5", "python3-h5py is not installed; no snapshots")
        return []
    try:
        with h5py.File(path, "r") as f:
            fr = f["frames"][:]
        return [[int(r["step"]), float(r["time"]), (path, int(r["first_row"]), int(r["rows"]))] for r in fr]
    except (OSError, KeyError, ValueError) as err:
        inp.problem("trajectory.h5", err)
        return []


def trajectory_frames(inp):
    """[(step, time or None, path)] sorted by step (path: a CSV frame, or
    (trajectory.h5, first row, rows))."""
    h5 = trajectory_frames_h5(inp)
    if h5 is not None:
        return h5
    paths = glob.glob(os.path.join(inp.path("trajectory"), "trajectory.*.csv"))
    frames = []
    for p in paths:
        m = re.search(r"trajectory\.(\d+)\.csv$", p)
        if m:
            frames.append([int(m.group(1)), None, p])
    frames.sort()
    series = os.path.join(inp.path("trajectory"), "trajectory.csv.series")
    if frames and os.path.isfile(series):
        try:
            with open(series, encoding="utf-8") as f:
                times = {e["name"]: float(e["time"]) for e in json.load(f).get("files", [])}
            for fr in frames:
                fr[1] = times.get(os.path.basename(fr[2]))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
    if not frames:
        inp.missing.append("trajectory/trajectory.*.csv")
    return frames


# A building's floors as run.json lists them: [(elevation, shift)]. The
# trajectory holds each floor's own coordinates and the elevation as z; the
# report's plan (geometry.json, the maps) shows the floors side by side as
# throng lays them out (docs/floors.md), so a point moves by its floor's
# shift: the floor with the highest elevation not above its z (a stair
# belongs to the floor it rises from).
BUILDING = []


def set_building(run_json):
    BUILDING[:] = sorted((float(f["elevation"]), float(f["shift"])) for f in (run_json or {}).get("floors") or [])


def unfold(x, z, np):
    if not BUILDING or z is None:
        return x
    elev = np.array([e for e, _ in BUILDING])
    shift = np.array([s for _, s in BUILDING])
    k = np.clip(np.searchsorted(elev, z + 1e-6, side="right") - 1, 0, len(elev) - 1)
    return x + shift[k]


def h5_present(f, first, rows):
    """The rows of a trajectory.h5 frame that are agents present: not the
    leaving rows (state bit 2) that show where agents left (docs/output.md)."""
    return (f["state"][first:first + rows] & 2) == 0 if "state" in f else slice(None)


def read_frame(path, np):
    """(x, y, speed, radius) arrays of the agents present in one trajectory file
    or trajectory.h5 frame (a building's points in the report's unfolded plan,
    `unfold`)."""
    if isinstance(path, tuple):
        import h5py
        name, first, rows = path
        with h5py.File(name, "r") as f:
            keep = h5_present(f, first, rows)
            p = f["points"][first:first + rows][keep].astype(float)
            v = f["velocity"][first:first + rows][keep].astype(float)
            r = f["radius"][first:first + rows][keep].astype(float)
        return unfold(p[:, 0], p[:, 2], np), p[:, 1], np.hypot(v[:, 0], v[:, 1]), r
    with open(path, encoding="utf-8") as f:
        header = [h.strip() for h in f.readline().strip().split(",")]
    need = ["x", "y", "vx", "vy", "radius"]
    if any(k not in header for k in need):
        raise ValueError(f"{os.path.basename(path)}: header lacks one of {', '.join(need)}")
    cols = [header.index(k) for k in need]
    with open(path, encoding="utf-8") as f:
        f.readline()
        has_rows = any(line.strip() for line in f)
    if has_rows:
        data = np.loadtxt(path, delimiter=",", skiprows=1, usecols=cols, ndmin=2, dtype=float)
    else:
        data = np.zeros((0, 5))
    x, y, vx, vy, r = data.T
    if BUILDING and "z" in header:
        z = np.loadtxt(path, delimiter=",", skiprows=1, usecols=[header.index("z")], ndmin=1, dtype=float) \
            if has_rows else np.zeros(0)
        x = unfold(x, z, np)
    return x, y, np.hypot(vx, vy), r


def read_groups(path, np):
    """The agents' group numbers of one trajectory file or trajectory.h5 frame
    (in read_frame's order), or None when it has none (a CSV file without a
    group column)."""
    if isinstance(path, tuple):
        import h5py
        name, first, rows = path
        with h5py.File(name, "r") as f:
            if "group" not in f:
                return None
            return f["group"][first:first + rows][h5_present(f, first, rows)].astype(int)
    with open(path, encoding="utf-8") as f:
        header = [h.strip() for h in f.readline().strip().split(",")]
        has_rows = any(line.strip() for line in f)
    if "group" not in header:
        return None
    if not has_rows:
        return np.zeros(0, dtype=int)
    g = np.loadtxt(path, delimiter=",", skiprows=1, usecols=[header.index("group")], ndmin=1, dtype=float)
    return np.where(np.isfinite(g), g, -1).astype(int)


def formation_series(rows, np):
    """formations.csv as arrays: {"step", "time": one value a metrics step;
    "formation", "group": one a formation, by formation number; "rms_error",
    "broken", "arrived", "x", "y": steps x formations, nan where a row is
    missing}, or None without rows."""
    rows = [r for r in rows
            if math.isfinite(r.get("step", math.nan)) and math.isfinite(r.get("formation", math.nan))]
    if not rows:
        return None
    steps = sorted({int(r["step"]) for r in rows})
    ids = sorted({int(r["formation"]) for r in rows})
    at_step = {s: k for k, s in enumerate(steps)}
    at_id = {f: k for k, f in enumerate(ids)}
    out = {"step": np.array(steps), "formation": ids}
    time = np.full(len(steps), np.nan)
    group = {}
    keys = ("rms_error", "broken", "arrived", "x", "y")
    for key in keys:
        out[key] = np.full((len(steps), len(ids)), np.nan)
    for r in rows:
        i, j = at_step[int(r["step"])], at_id[int(r["formation"])]
        if math.isnan(time[i]):
            time[i] = r.get("time", math.nan)
        if ids[j] not in group and math.isfinite(r.get("group", math.nan)):
            group[ids[j]] = int(r["group"])
        for key in keys:
            out[key][i, j] = r.get(key, math.nan)
    out["time"] = time
    out["group"] = [group.get(f, f) for f in ids]
    return out


# ---- geometry -----------------------------------------------------------------------------------

def points(value):
    """A list of [x, y] as a list of float pairs, or None."""
    try:
        pts = [(float(p[0]), float(p[1])) for p in value]
        return pts if all(math.isfinite(a) and math.isfinite(b) for a, b in pts) else None
    except (TypeError, ValueError, IndexError, KeyError):
        return None


class Geometry:
    def __init__(self, data):
        data = data or {}
        self.walkable = []  # [[ring, ...], ...]
        for poly in data.get("walkable") or []:
            rings = [r for r in (points(ring) for ring in (poly or [])) if r and len(r) >= 3]
            if rings:
                self.walkable.append(rings)
        self.obstacles = [o for o in (points(o) for o in (data.get("obstacles") or [])) if o and len(o) >= 2]
        self.exits = self._named(data.get("exits"), 2)
        self.areas = self._named(data.get("areas"), 3)
        self.lines = self._named(data.get("lines"), 2)
        self.world = None
        w = points(data.get("world") or [])
        if w and len(w) == 2 and w[1][0] > w[0][0] and w[1][1] > w[0][1]:
            self.world = (w[0][0], w[0][1], w[1][0], w[1][1])

    @staticmethod
    def _named(value, least):
        out = {}
        if isinstance(value, dict):
            for name, pts in value.items():
                pts = points(pts)
                if pts and len(pts) >= least:
                    out[str(name)] = pts
        return out

    def empty(self):
        return not (self.walkable or self.obstacles or self.exits or self.areas or self.lines)

    def bounds(self):
        if self.world:
            return self.world
        pts = [p for poly in self.walkable for ring in poly for p in ring]
        pts += [p for o in self.obstacles for p in o]
        for group in (self.exits, self.areas, self.lines):
            pts += [p for v in group.values() for p in v]
        if not pts:
            return None
        xs, ys = zip(*pts)
        return min(xs), min(ys), max(xs), max(ys)


def signed_area(ring):
    return 0.5 * sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, ring[1:] + ring[:1]))


def centroid(pts):
    xs, ys = zip(*pts)
    return sum(xs) / len(xs), sum(ys) / len(ys)


def walkable_path(geom, Path):
    """One compound path of every walkable polygon: outer rings counter-clockwise,
    holes clockwise, so that holes stay empty under either fill rule."""
    verts, codes = [], []
    for poly in geom.walkable:
        for k, ring in enumerate(poly):
            ccw = signed_area(ring) > 0
            if (k == 0) != ccw:
                ring = ring[::-1]
            verts += ring + [ring[0]]
            codes += [Path.MOVETO] + [Path.LINETO] * (len(ring) - 1) + [Path.CLOSEPOLY]
    return Path(verts, codes) if verts else None


EXIT_COLOUR = "#d6198a"   # magenta: in neither the density nor the viridis map
OUTSIDE_COLOUR = "#d9d9d9"  # not walkable (outside, holes) when the walkable area is known
AREA_COLOUR = "#1f4e9c"
LINE_COLOUR = "#1f4e9c"


def draw_floor(ax, geom, mpl):
    """Grey over everything where one cannot walk (outside the walkable area,
    its holes), above map cells that straddle a wall, below the agents."""
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path
    inner = walkable_path(geom, Path)
    b = geom.bounds()
    if inner is None or b is None:
        return
    size = max(b[2] - b[0], b[3] - b[1])
    x0, y0, x1, y1 = b[0] - 10 * size, b[1] - 10 * size, b[2] + 10 * size, b[3] + 10 * size
    # a large clockwise rectangle around the counter-clockwise walkable rings
    # (holes clockwise): inside the walkable area the windings cancel
    outer = Path([(x0, y0), (x0, y1), (x1, y1), (x1, y0), (x0, y0)],
                 [Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY])
    mask = Path.make_compound_path(outer, inner)
    ax.add_patch(PathPatch(mask, facecolor=OUTSIDE_COLOUR, edgecolor="none", zorder=1.5))


def draw_geometry(ax, geom, mpl, label_exits=True, measurement=True):
    """Walls, holes, obstacles, exits (labelled), measurement areas and lines, over the data."""
    from matplotlib.patches import PathPatch, Polygon
    from matplotlib.path import Path
    import matplotlib.patheffects as pe
    path = walkable_path(geom, Path)
    if path is not None:
        ax.add_patch(PathPatch(path, facecolor="none", edgecolor="black", linewidth=1.3, zorder=5,
                               joinstyle="miter"))
    for ob in geom.obstacles:
        closed = len(ob) >= 3 and ob[0] == ob[-1]
        if closed:
            ax.add_patch(Polygon(ob, closed=True, facecolor="#8c8c8c", edgecolor="black", linewidth=1.0,
                                 zorder=5))
        else:
            xs, ys = zip(*ob)
            ax.plot(xs, ys, color="black", linewidth=2.0, solid_capstyle="butt", zorder=5)
    halo = [pe.withStroke(linewidth=3, foreground="white")]
    if measurement:
        for name, pts in geom.areas.items():
            ax.add_patch(Polygon(pts, closed=True, facecolor="none", edgecolor=AREA_COLOUR, linewidth=1.0,
                                 linestyle=(0, (4, 2)), zorder=6))
            # above the area's top left corner
            top = max(p[1] for p in pts)
            left = min(p[0] for p in pts if p[1] >= top - 1e-9)
            ax.annotate(name, (left, top), xytext=(0, 2), textcoords="offset points", color=AREA_COLOUR,
                        fontsize=8, ha="left", va="bottom", zorder=8, path_effects=halo)
        for name, pts in geom.lines.items():
            xs, ys = zip(*pts)
            ax.plot(xs, ys, color=LINE_COLOUR, linewidth=1.4, linestyle=(0, (6, 2, 1, 2)), zorder=6)
            # beyond the end that is higher up (or further right)
            k = max(range(len(pts)), key=lambda i: (pts[i][1], pts[i][0]))
            ax.annotate(name, pts[k], xytext=(0, 3), textcoords="offset points", color=LINE_COLOUR, fontsize=8,
                        ha="center", va="bottom", zorder=8, path_effects=halo)
    bounds = geom.bounds()
    labels = []
    for name, pts in geom.exits.items():
        if len(pts) == 2:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, color=EXIT_COLOUR, linewidth=4, solid_capstyle="butt", zorder=7)
        else:
            ax.add_patch(Polygon(pts, closed=True, facecolor=EXIT_COLOUR, edgecolor=EXIT_COLOUR, alpha=0.85,
                                 linewidth=1.5, zorder=7))
        if label_exits:
            labels.append(label_exit(ax, name, pts, bounds, halo))
    return labels


def label_exit(ax, name, pts, bounds, halo):
    """The exit's name just outside it, away from the middle of the world."""
    cx, cy = centroid(pts)
    dx, dy = 0.0, 1.0
    if bounds:
        mx, my = (bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2
        w, h = max(bounds[2] - bounds[0], 1e-9), max(bounds[3] - bounds[1], 1e-9)
        # compare distances to the sides relative to the world's size
        ux, uy = (cx - mx) / w, (cy - my) / h
        if abs(ux) >= abs(uy):
            dx, dy = (1.0 if ux >= 0 else -1.0), 0.0
        else:
            dx, dy = 0.0, (1.0 if uy >= 0 else -1.0)
    ha = "left" if dx > 0 else "right" if dx < 0 else "center"
    va = "bottom" if dy > 0 else "top" if dy < 0 else "center"
    return ax.annotate(name, (cx, cy), xytext=(7 * dx, 7 * dy), textcoords="offset points", ha=ha, va=va,
                       color=EXIT_COLOUR, fontsize=9, fontweight="bold", zorder=9, path_effects=halo,
                       annotation_clip=False)


def make_room(fig, axes_labels):
    """Widen the limits of each map until its exit labels lie inside it, so that
    they overlap neither the axis labels, the title nor the colour bar."""
    for _ in range(4):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        changed = False
        for ax, texts in axes_labels:
            if not texts:
                continue
            inv = ax.transData.inverted()
            x0, x1 = ax.get_xlim()
            y0, y1 = ax.get_ylim()
            pad = 0.01 * max(x1 - x0, y1 - y0)
            nx0, nx1, ny0, ny1 = x0, x1, y0, y1
            for t in texts:
                bb = t.get_window_extent(renderer)
                (a, b), (c, d) = inv.transform([[bb.x0, bb.y0], [bb.x1, bb.y1]])
                nx0, nx1 = min(nx0, a - pad), max(nx1, c + pad)
                ny0, ny1 = min(ny0, b - pad), max(ny1, d + pad)
            if (nx0, nx1, ny0, ny1) != (x0, x1, y0, y1):
                ax.set_xlim(nx0, nx1)
                ax.set_ylim(ny0, ny1)
                changed = True
        if not changed:
            break


def drop_gaps(fig, axes_labels, rows):
    """Shrink the height of a figure of stacked equal-aspect maps to what they
    use, so that no band of white separates them."""
    for _ in range(3):
        fig.canvas.draw()
        w, h = fig.get_size_inches()
        ax = axes_labels[0][0]
        spare = (ax.get_position(original=True).height - ax.get_position().height) * h * rows
        if spare < 0.02 * h:
            break
        fig.set_size_inches(w, h - spare)
        make_room(fig, axes_labels)


def map_limits(ax, geom, extent=None):
    b = geom.bounds() or extent
    if not b:
        return
    x0, y0, x1, y1 = b
    pad = 0.03 * max(x1 - x0, y1 - y0)
    ax.set_xlim(x0 - pad, x1 + pad)
    ax.set_ylim(y0 - pad, y1 + pad)


def map_figsize(geom, extent=None, panels=1, colorbar=True):
    b = geom.bounds() or extent or (0, 0, 1, 1)
    w, h = max(b[2] - b[0], 1e-9), max(b[3] - b[1], 1e-9)
    width = 8.0 if panels == 1 else 11.0
    panel_w = (width - (1.2 if colorbar else 0.4)) / panels
    height = min(max(panel_w * h / w + 1.1, 3.0), 10.0)
    return width, height


# ---- figures ------------------------------------------------------------------------------------

def colour_of(names, plt):
    cmap = plt.get_cmap("tab10")
    return {n: cmap(k % 10) for k, n in enumerate(names)}


def fig_agents(ctx):
    plt, np = ctx.plt, ctx.np
    metrics = ctx.metrics
    if not metrics or not metrics[1]:
        return None
    t = np.array(column(metrics[1], "time"))
    n = np.array(column(metrics[1], "agents"))
    fig, ax = plt.subplots(figsize=(8, 4.2))
    if len(t) == 1:
        ax.plot(t, n, "o", color="#1f77b4", label="agents in the simulation")
    else:
        ax.plot(t, n, color="#1f77b4", linewidth=1.8, label="agents in the simulation")
    s = ctx.facts
    if s.get("t95") is not None:
        ax.axvline(s["t95"], color="#ff7f0e", linestyle="--", linewidth=1.3,
                   label=f"t95 = {s['t95']:.1f} s (95 % had left)")
    if s.get("evacuation_time") is not None:
        ax.axvline(s["evacuation_time"], color="#d62728", linestyle="-", linewidth=1.3,
                   label=f"evacuation time = {s['evacuation_time']:.1f} s (last agent left)")
    ax.set_xlabel("time [s]")
    ax.set_ylabel("agents remaining")
    ax.set_title("Agents remaining")
    ax.set_ylim(bottom=0, top=max(1.0, float(np.nanmax(n)) * 1.05 if np.isfinite(n).any() else 1.0))
    ax.set_xlim(left=min(0.0, float(np.nanmin(t))) if np.isfinite(t).any() else 0.0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", framealpha=0.9)
    caption = ("Agents still in the simulation over time (metrics.csv, column agents)")
    marks = []
    if s.get("t95") is not None:
        marks.append("the dashed line is t95, when 95 % of the agents had left")
    if s.get("evacuation_time") is not None:
        marks.append("the solid line is the evacuation time, when the last agent left")
    if marks:
        caption += "; " + " and ".join(marks)
    elif ctx.summary is not None:
        caption += "; not everyone left, so there is no evacuation time"
    return fig, caption + "."


def exit_series(ctx):
    """(names, times array, {name: cumulative counts array}, source) or None."""
    np = ctx.np
    if ctx.exits_csv and ctx.exits_csv[1]:
        header, rows = ctx.exits_csv
        names = [h for h in header[2:] if h]
        t = np.array(column(rows, "time"))
        return names, t, {n: np.array(column(rows, n)) for n in names}, "exits.csv"
    ev = ctx.evacuated
    if ev and ev[1]:
        rows = ev[1]
        names = []
        for r in rows:
            if r.get("exit") not in names:
                names.append(r.get("exit"))
        times = sorted({r["time"] for r in rows if math.isfinite(r["time"])})
        if ctx.metrics and len(ctx.metrics[1]) > 1:
            grid = np.array(column(ctx.metrics[1], "time"))
        else:
            grid = np.array([0.0] + times)
        counts = {}
        for n in names:
            tn = np.sort(np.array([r["time"] for r in rows if r.get("exit") == n]))
            counts[n] = np.searchsorted(tn, grid, side="right").astype(float)
        return names, grid, counts, "evacuated.csv"
    return None


def moving_flow(t, n, window, np):
    """Flow [1/s] at each time: count change over a centred window of `window`
    seconds (shorter at the ends), i.e. the moving average of the flow."""
    ok = np.isfinite(t) & np.isfinite(n)
    t, n = t[ok], n[ok]
    if len(t) < 2:
        return t, np.zeros_like(t)
    lo = np.clip(t - window / 2, t[0], t[-1])
    hi = np.clip(t + window / 2, t[0], t[-1])
    dn = np.interp(hi, t, n) - np.interp(lo, t, n)
    span = hi - lo
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.where(span > 0, dn / np.where(span > 0, span, 1), 0.0)
    return t, q


def flow_window(ctx, t):
    """--flow-window, but at most a quarter of the run so that short runs show a shape."""
    np = ctx.np
    span = float(np.nanmax(t) - np.nanmin(t)) if np.isfinite(t).any() else 0.0
    return ctx.window if span <= 0 else min(ctx.window, max(span / 4, 1e-9))


def fig_exits(ctx):
    plt, np = ctx.plt, ctx.np
    series = exit_series(ctx)
    if not series or not series[0]:
        return None
    names, t, counts, source = series
    colours = colour_of(names, plt)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6.4), sharex=True)
    window = flow_window(ctx, t)
    for name in names:
        n = counts[name]
        last = n[np.isfinite(n)][-1] if np.isfinite(n).any() else 0
        label = f"{name} ({last:.0f})"
        if len(t) == 1:
            a1.plot(t, n, "o", color=colours[name], label=label)
        else:
            a1.step(t, n, where="post", color=colours[name], linewidth=1.6, label=label)
        tq, q = moving_flow(t, n, window, np)
        a2.plot(tq, q, color=colours[name], linewidth=1.6, label=name)
    a1.set_ylabel("agents out (cumulative)")
    a1.set_title("Exits: agents out and flow")
    a1.set_ylim(bottom=0)
    a1.grid(True, alpha=0.3)
    if len(names) <= 8:
        a1.legend(title="exit (total)", loc="upper left", framealpha=0.9)
    else:  # beside the plots, in columns of 16: inside, a stadium's 28 exits covered both panels
        a1.legend(title="exit (total)", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7.5,
                  ncol=(len(names) + 15) // 16, framealpha=0.9)
    a2.set_ylabel(f"flow [1/s], {window:.3g} s average")
    a2.set_xlabel("time [s]")
    a2.set_ylim(bottom=0)
    a2.grid(True, alpha=0.3)
    caption = (f"Top: agents that have left through each exit, cumulative ({source}); the legend gives each "
               f"exit's total. Bottom: the flow through each exit in agents per second, averaged over a "
               f"centred window of {window:.3g} s.")
    return fig, caption


def fig_areas(ctx):
    plt, np = ctx.plt, ctx.np
    if not ctx.areas or not ctx.areas[1]:
        return None
    rows = ctx.areas[1]
    names = []
    for r in rows:
        if r.get("area") not in names:
            names.append(r.get("area"))
    colours = colour_of(names, plt)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6.4), sharex=True)
    for name in names:
        sel = [r for r in rows if r.get("area") == name]
        t = np.array(column(sel, "time"))
        style = "o-" if len(t) == 1 else "-"
        a1.plot(t, column(sel, "density"), style, color=colours[name], linewidth=1.5, label=name)
        a2.plot(t, column(sel, "mean_speed"), style, color=colours[name], linewidth=1.5, label=name)
    a1.set_ylabel("density [1/m²]")
    a1.set_title("Measurement areas")
    a1.set_ylim(bottom=0)
    a1.grid(True, alpha=0.3)
    a1.legend(title="area", loc="upper right", framealpha=0.9)
    a2.set_ylabel("mean speed [m/s]")
    a2.set_xlabel("time [s]")
    a2.set_ylim(bottom=0)
    a2.grid(True, alpha=0.3)
    return fig, ("Density (top) and mean speed (bottom) of the agents inside each measurement area over time "
                 "(areas.csv); the maps show where the areas are.")


def fig_lines(ctx):
    plt, np = ctx.plt, ctx.np
    if not ctx.lines or not ctx.lines[1]:
        return None
    rows = ctx.lines[1]
    names = []
    for r in rows:
        if r.get("line") not in names:
            names.append(r.get("line"))
    colours = colour_of(names, plt)
    window = flow_window(ctx, np.array(column(rows, "time")))
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6.4), sharex=True)
    for name in names:
        sel = [r for r in rows if r.get("line") == name]
        t = np.array(column(sel, "time"))
        style = "o-" if len(t) == 1 else "-"
        crossings = np.array(column(sel, "crossings"))
        a1.plot(t, crossings, style, color=colours[name], linewidth=1.5, label=name)
        a2.plot(t, column(sel, "flow"), style, color=colours[name], linewidth=0.8, alpha=0.35)
        if len(t) > 1:
            tq, q = moving_flow(t, crossings, window, np)
            a2.plot(tq, q, color=colours[name], linewidth=1.8, label=name)
    a1.set_ylabel("crossings (cumulative)")
    a1.set_title("Measurement lines")
    a1.set_ylim(bottom=0)
    a1.grid(True, alpha=0.3)
    a1.legend(title="line", loc="upper left", framealpha=0.9)
    a2.set_ylabel("flow [1/s]")
    a2.set_xlabel("time [s]")
    a2.legend(title=f"{window:.3g} s average", loc="upper right", framealpha=0.9)
    a2.set_ylim(bottom=0)
    a2.grid(True, alpha=0.3)
    return fig, ("Agents that crossed each measurement line, cumulative (top), and the flow across it in agents "
                 f"per second (bottom): faint, over each interval between two rows of lines.csv; bold, averaged "
                 f"over a centred window of {window:.3g} s.")


def density_cmap(mpl, plt):
    base = plt.get_cmap("YlOrRd")
    colours = ["#ffffff"] + [base(x) for x in (0.12, 0.3, 0.5, 0.7, 0.85, 1.0)]
    cmap = mpl.colors.LinearSegmentedColormap.from_list("density0white", colours, N=256)
    cmap.set_bad((0, 0, 0, 0))
    return cmap


def fig_map(ctx, which):
    plt, np, mpl = ctx.plt, ctx.np, ctx.mpl
    data = ctx.density_map if which == "density" else ctx.speed_map
    if data is None:
        return None
    grid, x0, y0, cell = data
    ny, nx = grid.shape
    extent = (x0, x0 + nx * cell, y0, y0 + ny * cell)
    geom = ctx.geom
    fig, ax = plt.subplots(figsize=map_figsize(geom, (extent[0], extent[2], extent[1], extent[3])))
    draw_floor(ax, geom, mpl)
    finite = grid[np.isfinite(grid)]
    top = float(np.percentile(finite, 99.5)) if finite.size else 1.0
    peak = float(finite.max()) if finite.size else 1.0
    if not top > 0:
        top = peak if peak > 0 else 1.0
    if which == "density":
        cmap, label, title = density_cmap(mpl, plt), "density [1/m²]", "Density, averaged over time"
    else:
        cmap = plt.get_cmap("viridis").copy()
        cmap.set_bad((0, 0, 0, 0))
        label, title = "speed [m/s]", "Speed, averaged over time"
    im = ax.imshow(np.ma.masked_invalid(grid), origin="lower", extent=extent, cmap=cmap, vmin=0, vmax=top,
                   interpolation="nearest", zorder=1)
    labels = draw_geometry(ax, geom, mpl)
    ax.set_aspect("equal")
    map_limits(ax, geom, (extent[0], extent[2], extent[1], extent[3]))
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(title)
    from mpl_toolkits.axes_grid1 import make_axes_locatable
    cax = make_axes_locatable(ax).append_axes("right", size="3.5%", pad=0.12)
    cb = fig.colorbar(im, cax=cax, extend="max" if peak > top * 1.0001 else "neither")
    cb.set_label(label)
    make_room(fig, [(ax, labels)])
    what = ("the time-averaged number of agents per square metre in each cell" if which == "density"
            else "the mean speed of the agents that were in each cell")
    caption = (f"{what.capitalize()} ({cell:g} m cells, maps/{which}.csv)")
    if not finite.size:
        caption += "; every cell is empty (no agent was measured)"
    elif peak > top * 1.0001:
        caption += f"; the colour scale stops at {top:.3g} (99.5th percentile), the highest cell is {peak:.3g}"
    caption += ". " + geometry_legend(geom, empty_cells=True)
    return fig, caption


def geometry_legend(geom, empty_cells=False):
    if geom.empty():
        return "No geometry.json: the floor plan is not drawn."
    parts = []
    if geom.walkable:
        parts.append("black lines are the walls of the walkable area, grey is where one cannot walk")
    if geom.obstacles:
        parts.append("dark grey lines and shapes are obstacles")
    if geom.exits:
        parts.append("exits are magenta, with their names")
    if geom.areas or geom.lines:
        parts.append("blue dashed shapes and lines are the measurement areas and lines")
    if empty_cells:
        parts.append("cells that no agent entered are not coloured")
    text = "; ".join(parts)
    return text[:1].upper() + text[1:] + "." if text else ""


def frame_time(ctx, frame):
    step, t, _ = frame
    if t is not None:
        return t
    if ctx.metrics and ctx.metrics[1]:
        steps = column(ctx.metrics[1], "step")
        times = column(ctx.metrics[1], "time")
        for s, tt in zip(steps, times):
            if s == step:
                return tt
    return None


def frame_panel(ax, ctx, geom, mpl, extent, frame):
    """The walls, equal aspect and limits of a panel showing a trajectory
    frame: (the geometry's labels, "t = ... s" or "step N")."""
    geometry_labels = draw_geometry(ax, geom, mpl, measurement=False)
    ax.set_aspect("equal")
    map_limits(ax, geom, extent)
    if geom.bounds() is None and extent is None:
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    t = frame_time(ctx, frame)
    return geometry_labels, (f"t = {t:.1f} s" if t is not None else f"step {frame[0]}")


def fig_snapshot(ctx):
    plt, np, mpl = ctx.plt, ctx.np, ctx.mpl
    from matplotlib.collections import EllipseCollection
    frames = ctx.frames
    if not frames:
        return None
    loaded = {}

    def load(k):
        if k not in loaded:
            loaded[k] = read_frame(frames[k][2], np)
        return loaded[k]

    last = len(frames) - 1
    shown_last = last
    final_empty = len(load(last)[0]) == 0
    if final_empty:
        # everyone has left by the last frame: show the last frame that has agents
        shown_last = next((k for k in range(last - 1, -1, -1) if len(load(k)[0]) > 0), last)
    picks = [shown_last]
    if len(frames) >= 3:
        end_step = frames[shown_last][0]
        mid = min(range(len(frames)), key=lambda k: abs(frames[k][0] - end_step / 2))
        if mid != shown_last and 0 < mid:
            picks = [mid, shown_last]
    data = [load(k) for k in picks]
    vmax = max([float(np.nanmax(d[2])) for d in data if len(d[2])] + [0.0])
    vmax = vmax if vmax > 0 else 1.0
    geom = ctx.geom
    extent = None
    if geom.bounds() is None:
        xs = np.concatenate([d[0] for d in data] + [np.zeros(0)])
        ys = np.concatenate([d[1] for d in data] + [np.zeros(0)])
        if xs.size:
            extent = (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))
    b = geom.bounds() or extent or (0, 0, 1, 1)
    wide = (b[2] - b[0]) > 1.3 * (b[3] - b[1])
    if len(picks) == 2 and wide:
        w, h = map_figsize(geom, extent)
        fig, axes = plt.subplots(2, 1, figsize=(w, min(2 * h, 12)), sharex=True, layout="constrained")
    else:
        fig, axes = plt.subplots(1, len(picks), figsize=map_figsize(geom, extent, panels=len(picks)),
                                 squeeze=False, sharey=True, layout="constrained")
        axes = axes[0]
    axes = list(np.atleast_1d(axes))
    cmap = plt.get_cmap("viridis")
    norm = mpl.colors.Normalize(vmin=0, vmax=vmax)
    titles, labels = [], []
    for ax, k, (x, y, speed, r) in zip(axes, picks, data):
        draw_floor(ax, geom, mpl)
        if len(x) > MANY_AGENTS:
            ax.scatter(x, y, c=speed, cmap=cmap, norm=norm, s=0.5, linewidths=0, zorder=2)
        elif len(x):
            coll = EllipseCollection(2 * r, 2 * r, np.zeros_like(r), units="xy", offsets=np.column_stack([x, y]),
                                     offset_transform=ax.transData, cmap=cmap, norm=norm, linewidths=0.3,
                                     edgecolors="#333333", zorder=2)
            coll.set_array(speed)
            ax.add_collection(coll)
        else:
            ax.text(0.5, 0.5, "no agents", transform=ax.transAxes, ha="center", va="center", fontsize=12,
                    color="#555555")
        geometry_labels, when = frame_panel(ax, ctx, geom, mpl, extent, frames[k])
        labels.append((ax, geometry_labels))
        kind = "mid-run" if k != shown_last else ("last frame with agents" if shown_last != last else "last frame")
        ax.set_title(f"{kind}: {when}, {len(x)} agents")
        titles.append(f"{kind} ({when}, {len(x)} agents)")
    for k, ax in enumerate(axes):
        if k == len(axes) - 1 or not wide:
            ax.set_xlabel("x [m]")
        if k == 0 or wide:
            ax.set_ylabel("y [m]")
    sm = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
    cb = fig.colorbar(sm, ax=axes, shrink=0.9 if len(axes) == 1 or wide else 0.7, pad=0.02)
    cb.set_label("speed [m/s]")
    make_room(fig, labels)
    if len(axes) == 2 and wide:
        drop_gaps(fig, labels, rows=2)
    caption = ("Agents drawn as circles of their radius, coloured by speed, over the floor plan: "
               + " and ".join(titles) + " (trajectory/).")
    if len(data[0][0]) > MANY_AGENTS:
        caption += f" With more than {MANY_AGENTS} agents they are drawn as dots."
    if shown_last != last:
        t = frame_time(ctx, frames[last])
        when = f"t = {t:.1f} s" if t is not None else f"step {frames[last][0]}"
        caption += f" The last frame ({when}) has no agents left."
    return fig, caption


def formation_labels(fs):
    """Each formation's name: "group G", or "formation F (group G)" where formations share a group."""
    groups = fs["group"]
    if len(set(groups)) == len(groups):
        return [f"group {g}" for g in groups]
    return [f"formation {f} (group {g})" for f, g in zip(fs["formation"], groups)]


def group_colours(groups, plt):
    """One colour a group, the same in both formation figures: tab10 for up to
    10 groups, else tab20 over and over."""
    cmap = plt.get_cmap("tab10" if len(set(groups)) <= 10 else "tab20")
    return {g: cmap(k % cmap.N) for k, g in enumerate(dict.fromkeys(groups))}


def broken_moments(fs, np):
    """(broken agents a metrics step summed over the formations, the step index
    of the most, that of the last with any); the indices are None when no
    formation broke."""
    total = np.nansum(fs["broken"], axis=1)
    if not (total > 0).any():
        return total, None, None
    return total, int(np.argmax(total)), int(np.nonzero(total > 0)[0][-1])


def fig_formations(ctx):
    plt, np = ctx.plt, ctx.np
    fs = ctx.formation_series
    if fs is None:
        return None
    t, rms, broken = fs["time"], fs["rms_error"], fs["broken"]
    n = len(fs["formation"])
    few = n <= MANY_FORMATIONS
    labels = formation_labels(fs)
    colours = group_colours(fs["group"], plt)
    style = "o-" if len(t) == 1 else "-"
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6.4), sharex=True)
    for k in range(n):
        colour = colours[fs["group"][k]]
        if few:
            a1.plot(t, rms[:, k], style, color=colour, linewidth=1.5, label=labels[k])
            a2.plot(t, broken[:, k], style, color=colour, linewidth=1.5 if n == 1 else 1.0, label=labels[k])
        else:
            a1.plot(t, rms[:, k], style, color=colour, linewidth=0.6, alpha=0.5)
    if not few:
        with warnings.catch_warnings():  # a step without any formation's value
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(rms, axis=1)
        a1.plot(t, mean, style, color="black", linewidth=2.2, label=f"mean of the {n} formations")
    total, most, last = broken_moments(fs, np)
    if n > 1:
        a2.plot(t, total, style, color="black", linewidth=2.0, label="all formations")
    a1.set_ylabel("RMS error [m]")
    a1.set_title("Formations: RMS error and broken agents")
    a1.set_ylim(bottom=0)
    a1.grid(True, alpha=0.3)
    a1.legend(title="formation" if few else None, loc="best", framealpha=0.9)
    a2.set_ylabel("broken agents")
    a2.set_xlabel("time [s]")
    a2.set_ylim(bottom=0, top=max(1.0, float(np.nanmax(total)) * 1.05 if total.size else 1.0))
    a2.yaxis.set_major_locator(ctx.mpl.ticker.MaxNLocator(integer=True))
    a2.grid(True, alpha=0.3)
    if n > 1:
        a2.legend(loc="best", framealpha=0.9, fontsize=8 if few and n > 4 else None,
                  ncol=2 if few and n > 4 else 1)
    what = ("each formation's" if few else f"each of the {n} formations' (thin lines; bold: their mean)")
    caption = (f"Top: {what} RMS error, the root mean square distance of its agents to their places in the "
               f"formation (their Short Range Destinations). Bottom: agents whose formation is dropped (broken)")
    caption += (", summed over the formations (black) and per formation" if n > 1 and few
                else ", summed over the formations" if n > 1 else "")
    if most is None:
        caption += "; no agent's formation was dropped"
        a2.text(0.5, 0.5, "no agent's formation was dropped", transform=a2.transAxes, ha="center", va="center",
                color="#555555")
    else:
        caption += (f"; the most, {total[most]:.0f}, at t = {t[most]:.1f} s, the last at t = {t[last]:.1f} s "
                    "(marked by dotted lines)")
        for ax in (a1, a2):
            for k in sorted({most, last}):
                ax.axvline(t[k], color="#555555", linestyle=":", linewidth=1.0, zorder=0.5)
    if np.isfinite(fs["arrived"]).any():
        arrived = [k for k in range(n) if (fs["arrived"][:, k] >= 1).any()]
        caption += f". {len(arrived)} of {n} formation{'' if n == 1 else 's'} reached the end of their path"
        if arrived and few:
            when = []
            for k in arrived:
                i = int(np.nonzero(fs["arrived"][:, k] >= 1)[0][0])
                when.append(f"{labels[k]} at t = {t[i]:.1f} s")
            caption += f" ({', '.join(when)})"
    return fig, caption + " (formations.csv)."


def fig_formation_snapshots(ctx):
    plt, np, mpl = ctx.plt, ctx.np, ctx.mpl
    from matplotlib.collections import EllipseCollection
    from matplotlib.lines import Line2D
    fs, frames = ctx.formation_series, ctx.frames
    if fs is None or not frames:
        return None
    steps = fs["step"]

    def nearest_frame(step):
        return min(range(len(frames)), key=lambda k: abs(frames[k][0] - step))

    total, most, last_broken = broken_moments(fs, np)
    moments = [(0, "start")]
    if most is not None:
        moments += [(nearest_frame(steps[most]), f"most broken ({total[most]:.0f})"),
                    (nearest_frame(steps[last_broken]), "last broken")]
    else:  # nothing broke: a third and two thirds into the run instead
        s0, s1 = frames[0][0], frames[-1][0]
        moments += [(nearest_frame(s0 + (s1 - s0) * q), what) for q, what in ((1 / 3, "a third in"),
                                                                              (2 / 3, "two thirds in"))]
    moments.append((len(frames) - 1, "end"))
    shown = {}  # frame index: the moments it shows (one panel each frame)
    for k, what in moments:
        shown.setdefault(k, []).append(what)
    picks = sorted(shown)
    data = [read_frame(frames[k][2], np) for k in picks]
    groups = [read_groups(frames[k][2], np) for k in picks]
    crosses = []  # the group positions at the metrics step nearest each frame
    for k in picks:
        i = int(np.argmin(np.abs(steps - frames[k][0])))
        ok = np.isfinite(fs["x"][i]) & np.isfinite(fs["y"][i])
        crosses.append((fs["x"][i][ok], fs["y"][i][ok]))
    colours = group_colours(fs["group"], plt)
    few = len(colours) <= 10
    other = "#b0b0b0"  # agents of no formation
    alike = "#1f77b4"  # every agent, when the trajectory has no groups
    geom = ctx.geom
    extent = None
    if geom.bounds() is None:
        xs = np.concatenate([d[0] for d in data] + [c[0] for c in crosses] + [np.zeros(0)])
        ys = np.concatenate([d[1] for d in data] + [c[1] for c in crosses] + [np.zeros(0)])
        rmax = max([float(np.nanmax(d[3])) for d in data if len(d[3])] + [0.0])
        if xs.size:
            extent = (float(xs.min()) - rmax, float(ys.min()) - rmax, float(xs.max()) + rmax,
                      float(ys.max()) + rmax)
    b = geom.bounds() or extent or (0, 0, 1, 1)
    w, h = max(b[2] - b[0], 1e-9), max(b[3] - b[1], 1e-9)
    cols = 1 if len(picks) == 1 else 2
    rows = (len(picks) + 1) // 2 if cols == 2 else 1
    width = 11.5 if cols == 2 else 8.0
    panel_w = (width - 0.8 - 1.7) / cols  # room for the y labels and the legend beside
    height = min(max(rows * (panel_w * h / w + 0.55) + 0.3, 3.0), 12.0)  # as for map_figsize
    # agents narrower than a few pixels show no colour: dots of that size instead
    dpi = plt.rcParams["figure.dpi"]  # = savefig.dpi (load_matplotlib)
    px_per_m = dpi * min(panel_w / (1.06 * w), ((height - 0.3) / rows - 0.55) / (1.06 * h))
    radii = np.concatenate([d[3] for d in data] + [np.zeros(0)])
    dot_px = 3.5
    dots = radii.size > 0 and 2 * float(np.median(radii)) * px_per_m < dot_px
    fig, axes = plt.subplots(rows, cols, figsize=(width, height), sharex=True, sharey=True, squeeze=False,
                             layout="constrained")
    axes = list(axes.ravel())
    for ax in axes[len(picks):]:  # three panels: the fourth place stays empty
        fig.delaxes(ax)
        axes[axes.index(ax) - cols].xaxis.set_tick_params(labelbottom=True)
    axes = axes[:len(picks)]
    labels, titles, some_other = [], [], False
    for ax, k, (x, y, speed, r), g, (cx, cy) in zip(axes, picks, data, groups, crosses):
        draw_floor(ax, geom, mpl)
        if g is None or len(g) != len(x):
            face = [alike] * len(x)
        else:
            face = [colours.get(int(v), other) for v in g]
            some_other = some_other or any(int(v) not in colours for v in g)
        if len(x) > MANY_AGENTS:
            ax.scatter(x, y, c=face, s=0.5, linewidths=0, zorder=2)
        elif dots:
            ax.scatter(x, y, c=face, s=(dot_px * 72 / dpi) ** 2, linewidths=0, zorder=2)
        elif len(x):
            ax.add_collection(EllipseCollection(2 * r, 2 * r, np.zeros_like(r), units="xy",
                                                offsets=np.column_stack([x, y]), offset_transform=ax.transData,
                                                facecolors=face, linewidths=0, zorder=2))
        else:
            ax.text(0.5, 0.5, "no agents", transform=ax.transAxes, ha="center", va="center", fontsize=12,
                    color="#555555")
        ax.plot(cx, cy, "x", color="white", markersize=9, markeredgewidth=3.6, zorder=3)
        ax.plot(cx, cy, "x", color="black", markersize=8, markeredgewidth=1.8, zorder=3.1)
        geometry_labels, when = frame_panel(ax, ctx, geom, mpl, extent, frames[k])
        labels.append((ax, geometry_labels))
        ax.set_title(f"{', '.join(shown[k])}: {when}")
        titles.append(f"{', '.join(shown[k])} ({when})")
    for k, ax in enumerate(axes):
        if k + cols >= len(axes):
            ax.set_xlabel("x [m]")
        if k % cols == 0:
            ax.set_ylabel("y [m]")
    handles = []
    if few and any(g is not None for g in groups):
        handles += [Line2D([], [], marker="o", linestyle="none", markersize=7, markerfacecolor=c,
                           markeredgecolor="#333333", markeredgewidth=0.5, label=f"group {name}")
                    for name, c in colours.items()]
    if some_other:
        handles.append(Line2D([], [], marker="o", linestyle="none", markersize=7, markerfacecolor=other,
                              markeredgecolor="#333333", markeredgewidth=0.5, label="no formation"))
    handles.append(Line2D([], [], marker="x", linestyle="none", markersize=8, markeredgewidth=1.8,
                          color="black", label="group position"))
    axes[cols - 1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.03, 1.0), framealpha=0.9)
    make_room(fig, labels)
    # the exit labels widened the limits: fit the height to the panels' new shape
    x0, x1 = axes[0].get_xlim()
    y0, y1 = axes[0].get_ylim()
    fig.set_size_inches(width, min(max(rows * (panel_w * (y1 - y0) / (x1 - x0) + 0.55) + 0.3, 3.0), 12.0))
    make_room(fig, labels)
    if any(g is None for g in groups):
        colouring = "all alike (the trajectory has no group column)"
    else:
        colouring = "by group, the same colour in every panel" + ("; grey: agents of no formation"
                                                                  if some_other else "")
    if max(len(d[0]) for d in data) > MANY_AGENTS:
        drawn_as = f"dots (more than {MANY_AGENTS} agents)"
    elif dots:
        drawn_as = "dots (at this scale their circles would be too small to see)"
    else:
        drawn_as = "circles of their radius"
    caption = (f"Agents drawn as {drawn_as}, coloured {colouring}, and each formation's group position "
               f"(black crosses): " + ", ".join(titles) + " (trajectory, formations.csv).")
    if most is None:
        caption += " No agent's formation was dropped: the middle panels are a third and two thirds into the run."
    return fig, caption


def fig_travel(ctx):
    plt, np = ctx.plt, ctx.np
    ev = ctx.evacuated
    if not ev or not ev[1]:
        return None
    rows = ev[1]
    travel = np.array([r.get("travel_time", math.nan) for r in rows])
    dist = np.array([r.get("distance", math.nan) for r in rows])
    travel, dist = travel[np.isfinite(travel)], dist[np.isfinite(dist)]
    if not travel.size and not dist.size:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, values, what, unit, colour in ((axes[0], travel, "travel time", "s", "#1f77b4"),
                                           (axes[1], dist, "distance walked", "m", "#2ca02c")):
        if values.size:
            bins = min(40, max(5, int(math.sqrt(values.size)) * 2))
            ax.hist(values, bins=bins, color=colour, alpha=0.85, edgecolor="white", linewidth=0.5)
            med = float(np.median(values))
            mean = float(np.mean(values))
            ax.axvline(med, color="black", linestyle="--", linewidth=1.2, label=f"median {med:.1f} {unit}")
            ax.axvline(mean, color="black", linestyle=":", linewidth=1.2, label=f"mean {mean:.1f} {unit}")
            ax.legend(loc="upper right", framealpha=0.9)
        else:
            ax.text(0.5, 0.5, "no values", transform=ax.transAxes, ha="center", va="center")
        ax.set_xlabel(f"{what} [{unit}]")
        ax.set_ylabel("agents")
        ax.set_title(what.capitalize())
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig, (f"Travel time (from entering the simulation to leaving it) and distance walked of the "
                 f"{len(rows)} agents that left (evacuated.csv).")


# ---- the page -----------------------------------------------------------------------------------

def derive_facts(ctx):
    """Summary figures: summary.json's, else what metrics and evacuated.csv give."""
    s = dict(ctx.summary or {})
    facts = {}
    for key in ("agents_initial", "agents_added", "evacuated", "remaining", "evacuation_time", "t95", "steps",
                "time", "wall_seconds", "agent_steps_per_second"):
        facts[key] = number(s.get(key))
    facts["derived"] = []
    ev_rows = ctx.evacuated[1] if ctx.evacuated else None
    m_rows = ctx.metrics[1] if ctx.metrics else None
    if facts["evacuated"] is None and ev_rows is not None:
        facts["evacuated"] = float(len(ev_rows))
        facts["derived"].append("evacuated")
    if facts["agents_initial"] is None and m_rows and m_rows[0].get("step") == 0:
        facts["agents_initial"] = m_rows[0].get("agents")
        facts["derived"].append("agents_initial")
    if facts["remaining"] is None and m_rows:
        facts["remaining"] = m_rows[-1].get("agents")
        facts["derived"].append("remaining")
    if facts["time"] is None and m_rows:
        facts["time"] = m_rows[-1].get("time")
        facts["derived"].append("time")
    if facts["steps"] is None and m_rows:
        facts["steps"] = m_rows[-1].get("step")
        facts["derived"].append("steps")
    if ctx.summary is None and ev_rows is not None and facts["remaining"] is not None:
        times = sorted(r["time"] for r in ev_rows if math.isfinite(r.get("time", math.nan)))
        total = len(times) + facts["remaining"]
        if times and facts["remaining"] == 0:
            facts["evacuation_time"] = times[-1]
            facts["derived"].append("evacuation_time")
        need = math.ceil(0.95 * total - 1e-9) if total > 0 else 0
        if need and len(times) >= need:
            facts["t95"] = times[need - 1]
            facts["derived"].append("t95")
    if ctx.run_json:
        for key, src in (("wall_seconds", "wall_seconds"), ("agent_steps_per_second", "agent_steps_per_second"),
                         ("steps", "last_step")):
            if facts[key] is None and number(ctx.run_json.get(src)) is not None:
                facts[key] = number(ctx.run_json.get(src))
                facts["derived"].append(key)
    return facts


def exit_counts(ctx):
    s = ctx.summary or {}
    if isinstance(s.get("exits"), dict):
        return {str(k): number(v) for k, v in s["exits"].items()}, "summary.json"
    series = exit_series(ctx)
    if series:
        names, _, counts, src = series
        return {n: (float(counts[n][-1]) if len(counts[n]) else 0.0) for n in names}, src
    return {}, None


# The hand calculation an engineer checks an exit against (SFPE Handbook, hydraulic model; UK Green
# Guide): the maximum specific flow through a door's effective width (clear width less a boundary
# layer of 0.15 m per side), and the empirical band of saturated exits.
SFPE_FLOW = 1.32          # persons/(m s), level ways and doors
SFPE_BOUNDARY = 0.15      # m per side of a door
GREEN_GUIDE_FLOW = 82 / 60.0  # 82 persons/(m min) on level ways
BAND = (1.0, 1.6)         # persons/(m s) that people achieve through a saturated exit
SUSTAINED = (30, 20.0)    # an exit's steady stream: at least this many people over at least this many s


def exit_table(ctx):
    """One row per exit: people out, first and last out, active time, mean and steady flow (10-90 %
    of the leavings), specific flow per metre of width, the SFPE and Green Guide times beside the
    simulated one, and whether the steady stream lies outside the empirical band."""
    s = ctx.summary or {}
    widths = s.get("exit_widths") or (ctx.geom and getattr(ctx.geom, "exit_widths", None)) or {}
    rows_ev = ctx.evacuated[1] if ctx.evacuated else []
    counts, _ = exit_counts(ctx)
    names = list(counts) if counts else sorted({r.get("exit") for r in rows_ev if r.get("exit")})
    table = []
    for name in names:
        t = sorted(r["time"] for r in rows_ev if r.get("exit") == name and math.isfinite(r.get("time", math.nan)))
        n = len(t)
        w = number(widths.get(name))
        row = {"exit": name, "people": n, "width": w, "first": t[0] if t else None, "last": t[-1] if t else None}
        row["active"] = (t[-1] - t[0]) if n >= 2 else None
        row["flow"] = (n - 1) / row["active"] if row["active"] else None
        steady, span = None, None
        if n >= 2:
            i0, i1 = int(math.floor(0.1 * (n - 1))), int(math.ceil(0.9 * (n - 1)))
            span = t[i1] - t[i0]
            steady = (i1 - i0) / span if span > 0 else None
        row["steady_flow"] = steady
        row["specific"] = steady / w if steady and w else None
        row["sustained"] = n >= SUSTAINED[0] and span is not None and span >= SUSTAINED[1]
        if w and t:
            eff = max(w - 2 * SFPE_BOUNDARY, 0.1)
            row["sfpe"] = t[0] + n / (SFPE_FLOW * eff)
            row["green_guide"] = t[0] + n / (GREEN_GUIDE_FLOW * w)
        else:
            row["sfpe"] = row["green_guide"] = None
        sp = row["specific"]
        row["flag"] = ""
        if row["sustained"] and sp is not None:
            if sp > BAND[1]:
                row["flag"] = "above the band: faster than people pass a door"
            elif sp < BAND[0]:
                row["flag"] = "below the band: not saturated, or held up upstream"
        table.append(row)
    return table


def first_floors(ctx, np):
    """{id: floor index} of the agents in the trajectory's first frame (the floor whose elevation is the
    highest not above their z), or None without a building or a trajectory."""
    if not BUILDING or not ctx.frames:
        return None
    path = ctx.frames[0][2]
    try:
        if isinstance(path, tuple):
            import h5py
            name, first, rows = path
            with h5py.File(name, "r") as f:
                ids = f["trajectory"][first:first + rows]["id"].astype(int)
                z = f["points"][first:first + rows][:, 2].astype(float)
        else:
            with open(path, encoding="utf-8") as f:
                rows = list(csv.DictReader(f))
            ids = np.array([int(r["id"]) for r in rows])
            z = np.array([float(r.get("z", 0.0)) for r in rows])
    except (OSError, KeyError, ValueError, ImportError):
        return None
    elev = np.array(sorted(e for e, _ in BUILDING))
    k = np.clip(np.searchsorted(elev, z + 1e-6, side="right") - 1, 0, len(elev) - 1)
    return {int(i): int(kk) for i, kk in zip(ids, k)}


def floor_table(ctx, np):
    """A building: per floor (by elevation), the people who started on it, when the last of them left,
    when 95 % of them had."""
    start = first_floors(ctx, np)
    if start is None:
        return []
    out_time = {}
    for r in (ctx.evacuated[1] if ctx.evacuated else []):
        i = r.get("id")
        if i is not None and math.isfinite(r.get("time", math.nan)):
            out_time[int(i)] = r["time"]
    names = {}
    for f in (ctx.run_json or {}).get("floors") or []:
        names.setdefault(float(f["elevation"]), []).append(f["name"])
    elev = sorted(e for e, _ in BUILDING)
    table = []
    for k, e in enumerate(elev):
        who = [i for i, kk in start.items() if kk == k]
        if not who:
            continue
        t = sorted(out_time[i] for i in who if i in out_time)
        n95 = int(math.ceil(0.95 * len(who) - 1e-9))
        table.append({"floor": ", ".join(names.get(e, [])) or str(k), "elevation": e, "people": len(who),
                      "out": len(t), "last": t[-1] if len(t) == len(who) and t else None,
                      "t95": t[n95 - 1] if len(t) >= n95 and n95 > 0 else None})
    return table


def write_exit_table_csv(table, path):
    keys = ("exit", "people", "width", "first", "last", "active", "flow", "steady_flow", "specific", "sfpe",
            "green_guide", "sustained", "flag")
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(keys)
        for r in table:
            w.writerow(["" if r[k] is None else (f"{r[k]:.4f}" if isinstance(r[k], float) else r[k]) for k in keys])


def fmt(value, unit="", digits=1):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    suffix = f" {unit}" if unit else ""
    if float(value).is_integer() and not unit:
        return f"{int(value):,}"
    if abs(value) >= 1e4:
        return f"{value:,.0f}{suffix}"
    return f"{value:,.{digits}f}{suffix}"


PAGE_STYLE = """
body { font-family: sans-serif; max-width: 62em; margin: 1.5em auto; padding: 0 1em; color: #222;
       line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.6em 0; }
th, td { padding: 0.25em 0.8em; border-bottom: 1px solid #e2e2e2; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.2em 0 2em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #e2e2e2; }
figcaption { font-size: 0.92em; color: #444; margin-top: 0.4em; }
.muted { color: #666; font-size: 0.92em; }
code { background: #f3f3f3; padding: 0 0.2em; }
"""


def write_page(ctx, drawn, failed, path):
    e = html.escape
    facts = ctx.facts
    scenario = (ctx.summary or {}).get("scenario") or (ctx.run_json or {}).get("scenario") or "(unnamed)"
    state = (ctx.run_json or {}).get("state")
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>throng report: {e(str(scenario))}</title>", f"<style>{PAGE_STYLE}</style>", "</head>",
           "<body>", f"<h1>{e(str(scenario))}</h1>"]
    sub = [f"Report of <code>{e(os.path.abspath(ctx.inp.dir))}</code>"]
    if state:
        sub.append(f"run state: <strong>{e(str(state))}</strong>")
    scen_file = (ctx.run_json or {}).get("scenario_file")
    if scen_file:
        sub.append(f"scenario file <code>{e(str(scen_file))}</code>")
    out.append(f'<p class="muted">{"; ".join(sub)}.</p>')

    out.append("<h2>Summary</h2>")
    rows = [
        ("Agents at the start", fmt(facts["agents_initial"]), "agents_initial"),
        ("Agents added during the run", fmt(facts["agents_added"]), "agents_added"),
        ("Agents evacuated", fmt(facts["evacuated"]), "evacuated"),
        ("Agents remaining", fmt(facts["remaining"]), "remaining"),
        ("Evacuation time (last agent out)",
         fmt(facts["evacuation_time"], "s") if facts["evacuation_time"] is not None
         else ("— (agents remain)" if (facts["remaining"] or 0) > 0 else "—"), "evacuation_time"),
        ("t95 (95 % out)", fmt(facts["t95"], "s") if facts["t95"] is not None
         else ("— (fewer than 95 % left)" if (facts["remaining"] or 0) > 0 else "—"), "t95"),
        ("Steps", fmt(facts["steps"]), "steps"),
        ("Simulated time", fmt(facts["time"], "s"), "time"),
        ("Wall-clock time", fmt(facts["wall_seconds"], "s", 2), "wall_seconds"),
        ("Agent-steps per second", fmt(facts["agent_steps_per_second"], "", 0), "agent_steps_per_second"),
    ]
    out.append("<table>")
    for label, value, key in rows:
        mark = " *" if key in facts["derived"] else ""
        out.append(f'<tr><th>{e(label)}</th><td class="num">{e(value)}{mark}</td></tr>')
    out.append("</table>")
    if facts["derived"]:
        out.append('<p class="muted">* not in summary.json: taken from metrics.csv, evacuated.csv or run.json.</p>')

    counts, src = exit_counts(ctx)
    out.append("<h2>Exits</h2>")
    table = ctx.exit_table or []
    if table and any(r["people"] for r in table):
        out.append("<table><tr><th>exit</th><th>width [m]</th><th>people out</th><th>first / last out [s]</th>"
                   "<th>active [s]</th><th>flow [p/s]</th><th>steady flow [p/s]</th><th>specific flow "
                   "[p/(m s)]</th><th>hydraulic SFPE / Green Guide [s]</th><th></th></tr>")
        for r in table:
            fl = f'<strong>{e(r["flag"])}</strong>' if r["flag"] else ""
            out.append(
                f'<tr><td>{e(r["exit"])}</td><td class="num">{e(fmt(r["width"], "", 2))}</td>'
                f'<td class="num">{e(fmt(float(r["people"])))}</td>'
                f'<td class="num">{e(fmt(r["first"]))} / {e(fmt(r["last"]))}</td>'
                f'<td class="num">{e(fmt(r["active"]))}</td><td class="num">{e(fmt(r["flow"], "", 2))}</td>'
                f'<td class="num">{e(fmt(r["steady_flow"], "", 2))}</td>'
                f'<td class="num">{e(fmt(r["specific"], "", 2))}</td>'
                f'<td class="num">{e(fmt(r["sfpe"]))} / {e(fmt(r["green_guide"]))}</td><td>{fl}</td></tr>')
        out.append("</table>")
        worst = [r for r in table if r["sfpe"] is not None]
        hyd = max((r["sfpe"] for r in worst), default=None)
        out.append(
            f'<p class="muted">Steady flow: over the 10–90 % of an exit\'s leavings; specific flow: steady flow per '
            f'metre of the exit\'s width (<code>exits[].width</code>). Hydraulic estimate: first out + people / '
            f'(flow × width): SFPE {SFPE_FLOW} p/(m s) through the width less {SFPE_BOUNDARY} m per side, Green '
            f'Guide {GREEN_GUIDE_FLOW:.2f} p/(m s) (82 per metre and minute) through the clear width. Flagged: '
            f'exits with a sustained stream (at least {SUSTAINED[0]} people over {SUSTAINED[1]:g} s) whose '
            f'specific flow lies outside {BAND[0]}–{BAND[1]} p/(m s), what people achieve through saturated '
            f'exits. Slowest exit by the SFPE estimate: {e(fmt(hyd, "s"))} against the simulated evacuation time '
            f'{e(fmt(facts["evacuation_time"], "s"))}. Also in exit_table.csv.</p>')
    elif counts:
        total = sum(v for v in counts.values() if v is not None)
        out.append("<table><tr><th>exit</th><th>agents out</th><th>share</th></tr>")
        for name, v in counts.items():
            share = f"{100.0 * v / total:.1f} %" if v is not None and total > 0 else "—"
            out.append(f'<tr><td>{e(name)}</td><td class="num">{e(fmt(v))}</td><td class="num">{share}</td></tr>')
        out.append("</table>")
        out.append(f'<p class="muted">From {e(src)}.</p>')
    else:
        out.append("<p>No exit counts (no summary.json, exits.csv or evacuated.csv).</p>")

    if ctx.floor_table:
        out.append("<h2>Floors</h2>")
        out.append("<table><tr><th>floor</th><th>elevation [m]</th><th>people who started there</th>"
                   "<th>out</th><th>95 % out [s]</th><th>last out [s]</th></tr>")
        for r in ctx.floor_table:
            out.append(f'<tr><td>{e(r["floor"])}</td><td class="num">{e(fmt(r["elevation"], "", 2))}</td>'
                       f'<td class="num">{e(fmt(float(r["people"])))}</td><td class="num">{e(fmt(float(r["out"])))}'
                       f'</td><td class="num">{e(fmt(r["t95"]))}</td><td class="num">{e(fmt(r["last"]))}</td></tr>')
        out.append("</table>")
        out.append('<p class="muted">A building (docs/floors.md): each agent on the floor where the trajectory\'s '
                   'first frame finds it (by its elevation). Stair flows: the measurement lines across the stairs '
                   '(lines.csv, the lines figure). The maps and snapshots show the floors side by side, as throng '
                   'lays them out.</p>')

    out.append("<h2>Figures</h2>")
    if not drawn:
        out.append("<p>No figure could be drawn: the inputs they need are missing (see below).</p>")
    for name, caption in drawn:
        out.append("<figure>")
        out.append(f'<a href="{e(name)}"><img src="{e(name)}" alt="{e(ALT.get(name, name))}"></a>')
        out.append(f"<figcaption><strong>{e(name)}</strong>: {e(caption)}</figcaption>")
        out.append("</figure>")

    out.append("<h2>Missing or unreadable inputs</h2>")
    notes = []
    for name in ctx.inp.missing:
        notes.append(f"<li><code>{e(name)}</code>: not in the output directory"
                     f"{e(needed_for(name, ctx.formations is not None))}</li>")
    for name, err in ctx.inp.problems:
        notes.append(f"<li><code>{e(name)}</code>: could not be read: {e(err)}</li>")
    if notes:
        out.append("<ul>" + "".join(notes) + "</ul>")
    else:
        out.append("<p>None: every input was there.</p>")
    if failed:
        out.append("<h2>Figures not drawn</h2><ul>")
        out += [f"<li><code>{e(name)}</code>: {e(err)}</li>" for name, err in failed]
        out.append("</ul>")
    out.append('<p class="muted">Made by <code>throng report</code> (scripts/report.py).</p>')
    out.append("</body></html>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


ALT = {
    "agents.png": "agents remaining over time",
    "exits.png": "agents out and flow per exit over time",
    "areas.png": "density and speed in the measurement areas over time",
    "lines.png": "crossings and flow of the measurement lines over time",
    "density.png": "map of the time-averaged density",
    "speed.png": "map of the time-averaged speed",
    "snapshot.png": "the agents coloured by speed",
    "travel.png": "histograms of travel time and distance",
    "formations.png": "RMS error and broken agents of the formations over time",
    "formation_snapshots.png": "the agents coloured by group at four moments of the formations",
}

NEEDED_FOR = {
    "metrics.csv": "agents.png",
    "exits.csv": "exits.png",
    "evacuated.csv": "travel.png",
    "areas.csv": "areas.png",
    "lines.csv": "lines.png",
    "maps/density.csv": "density.png",
    "maps/speed.csv": "speed.png",
    "geometry.json": "the floor plan on the maps",
    "summary.json": "the summary table",
    "trajectory/trajectory.*.csv": "snapshot.png",
    "formations.csv": "formations.png and formation_snapshots.png",
}
# needed as well when the run has formations (formations.csv)
NEEDED_WITH_FORMATIONS = {"trajectory/trajectory.*.csv": "formation_snapshots.png"}


def needed_for(name, formations=False):
    what = NEEDED_FOR.get(name)
    if what and formations and name in NEEDED_WITH_FORMATIONS:
        what += " and " + NEEDED_WITH_FORMATIONS[name]
    return f" (needed for {what})" if what else ""


# ---- main ---------------------------------------------------------------------------------------

class Context:
    pass


def main(argv):
    ap = argparse.ArgumentParser(prog="throng report",
                                 description="Figures and an HTML page of a throng run's output directory.")
    ap.add_argument("outdir", metavar="OUTDIR", help="the run's output directory (it holds run.json)")
    ap.add_argument("--out", metavar="DIR", help="where to write the report (default: OUTDIR/report)")
    ap.add_argument("--flow-window", metavar="SECONDS", type=float, default=5.0,
                    help="width of the moving average of exit flows (default: 5 s)")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.outdir):
        fail(2, f"{args.outdir}: no such directory")
    if not os.path.isfile(os.path.join(args.outdir, "run.json")):
        fail(2, f"{args.outdir} is not a throng output directory (it has no run.json)")
    if not (args.flow_window > 0 and math.isfinite(args.flow_window)):
        fail(2, f"--flow-window {args.flow_window}: expected a number of seconds > 0")
    report_dir = args.out or os.path.join(args.outdir, "report")

    mpl = load_matplotlib(os.path.isfile(os.path.join(args.outdir, "trajectory.h5")))
    import matplotlib.pyplot as plt
    import numpy as np

    try:
        os.makedirs(report_dir, exist_ok=True)
        probe = os.path.join(report_dir, ".write-test")
        with open(probe, "w", encoding="utf-8"):
            pass
        os.remove(probe)
    except OSError as err:
        fail(1, f"cannot write the report into {report_dir}: {err.strerror or err}")

    ctx = Context()
    ctx.mpl, ctx.plt, ctx.np = mpl, plt, np
    ctx.window = args.flow_window
    inp = ctx.inp = Inputs(args.outdir)
    ctx.run_json = inp.json("run.json")
    set_building(ctx.run_json)
    ctx.summary = inp.json("summary.json")
    ctx.metrics = inp.csv("metrics.csv", required=("step", "time", "agents"))
    ctx.exits_csv = inp.csv("exits.csv", required=("step", "time"))
    if ctx.exits_csv and not [h for h in ctx.exits_csv[0][2:] if h]:
        inp.problem("exits.csv", "no exit columns after step,time")
        ctx.exits_csv = None
    ctx.evacuated = inp.csv("evacuated.csv", required=("exit", "time", "travel_time", "distance"),
                            text_columns=("exit",))
    ctx.areas = inp.csv("areas.csv", required=("time", "area", "density", "mean_speed"), text_columns=("area",))
    ctx.lines = inp.csv("lines.csv", required=("time", "line", "crossings", "flow"), text_columns=("line",))
    ctx.density_map = read_map(inp, "maps/density.csv", np)
    ctx.speed_map = read_map(inp, "maps/speed.csv", np)
    ctx.geom = Geometry(inp.json("geometry.json"))
    ctx.frames = trajectory_frames(inp)
    # only runs with group formations write formations.csv: not missing in the others
    ctx.formations = None
    if os.path.isfile(inp.path("formations.csv")):
        ctx.formations = inp.csv("formations.csv", required=("step", "time", "formation", "group", "rms_error",
                                                             "broken"))
    ctx.formation_series = formation_series(ctx.formations[1], np) if ctx.formations else None
    ctx.facts = derive_facts(ctx)

    # figures of an earlier report in the same place would be mistaken for this run's
    for name in FIGURES:
        stale = os.path.join(report_dir, name)
        if os.path.isfile(stale):
            os.remove(stale)

    drawn, failed = [], []
    for name, draw in (("agents.png", fig_agents), ("exits.png", fig_exits), ("density.png",
                       lambda c: fig_map(c, "density")), ("speed.png", lambda c: fig_map(c, "speed")),
                       ("snapshot.png", fig_snapshot), ("formations.png", fig_formations),
                       ("formation_snapshots.png", fig_formation_snapshots), ("travel.png", fig_travel),
                       ("areas.png", fig_areas), ("lines.png", fig_lines)):
        try:
            made = draw(ctx)
            if made is None:
                continue
            fig, caption = made
            fig.savefig(os.path.join(report_dir, name))
            plt.close(fig)
            drawn.append((name, caption))
        except Exception as err:  # one bad input must not cost the other figures
            plt.close("all")
            failed.append((name, f"{type(err).__name__}: {err}"))
    if ctx.evacuated is not None and not ctx.evacuated[1]:
        failed.append(("travel.png", "no agent has left (evacuated.csv has no rows)"))
    if ctx.formations is not None and ctx.formation_series is None:
        failed.append(("formations.png", "formations.csv has no rows"))

    ctx.exit_table = exit_table(ctx) if ctx.evacuated else []
    ctx.floor_table = floor_table(ctx, np)
    if ctx.exit_table:
        write_exit_table_csv(ctx.exit_table, os.path.join(report_dir, "exit_table.csv"))
    page = os.path.join(report_dir, "index.html")
    try:
        write_page(ctx, drawn, failed, page)
    except OSError as err:
        fail(1, f"cannot write {page}: {err.strerror or err}")
    print(f"throng report: {page} ({len(drawn)} figure{'' if len(drawn) == 1 else 's'}"
          f"{', missing inputs: ' + ', '.join(inp.missing) if inp.missing else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
