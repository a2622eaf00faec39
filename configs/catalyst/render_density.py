# script-version: 2
# Catalyst script: a PNG image of the crowd density (agents per square
# metre in cells of CELL metres, summed over every rank) with the walls and
# exits and the simulated time ("t = 12.5 s"), every call, under
# OUT/catalyst/ (density_STEP.png). Needs an X server: run throng under
# `xvfb-run -a` (docs/insitu.md).
# Run: xvfb-run -a throng run SCENARIO --catalyst configs/catalyst/render_density.py
#
# The image follows the scene as render_speed.py's does: its longer side is
# WIDTH pixels, the other follows the geometry's bounds (fixed at the first
# call) plus a margin, a band above for the time and one below (a tall
# scene: on the right) for the colour bar; IMAGE = [W, H] draws on a fixed
# canvas instead. THRONG_CATALYST_REGION="X0 Y0 X1 Y1" (metres) in the
# environment, or REGION below, shows only that rectangle.
import math
import os

from paraview.simple import *
from paraview import catalyst

# settings
WIDTH = 1280                # pixels: the image's longer side
IMAGE = None                # [W, H] pixels: a fixed canvas instead
REGION = None               # (x0, y0, x1, y1) metres: show only this (else THRONG_CATALYST_REGION, else everything)
TIME_LABEL = True           # the simulated time in the upper left corner
CELL = 1.0                  # density cell side [m]; grown so that the image has at most MAX_CELLS across
MAX_CELLS = 300
DENSITY_RANGE = [0.0, 6.0]  # agents / m^2, fixed so that frames compare

# the canvas in pixels (scripts/paraview_frames.py and render_speed.py have the same)
MARGIN = 16              # around the scene
LABEL_BAND = 40          # above the scene: the time
BAR_BAND = 90            # below the scene (a wide image: a horizontal colour bar) or right of it (tall: vertical)
MIN_SIDE = 240           # the shorter side at least, so that the colour bar fits


def read_region(text):
    """X0 Y0 X1 Y1 (blanks or commas between) -> (x0, y0, x1, y1), or None."""
    if not text or not text.strip():
        return None
    try:
        r = tuple(float(v) for v in text.replace(',', ' ').split())
    except ValueError:
        r = ()
    if len(r) != 4 or not (r[2] > r[0] and r[3] > r[1]):
        raise ValueError('THRONG_CATALYST_REGION=%r: expected "X0 Y0 X1 Y1" in metres with X1 > X0 and '
                         'Y1 > Y0' % text)
    return r


if REGION is None:
    REGION = read_region(os.environ.get('THRONG_CATALYST_REGION', ''))


def layout(box, longer, size=None):
    """The canvas and the camera that show BOX (xmin, xmax, ymin, ymax) from
    above: ((width, height), focal point (x, y), parallel scale, wide)."""
    w_m, h_m = max(box[1] - box[0], 1e-3), max(box[3] - box[2], 1e-3)
    wide = w_m >= h_m if size is None else size[0] >= size[1]
    right, below = (0, BAR_BAND) if wide else (BAR_BAND, 0)
    extra_w, extra_h = 2 * MARGIN + right, 2 * MARGIN + LABEL_BAND + below
    if size is None:
        ppm = min((longer - extra_w) / w_m, (longer - extra_h) / h_m)  # pixels per metre
        if wide:
            size = [longer, max(MIN_SIDE, h_m * ppm + extra_h)]
        else:
            size = [max(MIN_SIDE, w_m * ppm + extra_w), longer]
        size = [2 * int(math.ceil(s / 2.0 - 1e-9)) for s in size]  # even, as video encoders want
    else:
        ppm = min((size[0] - extra_w) / w_m, (size[1] - extra_h) / h_m)
    cx, cy = 0.5 * (box[0] + box[1]), 0.5 * (box[2] + box[3])
    focal = (cx + 0.5 * right / ppm, cy + 0.5 * (LABEL_BAND - below) / ppm)
    return (size[0], size[1]), focal, 0.5 * size[1] / ppm, wide


agents = TrivialProducer(registrationName='agents')
geometry = TrivialProducer(registrationName='geometry')

