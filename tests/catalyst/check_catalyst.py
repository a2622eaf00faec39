#!/usr/bin/env python3
"""In situ visualisation with ParaView Catalyst (label catalyst; docs/insitu.md).

Usage: check_catalyst.py THRONG CASE [--source DIR] [--mpiexec M --np-flag F --mpi-flags "..."]

Runs throng on tests/data/catalyst/hall.yaml (a hall with a pillar, an exit,
an area and a line; 120 agents walk out, the east half starts empty) with
the scripts of configs/catalyst/ and checks what they wrote. Rendering runs
under `xvfb-run -a` (started by this script, which stops only what it
started). Reads with numpy, h5py and ParaView's vtkmodules (Debian's
python3-paraview); exit 77 (skip) when they are missing.

Cases:
  extract_png   2 ranks, extracts.py + render_speed.py: every call's
                agents_STEP.pvtp has one piece per rank and as many points
                as trajectory.h5 has agents at that step (the same ids;
                speed = |velocity|); geometry.pvtp holds the scenario's
                shapes (kind, index); each speed_STEP.png is 1280 x 786 (the
                hall's 20 x 10 m) with many colours, a coloured pixel at every
                agent (the script's layout maps metres to pixels) and white
                away from agents and shapes.
  density       2 ranks, render_density.py: each density_STEP.png shows the
                colour map where agents are and white in the empty east, and
                the time label.
  aspect        2 ranks, render_speed.py and render_density.py on
                tests/data/catalyst/corridor.yaml (60 x 4 m): every image is
                1280 x 246 (the canvas follows the scene: the longer side
                1280, the other from the geometry's bounds, the margin and the
                bands of the time and the colour bar; docs/insitu.md), the
                walls and every agent of trajectory.h5 where that layout puts
                them.
  region        THRONG_CATALYST_REGION="0 0 10 4" on the corridor (2 ranks):
                1280 x 662 images whose scene part has the region's shape,
                the agents in it at the region's scale (not where the whole
                corridor's layout would put them); "0,0,2,4" (taller than
                wide): 1280 high and narrower; "5 0 1 4": the run stops with
                a message naming the variable.
  time_label    render_speed.py and a copy with TIME_LABEL = False (1 rank,
                240 steps): the label's corner (upper left, above the scene)
                has dark pixels only with the label, the images are the same
                elsewhere, and the corners of t = 0.0, 2.5 and 5.0 s differ.
  script_error  a script that raises at step 240: exit 1 naming the step;
                run.json "failed"; trajectory.h5 and metrics.csv complete
                up to that step.
  script_syntax a script that does not compile: exit 2 naming it, the
                traceback on stderr, no output directory.
  script_missing catalyst.scripts naming a missing file: exit 2 with the
                file, line and key; --catalyst with one: exit 2.
  no_display    render_speed.py without an X server: exit 2 naming
                xvfb-run, no output directory (ParaView would abort).
  live          live.py with no ParaView listening: the run completes and
                run.json counts every call.
  not_built     (builds without Catalyst) --catalyst: exit 2, "built
                without ParaView Catalyst".
  null_module   (every build; no ParaView) 2 ranks with the null module
                (tests/catalyst/null_module.c, THRONG_CATALYST_MODULE): one
                call per trajectory frame; per step, summed over the ranks,
                as many agents, the same id sum and sums of x and y as the
                CSV frame; every rank saw the 5 shapes of the geometry.
  null_module_cuda  the same on the CUDA backend (its host views); exit 77
                without the CUDA backend or a GPU.
  null_module_3d  the same for 3D agents (configs/3d/swarm-crossing.yaml,
                plane vertical, 896 steps): the sums of z equal the CSV
                frames' too, and vary (the points are 3D).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def need(cond, msg):
    if not cond:
        fail(msg)


class Runner:
    def __init__(self, args):
        self.exe = os.path.abspath(args.throng)
        self.source = os.path.abspath(args.source or os.path.join(HERE, "..", ".."))
        self.scenario = os.path.join(self.source, "tests", "data", "catalyst", "hall.yaml")
        self.scripts = os.path.join(self.source, "configs", "catalyst")
        self.mpiexec, self.np_flag = args.mpiexec, args.np_flag
        self.mpi_flags = args.mpi_flags.split() if args.mpi_flags else []
        self.tmp = tempfile.mkdtemp(prefix="throng-catalyst-")
        self.null_module = args.null_module

    def script(self, name):
        return os.path.join(self.scripts, name)

    def run(self, out, scripts, ranks=1, extra=(), display=False, env=None):
        """throng run hall.yaml --out OUT --catalyst S...; (rc, stdout+stderr)."""
        cmd = [self.exe, "run", self.scenario, "--out", out, "--quiet"] + list(extra)
        for s in scripts:
            cmd += ["--catalyst", s]
        if ranks > 1:
            if not self.mpiexec:
                print("SKIP: no mpiexec for %d ranks" % ranks)
                sys.exit(SKIP)
            cmd = [self.mpiexec, self.np_flag, str(ranks)] + self.mpi_flags + cmd
        e = dict(os.environ)
        e.update(env or {})
        if display:
            if not shutil.which("xvfb-run"):
                print("SKIP: xvfb-run not installed (apt-get install xvfb xauth)")
                sys.exit(SKIP)
            # -noreset: no server reset between clients (docs/insitu.md)
            cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24 -noreset"] + cmd
        else:
            e.pop("DISPLAY", None)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e, timeout=600)
        return p.returncode, p.stdout

    def out(self, name):
        return os.path.join(self.tmp, name)


# ---- readers ------------------------------------------------------------------


def read_pvtp(path):
    """(pieces listed in the .pvtp, the merged polydata) of a parallel extract."""
    import xml.etree.ElementTree as ET
    from vtkmodules.vtkIOXML import vtkXMLPPolyDataReader
    pieces = ET.parse(path).getroot().findall(".//Piece")
    r = vtkXMLPPolyDataReader()
    r.SetFileName(path)
    r.Update()
    return len(pieces), r.GetOutput()


def array(poly, name, cells=False):
    from vtkmodules.util import numpy_support as ns
    data = poly.GetCellData() if cells else poly.GetPointData()
    a = data.GetArray(name)
    need(a is not None, "array %s missing" % name)
    return ns.vtk_to_numpy(a)


def points(poly):
    from vtkmodules.util import numpy_support as ns
    if poly.GetNumberOfPoints() == 0:
        import numpy as np
        return np.zeros((0, 3))
    return ns.vtk_to_numpy(poly.GetPoints().GetData())


def read_png(path):
    """RGB pixels (rows top to bottom) of a PNG."""
    from vtkmodules.vtkIOImage import vtkPNGReader
    from vtkmodules.util import numpy_support as ns
    r = vtkPNGReader()
    r.SetFileName(path)
    r.Update()
    img = r.GetOutput()
    w, h, _ = img.GetDimensions()
    px = ns.vtk_to_numpy(img.GetPointData().GetScalars())
    comps = px.shape[1] if px.ndim == 2 else 1
    return px.reshape(h, w, comps)[::-1, :, :3]  # VTK's rows go bottom to top


H5_DUMP = """
import json, os, sys, h5py
# the agents present, as Catalyst saw them: not the rows that show where agents left (state bit 2),
# nor the frames of them after the run's last step (docs/output.md, "Agents that leave")
end = json.load(open(os.path.join(os.path.dirname(sys.argv[1]), "run.json")))["last_step"]
out, shown = {}, {}  # shown: points per time step of trajectory.xdmf (leaving rows too)
with h5py.File(sys.argv[1], "r") as f:
    fr, rows, here = f["frames"][:], f["trajectory"][:], (f["state"][:] & 2) == 0
    final = None
    if "final" in f:  # the last step off the trajectory_every clock (docs/output.md)
        g = f["final"]
        pts, keep = g["points"][:], (g["state"][:] & 2) == 0
        final = int(g.attrs["step"])
        out[final] = {"id": g["id"][:][keep].tolist(), "x": pts[keep, 0].tolist(), "y": pts[keep, 1].tolist()}
        if len(keep):
            shown[final] = int(len(keep))
    for row in fr:
        a, n, step = int(row["first_row"]), int(row["rows"]), int(row["step"])
        if step <= end:
            out[step] = {k: rows[k][a:a + n][here[a:a + n]].tolist() for k in ("id", "x", "y")}
        if n and not (final is not None and step > final):  # the XDMF shows /final, not the frames after it
            shown[step] = n
