#!/usr/bin/env python3
"""Generate the validation suite's scenarios (configs/validation/README.md; the
criteria are in docs/testing.md, "Validation tests"). Python 3 standard library only:

  python3 configs/validation/make_validation.py                 # writes configs/validation/*.yaml
  python3 configs/validation/make_validation.py --out DIR       # somewhere else
  python3 configs/validation/make_validation.py --no-preset --out DIR

Every scenario asks for the pedestrian model preset (`model: {preset: pedestrian}`:
human-sized agents, Weidmann-like free speeds, a speed-density law). `--no-preset`
leaves that line out and gives each agent block `agent_radius: {min: 0.2, max: 0.25}`
instead, so that the scenarios run on a throng without the preset (the flows are then
those of the default model). tests/validation/check_validation.py picks the variant
that the throng under test understands.

The geometry constants below are also imported by the checker (which exit each block
of rimea10 must take, where the measurement lines are, ...): change them here only.
"""
import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RADIUS = "{min: 0.2, max: 0.25}"      # what --no-preset gives every block (the preset's default)

# ---- the cases' numbers (the checker reads these) -------------------------------------
R01_LEN, R01_X0, R01_X1 = 43.0, 1.0, 41.0          # corridor length; the 40 m walked: x 1 -> 41
R01_SPEED = 1.33

FD_DENSITIES = [0.5, 1, 1.5, 2, 3, 4, 5]            # rimea04-fd-rhoR.yaml
FD_LEN, FD_W, FD_FILL = 100.0, 3.0, 70.0            # corridor, width, filled length
FD_AREA = (40.0, 44.0)                              # measurement area x range (across the corridor)
FD_RANDOM_MAX = 2.0                                 # random polygon placement up to this density, a lattice above
FD_T_END = 70.0                                     # 10 s warm-up + 60 s (RiMEA)

R05_PREMOVEMENT = [10 * (k + 1) for k in range(10)]  # agent k (id k): 10, 20, ..., 100 s
R05_FRAME_STEPS = 24                                # a frame every 0.5 s
# agent positions, nearest the door first (the first to go stands nearest the door)
R05_POS = [(6.8, 1.4), (6.8, 3.6), (5.3, 1.4), (5.3, 3.6), (3.8, 1.4),
           (3.8, 3.6), (2.3, 1.4), (2.3, 3.6), (0.8, 1.4), (0.8, 3.6)]

R06_WKT = "POLYGON ((0 0, 14 0, 14 14, 12 14, 12 2, 0 2, 0 0))"

R07_GROUPS = [("under_30", 0.58, 1.61), ("30_to_50", 1.41, 1.54), ("over_50", 0.68, 1.41),
              ("impaired", 0.46, 0.76)]
R07_PER_GROUP, R07_LANE, R07_LEN = 50, 4.0, 30.0     # one agent per lane, lanes 4 m apart
R07_T0, R07_T1 = 5.0, 15.0                           # free speed = displacement over [5, 15] s / 10 s

R09_W, R09_H, R09_N = 30.0, 20.0, 1000
# doors (x0, x1, side) on the long walls, 1 m, near the corners; the 2-exit case keeps these
R09_DOORS = {"sw": (1.0, 2.0, "south"), "se": (28.0, 29.0, "south"),
             "nw": (1.0, 2.0, "north"), "ne": (28.0, 29.0, "north")}
R09_KEEP = ["sw", "ne"]                              # diagonal

# rimea10: a corridor y 5..7 along x 0..30, 6 rooms below and 6 above, doors 1 m
R10_ROOMS = 6
# exit of each room: bottom rooms 0..5, then top rooms 6..11 (x from west to east). Rooms
# 0, 1, 3 (below) and 10, 11 (above) are sent to the far exit; the others to the near one.
R10_EXIT = ["east", "east", "west", "west", "east", "east",
            "west", "west", "west", "east", "west", "west"]
R10_AGENTS = [2] * 11 + [1]                          # 23 in all

R12_N = 150
R12_CORR = (10.0, 15.0, 4.5, 5.5)                    # x0, x1, y0, y1 of the corridor
R12_LINE_CORR = [[12.5, 4.5], [12.5, 5.5]]
R12_LINE_EXIT = [[25.125, 4.5], [25.125, 5.5]]       # in the last exit's door (a 0.25 m passage)
R12_AREA_ENTRY = [[8.0, 3.5], [10.0, 3.5], [10.0, 6.5], [8.0, 6.5]]
R12_AREA_EXIT = [[23.0, 3.5], [25.0, 3.5], [25.0, 6.5], [23.0, 6.5]]

R15_N = 100
R15_LEN = {"short": 10.0, "long": 30.0, "corner": 20.0}   # corridor centre line lengths

# merging flows: a T-junction of 2 m corridors against one straight 2 m corridor
MG_W, MG_ARM, MG_STEM, MG_DENSITY = 2.0, 20.0, 30.0, 2.0   # width, arm length filled, stem length, start density
MG_STRAIGHT_LEN = 70.0                                    # straight corridor: the filled part + the stem's run
MG_SHARE = 0.7                                            # merged flow / one corridor's, at least

# counterflow (IMO MSC.1/Circ.1533 test 8): two 10 x 10 m rooms joined by a 10 m x 2 m corridor
CF_ROOM, CF_CORR = 10.0, (10.0, 2.0)
CF_MAIN = 100                                         # walking from room 1 (west) to room 2 (east)
CF_COUNTER = [0, 10, 50, 100]                         # walking the other way, one scenario each

# exit choice under congestion: one room, two equal doors, the crowd nearer one of them
EC_ROOM, EC_DOOR, EC_N = (30.0, 12.0), 1.2, 240
EC_SPAWN = (1.0, 1.0, 11.0, 11.0)                     # x0, y0, x1, y1: nearer the west door
EC_BALANCE = 0.2                                      # last-out times within this share of each other

