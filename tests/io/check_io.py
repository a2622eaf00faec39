#!/usr/bin/env python3
"""HDF5 trajectory and checkpoint/restart tests (label `io`).

Usage: check_io.py THRONG CASE [--mpiexec M --np-flag=-n --mpi-flags="..."] [case options]

Cases (each prints what it saw and exits 0 when every check holds, 77 when
it cannot run: no h5py/numpy, no mpiexec, PedPy not installable):
  trajectory_layout  a run of tests/data/io/exit_room.yaml (on 2 ranks when mpiexec is given): the
                     /trajectory compound (frame u4, id u4, x y z f8), its fps attribute, the root
                     attributes (wkt_geometry a POLYGON, scenario, producer, dt, every), /frames
                     (one row per frame, steps, times, first_row/rows contiguous), per frame the rows
                     equal the agents of the CSV run (--set output.trajectory_format=csv), ids unique,
                     x/y inside the world and equal to the CSV's, /points == float32 of x,y,z,
                     /velocity and /group equal to the CSV's vx,vy,group (at %.9g, float precision),
                     /state only flag bits 1|2|4|8; trajectory.xdmf parses as XML with one Grid per
                     non-empty frame whose time, element count and HyperSlab start/count are /frames'
  final_frame        a run of exit_room.yaml stopped by --steps 103 with a frame every 10 steps (2 ranks
                     when mpiexec is given): /frames keeps steps 0..100 and frame numbers = step / 10,
                     /trajectory has no (frame, id) twice, /final holds step 103, time 103 dt and the
                     agents of the CSV run's trajectory.00000103.csv (ids, x, y, vx, vy, radius,
                     group), trajectory.xdmf ends with a Grid at that time over /final; the CSV
                     .series ends with step 103; a run of 100 steps (a multiple) has no /final
  pedpy              PedPy 1.5 (pip, into the venv --venv, made once) loads trajectory.h5 and its
                     walkable area unchanged; compute_classic_density in a measurement square equals
                     agents-in-square / area counted from the raw rows, for every frame
  pedpy_exit_line    tests/data/io/exit_line.yaml (2 ranks when mpiexec is given): PedPy's N-t at the
                     measurement line 1 m before the exit counts every agent, as many as lines.csv (50);
                     without the trajectory's leaving rows (state bit 2) it would count fewer
  restart_equal      --scenario S --from P --to Q --steps N --every E --restart-step K: a 1-rank run
                     to step N with --final-state; a run on P ranks with output.checkpoint_every=E
                     (its own final state equal too); the checkpoint of step K restarted on Q ranks to
                     step N: exit 0, run.json last_step N, final state byte-identical
  signal_startup     SIGUSR1 while a 300,000-agent run is still placing its agents: exit 75,
                     run.json "checkpointed" at the first step, latest.h5 (not death by the signal)
  signal             --signal TERM|USR1: `mpiexec -n 2 throng run ... --steps 1000000` gets the signal
                     once metrics.csv has some rows: run.json "checkpointed" with the checkpoint's
                     path, checkpoints/latest.h5 that file, S = last_step = the name's step; USR1:
                     mpiexec exits 75 (TERM: the ranks exit 75, mpiexec's own status is not checked);
                     the checkpoint restarted on 1 rank to S+K equals an uninterrupted run to S+K
  bad_checkpoints    refused restarts: exit 2, a message naming the checkpoint file and saying why
                     (truncated, random bytes, missing, an HDF5 file that is no checkpoint, an
                     incomplete one, /agents/x changed, another scenario's, another time.dt, another
                     contact.stiffness, another seed, past --steps, inside the restart's --out); the
                     refused run leaves no output directory and no final state, the checkpoint intact
  full_disk          THRONG_FAULT_WRITE on the second checkpoint of a run: exit 1, the file and "No
                     space left on device" named, no .tmp, the first checkpoint intact and latest.h5
                     pointing to it, run.json "failed"; a restart from it equals an uninterrupted run
  full_disk_trajectory  THRONG_FAULT_WRITE on trajectory.h5 in the third frame: exit 1, the file and
                     "No space left on device" named, no .tmp, run.json "failed", and no half-written
                     trajectory.h5: either none, or one whose tables agree with /frames
  compression        output.compression 6 and 0 give the same datasets, 6 a smaller (gzip) file;
                     output.compression=12 is refused (exit 2, the key named, nothing written)
  no_hdf5            (a build without HDF5) --restart and output.trajectory_format=hdf5 are refused:
                     exit 2, "built without HDF5"
"""
import argparse
import csv
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")
EXIT_ROOM = os.path.join(DATA, "io", "exit_room.yaml")
PEDESTRIAN = os.path.join(DATA, "mpi", "pedestrian.yaml")
MINIMAL = os.path.join(DATA, "good", "minimal.yaml")
SKIP = 77
problems = []
A = None  # the parsed arguments


class Skip(Exception):
    pass


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        problems.append(what)
    return cond


def need_h5():
    try:
        import h5py  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        raise Skip("%s has no h5py/numpy (%s); install python3-h5py" % (sys.executable, e))


def throng(args, ranks=1, cwd=None, env=None, timeout=300):
    """Runs throng (on `ranks` ranks through mpiexec when ranks > 1)."""
    cmd = [A.throng] + args
    if ranks > 1:
        if not A.mpiexec:
            raise Skip("no mpiexec for a %d-rank run" % ranks)
        cmd = [A.mpiexec, A.np_flag, str(ranks)] + shlex.split(A.mpi_flags) + cmd
    t0 = time.time()
    p = subprocess.run(cmd, cwd=cwd or A.tmp, env=dict(os.environ, OMP_NUM_THREADS="1", **(env or {})),
                       capture_output=True, text=True, errors="replace", timeout=timeout)
    err = p.stderr.strip()
    print("$ %s%s\n  exit %d (%.1f s)%s" % (" ".join("%s=%s" % kv for kv in (env or {}).items()) + " " if env else "",
                                           " ".join(shlex.quote(c) for c in cmd), p.returncode, time.time() - t0,
                                           ("\n  stderr: " + err[-600:].replace("\n", "\n          ")) if err else ""))
    return p


def path(*parts):
    return os.path.join(A.tmp, *parts)


def run_json(out):
    with open(os.path.join(out, "run.json")) as f:
        return json.load(f)


def read(p):
    with open(p, "rb") as f:
        return f.read()


def tmp_files(top):
    return [os.path.join(d, n) for d, _, names in os.walk(top) for n in names if ".tmp" in n]


# ---- trajectory_layout ------------------------------------------------------