json.dump({"frames": out, "shown": shown}, sys.stdout)
"""


def h5_dump(traj):
    """H5_DUMP of trajectory.h5, in a process of its own: h5py's HDF5 and
    ParaView's (parallel) HDF5 in one process crash at exit."""
    p = subprocess.run([sys.executable, "-c", H5_DUMP, traj], stdout=subprocess.PIPE, text=True, check=True)
    return json.loads(p.stdout)


def trajectory(traj):
    """step -> {"id", "x", "y"} of the agents present in trajectory.h5's frames (/final's too)."""
    return {int(k): v for k, v in h5_dump(traj)["frames"].items()}


def xdmf_points(traj):
    """[points of each time step of trajectory.xdmf], in time order."""
    return [n for _, n in sorted((int(k), v) for k, v in h5_dump(traj)["shown"].items())]


def frames(traj):
    """step -> sorted ids of trajectory.h5's frame at that step."""
    import numpy as np
    return {k: np.sort(np.array(v["id"], dtype=np.int64)) for k, v in trajectory(traj).items()}


from picture_layout import BAR_BAND, LABEL_BAND, MARGIN, MIN_SIDE, canvas  # noqa: E402,F401


HALL = (0.0, 20.0, 0.0, 10.0)
HALL_SIZE = (1280, 786)  # canvas(HALL)[0]


