#!/usr/bin/env python3
"""Generate the stadium evacuation study (configs/evacuation/README.md).

Writes, next to this script:
  stadium.wkt           the walkable floor (WKT POLYGON with holes), metres
  stadium.yaml          the full-size study (about 1.0e5 agents)
  stadium-reduced.yaml  the same stadium and crowd, thinned to about 1.4e4 agents
                        (scripts/quickstart.sh --reduced)
  stadium-mini.yaml     thinned to about 2.0e3 agents (the CPU size of scripts/quickstart.sh, and
                        the test evacuation.stadium_mini_empties)

Python 3 standard library only. Re-run after changing a parameter below:
  python3 configs/evacuation/stadium/make_stadium.py

The bowl, one flattened floor (all tiers of seating laid out on one level),
is built from offset curves of a core rectangle [-A, A] x [-B, B]: every
layer is the set of points at distance RHO from it (a rounded rectangle whose
corners are quarter circles about the core's corners). A position is given by
(u, rho): u runs clockwise round the loop from the top centre, measured in
metres along the mid-stand layer, and rho is the distance out from the core.
Lines of constant u are the "radial" lines (normals of the core rectangle):
parallel on the straight sides, fanning out from the core's corners round
the ends, as in a real bowl.

From the inside out (default parameters):
  rho <  13.0   the pitch floor (120 x 80 m: a football pitch and its run-off); concert:
                a stage at the west end and a standing crowd on the rest
  13.0 .. 13.4  a pitch barrier, open at the mouth of each corner tunnel
  13.4 .. 15.0  the front gangway along the foot of the stands
  15.0 .. 86.0  the stands: 32 sectors between radial walls (0.5 m); 28 seat sectors, each
                emptying through one vomitory (4 m) at its back; the 4 corner sectors on the
                diagonals are open tunnels from the pitch to the concourse
  86.0 .. 89.0  the stand structure, crossed by the vomitories and tunnels
  89.0 .. 98.0  the concourse ring
  98.0          the outer wall with 28 exits: 4 main gates (6 m) on the axes, 20 doors (4 m)
                between them, 4 tunnel gates (6 m) facing the tunnels
Overall 290 m x 250 m. The pitch barrier, the stage and the stand structure (32 blocks,
each with its radial wall) are holes of the WKT; --structure-as-obstacles writes the
structure as obstacles of the YAML instead (the same walls and routing).
"""
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# ---- parameters -------------------------------------------------------------------------------
A, B = 47.0, 27.0            # half sizes of the core rectangle [m]
RHO_PITCH = 13.0             # pitch edge (inner face of the pitch barrier)
BARRIER = 0.4                # pitch barrier thickness
RHO_FRONT = 15.0             # front of the stands
RHO_BACK = 86.0              # back of the stands
RHO_BAND = 89.0              # outer face of the stand structure
RHO_OUT = 98.0               # outer wall
SECTORS = 32                 # radial walls; sector k lies between walls k and k + 1
TUNNELS = (4, 12, 20, 28)    # corner sectors that are tunnels (no seats, no structure)
WALL_HALF = 0.25             # half thickness of the radial walls
VOMITORY = 4.0               # vomitory width (at the back of the stands)
DOORS = 24                   # doors evenly round the outer wall, door 0 at the top centre
DOOR_WIDTH = 4.0
MAIN_GATE_WIDTH = 6.0        # doors 0, 6, 12, 18 (on the axes)
TUNNEL_GATE_WIDTH = 6.0      # one gate facing each tunnel
EXIT_DEPTH = 0.5
CHORD = 3.0                  # longest chord of a curved wall [m]
MARGIN = 0.5                 # spawn regions keep this far from walls (routing needs > 0.42 m; README)
BAND_GAP = 0.5               # gap between the spawn bands of one sector
STAGE = (-58.0, -18.0, -46.0, 18.0)  # stage (x0, y0, x1, y1), a hole in the pitch floor
PITCH_FRONT_X = -43.0        # the pitch crowd stands east of this (3 m from the stage)
PITCH_SPLIT_X = 10.0         # front of stage (dense) / back of the pitch