def csv_frames(out):
    """{step: rows as dicts} of a CSV trajectory."""
    frames = {}
    d = os.path.join(out, "trajectory")
    for name in sorted(os.listdir(d)):
        m = re.fullmatch(r"trajectory\.(\d+)\.csv", name)
        if m:
            with open(os.path.join(d, name), newline="") as f:
                frames[int(m.group(1))] = list(csv.DictReader(f))
    return frames


def st_of(f, r):
    """/state of the rows of /frames row r."""
    return f["state"][int(r["first_row"]):int(r["first_row"] + r["rows"])]


def trajectory_layout():
    need_h5()
    import h5py
    import numpy as np
    import xml.etree.ElementTree as ET
    ranks = 2 if A.mpiexec else 1
    every = 10
    h5out, csvout = path("h5"), path("csv")
    p = throng(["run", EXIT_ROOM, "--out", h5out, "--set", "output.trajectory_every=%d" % every,
                "--set", "output.trajectory_format=hdf5"], ranks=ranks)
    check(p.returncode == 0, "the HDF5 run on %d rank(s) exits 0" % ranks)
    p = throng(["run", EXIT_ROOM, "--out", csvout, "--set", "output.trajectory_every=%d" % every,
                "--set", "output.trajectory_format=csv"])
    check(p.returncode == 0, "the CSV run exits 0")
    if problems:
        return
    rj = run_json(h5out)
    last, dt = rj["last_step"], rj["parameters"]["dt"]
    cf = csv_frames(csvout)
    f = h5py.File(os.path.join(h5out, "trajectory.h5"), "r")
    tr = f["trajectory"]
    names = tr.dtype.names
    check(names == ("frame", "id", "x", "y", "z"), "/trajectory columns frame,id,x,y,z (got %s)" % (names,))
    want = {"frame": "<u4", "id": "<u4", "x": "<f8", "y": "<f8", "z": "<f8"}
    got = {n: tr.dtype.fields[n][0].str for n in names}
    check(got == want, "/trajectory column types %s (got %s)" % (want, got))
    fps = float(tr.attrs.get("fps", -1))
    check(abs(fps - 1 / (dt * every)) < 1e-6 * fps, "fps %.9g = 1/(dt*every) = %.9g" % (fps, 1 / (dt * every)))
    at = f.attrs
    wkt = at.get("wkt_geometry", "")
    wkt = wkt.decode() if isinstance(wkt, bytes) else str(wkt)
    check(wkt.startswith("POLYGON ((0 0, 10 0, 10 6, 3 6, 3 7, 0 7, 0 0))"),
          "wkt_geometry is the scenario's walkable area (%r)" % wkt[:80])
    check(str(at.get("scenario")) == "exit_room", "scenario attribute exit_room (%r)" % at.get("scenario"))
    check(str(at.get("producer", "")).startswith("throng "), "producer attribute 'throng ...'")
    check(int(at.get("every", -1)) == every and abs(float(at.get("dt", -1)) - dt) < 1e-9,
          "every = %d, dt = %.9g attributes" % (every, dt))
    # run.json says the cadence (issue 20): the frame interval and rate a reader needs
    for out, fmt in ((h5out, "hdf5"), (csvout, "csv")):
        o = run_json(out).get("output", {})
        check(o.get("trajectory") == fmt and o.get("trajectory_every") == every
              and abs(o.get("frame_interval_seconds", -1) - every * dt) < 1e-6
              and abs(o.get("frames_per_second", -1) - 1 / (every * dt)) < 1e-4
              and o.get("metrics_every") == 1 and abs(o.get("metrics_interval_seconds", -1) - dt) < 1e-9,
              "run.json output: %s every %d steps (%.3f s, %.3f fps), metrics every step (%s)"
              % (fmt, every, every * dt, 1 / (every * dt), o))
    rows = tr[:]
    fr = f["frames"][:]
    n = len(rows)
    nf = last // every + 1
    # after the run, the leavers still due in frames of their own (one or two), numbered as the next frames
    trail = len(fr) - nf
    check(trail in (1, 2) and all(r["step"] > last and not (st_of(f, r) & 2 == 0).any() for r in fr[nf:]),
          "/frames has %d rows (steps 0..%d every %d) and %d frame(s) after of leaving rows only (got %d)"
          % (nf, last, every, trail, len(fr)))
    check(list(fr["frame"]) == list(range(len(fr))), "/frames frame = 0, 1, ...")
    check(list(fr["step"]) == [k * every for k in range(len(fr))], "/frames step = frame * every")
    check(np.allclose(fr["time"], fr["step"] * dt, rtol=1e-6, atol=1e-9), "/frames time = step * dt")
    starts = np.concatenate([[0], np.cumsum(fr["rows"])[:-1]]) if len(fr) else np.array([])
    check(list(fr["first_row"]) == list(starts) and int(fr["rows"].sum()) == n,
          "/frames first_row/rows tile the %d rows" % n)
    empty = int((fr["rows"] == 0).sum())
    check(empty >= 1 and len(fr) - empty >= 10, "the fixture works: %d empty and %d non-empty frames"
          % (empty, len(fr) - empty))
    lo, hi = (0.0, 0.0), (10.0, 7.0)
    pts, vel = f["points"][:], f["velocity"][:]
    grp, st, stage = f["group"][:], f["state"][:], f["stage"][:]
    check(pts.shape == (n, 3) and pts.dtype == np.float32, "/points (%d,3) float32 (%s %s)" % (n, pts.shape, pts.dtype))
    check(vel.shape == (n, 3) and vel.dtype == np.float32, "/velocity (%d,3) float32" % n)
    check(grp.shape == (n,) and grp.dtype == np.int32 and stage.shape == (n,) and stage.dtype == np.int32,
          "/group and /stage (%d,) int32" % n)
    check(st.shape == (n,) and st.dtype == np.uint32 and not (st & ~np.uint32(15)).any(),
          "/state (%d,) uint32 with flag bits 1|2|4|8 only" % n)
    check(np.array_equal(pts[:, 0], rows["x"].astype(np.float32)) and
          np.array_equal(pts[:, 1], rows["y"].astype(np.float32)) and
          np.array_equal(pts[:, 2], rows["z"].astype(np.float32)), "/points == float32(/trajectory x, y, z)")
    bad = []
    for k, r in enumerate(fr):
        a, b = int(r["first_row"]), int(r["first_row"] + r["rows"])
        if not (rows[a:b]["frame"] == k).all():
            bad.append("frame %d: rows of another frame" % k)
        if k >= nf:
            continue  # the leavers' frames after the run (checked above)
        ix = a + np.nonzero((st[a:b] & 2) == 0)[0]  # the agents present (the CSV has no leaving rows)
        sl = rows[ix]
        step = int(r["step"])
        c = sorted(cf.get(step, []), key=lambda d: int(d["id"]))
        if step not in cf and len(ix):
            bad.append("frame %d: the CSV run has no frame of step %d" % (k, step))
        if len(c) != len(ix):
            bad.append("frame %d: %d rows present, the CSV run %d agents" % (k, len(ix), len(c)))
            continue
        if not len(ix):
            continue
        if len(set(sl["id"].tolist())) != len(ix):
            bad.append("frame %d: ids not unique" % k)
        if (sl["x"] < lo[0]).any() or (sl["x"] > hi[0]).any() or (sl["y"] < lo[1]).any() or (sl["y"] > hi[1]).any():
            bad.append("frame %d: a position outside the world" % k)
        if (sl["z"] != 0).any():
            bad.append("frame %d: z != 0" % k)
        order = np.argsort(sl["id"], kind="stable")
        ids = sl["id"][order]
        if [int(d["id"]) for d in c] != ids.tolist():
            bad.append("frame %d: ids differ from the CSV's" % k)
            continue
        cx = np.array([[float(d["x"]), float(d["y"]), float(d["vx"]), float(d["vy"])] for d in c], dtype=np.float64)
        cg = np.array([int(d["group"]) for d in c])
        x32 = np.stack([sl["x"][order], sl["y"][order]], axis=1).astype(np.float32).astype(np.float64)
        v32 = vel[ix][order][:, :2].astype(np.float64)
        if not np.allclose(x32, cx[:, :2], rtol=2e-7, atol=1e-7):
            bad.append("frame %d: x,y differ from the CSV's (max %g)" % (k, np.abs(x32 - cx[:, :2]).max()))
        if not np.allclose(v32, cx[:, 2:], rtol=2e-7, atol=1e-7):
            bad.append("frame %d: velocity differs from the CSV's (max %g)" % (k, np.abs(v32 - cx[:, 2:]).max()))
        if (vel[a:b][:, 2] != 0).any():
            bad.append("frame %d: velocity z != 0" % k)
        if not np.array_equal(grp[ix][order], cg):
            bad.append("frame %d: group differs from the CSV's" % k)
    check(not bad, "every frame: rows without state bit 2 = the CSV run's agents, ids unique and the CSV's, x,y inside the world, "
          "x,y,vx,vy,group = the CSV's at float precision" + ("" if not bad else " -- " + "; ".join(bad[:6])))
    # an agent that left is in the two frames after it left, where it left (state bit 2), then never
    with open(os.path.join(h5out, "evacuated.csv"), newline="") as fh:
        gone = sorted(int(d["id"]) for d in csv.DictReader(fh))
    by_id = {}
    for k, i in enumerate(rows["id"].tolist()):
        by_id.setdefault(i, []).append(k)
    bad = []
    for i in gone:
        ks = by_id.get(i, [])
        lv = [k for k in ks if st[k] & 2]
        if len(lv) != 2 or lv != ks[-2:] or rows["frame"][lv[1]] != rows["frame"][lv[0]] + 1 \
                or (rows["x"][lv[0]], rows["y"][lv[0]]) != (rows["x"][lv[1]], rows["y"][lv[1]]):
            bad.append(i)
    check(len(gone) == 30 and not bad and int((st & 2 > 0).sum()) == 2 * len(gone),
          "each of the %d agents of evacuated.csv has two leaving rows (state bit 2), its last, in consecutive "
          "frames at one place%s" % (len(gone), "" if not bad else " (not agents %s)" % bad[:8]))
    on_clock = len([s_ for s_ in cf if cf[s_] and s_ % every == 0])
    with_present = sum(1 for r in fr[:nf] if (st_of(f, r) & 2 == 0).any())
    check(on_clock == with_present, "the CSV run has as many non-empty frames on the clock (%d) as /frames up to "
          "step %d has frames with agents present (%d)" % (on_clock, last, with_present))
    # the XDMF sidecar
    try:
        x = ET.parse(os.path.join(h5out, "trajectory.xdmf")).getroot()
    except ET.ParseError as e:
        check(False, "trajectory.xdmf is well-formed XML (%s)" % e)
        return
    check(x.tag == "Xdmf", "trajectory.xdmf parses, root <Xdmf>")
    coll = x.find("Domain/Grid")
    grids = [g for g in coll.findall("Grid") if g.get("Name", "").startswith("frame ")] if coll is not None else []
    nonempty = [r for r in fr[:nf] if r["rows"] > 0]  # the leavers' frames after /final are not shown
    check(coll is not None and coll.get("CollectionType") == "Temporal" and len(grids) == len(nonempty),
          "one Grid per non-empty frame in a temporal collection (%d grids, %d frames)" % (len(grids), len(nonempty)))
    bad = []
    for g, r in zip(grids, nonempty):
        t = float(g.find("Time").get("Value"))
        ne = int(g.find("Topology").get("NumberOfElements"))
        if abs(t - r["time"]) > 1e-6 * max(1, r["time"]) or ne != r["rows"]:
            bad.append("frame %d: time %g elements %d" % (r["frame"], t, ne))
        for item in g.iter("DataItem"):
            if item.get("ItemType") != "HyperSlab":
                continue
            sel, src = item.findall("DataItem")
            v = [int(s) for s in sel.text.split()]
            cols = len(v) // 3
            start, count = v[:cols], v[2 * cols:]
            dims = [int(s) for s in src.get("Dimensions").split()]
            if start[0] != r["first_row"] or count[0] != r["rows"] or dims[0] != n or \
                    not src.text.strip().startswith("trajectory.h5:/"):
                bad.append("frame %d: slab start %s count %s of %s %s" % (r["frame"], start, count, dims, src.text))
            ds = src.text.strip().split(":/", 1)[1]
            if ds not in f or f[ds].shape[0] != n:
                bad.append("frame %d: %s is no dataset of %d rows" % (r["frame"], ds, n))
    check(not bad, "every Grid: time, element count and HyperSlab start/count = /frames, datasets of trajectory.h5"
          + ("" if not bad else " -- " + "; ".join(bad[:6])))


