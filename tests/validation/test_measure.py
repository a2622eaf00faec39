#!/usr/bin/env python3
"""Unit tests of scripts/validation/measure.py on synthetic output directories
written in throng's layout (label `validation`): frames with known motion, a
lines.csv, an evacuated.csv and a summary.json whose measurements are known by
hand. Exit 0 when all hold, 1 otherwise, 77 without numpy.

Usage: test_measure.py
"""
import json
import math
import os
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
try:
    import numpy as np
except ImportError:
    print("SKIPPED: numpy is not installed for %s" % sys.executable)
    sys.exit(77)
sys.path.insert(0, os.path.join(ROOT, "scripts", "validation"))
import measure as M  # noqa: E402


def write_run(d, frames, series=True, dt=0.5):
    """frames: [(t, [(id, x, y, vx, vy, r, group), ...]), ...] -> d/trajectory/..."""
    os.makedirs(os.path.join(d, "trajectory"), exist_ok=True)
    files = []
    for k, (t, rows) in enumerate(frames):
        name = "trajectory.%08d.csv" % round(t / dt)
        with open(os.path.join(d, "trajectory", name), "w") as f:
            f.write("id,x,y,vx,vy,radius,group\n")
            for r in rows:
                f.write(",".join("%.9g" % v for v in r) + "\n")
        files.append({"name": name, "time": t})
    if series:
        with open(os.path.join(d, "trajectory", "trajectory.csv.series"), "w") as f:
            json.dump({"file-series-version": "1.0", "files": files}, f)
    with open(os.path.join(d, "run.json"), "w") as f:
        json.dump({"parameters": {"dt": dt}}, f)