def is_white(rgb):
    return (rgb >= 250).all(axis=-1)


# ---- cases ----------------------------------------------------------------------


def case_extract_png(r):
    import numpy as np
    out = r.out("extract_png")
    rc, log = r.run(out, [r.script("extracts.py"), r.script("render_speed.py")], ranks=2, display=True)
    need(rc == 0, "exit %d:\n%s" % (rc, log))
    cat = os.path.join(out, "catalyst")
    by_step = frames(os.path.join(out, "trajectory.h5"))
    calls = json.load(open(os.path.join(out, "run.json")))["output_seconds"]["catalyst_calls"]
    need(calls == len(by_step), "run.json: %d Catalyst calls, trajectory.h5 has %d frames" % (calls, len(by_step)))
    need(any(len(v) == 0 for v in by_step.values()) and any(len(v) == 120 for v in by_step.values()),
         "the scenario should go from 120 agents to none: %s" % {k: len(v) for k, v in by_step.items()})

    # geometry.pvtp: 2 walls (outer ring, pillar), 1 exit, 1 area, 1 line
    _, geo = read_pvtp(os.path.join(cat, "geometry.pvtp"))
    kinds = sorted(array(geo, "kind", cells=True).tolist())
    need(kinds == [0, 0, 2, 3, 4], "geometry kinds %s, expected walls 0 0, exit 2, area 3, line 4" % kinds)
    index = array(geo, "index", cells=True).tolist()
    got = sorted(zip(array(geo, "kind", cells=True).tolist(), index))
    need(got == [(0, 0), (0, 1), (2, 0), (3, 0), (4, 0)], "geometry (kind, index) %s" % got)
    gb = geo.GetBounds()
    need(abs(gb[0]) < 1e-6 and abs(gb[1] - 20) < 1e-6 and abs(gb[3] - 10) < 1e-6, "geometry bounds %s" % (gb,))

    size, to_px, ppm = canvas(gb)
    need(size == HALL_SIZE, "the test's layout gives %s for the hall" % (size,))
    checked_images = 0
    for step, ids in sorted(by_step.items()):
        pvtp = os.path.join(cat, "agents_%06d.pvtp" % step)
        need(os.path.exists(pvtp), "no %s" % pvtp)
        pieces, poly = read_pvtp(pvtp)
        # one piece per rank that holds agents: ParaView writes none for an
        # empty rank (the last agent alone on one rank: 1 piece; nobody: 0)
        need((pieces == 2 and len(ids) >= 2) or (pieces == 1 and len(ids) >= 1) or (pieces == 0 and len(ids) == 0),
             "%s: %d pieces for %d agents, expected one per rank with agents (2 ranks)" % (pvtp, pieces, len(ids)))
        n = poly.GetNumberOfPoints()
        need(n == len(ids), "step %d: %d points in the extract, %d agents in trajectory.h5" % (step, n, len(ids)))
        need(poly.GetNumberOfVerts() == n, "step %d: %d vertex cells for %d points" % (step, poly.GetNumberOfVerts(), n))
        if n:
            got_ids = np.sort(array(poly, "id").astype(np.int64))
            need((got_ids == ids).all(), "step %d: the extract's ids differ from trajectory.h5's" % step)
            v = array(poly, "velocity")
            need(v.shape == (n, 3), "velocity shape %s" % (v.shape,))
            need(np.allclose(array(poly, "speed"), np.hypot(v[:, 0], v[:, 1]), atol=1e-6), "speed != |velocity|")
            need((array(poly, "radius") == np.float32(0.2)).all(), "radius")
            for name in ("group", "state"):
                array(poly, name)
            need((points(poly)[:, 2] == 0).all(), "z != 0")

        png = os.path.join(cat, "speed_%06d.png" % step)
        need(os.path.exists(png), "no %s" % png)
        img = read_png(png)
        need(img.shape[:2] == size[::-1], "%s: %s pixels, expected %d x %d (the hall's shape)"
             % ((png, img.shape[:2]) + size))
        colours = len(np.unique(img.reshape(-1, 3), axis=0))
        need(colours >= 8, "%s: only %d colours" % (png, colours))
        if not n:
            continue
        # every agent: a coloured (not white) pixel within 1 px of where it is
        xy = points(poly)[:, :2]
        hit = 0
        for x, y in xy:
            c, rr = to_px(x, y)
            c, rr = int(round(c)), int(round(rr))
            win = img[max(rr - 1, 0):rr + 2, max(c - 1, 0):c + 2]
            hit += bool((~is_white(win)).any())
        need(hit >= 0.98 * n, "%s: only %d of %d agents show a coloured pixel where they are" % (png, hit, n))
        # away from agents (> 0.6 m) and shapes (inside the hall, clear of
        # walls, the pillar, the area and the line by 0.3 m): white
        rng = np.random.default_rng(step)
        probes = rng.uniform([0.5, 0.5], [19.5, 9.5], size=(4000, 2))
        d_agent = np.min(np.hypot(probes[:, None, 0] - xy[None, :, 0], probes[:, None, 1] - xy[None, :, 1]), axis=1)
        clear = d_agent > 0.6
        clear &= ~((probes[:, 0] > 8.7) & (probes[:, 0] < 11.3) & (probes[:, 1] > 3.7) & (probes[:, 1] < 6.3))
        clear &= ~((probes[:, 0] > 12.7) & (probes[:, 0] < 17.3) & (probes[:, 1] > 1.7) & (probes[:, 1] < 8.3))
        clear &= np.abs(probes[:, 0] - 12) > 0.3
        clear &= probes[:, 0] < 18.5  # the exit and the colour bar
        white = 0
        for x, y in probes[clear]:
            c, rr = to_px(x, y)
            white += bool(is_white(img[int(round(rr)), int(round(c))]))
        need(white >= 0.99 * clear.sum(), "%s: %d of %d pixels away from agents and shapes are not white"
             % (png, clear.sum() - white, clear.sum()))
        checked_images += 1
    need(checked_images >= 4, "only %d images had agents" % checked_images)

    # ParaView's XDMF reader opens trajectory.xdmf (issue 12's sidecar): one
    # time step per non-empty frame, each with that frame's agents
    from vtkmodules.vtkIOXdmf2 import vtkXdmfReader
    from vtkmodules.vtkCommonExecutionModel import vtkStreamingDemandDrivenPipeline as sddp
    xr = vtkXdmfReader()
    xr.SetFileName(os.path.join(out, "trajectory.xdmf"))
    xr.UpdateInformation()
    times = xr.GetOutputInformation(0).Get(sddp.TIME_STEPS())
    want = xdmf_points(os.path.join(out, "trajectory.h5"))
    need(times is not None and len(times) == len(want), "trajectory.xdmf: %s time steps, expected %d"
         % (None if times is None else len(times), len(want)))
    for t, n in zip(times, want):
        xr.UpdateTimeStep(t)
        got = xr.GetOutputDataObject(0).GetNumberOfPoints()
        need(got == n, "trajectory.xdmf at t = %g: %d points, trajectory.h5 has %d" % (t, got, n))
    print("ok: %d calls; extracts with 2 pieces and trajectory.h5's agents; %d images show every agent; "
          "ParaView reads trajectory.xdmf (%d time steps)" % (calls, checked_images, len(want)))