# Counts per cell (CELL metres, or larger for big floors) on every rank, summed over the ranks; rank 0's piece holds
# the occupied cells as squares (the other pieces are empty), so that
# compositing shows the sum.
density = ProgrammableFilter(registrationName='density', Input=agents)
density.OutputDataSetType = 'vtkPolyData'
density.Script = """
import numpy as np
from vtkmodules.vtkParallelCore import vtkMultiProcessController, vtkCommunicator
from vtkmodules.vtkCommonCore import vtkDoubleArray, vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray
from vtkmodules.util import numpy_support as ns

CELL = %(cell)r
MAX_CELLS = %(max_cells)r
pts = inputs[0].Points
xy = np.zeros((0, 2)) if pts is None else np.asarray(pts)[:, :2]
ctl = vtkMultiProcessController.GetGlobalController()
rank = ctl.GetLocalProcessId() if ctl else 0

# the box over every rank's agents
lo = xy.min(axis=0) if len(xy) else np.array([np.inf, np.inf])
hi = xy.max(axis=0) if len(xy) else np.array([-np.inf, -np.inf])
box = vtkDoubleArray(); box.SetNumberOfTuples(4)
for k, v in enumerate([lo[0], lo[1], -hi[0], -hi[1]]): box.SetValue(k, v)
out_box = vtkDoubleArray(); out_box.SetNumberOfTuples(4)
if ctl: ctl.AllReduce(box, out_box, vtkCommunicator.MIN_OP)
else: out_box.DeepCopy(box)
b = [out_box.GetValue(k) for k in range(4)]
if not np.isfinite(b[0]):
    b = [0.0, 0.0, -1.0, -1.0]
CELL = float(np.maximum(CELL, np.maximum(-b[2] - b[0], -b[3] - b[1]) / MAX_CELLS))
x0, y0 = np.floor(b[0] / CELL) * CELL, np.floor(b[1] / CELL) * CELL
# (numpy's functions: the filter's namespace has VTK's parallel min/max)
nx = int(np.maximum(1, np.ceil((-b[2] - x0) / CELL + 1e-9)))
ny = int(np.maximum(1, np.ceil((-b[3] - y0) / CELL + 1e-9)))

counts, _, _ = np.histogram2d(xy[:, 0], xy[:, 1], bins=[nx, ny],
                              range=[[x0, x0 + nx * CELL], [y0, y0 + ny * CELL]])
mine = ns.numpy_to_vtk(counts.T.ravel().astype(np.float64), deep=1)
total = vtkDoubleArray(); total.SetNumberOfTuples(nx * ny)
if ctl: ctl.AllReduce(mine, total, vtkCommunicator.SUM_OP)
else: total.DeepCopy(mine)

# rank 0 hands out the occupied cells as squares with cell data 'density'
out = self.GetOutput()
out.Initialize()  # the filter starts from a copy of its input: drop the agents
if rank == 0:
    rho = ns.vtk_to_numpy(total).reshape(ny, nx) / (CELL * CELL)
    j, i = np.nonzero(rho)
    corners = np.stack([np.stack([x0 + (i + a) * CELL, y0 + (j + b) * CELL, np.zeros(len(i))], axis=1)
                        for a, b in ((0, 0), (1, 0), (1, 1), (0, 1))], axis=1).reshape(-1, 3)
    pts = vtkPoints()
    pts.SetData(ns.numpy_to_vtk(corners, deep=1))
    quads = vtkCellArray()
    quads.SetData(ns.numpy_to_vtkIdTypeArray(np.arange(0, 4 * len(i) + 1, 4, dtype=np.int64), deep=1),
                  ns.numpy_to_vtkIdTypeArray(np.arange(4 * len(i), dtype=np.int64), deep=1))
    out.SetPoints(pts)
    out.SetPolys(quads)
    d = ns.numpy_to_vtk(rho[j, i].astype(np.float64), deep=1)
    d.SetName('density')
    out.GetCellData().AddArray(d)
""" % {'cell': CELL, 'max_cells': MAX_CELLS}
density.RequestInformationScript = ''
density.RequestUpdateExtentScript = ''