def final_frame():
    """The run's last step has a frame even off the trajectory_every clock (issue 20)."""
    need_h5()
    import h5py
    import numpy as np
    import xml.etree.ElementTree as ET
    ranks = 2 if A.mpiexec else 1
    every, steps = 10, 103
    outs = {}
    for fmt, n, r in (("hdf5", steps, ranks), ("csv", steps, 1), ("hdf5", 100, 1)):
        out = path("%s_%d" % (fmt, n))
        p = throng(["run", EXIT_ROOM, "--out", out, "--steps", str(n), "--set", "output.trajectory_every=%d" % every,
                    "--set", "output.trajectory_format=" + fmt], ranks=r)
        check(p.returncode == 0, "the %s run of %d steps on %d rank(s) exits 0" % (fmt, n, r))
        outs[(fmt, n)] = out
    if problems:
        return
    dt = run_json(outs[("hdf5", steps)])["parameters"]["dt"]
    cf = csv_frames(outs[("csv", steps)])
    check(sorted(cf)[-1] == steps and sorted(cf)[-2] == 100,
          "the CSV run's last files are steps 100 and %d (%s)" % (steps, sorted(cf)[-3:]))
    with open(os.path.join(outs[("csv", steps)], "trajectory", "trajectory.csv.series")) as fh:
        series = json.load(fh)["files"]
    check(series[-1]["name"] == "trajectory.%08d.csv" % steps and abs(series[-1]["time"] - steps * dt) < 1e-6,
          "the .series ends with step %d at %.4f s (%s)" % (steps, steps * dt, series[-1]))
    with h5py.File(os.path.join(outs[("hdf5", 100)], "trajectory.h5"), "r") as f:
        check("final" not in f, "a run that ends on a multiple of trajectory_every has no /final")
    f = h5py.File(os.path.join(outs[("hdf5", steps)], "trajectory.h5"), "r")
    fr, rows = f["frames"][:], f["trajectory"][:]
    after = [r for r in fr if r["step"] > steps]  # the last leavers, in frames of their own
    check(list(fr["step"]) == list(range(0, 101 + every * len(after), every))
          and list(fr["frame"]) == list(range(11 + len(after))) and len(after) <= 2
          and all((st_of(f, r) & 2).all() for r in after),
          "/frames: steps 0..100 every %d, frames 0..10, then %d frame(s) of leaving rows only (%s)"
          % (every, len(after), list(fr["step"])))
    pairs = set(zip(rows["frame"].tolist(), rows["id"].tolist()))
    check(len(pairs) == len(rows), "/trajectory: no (frame, id) twice (%d rows, %d pairs)" % (len(rows), len(pairs)))
    check("final" in f, "/final exists")
    if problems:
        return
    g = f["final"]
    check(int(g.attrs.get("step", -1)) == steps and abs(float(g.attrs.get("time", -1)) - steps * dt) < 1e-6,
          "/final step %d, time %.6f s (%s, %s)" % (steps, steps * dt, g.attrs.get("step"), g.attrs.get("time")))
    present = (g["state"][:] & 2) == 0  # /final also has the leaving rows due (docs/output.md)
    ids = g["id"][:][present]
    c = sorted(cf[steps], key=lambda d: int(d["id"]))
    order = np.argsort(ids, kind="stable")
    check(len(ids) > 0 and [int(d["id"]) for d in c] == ids[order].tolist(),
          "/final/id: the %d agents of the CSV run at step %d" % (len(c), steps))
    if problems:
        return
    cx = np.array([[float(d[k]) for k in ("x", "y", "vx", "vy", "radius")] for d in c])
    pts, vel, rad = (g[k][:][present][order] for k in ("points", "velocity", "radius"))
    check(np.allclose(pts[:, :2], cx[:, :2], rtol=2e-7, atol=1e-7) and (pts[:, 2] == 0).all(),
          "/final/points = the CSV's x, y at float precision, z = 0")
    check(np.allclose(vel[:, :2], cx[:, 2:4], rtol=2e-7, atol=1e-7), "/final/velocity = the CSV's vx, vy")
    check(np.allclose(rad, cx[:, 4], rtol=1e-6), "/final/radius = the CSV's radius")
    check(np.array_equal(g["group"][:][present][order], np.array([int(d["group"]) for d in c])), "/final/group = the CSV's")
    check(all(g[k].shape[0] == len(present) for k in ("points", "velocity", "radius", "group", "state", "stage")),
          "every /final table has %d rows" % len(present))
    grids = ET.parse(os.path.join(outs[("hdf5", steps)], "trajectory.xdmf")).getroot().findall("Domain/Grid/Grid")
    last = grids[-1] if grids else None
    srcs = [d.text.strip() for d in last.iter("DataItem") if d.get("Format") == "HDF"] if last is not None else []
    check(last is not None and abs(float(last.find("Time").get("Value")) - steps * dt) < 1e-6
          and int(last.find("Topology").get("NumberOfElements")) == len(present)
          and srcs and all(s.startswith("trajectory.h5:/final/") for s in srcs),
          "trajectory.xdmf ends with a Grid at %.4f s of the %d rows of /final (%s)"
          % (steps * dt, len(present), srcs[:2]))


