#!/usr/bin/env python3
"""Read a throng trajectory.h5 with h5py and analyse it with PedPy.

usage: read_trajectory.py TRAJECTORY_H5 [PNG] [--area X0 Y0 X1 Y1] [--frame-step K]

(a) h5py: reads /frames and /trajectory and prints the agents per frame (a
    sample of the frames, then totals), checking that the two agree.
(b) PedPy (1.5): loads the trajectory and the walkable area as it loads any
    file of the Juelich Pedestrian Dynamics Data Archive, takes a square
    measurement area in the middle of the walkable area's bounds (or the
    rectangle --area X0 Y0 X1 Y1), computes the classic density, the
    individual speeds (over K frames either side) and the mean speed in the
    area per frame, prints their ranges and plots both over time into PNG
    (default: density_speed.png beside the trajectory file).
    The speeds use SpeedCalculation.BORDER_SINGLE_SIDED: the agents are there
    from frame 0 and leave through exits, so BORDER_EXCLUDE (and, at the
    first and last frames, BORDER_ADAPTIVE) would leave agents in the area
    without a speed, which compute_mean_speed_per_frame refuses.

Needs: pip install pedpy (it brings h5py, pandas, shapely and matplotlib).
The layout of trajectory.h5 is in docs/output.md.
"""
import argparse
import pathlib
import sys

import h5py
import numpy as np


def agents_per_frame(path):
    """Print agents per frame from /frames and /trajectory; return (fps, frames)."""
    with h5py.File(path, "r") as f:
        frames = f["frames"][:]  # frame, step, time, first_row, rows
        traj = f["trajectory"]  # frame, id, x, y, z (compound rows)
        fps = float(traj.attrs["fps"])
        frame_col = traj.fields("frame")[:]
        print(f"{path}: scenario {f.attrs['scenario']!r}, {len(frames)} frames at {fps:.4g} frames/s, "
              f"{traj.shape[0]} rows, written by {f.attrs['producer']}")
    # The rows of each frame are contiguous: first_row .. first_row + rows.
    counted = np.bincount(frame_col, minlength=int(frames["frame"].max()) + 1 if len(frames) else 0)
    agree = all(counted[fr["frame"]] == fr["rows"] for fr in frames) and counted.sum() == frames["rows"].sum()
    print(f"{'frame':>8} {'step':>8} {'time [s]':>10} {'agents':>8}")
    picks = sorted(set(np.linspace(0, len(frames) - 1, num=min(len(frames), 10)).astype(int)))
    for k in picks:
        fr = frames[k]
        print(f"{fr['frame']:>8} {fr['step']:>8} {fr['time']:>10.3f} {fr['rows']:>8}")
    rows = frames["rows"]
    print(f"agents per frame: first {rows[0] if len(rows) else 0}, max {rows.max() if len(rows) else 0}, "
          f"last {rows[-1] if len(rows) else 0}; /frames and /trajectory agree: {'yes' if agree else 'NO'}")
    return fps, frames, agree


def measurement_square(walkable, area):
    """The measurement area: --area, else a square in the middle of the bounds."""
    import shapely

    if area:
        x0, y0, x1, y1 = area
        return shapely.box(min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))
    xmin, ymin, xmax, ymax = walkable.polygon.bounds
    side = min(2.0, 0.3 * min(xmax - xmin, ymax - ymin))
    cx, cy = (xmin + xmax) / 2, (ymin + ymax) / 2
    square = shapely.box(cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
    inside = square.intersection(walkable.polygon)  # a wall or hole may cross it
    return inside if inside.geom_type == "Polygon" and inside.area > 0 else square


def analyse(path, png, area, frame_step):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pedpy

    traj = pedpy.load_trajectory_from_ped_data_archive_hdf5(trajectory_file=path)
    walkable = pedpy.load_walkable_area_from_ped_data_archive_hdf5(trajectory_file=path)
    ma = pedpy.MeasurementArea(measurement_square(walkable, area))
    xmin, ymin, xmax, ymax = ma.polygon.bounds
    print(f"measurement area: ({xmin:.3g}, {ymin:.3g}) to ({xmax:.3g}, {ymax:.3g}), {ma.area:.3g} m^2")

    density = pedpy.compute_classic_density(traj_data=traj, measurement_area=ma)
    speed = pedpy.compute_individual_speed(traj_data=traj, frame_step=frame_step,
                                           speed_calculation=pedpy.SpeedCalculation.BORDER_SINGLE_SIDED)
    mean_speed = pedpy.compute_mean_speed_per_frame(traj_data=traj, individual_speed=speed, measurement_area=ma)

    d = density["density"]
    print(f"classic density: {len(d)} frames, max {d.max():.3f} /m^2, mean {d.mean():.3f} /m^2")
    occupied = mean_speed["speed"][density.loc[mean_speed.index, "density"] > 0]
    if len(occupied):
        print(f"mean speed in the area: {len(occupied)} occupied frames, min {occupied.min():.3f} m/s, "
              f"max {occupied.max():.3f} m/s, mean {occupied.mean():.3f} m/s")
    else:
        print("mean speed in the area: no frame has an agent in it (choose another --area)")
    print(f"individual speeds: {len(speed)} values, median {speed['speed'].median():.3f} m/s")

    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    ax1.plot(density.index / traj.frame_rate, d, lw=1)
    ax1.set_ylabel("density [1/m²]")
    ax1.set_title(f"{pathlib.Path(path).name}: measurement area of {ma.area:.2g} m²")
    # PedPy gives 0 m/s for frames with nobody in the area: leave those out
    ax2.plot(mean_speed.index / traj.frame_rate, mean_speed["speed"].where(density["density"] > 0), lw=1)
    ax2.set_ylabel("mean speed [m/s]")
    ax2.set_xlabel("time [s]")
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
    print(f"wrote {png}")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("trajectory", type=pathlib.Path, help="OUTDIR/trajectory.h5")
    p.add_argument("png", nargs="?", type=pathlib.Path, help="figure to write (default: density_speed.png beside it)")
    p.add_argument("--area", nargs=4, type=float, metavar=("X0", "Y0", "X1", "Y1"),
                   help="measurement area: the rectangle with these corners [m]")
    p.add_argument("--frame-step", type=int, default=5,
                   help="individual speed over K frames before and after (default 5)")
    a = p.parse_args(argv[1:])
    if not a.trajectory.is_file():
        print(f"{a.trajectory}: no such file", file=sys.stderr)
        return 2
    png = a.png or a.trajectory.with_name("density_speed.png")
    _, _, agree = agents_per_frame(a.trajectory)
    analyse(a.trajectory, png, a.area, a.frame_step)
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
