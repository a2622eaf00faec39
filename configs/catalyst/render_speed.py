# script-version: 2
# Catalyst script: a PNG image of the agents coloured by speed, with the
# walls, obstacles, exits and measurement areas, every call, under
# OUT/catalyst/ (speed_STEP.png). Rendering needs an X server: run throng
# under `xvfb-run -a` with Debian's ParaView (docs/insitu.md).
# Run: xvfb-run -a throng run SCENARIO --catalyst configs/catalyst/render_speed.py
from paraview.simple import *
from paraview import catalyst

# settings
IMAGE = [1280, 720]      # pixels
SPEED_RANGE = [0.0, 2.0] # m/s, fixed so that frames compare
POINT_SIZE = 3           # pixels per agent

agents = TrivialProducer(registrationName='agents')
geometry = TrivialProducer(registrationName='geometry')

view = CreateView('RenderView')
view.ViewSize = IMAGE
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

png = CreateExtractor('PNG', view, registrationName='speed_png')
png.Writer.FileName = 'speed_{timestep:06d}.png'
png.Writer.ImageResolution = IMAGE

options = catalyst.Options()
options.ExtractsOutputDirectory = 'catalyst'
options.GlobalTrigger = 'TimeStep'


def fit_camera():
    """The whole geometry (and agents), seen from above: x right, y up."""
    box = geometry.GetDataInformation().GetBounds()
    if box[0] > box[1]:  # no geometry: the agents
        box = agents.GetDataInformation().GetBounds()
    cx, cy = 0.5 * (box[0] + box[1]), 0.5 * (box[2] + box[3])
    half_w, half_h = 0.5 * (box[1] - box[0]), 0.5 * (box[3] - box[2])
    view.CameraFocalPoint = [cx, cy, 0.0]
    view.CameraPosition = [cx, cy, 100.0]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    view.CameraParallelScale = 1.05 * max(half_h, half_w * IMAGE[1] / IMAGE[0], 0.5)


def catalyst_execute(info):
    fit_camera()
