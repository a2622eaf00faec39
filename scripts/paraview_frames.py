# ParaView (pvpython) script: pictures of a throng run, the agents as discs
# of their radius coloured by speed over the scene's geometry (walls,
# obstacles, exits, goals, measurement areas; geometry.vtp), seen from above,
# with the time ("t = 12.5 s") in the upper left corner.
#
#   xvfb-run -a -s "-screen 0 1280x1024x24" pvpython scripts/paraview_frames.py OUTDIR [--frames N]
#       [--width PX | --size W H] [--region X0 Y0 X1 Y1] [--no-time] [--out DIR]
#
# OUTDIR is a run's output directory with trajectory.xdmf (an HDF5 build's
# trajectory). Writes N pictures spread over the run (default 6, the last at
# the last frame) as DIR/frame_tTIME.png (default OUTDIR/paraview/) and prints
# their paths.
#
# The canvas follows the scene: its longer side is --width pixels (default
# 1280) and the other follows the geometry's bounds (or the region's), plus a
# margin, a band above for the time and one below (or, for a tall scene, to
# the right) for the colour bar; at least 240 pixels, and even, as video
# encoders want. A platform of 150 m x 10 m gives 1280 x 246, a square hall
# 1280 x 1280. --size W H draws on a fixed canvas instead (the scene fitted
# into it). --region X0 Y0 X1 Y1 (metres) shows only that rectangle, the
# canvas following its shape.
#
# Rendering needs an X server: `xvfb-run` gives one on a machine
# without a display (Debian: apt-get install paraview xvfb xauth; a 24-bit
# screen, else ParaView may fail to connect).
# docs/user-guide.md, "Opening the trajectory in ParaView", does the same by
# hand.
import argparse
import math
import os
import sys

from paraview.simple import (ColorBy, CreateView, GetColorTransferFunction, GetScalarBar, Glyph, Render,
                             SaveScreenshot, Show, Text, XDMFReader, XMLPolyDataReader)

SPEED_RANGE = [0.0, 2.0]  # m/s, fixed so that pictures compare
KINDS = ['1', 'wall', '2', 'exit', '3', 'goal', '4', 'line', '5', 'area', '6', 'slot']
KIND_COLOURS = [0.0, 0.0, 0.0, 0.0, 0.65, 0.0, 0.85, 0.1, 0.6, 1.0, 0.5, 0.0, 0.2, 0.4, 1.0, 0.5, 0.5, 0.5]

# the canvas, in pixels (configs/catalyst/render_speed.py has the same)
MARGIN = 16       # around the scene
LABEL_BAND = 40   # above the scene: the time
BAR_BAND = 90     # below the scene (wide canvas: a horizontal colour bar) or right of it (tall: vertical)
MIN_SIDE = 240    # the shorter side at least, so that the colour bar fits


def layout(box, longer, size=None):
    """The canvas and the camera that show BOX (xmin, xmax, ymin, ymax) from
    above: ((width, height), focal point (x, y), parallel scale, wide). The
    longer side is LONGER pixels, the other follows the box (SIZE: a fixed
    canvas); the scene keeps MARGIN pixels clear, a label band above and the
    colour bar's band below (wide) or on the right (tall)."""
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
        size = [2 * int(math.ceil(s / 2.0 - 1e-9)) for s in size]
    else:
        ppm = min((size[0] - extra_w) / w_m, (size[1] - extra_h) / h_m)
    width, height = size
    # the box's centre lands in the middle of the part of the canvas left for the scene
    cx, cy = 0.5 * (box[0] + box[1]), 0.5 * (box[2] + box[3])
    focal = (cx + 0.5 * right / ppm, cy + 0.5 * (LABEL_BAND - below) / ppm)
    return (width, height), focal, 0.5 * height / ppm, wide