class Measure(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def walker_frames(self, v=1.25, n=41, dt=0.5, start=None):
        """Agent 0 walks along x at v from x = 1 (standing until `start`); agent 1 stands at (5, 5)."""
        fr = []
        for k in range(n):
            t = k * dt
            moving = start is None or t > start
            x = 1.0 + v * (t - (start or 0.0)) if moving else 1.0
            fr.append((t, [(0, x, 1.0, v if moving else 0.0, 0.0, 0.2, 0), (1, 5.0, 5.0, 0.0, 0.0, 0.25, 1)]))
        return fr

    def test_load_frames_series_and_steps(self):
        write_run(self.d, self.walker_frames(n=5))
        fr = M.load_frames(self.d)
        self.assertEqual([f.t for f in fr], [0.0, 0.5, 1.0, 1.5, 2.0])
        self.assertEqual(fr[2].id.tolist(), [0, 1])
        self.assertAlmostEqual(fr[2].x[0], 2.25)
        self.assertEqual(fr[2].group.tolist(), [0, 1])
        os.remove(os.path.join(self.d, "trajectory", "trajectory.csv.series"))   # times from step x dt
        self.assertEqual([f.t for f in M.load_frames(self.d, tmin=1.0)], [1.0, 1.5, 2.0])

    def test_walking_time(self):
        write_run(self.d, self.walker_frames(v=1.25, n=41))
        fr = M.load_frames(self.d)
        self.assertAlmostEqual(M.walking_time(fr, 0, 1.0, 21.0), 16.0, places=6)
        self.assertAlmostEqual(M.walking_time(fr, 0, 2.0, 3.3), 1.04, places=6)   # interpolated between frames
        self.assertIsNone(M.walking_time(fr, 0, 1.0, 99.0))
        self.assertIsNone(M.walking_time(fr, 7, 1.0, 2.0))

    def test_release_and_free_speeds(self):
        write_run(self.d, self.walker_frames(v=1.0, n=41, start=7.0))
        fr = M.load_frames(self.d)
        rel = M.release_times(fr, v_min=0.3, d_min=0.1)
        self.assertEqual(rel[0], 7.5)
        self.assertIsNone(rel[1])
        v = M.free_speeds(fr, 10.0, 20.0)
        self.assertAlmostEqual(v[0], 1.0, places=6)
        self.assertAlmostEqual(v[1], 0.0)

    def test_area_density_speed(self):
        # 6 agents in the rectangle [0, 2] x [0, 3] (6 m2): 1 /m2, all at (0.5, 0) m/s; one outside
        rows = [(i, 0.2 + 0.3 * i, 1.0, 0.5, 0.0, 0.2, 0) for i in range(6)] + [(9, 5.0, 1.0, 2.0, 0.0, 0.2, 0)]
        nxt = [(i, x + 0.25, y, vx, vy, r, g) for i, x, y, vx, vy, r, g in rows]
        write_run(self.d, [(0.0, rows), (0.5, nxt)])
        fr = M.load_frames(self.d)
        t, rho, v = M.area_density_speed(fr, (0, 0, 2, 3))
        self.assertAlmostEqual(rho[0], 1.0)
        self.assertAlmostEqual(v[0], 0.5)
        t, rho, v = M.area_density_speed(fr, [[0, 0], [2, 0], [2, 3], [0, 3]], speed="displacement")
        self.assertEqual(len(t), 1)                    # the last frame has no next one
        self.assertAlmostEqual(v[0], 0.5)
        t, rho, v = M.area_density_speed(fr, (10, 10, 11, 11))
        self.assertTrue(math.isnan(v[0]) and rho[0] == 0)

    def test_line_crossings(self):
        write_run(self.d, self.walker_frames(v=1.25, n=41))
        fr = M.load_frames(self.d)
        t = M.line_crossings(fr, [[11.0, 0.0], [11.0, 2.0]])
        self.assertEqual(len(t), 1)
        self.assertAlmostEqual(t[0], 8.0, places=6)
        self.assertEqual(M.line_crossings(fr, [[11.0, 2.0], [11.0, 4.0]]), [])          # beside the segment
        self.assertEqual(len(M.line_crossings(fr, [[11.0, 0.0], [11.0, 2.0]], direction=-1)), 1)   # eastwards
        self.assertEqual(M.line_crossings(fr, [[11.0, 0.0], [11.0, 2.0]], direction=1), [])

    def test_flows(self):
        times = [0.0] + [10.0 + 0.5 * k for k in range(19)] + [100.0]       # 21 crossings, an outlier each end
        self.assertAlmostEqual(M.steady_flow(times), 2.0)                   # ranks 2..18: 16 gaps of 0.5 s
        self.assertAlmostEqual(M.mean_flow(times), 20 / 100.0)
        self.assertTrue(math.isnan(M.steady_flow([3.0])))
        with open(os.path.join(self.d, "lines.csv"), "w") as f:
            f.write("step,time,line,crossings,flow\n0,0.000000,a,0,0\n0,0.000000,b,0,0\n"
                    "1,0.500000,a,2,4\n1,0.500000,b,1,2\n2,1.000000,a,2,0\n2,1.000000,b,3,4\n")
        self.assertEqual(M.lines_csv_crossings(self.d, "a"), [0.5, 0.5])
        self.assertEqual(M.lines_csv_crossings(self.d, "b"), [0.5, 1.0, 1.0])
        with open(os.path.join(self.d, "evacuated.csv"), "w") as f:
            f.write("id,exit,time,release,born,travel_time,distance,group\n"
                    "3,east,2.5,0,0,2.5,3,0\n1,west,4.0,0,0,4,3,0\n2,east,7.0,0,0,7,3,0\n")
        self.assertEqual(M.exit_times(self.d), [2.5, 4.0, 7.0])
        self.assertEqual(M.exit_times(self.d, "east"), [2.5, 7.0])
        self.assertEqual(M.evacuation_time(self.d), 7.0)                    # no summary.json
        with open(os.path.join(self.d, "summary.json"), "w") as f:
            json.dump({"evacuation_time": 7.25}, f)
        self.assertEqual(M.evacuation_time(self.d), 7.25)

    def test_wkt_and_walls(self):
        polys = M.parse_wkt("POLYGON ((0 0, 14 0, 14 14, 12 14, 12 2, 0 2, 0 0))")
        self.assertEqual(len(polys), 1)
        self.assertEqual(polys[0][0].shape, (6, 2))
        mp = M.parse_wkt("MULTIPOLYGON (((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1)), "
                         "((10 0, 11 0, 11 1, 10 0)))")
        self.assertEqual([len(p) for p in mp], [2, 1])
        inside = M.points_in_area(mp, [0.5, 1.5, 10.9, 5.0], [0.5, 1.5, 0.5, 5.0])
        self.assertEqual(inside.tolist(), [True, False, True, False])
        wkt = "POLYGON ((0 0, 14 0, 14 14, 12 14, 12 2, 0 2, 0 0))"
        good = [(0.0, [(0, 5.0, 1.0, 0, 0, 0.25, 0)]), (0.5, [(0, 13.0, 1.0, 0, 0, 0.25, 0)]),
                (1.0, [(0, 13.0, 5.0, 0, 0, 0.25, 0)])]
        write_run(self.d, good)
        w = M.wall_check(M.load_frames(self.d), wkt, tol=0.01)
        self.assertEqual((w["points"], w["n_outside"], w["n_crossings"], w["n_overlap"]), (3, 0, 0, 0))
        self.assertAlmostEqual(w["min_clearance"], 0.75)
        # a corner cut: the centre stays inside at both frames, but the move crosses the wall
        # corner at (12, 2); then a centre outside; then a disk 5 cm into the wall
        bad = [(0.0, [(0, 11.0, 1.5, 0, 0, 0.25, 0)]), (0.5, [(0, 12.5, 3.0, 0, 0, 0.25, 0)]),
               (1.0, [(0, 11.5, 5.0, 0, 0, 0.25, 0)]), (1.5, [(0, 12.2, 5.0, 0, 0, 0.25, 0)])]
        self.tearDown()
        self.setUp()
        write_run(self.d, bad)
        w = M.wall_check(M.load_frames(self.d), wkt, tol=0.01)
        self.assertEqual(w["n_outside"], 1)
        self.assertEqual(w["n_crossings"], 3)     # 0.5 -> 1.0 (into the wall) and 1.0 -> 1.5 (back); the cut
        self.assertGreaterEqual(w["n_overlap"], 2)

    def test_fit_and_weidmann(self):
        b, a, r2 = M.linear_fit([0.8, 1.2, 1.6, 2.0], [1.52, 2.28, 3.04, 3.8])
        self.assertAlmostEqual(b, 1.9)
        self.assertAlmostEqual(a, 0.0, places=9)
        self.assertAlmostEqual(r2, 1.0)
        v = M.weidmann_speed([0.5, 1.0, 2.0, 4.0, 6.0])
        for got, want in zip(v, [1.298, 1.058, 0.606, 0.156, 0.0]):   # docs: the reference table
            self.assertAlmostEqual(got, want, delta=0.0015)


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False, verbosity=2).result.wasSuccessful() else 1)