def case_density(r):
    import numpy as np
    out = r.out("density")
    rc, log = r.run(out, [r.script("render_density.py")], ranks=2, display=True,
                    extra=["--set", "output.trajectory_every=120"])
    need(rc == 0, "exit %d:\n%s" % (rc, log))
    by_step = frames(os.path.join(out, "trajectory.h5"))
    size, to_px, ppm = canvas(HALL)
    traj_xy = {k: np.stack([v["x"], v["y"]], axis=1) for k, v in trajectory(os.path.join(out, "trajectory.h5")).items()}
    for step in (0, 240):
        img = read_png(os.path.join(out, "catalyst", "density_%06d.png" % step))
        need(img.shape[:2] == size[::-1], "density image size %s, expected %d x %d" % ((img.shape[:2],) + size))
        xy = traj_xy[step]
        # the 1 m cell of each agent is filled (not white) at its centre
        filled = 0
        for x, y in xy:
            c, rr = to_px(np.floor(x) + 0.5, np.floor(y) + 0.5)
            filled += not is_white(img[int(round(rr)), int(round(c))])
        need(filled == len(xy), "step %d: %d of %d agents' cells are white" % (step, len(xy) - filled, len(xy)))
        # east of every agent's cell and clear of the area and the exit: white
        east = np.floor(xy[:, 0].max()) + 1.3
        probes = [(x, y) for x in np.arange(east, 11.7, 0.37) for y in np.arange(0.6, 9.5, 0.41)
                  if not (8.7 < x < 11.3 and 3.7 < y < 6.3)]  # the pillar's outline
        white = sum(bool(is_white(img[int(round(to_px(x, y)[1])), int(round(to_px(x, y)[0]))])) for x, y in probes)
        need(not probes or white >= 0.98 * len(probes), "step %d: cells east of the crowd are coloured" % step)
        colours = len(np.unique(img.reshape(-1, 3), axis=0))
        need(colours >= 8, "density image: %d colours" % colours)
        need(dark_in_corner(img) >= 40, "step %d: no time label in the density image" % step)
    print("ok: density images fill the cells of every agent, and only those (%d steps)" % len(by_step))