# Stand population: RiMEA test 7 groups, shares of the seats, from front row to back row
# within each sector (the order of the first three turns with the sector so that no group
# always sits at the front); mobility-impaired on platforms at the back, by the vomitory.
SEAT_DENSITY = 2.4           # seated stand: 0.50 m seat x 0.80 m row = 2.5 /m^2 of seating
STAND_GROUPS = (("under_30", 0.40), ("30_to_50", 0.30), ("over_50", 0.28))
IMPAIRED_SHARE = 0.02
PITCH_FRONT_DENSITY = 2.5    # standing concert crowd in front of the stage
PITCH_BACK_DENSITY = 2.5
GROUP_ID = {"under_30": 0, "30_to_50": 1, "over_50": 2, "impaired": 3}
RADIUS = "{mean: 0.22, sd: 0.02, min: 0.18, max: 0.28}"
PREMOVEMENT = "{mean: 40, sd: 15, min: 10, max: 120}"
REDUCED_FACTOR = 0.14        # densities of stadium-reduced.yaml, relative to the full size
MINI_FACTOR = 0.02           # densities of stadium-mini.yaml (the evacuation test's size)

SIZE_X, SIZE_Y = 2 * (A + RHO_OUT), 2 * (B + RHO_OUT)
RHO_MID = 0.5 * (RHO_FRONT + RHO_BACK)   # u is measured along this layer
QUARTER = 0.5 * math.pi


# ---- the loop: positions (u, rho) -------------------------------------------------------------
# Pieces in clockwise order from the top centre. A line piece: its start on the core, its
# direction, its outward normal, its length. An arc piece: the core corner (centre), its start
# angle; it turns clockwise by a quarter circle.
PIECES = [
    ("line", (0.0, B), (1.0, 0.0), (0.0, 1.0), A),
    ("arc", (A, B), 0.5 * math.pi),
    ("line", (A, B), (0.0, -1.0), (1.0, 0.0), 2 * B),
    ("arc", (A, -B), 0.0),
    ("line", (A, -B), (-1.0, 0.0), (0.0, -1.0), 2 * A),
    ("arc", (-A, -B), -0.5 * math.pi),
    ("line", (-A, -B), (0.0, 1.0), (-1.0, 0.0), 2 * B),
    ("arc", (-A, B), math.pi),
    ("line", (-A, B), (1.0, 0.0), (0.0, 1.0), A),
]


def piece_length(p, rho):
    return p[4] if p[0] == "line" else QUARTER * rho


LOOP = sum(piece_length(p, RHO_MID) for p in PIECES)   # u runs over [0, LOOP)


def locate(u):
    """(piece index, fraction along it) of loop position u."""
    u %= LOOP
    for i, p in enumerate(PIECES):
        n = piece_length(p, RHO_MID)
        if u < n or i == len(PIECES) - 1:
            return i, min(max(u / n, 0.0), 1.0)
        u -= n
    raise AssertionError


def frame(u):
    """Core point, outward normal and clockwise tangent at u."""
    i, f = locate(u)
    p = PIECES[i]
    if p[0] == "line":
        (x, y), (dx, dy), nrm, n = p[1], p[2], p[3], p[4]
        return (x + dx * f * n, y + dy * f * n), nrm, (dx, dy)
    th = p[2] - f * QUARTER
    return p[1], (math.cos(th), math.sin(th)), (math.sin(th), -math.cos(th))


def point(u, rho, side=0.0):
    """The point at distance rho from the core along u's normal, moved `side` metres along the
    clockwise tangent (lines parallel to a radial line)."""
    c, n, t = frame(u)
    return (c[0] + rho * n[0] + side * t[0], c[1] + rho * n[1] + side * t[1])


def arclen(u, rho):
    """Length along the layer rho from u = 0 to u (u in [0, LOOP])."""
    s = 0.0
    for p in PIECES:
        n = piece_length(p, RHO_MID)
        if u <= n:
            return s + piece_length(p, rho) * u / n
        s += piece_length(p, rho)
        u -= n
    return s


def u_of(s, rho):
    """Inverse of arclen at layer rho (s taken modulo the layer's length)."""
    total = sum(piece_length(p, rho) for p in PIECES)
    s %= total
    u = 0.0
    for p in PIECES:
        m, n = piece_length(p, rho), piece_length(p, RHO_MID)
        if s <= m:
            return u + n * s / m
        s -= m
        u += n
    return LOOP


