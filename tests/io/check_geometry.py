#!/usr/bin/env python3
"""geometry.vtp and geometry.wkt beside every run's outputs (issue 20).

Usage: check_geometry.py THRONG SOURCE_DIR

Runs two scenarios and checks what the files hold, shape by shape:
  tests/data/io/geometry.yaml   a wall polyline, a polygon (closed: its first
                                point repeated), point / rectangle / disk goals
                                (the disk as 32 segments, the point a vertex);
                                no walkable area: the WKT is the world rectangle
                                (less the two obstacles in a GEOS build)
  tests/data/evacuation/ranks.yaml
                                the walkable area with a hole (two walls), two
                                exits, a measurement line and area, three queue
                                slots (vertices at their places); the WKT is the
                                walkable area as the scenario gives it
Then, where pvpython exists, ParaView's XMLPolyDataReader opens each file
and sees the same numbers of cells and points and the `kind` array (else
that part says SKIPPED; the rest still runs).
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

problems = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        problems.append(msg)


def numbers(node, conv=float):
    return [conv(x) for x in (node.text or "").split()]


def read_vtp(path):
    root = ET.parse(path).getroot()
    piece = root.find("PolyData/Piece")
    pts = numbers(piece.find("Points/DataArray"))
    pts = [tuple(pts[k:k + 3]) for k in range(0, len(pts), 3)]
    arrays = {}
    for sec in ("Verts", "Lines"):
        for a in piece.findall(sec + "/DataArray"):
            arrays[sec + "." + a.get("Name")] = numbers(a, int)
    kind = numbers(piece.find("CellData/DataArray[@Name='kind']"), int)
    return piece.attrib, pts, arrays, kind


def cells(arrays, sec):
    conn, offs = arrays[sec + ".connectivity"], arrays[sec + ".offsets"]
    out, start = [], 0
    for end in offs:
        out.append(conn[start:end])
        start = end
    return out


def world_less_obstacles(wkt):
    """A GEOS build cuts the obstacles out (io/walkable_out.c): the world 20 m x 10 m less the triangle
    (2 m^2) as a hole and the wall polyline (5 m, a cut-out 0.05 m wide, flat ends, mitred corner:
    0.25 m^2) as another."""
    rings = [[tuple(float(v) for v in p.split()) for p in r.split(",")]
             for r in re.findall(r"\(([^()]*)\)", wkt[wkt.index("((") + 1:wkt.rindex("))") + 1])]

    def area(r):
        return 0.5 * abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(r, r[1:] + r[:1])))
    a = area(rings[0]) - sum(area(h) for h in rings[1:]) if rings else -1
    return (wkt.startswith("POLYGON") and len(rings) == 3 and abs(a - 197.75) < 1e-3,
            "geometry.wkt is the world less its obstacles: %d rings, %.4f m^2 (want 3 rings, 197.75 m^2)"
            % (len(rings), a))


def run_case(throng, scenario, tmp, want_kinds, want_wkt, checks):
    out = os.path.join(tmp, os.path.basename(scenario))
    p = subprocess.run([throng, "run", scenario, "--out", out, "--quiet", "--steps", "2"], capture_output=True,
                       text=True)
    check(p.returncode == 0, "%s runs (exit %d) %s" % (os.path.basename(scenario), p.returncode, p.stderr.strip()))
    if p.returncode:
        return None
    wkt = open(os.path.join(out, "geometry.wkt")).read().strip()
    if callable(want_wkt):
        good, what = want_wkt(wkt)
        check(good, what)
    else:
        check(wkt == want_wkt, "geometry.wkt is %r (got %r)" % (want_wkt, wkt[:120]))
    vtp = os.path.join(out, "geometry.vtp")
    attrib, pts, arrays, kind = read_vtp(vtp)
    verts, lines = cells(arrays, "Verts"), cells(arrays, "Lines")
    check(int(attrib["NumberOfPoints"]) == len(pts) and int(attrib["NumberOfVerts"]) == len(verts)
          and int(attrib["NumberOfLines"]) == len(lines), "header counts match the arrays (%s)" % attrib)
    check(len(kind) == len(verts) + len(lines), "one kind per cell (%d for %d + %d)" % (len(kind), len(verts),
                                                                                        len(lines)))
    got = dict(collections.Counter(kind))
    check(got == want_kinds, "cells per kind %s (got %s)" % (want_kinds, got))
    used = sorted(i for c in verts + lines for i in c)
    check(used == list(range(len(pts))), "every point belongs to exactly one cell")
    # cell data lists verts first, then lines (VTK's order)
    shapes = [(kind[k], [pts[i][:2] for i in c]) for k, c in enumerate(verts + lines)]
    for what, cond in checks(shapes):
        check(cond, what)
    return vtp


def closed(ring):
    return len(ring) > 3 and ring[0] == ring[-1]


def geometry_checks(shapes):
    walls = [s for k, s in shapes if k == 1]
    goals = [s for k, s in shapes if k == 3]
    yield "the polyline wall stays open: (5,1) (5,4) (7,4)", [(5, 1), (5, 4), (7, 4)] in walls
    yield "the polygon is closed: (10,6) (12,6) (11,8) (10,6)", [(10, 6), (12, 6), (11, 8), (10, 6)] in walls
    yield "the point goal is one vertex at (18, 2)", [(18, 2)] in goals
    yield "the rectangle goal is its closed outline", [(16, 6), (19, 6), (19, 9), (16, 9), (16, 6)] in goals
    disk = [s for s in goals if len(s) == 33]
    yield "the disk goal: 32 segments, closed, radius 1 round (2, 8)", (
        len(disk) == 1 and closed(disk[0])
        and all(abs(((x - 2) ** 2 + (y - 8) ** 2) ** 0.5 - 1) < 1e-5 for x, y in disk[0]))


def ranks_checks(shapes):
    walls = [s for k, s in shapes if k == 1]
    yield "both rings of the walkable area are closed walls", len(walls) == 2 and all(closed(w) for w in walls)
    yield "the hole (11,5)-(13,7) is a wall", any(sorted(set(w)) == [(11, 5), (11, 7), (13, 5), (13, 7)]
                                                  for w in walls)
    exits = [s for k, s in shapes if k == 2]
    yield "two closed exits, at x = 24 and x = 0", (
        len(exits) == 2 and all(closed(e) for e in exits)
        and sorted(round(sum(x for x, _ in e[:-1]) / (len(e) - 1)) for e in exits) == [0, 24])
    yield "the measurement line (8,0)-(8,5)", [s for k, s in shapes if k == 4] == [[(8, 0), (8, 5)]]
    areas = [s for k, s in shapes if k == 5]
    yield "the measurement area is its closed polygon", areas == [[(21, 3), (24, 3), (24, 9), (21, 9), (21, 3)]]
    slots = [s for k, s in shapes if k == 6]
    at = sorted((round(x, 4), round(y, 4)) for (x, y), in slots)  # single precision: 16.8 is 16.7999992
    yield "three slots at the queue's places %s" % at, at == [(16, 9), (16.8, 9), (17.6, 9)]


PV_SCRIPT = r"""
import sys
from paraview.simple import XMLPolyDataReader
for path in sys.argv[1:]:
    r = XMLPolyDataReader(FileName=[path])
    r.UpdatePipeline()
    i = r.GetDataInformation()
    lo, hi = r.CellData["kind"].GetRange()
    print("%s %d %d %g %g" % (path, i.GetNumberOfCells(), i.GetNumberOfPoints(), lo, hi))
