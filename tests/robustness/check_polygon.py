#!/usr/bin/env python3
"""Robustness of the walkable-area check on large plans (label `robustness`).

Usage: check_polygon.py THRONG CASE [--vertices N] [--limit S] [--keep DIR]

A plan of a station or a district reaches 10^6 vertices; `throng check` must
validate it in O(n log n), not pair by pair (which took 69 s for 10^5
vertices). Each case writes a scenario and its WKT plan
(`geometry.walkable_file`) into a temporary directory: an outer ring of N
vertices (a circle of radius 500 m with a zigzag of 5 cm, teeth 3 mm wide)
and three holes, finely subdivided circles of N/60 vertices each.

Cases (each prints the time taken and exits 0 when every check holds):
  valid          the plan is valid: `throng check` exits 0 within the limit (10 s)
  self-cross     one vertex of the outer ring pulled across the circle, so that its edges cross
                 edges half the ring away in index order: exit 2, "the outer ring of polygon 1
                 intersects itself at (x y)"
  hole-crosses   hole 1 across the outer ring: exit 2, "hole 1 of polygon 1 crosses its polygon's
                 outer ring at (x y)"
  holes-overlap  holes 1 and 2 overlapping: exit 2, "hole 2 of polygon 1 overlaps hole 1 of
                 polygon 1 at (x y)"
  hole-outside   hole 1 wholly outside the outer ring (no edges cross): exit 2, "hole 1 of polygon 1
                 is not inside its polygon's outer ring: (x y) lies outside it"
  hole-in-hole   hole 2 inside hole 1 (no edges cross): exit 2, "hole 2 of polygon 1 overlaps hole 1
                 of polygon 1 at (x y)"
Each refusal must come within the limit too, and its point (x y) must lie
where the rings named meet (or, for a point inside or outside, where it is
said to lie).
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

R_OUT = 500.0  # m, the outer ring's radius
TOOTH = 0.05   # m, the zigzag's half height


def circle(cx, cy, r, n, zigzag=0.0, clockwise=False):
    """n points on a circle (a zigzag of +-zigzag in the radius), counter-clockwise."""
    pts = []
    for k in range(n):
        a = 2.0 * math.pi * k / n
        rr = r + (zigzag if k % 2 else -zigzag)
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return pts[::-1] if clockwise else pts


def ring_wkt(pts):
    pts = pts + [pts[0]]
    return "(" + ", ".join("%.4f %.4f" % p for p in pts) + ")"


# The holes, (cx, cy, r) circles, and what each case changes.
HOLES = [(-200.0, 150.0, 40.0), (150.0, -200.0, 40.0), (100.0, 250.0, 30.0)]
CHANGED = {
    "hole-crosses": {0: (-R_OUT, 150.0, 40.0)},   # centred on the outer ring: crosses it
    "holes-overlap": {1: (-170.0, 170.0, 40.0)},  # overlaps hole 1
    "hole-outside": {0: (-700.0, 150.0, 40.0)},   # beyond the outer ring, apart from it
    "hole-in-hole": {1: (-200.0, 150.0, 20.0)},   # inside hole 1
}


def holes_of(case):
    return [CHANGED.get(case, {}).get(k, c) for k, c in enumerate(HOLES)]


def holes_for(case, n_hole):
    """The holes of a case: circles of n_hole vertices each, clockwise."""
    return [circle(cx, cy, r, n_hole, clockwise=True) for cx, cy, r in holes_of(case)]


def write_plan(case, n, directory):
    outer = circle(0.0, 0.0, R_OUT, n, TOOTH)
    if case == "self-cross":
        # vertex n/8 (north-east) pulled to the far west, beyond the ring: its
        # two edges cross the ring's edges around index n/2
        outer[n // 8] = (-R_OUT - 20.0, 20.0)
    n_hole = max(8, n // 60)
    rings = [outer] + holes_for(case, n_hole)
    wkt = "POLYGON (" + ", ".join(ring_wkt(r) for r in rings) + ")"
    with open(os.path.join(directory, "plan.wkt"), "w") as f:
        f.write(wkt + "\n")
    with open(os.path.join(directory, "scenario.yaml"), "w") as f:
        f.write("name: big-plan\ntime: {steps: 2}\n")
        f.write("geometry: {walkable_file: plan.wkt}\n")
        f.write("goals:\n  - {name: east, point: [450, 0]}\n")
        f.write("agents:\n  - {name: crowd, layout: grid, min: [0, 0], max: [10, 10], rows: 2, cols: 2, goal: east}\n")
    return sum(len(r) for r in rings)


SLACK = 0.01  # m: the circles are polygons, and the message rounds to 6 digits


def on_circle(x, y, c, slack=SLACK):
    return abs(math.hypot(x - c[0], y - c[1]) - c[2]) <= slack


def point_ok(case, x, y):
    """Whether the reported point lies where the fault is."""
    outer, holes = (0.0, 0.0, R_OUT), holes_of(case)
    if case == "self-cross":  # on an edge of the pulled vertex, on the far side of the ring
        return on_circle(x, y, outer, TOOTH + SLACK) and x < -R_OUT + 5.0
    if case == "hole-crosses":
        return on_circle(x, y, outer, TOOTH + SLACK) and on_circle(x, y, holes[0])
    if case == "holes-overlap":
        return on_circle(x, y, holes[0]) and on_circle(x, y, holes[1])
    if case == "hole-outside":
        return on_circle(x, y, holes[0]) and math.hypot(x, y) > R_OUT
    if case == "hole-in-hole":
        return on_circle(x, y, holes[1])
    return True


EXPECT = {
    "valid": (0, None),
    "self-cross": (2, r"the outer ring of polygon 1 intersects itself at \((\S+) (\S+)\)"),
    "hole-crosses": (2, r"hole 1 of polygon 1 crosses its polygon's outer ring at \((\S+) (\S+)\)"),
    "holes-overlap": (2, r"hole 2 of polygon 1 overlaps hole 1 of polygon 1 at \((\S+) (\S+)\)"),
    "hole-outside": (2, r"hole 1 of polygon 1 is not inside its polygon's outer ring: \((\S+) (\S+)\) lies outside"),
    "hole-in-hole": (2, r"hole 2 of polygon 1 overlaps hole 1 of polygon 1 at \((\S+) (\S+)\)"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(EXPECT))
    ap.add_argument("--vertices", type=int, default=1000000)
    ap.add_argument("--limit", type=float, default=10.0)
    ap.add_argument("--keep", help="write the scenario here and keep it")
    args = ap.parse_args()
    directory = args.keep or tempfile.mkdtemp(prefix="throng-polygon-")
    os.makedirs(directory, exist_ok=True)
    problems = []
    try:
        total = write_plan(args.case, args.vertices, directory)
        cmd = [args.throng, "check", os.path.join(directory, "scenario.yaml")]
        t0 = time.monotonic()
        wait = args.limit + 50.0  # then it is over the limit anyway: stop it, say so
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=wait, errors="replace")
        except subprocess.TimeoutExpired:
            print("FAIL: %s: `throng check` still running after %.0f s (the limit is %.0f s)" %
                  (args.case, wait, args.limit))
            return 1
        took = time.monotonic() - t0
        print("$ %s\n  exit %d, %.2f s for %d vertices\n  stderr: %s" %
              (" ".join(cmd), p.returncode, took, total, p.stderr.strip()[-600:]))
        code, pattern = EXPECT[args.case]
        if p.returncode != code:
            problems.append("exit status %d, expected %d" % (p.returncode, code))
        m = re.search(pattern, p.stderr) if pattern else None
        if pattern and not m:
            problems.append("stderr does not match /%s/" % pattern)
        elif m and not point_ok(args.case, float(m.group(1)), float(m.group(2))):
            problems.append("the point (%s %s) is not where the rings meet" % (m.group(1), m.group(2)))
        if took >= args.limit:
            problems.append("took %.2f s, the limit is %.0f s" % (took, args.limit))
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
    for what in problems:
        print("FAIL: %s: %s" % (args.case, what))
    if not problems:
        print("ok:   %s" % args.case)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