def curve(u0, u1, rho):
    """Points of layer rho from u0 to u1 (u1 >= u0; may run past LOOP): straight pieces as one
    edge, arcs in chords of at most CHORD."""
    bounds, acc = [], 0.0
    for p in PIECES:
        acc += piece_length(p, RHO_MID)
        bounds.append(acc)
    cuts = [u0]
    lap = math.floor(u0 / LOOP) * LOOP
    while lap < u1:
        for b in bounds:
            if u0 + 1e-9 < lap + b < u1 - 1e-9:
                cuts.append(lap + b)
        lap += LOOP
    cuts = sorted(cuts) + [u1]
    pts = [point(u0, rho)]
    for a, b in zip(cuts, cuts[1:]):
        if b - a <= 1e-12:
            continue
        i, _ = locate(0.5 * (a + b))
        steps = 1
        if PIECES[i][0] == "arc":
            steps = max(1, math.ceil((b - a) / RHO_MID * rho / CHORD))
        for k in range(1, steps + 1):
            pts.append(point(a + (b - a) * k / steps, rho))
    return pts


def _shift(u0, rho, ds):
    """The u that lies ds metres along layer rho from u0 (either way), unwrapped near u0."""
    base = math.floor(u0 / LOOP) * LOOP
    s = arclen(u0 - base, rho) + ds
    total = sum(piece_length(p, rho) for p in PIECES)
    laps = math.floor(s / total)
    return base + laps * LOOP + u_of(s - laps * total, rho)


def area(ring):
    return 0.5 * sum(ring[i][0] * ring[(i + 1) % len(ring)][1] - ring[(i + 1) % len(ring)][0] * ring[i][1]
                     for i in range(len(ring)))


def dedupe(ring, eps=1e-6):
    out = []
    for p in ring:
        if not out or math.hypot(p[0] - out[-1][0], p[1] - out[-1][1]) > eps:
            out.append(p)
    if len(out) > 1 and math.hypot(out[0][0] - out[-1][0], out[0][1] - out[-1][1]) <= eps:
        out.pop()
    return out


def ccw(ring):
    ring = dedupe(ring)
    return ring if area(ring) > 0 else ring[::-1]


# ---- the plan ---------------------------------------------------------------------------------
WALL_U = [k * LOOP / SECTORS for k in range(SECTORS)]            # radial wall k
SECTOR_U = [(k + 0.5) * LOOP / SECTORS for k in range(SECTORS)]  # centre of sector k


def stand_structure():
    """Holes: one per stand-structure block, each with its radial wall. Block k runs from the
    vomitory (or tunnel) of sector k - 1 to that of sector k, with wall k in its middle."""
    holes = []
    for k in range(SECTORS):
        uw = WALL_U[k] if k else LOOP  # unwrap wall 0 to the end so that blocks run forward
        left_tunnel = (k - 1) % SECTORS in TUNNELS
        right_tunnel = k in TUNNELS
        ul = _shift(SECTOR_U[k - 1], RHO_BACK, VOMITORY / 2)
        ur = _shift(SECTOR_U[k] + (LOOP if k == 0 else 0.0), RHO_BACK, -VOMITORY / 2)
        ring = []
        # inner face (rho = RHO_BACK), clockwise, up to the wall's left side
        if left_tunnel:
            ring.append(point(uw, RHO_BAND, -WALL_HALF))
        else:
            ring += curve(ul, _shift(uw, RHO_BACK, -WALL_HALF), RHO_BACK)[:-1]
        ring.append(point(uw, RHO_BACK, -WALL_HALF))
        ring.append(point(uw, RHO_FRONT, -WALL_HALF))
        ring.append(point(uw, RHO_FRONT, WALL_HALF))
        ring.append(point(uw, RHO_BACK, WALL_HALF))
        if right_tunnel:
            ring.append(point(uw, RHO_BAND, WALL_HALF))
            outer_end = _shift(uw, RHO_BAND, WALL_HALF)
        else:
            ring += curve(_shift(uw, RHO_BACK, WALL_HALF), ur, RHO_BACK)[1:]
            outer_end = ur
        outer_start = _shift(uw, RHO_BAND, -WALL_HALF) if left_tunnel else ul
        outer = curve(outer_start, outer_end, RHO_BAND)
        if right_tunnel:
            outer = outer[:-1]
        if left_tunnel:
            outer = outer[1:]
        ring += outer[::-1]
        holes.append(ccw(ring))
    return holes


