# ParaView (pvpython) script: pictures of a throng run, the agents as discs
# of their radius coloured by speed over the scene's geometry (walls,
# obstacles, exits, goals, measurement areas; geometry.vtp), seen from above.
#
#   xvfb-run -a -s "-screen 0 1280x1024x24" pvpython scripts/paraview_frames.py OUTDIR [--frames N]
#       [--size W H] [--out DIR]
#
# OUTDIR is a run's output directory with trajectory.xdmf (an HDF5 build's
# trajectory). Writes N pictures spread over the run (default 6, the last at
# the last frame) as DIR/frame_tTIME.png (default OUTDIR/paraview/) and prints
# their paths. Rendering needs an X server: `xvfb-run` gives one on a machine
# without a display (Debian: apt-get install paraview xvfb xauth; a 24-bit
# screen, else ParaView may fail to connect).
# docs/user-guide.md, "Opening the trajectory in ParaView", does the same by
# hand.
import argparse
import os
import sys

from paraview.simple import (ColorBy, CreateView, GetColorTransferFunction, GetScalarBar, Glyph, Render,
                             SaveScreenshot, Show, XDMFReader, XMLPolyDataReader)

SPEED_RANGE = [0.0, 2.0]  # m/s, fixed so that pictures compare
KINDS = ['1', 'wall', '2', 'exit', '3', 'goal', '4', 'line', '5', 'area', '6', 'slot']
KIND_COLOURS = [0.0, 0.0, 0.0, 0.0, 0.65, 0.0, 0.85, 0.1, 0.6, 1.0, 0.5, 0.0, 0.2, 0.4, 1.0, 0.5, 0.5, 0.5]


def main():
    ap = argparse.ArgumentParser(description="pictures of a throng run with ParaView")
    ap.add_argument("outdir")
    ap.add_argument("--frames", type=int, default=6, help="pictures spread over the run (default 6)")
    ap.add_argument("--size", type=int, nargs=2, default=[1280, 800], metavar=("W", "H"))
    ap.add_argument("--out", help="where the PNGs go (default OUTDIR/paraview)")
    a = ap.parse_args()
    xdmf = os.path.join(a.outdir, "trajectory.xdmf")
    geo = os.path.join(a.outdir, "geometry.vtp")
    if not os.path.exists(xdmf):
        sys.exit("paraview_frames.py: %s: no such file (a run of an HDF5 build with output.trajectory_every > 0 "
                 "writes it)" % xdmf)
    out = a.out or os.path.join(a.outdir, "paraview")
    os.makedirs(out, exist_ok=True)

    view = CreateView('RenderView')
    view.ViewSize = a.size
    view.OrientationAxesVisibility = 0
    view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]
    view.CameraParallelProjection = 1

    box = None
    if os.path.exists(geo):
        shapes = Show(XMLPolyDataReader(FileName=[geo]), view)
        shapes.Representation = 'Wireframe'
        shapes.LineWidth = 2.0
        shapes.PointSize = 4.0
        ColorBy(shapes, ('CELLS', 'kind'))
        kinds = GetColorTransferFunction('kind')
        kinds.InterpretValuesAsCategories = 1
        kinds.Annotations = KINDS
        kinds.IndexedColors = KIND_COLOURS
        shapes.SetScalarBarVisibility(view, False)
        box = shapes.Input.GetDataInformation().GetBounds()

    agents = XDMFReader(FileNames=[xdmf])
    agents.UpdatePipelineInformation()
    times = list(agents.TimestepValues) if agents.TimestepValues else [0.0]
    # discs: a filled circle per agent, its diameter 2 x radius
    discs = Glyph(Input=agents, GlyphType='2D Glyph')
    discs.GlyphType.GlyphType = 'Circle'
    discs.GlyphType.Filled = 1
    discs.OrientationArray = ['POINTS', 'No orientation array']
    discs.ScaleArray = ['POINTS', 'radius']
    discs.ScaleFactor = 2.0
    discs.GlyphMode = 'All Points'
    dots = Show(discs, view)
    ColorBy(dots, ('POINTS', 'velocity', 'Magnitude'))
    speed = GetColorTransferFunction('velocity')
    speed.ApplyPreset('Turbo', True)
    speed.AutomaticRescaleRangeMode = 'Never'
    speed.RescaleTransferFunction(SPEED_RANGE[0], SPEED_RANGE[1])
    dots.SetScalarBarVisibility(view, True)
    bar = GetScalarBar(speed, view)
    bar.Title = 'speed [m/s]'
    bar.ComponentTitle = ''
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    bar.AutomaticLabelFormat = 0
    bar.LabelFormat = '%.1f'
    bar.RangeLabelFormat = '%.1f'

    if box is None or box[0] > box[1]:
        agents.UpdatePipeline(times[0])
        box = agents.GetDataInformation().GetBounds()
    cx, cy = 0.5 * (box[0] + box[1]), 0.5 * (box[2] + box[3])
    half_w, half_h = 0.5 * (box[1] - box[0]), 0.5 * (box[3] - box[2])
    view.CameraFocalPoint = [cx, cy, 0.0]
    view.CameraPosition = [cx, cy, 100.0]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    view.CameraParallelScale = 1.05 * max(half_h, half_w * a.size[1] / a.size[0], 0.5)

    n = max(1, min(a.frames, len(times)))
    picks = sorted({round(k * (len(times) - 1) / max(1, n - 1)) for k in range(n)})
    for k in picks:
        t = times[k]
        view.ViewTime = t
        Render(view)
        path = os.path.join(out, "frame_t%09.3f.png" % t)
        SaveScreenshot(path, view, ImageResolution=a.size)
        print(path)


main()