# ---- pedpy ------------------------------------------------------------------

PEDPY_CHECK = r"""
import json, sys, pathlib
import numpy as np, h5py, pedpy, shapely
traj_file = pathlib.Path(sys.argv[1])
traj = pedpy.load_trajectory_from_ped_data_archive_hdf5(trajectory_file=traj_file)
area = pedpy.load_walkable_area_from_ped_data_archive_hdf5(trajectory_file=traj_file)
square = [(5.5, 0.5), (9.8, 0.5), (9.8, 5.5), (5.5, 5.5)]
ma = pedpy.MeasurementArea(square)
dens = pedpy.compute_classic_density(traj_data=traj, measurement_area=ma)
with h5py.File(traj_file, "r") as f:
    rows = f["trajectory"][:]
    fps = float(f["trajectory"].attrs["fps"])
poly = shapely.Polygon(square)
raw = {}
for r in rows:
    if poly.contains(shapely.Point(float(r["x"]), float(r["y"]))):
        raw[int(r["frame"])] = raw.get(int(r["frame"]), 0) + 1
out = {"version": pedpy.__version__, "frame_rate": float(traj.frame_rate), "fps": fps,
       "n_rows": int(len(traj.data)), "rows": int(len(rows)), "area": float(area.area),
       "ma_area": float(ma.area), "density": {int(a): float(b) for a, b in zip(dens["frame"], dens["density"])},
       "raw": raw, "ids": int(traj.data["id"].nunique())}
print(json.dumps(out))
"""