def time_label(t):
    return "t = %.1f s" % t


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description="pictures of a throng run with ParaView")
    ap.add_argument("outdir")
    ap.add_argument("--frames", type=int, default=6, help="pictures spread over the run (default 6)")
    ap.add_argument("--width", type=int, default=1280, metavar="PX",
                    help="the canvas's longer side (default 1280); the other follows the scene")
    ap.add_argument("--size", type=int, nargs=2, metavar=("W", "H"), help="a fixed canvas instead")
    ap.add_argument("--region", type=float, nargs=4, metavar=("X0", "Y0", "X1", "Y1"),
                    help="show only this rectangle [m] (the canvas follows its shape)")
    ap.add_argument("--no-time", action="store_true", help="no time label")
    ap.add_argument("--out", help="where the PNGs go (default OUTDIR/paraview)")
    a = ap.parse_args(argv)
    if a.region is not None:
        x0, y0, x1, y1 = a.region
        if not (x1 > x0 and y1 > y0):
            ap.error("--region X0 Y0 X1 Y1: needs X1 > X0 and Y1 > Y0, got %g %g %g %g" % tuple(a.region))
    if a.size is not None and min(a.size) < 64:
        ap.error("--size W H: at least 64 x 64 pixels")
    if a.width < MIN_SIDE:
        ap.error("--width: at least %d pixels" % MIN_SIDE)
    return a


def main():
    a = parse_args()
    xdmf = os.path.join(a.outdir, "trajectory.xdmf")
    geo = os.path.join(a.outdir, "geometry.vtp")
    if not os.path.exists(xdmf):
        sys.exit("paraview_frames.py: %s: no such file (a run of an HDF5 build with output.trajectory_every > 0 "
                 "writes it)" % xdmf)
    out = a.out or os.path.join(a.outdir, "paraview")
    os.makedirs(out, exist_ok=True)

    view = CreateView('RenderView')
    view.OrientationAxesVisibility = 0
    view.UseColorPaletteForBackground = 0
    view.Background = [1.0, 1.0, 1.0]
    view.CameraParallelProjection = 1

    box = None
    if os.path.exists(geo):
        reader = XMLPolyDataReader(FileName=[geo])
        reader.UpdatePipeline()
        box = reader.GetDataInformation().GetBounds()
        shapes = Show(reader, view)
        shapes.Representation = 'Wireframe'
        shapes.LineWidth = 2.0
        shapes.PointSize = 4.0
        ColorBy(shapes, ('CELLS', 'kind'))
        kinds = GetColorTransferFunction('kind')
        kinds.InterpretValuesAsCategories = 1
        kinds.Annotations = KINDS
        kinds.IndexedColors = KIND_COLOURS
        shapes.SetScalarBarVisibility(view, False)

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

    if a.region is not None:
        box = (a.region[0], a.region[2], a.region[1], a.region[3])
    elif box is None or box[0] > box[1]:
        agents.UpdatePipeline(times[0])
        box = agents.GetDataInformation().GetBounds()
    size, focal, scale, wide = layout(box, a.width, a.size)
    view.ViewSize = size
    Render(view)  # paraview.simple resets the camera at the first Render: before ours
    view.CameraFocalPoint = [focal[0], focal[1], 0.0]
    view.CameraPosition = [focal[0], focal[1], 100.0]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    view.CameraParallelScale = scale

    bar = GetScalarBar(speed, view)
    bar.Title = 'speed [m/s]'
    bar.ComponentTitle = ''
    bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
    bar.AutomaticLabelFormat = 0
    bar.LabelFormat = '%.1f'
    bar.RangeLabelFormat = '%.1f'
    bar.DrawBackground = 1
    bar.BackgroundColor = [1.0, 1.0, 1.0, 1.0]
    bar.Orientation = 'Horizontal' if wide else 'Vertical'
    bar.WindowLocation = 'Lower Center' if wide else 'Lower Right Corner'
    bar.ScalarBarLength = min(0.33, 420.0 / size[0]) if wide else 0.33

    label = None
    if not a.no_time:
        label = Text(Text=time_label(times[0]))
        shown = Show(label, view)
        shown.WindowLocation = 'Upper Left Corner'
        shown.FontSize = 18
        shown.Color = [0.0, 0.0, 0.0]
        shown.BackgroundColor = [1.0, 1.0, 1.0, 1.0]  # over the scene beyond a region: opaque

    n = max(1, min(a.frames, len(times)))
    picks = sorted({round(k * (len(times) - 1) / max(1, n - 1)) for k in range(n)})
    for k in picks:
        t = times[k]
        view.ViewTime = t
        if label is not None:
            label.Text = time_label(t)
        Render(view)
        path = os.path.join(out, "frame_t%09.3f.png" % t)
        SaveScreenshot(path, view, ImageResolution=size)
        print(path)


main()