view = CreateView('RenderView')
view.ViewSize = list(IMAGE or [WIDTH, WIDTH // 2])  # set at the first call, from the geometry
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.CameraParallelProjection = 1

cells = Show(density, view)
cells.Representation = 'Surface'
ColorBy(cells, ('CELLS', 'density'))
rho = GetColorTransferFunction('density')
rho.ApplyPreset('Inferno (matplotlib)', True)
rho.RescaleTransferFunction(DENSITY_RANGE[0], DENSITY_RANGE[1])
rho.AutomaticRescaleRangeMode = 'Never'
cells.SetScalarBarVisibility(view, True)
bar = GetScalarBar(rho, view)
bar.Title = 'density [1/m^2]'
bar.ComponentTitle = ''
bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
bar.AutomaticLabelFormat = 0
bar.LabelFormat = '%.1f'
bar.RangeLabelFormat = '%.1f'
bar.DrawBackground = 1
bar.BackgroundColor = [1.0, 1.0, 1.0, 1.0]

shapes = Show(geometry, view)
shapes.Representation = 'Wireframe'
shapes.LineWidth = 2.0
ColorBy(shapes, ('CELLS', 'kind'))
kinds = GetColorTransferFunction('kind')
kinds.InterpretValuesAsCategories = 1
kinds.Annotations = ['0', 'wall', '1', 'obstacle', '2', 'exit', '3', 'area', '4', 'line']
kinds.IndexedColors = [0.0, 0.0, 0.0,  0.35, 0.35, 0.35,  0.0, 0.7, 0.0,  0.2, 0.4, 1.0,  1.0, 0.5, 0.0]
shapes.SetScalarBarVisibility(view, False)

label = Text(registrationName='time_label', Text='')
if TIME_LABEL:
    shown = Show(label, view)
    shown.WindowLocation = 'Upper Left Corner'
    shown.FontSize = 18
    shown.Color = [0.0, 0.0, 0.0]
    shown.BackgroundColor = [1.0, 1.0, 1.0, 1.0]  # over the scene beyond a region: opaque

png = CreateExtractor('PNG', view, registrationName='density_png')
png.Writer.FileName = 'density_{timestep:06d}.png'
png.Writer.ImageResolution = list(view.ViewSize)

options = catalyst.Options()
options.ExtractsOutputDirectory = 'catalyst'
options.GlobalTrigger = 'TimeStep'

_size = IMAGE  # the canvas, fixed at the first call that has something to show


def global_box(proxy):
    """(xmin, xmax, ymin, ymax) of PROXY's data over every rank (each rank
    sees only its own piece, and every rank must draw on the same canvas),
    or None when it is empty everywhere."""
    from vtkmodules.vtkCommonCore import vtkDoubleArray
    from vtkmodules.vtkParallelCore import vtkCommunicator, vtkMultiProcessController
    b = proxy.GetDataInformation().GetBounds()
    mine, out = vtkDoubleArray(), vtkDoubleArray()
    mine.SetNumberOfTuples(4)
    out.SetNumberOfTuples(4)
    for k, v in enumerate([b[0], b[2], -b[1], -b[3]] if b[0] <= b[1] else [float('inf')] * 4):
        mine.SetValue(k, v)
    ctl = vtkMultiProcessController.GetGlobalController()
    if ctl is not None and ctl.GetNumberOfProcesses() > 1:
        ctl.AllReduce(mine, out, vtkCommunicator.MIN_OP)
    else:
        out.DeepCopy(mine)
    r = [out.GetValue(k) for k in range(4)]
    return None if not math.isfinite(r[0]) else (r[0], -r[2], r[1], -r[3])


def fit_camera():
    """The region, or the whole geometry (without one, the agents), seen
    from above: x right, y up; the same canvas and camera on every rank."""
    global _size
    if REGION is not None:
        box = (REGION[0], REGION[2], REGION[1], REGION[3])
    else:
        box = global_box(geometry) or global_box(agents)  # no geometry: the agents
        if box is None:  # nobody either
            return
    size, focal, scale, wide = layout(box, WIDTH, _size)
    _size = size
    view.ViewSize = list(size)
    png.Writer.ImageResolution = list(size)
    view.CameraFocalPoint = [focal[0], focal[1], 0.0]
    view.CameraPosition = [focal[0], focal[1], 100.0]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    view.CameraParallelScale = scale
    bar.Orientation = 'Horizontal' if wide else 'Vertical'
    bar.WindowLocation = 'Lower Center' if wide else 'Lower Right Corner'
    bar.ScalarBarLength = min(0.33, 420.0 / size[0]) if wide else 0.33


def catalyst_execute(info):
    fit_camera()
    label.Text = 't = %.1f s' % info.time
