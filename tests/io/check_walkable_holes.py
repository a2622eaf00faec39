#!/usr/bin/env python3
"""io.walkable_holes (issue 36): the obstacles of a scenario are cut out of the
walkable area that geometry.wkt and trajectory.h5's wkt_geometry hold, so that
PedPy's WalkableArea leaves them out (tests/data/io/obstacle_walls.yaml).

Usage: check_walkable_holes.py THRONG DATA_DIR
Exit 0 when both hold the area less the obstacles (its area worked by hand,
one hole each for the closed obstacle and the free-standing wall, the wall
from the boundary a notch), 1 otherwise, 77 in a build without GEOS or HDF5,
or without h5py. Standard library and h5py."""
import os
import re
import subprocess
import sys
import tempfile


def rings(wkt):
    """[[(x, y), ...], ...] of a POLYGON's rings."""
    body = wkt[wkt.index("((") + 1:wkt.rindex("))") + 1]
    return [[tuple(float(v) for v in p.split()) for p in r.split(",")] for r in re.findall(r"\(([^()]*)\)", body)]


def area(r):
    return 0.5 * abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(r, r[1:] + r[:1])))


def main():
    throng, data = sys.argv[1], sys.argv[2]
    info = subprocess.run([throng, "info"], capture_output=True, text=True).stdout
    if not re.search(r"GEOS\s+ON", info) or not re.search(r"HDF5\s+ON", info):
        print("SKIPPED: this throng was built without GEOS or HDF5 (libgeos-dev, libhdf5-openmpi-dev)")
        return 77
    try:
        import h5py
    except ImportError:
        print("SKIPPED: no h5py (python3-h5py)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        p = subprocess.run([throng, "run", os.path.join(data, "obstacle_walls.yaml"), "--out", out, "--quiet",
                            "--steps", "48"], capture_output=True, text=True)
        if p.returncode:
            print("FAIL: throng run exited %d\n%s" % (p.returncode, p.stderr))
            return 1
        text = open(os.path.join(out, "geometry.wkt")).read().strip()
        with h5py.File(os.path.join(out, "trajectory.h5"), "r") as f:
            attr = f.attrs["wkt_geometry"]
            attr = attr.decode() if isinstance(attr, bytes) else str(attr)
    print("geometry.wkt: " + text)
    ok = True
    r = rings(text)
    a = area(r[0]) - sum(area(h) for h in r[1:])
    want = 200.0 - 4.0 - 6.0 * 0.05 - 3.0 * 0.05
    for cond, what in [(text.startswith("POLYGON"), "one polygon"),
                       (len(r) == 3, "an outer ring and 2 holes (the obstacle, the free-standing wall): %d rings"
                        % len(r)),
                       (abs(a - want) < 1e-3, "area %.4f m^2 = 200 - 4 - 0.3 - 0.15 = %.4f" % (a, want)),
                       (any(abs(x - 3.0) < 1e-9 for x, _ in r[0]), "the wall from the boundary notches the outer ring"),
                       (attr.strip() == text, "trajectory.h5's wkt_geometry is the same text")]:
        print(("ok:   " if cond else "FAIL: ") + what)
        ok = ok and cond
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
