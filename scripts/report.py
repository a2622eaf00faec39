#!/usr/bin/env python3
"""throng report: figures and an HTML page of an evacuation run's outputs.

Usage: report.py OUTDIR [--out DIR] [--flow-window SECONDS]
(normally run as `throng report OUTDIR`; docs/user-guide.md, "Reports").

Reads what the run wrote into OUTDIR (metrics.csv, exits.csv, evacuated.csv,
areas.csv, lines.csv, maps/density.csv, maps/speed.csv, maps/density_max.csv,
maps/time_above.csv, maps/last_occupied.csv, geometry.json, summary.json,
run.json, trajectory.h5 or trajectory/) and writes into OUTDIR/report/ (or
DIR): agents.png, exits.png, areas.png, lines.png, density.png, speed.png,
density_max.png, los.png, time_above.png, rset.png, snapshot.png, travel.png,
premovement.png, exit_table.csv and index.html. Each figure is drawn when its
inputs exist; the page lists the inputs that were missing or unreadable, and
the figures that were not drawn with the reason (the three newer maps are not
in the output of runs made before throng wrote them).

With the environment variable THRONG_REPORT_LAYOUT set, layout.json records
where each figure's labels, curves and legends lie (in pixels), so that
tests can check that no two labels overlap (tests/report/check_report.py).

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

FIGURES = ("agents.png", "exits.png", "areas.png", "lines.png", "density.png", "speed.png", "density_max.png",
           "los.png", "time_above.png", "rset.png", "snapshot.png", "travel.png", "premovement.png",
           "formations.png", "formation_snapshots.png")
DEBIAN_PYTHON = "/usr/bin/python3"
MANY_AGENTS = 50000  # above this, the snapshot draws dots instead of true-size circles
MANY_FORMATIONS = 10  # above this, formations.png draws thin lines and their mean, without a legend
TOP_EXITS = 8        # exits.png draws this many busiest exits as curves, the others as one grey band
PEAK_RADIUS = 10.0   # m: the snapshot's peak congestion counts the agents this close to the busiest exit
ZOOM = 36.0          # m: the side of the snapshot's square zoom on the busiest exit
QUEUE_RADIUS = 3.0   # m: an exit's congestion is the longest time above the threshold of cells this close
DEFAULT_THRESHOLD = 2.0  # 1/m²: measurement.maps.threshold when run.json does not give it
# Fruin's level of service of walkways: the upper density [persons/m²] of A to E (F above), and
# the usual colours, green (free) to red (crush)
LOS_NAMES = ("A", "B", "C", "D", "E", "F")
LOS_BOUNDS = (0.31, 0.43, 0.72, 1.08, 2.17)
LOS_COLOURS = ("#1a9850", "#91cf60", "#d9ef8b", "#fee08b", "#fc8d59", "#d73027")


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
        self.problems.append((name, relative(str(err) or type(err).__name__, self.dir)))

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


def relative(text, outdir):
    """text with the output directory's absolute path replaced by its name: a
    page that is passed on does not show where it was made."""
    name = os.path.basename(os.path.normpath(os.path.abspath(outdir))) or "."
    for full in {os.path.abspath(outdir), os.path.realpath(outdir)}:
        text = text.replace(full + os.sep, name + os.sep).replace(full, name)
    return text


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


def read_new_map(inp, name, np):
    """A map that runs before throng wrote it lack (maps/density_max.csv,
    time_above.csv, last_occupied.csv): (read_map's tuple or None, why not).
    Its absence is not a missing input but a figure not drawn."""
    if not os.path.isfile(inp.path(name)):
        return None, f"{name} is not in the output directory (runs made before throng wrote this map lack it)"
    data = read_map(inp, name, np)
    return data, (None if data is not None else f"{name} could not be read (see the inputs below)")


def map_threshold(run_json):
    """(measurement.maps.threshold [1/m²] of run.json, True) or (DEFAULT_THRESHOLD, False)."""
    maps = ((run_json or {}).get("measurement") or {}).get("maps") or {}
    value = number(maps.get("threshold")) if isinstance(maps, dict) else None
    return (value, True) if value is not None and value > 0 else (DEFAULT_THRESHOLD, False)


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
        widths = data.get("exit_widths")
        self.exit_widths = ({str(k): number(v) for k, v in widths.items() if number(v)}
                            if isinstance(widths, dict) else {})
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


def shape_width(pts):
    """An exit's width from its shape: the length of its segment, or for a
    polygon its longest edge (a door strip's side along the wall)."""
    ring = list(zip(pts, pts[1:] + pts[:1])) if len(pts) >= 3 else list(zip(pts, pts[1:]))
    return max(math.dist(a, b) for a, b in ring)


def distance_to_shape(x, y, pts, np):
    """Distance [m] of the points (x, y) to a segment (two points) or a polygon
    (0 inside it)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    closed = len(pts) >= 3
    d = np.full(x.shape, np.inf)
    inside = np.zeros(x.shape, dtype=bool)
    for (ax_, ay), (bx, by) in zip(pts, pts[1:] + (pts[:1] if closed else [])):
        vx, vy = bx - ax_, by - ay
        len2 = vx * vx + vy * vy
        t = np.clip(((x - ax_) * vx + (y - ay) * vy) / len2, 0.0, 1.0) if len2 > 0 else 0.0
        d = np.minimum(d, np.hypot(x - (ax_ + t * vx), y - (ay + t * vy)))
        if closed and ay != by:  # even-odd ray crossing to the right
            cross = ((ay > y) != (by > y)) & (x < ax_ + (y - ay) * vx / (by - ay if by != ay else 1.0))
            inside ^= cross
    return np.where(inside, 0.0, d)


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


def draw_geometry(ax, geom, mpl, label_exits=True, measurement=True, view=None):
    """Walls, holes, obstacles, exits, measurement areas and lines, over the data. Returns the
    labels of the exits, areas and lines (Label; make_room places them), those whose place lies
    in `view` (x0, y0, x1, y1) when given."""
    from matplotlib.patches import PathPatch, Polygon
    from matplotlib.path import Path
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
    bounds = geom.bounds()
    shown = (lambda p: view[0] <= p[0] <= view[2] and view[1] <= p[1] <= view[3]) if view else (lambda p: True)
    many = len(geom.exits) * label_exits + (len(geom.areas) + len(geom.lines)) * measurement > 20
    size, small = (7.5, 7.0) if many else (9.0, 8.0)  # a stadium's 47 names need room
    exits, others = [], []
    if measurement:
        for name, pts in geom.areas.items():
            ax.add_patch(Polygon(pts, closed=True, facecolor="none", edgecolor=AREA_COLOUR, linewidth=1.0,
                                 linestyle=(0, (4, 2)), zorder=6))
            # at the area's top left corner
            top = max(p[1] for p in pts)
            corner = (min(p[0] for p in pts if p[1] >= top - 1e-9), top)
            if shown(corner):
                others.append(Label(name, corner, AREA_COLOUR, small, outward=outward(corner, bounds), kind="area"))
        for name, pts in geom.lines.items():
            xs, ys = zip(*pts)
            ax.plot(xs, ys, color=LINE_COLOUR, linewidth=1.4, linestyle=(0, (6, 2, 1, 2)), zorder=6)
            # at the end that is higher up (or further right)
            end = pts[max(range(len(pts)), key=lambda i: (pts[i][1], pts[i][0]))]
            if shown(end):
                others.append(Label(name, end, LINE_COLOUR, small, outward=outward(end, bounds), kind="line"))
    for name, pts in geom.exits.items():
        if len(pts) == 2:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, color=EXIT_COLOUR, linewidth=4, solid_capstyle="butt", zorder=7)
        else:
            ax.add_patch(Polygon(pts, closed=True, facecolor=EXIT_COLOUR, edgecolor=EXIT_COLOUR, alpha=0.85,
                                 linewidth=1.5, zorder=7))
        c = centroid(pts)
        xs, ys = zip(*pts)
        # unlabelled exits are still kept clear of the other labels
        exits.append(Label(name, c, EXIT_COLOUR, size, weight="bold", outward=outward(c, bounds), kind="exit",
                           extent=(min(xs), min(ys), max(xs), max(ys)), drawn=label_exits and shown(c)))
    return exits + others  # exits first: they get the places nearest to them


class Label:
    """A name to write beside a place on a map; place_labels chooses where."""

    def __init__(self, text, anchor, colour, size, weight="normal", outward=(0.0, 1.0), kind="exit",
                 extent=None, drawn=True):
        self.text, self.anchor, self.colour, self.size, self.weight = text, anchor, colour, size, weight
        self.outward, self.kind, self.drawn = outward, kind, drawn
        self.extent = extent  # (x0, y0, x1, y1): what is labelled, which other labels keep clear of
        self.artist = None
        self.size_px = None


def outward(p, bounds):
    """Unit vector from the middle of the world towards p, the sides weighed
    by the world's size: labels go there, outside the plan, off the data."""
    if not bounds:
        return 0.0, 1.0
    mx, my = (bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2
    ux = (p[0] - mx) / max(bounds[2] - bounds[0], 1e-9)
    uy = (p[1] - my) / max(bounds[3] - bounds[1], 1e-9)
    n = math.hypot(ux, uy)
    return (ux / n, uy / n) if n > 1e-6 else (0.0, 1.0)


LABEL_DIRECTIONS = [(math.cos(k * math.pi / 8), math.sin(k * math.pi / 8)) for k in range(16)]
LABEL_DISTANCES = (4, 10, 18, 28, 40, 55, 72, 92, 115, 140)  # points from the labelled place
LABEL_NEAR = 10   # points: a label further away gets a leader line
LABEL_HALO = 1.5  # pixels of white outline around a label, kept clear too


def label_candidates(direction):
    """(distance in points, unit direction) in the order tried: near before far,
    away from the middle before towards it (which covers the plan)."""
    ux, uy = direction
    order = sorted((d * (1 + 2.0 * (1 - (dx * ux + dy * uy))), d, dx, dy)
                   for d in LABEL_DISTANCES for dx, dy in LABEL_DIRECTIONS)
    return [(d, dx, dy) for _, d, dx, dy in order]


def label_align(dx, dy):
    return ("left" if dx > 0.5 else "right" if dx < -0.5 else "center",
            "bottom" if dy > 0.5 else "top" if dy < -0.5 else "center")


def place_labels(ax, labels, renderer, inside=False):
    """Greedy placement: each label (exits first) goes to the first candidate
    place (label_candidates) where its box, in display coordinates, overlaps
    no label placed before it and no exit (and, `inside`, stays within the
    axes); where none is free, where it overlaps least. Labels moved beyond
    LABEL_NEAR get a leader line. Returns the boxes of the labels drawn."""
    import matplotlib.patheffects as pe
    halo = [pe.withStroke(linewidth=3, foreground="white")]
    pt = ax.figure.dpi / 72.0
    to_display = ax.transData.transform
    for lab in labels:
        if lab.artist is not None:
            lab.artist.remove()
            lab.artist = None
        if lab.size_px is None and lab.drawn:
            t = ax.text(0, 0, lab.text, fontsize=lab.size, fontweight=lab.weight)
            bb = t.get_window_extent(renderer)
            lab.size_px = (bb.width, bb.height)
            t.remove()
    keep_clear = []  # the exits, as display boxes, and whose they are
    for lab in labels:
        if lab.extent is not None:
            (a, b), (c, d) = to_display([lab.extent[:2], lab.extent[2:]])
            keep_clear.append(((min(a, c) - 1, min(b, d) - 1, max(a, c) + 1, max(b, d) + 1), lab))

    def overlap(box, boxes):
        return sum(max(0.0, min(box[2], o[2]) - max(box[0], o[0])) * max(0.0, min(box[3], o[3]) - max(box[1], o[1]))
                   for o in boxes)

    frame = tuple(ax.get_window_extent(renderer).extents)
    placed = []
    for lab in labels:
        if not lab.drawn:
            continue
        px, py = to_display(lab.anchor)
        w, h = lab.size_px
        others = [b for b, who in keep_clear if who is not lab]
        best = None
        for d, dx, dy in label_candidates(lab.outward):
            ox, oy = px + d * pt * dx, py + d * pt * dy
            ha, va = label_align(dx, dy)
            x0 = ox if ha == "left" else ox - w if ha == "right" else ox - w / 2
            y0 = oy if va == "bottom" else oy - h if va == "top" else oy - h / 2
            box = (x0 - LABEL_HALO, y0 - LABEL_HALO, x0 + w + LABEL_HALO, y0 + h + LABEL_HALO)
            cost = overlap(box, placed) + overlap(box, others)
            if inside:  # the area outside the axes
                cost += (box[2] - box[0]) * (box[3] - box[1]) - overlap(box, [frame])
            if best is None or cost < best[0]:
                best = (cost, d, dx, dy, ha, va, box)
            if cost == 0:
                break
        _, d, dx, dy, ha, va, box = best
        placed.append(box)
        leader = dict(arrowprops=dict(arrowstyle="-", color=lab.colour, linewidth=0.7, shrinkA=1, shrinkB=1.5)) \
            if d > LABEL_NEAR else {}
        lab.artist = ax.annotate(lab.text, lab.anchor, xytext=(d * dx, d * dy), textcoords="offset points", ha=ha,
                                 va=va, color=lab.colour, fontsize=lab.size, fontweight=lab.weight, zorder=9,
                                 path_effects=halo, annotation_clip=False, **leader)
        lab.artist.set_gid(f"label:{lab.kind}")
    return placed


def make_room(fig, axes_labels):
    """Place each map's labels (place_labels), then widen its limits until the
    labels lie inside it, so that they overlap neither the axis labels, the
    title nor the colour bar; and again, since the wider limits moved the
    places. An entry (ax, labels, True) keeps its limits (a zoomed panel)."""
    for _ in range(6):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        changed = False
        for entry in axes_labels:
            ax, labels = entry[0], entry[1]
            if not labels:
                continue
            fixed = len(entry) > 2 and entry[2]
            boxes = place_labels(ax, labels, renderer, inside=fixed)
            if not boxes or fixed:
                continue
            inv = ax.transData.inverted()
            x0, x1 = ax.get_xlim()
            y0, y1 = ax.get_ylim()
            pad = 0.01 * max(x1 - x0, y1 - y0)
            nx0, nx1, ny0, ny1 = x0, x1, y0, y1
            for bb in boxes:
                (a, b), (c, d) = inv.transform([bb[:2], bb[2:]])
                nx0, nx1 = min(nx0, a - pad), max(nx1, c + pad)
                ny0, ny1 = min(ny0, b - pad), max(ny1, d + pad)
            # growth under a thousandth is rounding: stop there
            if max(x0 - nx0, nx1 - x1, y0 - ny0, ny1 - y1) > 1e-3 * max(x1 - x0, y1 - y0):
                ax.set_xlim(nx0, nx1)
                ax.set_ylim(ny0, ny1)
                changed = True
        if not changed:
            return
    fig.canvas.draw()  # the last widening moved the places under the labels
    for entry in axes_labels:
        if entry[1]:
            place_labels(entry[0], entry[1], fig.canvas.get_renderer(), inside=len(entry) > 2 and entry[2])


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

def palette(plt):
    """60 distinct colours: tab10's ten, then their light partners in tab20,
    then tab20b and tab20c (a stadium's 11 lines or 28 exits repeat none)."""
    tab20 = [plt.get_cmap("tab20")(k) for k in range(20)]
    colours = tab20[0::2] + tab20[1::2]
    for name in ("tab20b", "tab20c"):
        colours += [plt.get_cmap(name)(k) for k in range(20)]
    return colours


def colour_of(names, plt):
    colours = palette(plt)
    return {n: colours[k % len(colours)] for k, n in enumerate(names)}


def legend_beside(ax, **kwargs):
    """A legend right of the axes, where it covers no data."""
    kwargs.setdefault("framealpha", 0.9)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kwargs)


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
    legend_beside(ax)
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

    def total(name):
        n = counts[name]
        return float(n[np.isfinite(n)][-1]) if np.isfinite(n).any() else 0.0

    # the busiest exits as curves; with many exits, the others as one grey band (their range): a
    # stadium's 28 curves were spaghetti
    ranked = sorted(names, key=lambda n: -total(n))
    top = ranked if len(names) <= TOP_EXITS + 1 else ranked[:TOP_EXITS]
    rest = [n for n in ranked if n not in top]
    colours = colour_of(top, plt)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6.4), sharex=True)
    window = flow_window(ctx, t)
    for name in top:
        n = counts[name]
        label = f"{name} ({total(name):.0f})"
        if len(t) == 1:
            a1.plot(t, n, "o", color=colours[name], label=label)
        else:
            a1.step(t, n, where="post", color=colours[name], linewidth=1.6, label=label)
        tq, q = moving_flow(t, n, window, np)
        a2.plot(tq, q, color=colours[name], linewidth=1.6, label=name)
    if rest:
        grey = "#9a9a9a"
        out = np.array([counts[n] for n in rest])
        flows = [moving_flow(t, counts[n], window, np) for n in rest]
        tq = flows[0][0]
        q = np.array([np.interp(tq, tt, qq) if len(tt) else np.zeros_like(tq) for tt, qq in flows])
        with warnings.catch_warnings():  # a time at which no exit has a count
            warnings.simplefilter("ignore", RuntimeWarning)
            a1.fill_between(t, np.nanmin(out, axis=0), np.nanmax(out, axis=0), step="post", color=grey, alpha=0.45,
                            linewidth=0, label=f"{len(rest)} other exits, range ({sum(total(n) for n in rest):.0f})")
        a2.fill_between(tq, q.min(axis=0), q.max(axis=0), color=grey, alpha=0.45, linewidth=0,
                        label=f"{len(rest)} other exits, range")
    a1.set_ylabel("agents out (cumulative)")
    a1.set_title("Exits: agents out and flow")
    a1.set_ylim(bottom=0)
    a1.grid(True, alpha=0.3)
    legend_beside(a1, title="exit (total)", fontsize=8)
    a2.set_ylabel(f"flow [1/s], {window:.3g} s average")
    a2.set_xlabel("time [s]")
    a2.set_ylim(bottom=0)
    a2.grid(True, alpha=0.3)
    if rest:
        legend_beside(a2, handles=a2.get_legend_handles_labels()[0][-1:], fontsize=8)
    caption = (f"Top: agents that have left through each exit, cumulative ({source}); the legend gives each "
               f"exit's total. Bottom: the flow through each exit in agents per second, averaged over a "
               f"centred window of {window:.3g} s.")
    if rest:
        caption += (f" The {len(top)} exits that let the most agents out are drawn as curves, in the same colours "
                    f"in both panels; the grey band spans the other {len(rest)} exits, from the lowest to the "
                    f"highest of them at each time (the exit table below gives each).")
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
    legend_beside(a1, title="area", fontsize=8 if len(names) > 8 else None, ncol=(len(names) + 19) // 20)
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
    legend_beside(a1, title="line", fontsize=8 if len(names) > 8 else None, ncol=(len(names) + 19) // 20)
    a2.set_ylabel("flow [1/s]")
    a2.set_xlabel("time [s]")
    legend_beside(a2, title=f"{window:.3g} s average", fontsize=8 if len(names) > 8 else None,
                  ncol=(len(names) + 19) // 20)
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


def white_zero_cmap(mpl, plt, name, base_name):
    """base_name's colours from white at 0 (never), transparent where nan."""
    base = plt.get_cmap(base_name)
    colours = ["#ffffff"] + [base(x) for x in (0.15, 0.35, 0.55, 0.75, 0.9, 1.0)]
    cmap = mpl.colors.LinearSegmentedColormap.from_list(name, colours, N=256)
    cmap.set_bad((0, 0, 0, 0))
    return cmap


# the maps: (file, title, colour bar label, colour map, the scale stops at the 99.5th percentile)
MAPS = {
    "density": ("maps/density.csv", "Density, averaged over time", "density [1/m²]", "density", True),
    "speed": ("maps/speed.csv", "Speed, averaged over time", "speed [m/s]", "viridis", True),
    "density_max": ("maps/density_max.csv", "Highest density", "density [1/m²]", "density", True),
    # times: the highest is what an engineer looks for, so the scale never stops short of it
    "time_above": ("maps/time_above.csv", "Time at or above the density threshold", "time [s]", "time", False),
    "last_occupied": ("maps/last_occupied.csv", "When each place was cleared (RSET map)", "last occupied [s]",
                      "cividis", False),
}
NEW_MAPS = ("density_max", "time_above", "last_occupied")  # not in the output of runs before them


def map_axes(ctx, data):
    """A figure with one map axes over the floor plan: (fig, ax, grid, extent, cell)."""
    plt = ctx.plt
    grid, x0, y0, cell = data
    ny, nx = grid.shape
    extent = (x0, x0 + nx * cell, y0, y0 + ny * cell)
    fig, ax = plt.subplots(figsize=map_figsize(ctx.geom, (extent[0], extent[2], extent[1], extent[3])))
    draw_floor(ax, ctx.geom, ctx.mpl)
    return fig, ax, grid, extent, cell


def finish_map(ctx, fig, ax, extent, title):
    labels = draw_geometry(ax, ctx.geom, ctx.mpl)
    ax.set_aspect("equal")
    map_limits(ax, ctx.geom, (extent[0], extent[2], extent[1], extent[3]))
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(title)
    return labels


def fig_map(ctx, which):
    plt, np, mpl = ctx.plt, ctx.np, ctx.mpl
    data = ctx.maps.get(which)
    if data is None:
        return None
    source, title, label, colours, clip = MAPS[which]
    fig, ax, grid, extent, cell = map_axes(ctx, data)
    geom = ctx.geom
    finite = grid[np.isfinite(grid)]
    peak = float(finite.max()) if finite.size else 1.0
    top = float(np.percentile(finite, 99.5)) if finite.size and clip else peak
    if not top > 0:
        top = peak if peak > 0 else 1.0
    if colours == "density":
        cmap = density_cmap(mpl, plt)
    elif colours == "time":
        cmap = white_zero_cmap(mpl, plt, "time0white", "YlGnBu")
    else:
        cmap = plt.get_cmap(colours).copy()
        cmap.set_bad((0, 0, 0, 0))
    if which == "time_above":
        title = f"Time at or above {ctx.threshold:g} persons/m²"
    im = ax.imshow(np.ma.masked_invalid(grid), origin="lower", extent=extent, cmap=cmap, vmin=0, vmax=top,
                   interpolation="nearest", zorder=1)
    labels = finish_map(ctx, fig, ax, extent, title)
    from mpl_toolkits.axes_grid1 import make_axes_locatable
    cax = make_axes_locatable(ax).append_axes("right", size="3.5%", pad=0.12)
    cb = fig.colorbar(im, cax=cax, extend="max" if peak > top * 1.0001 else "neither")
    cb.set_label(label)
    make_room(fig, [(ax, labels)])
    what = {"density": "the time-averaged number of agents per square metre in each cell",
            "speed": "the mean speed of the agents that were in each cell",
            "density_max": "the highest density in each cell in any one map sample, agents per square metre",
            "time_above": f"the seconds during which each cell's density was at or above {ctx.threshold:g} "
                          f"persons/m²",
            "last_occupied": "when each place was cleared, the required safe egress time place by place: the "
                             "time of the last map sample in which the cell held an agent"}[which]
    caption = f"{what[:1].upper()}{what[1:]} ({cell:g} m cells, {source}"
    caption += f"; the threshold: {ctx.threshold_note}); white: never" if which == "time_above" else ")"
    if not finite.size:
        caption += "; every cell is empty (no agent was measured)"
    elif peak > top * 1.0001:
        caption += f"; the colour scale stops at {top:.3g} (99.5th percentile), the highest cell is {peak:.3g}"
    elif which == "time_above":
        caption += f"; the longest is {peak:.1f} s"
    elif which == "last_occupied":
        j, i = np.unravel_index(np.nanargmax(grid), grid.shape)
        caption += (f"; the last cell cleared, at {peak:.1f} s, is the one around ({data[1] + (i + 0.5) * cell:.0f}, "
                    f"{data[2] + (j + 0.5) * cell:.0f}) m")
    caption += ". " + geometry_legend(geom, empty_cells=True)
    return fig, caption


def los_levels(grid, np):
    """Fruin's level of service (0 = A ... 5 = F) of each cell with a finite
    density above 0, -1 elsewhere: A up to 0.31 persons/m², B up to 0.43, ...
    E up to 2.17 (each upper bound included), F above."""
    occupied = np.isfinite(grid) & (np.nan_to_num(grid, nan=0.0) > 0)
    level = np.digitize(np.where(occupied, grid, 0.0), LOS_BOUNDS, right=True)
    return np.where(occupied, level, -1)


def los_table(ctx):
    """[(level, band, cells, share of the occupied cells in %, area m²)] of the density_max map, or None."""
    data = ctx.maps.get("density_max")
    if data is None:
        return None
    np = ctx.np
    level = los_levels(data[0], np)
    occupied = int((level >= 0).sum())
    rows = []
    for k, name in enumerate(LOS_NAMES):
        n = int((level == k).sum())
        lo = LOS_BOUNDS[k - 1] if k else None
        hi = LOS_BOUNDS[k] if k < len(LOS_BOUNDS) else None
        band = (f"≤ {hi:g}" if lo is None else f"> {lo:g}" if hi is None else f"{lo:g} – {hi:g}")
        rows.append((name, band, n, 100.0 * n / occupied if occupied else None, n * data[3] ** 2))
    return rows


def fig_los(ctx):
    np, mpl = ctx.np, ctx.mpl
    data = ctx.maps.get("density_max")
    if data is None:
        return None
    fig, ax, grid, extent, cell = map_axes(ctx, data)
    level = los_levels(grid, np)
    cmap = mpl.colors.ListedColormap(LOS_COLOURS)
    cmap.set_bad((0, 0, 0, 0))
    ax.imshow(np.ma.masked_less(level, 0), origin="lower", extent=extent, cmap=cmap, vmin=-0.5, vmax=5.5,
              interpolation="nearest", zorder=1)
    labels = finish_map(ctx, fig, ax, extent, "Level of service (Fruin, walkways), the worst each cell reached")
    from matplotlib.patches import Patch
    table = los_table(ctx)
    handles = [Patch(facecolor=c, edgecolor="#555555", linewidth=0.5,
                     label=f"{name}  {band}" + (f"  ({share:.1f} %)" if share is not None else ""))
               for c, (name, band, _, share, _) in zip(LOS_COLOURS, table)]
    legend_beside(ax, handles=handles, title="LOS: persons/m²\n(share of cells)", fontsize=8.5)
    make_room(fig, [(ax, labels)])
    caption = (f"Fruin's level of service for walkways in each cell at its worst: the band of the highest density "
               f"the cell reached in one map sample ({cell:g} m cells, maps/density_max.csv): A up to 0.31 "
               f"persons/m², B 0.31–0.43, C 0.43–0.72, D 0.72–1.08, E 1.08–2.17, F above 2.17 (each upper bound "
               f"belongs to its band). The legend and the table below give the share of the cells any agent "
               f"entered at each level. " + geometry_legend(ctx.geom, empty_cells=True))
    if not (level >= 0).any():
        caption += " Every cell is empty (no agent was measured)."
    one = 1.0 / cell ** 2
    if one > LOS_BOUNDS[0]:  # the map cannot show the levels below one agent in a cell
        caption += (f" One agent alone in a {cell:g} m cell is {one:.3g} persons/m², level "
                    f"{LOS_NAMES[int(los_levels(np.array([one]), np)[0])]}: lower levels need larger cells "
                    f"(measurement.maps.cell).")
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
    """The agents at the peak of congestion of an evacuation (whole plan and a
    zoom on the busiest exit); other runs: mid-run and the last frame."""
    if not ctx.frames:
        return None
    target = busiest_exit(ctx)
    return snapshot_peak(ctx, *target) if target else snapshot_mid_last(ctx)


def busiest_exit(ctx):
    """(name, agents out) of the exit that let the most agents out, of those on the plan; None without."""
    counts, _ = exit_counts(ctx)
    best = None
    for name, n in counts.items():
        if n and name in ctx.geom.exits and (best is None or n > best[1]):
            best = (name, n)
    return best


def peak_frame(ctx, pts):
    """(frame index, agents within PEAK_RADIUS of the exit `pts` then, True) of
    the frame with the most such agents (the earliest of equals); when no agent
    ever came so close, (the frame with the most agents after the first, 0,
    False). Long runs are searched every few frames, then around the best."""
    np, frames = ctx.np, ctx.frames
    near, size = {}, {}

    def measure(k):
        x, y, _, _ = read_frame(frames[k][2], np)
        near[k] = int((distance_to_shape(x, y, pts, np) <= PEAK_RADIUS).sum())
        size[k] = len(x)

    stride = max(1, math.ceil(len(frames) / 150))
    for k in range(0, len(frames), stride):
        measure(k)
    best = max(near, key=lambda k: (near[k], -k))
    if stride > 1:
        for k in range(max(0, best - stride + 1), min(len(frames), best + stride)):
            if k not in near:
                measure(k)
        best = max(near, key=lambda k: (near[k], -k))
    if near[best] > 0:
        return best, near[best], True
    later = [k for k in size if k > 0] or list(size)
    return max(later, key=lambda k: (size[k], -k)), 0, False


def draw_agents(ax, np, x, y, speed, r, cmap, norm, dots_px=None):
    """Circles of the agents' radius coloured by speed, or dots of dots_px pixels
    (a plan so large that the circles would be under a pixel)."""
    from matplotlib.collections import EllipseCollection
    if not len(x):
        ax.text(0.5, 0.5, "no agents", transform=ax.transAxes, ha="center", va="center", fontsize=12,
                color="#555555")
    elif len(x) > MANY_AGENTS:  # dots of a pixel and a half: a crowd shows as a mass, not as nothing
        ax.scatter(x, y, c=speed, cmap=cmap, norm=norm, s=(1.5 * 72 / ax.figure.dpi) ** 2, linewidths=0, zorder=2)
    elif dots_px:
        ax.scatter(x, y, c=speed, cmap=cmap, norm=norm, s=(dots_px * 72 / ax.figure.dpi) ** 2, linewidths=0,
                   zorder=2)
    else:
        coll = EllipseCollection(2 * r, 2 * r, np.zeros_like(r), units="xy", offsets=np.column_stack([x, y]),
                                 offset_transform=ax.transData, cmap=cmap, norm=norm, linewidths=0.3,
                                 edgecolors="#333333", zorder=2)
        coll.set_array(speed)
        ax.add_collection(coll)


def snapshot_peak(ctx, name, out):
    plt, np, mpl = ctx.plt, ctx.np, ctx.mpl
    from matplotlib.patches import Rectangle
    frames, geom = ctx.frames, ctx.geom
    pts = geom.exits[name]
    k, near, found = peak_frame(ctx, pts)
    x, y, speed, r = read_frame(frames[k][2], np)
    # the zoom: a square around the exit, drawn halfway towards the agents near it (inside)
    cx, cy = centroid(pts)
    close = distance_to_shape(x, y, pts, np) <= ZOOM / 2
    if close.any():
        cx, cy = cx + 0.5 * (float(x[close].mean()) - cx), cy + 0.5 * (float(y[close].mean()) - cy)
    extent = None
    if geom.bounds() is None and len(x):
        extent = (float(x.min()), float(y.min()), float(x.max()), float(y.max()))
    b = geom.bounds() or extent or (cx - ZOOM / 2, cy - ZOOM / 2, cx + ZOOM / 2, cy + ZOOM / 2)
    # within the plan (and 2 m beyond, to see the door), or on its middle where it is smaller
    cx = min(max(cx, b[0] - 2 + ZOOM / 2), b[2] + 2 - ZOOM / 2) if b[2] - b[0] + 4 > ZOOM else (b[0] + b[2]) / 2
    cy = min(max(cy, b[1] - 2 + ZOOM / 2), b[3] + 2 - ZOOM / 2) if b[3] - b[1] + 4 > ZOOM else (b[1] + b[3]) / 2
    view = (cx - ZOOM / 2, cy - ZOOM / 2, cx + ZOOM / 2, cy + ZOOM / 2)
    ratio = min(max((b[2] - b[0]) / max(b[3] - b[1], 1e-9), 0.4), 4.0)
    # a plan not much larger than the zoom shows the agents at their radius already: one panel
    single = max(b[2] - b[0], b[3] - b[1]) <= 2 * ZOOM
    width = 12.5
    panel_h = min((width - 1.8) / (ratio + (0 if single else 1)), 7.0)
    fig = plt.figure(figsize=(width, panel_h + 1.0), layout="constrained")
    if single:
        whole, zoom = fig.add_subplot(), None
    else:
        grid = fig.add_gridspec(1, 2, width_ratios=[ratio, 1])
        whole, zoom = fig.add_subplot(grid[0]), fig.add_subplot(grid[1])
    vmax = float(np.nanmax(speed)) if len(speed) and np.isfinite(speed).any() else 0.0
    norm = mpl.colors.Normalize(vmin=0, vmax=vmax if vmax > 0 else 1.0)
    cmap = plt.get_cmap("viridis")
    # agents narrower than a few pixels show no colour: dots of that size instead
    px_per_m = fig.dpi * (width - 1.8) * ratio / (ratio + (0 if single else 1)) / (1.06 * (b[2] - b[0]) or 1.0)
    dots = len(r) > 0 and 2 * float(np.median(r)) * px_per_m < 3.0
    draw_floor(whole, geom, mpl)
    draw_agents(whole, np, x, y, speed, r, cmap, norm, dots_px=3.0 if dots else None)
    labels, when = frame_panel(whole, ctx, geom, mpl, extent, frames[k])
    whole.set_title(f"peak congestion: {when}, {len(x)} agents")
    source = "trajectory.h5" if isinstance(frames[k][2], tuple) else "trajectory/"
    if found:
        caption = (f"The agents at the peak of congestion ({source}): {when}, the frame in which the most agents, "
                   f"{near}, were within {PEAK_RADIUS:g} m of the busiest exit, {name} ({out:.0f} agents out "
                   f"through it), coloured by speed.")
    else:
        caption = (f"The agents when the most were in the simulation after the first frame ({source}): {when} "
                   f"(no agent came within {PEAK_RADIUS:g} m of the busiest exit, {name}), coloured by speed.")
    drawn_as = (f"dots (more than {MANY_AGENTS} agents)" if len(x) > MANY_AGENTS
                else "dots (at this scale their circles would be under a pixel)" if dots
                else "circles of their radius")
    if single:
        whole.set_xlabel("x [m]")
        whole.set_ylabel("y [m]")
        cb = fig.colorbar(mpl.cm.ScalarMappable(norm=norm, cmap=cmap), ax=whole, shrink=0.85, pad=0.02)
        cb.set_label("speed [m/s]")
        make_room(fig, [(whole, labels)])
        return fig, caption + (f" The whole plan, {len(x)} agents drawn as {drawn_as} (the plan is not much larger "
                               f"than {ZOOM:g} m: no zoom).")
    whole.add_patch(Rectangle(view[:2], ZOOM, ZOOM, fill=False, edgecolor="black", linestyle="--", linewidth=1.2,
                              zorder=8))
    draw_floor(zoom, geom, mpl)
    inside = (x > view[0] - 2) & (x < view[2] + 2) & (y > view[1] - 2) & (y < view[3] + 2)
    draw_agents(zoom, np, x[inside], y[inside], speed[inside], r[inside], cmap, norm)
    zoom_labels = draw_geometry(zoom, geom, mpl, measurement=False, view=view)
    zoom.set_aspect("equal")
    zoom.set_xlim(view[0], view[2])
    zoom.set_ylim(view[1], view[3])
    zoom.set_title(f"{name}, {ZOOM:g} m across: {near} within {PEAK_RADIUS:g} m" if found
                   else f"{name}, {ZOOM:g} m across")
    for ax in (whole, zoom):
        ax.set_xlabel("x [m]")
    whole.set_ylabel("y [m]")
    cb = fig.colorbar(mpl.cm.ScalarMappable(norm=norm, cmap=cmap), ax=[whole, zoom], shrink=0.85, pad=0.02)
    cb.set_label("speed [m/s]")
    make_room(fig, [(whole, labels), (zoom, zoom_labels, True)])
    caption += (f" Left: the whole plan, {len(x)} agents drawn as {drawn_as}; the dashed square is the right "
                f"panel. Right: {ZOOM:g} m around {name}, the agents as circles of their true radius.")
    return fig, caption


def snapshot_mid_last(ctx):
    plt, np, mpl = ctx.plt, ctx.np, ctx.mpl
    from matplotlib.collections import EllipseCollection
    frames = ctx.frames
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
    legend_beside(a1, title="formation" if few else None)
    a2.set_ylabel("broken agents")
    a2.set_xlabel("time [s]")
    a2.set_ylim(bottom=0, top=max(1.0, float(np.nanmax(total)) * 1.05 if total.size else 1.0))
    a2.yaxis.set_major_locator(ctx.mpl.ticker.MaxNLocator(integer=True))
    a2.grid(True, alpha=0.3)
    if n > 1:
        legend_beside(a2, fontsize=8 if few and n > 4 else None, ncol=2 if few and n > 4 else 1)
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
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, framealpha=0.9)  # off the bars
        else:
            ax.text(0.5, 0.5, "no values", transform=ax.transAxes, ha="center", va="center")
        ax.set_xlabel(f"{what} [{unit}]")
        ax.set_ylabel("agents")
        ax.set_title(what.capitalize())
        ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return fig, (f"Travel time (from entering the simulation to leaving it) and distance walked of the "
                 f"{len(rows)} agents that left (evacuated.csv).")


def premovement(ctx):
    """(release times of the agents that left, None) or (None, why there is no histogram)."""
    ev = ctx.evacuated
    if not ev or not ev[1]:
        return None, None  # travel.png says so already
    if "release" not in ev[0]:
        return None, "evacuated.csv has no release column (a run made before throng wrote it)"
    np = ctx.np
    release = np.array([r.get("release", math.nan) for r in ev[1]])
    release = release[np.isfinite(release)]
    if not release.size:
        return None, "evacuated.csv has no release times"
    if not (release > 0).any():
        return None, ("every agent started to move at 0 s (evacuated.csv, release): the run modelled no "
                      "pre-movement time")
    return release, None


def fig_premovement(ctx):
    plt, np = ctx.plt, ctx.np
    release, _ = premovement(ctx)
    if release is None:
        return None
    fig, ax = plt.subplots(figsize=(8, 4))
    bins = min(40, max(5, int(math.sqrt(release.size)) * 2))
    ax.hist(release, bins=bins, color="#9467bd", alpha=0.85, edgecolor="white", linewidth=0.5)
    med, mean = float(np.median(release)), float(np.mean(release))
    q95 = float(np.percentile(release, 95))
    ax.axvline(med, color="black", linestyle="--", linewidth=1.2, label=f"median {med:.1f} s")
    ax.axvline(mean, color="black", linestyle=":", linewidth=1.2, label=f"mean {mean:.1f} s")
    ax.axvline(q95, color="#d62728", linestyle="-.", linewidth=1.2, label=f"95th percentile {q95:.1f} s")
    legend_beside(ax)
    ax.set_xlabel("pre-movement time: start of movement [s]")
    ax.set_ylabel("agents")
    ax.set_title("Pre-movement time")
    ax.set_xlim(left=0)
    ax.grid(True, axis="y", alpha=0.3)
    zero = int((release <= 0).sum())
    caption = (f"When each of the {release.size} agents that left started to move, the end of its pre-movement "
               f"time (evacuated.csv, column release; agents that did not leave are not in the file)")
    if zero:
        caption += f"; {zero} of them started at once (0 s)"
    return fig, caption + "."


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
    widths = s.get("exit_widths") if isinstance(s.get("exit_widths"), dict) else {}
    widths = {**ctx.geom.exit_widths, **widths}
    rows_ev = ctx.evacuated[1] if ctx.evacuated else []
    counts, _ = exit_counts(ctx)
    names = list(counts) if counts else sorted({r.get("exit") for r in rows_ev if r.get("exit")})
    congested = exit_congestion(ctx)
    table = []
    for name in names:
        t = sorted(r["time"] for r in rows_ev if r.get("exit") == name and math.isfinite(r.get("time", math.nan)))
        n = len(t)
        w = number(widths.get(name))
        # a run that does not give the width (an older one): the exit's shape does
        shaped = w is None and name in ctx.geom.exits
        if shaped:
            w = shape_width(ctx.geom.exits[name])
        row = {"exit": name, "people": n, "width": w, "width_from_shape": shaped, "first": t[0] if t else None,
               "last": t[-1] if t else None, "congested": congested.get(name)}
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


def exit_congestion(ctx):
    """{exit: the longest time above the density threshold [s] of the map cells
    whose centre lies within QUEUE_RADIUS of the exit (its segment or polygon)}
    from maps/time_above.csv: how long a queue stood there. Empty without the map."""
    data = ctx.maps.get("time_above")
    if data is None:
        return {}
    np = ctx.np
    grid, x0, y0, cell = data
    ny, nx = grid.shape
    out = {}
    for name, pts in ctx.geom.exits.items():
        xs, ys = zip(*pts)
        # only the cells of the exit's box widened by the radius: a large map has millions
        i0, i1 = (max(0, int(math.floor((v - x0) / cell))) for v in (min(xs) - QUEUE_RADIUS, max(xs) + QUEUE_RADIUS))
        j0, j1 = (max(0, int(math.floor((v - y0) / cell))) for v in (min(ys) - QUEUE_RADIUS, max(ys) + QUEUE_RADIUS))
        i1, j1 = min(nx - 1, i1), min(ny - 1, j1)
        if i1 < i0 or j1 < j0:
            continue
        cx, cy = np.meshgrid(x0 + (np.arange(i0, i1 + 1) + 0.5) * cell, y0 + (np.arange(j0, j1 + 1) + 0.5) * cell)
        near = distance_to_shape(cx, cy, pts, np) <= QUEUE_RADIUS
        if near.any():
            values = grid[j0:j1 + 1, i0:i1 + 1][near]
            # a cell no agent entered (nan) spent no time above the threshold
            out[name] = float(np.nanmax(values)) if np.isfinite(values).any() else 0.0
    return out


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
            "green_guide", "congested", "sustained", "flag")
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
    # the directory's name, not where it lies: the page is passed on
    sub = [f"Report of <code>{e(os.path.basename(os.path.normpath(os.path.abspath(ctx.inp.dir))))}</code>"]
    if state:
        sub.append(f"run state: <strong>{e(str(state))}</strong>")
    scen_file = (ctx.run_json or {}).get("scenario_file")
    if scen_file and os.path.isabs(str(scen_file)):  # where it lies is not the reader's business either
        scen_file = os.path.basename(str(scen_file))
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
        queue = ctx.maps.get("time_above") is not None
        out.append('<table class="exits"><tr><th>exit</th><th>width [m]</th><th>people out</th>'
                   '<th>first / last out [s]</th><th>active [s]</th><th>flow [p/s]</th><th>steady flow [p/s]</th>'
                   '<th>specific flow [p/(m s)]</th><th>hydraulic SFPE / Green Guide [s]</th>'
                   '<th>congested [s]</th><th></th></tr>')
        for r in table:
            fl = f'<strong>{e(r["flag"])}</strong>' if r["flag"] else ""
            out.append(
                f'<tr><td>{e(r["exit"])}</td><td class="num">{e(fmt(r["width"], "", 2))}'
                f'{" †" if r["width_from_shape"] else ""}</td>'
                f'<td class="num">{e(fmt(float(r["people"])))}</td>'
                f'<td class="num">{e(fmt(r["first"]))} / {e(fmt(r["last"]))}</td>'
                f'<td class="num">{e(fmt(r["active"]))}</td><td class="num">{e(fmt(r["flow"], "", 2))}</td>'
                f'<td class="num">{e(fmt(r["steady_flow"], "", 2))}</td>'
                f'<td class="num">{e(fmt(r["specific"], "", 2))}</td>'
                f'<td class="num">{e(fmt(r["sfpe"]))} / {e(fmt(r["green_guide"]))}</td>'
                f'<td class="num">{e(fmt(r["congested"]))}</td><td>{fl}</td></tr>')
        out.append("</table>")
        worst = [r for r in table if r["sfpe"] is not None]
        hyd = max((r["sfpe"] for r in worst), default=None)
        shaped = ("† width from the exit's shape on the plan (geometry.json): the length of its segment, or of a "
                  "polygon's longest edge, since the run does not give it. " if any(r["width_from_shape"]
                                                                                  for r in table) else "")
        if queue:
            congestion = (f"Congested: the longest time any map cell whose centre lies within {QUEUE_RADIUS:g} m "
                          f"of the exit (its segment or polygon) spent at or above {ctx.threshold:g} persons/m² "
                          f"({ctx.threshold_note}; maps/time_above.csv): how long a queue stood there. ")
        else:
            congestion = ("Congested: not known, the run did not write maps/time_above.csv (runs made before "
                          "throng wrote it). ")
        out.append(
            f'<p class="muted">Width: <code>exits[].width</code> as the run gives it (summary.json, geometry.json). '
            f'{e(shaped)}First / last out: the first and last agent through the exit (evacuated.csv); flow: '
            f'(people − 1) / (last − first). Steady flow: over the 10–90 % of an exit\'s leavings; specific flow: '
            f'steady flow per metre of width. Hydraulic estimate: first out + people / '
            f'(flow × width): SFPE {SFPE_FLOW} p/(m s) through the width less {SFPE_BOUNDARY} m per side, Green '
            f'Guide {GREEN_GUIDE_FLOW:.2f} p/(m s) (82 per metre and minute) through the clear width. '
            f'{e(congestion)}Flagged: '
            f'exits with a sustained stream (at least {SUSTAINED[0]} people over {SUSTAINED[1]:g} s) whose '
            f'specific flow lies outside {BAND[0]}–{BAND[1]} p/(m s), what people achieve through saturated '
            f'exits: above the band, faster than people pass a door; below it, the exit was not saturated or the '
            f'crowd was held up upstream. Slowest exit by the SFPE estimate: {e(fmt(hyd, "s"))} against the simulated evacuation time '
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
        if name == "los.png":
            out += los_html(ctx)

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


def los_html(ctx):
    """The table of the share of occupied cells at each level of service."""
    e = html.escape
    rows = los_table(ctx) or []
    total = sum(r[2] for r in rows)
    out = ['<table class="los"><tr><th>LOS</th><th>highest density [persons/m²]</th><th>cells</th>'
           '<th>area [m²]</th><th>share of occupied cells</th></tr>']
    for name, band, n, share, area in rows:
        out.append(f'<tr><td>{e(name)}</td><td>{e(band)}</td><td class="num">{n}</td>'
                   f'<td class="num">{e(fmt(area, "", 0))}</td>'
                   f'<td class="num">{"—" if share is None else f"{share:.1f} %"}</td></tr>')
    out.append(f'<tr><th>occupied</th><td></td><td class="num">{total}</td>'
               f'<td class="num">{e(fmt(sum(r[4] for r in rows), "", 0))}</td>'
               f'<td class="num">{"100.0 %" if total else "—"}</td></tr></table>')
    return out


ALT = {
    "agents.png": "agents remaining over time",
    "exits.png": "agents out and flow per exit over time",
    "areas.png": "density and speed in the measurement areas over time",
    "lines.png": "crossings and flow of the measurement lines over time",
    "density.png": "map of the time-averaged density",
    "speed.png": "map of the time-averaged speed",
    "density_max.png": "map of the highest density of each cell",
    "los.png": "map of Fruin's level of service, A to F, of each cell at its worst",
    "time_above.png": "map of the time each cell spent at or above the density threshold",
    "rset.png": "map of the time each place was last occupied",
    "snapshot.png": "the agents coloured by speed at the peak of congestion, and a zoom on the busiest exit",
    "travel.png": "histograms of travel time and distance",
    "premovement.png": "histogram of the pre-movement times",
    "formations.png": "RMS error and broken agents of the formations over time",
    "formation_snapshots.png": "the agents coloured by group at four moments of the formations",
}

NEEDED_FOR = {
    "metrics.csv": "agents.png",
    "exits.csv": "exits.png",
    "evacuated.csv": "travel.png, premovement.png and the exit table",
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

def record_layout(fig):
    """Where the figure's labels, curves and legends lie, in pixels (layout.json, for the tests):
    per axes its box, the boxes of the labels place_labels wrote (the text alone, without the
    leader line), the colours of the curves with a legend entry, and the legend's box."""
    from matplotlib.colors import to_hex
    from matplotlib.text import Text
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = lambda b: [round(float(v), 2) for v in (b.x0, b.y0, b.x1, b.y1)]  # noqa: E731
    out = []
    for ax in fig.axes:
        labels = [{"kind": t.get_gid()[6:], "text": t.get_text(), "box": box(Text.get_window_extent(t, renderer))}
                  for t in ax.texts if (t.get_gid() or "").startswith("label:")]
        curves = [{"label": ln.get_label(), "colour": to_hex(ln.get_color())} for ln in ax.get_lines()
                  if not ln.get_label().startswith("_")]
        curves += [{"label": c.get_label(), "colour": to_hex(c.get_facecolor()[0])} for c in ax.collections
                   if not c.get_label().startswith("_") and len(c.get_facecolor())]
        leg = ax.get_legend()
        out.append({"title": ax.get_title(), "box": box(ax.get_window_extent(renderer)),
                    "xlim": list(ax.get_xlim()), "ylim": list(ax.get_ylim()), "labels": labels, "curves": curves,
                    "legend": box(leg.get_window_extent(renderer)) if leg else None})
    return out


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
    ctx.maps, not_drawn = {}, {}
    for key in ("density", "speed"):
        ctx.maps[key] = read_map(inp, MAPS[key][0], np)
    for key in NEW_MAPS:
        ctx.maps[key], not_drawn[key] = read_new_map(inp, MAPS[key][0], np)
    ctx.threshold, given = map_threshold(ctx.run_json)
    ctx.threshold_note = ("measurement.maps.threshold in run.json" if given else
                          f"run.json does not give measurement.maps.threshold: the default, "
                          f"{DEFAULT_THRESHOLD:g} persons/m², is assumed")
    ctx.geom = Geometry(inp.json("geometry.json"))
    ctx.frames = trajectory_frames(inp)
    # frames after the last step hold only the rows of the last leavers (trajectory.h5), nobody present
    last_step = number((ctx.run_json or {}).get("last_step"))
    if last_step is not None and ctx.frames:
        ctx.frames = [f for f in ctx.frames if f[0] <= last_step] or ctx.frames[:1]
    # only runs with group formations write formations.csv: not missing in the others
    ctx.formations = None
    if os.path.isfile(inp.path("formations.csv")):
        ctx.formations = inp.csv("formations.csv", required=("step", "time", "formation", "group", "rms_error",
                                                             "broken"))
    ctx.formation_series = formation_series(ctx.formations[1], np) if ctx.formations else None
    ctx.facts = derive_facts(ctx)

    # figures of an earlier report in the same place would be mistaken for this run's
    for name in FIGURES + ("layout.json",):
        stale = os.path.join(report_dir, name)
        if os.path.isfile(stale):
            os.remove(stale)

    drawn, failed = [], []
    layout = {} if os.environ.get("THRONG_REPORT_LAYOUT") else None
    for name, draw in (("agents.png", fig_agents), ("exits.png", fig_exits), ("density.png",
                       lambda c: fig_map(c, "density")), ("speed.png", lambda c: fig_map(c, "speed")),
                       ("density_max.png", lambda c: fig_map(c, "density_max")), ("los.png", fig_los),
                       ("time_above.png", lambda c: fig_map(c, "time_above")),
                       ("rset.png", lambda c: fig_map(c, "last_occupied")),
                       ("snapshot.png", fig_snapshot), ("formations.png", fig_formations),
                       ("formation_snapshots.png", fig_formation_snapshots), ("travel.png", fig_travel),
                       ("premovement.png", fig_premovement), ("areas.png", fig_areas), ("lines.png", fig_lines)):
        try:
            made = draw(ctx)
            if made is None:
                continue
            fig, caption = made
            if layout is not None:
                layout[name] = record_layout(fig)
            fig.savefig(os.path.join(report_dir, name))
            plt.close(fig)
            drawn.append((name, relative(caption, inp.dir)))
        except Exception as err:  # one bad input must not cost the other figures
            plt.close("all")
            failed.append((name, relative(f"{type(err).__name__}: {err}", inp.dir)))
    if ctx.evacuated is not None and not ctx.evacuated[1]:
        failed.append(("travel.png", "no agent has left (evacuated.csv has no rows)"))
    for key, figure in (("density_max", "density_max.png"), ("density_max", "los.png"),
                        ("time_above", "time_above.png"), ("last_occupied", "rset.png")):
        if not_drawn.get(key):
            failed.append((figure, not_drawn[key]))
    why = premovement(ctx)[1]
    if why:
        failed.append(("premovement.png", why))
    if layout is not None:
        with open(os.path.join(report_dir, "layout.json"), "w", encoding="utf-8") as f:
            json.dump(layout, f, indent=1)
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