def barrier():
    """Holes: the pitch barrier, one piece between each pair of tunnels."""
    holes = []
    for i, t in enumerate(TUNNELS):
        nxt = TUNNELS[(i + 1) % len(TUNNELS)]
        u0 = WALL_U[(t + 1) % SECTORS] + (LOOP if t + 1 >= SECTORS else 0.0)
        u1 = WALL_U[nxt]
        while u1 <= u0:
            u1 += LOOP
        inner = curve(u0, u1, RHO_PITCH)
        outer = curve(u0, u1, RHO_PITCH + BARRIER)
        holes.append(ccw(inner + outer[::-1]))
    return holes


def stage():
    x0, y0, x1, y1 = STAGE
    return ccw([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])


def exits():
    """(name, u, width) of every exit, in u order."""
    out = []
    for d in range(DOORS):
        main = d % (DOORS // 4) == 0
        out.append((f"{'gate' if main else 'door'}{d:02d}", d * LOOP / DOORS, MAIN_GATE_WIDTH if main else DOOR_WIDTH))
    for i, t in enumerate(TUNNELS):
        out.append((f"tunnel{i}", SECTOR_U[t], TUNNEL_GATE_WIDTH))
    return sorted(out, key=lambda e: e[1])


def outer_wall(doors):
    """The outer ring, each door a chord (one edge) of it. Returns the ring and each door's two
    end points."""
    ring, ends = [], {}
    us = []
    for name, u, w in doors:
        a, b = _shift(u, RHO_OUT, -w / 2), _shift(u, RHO_OUT, w / 2)
        us.append((a, b, name))
    # walk from the first door's far end round to its near end
    n = len(us)
    for i in range(n):
        a, b, name = us[i]
        na = us[(i + 1) % n][0] + (LOOP if i == n - 1 else 0.0)
        pa, pb = point(a, RHO_OUT), point(b, RHO_OUT)
        ends[name] = (pa, pb)
        ring.append(pa)
        ring += curve(b, na, RHO_OUT)[:-1]
    return ccw(ring), ends


def sector_band(k, r0, r1, inset):
    """Spawn polygon of sector k between layers r0 and r1, `inset` clear of its radial walls."""
    u0 = WALL_U[k]
    u1 = WALL_U[(k + 1) % SECTORS] + (LOOP if k + 1 == SECTORS else 0.0)
    side = WALL_HALF + inset
    inner = curve(_shift(u0, r0, side), _shift(u1, r0, -side), r0)[1:-1]
    outer = curve(_shift(u0, r1, side), _shift(u1, r1, -side), r1)[1:-1]
    ring = [point(u0, r0, side)] + inner + [point(u1, r0, -side), point(u1, r1, -side)] + outer[::-1] + \
        [point(u0, r1, side)]
    return ccw(ring)


def band_limits(k, shares):
    """Layers that split sector k's seating into bands of the given area shares (front first)."""
    lo, hi = RHO_FRONT + MARGIN, RHO_BACK - MARGIN
    total = area(sector_band(k, lo, hi, MARGIN))
    cuts, acc = [lo], 0.0
    for s in shares[:-1]:
        acc += s
        a, b = lo, hi
        for _ in range(60):
            m = 0.5 * (a + b)
            if area(sector_band(k, lo, m, MARGIN)) < acc * total:
                a = m
            else:
                b = m
        cuts.append(0.5 * (a + b))
    cuts.append(hi)
    return cuts


def pitch_regions():
    """Spawn polygons of the pitch crowd: (front of stage, back), clear of the barrier."""
    r = RHO_PITCH - MARGIN
    top, bot = B + r, -(B + r)
    front = [(PITCH_FRONT_X, bot), (PITCH_SPLIT_X - BAND_GAP / 2, bot), (PITCH_SPLIT_X - BAND_GAP / 2, top),
             (PITCH_FRONT_X, top)]
    x0 = PITCH_SPLIT_X + BAND_GAP / 2
    # the rest of the pitch: top edge from x0 round the east end to the bottom edge
    u_top = x0 + 0.0                                   # on the top line u = x for x in [0, A]
    u_bot = LOOP / 2 - x0                              # on the bottom line, mirrored
    back = [(x0, bot), (x0, top)] + curve(u_top, u_bot, r)[1:-1]
    return ccw(front), ccw(back)


# ---- output -----------------------------------------------------------------------------------
def fmt(v):
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def ring_wkt(ring):
    pts = ring + [ring[0]]
    return "(" + ", ".join(f"{fmt(x)} {fmt(y)}" for x, y in pts) + ")"


def pts_yaml(ring):
    return "[" + ", ".join(f"[{fmt(x)}, {fmt(y)}]" for x, y in ring) + "]"


def rounded(ring):
    """Round to the millimetre as written, dropping repeats (the WKT reader refuses them)."""
    return dedupe([(float(fmt(x)), float(fmt(y))) for x, y in ring], eps=0.0005)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {os.path.relpath(path)}")


def build(all_holes):
    """The outer ring, the door ends, the holes of the WKT and the obstacles of the YAML."""
    doors = exits()
    outer, door_ends = outer_wall(doors)
    structure = [ccw(rounded(h)) for h in stand_structure()]
    holes = barrier() + [stage()] + (structure if all_holes else [])
    outer = rounded(outer)
    holes = [ccw(rounded(h))[::-1] for h in holes]   # holes clockwise, as Shapely writes them
    return doors, outer, door_ends, holes, [] if all_holes else structure


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--structure-as-obstacles", action="store_true",
                    help="write the stand structure as obstacles of the YAML instead of holes of the WKT "
                         "(they behave the same)")
    args = ap.parse_args()
    doors, outer, door_ends, holes, obstacles = build(not args.structure_as_obstacles)
    wkt = "POLYGON (" + ", ".join([ring_wkt(outer)] + [ring_wkt(h) for h in holes]) + ")\n"
    write(os.path.join(HERE, "stadium.wkt"), wkt)
    walkable = abs(area(outer)) - sum(abs(area(h)) for h in holes) - sum(abs(area(o)) for o in obstacles)
    for variant, factor in (("stadium", 1.0), ("stadium-reduced", REDUCED_FACTOR), ("stadium-mini", MINI_FACTOR)):
        text, counts = scenario(variant, factor, doors, door_ends, obstacles)
        write(os.path.join(HERE, variant + ".yaml"), text)
        print(f"  {variant}: about {counts['total']:.0f} agents "
              f"(stands {counts['stands']:.0f} on {counts['stand_area']:.0f} m^2, "
              f"pitch {counts['pitch']:.0f} on {counts['pitch_area']:.0f} m^2)")
    xs = [p[0] for p in outer]
    ys = [p[1] for p in outer]
    print(f"  outer wall {max(xs) - min(xs):.1f} m x {max(ys) - min(ys):.1f} m, walkable {walkable:.0f} m^2, "
          f"{len(holes)} holes and {len(obstacles)} obstacles, "
          f"{len(outer) + sum(len(h) for h in holes) + sum(len(o) for o in obstacles)} vertices; {len(doors)} exits, "
          f"{sum(w for _, _, w in doors):.0f} m of doors; {SECTORS - len(TUNNELS)} vomitories of {VOMITORY:g} m")