def dark_in_corner(img):
    """Dark pixels in the time label's corner: columns 0-240, rows 0-LABEL_BAND
    (above the scene)."""
    return int((img[:LABEL_BAND, :240].max(axis=-1) < 100).sum())


def corridor(r):
    r.scenario = os.path.join(r.source, "tests", "data", "catalyst", "corridor.yaml")
    return (0.0, 60.0, 0.0, 4.0)


def speed_images(out):
    cat = os.path.join(out, "catalyst")
    return {int(f[6:12]): read_png(os.path.join(cat, f)) for f in sorted(os.listdir(cat)) if f.startswith("speed_")}


def agents_drawn(img, to_px, xy):
    """How many of the agents XY show a coloured pixel within 1 px of where the layout puts them."""
    hit = 0
    for x, y in xy:
        c, rr = to_px(x, y)
        c, rr = int(round(c)), int(round(rr))
        hit += bool((~is_white(img[max(rr - 1, 0):rr + 2, max(c - 1, 0):c + 2])).any())
    return hit


def case_aspect(r):
    import numpy as np
    box = corridor(r)
    size, to_px, ppm = canvas(box)
    need(size == (1280, 246), "the test's layout gives %s for the corridor" % (size,))
    out = r.out("aspect")
    rc, log = r.run(out, [r.script("render_speed.py"), r.script("render_density.py")], ranks=2, display=True,
                    extra=["--set", "catalyst.every=48"])
    need(rc == 0, "exit %d:\n%s" % (rc, log))
    traj = trajectory(os.path.join(out, "trajectory.h5"))
    images = speed_images(out)
    need(len(images) >= 5, "only %d speed images" % len(images))
    checked = 0
    for step, img in sorted(images.items()):
        need(img.shape[:2] == size[::-1], "speed_%06d.png: %s pixels, expected %d x %d (60 x 4 m: wide)"
             % ((step, img.shape[:2]) + size))
        for y in (0.0, 4.0):  # the walls, east of the crowd
            c, rr = to_px(50.0, y)
            need((img[int(rr) - 2:int(rr) + 3, int(c)].max(axis=-1) < 100).any(),
                 "speed_%06d.png: the wall y = %g is not at row %.0f" % (step, y, rr))
        if step in traj and traj[step]["x"]:
            xy = np.stack([traj[step]["x"], traj[step]["y"]], axis=1)
            hit = agents_drawn(img, to_px, xy)
            need(hit >= 0.98 * len(xy), "speed_%06d.png: only %d of %d agents where they are" % (step, hit, len(xy)))
            checked += 1
    need(checked >= 3, "only %d images compared with trajectory frames" % checked)
    cat = os.path.join(out, "catalyst")
    for f in sorted(os.listdir(cat)):
        if f.startswith("density_"):
            img = read_png(os.path.join(cat, f))
            need(img.shape[:2] == size[::-1], "%s: %s pixels, expected %d x %d" % ((f, img.shape[:2]) + size))
    need(size[0] > 5 * size[1], "not wide")
    print("ok: the corridor's images are %d x %d on 2 ranks, the walls and every agent where the layout puts "
          "them (%d images)" % (size[0], size[1], checked))


