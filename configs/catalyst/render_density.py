# script-version: 2
# Catalyst script: a PNG image of the crowd density (agents per square
# metre in cells of CELL metres, summed over every rank) with the walls and
# exits, every call, under OUT/catalyst/ (density_STEP.png). Needs an X
# server: run throng under `xvfb-run -a` (docs/insitu.md).
# Run: xvfb-run -a throng run SCENARIO --catalyst configs/catalyst/render_density.py
from paraview.simple import *
from paraview import catalyst

# settings
IMAGE = [1280, 720]         # pixels
CELL = 1.0                  # density cell side [m]; grown so that the image has at most MAX_CELLS across
MAX_CELLS = 300
DENSITY_RANGE = [0.0, 6.0]  # agents / m^2, fixed so that frames compare

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
view.ViewSize = IMAGE
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

shapes = Show(geometry, view)
shapes.Representation = 'Wireframe'
shapes.LineWidth = 2.0
ColorBy(shapes, ('CELLS', 'kind'))
kinds = GetColorTransferFunction('kind')
kinds.InterpretValuesAsCategories = 1
kinds.Annotations = ['0', 'wall', '1', 'obstacle', '2', 'exit', '3', 'area', '4', 'line']
kinds.IndexedColors = [0.0, 0.0, 0.0,  0.35, 0.35, 0.35,  0.0, 0.7, 0.0,  0.2, 0.4, 1.0,  1.0, 0.5, 0.0]
shapes.SetScalarBarVisibility(view, False)

png = CreateExtractor('PNG', view, registrationName='density_png')
png.Writer.FileName = 'density_{timestep:06d}.png'
png.Writer.ImageResolution = IMAGE

options = catalyst.Options()
options.ExtractsOutputDirectory = 'catalyst'
options.GlobalTrigger = 'TimeStep'


def catalyst_execute(info):
    box = geometry.GetDataInformation().GetBounds()
    if box[0] > box[1]:
        box = agents.GetDataInformation().GetBounds()
    cx, cy = 0.5 * (box[0] + box[1]), 0.5 * (box[2] + box[3])
    view.CameraFocalPoint = [cx, cy, 0.0]
    view.CameraPosition = [cx, cy, 100.0]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    view.CameraParallelScale = 1.05 * max(0.5 * (box[3] - box[2]), 0.5 * (box[1] - box[0]) * IMAGE[1] / IMAGE[0], 0.5)
