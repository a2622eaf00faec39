# script-version: 2
# Catalyst script: a PNG image of the agents coloured by speed, with the
# walls, obstacles, exits and measurement areas and the simulated time
# ("t = 12.5 s"), every call, under OUT/catalyst/ (speed_STEP.png).
# Rendering needs an X server: run throng under `xvfb-run -a` with Debian's
# ParaView (docs/insitu.md).
# Run: xvfb-run -a throng run SCENARIO --catalyst configs/catalyst/render_speed.py
#
# The image follows the scene: its longer side is WIDTH pixels, the other
# follows the geometry's bounds (fixed at the first call), plus a margin, a
# band above for the time and one below (a tall scene: on the right) for the
# colour bar; at least MIN_SIDE pixels. IMAGE = [W, H] draws on a fixed
# canvas instead. THRONG_CATALYST_REGION="X0 Y0 X1 Y1" (metres) in the
# environment, or REGION below, shows only that rectangle; render_density.py
# reads the same.
import math
import os

from paraview.simple import *
from paraview import catalyst

# settings
WIDTH = 1280             # pixels: the image's longer side
IMAGE = None             # [W, H] pixels: a fixed canvas instead
REGION = None            # (x0, y0, x1, y1) metres: show only this (else THRONG_CATALYST_REGION, else everything)
TIME_LABEL = True        # the simulated time in the upper left corner
SPEED_RANGE = [0.0, 2.0] # m/s, fixed so that frames compare
POINT_SIZE = 3           # pixels per agent

# the canvas in pixels (scripts/paraview_frames.py and render_density.py have the same)
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

view = CreateView('RenderView')
view.ViewSize = list(IMAGE or [WIDTH, WIDTH // 2])  # set at the first call, from the geometry
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.CameraParallelProjection = 1

# the geometry, coloured by kind (cell data 'kind' of throng's geometry channel)
shapes = Show(geometry, view)
shapes.Representation = 'Wireframe'
shapes.LineWidth = 2.0
ColorBy(shapes, ('CELLS', 'kind'))
kinds = GetColorTransferFunction('kind')
kinds.InterpretValuesAsCategories = 1
kinds.Annotations = ['0', 'wall', '1', 'obstacle', '2', 'exit', '3', 'area', '4', 'line']
kinds.IndexedColors = [0.0, 0.0, 0.0,  0.35, 0.35, 0.35,  0.0, 0.7, 0.0,  0.2, 0.4, 1.0,  1.0, 0.5, 0.0]
shapes.SetScalarBarVisibility(view, False)

# the agents, coloured by speed
dots = Show(agents, view)
dots.Representation = 'Points'
dots.PointSize = POINT_SIZE
ColorBy(dots, ('POINTS', 'speed'))
speed = GetColorTransferFunction('speed')
speed.ApplyPreset('Turbo', True)
speed.RescaleTransferFunction(SPEED_RANGE[0], SPEED_RANGE[1])
speed.AutomaticRescaleRangeMode = 'Never'
dots.SetScalarBarVisibility(view, True)
bar = GetScalarBar(speed, view)
bar.Title = 'speed [m/s]'
bar.ComponentTitle = ''
bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
bar.AutomaticLabelFormat = 0
bar.LabelFormat = '%.1f'
bar.RangeLabelFormat = '%.1f'
bar.DrawBackground = 1
bar.BackgroundColor = [1.0, 1.0, 1.0, 1.0]

label = Text(registrationName='time_label', Text='')
if TIME_LABEL:
    shown = Show(label, view)
    shown.WindowLocation = 'Upper Left Corner'
    shown.FontSize = 18
    shown.Color = [0.0, 0.0, 0.0]
    shown.BackgroundColor = [1.0, 1.0, 1.0, 1.0]  # over the scene beyond a region: opaque

png = CreateExtractor('PNG', view, registrationName='speed_png')
png.Writer.FileName = 'speed_{timestep:06d}.png'
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