def pedpy_venv():
    """The venv with PedPy (made once in --venv); raises Skip when it cannot be made."""
    vpy = os.path.join(A.venv, "bin", "python")
    probe = [vpy, "-c", "import pedpy, h5py; print(pedpy.__version__)"]
    if os.path.exists(vpy) and subprocess.run(probe, capture_output=True).returncode == 0:
        return vpy
    print("making %s (python3 -m venv, pip install 'pedpy>=1.5,<1.6')" % A.venv)
    shutil.rmtree(A.venv, ignore_errors=True)
    p = subprocess.run([sys.executable, "-m", "venv", A.venv], capture_output=True, text=True)
    if p.returncode:
        shutil.rmtree(A.venv, ignore_errors=True)
        raise Skip("python3 -m venv failed (install python3-venv): %s" % p.stderr.strip()[-300:])
    p = subprocess.run([vpy, "-m", "pip", "install", "--disable-pip-version-check", "-q", "pedpy>=1.5,<1.6"],
                       capture_output=True, text=True, timeout=900)
    if p.returncode or subprocess.run(probe, capture_output=True).returncode:
        shutil.rmtree(A.venv, ignore_errors=True)
        raise Skip("pip install pedpy failed (no network?): %s" % (p.stderr.strip()[-400:]))
    return vpy


def pedpy_case():
    vpy = pedpy_venv()
    out = path("h5")
    p = throng(["run", EXIT_ROOM, "--out", out, "--set", "output.trajectory_every=5"],
               ranks=2 if A.mpiexec else 1)
    if not check(p.returncode == 0, "the run exits 0"):
        return
    script = path("pedpy_check.py")
    with open(script, "w") as f:
        f.write(PEDPY_CHECK)
    q = subprocess.run([vpy, script, os.path.join(out, "trajectory.h5")], capture_output=True, text=True)
    if not check(q.returncode == 0, "PedPy loads trajectory.h5 and its walkable area, computes the density%s"
                 % ("" if not q.returncode else ": " + q.stderr.strip()[-1500:])):
        return
    r = json.loads(q.stdout)
    print("  pedpy %s: %d rows, frame rate %g, walkable area %.2f m^2" % (r["version"], r["n_rows"], r["frame_rate"],
                                                                       r["area"]))
    check(r["version"].startswith("1.5"), "PedPy 1.5 (%s)" % r["version"])
    check(abs(r["frame_rate"] - r["fps"]) < 1e-9, "PedPy's frame rate is the fps attribute (%g)" % r["fps"])
    check(r["n_rows"] == r["rows"] and r["ids"] == 30, "PedPy has all %d rows, 30 agents (%d, %d)"
          % (r["rows"], r["n_rows"], r["ids"]))
    check(abs(r["area"] - 63.0) < 1e-6, "the walkable area is the scenario's L shape, 63 m^2 (%g)" % r["area"])
    dens = {int(k): v for k, v in r["density"].items()}
    raw = {int(k): v for k, v in r["raw"].items()}
    bad = [k for k in dens if abs(dens[k] - raw.get(k, 0) / r["ma_area"]) > 1e-9]
    peak = max(dens.values()) if dens else 0
    check(dens and not bad and set(raw) <= set(dens),
          "classic density = agents in the square / %.2f m^2 in all %d frames%s"
          % (r["ma_area"], len(dens), "" if not bad else " (differs in frames %s)" % bad[:10]))
    first, end = dens.get(0, -1), dens[max(dens)] if dens else -1
    check(abs(first - 24 / r["ma_area"]) < 1e-9 and abs(peak - first) < 1e-9 and end < first / 4,
          "plausible: the 24 agents placed in the square at frame 0 (%.3f /m^2), the peak; at the last frame "
          "%.3f /m^2, the room emptying" % (first, end))


PEDPY_LINE_CHECK = r"""
import json, sys, pathlib
import numpy as np, h5py, pedpy
traj_file, x0, y0, x1, y1 = pathlib.Path(sys.argv[1]), *map(float, sys.argv[2:6])
traj = pedpy.load_trajectory_from_ped_data_archive_hdf5(trajectory_file=traj_file)
line = pedpy.MeasurementLine([(x0, y0), (x1, y1)])
nt, _ = pedpy.compute_n_t(traj_data=traj, measurement_line=line)
with h5py.File(traj_file, "r") as f:
    keep = (f["state"][:] & 2) == 0
data = traj.data[keep].reset_index(drop=True)
bare = pedpy.TrajectoryData(data=data, frame_rate=traj.frame_rate)
nt_bare, _ = pedpy.compute_n_t(traj_data=bare, measurement_line=line)
print(json.dumps({"n": int(nt["cumulative_pedestrians"].max()), "bare": int(nt_bare["cumulative_pedestrians"].max()),
                  "ids": int(traj.data["id"].nunique())}))
"""


def pedpy_exit_line():
    vpy = pedpy_venv()
    out = path("exit_line")
    p = throng(["run", os.path.join(DATA, "io", "exit_line.yaml"), "--out", out], ranks=2 if A.mpiexec else 1)
    if not check(p.returncode == 0, "the run exits 0"):
        return
    with open(os.path.join(out, "lines.csv"), newline="") as fh:
        counted = max(int(d["crossings"]) for d in csv.DictReader(fh) if d["line"] == "at_exit")
    script = path("pedpy_line.py")
    with open(script, "w") as f:
        f.write(PEDPY_LINE_CHECK)
    q = subprocess.run([vpy, script, os.path.join(out, "trajectory.h5"), "11", "0", "11", "3"], capture_output=True,
                       text=True)
    if not check(q.returncode == 0, "PedPy computes N-t at the line%s"
                 % ("" if not q.returncode else ": " + q.stderr.strip()[-1500:])):
        return
    r = json.loads(q.stdout)
    check(counted == 50 and r["n"] == counted, "PedPy's N-t at the line 1 m before the exit = lines.csv's crossings "
          "= the 50 agents (PedPy %d, lines.csv %d)" % (r["n"], counted))
    check(r["bare"] < r["n"], "the test can fail: without the leaving rows PedPy counts %d" % r["bare"])


# ---- restart_equal ----------------------------------------------------------