"""


def main():
    throng, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="throng-geometry-")
    try:
        geos = re.search(r"GEOS\s+ON", subprocess.run([throng, "info"], capture_output=True, text=True).stdout)
        a = run_case(throng, os.path.join(src, "tests/data/io/geometry.yaml"), tmp, {1: 2, 3: 3},
                     world_less_obstacles if geos else "POLYGON ((0 0, 20 0, 20 10, 0 10, 0 0))", geometry_checks)
        b = run_case(throng, os.path.join(src, "tests/data/evacuation/ranks.yaml"), tmp,
                     {1: 2, 2: 2, 4: 1, 5: 1, 6: 3},
                     "POLYGON ((0 0, 24 0, 24 12, 0 12, 0 0), (11 5, 13 5, 13 7, 11 7, 11 5))", ranks_checks)
        pv = shutil.which("pvpython")
        if not pv:
            print("SKIPPED: ParaView's reader (no pvpython)")
        elif a and b:
            script = os.path.join(tmp, "read.py")
            with open(script, "w") as f:
                f.write(PV_SCRIPT)
            p = subprocess.run([pv, script, a, b], capture_output=True, text=True, timeout=300)
            rows = [l.split() for l in p.stdout.splitlines() if l.startswith("/")]
            check(p.returncode == 0 and len(rows) == 2, "pvpython reads both files (exit %d) %s"
                  % (p.returncode, p.stderr.strip()[-300:]))
            for row, path in zip(rows, (a, b)):
                attrib, pts, arrays, kind = read_vtp(path)
                want = (len(kind), len(pts), 1, max(kind))
                got = (int(row[1]), int(row[2]), float(row[3]), float(row[4]))
                check(got == want, "ParaView: %s: cells, points, kind range %s (got %s)"
                      % (os.path.basename(os.path.dirname(path)), want, got))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS" if not problems else "FAIL (%d problem(s))" % len(problems))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
