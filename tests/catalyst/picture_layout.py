"""The canvas of configs/catalyst/render_*.py and scripts/paraview_frames.py
(docs/insitu.md), as the catalyst tests expect it: check_catalyst.py and
check_paraview_frames.py share it."""
import math

# pixels
MARGIN, LABEL_BAND, BAR_BAND, MIN_SIDE = 16, 40, 90, 240


def canvas(box, longer=1280):
    """render_speed.py's and render_density.py's picture of BOX (xmin, xmax,
    ymin, ymax): (size, metres -> pixel (column, row), pixels per metre). The
    longer side LONGER; the scene MARGIN clear of the edges, below a band of
    LABEL_BAND for the time and above (wide) or left of (tall) a band of
    BAR_BAND for the colour bar; the shorter side at least MIN_SIDE; both
    even (docs/insitu.md)."""
    w_m, h_m = box[1] - box[0], box[3] - box[2]
    wide = w_m >= h_m
    right, below = (0, BAR_BAND) if wide else (BAR_BAND, 0)
    ew, eh = 2 * MARGIN + right, 2 * MARGIN + LABEL_BAND + below
    ppm = min((longer - ew) / w_m, (longer - eh) / h_m)
    w, h = (longer, max(MIN_SIDE, h_m * ppm + eh)) if wide else (max(MIN_SIDE, w_m * ppm + ew), longer)
    w, h = 2 * math.ceil(w / 2 - 1e-9), 2 * math.ceil(h / 2 - 1e-9)
    cx, cy = 0.5 * (box[0] + box[1]), 0.5 * (box[2] + box[3])
    mid_c, mid_r = 0.5 * (w - right), 0.5 * (LABEL_BAND + h - below)  # the middle of what the bands leave

    def to_px(x, y):
        return mid_c + (x - cx) * ppm, mid_r - (y - cy) * ppm
    return (w, h), to_px, ppm