def scenario(variant, factor, doors, door_ends, obstacles):
    full = factor == 1.0
    L = []
    w = L.append
    w("# GENERATED by make_stadium.py: edit the script and re-run it, not this file.")
    w("#")
    if full:
        w("# Stadium evacuation, concert layout, full size (configs/evacuation/README.md):")
    else:
        w(f"# Stadium evacuation, concert layout, REDUCED: the full study's crowd thinned to {factor:g} of")
        w("# its densities (the same geometry, exits, distributions and measurement), so that it runs")
        if factor == REDUCED_FACTOR:
            w("# on a CPU (about 10 minutes on one core); scripts/quickstart.sh --reduced runs it.")
        else:
            w("# on a CPU in a few minutes; scripts/quickstart.sh runs it on machines without a GPU, and")
            w("# the test evacuation.stadium_mini_empties checks that it empties.")
    w(f"# a {SIZE_X:g} m x {SIZE_Y:g} m bowl (one flattened floor) with 28 seated sectors behind radial walls,")
    w(f"# each emptying through a {VOMITORY:g} m vomitory into a {RHO_OUT - RHO_BAND:g} m concourse ring; a standing crowd on the")
    w("# pitch in front of a stage leaves through four corner tunnels; 28 exits in the outer wall")
    w("# (4 main gates and 4 tunnel gates of 6 m, 20 doors of 4 m). After a pre-movement time everyone")
    w("# heads for the exit that the pedestrian model's routing estimates quickest: travel time through")
    w("# the crowd plus the time the exit needs for the people already heading to it.")
    w(f"name: {variant}")
    w("description: >-")
    pitch = fmt(PITCH_FRONT_DENSITY * factor)
    if PITCH_BACK_DENSITY != PITCH_FRONT_DENSITY:
        pitch += f" and {fmt(PITCH_BACK_DENSITY * factor)}"
    w(f"  Stadium evacuation (concert): seated stands at {fmt(SEAT_DENSITY * factor)}/m^2 and a standing pitch")
    w(f"  crowd at {pitch}/m^2 leave a {SIZE_X:g} x {SIZE_Y:g} m bowl through 28 exits; RiMEA speed groups,")
    w("  normal body radius 0.22 m, normal pre-movement 40 s, exit chosen by estimated time.")
    w("seed: 2024")
    w("")
    w("# The pedestrian model (docs/validation.md): human-sized bodies, the speed-density law calibrated")
    w("# on Weidmann's fundamental diagram and on bottleneck flows, routing that sees congestion.")
    w("model: {preset: pedestrian}")
    w("")
    w("time:")
    w("  dt: 1/48")
    w("  steps: 86400          # at most 30 min; the run ends when everyone has left")
    w("")
    w("geometry:")
    w("  walkable_file: stadium.wkt")
    w("")
    if obstacles:
        w("# The stand structure: one block between each pair of vomitories (or tunnels), with the")
        w("# radial wall between two sectors, given as obstacles (they act as holes of the floor do).")
        w("obstacles:")
        for o in obstacles:
            w(f"  - polygon: {pts_yaml(o)}")
        w("")
    w("# Doors: strips 0.5 m deep on the inside of the outer wall; an agent whose body reaches one")
    w("# has left.")
    w("exits:")
    for name, u, width in doors:
        a, b = door_ends[name]
        w(f"  - {{name: {name}, segment: {pts_yaml([a, b])}, depth: {fmt(EXIT_DEPTH)}}}   # {fmt(width)} m")
    w("")
    cells = round((SIZE_X + 2) / 0.2) * round((SIZE_Y + 2) / 0.2)
    w(f"# One field to the exits, recomputed every second from where the crowd is (the preset's")
    w(f"# routing.congestion and routing.exit_choice: time): the world ({SIZE_X + 2:g} m x {SIZE_Y + 2:g} m) in")
    w(f"# cells of 0.2 m is {cells / 1e6:.2f}e6 cells, {cells * 4 / 1e6:.1f} MB a field (docs/routing.md).")
    w("routing: {cell: 0.2}")
    w("")
    w("agents:")
    counts = {"stands": 0.0, "pitch": 0.0, "stand_area": 0.0, "pitch_area": 0.0}
    shares = [s for _, s in STAND_GROUPS]
    scale = 1.0 - IMPAIRED_SHARE
    n_seated = 0
    for k in range(SECTORS):
        if k in TUNNELS:
            continue
        n_seated += 1
        rot = n_seated % len(STAND_GROUPS)
        order = list(STAND_GROUPS[rot:] + STAND_GROUPS[:rot])
        names = [g for g, _ in order] + ["impaired"]
        sh = [s * scale for _, s in order] + [IMPAIRED_SHARE]
        cuts = band_limits(k, sh)
        w(f"  # sector {k}")
        for i, g in enumerate(names):
            r0 = cuts[i] + (BAND_GAP / 2 if i else 0.0)
            r1 = cuts[i + 1] - (BAND_GAP / 2 if i + 1 < len(names) else 0.0)
            poly = rounded(sector_band(k, r0, r1, MARGIN))
            dens = SEAT_DENSITY * factor
            a = area(poly)
            counts["stands"] += a * dens
            counts["stand_area"] += a
            w(f"  - {{name: s{k:02d}_{g}, layout: polygon, density: {fmt(dens)}, group: {GROUP_ID[g]},")
            w(f"     speed: {{rimea: {g}}}, agent_radius: {RADIUS}, premovement: {PREMOVEMENT},")
            w(f"     polygon: {pts_yaml(poly)}}}")
    front, back = pitch_regions()
    for name, poly, dens, g in (("pitch_front", front, PITCH_FRONT_DENSITY, "under_30"),
                                ("pitch_back", back, PITCH_BACK_DENSITY, "30_to_50")):
        poly = rounded(poly)
        a = area(poly)
        counts["pitch"] += a * dens * factor
        counts["pitch_area"] += a
        w(f"  # {'standing crowd in front of the stage' if name == 'pitch_front' else 'the rest of the pitch'}")
        w(f"  - {{name: {name}, layout: polygon, density: {fmt(dens * factor)}, group: {GROUP_ID[g]},")
        w(f"     speed: {{rimea: {g}}}, agent_radius: {RADIUS}, premovement: {PREMOVEMENT},")
        w(f"     polygon: {pts_yaml(poly)}}}")
    counts["total"] = counts["stands"] + counts["pitch"]
    w("")
    w("measurement:")
    w("  # flow across a line 1 m inside some exits, and across some vomitories and a tunnel")
    w("  lines:")
    probes = [d for d in doors if d[0] in ("gate00", "door03", "tunnel0", "gate06", "door09", "gate12", "gate18")]
    for name, u, width in probes:
        a = point(_shift(u, RHO_OUT - 1.0, -(width / 2 + 0.5)), RHO_OUT - 1.0)
        b = point(_shift(u, RHO_OUT - 1.0, width / 2 + 0.5), RHO_OUT - 1.0)
        w(f"    - {{name: at_{name}, segment: {pts_yaml([a, b])}}}")
    for k in (1, 8, 16):
        a = point(SECTOR_U[k], RHO_BAND - 1.5, -(VOMITORY / 2))
        b = point(SECTOR_U[k], RHO_BAND - 1.5, VOMITORY / 2)
        w(f"    - {{name: vomitory{k:02d}, segment: {pts_yaml([a, b])}}}")
    t = TUNNELS[0]
    a = point(WALL_U[t], RHO_BAND - 1.5, WALL_HALF)
    b = point(WALL_U[t + 1], RHO_BAND - 1.5, -WALL_HALF)
    w(f"    - {{name: tunnel{t:02d}, segment: {pts_yaml([a, b])}}}")
    w("  # density and speed in front of some exits (6 m wide, 4 m deep), at the mouths of some")
    w("  # vomitories (in the stand) and in front of the stage")
    w("  areas:")
    for name, u, width in probes[:4]:
        r0, r1 = RHO_OUT - EXIT_DEPTH - 4.0, RHO_OUT - EXIT_DEPTH
        poly = [point(u, r0, -3.0), point(u, r0, 3.0), point(u, r1, 3.0), point(u, r1, -3.0)]
        w(f"    - {{name: before_{name}, polygon: {pts_yaml(ccw(poly))}}}")
    for k in (1, 8, 16):
        r0, r1 = RHO_BACK - 4.0, RHO_BACK
        poly = [point(SECTOR_U[k], r0, -3.0), point(SECTOR_U[k], r0, 3.0), point(SECTOR_U[k], r1, 3.0),
                point(SECTOR_U[k], r1, -3.0)]
        w(f"    - {{name: vomitory{k:02d}_mouth, polygon: {pts_yaml(ccw(poly))}}}")
    w("    - {name: front_of_stage, polygon: [[-38, -5], [-28, -5], [-28, 5], [-38, 5]]}")
    w("  maps: {cell: 2.0, every: 48}   # density and speed maps averaged over each second")
    w("")
    w("output:")
    # PedPy's speeds and flows want 2 frames a second or more (docs/output.md); the full size
    # writes fewer (about 7 MB a frame), the reduced one 1 a second (its file stays under a GB)
    traj = 240 if full else (48 if factor > MINI_FACTOR else 24)
    w(f"  trajectory_every: {traj}   # every {traj / 48:g} s" +
      ("; about 7 MB a frame at full size" if full else ""))
    w("  metrics_every: 48")
    return "\n".join(L) + "\n", counts


if __name__ == "__main__":
    main()