def restart_equal():
    s, n, e, k = A.scenario, A.steps, A.every, A.restart_step
    extra = sum((["--set", x] for x in A.set), [])
    ref = throng(["run", s, "--steps", str(n), "--out", path("ref"), "--final-state", path("ref.txt")] + extra)
    if not check(ref.returncode == 0, "the uninterrupted 1-rank run exits 0"):
        return
    first = throng(["run", s, "--steps", str(n), "--out", path("first"), "--final-state", path("first.txt"),
                    "--set", "output.checkpoint_every=%d" % e, "--set", "output.checkpoint_keep=1000"] + extra,
                   ranks=A.from_ranks)
    if not check(first.returncode == 0, "the %d-rank run with checkpoints every %d steps exits 0" % (A.from_ranks, e)):
        return
    check(read(path("first.txt")) == read(path("ref.txt")), "its final state equals the 1-rank run's")
    ck = path("first", "checkpoints", "checkpoint-%08d.h5" % k)
    names = sorted(os.listdir(path("first", "checkpoints")))
    want = ["checkpoint-%08d.h5" % s_ for s_ in range(e, n + 1, e)] + ["latest.h5"]
    check(names == sorted(want), "checkpoints of steps %d..%d every %d and latest.h5 (%s)" % (e, n, e, names))
    check(os.path.realpath(path("first", "checkpoints", "latest.h5")) == os.path.realpath(
        path("first", "checkpoints", "checkpoint-%08d.h5" % (n - n % e))), "latest.h5 -> the last checkpoint")
    again = throng(["run", s, "--steps", str(n), "--out", path("again"), "--final-state", path("again.txt"),
                    "--restart", ck] + extra, ranks=A.to_ranks)
    if not check(again.returncode == 0, "the restart from step %d on %d rank(s) exits 0" % (k, A.to_ranks)):
        return
    check(("from step %d of" % k) in again.stderr, "it says it goes on from step %d" % k)
    rj = run_json(path("again"))
    check(rj["last_step"] == n and rj["state"] == "complete" and rj["ranks"] == A.to_ranks,
          "run.json: complete, last_step %d, %d ranks (%s, %s, %s)" % (n, A.to_ranks, rj["state"], rj["last_step"],
                                                                       rj["ranks"]))
    a, b = read(path("again.txt")), read(path("ref.txt"))
    check(a == b and len(b.splitlines()) > 1, "final state after %d -> %d ranks byte-identical to the uninterrupted "
          "run's (%d agents)" % (A.from_ranks, A.to_ranks, len(b.splitlines()) - 1))


# ---- signal -----------------------------------------------------------------

def signal_case():
    if not A.mpiexec:
        raise Skip("no mpiexec")
    out = path("sig")
    sig = signal.SIGTERM if A.signal == "TERM" else signal.SIGUSR1
    cmd = [A.mpiexec, A.np_flag, "2"] + shlex.split(A.mpi_flags) + [A.throng, "run", PEDESTRIAN, "--steps", "1000000",
                                                                     "--out", out, "--quiet"]
    proc = subprocess.Popen(cmd, cwd=A.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, OMP_NUM_THREADS="1"), start_new_session=True)
    metrics = os.path.join(out, "metrics.csv")
    t0 = time.time()

    def nrows():
        try:
            with open(metrics) as f:
                return sum(1 for _ in f) - 1
        except OSError:
            return 0
    while time.time() - t0 < 120 and nrows() < 60 and proc.poll() is None:
        time.sleep(0.05)
    seen = nrows()
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        check(False, "mpiexec ends within 120 s of SIG%s" % A.signal)
        return
    print("$ %s (SIG%s after %.1f s, %d metrics rows)\n  exit %d\n  stderr: %s"
          % (" ".join(cmd), A.signal, time.time() - t0, seen, proc.returncode, err.strip()[-600:]))
    check(seen >= 60, "the run had written 60 metrics rows before the signal")
    if A.signal == "USR1":
        check(proc.returncode == 75, "mpiexec exits 75 (got %d)" % proc.returncode)
    else:
        check(proc.returncode != 0, "mpiexec exits non-zero (%d; its ranks exit 75)" % proc.returncode)
    try:
        rj = run_json(out)
    except (OSError, ValueError) as e:
        check(False, "run.json readable (%s)" % e)
        return
    ck = rj.get("checkpoint", "")
    ckabs = ck if os.path.isabs(ck) else os.path.join(A.tmp, ck)
    check(rj.get("state") == "checkpointed", "run.json state \"checkpointed\" (%s)" % rj.get("state"))
    latest = os.path.join(out, "checkpoints", "latest.h5")
    check(os.path.isfile(latest) and os.path.isfile(ckabs) and os.path.samefile(latest, ckabs),
          "checkpoints/latest.h5 is run.json's checkpoint %s" % ck)
    m = re.search(r"checkpoint-(\d+)\.h5$", ck)
    s = rj.get("last_step", -1)
    check(m and int(m.group(1)) == s and s >= 60, "the checkpoint's name gives last_step S = %s" % s)
    check(("go on with --restart" in err) and ck in err, "the message says how to go on from %s" % ck)
    check(not tmp_files(out), "no temporary files")
    if problems:
        return
    n = s + 150
    ref = throng(["run", PEDESTRIAN, "--steps", str(n), "--out", path("ref"), "--final-state", path("ref.txt")])
    again = throng(["run", PEDESTRIAN, "--steps", str(n), "--out", path("again"), "--final-state", path("again.txt"),
                    "--restart", latest])
    check(ref.returncode == 0 and again.returncode == 0, "the uninterrupted run to S+150 and the restart exit 0")
    if ref.returncode == 0 and again.returncode == 0:
        check(read(path("again.txt")) == read(path("ref.txt")),
              "the restart from the signal's checkpoint gives the uninterrupted run's final state, byte for byte")


# ---- bad_checkpoints --------------------------------------------------------