# RiMEA 2, 3, 13, 14: buildings (docs/floors.md). A straight stair of SFPE's common 178/279 mm
# geometry: run ST_RUN for a rise of ST_RISE.
ST_RISE = 3.5
ST_RUN = 5.5
ST_SPEED = 1.34                                        # the walker's free speed (RiMEA 2, 3)
ST_BAND_UP = (0.5, 0.7)                                # Fruin's free speeds on stairs, horizontal [m/s]
ST_BAND_DOWN = (0.6, 0.8)
R13_N = 150
R13_AREA_FRONT = [[8.0, 3.0], [10.0, 3.0], [10.0, 7.0], [8.0, 7.0]]     # in front of the stair (ground)
R13_AREA_TOP = [[17.5, 3.0], [19.5, 3.0], [19.5, 7.0], [17.5, 7.0]]      # beyond its top (upper floor)
R13_LINE_STAIR = [[12.75, 4.0], [12.75, 6.0]]                           # across the middle of the stair
R14_N = 100

IMO_N = 100
IMO_DOOR_LINE = [[8.125, 2.0], [8.125, 3.0]]         # in the door (the wall is 0.25 m thick)

BN_WIDTHS = [0.8, 1.2, 1.6, 2.0, 2.5]
BN_ROOM, BN_WALL, BN_FREE = (10.0, 8.0), 0.25, 4.0   # room, wall thickness (door passage), area beyond


def bn_count(w):
    return max(180, math.ceil(120 * w))


def bn_line(w):
    x = BN_ROOM[0] + BN_WALL / 2
    c = BN_ROOM[1] / 2
    return [[x, round(c - w / 2, 3)], [x, round(c + w / 2, 3)]]


def fd_name(rho):
    return "rimea04-fd-rho%g.yaml" % rho


def bn_name(w):
    return "bottleneck-b%.1f.yaml" % w


# ---- writing ---------------------------------------------------------------------------

def g(v):
    return "%g" % round(v, 6)


def pt(p):
    return "[%s, %s]" % (g(p[0]), g(p[1]))


def pts(ps):
    return "[" + ", ".join(pt(p) for p in ps) + "]"


def wkt(ring):
    ring = list(ring) + [ring[0]]
    return "POLYGON ((" + ", ".join("%s %s" % (g(x), g(y)) for x, y in ring) + "))"


def rect(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


class Doc:
    def __init__(self, preset, name, header, description):
        self.preset = preset
        self.L = ["# GENERATED by configs/validation/make_validation.py%s: edit the script and re-run it, "
                  "not this file." % ("" if preset else " --no-preset"), "#"]
        self.L += ["# " + h if h else "#" for h in header]
        self.L += ["name: %s" % name, "description: >-", "  " + description, "seed: 1", ""]
        if preset:
            self.L += ["model: {preset: pedestrian}", ""]

    def w(self, s=""):
        self.L.append(s)

    def block(self, lines):
        """An agent block: lines after '- ' (the first) and indented (the others); the
        radius is added without the preset unless the block gives one."""
        self.w("  - " + lines[0])
        for s in lines[1:]:
            self.w("    " + s)
        if not self.preset and not any(s.startswith("agent_radius") for s in lines):
            self.w("    agent_radius: " + RADIUS)

    def line_tail(self, name, segment_yaml, every_step=True):
        """The measurement line and the output block that end a scenario; its text. every_step:
        lines.csv every step (crossing times to the step), else metrics every second."""
        self.w("")
        self.w("measurement:\n  lines: [{name: %s, segment: %s}]" % (name, segment_yaml))
        self.w("")
        self.w("output: {trajectory_format: csv, trajectory_every: 0, metrics_every: 1}   # lines.csv every step"
               if every_step else "output: {trajectory_format: csv, trajectory_every: 0, metrics_every: 48}")
        return self.text()

    def text(self):
        return "\n".join(self.L) + "\n"


def time_block(d, seconds, why=""):
    d.w("time:")
    d.w("  dt: 1/48")
    d.w("  steps: %d%s" % (round(seconds * 48), "          # " + why if why else ""))
    d.w("")


# ---- the cases ------------------------------------------------------------------------

def rimea01(preset):
    d = Doc(preset, "rimea01", [
        "RiMEA test 1: one agent at its free speed of 1.33 m/s in a corridor 2 m wide; the",
        "corridor is %g m long so that the agent starts 1 m in (x = %g) and walks 40 m (to x = %g)" % (
            R01_LEN, R01_X0, R01_X1),
        "well before the exit at the far end. Criterion: the 40 m take 26-34 s."],
        "RiMEA test 1: one agent walks 40 m along a 2 m corridor at 1.33 m/s.")
    time_block(d, 60, "at most 60 s; the run ends when the agent has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(rect(0, 0, R01_LEN, 2)))
    d.w("")
    d.w("exits:\n  - {name: end, segment: [[%s, 0], [%s, 2]]}" % (g(R01_LEN), g(R01_LEN)))
    d.w("")
    d.w("agents:")
    d.block(["name: walker", "layout: grid", "min: [%s, 1]" % g(R01_X0), "max: [%s, 1]" % g(R01_X0),
             "rows: 1", "cols: 1", "speed: %s" % g(R01_SPEED)])
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 12, metrics_every: 48}   # a frame every 0.25 s")
    return d.text()


def fd(preset, rho):
    name = "rimea04-fd-rho%g" % rho
    inset = 0.25
    lines = ["RiMEA test 4 (fundamental diagram) at %g /m2: a straight corridor %g m wide and %g m" % (
        rho, FD_W, FD_LEN), "long, agents in x 0..%g at %g per m2 of the corridor, all walking to the exit at" % (
        FD_FILL, rho), "x = %g. Density and speed are measured in the area x %g..%g across the corridor" % (
        FD_LEN, FD_AREA[0], FD_AREA[1]), "(12 m2, areas.csv every 0.5 s) from 10 s on, while the area is inside "
        "the crowd.", "Speeds are the model's (not set here)."]
    if rho <= FD_RANDOM_MAX:
        lines += ["Placement: random (polygon, density) in the strip %g m clear of the side walls, at" % inset,
                  "%g x %g / %g = %g per m2 of the strip, %g per m2 of the corridor." % (
                      rho, FD_W, FD_W - 2 * inset, rho * FD_W / (FD_W - 2 * inset), rho)]
    else:
        lines += ["Placement: a lattice (random placement without overlap cannot reach %g /m2 for" % rho,
                  "radii 0.2-0.25 m): rows across the corridor, columns along it, %g per m2 of it." % rho]
    d = Doc(preset, name, lines, "RiMEA test 4: fundamental diagram in a 3 m corridor at %g /m2." % rho)
    time_block(d, FD_T_END, "10 s warm-up + 60 s of measurement")
    d.w('geometry:\n  walkable: "%s"' % wkt(rect(0, 0, FD_LEN, FD_W)))
    d.w("")
    d.w("exits:\n  - {name: end, segment: [[%s, 0], [%s, %s]]}" % (g(FD_LEN), g(FD_LEN), g(FD_W)))
    d.w("")
    d.w("agents:")
    if rho <= FD_RANDOM_MAX:
        d.block(["name: crowd", "layout: polygon",
                 "polygon: %s" % pts(rect(inset, inset, FD_FILL, FD_W - inset)),
                 "density: %s" % g(rho * FD_W / (FD_W - 2 * inset))])
    else:
        rows = 5 if rho <= 3 else 6            # y spacing 0.625 or 0.5 m
        sy = (FD_W - 2 * inset) / (rows - 1)
        sx = rows / (rho * FD_W)
        d.block(["name: crowd", "layout: grid", "min: [%s, %s]" % (g(max(sx / 2, inset)), g(inset)),
                 "max: [%s, %s]" % (g(FD_FILL), g(FD_W - inset)), "spacing: [%s, %s]" % (g(sx), g(sy))])
    d.w("")
    d.w("measurement:")
    d.w("  areas: [{name: fd, polygon: %s}]" % pts(rect(FD_AREA[0], 0, FD_AREA[1], FD_W)))
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 240, metrics_every: 24}   # areas every 0.5 s, a frame every 5 s")
    return d.text()


