#!/usr/bin/env python3
"""Buildings (label `floors`): floors, stairs and the seams between the floors'
places (docs/floors.md, decision 0019).

Usage: check_floors.py THRONG CASE [--mpiexec MPIEXEC] [--np-flag -n] [--mpi-flags "..."]

  apart            two floors over one plan, 4 m apart, a crowd on each walking across the other's
                   way (tests/data/floors/stacked.yaml): the lower crowd's final state is the same byte
                   for byte without the upper crowd (stacked-alone.yaml), although the two crowds stand
                   where they would overlap in plan (closer than 0.3 m in some frame); both floors empty
  down_the_stair   configs/floors/two-storey.yaml: 40 agents upstairs, the door downstairs: everyone
                   out; each walks the stair (elevations from 3 m to 0 in the trajectory, x, y inside
                   its floor's walkable area as given); nobody lost or counted twice
  journey          a journey across floors (journey.yaml): 40 agents downstairs walk up to a waypoint on
                   the first floor (each seen within its 1 m), then down and out through the door
  ranks_identical  stacked.yaml (two crowds on floors over one plan) and two-storey.yaml on 1, 2, 3 and 4
                   ranks: final states (and evacuated.csv) byte-identical
  cpu_vs_cuda      two-storey.yaml on --backend cpu and cuda (strict build): final state and
                   evacuated.csv byte-identical (the crowd-aware fields run through the seams on both);
                   77 without a CUDA backend, a GPU or THRONG_STRICT_FP

Exits 0 when every check holds, 1 otherwise, 77 when the case cannot run here.
Standard library only.
"""
import argparse
import csv
import json
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data", "floors")
TWO = os.path.join(ROOT, "configs", "floors", "two-storey.yaml")
SKIP = 77
problems = []


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        problems.append(what)
    return cond


def run(a, scenario, out, *extra, prefix=(), timeout=300):
    cmd = list(prefix) + [a.throng, "run", scenario, "--out", out, "--quiet", "--set",
                          "output.trajectory_format=csv"] + list(extra)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, errors="replace")
    print("$ %s\n  exit %d in %.2f s" % (" ".join(shlex.quote(c) for c in cmd), p.returncode, time.time() - t0))
    if p.returncode != 0:
        print(p.stderr[-3000:])
        print("FAIL (stopped)")
        sys.exit(1)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def frames(out):
    """[(time, {id: (x, y, z)})] of trajectory/ (CSV frames)."""
    d = os.path.join(out, "trajectory")
    with open(os.path.join(d, "trajectory.csv.series")) as f:
        files = [(float(e["time"]), e["name"]) for e in json.load(f)["files"]]
    got = []
    for t, name in sorted(files):
        with open(os.path.join(d, name), newline="") as f:
            got.append((t, {int(r["id"]): (float(r["x"]), float(r["y"]), float(r["z"])) for r in csv.DictReader(f)}))
    return got


def final_rows(path):
    with open(path) as f:
        return f.read().splitlines()[1:]


def apart(a, tmp):
    both, alone = os.path.join(tmp, "both"), os.path.join(tmp, "alone")
    fb, fa = os.path.join(tmp, "both.csv"), os.path.join(tmp, "alone.csv")
    run(a, os.path.join(DATA, "stacked.yaml"), both, "--steps", "300", "--final-state", fb)
    run(a, os.path.join(DATA, "stacked-alone.yaml"), alone, "--steps", "300", "--final-state", fa)
    lower = 24  # ids 0..23: the lower crowd (the first block) in both runs
    rb = [r for r in final_rows(fb) if int(r.split(",")[0]) < lower]
    ra = final_rows(fa)
    check(rb == ra and len(ra) > 0, "the lower crowd's final state (%d agents left at step 300) is the same byte for "
          "byte with and without the upper crowd" % len(ra))
    closest = math.inf
    for _, fr in frames(both):
        lo = [p for i, p in fr.items() if i < lower]
        hi = [p for i, p in fr.items() if i >= lower]
        check_z = all(abs(p[2]) < 1e-9 for p in lo) and all(abs(p[2] - 4.0) < 1e-9 for p in hi)
        if not check_z:
            check(False, "elevations: lower crowd at 0 m, upper at 4 m in every frame")
            break
        for p in lo:
            for q in hi:
                closest = min(closest, math.hypot(p[0] - q[0], p[1] - q[1]))
    check(closest < 0.3, "the crowds cross in plan (closest %.3f m < 0.3 m: they would overlap on one floor)" % closest)
    run(a, os.path.join(DATA, "stacked.yaml"), os.path.join(tmp, "full"))
    s = summary(os.path.join(tmp, "full"))
    check(s["remaining"] == 0 and s["exits"] == {"east": 24, "north": 24},
          "both floors empty through their own exits: %s" % s["exits"])


def parse_wkt(text):
    nums = [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text)]
    return list(zip(nums[0::2], nums[1::2]))


def inside(ring, x, y, tol=1e-6):
    c = False
    n = len(ring)
    for k in range(n):
        (x0, y0), (x1, y1) = ring[k], ring[(k + 1) % n]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            c = not c
        # on an edge counts as inside
        if abs((x1 - x0) * (y - y0) - (y1 - y0) * (x - x0)) <= tol * math.hypot(x1 - x0, y1 - y0) and \
                min(x0, x1) - tol <= x <= max(x0, x1) + tol and min(y0, y1) - tol <= y <= max(y0, y1) + tol:
            return True
    return c