def bad_checkpoints():
    need_h5()
    import h5py
    good = throng(["run", PEDESTRIAN, "--steps", "100", "--out", path("p"), "--set", "output.checkpoint_every=50"])
    other = throng(["run", EXIT_ROOM, "--steps", "50", "--out", path("o"), "--set", "output.checkpoint_every=50"])
    if not check(good.returncode == 0 and other.returncode == 0, "the runs writing checkpoints exit 0"):
        return
    ck = path("p", "checkpoints", "checkpoint-00000050.h5")
    digest = hashlib.sha256(read(ck)).hexdigest()
    data = read(ck)
    files = {}

    def make(name, content):
        files[name] = path(name)
        with open(files[name], "wb") as f:
            f.write(content)
        return files[name]
    make("truncated.h5", data[:len(data) // 2])
    make("random.h5", os.urandom(len(data)))
    make("empty.h5", b"")
    notck = path("not-a-checkpoint.h5")
    with h5py.File(notck, "w") as f:
        f["agents/x"] = [[1.0, 2.0]]
        f.attrs["step"] = 10
    incomplete = make("incomplete.h5", data)
    with h5py.File(incomplete, "r+") as f:
        f.attrs["complete"] = 0
    corrupt = make("corrupt.h5", data)
    with h5py.File(corrupt, "r") as f:
        d = f["agents/x"]
        off = d.id.get_offset()
        if off is None:  # chunked: the first chunk's place
            off = d.id.get_chunk_info(0).byte_offset
        check(d.compression is None, "agents/x is stored uncompressed (so a byte of it can be flipped)")
        off += 17 * 8  # agent 17's x: its lowest mantissa byte (little-endian float32)
        before = float(d[17, 0])
    b = bytearray(data)
    b[off] ^= 0x01
    make("corrupt.h5", bytes(b))
    with h5py.File(corrupt, "r") as f:
        after = float(f["agents/x"][17, 0])
    check(after != before and abs(after - before) < 1e-5,
          "corrupt.h5: agent 17's x changed in its last bit only (%.9g -> %.9g)" % (before, after))
    cases = [
        ("truncated", files["truncated.h5"], [], "not a readable HDF5 file (truncated, damaged or of another kind)"),
        ("random bytes", files["random.h5"], [], "not a readable HDF5 file (truncated, damaged or of another kind)"),
        ("empty file", files["empty.h5"], [], "not a readable HDF5 file (truncated, damaged or of another kind)"),
        ("missing file", path("nowhere.h5"), [], "cannot read it: No such file or directory"),
        ("an HDF5 file that is no checkpoint", notck, [], "not a throng checkpoint"),
        ("a trajectory file", None, [], "not a throng checkpoint"),
        ("incomplete", incomplete, [], "an incomplete checkpoint"),
        ("agents/x changed", corrupt, [], "the agents' checksum does not match"),
        ("another scenario's", path("o", "checkpoints", "checkpoint-00000050.h5"), [],
         "a checkpoint of scenario 'exit_room'"),
        ("another time.dt", ck, ["--set", "time.dt=0.01"], "written with time.dt = "),
        ("another contact.stiffness", ck, ["--set", "contact.stiffness=0.5"], "written with contact.stiffness = "),
        ("another seed", ck, ["--set", "seed=6"], "written with seed 5"),
        ("past --steps", ck, ["--steps", "20"], "past the last step of this run"),
    ]
    traj = throng(["run", MINIMAL, "--out", path("t"), "--set", "output.trajectory_format=hdf5"])
    cases[5] = (cases[5][0], path("t", "trajectory.h5"), [], cases[5][3])
    check(traj.returncode == 0, "a run writing a trajectory.h5 exits 0")
    for k, (what, f, extra, words) in enumerate(cases):
        out, final = path("r%d" % k), path("r%d.txt" % k)
        p = throng(["run", PEDESTRIAN, "--out", out, "--final-state", final, "--restart", f] + extra)
        check(p.returncode == 2 and words in p.stderr and f in p.stderr and
              not os.path.exists(out) and not os.path.exists(final),
              "%s: exit 2, the file and %r named, no output directory, no final state" % (what, words))
    # the restart's --out holds the checkpoint (with --overwrite, or the checkpoint's own directory)
    for k, (out, extra) in enumerate([(path("p"), ["--overwrite"]), (path("p"), []),
                                      (path("p", "checkpoints"), ["--overwrite"])]):
        p = throng(["run", PEDESTRIAN, "--out", out, "--restart", ck] + extra)
        check(p.returncode == 2 and "the checkpoint lies in the output directory" in p.stderr and ck in p.stderr,
              "--out %s %s: exit 2, the checkpoint named, \"lies in the output directory\""
              % (os.path.relpath(out, A.tmp), " ".join(extra)))
    check(hashlib.sha256(read(ck)).hexdigest() == digest and os.path.exists(path("p", "run.json")),
          "the checkpoint and its run's directory are untouched")
    ok = throng(["run", PEDESTRIAN, "--steps", "60", "--out", path("ok"), "--restart", ck])
    check(ok.returncode == 0, "the checkpoint itself still restarts (control)")


# ---- full_disk --------------------------------------------------------------

def full_disk():
    out = path("f")
    p = throng(["run", PEDESTRIAN, "--steps", "150", "--out", out, "--set", "output.checkpoint_every=50"],
               env={"THRONG_FAULT_WRITE": "checkpoint-00000100.h5"})
    d = os.path.join(out, "checkpoints")
    first = os.path.join(d, "checkpoint-00000050.h5")
    check(p.returncode == 1, "exit 1 (got %d)" % p.returncode)
    check("checkpoint-00000100.h5" in p.stderr and "No space left on device" in p.stderr,
          "the message names checkpoint-00000100.h5 and \"No space left on device\"")
    check(not tmp_files(out), "no .tmp files left (%s)" % tmp_files(out))
    names = sorted(os.listdir(d)) if os.path.isdir(d) else []
    check(names == ["checkpoint-00000050.h5", "latest.h5"], "checkpoints/: the first checkpoint and latest.h5 (%s)"
          % names)
    check(os.path.islink(os.path.join(d, "latest.h5")) and os.readlink(os.path.join(d, "latest.h5")) ==
          "checkpoint-00000050.h5", "latest.h5 -> checkpoint-00000050.h5")
    rj = run_json(out)
    check(rj.get("state") == "failed", "run.json state \"failed\" (%s)" % rj.get("state"))
    ref = throng(["run", PEDESTRIAN, "--steps", "150", "--out", path("ref"), "--final-state", path("ref.txt")])
    again = throng(["run", PEDESTRIAN, "--steps", "150", "--out", path("again"), "--final-state", path("again.txt"),
                    "--restart", os.path.join(d, "latest.h5")])
    check(ref.returncode == 0 and again.returncode == 0, "the uninterrupted run and the restart from latest.h5 exit 0")
    if ref.returncode == 0 and again.returncode == 0:
        check(read(path("again.txt")) == read(path("ref.txt")), "the first checkpoint is intact: the restart gives "
              "the uninterrupted run's final state, byte for byte")


def full_disk_trajectory():
    need_h5()
    import h5py
    out = path("f")
    # 8 dataset writes a frame: the 20th is in the third frame
    p = throng(["run", EXIT_ROOM, "--out", out, "--set", "output.trajectory_every=10"],
               env={"THRONG_FAULT_WRITE": "trajectory.h5:20"})
    check(p.returncode == 1, "exit 1 (got %d)" % p.returncode)
    check("trajectory.h5" in p.stderr and "No space left on device" in p.stderr,
          "the message names trajectory.h5 and \"No space left on device\"")
    check(not tmp_files(out), "no .tmp files left (%s)" % tmp_files(out))
    check(run_json(out).get("state") == "failed", "run.json state \"failed\"")
    h5 = os.path.join(out, "trajectory.h5")
    if not os.path.exists(h5):
        check(True, "no trajectory.h5")
        return
    with h5py.File(h5, "r") as f:
        fr = f["frames"][:]
        total = int(fr["rows"].sum())
        lens = {k: f[k].shape[0] for k in ("trajectory", "points", "velocity", "radius", "group", "state", "stage")}
    check(all(v == total for v in lens.values()),
          "trajectory.h5 was left: its tables must hold exactly the rows of its %d frames (%d rows), not a "
          "half-written frame (%s)" % (len(fr), total, lens))


# ---- compression ------------------------------------------------------------

def compression():
    need_h5()
    import h5py
    import numpy as np
    outs = {}
    for level in (0, 6):
        outs[level] = path("c%d" % level)
        p = throng(["run", EXIT_ROOM, "--out", outs[level], "--set", "output.trajectory_every=1",
                    "--set", "output.compression=%d" % level])
        check(p.returncode == 0, "compression %d: exit 0" % level)
    if problems:
        return
    files = {lv: h5py.File(os.path.join(o, "trajectory.h5"), "r") for lv, o in outs.items()}
    names = sorted(files[0].keys())
    check(names == sorted(files[6].keys()) and "trajectory" in names, "the same datasets (%s)" % names)
    same = [k for k in names if np.array_equal(files[0][k][:], files[6][k][:])]
    check(same == names, "every dataset holds the same data (differ: %s)" % sorted(set(names) - set(same)))
    rows = files[0]["trajectory"].shape[0]
    check(rows > 3000, "a run with some frames (%d rows)" % rows)
    check(files[6]["trajectory"].compression == "gzip" and files[6]["trajectory"].compression_opts == 6 and
          files[0]["trajectory"].compression is None, "level 6: gzip 6 on /trajectory; level 0: none")
    s0, s6 = (os.path.getsize(os.path.join(o, "trajectory.h5")) for o in (outs[0], outs[6]))
    check(s6 < 0.8 * s0, "level 6 gives a smaller file (%d < 0.8 * %d bytes)" % (s6, s0))
    out = path("c12")
    p = throng(["run", EXIT_ROOM, "--out", out, "--set", "output.compression=12"])
    check(p.returncode == 2 and "output.compression" in p.stderr and not os.path.exists(out),
          "compression 12: exit 2 naming output.compression, nothing written")


# ---- no_hdf5 ----------------------------------------------------------------

def signal_startup():
    """SIGUSR1 while the run is still starting up (placing 300,000 agents):
    exit 75 and a checkpoint at the first step, not death by the signal."""
    yaml = path("big.yaml")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench",
                                                 "make_evacuation.py"), "300000", yaml], check=True)
    out = path("early")
    proc = subprocess.Popen([A.throng, "run", yaml, "--steps", "1000", "--out", out, "--quiet",
                             "--set", "output.trajectory_every=0"], cwd=A.tmp, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    # as soon as throng catches SIGUSR1 (bit 10 of SigCgt in /proc/PID/status):
    # before that no program can, the default action ends the process
    t0 = time.time()
    while time.time() - t0 < 60 and proc.poll() is None:
        try:
            with open("/proc/%d/status" % proc.pid) as f:
                cgt = [l for l in f if l.startswith("SigCgt:")]
            if cgt and int(cgt[0].split()[1], 16) & (1 << (signal.SIGUSR1 - 1)):
                break
        except OSError:
            pass
        time.sleep(0.005)
    started = os.path.exists(os.path.join(out, "run.json"))
    proc.send_signal(signal.SIGUSR1)
    _, err = proc.communicate(timeout=300)
    print("$ throng run big.yaml (SIGUSR1 %.2f s after the start, once caught; run.json there then: %s)\n"
          "  exit %d\n  stderr: %s" % (time.time() - t0, started, proc.returncode, err.strip()[-400:]))
    check(not started, "the signal came before the run had started (no run.json yet)")
    check(proc.returncode == 75, "exit 75 (got %d)" % proc.returncode)
    try:
        rj = run_json(out)
    except (OSError, ValueError) as e:
        check(False, "run.json readable (%s)" % e)
        return
    check(rj.get("state") == "checkpointed" and rj.get("last_step", 99) <= 1,
          "run.json checkpointed at the first step (%s at %s)" % (rj.get("state"), rj.get("last_step")))
    check(os.path.isfile(os.path.join(out, "checkpoints", "latest.h5")), "checkpoints/latest.h5 written")


def no_hdf5():
    for what, extra in (("--restart x.h5", ["--restart", "x.h5"]),
                        ("output.trajectory_format=hdf5", ["--set", "output.trajectory_format=hdf5"]),
                        ("output.checkpoint_every=10", ["--set", "output.checkpoint_every=10"])):
        out = path("n")
        p = throng(["run", MINIMAL, "--out", out] + extra)
        check(p.returncode == 2 and "built without HDF5" in p.stderr and not os.path.exists(out),
              "%s: exit 2, \"built without HDF5\", nothing written" % what)


CASES = {"trajectory_layout": trajectory_layout, "final_frame": final_frame, "pedpy": pedpy_case, "pedpy_exit_line": pedpy_exit_line,
         "restart_equal": restart_equal, "signal": signal_case, "signal_startup": signal_startup, "bad_checkpoints": bad_checkpoints, "full_disk": full_disk,
         "full_disk_trajectory": full_disk_trajectory, "compression": compression, "no_hdf5": no_hdf5}


def main():
    global A
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--mpi-flags", default="")
    ap.add_argument("--venv")
    ap.add_argument("--scenario")
    ap.add_argument("--from", dest="from_ranks", type=int, default=1)
    ap.add_argument("--to", dest="to_ranks", type=int, default=1)
    ap.add_argument("--steps", type=int)
    ap.add_argument("--every", type=int)
    ap.add_argument("--restart-step", type=int)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--signal", choices=["TERM", "USR1"], default="TERM")
    A = ap.parse_args()
    A.throng = os.path.abspath(A.throng)
    if A.scenario:
        A.scenario = os.path.abspath(A.scenario)
    with tempfile.TemporaryDirectory(prefix="throng_io_") as tmp:
        A.tmp = tmp
        try:
            CASES[A.case]()
        except Skip as e:
            print("SKIPPED: %s" % e)
            return SKIP
    print("PASS" if not problems else "FAIL (%d problem(s))" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