def rimea05(preset):
    d = Doc(preset, "rimea05", [
        "RiMEA test 5: 10 agents in an 8 m x 5 m room with a 1 m exit in the middle of a short",
        "wall (x = 8, y 2..3), reaction (pre-movement) times 10, 20, ..., 100 s, one agent each",
        "(agent k, id k: %d s). They stand in two rows, the first to go nearest the door, so that" % 10,
        "nobody walks past someone still waiting. Criterion: each starts moving within 2 output",
        "frames (0.5 s apart) of its reaction time."],
        "RiMEA test 5: 10 agents with reaction times 10, 20, ..., 100 s leave an 8 x 5 m room.")
    time_block(d, 150, "at most 150 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(rect(0, 0, 8, 5)))
    d.w("")
    d.w("exits:\n  - {name: door, segment: [[8, 2], [8, 3]]}")
    d.w("")
    d.w("agents:")
    for k, (p, t) in enumerate(zip(R05_POS, R05_PREMOVEMENT)):
        d.block(["name: react%d" % t, "layout: grid", "min: %s" % pt(p), "max: %s" % pt(p), "rows: 1",
                 "cols: 1", "premovement: %d" % t])
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: %d, metrics_every: 24}   # a frame every 0.5 s" % R05_FRAME_STEPS)
    return d.text()


def rimea06(preset):
    d = Doc(preset, "rimea06", [
        "RiMEA test 6: 20 agents walk round a left-hand 90-degree corner: a corridor 2 m wide,",
        "the first leg east along y 0..2 (12 m to the corner), the second north along x 12..14",
        "(12 m from the corner), the exit at its end. The agents start at random in the first",
        "6 m of the first leg. Criterion: no trajectory point inside a wall (a frame every step)."],
        "RiMEA test 6: 20 agents round a left-hand 90-degree corner of a 2 m corridor.")
    time_block(d, 90, "at most 90 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % R06_WKT)
    d.w("")
    d.w("exits:\n  - {name: end, segment: [[12, 14], [14, 14]]}")
    d.w("")
    d.w("agents:")
    d.block(["name: crowd", "layout: polygon", "polygon: %s" % pts(rect(0.25, 0.25, 6, 1.75)), "count: 20"])
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 1, metrics_every: 1}   # every step")
    return d.text()


def rimea07(preset):
    n = len(R07_GROUPS) * R07_PER_GROUP
    height = n * R07_LANE
    d = Doc(preset, "rimea07", [
        "RiMEA test 7: four groups of %d agents with the RiMEA test-7 free speeds (uniform in" % R07_PER_GROUP,
        "%s m/s)." % ", ".join("%s %g-%g" % grp for grp in R07_GROUPS),
        "Each agent walks east in a lane of its own, %g m from the next (beyond every" % R07_LANE,
        "interaction range), in a hall %g m long, so that its free speed can be measured:" % R07_LEN,
        "displacement between t = %g s and %g s over %g s. Group g (block g) is group number g." % (
            R07_T0, R07_T1, R07_T1 - R07_T0),
        "Criterion: every free speed inside its group's range, and the spread covering most of it."],
        "RiMEA test 7: free speeds of four demographic groups, 50 agents each, in separate lanes.")
    time_block(d, 60, "at most 60 s; the test stops at %g s" % R07_T1)
    d.w('geometry:\n  walkable: "%s"' % wkt(rect(0, 0, R07_LEN, height)))
    d.w("")
    d.w("exits:\n  - {name: end, segment: [[%s, 0], [%s, %s]]}" % (g(R07_LEN), g(R07_LEN), g(height)))
    d.w("")
    d.w("agents:")
    for k, (grp, lo, hi) in enumerate(R07_GROUPS):
        y0 = k * R07_PER_GROUP * R07_LANE + R07_LANE / 2
        d.block(["name: %s" % grp, "layout: grid", "min: [1, %s]" % g(y0),
                 "max: [1, %s]" % g(y0 + (R07_PER_GROUP - 1) * R07_LANE), "rows: %d" % R07_PER_GROUP,
                 "cols: 1", "speed: {rimea: %s}" % grp])
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 240, metrics_every: 48}   # a frame every 5 s")
    return d.text()