def case_region(r):
    import numpy as np
    whole = canvas(corridor(r))
    size, to_px, ppm = canvas((0.0, 10.0, 0.0, 4.0))
    need(size == (1280, 662), "the test's layout gives %s for the region" % (size,))
    scene = (size[0] - 2 * MARGIN) / (size[1] - 2 * MARGIN - LABEL_BAND - BAR_BAND)
    need(abs(scene / 2.5 - 1) < 0.01, "the scene's part is %.3f : 1, the region 2.5 : 1" % scene)
    out = r.out("region")
    rc, log = r.run(out, [r.script("render_speed.py")], ranks=2, display=True,
                    extra=["--set", "catalyst.every=48", "--steps", "96"],
                    env={"THRONG_CATALYST_REGION": "0 0 10 4"})
    need(rc == 0, "exit %d:\n%s" % (rc, log))
    traj = trajectory(os.path.join(out, "trajectory.h5"))
    images = speed_images(out)
    need(sorted(images) == [0, 48, 96], "speed images at steps %s" % sorted(images))
    for step, img in sorted(images.items()):
        need(img.shape[:2] == size[::-1], "speed_%06d.png: %s pixels, expected %d x %d (the region's shape)"
             % ((step, img.shape[:2]) + size))
        xy = np.stack([traj[step]["x"], traj[step]["y"]], axis=1)
        xy = xy[(xy[:, 0] > 0.2) & (xy[:, 0] < 9.8)]
        need(len(xy) >= 20, "step %d: only %d agents in the region" % (step, len(xy)))
        hit = agents_drawn(img, to_px, xy)
        need(hit == len(xy), "speed_%06d.png: only %d of %d agents where the region's layout puts them"
             % (step, hit, len(xy)))
        # the whole corridor's mapping would put them elsewhere: the region's picture is another view
        wrong = agents_drawn(img, whole[1], xy)
        need(wrong < 0.5 * len(xy), "speed_%06d.png: the agents are also where the whole corridor's layout puts "
             "them (%d of %d)" % (step, wrong, len(xy)))
    # commas, and a region taller than wide: the colour bar on the right, 1280 high
    size, _, _ = canvas((0.0, 2.0, 0.0, 4.0))
    out = r.out("region_tall")
    rc, log = r.run(out, [r.script("render_speed.py")], display=True, extra=["--steps", "48"],
                    env={"THRONG_CATALYST_REGION": "0,0,2,4"})
    need(rc == 0, "exit %d:\n%s" % (rc, log))
    for step, img in sorted(speed_images(out).items()):
        need(img.shape[:2] == size[::-1] and size[1] == 1280 and size[0] < 1280,
             "speed_%06d.png: %s pixels, expected %d x %d" % ((step, img.shape[:2]) + size))
    # a wrong region: the script does not load, the message names the variable
    rc, log = r.run(r.out("region_bad"), [r.script("render_speed.py")], display=True, extra=["--steps", "48"],
                    env={"THRONG_CATALYST_REGION": "5 0 1 4"})
    need(rc != 0 and "THRONG_CATALYST_REGION" in log, "a region with X1 < X0: exit %d\n%s" % (rc, log[-2000:]))
    print("ok: THRONG_CATALYST_REGION: the image takes the region's shape (%d x %d) and scale; a tall one is "
          "1280 high; a wrong one stops the run" % tuple(canvas((0.0, 10.0, 0.0, 4.0))[0]))


def case_time_label(r):
    out = r.out("time_label")
    rc, log = r.run(out, [r.script("render_speed.py")], display=True, extra=["--steps", "240"])
    need(rc == 0, "exit %d:\n%s" % (rc, log))
    with open(r.script("render_speed.py")) as f:
        text = f.read()
    need(text.count("TIME_LABEL = True") == 1, "render_speed.py: no TIME_LABEL = True to turn off")
    plain_script = write_script(r, "render_speed_plain.py", text.replace("TIME_LABEL = True", "TIME_LABEL = False"))
    plain_out = r.out("time_label_plain")
    rc, log = r.run(plain_out, [plain_script], display=True, extra=["--steps", "240"])
    need(rc == 0, "exit %d:\n%s" % (rc, log))
    labelled, plain = speed_images(out), speed_images(plain_out)
    need(sorted(labelled) == sorted(plain) == [0, 120, 240],
         "images at %s and %s" % (sorted(labelled), sorted(plain)))
    corners = []
    for step in sorted(labelled):
        a, b = labelled[step], plain[step]
        da, db = dark_in_corner(a), dark_in_corner(b)
        need(da >= 40 and db == 0, "step %d: %d dark pixels in the label's corner, %d without the label"
             % (step, da, db))
        rest = (slice(0, LABEL_BAND), slice(240, None))
        need((a[rest] == b[rest]).all() and (a[LABEL_BAND:] == b[LABEL_BAND:]).all(),
             "step %d: the images with and without the label differ outside its corner" % step)
        corners.append(a[:LABEL_BAND, :240].tobytes())
    need(len(set(corners)) == 3, "the labels of t = 0.0, 2.5 and 5.0 s are not all different")
    print("ok: the time label is drawn in the upper left corner (only there), and changes with the time")


def write_script(r, name, body):
    path = os.path.join(r.tmp, name)
    with open(path, "w") as f:
        f.write(body)
    return path


RAISES = """# script-version: 2
from paraview.simple import *
from paraview import catalyst
agents = TrivialProducer(registrationName='agents')
options = catalyst.Options()
def catalyst_execute(info):
    if info.timestep >= 240:
        raise RuntimeError('this script fails on purpose at step %d' % info.timestep)
"""