def down_the_stair(a, tmp):
    out = os.path.join(tmp, "two")
    run(a, TWO, out, "--set", "output.trajectory_every=12")
    s = summary(out)
    check(s["remaining"] == 0 and s["evacuated"] == 40, "everyone out: %d of 40 (%s s)" % (s["evacuated"],
                                                                                       s["evacuation_time"]))
    with open(os.path.join(out, "evacuated.csv")) as f:
        ids = [int(r["id"]) for r in csv.DictReader(f)]
    check(sorted(ids) == list(range(40)), "evacuated.csv holds ids 0..39 once each")
    with open(os.path.join(out, "floors.csv")) as f:
        fl = list(csv.DictReader(f))
    rings = {float(r["elevation"]): parse_wkt(open(os.path.join(out, r["walkable"])).read())[:-1] for r in fl}
    stair = [(20, 0), (26, 0), (26, 2), (20, 2)]
    lowest, outside = {}, []
    for _, fr in frames(out):
        for i, (x, y, z) in fr.items():
            lowest[i] = min(lowest.get(i, z), z)
            on = rings.get(z)
            if on is not None and not inside(on, x, y, 1e-3):
                outside.append((i, x, y, z))
            if on is None and not (0.0 < z < 3.0 and inside(stair, x, y, 1e-3)):
                outside.append((i, x, y, z))
    check(not outside, "every point lies on its floor's walkable area, or on the stair between the floors "
          "(first off: %s)" % (outside[:1],))
    starts = {i: p[2] for i, p in frames(out)[0][1].items()}
    check(all(abs(z - 3.0) < 1e-6 for z in starts.values()), "everyone starts upstairs (z 3 m)")
    went = [i for i in range(40) if lowest.get(i, 3.0) < 2.0]
    check(len(went) >= 36, "%d of 40 seen on the stair's lower half or downstairs (frames every 0.25 s)" % len(went))


def journey(a, tmp):
    out = os.path.join(tmp, "journey")
    run(a, os.path.join(DATA, "journey.yaml"), out, "--set", "output.trajectory_every=12")
    s = summary(out)
    check(s["remaining"] == 0 and s["evacuated"] == 40, "everyone out through the door downstairs: %d of 40"
          % s["evacuated"])
    near = set()
    for _, fr in frames(out):
        for i, (x, y, z) in fr.items():
            if abs(z - 3.0) < 1e-6 and math.hypot(x - 35.0, y - 5.0) <= 1.0 + 0.25:
                near.add(i)
    check(len(near) == 40, "every agent came within the waypoint's 1 m upstairs before leaving (%d of 40 seen "
          "there in frames every 0.25 s)" % len(near))


def ranks_identical(a, tmp):
    if not a.mpiexec:
        print("SKIPPED: no mpiexec")
        return SKIP
    # the floors over one plan: apart on any rank count (each rank's domain holds parts of both places)
    ref = None
    for P in (1, 2, 3, 4):
        out, final = os.path.join(tmp, "s%d" % P), os.path.join(tmp, "stacked-%d.csv" % P)
        prefix = [a.mpiexec, a.np_flag, str(P)] + shlex.split(a.mpi_flags)
        run(a, os.path.join(DATA, "stacked.yaml"), out, "--steps", "300", "--final-state", final, "--set",
            "output.trajectory_every=0", prefix=prefix)
        if ref is None:
            ref = read(final)
            continue
        check(read(final) == ref, "stacked floors, %d ranks: final state byte-identical to 1 rank" % P)
    ref = None
    for P in (1, 2, 3, 4):
        out, final = os.path.join(tmp, "r%d" % P), os.path.join(tmp, "final-%d.csv" % P)
        prefix = [a.mpiexec, a.np_flag, str(P)] + shlex.split(a.mpi_flags)
        run(a, TWO, out, "--steps", "1800", "--final-state", final, "--set", "output.trajectory_every=0",
            "--set", "decomposition.balance_every=50", prefix=prefix)
        got = (read(final), read(os.path.join(out, "evacuated.csv")))
        if ref is None:
            ref = got
            n = len(got[0].splitlines()) - 1
            check(0 < n < 40, "1 rank: %d agents left at step 1800 (some out, some not)" % n)
            continue
        check(got == ref, "%d ranks: final state and evacuated.csv byte-identical to 1 rank" % P)


def cpu_vs_cuda(a, tmp):
    info = subprocess.run([a.throng, "info"], capture_output=True, text=True).stdout
    m = re.search(r"cuda\s+built; (\d+) GPU", info)
    if not m or int(m.group(1)) == 0:
        print("SKIPPED: no CUDA backend in this build or no GPU visible")
        return SKIP
    if not re.search(r"THRONG_STRICT_FP\)?:\s*ON", info):
        print("SKIPPED: byte identity needs a THRONG_STRICT_FP=ON build")
        return SKIP
    got = {}
    for backend in ("cpu", "cuda"):
        out, final = os.path.join(tmp, backend), os.path.join(tmp, "final-%s.csv" % backend)
        run(a, TWO, out, "--steps", "1800", "--backend", backend, "--final-state", final, "--set",
            "output.trajectory_every=0")
        got[backend] = (read(final), read(os.path.join(out, "evacuated.csv")))
    n = len(got["cpu"][0].splitlines()) - 1
    check(got["cpu"] == got["cuda"], "final state (%d agents) and evacuated.csv byte-identical on cpu and cuda" % n)


CASES = {f.__name__: f for f in (apart, down_the_stair, journey, ranks_identical, cpu_vs_cuda)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--mpi-flags", default="")
    a = ap.parse_args()
    a.throng = os.path.abspath(a.throng)
    t0 = time.time()
    with tempfile.TemporaryDirectory(prefix="throng_floors_") as tmp:
        rc = CASES[a.case](a, tmp)
    if rc == SKIP:
        return SKIP
    print("%s in %.1f s" % ("PASS" if not problems else "FAIL (%d problem(s))" % len(problems), time.time() - t0))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