def r09_outline(doors):
    """The room with an alcove (1 m door through a 0.25 m wall, then 2 m x 1.5 m) for each door;
    returns the ring and the exits {name: segment}."""
    W, H = R09_W, R09_H
    t, aw, ad = 0.25, 2.0, 1.5
    south = sorted((v[0], k) for k, v in doors.items() if v[2] == "south")
    north = sorted(((v[0], k) for k, v in doors.items() if v[2] == "north"), reverse=True)
    ring, exits = [(0, 0)], {}
    for x0, k in south:
        x1 = doors[k][1]
        c = (x0 + x1) / 2
        ring += [(x0, 0), (x0, -t), (c - aw / 2, -t), (c - aw / 2, -t - ad), (c + aw / 2, -t - ad),
                 (c + aw / 2, -t), (x1, -t), (x1, 0)]
        exits[k] = [(c - aw / 2, -t - ad), (c + aw / 2, -t - ad)]
    ring += [(W, 0), (W, H)]
    for x0, k in north:
        x1 = doors[k][1]
        c = (x0 + x1) / 2
        ring += [(x1, H), (x1, H + t), (c + aw / 2, H + t), (c + aw / 2, H + t + ad), (c - aw / 2, H + t + ad),
                 (c - aw / 2, H + t), (x0, H + t), (x0, H)]
        exits[k] = [(c - aw / 2, H + t + ad), (c + aw / 2, H + t + ad)]
    ring += [(0, H)]
    return ring, exits


def rimea09(preset, keep):
    doors = {k: v for k, v in R09_DOORS.items() if k in keep}
    ring, exits = r09_outline(doors)
    n = len(keep)
    d = Doc(preset, "rimea09-%dexits" % n, [
        "RiMEA test 9: %d agents evenly spread (a 40 x 25 lattice) in a %g m x %g m room with %s" % (
            R09_N, R09_W, R09_H, "four 1 m doors, two on each long wall near the corners" if n == 4 else
            "two of the four 1 m doors open: %s (diagonally opposite corners)" % " and ".join(keep)),
        "(doors: a 0.25 m passage through the wall into a 2 m x 1.5 m alcove whose far wall is the",
        "exit). Criterion: the evacuation time with 2 doors is 1.6-2.4 times that with 4."],
        "RiMEA test 9: 1000 agents leave a 30 x 20 m room through %d 1 m doors." % n)
    time_block(d, 600, "at most 600 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(ring))
    d.w("")
    d.w("exits:")
    for k in sorted(exits):
        d.w("  - {name: %s, segment: %s}" % (k, pts(exits[k])))
    d.w("")
    d.w("agents:")
    d.block(["name: crowd", "layout: grid", "min: [0.5, 0.5]", "max: [%s, %s]" % (g(R09_W - 0.5), g(R09_H - 0.5)),
             "rows: 25", "cols: 40"])
    d.w("")
    d.w("measurement:\n  lines:")
    for k in sorted(doors):
        x0, x1, side = doors[k]
        y = -0.125 if side == "south" else R09_H + 0.125
        d.w("    - {name: door_%s, segment: [[%s, %s], [%s, %s]]}" % (k, g(x0), g(y), g(x1), g(y)))
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 0, metrics_every: 48}")
    return d.text()


def r10_outline():
    """Corridor y 5..7, x 0..30; rooms 4.8 x 4.8 m below (y 0..4.8) and above (y 7.2..12), walls
    0.2 m, a 1 m door from each room into the corridor."""
    ring = [(0, 5)]
    for k in range(R10_ROOMS):
        x = 5.0 * k
        ring += [(x + 2, 5), (x + 2, 4.8), (x + 0.1, 4.8), (x + 0.1, 0), (x + 4.9, 0), (x + 4.9, 4.8),
                 (x + 3, 4.8), (x + 3, 5)]
    ring += [(30, 5), (30, 7)]
    for k in reversed(range(R10_ROOMS)):
        x = 5.0 * k
        ring += [(x + 3, 7), (x + 3, 7.2), (x + 4.9, 7.2), (x + 4.9, 12), (x + 0.1, 12), (x + 0.1, 7.2),
                 (x + 2, 7.2), (x + 2, 7)]
    ring += [(0, 7)]
    return ring


def rimea10(preset):
    d = Doc(preset, "rimea10", [
        "RiMEA test 10: 23 agents in 12 rooms (4.8 m x 4.8 m, a 1 m door each) off a corridor 2 m",
        "wide and 30 m long with an exit at each end (west, east). Each room is an agent block",
        "with its assigned exit (`exit:`) and group number = room index (bottom rooms 0-5 west to",
        "east, then top rooms 6-11): %s." % ", ".join("%d %s" % (i, e) for i, e in enumerate(R10_EXIT)),
        "Rooms 0, 1, 3 (bottom) and 10, 11 (top) are sent to the far exit. Criterion: 100 % use",
        "their assigned exit."],
        "RiMEA test 10: 23 agents in 12 rooms, each room assigned one of two exits.")
    time_block(d, 120, "at most 120 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(r10_outline()))
    d.w("")
    d.w("exits:\n  - {name: west, segment: [[0, 5], [0, 7]]}\n  - {name: east, segment: [[30, 5], [30, 7]]}")
    d.w("")
    d.w("agents:")
    for i in range(2 * R10_ROOMS):
        k = i % R10_ROOMS
        y = 2.4 if i < R10_ROOMS else 9.6
        x = 5.0 * k
        n = R10_AGENTS[i]
        p0, p1 = ((x + 1.5, y), (x + 3.5, y)) if n == 2 else ((x + 2.5, y), (x + 2.5, y))
        d.block(["name: room%d" % i, "layout: grid", "min: %s" % pt(p0), "max: %s" % pt(p1), "rows: 1",
                 "cols: %d" % n, "group: %d" % i, "exit: %s" % R10_EXIT[i]])
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 48, metrics_every: 48}")
    return d.text()