def case_script_error(r):
    import numpy as np
    out = r.out("script_error")
    rc, log = r.run(out, [write_script(r, "raises.py", RAISES)], ranks=2)
    need(rc == 1, "exit %d, expected 1:\n%s" % (rc, log))
    need("a Catalyst script failed at step 240" in log, "no message naming the step:\n" + log)
    need("this script fails on purpose" in log, "no Python traceback:\n" + log)
    run = json.load(open(os.path.join(out, "run.json")))
    need(run["state"] == "failed" and "step 240" in run["reason"], "run.json: %s, %s" % (run["state"], run.get("reason")))
    need(os.path.exists(os.path.join(out, "trajectory.h5")) and not os.path.exists(os.path.join(out, "trajectory.h5.tmp")),
         "trajectory.h5 not closed")
    steps = sorted(frames(os.path.join(out, "trajectory.h5")))
    need(steps == [0, 120, 240], "trajectory.h5 frames at %s, expected 0, 120, 240" % steps)
    metrics = np.genfromtxt(os.path.join(out, "metrics.csv"), delimiter=",", names=True)
    need(int(metrics["step"][-1]) == 240, "metrics.csv ends at step %d" % metrics["step"][-1])
    print("ok: exit 1 at step 240; trajectory.h5, metrics.csv and run.json complete up to it")


def case_script_syntax(r):
    out = r.out("script_syntax")
    bad = write_script(r, "broken.py", "# script-version: 2\nfrom paraview.simple import *\nthis is not python(\n")
    rc, log = r.run(out, [bad], ranks=2)
    need(rc == 2, "exit %d, expected 2:\n%s" % (rc, log))
    need("Catalyst script %s" % bad in log and "did not load" in log, "message does not name the script:\n" + log)
    need("SyntaxError" in log, "no Python traceback:\n" + log)
    need(log.count("SyntaxError") == 1, "the traceback should come once, not once per rank:\n" + log)
    need(not os.path.exists(out), "the output directory was created")
    print("ok: exit 2 naming %s, nothing written" % os.path.basename(bad))


def case_script_missing(r):
    out = r.out("script_missing")
    scen = os.path.join(r.tmp, "missing.yaml")
    with open(r.scenario) as f:
        text = f.read().replace("catalyst: {every: 120}", "catalyst:\n  every: 120\n  scripts: [not-there.py]")
    with open(scen, "w") as f:
        f.write(text)
    p = subprocess.run([r.exe, "run", scen, "--out", out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = [k + 1 for k, l in enumerate(text.splitlines()) if "not-there.py" in l][0]
    need(p.returncode == 2, "exit %d, expected 2:\n%s" % (p.returncode, p.stdout))
    need("missing.yaml:%d" % line in p.stdout and "catalyst.scripts[0]" in p.stdout and "not-there.py" in p.stdout,
         "the message should name the file, line %d, key and script:\n%s" % (line, p.stdout))
    rc, log = r.run(out, [os.path.join(r.tmp, "nor-this.py")])
    need(rc == 2 and "--catalyst" in log and "nor-this.py" in log, "--catalyst missing: exit %d\n%s" % (rc, log))
    need(not os.path.exists(out), "the output directory was created")
    print("ok: missing scripts: exit 2 with file, line and key")


def case_no_display(r):
    out = r.out("no_display")
    rc, log = r.run(out, [r.script("render_speed.py")], ranks=2)
    need(rc == 2, "exit %d, expected 2 (ParaView aborts without a display):\n%s" % (rc, log))
    need("xvfb-run" in log and "render_speed.py" in log, "message should name the script and xvfb-run:\n" + log)
    need(not os.path.exists(out), "the output directory was created")
    print("ok: no display: exit 2 naming xvfb-run")


def case_live(r):
    out = r.out("live")
    rc, log = r.run(out, [r.script("live.py")], env={"THRONG_CATALYST_LIVE": "localhost:1"})
    need(rc == 0, "exit %d:\n%s" % (rc, log))
    run = json.load(open(os.path.join(out, "run.json")))
    calls = run["output_seconds"]["catalyst_calls"]
    steps = run["last_step"]
    need(calls == steps // 120 + 1 + (steps % 120 != 0), "%d calls in %d steps, every 120" % (calls, steps))
    print("ok: live.py without a listening ParaView: %d calls in %.2f s" % (calls, run["output_seconds"]["catalyst"]))


def case_not_built(r):
    out = r.out("not_built")
    rc, log = r.run(out, [r.script("extracts.py")])
    need(rc == 2 and "built without ParaView Catalyst" in log, "exit %d:\n%s" % (rc, log))
    need(not os.path.exists(out), "the output directory was created")
    print("ok: exit 2, built without Catalyst")


def null_module_case(r, backend, shapes=5, extra=()):
    import glob
    out = r.out("null_" + backend)
    module = os.path.abspath(r.null_module)
    need(os.path.exists(module), "no null module at %s" % module)
    rc, log = r.run(out, [r.scenario], ranks=2,
                    extra=["--backend", backend, "--set", "output.trajectory_format=csv"] + list(extra),
                    env={"THRONG_CATALYST_MODULE": module, "THRONG_NULL_MODULE_OUT": os.path.join(r.tmp, "calls")})
    if rc == 2 and backend == "cuda" and ("cuda" in log.lower() or "gpu" in log.lower()):
        print("SKIP: no CUDA backend or GPU here:\n" + log)
        sys.exit(SKIP)
    need(rc == 0, "exit %d:\n%s" % (rc, log))
    calls = {}
    for path in sorted(glob.glob(os.path.join(r.tmp, "calls.*"))):
        for line in open(path):
            step, n, ids, sx, sy, sv, nshapes, sz = line.split()
            need(int(nshapes) == shapes, "%s: the geometry had %s shapes, expected %d" % (path, nshapes, shapes))
            c = calls.setdefault(int(step), [0, 0, 0.0, 0.0, 0.0])
            c[0] += int(n)
            c[1] += int(ids)
            c[2] += float(sx)
            c[3] += float(sy)
            c[4] += float(sz)
    need(len(glob.glob(os.path.join(r.tmp, "calls.*"))) == 2, "expected one call file per rank")
    frames = sorted(glob.glob(os.path.join(out, "trajectory", "trajectory.*.csv")))
    need(len(frames) == len(calls), "%d calls, %d trajectory frames" % (len(calls), len(frames)))
    zsums = []
    for path in frames:
        step = int(os.path.basename(path).split(".")[1])
        rows = [l.split(",") for l in open(path).read().splitlines()[1:]]
        n, ids = len(rows), sum(int(row[0]) for row in rows)
        sx, sy = sum(float(row[1]) for row in rows), sum(float(row[2]) for row in rows)
        got = calls.get(step)
        need(got is not None, "no call at step %d" % step)
        need(got[0] == n and got[1] == ids, "step %d: the module saw %d agents (id sum %d), the frame has %d (%d)"
             % (step, got[0], got[1], n, ids))
        need(abs(got[2] - sx) < 1e-3 * max(1, n) and abs(got[3] - sy) < 1e-3 * max(1, n),
             "step %d: positions differ (sum x %.6f vs %.6f)" % (step, got[2], sx))
        if len(rows[0]) == 9 if rows else False:  # 3D: id,x,y,z,vx,vy,vz,radius,group
            sz = sum(float(row[3]) for row in rows)
            need(abs(got[4] - sz) < 1e-3 * max(1, n), "step %d: altitudes differ (sum z %.6f vs %.6f)"
                 % (step, got[4], sz))
            zsums.append(sz / max(1, n))
    if shapes != 5:
        need(len(zsums) == len(frames) and max(zsums) - min(zsums) > 1e-3,
             "3D: every frame's altitudes reached the module and vary (mean z %.4f to %.4f)"
             % (min(zsums or [0]), max(zsums or [0])))
    print("ok: %s backend: %d calls, each with the agents of its trajectory frame%s"
          % (backend, len(calls), " (3D: with their altitudes)" if shapes != 5 else ""))


def case_null_module(r):
    null_module_case(r, "cpu")


def case_null_module_cuda(r):
    null_module_case(r, "cuda")


def case_null_module_3d(r):
    r.scenario = os.path.join(r.source, "configs", "3d", "swarm-crossing.yaml")
    null_module_case(r, "cpu", shapes=0, extra=["--steps", "896", "--set", "avoidance.plane=vertical",
                                                  "--set", "catalyst.every=8"])


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--source")
    ap.add_argument("--mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--mpi-flags", default="")
    ap.add_argument("--null-module", default="")
    args = ap.parse_args()
    if args.case not in ("not_built", "null_module", "null_module_cuda", "null_module_3d"):
        try:
            import numpy  # noqa: F401
            import vtkmodules.vtkIOXML  # noqa: F401
            subprocess.run([sys.executable, "-c", "import h5py"], check=True, stderr=subprocess.DEVNULL)
        except (ImportError, subprocess.CalledProcessError) as e:
            print("SKIP: %s (needs python3-h5py and python3-paraview)" % e)
            return SKIP
    r = Runner(args)
    try:
        CASES[args.case](r)
    finally:
        shutil.rmtree(r.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