def rimea12(preset):
    x0, x1, y0, y1 = R12_CORR
    ring = [(0, 0), (x0, 0), (x0, y0), (x1, y0), (x1, 0), (25, 0), (25, y0), (25.25, y0), (25.25, y0 - 0.5),
            (26.75, y0 - 0.5), (26.75, y1 + 0.5), (25.25, y1 + 0.5), (25.25, y1), (25, y1), (25, 10), (x1, 10),
            (x1, y1), (x0, y1), (x0, 10), (0, 10)]
    d = Doc(preset, "rimea12", [
        "RiMEA test 12: %d agents in room 1 (10 m x 10 m) walk through a corridor 1 m wide and" % R12_N,
        "5 m long into room 2 (10 m x 10 m) and out through its 1 m door (a 0.25 m passage through",
        "the wall into a 1.5 m x 2 m alcove whose far wall is the exit). Lines: `corridor` across",
        "the middle of the corridor, `last_door` across the door's passage; areas in front",
        "of the corridor's entrance and of the exit. Criterion: the jam forms only in room 1: the",
        "steady flow through the corridor >= that at the last exit - 0.05 /s, and the area in front",
        "of the exit stays clear of a jam."],
        "RiMEA test 12: 150 agents, room 1 -> 1 m corridor -> room 2 -> 1 m exit.")
    time_block(d, 400, "at most 400 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(ring))
    d.w("")
    d.w("exits:\n  - {name: exit, segment: [[26.75, %s], [26.75, %s]]}" % (g(y0 - 0.5), g(y1 + 0.5)))
    d.w("")
    d.w("agents:")
    d.block(["name: crowd", "layout: polygon", "polygon: %s" % pts(rect(0.5, 0.5, 9.5, 9.5)),
             "count: %d" % R12_N])
    d.w("")
    d.w("measurement:")
    d.w("  lines:")
    d.w("    - {name: corridor, segment: %s}" % pts(R12_LINE_CORR))
    d.w("    - {name: last_door, segment: %s}" % pts(R12_LINE_EXIT))
    d.w("  areas:")
    d.w("    - {name: corridor_entry, polygon: %s}" % pts(R12_AREA_ENTRY))
    d.w("    - {name: exit_front, polygon: %s}" % pts(R12_AREA_EXIT))
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 0, metrics_every: 1}   # lines.csv every step: crossing times to the step")
    return d.text()


def floors_block(d, floors, stairs):
    """floors: [(name, elevation, ring)], stairs: [(name, from, to, polygon, bottom, top)]."""
    d.w("floors:")
    for name, z, ring in floors:
        d.w('  - {name: %s, elevation: %s, walkable: "%s"}' % (name, g(z), wkt(ring)))
    d.w("")
    d.w("stairs:")
    for name, lo, hi, poly, bottom, top in stairs:
        d.w("  - {name: %s, from: %s, to: %s, polygon: %s," % (name, lo, hi, pts(poly)))
        d.w("     bottom: %s, top: %s}" % (pts(bottom), pts(top)))
    d.w("")


def stair_corridor():
    """RiMEA 2, 3: a 2 m corridor, 12 m level, the stair (x 12 -> 12 + ST_RUN), 12.5 m level above."""
    x1 = 12.0 + ST_RUN
    return ([("ground", 0.0, rect(0, 0, x1, 2)), ("upper", ST_RISE, rect(x1, 0, x1 + 12.5, 2))],
            [("stair", "ground", "upper", rect(12, 0, x1, 2), [(12, 0), (12, 2)], [(x1, 0), (x1, 2)])], x1)


def rimea02(preset, up):
    n = 2 if up else 3
    floors, stairs, x1 = stair_corridor()
    d = Doc(preset, "rimea%02d" % n, [
        "RiMEA test %d: one agent at a free speed of %g m/s walks %s a straight stair 2 m wide" % (
            n, ST_SPEED, "up" if up else "down"),
        "(run %g m, rise %g m: SFPE's 178/279 mm geometry) between two level corridors." % (ST_RUN, ST_RISE),
        "Criterion: its horizontal speed on the stair within Fruin's free speeds %s, %g-%g m/s," % (
            "up" if up else "down", *(ST_BAND_UP if up else ST_BAND_DOWN)),
        "and the configured stair speed (stairs[].speed_%s) within 5 %%." % ("up" if up else "down")],
        "RiMEA test %d: one agent walks %s a stair." % (n, "up" if up else "down"))
    time_block(d, 60, "at most 60 s; the run ends when the agent has left")
    floors_block(d, floors, stairs)
    if up:
        d.w("exits:\n  - {name: end, floor: upper, segment: [[%s, 0], [%s, 2]]}" % (g(x1 + 12.5), g(x1 + 12.5)))
    else:
        d.w("exits:\n  - {name: end, segment: [[0, 0], [0, 2]]}")
    d.w("")
    d.w("agents:")
    x0 = 1.0 if up else x1 + 11.5
    d.block(["name: walker"] + ([] if up else ["floor: upper"]) +
            ["layout: grid", "min: [%s, 1]" % g(x0), "max: [%s, 1]" % g(x0), "rows: 1", "cols: 1",
             "speed: %s" % g(ST_SPEED)])
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 12, metrics_every: 48}   # a frame every 0.25 s")
    return d.text()


def rimea13(preset):
    x1 = 10.0 + ST_RUN
    ground = [(0, 0), (10, 0), (10, 4), (x1, 4), (x1, 6), (10, 6), (10, 10), (0, 10)]
    floors = [("ground", 0.0, ground), ("upper", ST_RISE, rect(x1, 0, x1 + 10, 10))]
    stairs = [("stair", "ground", "upper", rect(10, 4, x1, 6), [(10, 4), (10, 6)], [(x1, 4), (x1, 6)])]
    d = Doc(preset, "rimea13", [
        "RiMEA test 13: %d agents in a room 10 m x 10 m leave up a stair 2 m wide (run %g m," % (R13_N, ST_RUN),
        "rise %g m) that starts at the room's east wall, and through a room above to its exit." % ST_RISE,
        "The stair is slower than the level: a queue forms in front of it. Areas: `stair_front` in the",
        "room before the stair, `stair_top` beyond it upstairs; line `stair` across its middle.",
        "Criterion: the mean density in front of the stair while the crowd climbs is at least twice",
        "that beyond its top; everyone out. Documented: the stair's specific flow."],
        "RiMEA test 13: 150 agents queue in front of a stair.")
    time_block(d, 400, "at most 400 s; the run ends when everyone has left")
    floors_block(d, floors, stairs)
    d.w("exits:\n  - {name: exit, floor: upper, segment: [[%s, 4], [%s, 6]]}" % (g(x1 + 10), g(x1 + 10)))
    d.w("")
    d.w("agents:")
    d.block(["name: crowd", "layout: polygon", "polygon: %s" % pts(rect(0.5, 0.5, 7.5, 9.5)), "count: %d" % R13_N])
    d.w("")
    d.w("measurement:")
    d.w("  lines:")
    d.w("    - {name: stair, segment: %s}" % pts(R13_LINE_STAIR))
    d.w("  areas:")
    d.w("    - {name: stair_front, polygon: %s}" % pts(R13_AREA_FRONT))
    d.w("    - {name: stair_top, floor: upper, polygon: %s}" % pts(R13_AREA_TOP))
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 48, metrics_every: 24}")
    return d.text()


def rimea14(preset):
    s1 = 10.0 + ST_RUN
    s2 = 70.0 - ST_RUN
    ground = [(0, 0), (74, 0), (74, 10), (s2, 10), (s2, 8), (70, 8), (70, 2), (10, 2), (10, 8), (s1, 8), (s1, 10),
              (0, 10)]
    floors = [("ground", 0.0, ground), ("upper", ST_RISE, rect(s1, 8, s2, 10))]
    stairs = [("west", "ground", "upper", rect(10, 8, s1, 10), [(10, 8), (10, 10)], [(s1, 8), (s1, 10)]),
              ("east", "ground", "upper", rect(s2, 8, 70, 10), [(70, 8), (70, 10)], [(s2, 8), (s2, 10)])]
    d = Doc(preset, "rimea14", [
        "RiMEA test 14: %d agents in a room 10 m x 10 m, the exit 60 m east. Two ways: a level" % R14_N,
        "corridor 2 m wide (60 m), or up a stair, along a corridor upstairs (%g m) and down another" % (s2 - s1),
        "stair: as long in plan, but slower on the stairs. Documented: the share that takes the",
        "stairs (the routing weighs a stair's cells by its mean walking speed, docs/floors.md)."],
        "RiMEA test 14: a level way or a way over stairs to the same exit.")
    time_block(d, 300, "at most 300 s; the run ends when everyone has left")
    floors_block(d, floors, stairs)
    d.w("exits:\n  - {name: exit, segment: [[74, 4], [74, 6]]}")
    d.w("")
    d.w("agents:")
    d.block(["name: crowd", "layout: polygon", "polygon: %s" % pts(rect(0.5, 0.5, 9.5, 9.5)), "count: %d" % R14_N])
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 24, metrics_every: 48}")
    return d.text()


def rimea15(preset, kind):
    L = R15_LEN[kind]
    cx = 8.0
    if kind == "corner":
        half = L / 2                          # centre line: 10 m east, then 10 m north
        ring = [(0, 0), (cx, 0), (cx, 4), (cx + half + 1, 4), (cx + half + 1, 6 + half - 1),
                (cx + half - 1, 6 + half - 1), (cx + half - 1, 6), (cx, 6), (cx, 10), (0, 10)]
        exit_seg = [(cx + half - 1, 6 + half - 1), (cx + half + 1, 6 + half - 1)]
        shape = "an L: %g m east, then a left turn and %g m north (centre line)" % (half, half)
    else:
        ring = [(0, 0), (cx, 0), (cx, 4), (cx + L, 4), (cx + L, 6), (cx, 6), (cx, 10), (0, 10)]
        exit_seg = [(cx + L, 4), (cx + L, 6)]
        shape = "straight, %g m long" % L
    d = Doc(preset, "rimea15-%s" % kind, [
        "RiMEA test 15 (%s): %d agents in a room 8 m x 10 m leave through a corridor 2 m wide," % (kind, R15_N),
        "%s, with the exit at its end. The three cases (short 10 m, long 30 m," % shape,
        "corner 10 + 10 m) share the room and the population. Criterion: the corner case's",
        "evacuation time lies between the short and the long case's."],
        "RiMEA test 15: %d agents through a %s corridor." % (R15_N, kind))
    time_block(d, 300, "at most 300 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(ring))
    d.w("")
    d.w("exits:\n  - {name: end, segment: %s}" % pts(exit_seg))
    d.w("")
    d.w("agents:")
    d.block(["name: crowd", "layout: polygon", "polygon: %s" % pts(rect(0.5, 0.5, 7.5, 9.5)), "count: %d" % R15_N])
    return d.line_tail("corridor_entry", "[[%s, 4], [%s, 6]]" % (g(cx + 1), g(cx + 1)), every_step=False)


def imo_door(preset):
    ring = [(0, 0), (8, 0), (8, 2), (8.25, 2), (8.25, 0.5), (10.25, 0.5), (10.25, 4.5), (8.25, 4.5),
            (8.25, 3), (8, 3), (8, 5), (0, 5)]
    d = Doc(preset, "imo-door", [
        "IMO MSC.1/Circ.1533 (exit flow test): %d agents evenly spread (a 13 x 8 lattice, the" % IMO_N,
        "first 100 points) in a room 8 m x 5 m leave through a 1 m door in the middle of a 5 m",
        "wall: a 0.25 m passage through the wall into a 2 m x 4 m area whose far wall is the exit.",
        "The line `door` lies across the passage. Criterion: the mean flow through the door over",
        "the whole evacuation ((N - 1) / (last - first crossing)) does not exceed 1.33 p/s."],
        "IMO exit flow test: 100 agents through a 1 m door of an 8 x 5 m room.")
    time_block(d, 300, "at most 300 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(ring))
    d.w("")
    d.w("exits:\n  - {name: out, segment: [[10.25, 0.5], [10.25, 4.5]]}")
    d.w("")
    d.w("agents:")
    d.block(["name: crowd", "layout: grid", "min: [0.3, 0.3]", "max: [7.7, 4.7]", "rows: 8", "cols: 13",
             "count: %d" % IMO_N])
    return d.line_tail("door", pts(IMO_DOOR_LINE))


def merge(preset, kind):
    w, L, S = MG_W, MG_ARM, MG_STEM
    if kind == "t":
        # arms y 0..w along x 0..2L+w; the stem x L..L+w from y = w up to w + S
        ring = [(0, 0), (2 * L + w, 0), (2 * L + w, w), (L + w, w), (L + w, w + S), (L, w + S), (L, w), (0, w)]
        exit_seg = [(L, w + S), (L + w, w + S)]
        line = [(L, w + S / 2), (L + w, w + S / 2)]
        blocks = [("left", rect(0.3, 0.3, L - 0.3, w - 0.3)), ("right", rect(L + w + 0.3, 0.3, 2 * L + w - 0.3, w - 0.3))]
        shape = "a T-junction: two arms %g m wide, filled over %g m each, merging into a stem %g m long" % (w, L, S)
    else:
        ring = [(0, 0), (MG_STRAIGHT_LEN, 0), (MG_STRAIGHT_LEN, w), (0, w)]
        exit_seg = [(MG_STRAIGHT_LEN, 0), (MG_STRAIGHT_LEN, w)]
        line = [(2 * L + S / 2, 0), (2 * L + S / 2, w)]
        blocks = [("crowd", rect(0.3, 0.3, 2 * L - 0.3, w - 0.3))]
        shape = "one straight corridor %g m wide, filled over %g m (the two arms' crowd)" % (w, 2 * L)
    d = Doc(preset, "merge-%s" % kind, [
        "Merging flows (%s): %s, at %g /m2 (the strip %g m clear of" % (kind, shape, MG_DENSITY, 0.3),
        "the walls). The line `flow` crosses the corridor where the crowd has merged. Criterion: the",
        "steady flow (10-90 %% of the crossings) after the merge is at least %g of the straight" % MG_SHARE,
        "corridor's; everyone out."],
        "Merging flows: %s." % shape)
    time_block(d, 300, "at most 300 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(ring))
    d.w("")
    d.w("exits:\n  - {name: end, segment: %s}" % pts(exit_seg))
    d.w("")
    d.w("agents:")
    for name, poly in blocks:
        d.block(["name: %s" % name, "layout: polygon", "polygon: %s" % pts(poly), "density: %g" % MG_DENSITY])
    return d.line_tail("flow", pts(line))


def counterflow(preset, n_counter):
    R, (cl, cw) = CF_ROOM, CF_CORR
    y0, y1 = (R - cw) / 2, (R + cw) / 2
    x2 = R + cl                                  # room 2: x2 .. x2 + R
    ring = [(0, 0), (R, 0), (R, y0), (x2, y0), (x2, 0), (x2 + R, 0), (x2 + R, R), (x2, R), (x2, y1), (R, y1),
            (R, R), (0, R)]
    d = Doc(preset, "counterflow-%d" % n_counter, [
        "IMO MSC.1/Circ.1533 test 8 (counterflow): two rooms %g m x %g m joined by a corridor %g m" % (R, R, cl),
        "long and %g m wide. %d agents in room 1 walk to room 2 (their exit: its far wall), while" % (cw, CF_MAIN),
        "%d agents in room 2 walk the other way (their exit: room 1's far wall). The line `arrive`" % n_counter,
        "lies across the corridor's east end. Criterion (over the cases 0, 10, 50, 100): everyone",
        "arrives, and the last of room 1 leaves through room 2's far wall later the more come the other way."],
        "IMO test 8: %d agents meet %d coming the other way in a 2 m corridor." % (CF_MAIN, n_counter))
    time_block(d, 600, "at most 600 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(ring))
    d.w("")
    d.w("exits:\n  - {name: east, segment: [[%s, 0], [%s, %s]]}" % (g(x2 + R), g(x2 + R), g(R)))
    d.w("  - {name: west, segment: [[0, 0], [0, %s]]}" % g(R))
    d.w("")
    d.w("agents:")
    d.block(["name: room1", "layout: polygon", "polygon: %s" % pts(rect(1, 1, R - 1, R - 1)),
             "count: %d" % CF_MAIN, "exit: east", "group: 1"])
    if n_counter:
        d.block(["name: room2", "layout: polygon", "polygon: %s" % pts(rect(x2 + 1, 1, x2 + R - 1, R - 1)),
                 "count: %d" % n_counter, "exit: west", "group: 2"])
    return d.line_tail("arrive", "[[%s, %s], [%s, %s]]" % (g(x2), g(y0), g(x2), g(y1)), every_step=False)


def ec_door(x_wall, side):
    """A door of EC_DOOR in the room's wall at x = x_wall (side -1: west, +1: east): a 0.25 m passage
    into a 2 m x 2 m alcove whose far wall is the exit; returns the outline's points on that wall
    (south to north) and the exit segment."""
    H = EC_ROOM[1]
    a, b = H / 2 - EC_DOOR / 2, H / 2 + EC_DOOR / 2
    xp, xa = x_wall + side * 0.25, x_wall + side * 2.25
    pts_ = [(x_wall, a), (xp, a), (xp, H / 2 - 1), (xa, H / 2 - 1), (xa, H / 2 + 1), (xp, H / 2 + 1), (xp, b),
            (x_wall, b)]
    return pts_, [(xa, H / 2 - 1), (xa, H / 2 + 1)]


def exit_choice(preset):
    W, H = EC_ROOM
    east, east_exit = ec_door(W, 1)
    west, west_exit = ec_door(0.0, -1)
    ring = [(0, 0), (W, 0)] + east + [(W, H), (0, H)] + list(reversed(west))
    d = Doc(preset, "exit-choice", [
        "Exit choice under congestion: a room %g m x %g m with two equal doors of %g m, in the" % (W, H, EC_DOOR),
        "middle of its west and east walls (a 0.25 m passage into a 2 m alcove whose far wall is the",
        "exit, so `width` gives the door's). %d agents stand in x %g-%g, much nearer the west door." % (
            EC_N, EC_SPAWN[0], EC_SPAWN[2]),
        "Criterion: with routing.exit_choice time (the pedestrian preset) both doors are used and the",
        "last agents out of the two doors leave within %.0f %% of each other; by distance alone" % (100 * EC_BALANCE),
        "everyone would queue at the west door."],
        "Exit choice: %d agents nearer one of two equal doors." % EC_N)
    time_block(d, 600, "at most 600 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(ring))
    d.w("")
    d.w("exits:\n  - {name: west, segment: %s, width: %g}" % (pts(west_exit), EC_DOOR))
    d.w("  - {name: east, segment: %s, width: %g}" % (pts(east_exit), EC_DOOR))
    d.w("")
    d.w("agents:")
    d.block(["name: crowd", "layout: polygon", "polygon: %s" % pts(rect(*EC_SPAWN)), "count: %d" % EC_N])
    d.w("")
    d.w("output: {trajectory_format: csv, trajectory_every: 0, metrics_every: 48}")
    return d.text()


def bn_lattice(n):
    """rows x cols >= n over the room less 0.25 m, spacing >= 0.5 m both ways, as square as can be."""
    (W, H), m = BN_ROOM, 0.25
    best = None
    for rows in range(2, 40):
        for cols in range(2, 60):
            if rows * cols < n:
                continue
            sx, sy = (W - 2 * m) / (cols - 1), (H - 2 * m) / (rows - 1)
            if min(sx, sy) < 0.5:
                continue
            key = (rows * cols - n, abs(sx - sy))
            if best is None or key < best[0]:
                best = (key, rows, cols)
    return best[1], best[2]


def bottleneck(preset, w):
    W, H = BN_ROOM
    c = H / 2
    a, b = round(c - w / 2, 3), round(c + w / 2, 3)
    xe = W + BN_WALL + BN_FREE
    ring = [(0, 0), (W, 0), (W, a), (W + BN_WALL, a), (W + BN_WALL, 0), (xe, 0), (xe, H), (W + BN_WALL, H),
            (W + BN_WALL, b), (W, b), (W, H), (0, H)]
    n = bn_count(w)
    rows, cols = bn_lattice(n)
    d = Doc(preset, "bottleneck-b%.1f" % w, [
        "Bottleneck flow at width %g m: a room %g m x %g m, a door of %g m in the middle of its" % (w, W, H, w),
        "east wall (a %g m passage through the wall), then a free area %g m deep whose far wall is" % (
            BN_WALL, BN_FREE),
        "the exit. N = max(180, ceil(120 b)) = %d agents on a %d x %d lattice over the room (the" % (n, rows, cols),
        "first N points). The line `door` lies across the passage. The seed (`--set seed=N`) draws",
        "the radii and speeds. Criterion (over the width scan): the steady flow J(b) is linear, R2",
        ">= 0.95, slope 1.9 +- 0.3 /(m s); every width drains completely."],
        "Bottleneck: %d agents through a %g m door." % (n, w))
    time_block(d, 400, "at most 400 s; the run ends when everyone has left")
    d.w('geometry:\n  walkable: "%s"' % wkt(ring))
    d.w("")
    d.w("exits:\n  - {name: out, segment: [[%s, 0], [%s, %s]]}" % (g(xe), g(xe), g(H)))
    d.w("")
    d.w("agents:")
    d.block(["name: crowd", "layout: grid", "min: [0.25, 0.25]", "max: [%s, %s]" % (g(W - 0.25), g(H - 0.25)),
             "rows: %d" % rows, "cols: %d" % cols, "count: %d" % n])
    return d.line_tail("door", pts(bn_line(w)))


def scenarios(preset):
    """{file name: text} of every scenario."""
    s = {"rimea01.yaml": rimea01(preset)}
    for rho in FD_DENSITIES:
        s[fd_name(rho)] = fd(preset, rho)
    s["rimea05.yaml"] = rimea05(preset)
    s["rimea06.yaml"] = rimea06(preset)
    s["rimea07.yaml"] = rimea07(preset)
    s["rimea09-4exits.yaml"] = rimea09(preset, ["sw", "se", "nw", "ne"])
    s["rimea09-2exits.yaml"] = rimea09(preset, R09_KEEP)
    s["rimea10.yaml"] = rimea10(preset)
    s["rimea02.yaml"] = rimea02(preset, True)
    s["rimea03.yaml"] = rimea02(preset, False)
    s["rimea12.yaml"] = rimea12(preset)
    s["rimea13.yaml"] = rimea13(preset)
    s["rimea14.yaml"] = rimea14(preset)
    for kind in ("short", "long", "corner"):
        s["rimea15-%s.yaml" % kind] = rimea15(preset, kind)
    s["imo-door.yaml"] = imo_door(preset)
    for kind in ("straight", "t"):
        s["merge-%s.yaml" % kind] = merge(preset, kind)
    for n in CF_COUNTER:
        s["counterflow-%d.yaml" % n] = counterflow(preset, n)
    s["exit-choice.yaml"] = exit_choice(preset)
    for w in BN_WIDTHS:
        s[bn_name(w)] = bottleneck(preset, w)
    return s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=HERE, help="directory to write into (default: configs/validation/)")
    ap.add_argument("--no-preset", action="store_true",
                    help="leave out `model: {preset: pedestrian}`; give agent_radius {min: 0.2, max: 0.25}")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    for name, text in scenarios(not a.no_preset).items():
        with open(os.path.join(a.out, name), "w") as f:
            f.write(text)
    print("wrote %d scenarios to %s" % (len(scenarios(True)), a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
