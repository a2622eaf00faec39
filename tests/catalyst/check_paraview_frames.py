#!/usr/bin/env python3
"""scripts/paraview_frames.py (pvpython) on a short run (issue 20).

Usage: check_paraview_frames.py THRONG SOURCE_DIR

Runs configs/paper/bottleneck-480.yaml for 240 steps with a frame every 24,
then the script under xvfb-run for 3 pictures: it exits 0, prints 3 PNG
paths, the files are PNGs of 1280 x 800 pixels named after the first, middle
and last frame's time (0, 2.5 and 5 s), and not blank (a blank white
picture compresses to a few kB). Exit 77 (skipped) without pvpython,
xvfb-run or an HDF5 build (no trajectory.xdmf).
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SKIP = 77


def main():
    throng, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    for tool in ("pvpython", "xvfb-run"):
        if not shutil.which(tool):
            print("SKIP: %s not installed (apt-get install paraview xvfb xauth)" % tool)
            return SKIP
    tmp = tempfile.mkdtemp(prefix="throng-pvframes-")
    problems = []
    try:
        out = os.path.join(tmp, "run")
        p = subprocess.run([throng, "run", os.path.join(src, "configs/paper/bottleneck-480.yaml"), "--steps", "240",
                            "--out", out, "--quiet", "--set", "output.trajectory_every=24"], capture_output=True,
                           text=True)
        if p.returncode:
            print("FAIL: throng run: exit %d %s" % (p.returncode, p.stderr))
            return 1
        if not os.path.exists(os.path.join(out, "trajectory.xdmf")):
            print("SKIP: no trajectory.xdmf (a build without HDF5)")
            return SKIP
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24 -noreset", "pvpython",
                            os.path.join(src, "scripts/paraview_frames.py"), out, "--frames", "3"],
                           capture_output=True, text=True, timeout=600, env=env)
        paths = [l.strip() for l in p.stdout.splitlines() if l.strip().endswith(".png")]
        print("pvpython exit %d, printed %s" % (p.returncode, paths))
        if p.returncode or len(paths) != 3:
            problems.append("the script failed or did not print 3 pictures:\n" + p.stderr[-2000:])
        names = sorted(os.path.basename(x) for x in paths)
        want = ["frame_t00000.000.png", "frame_t00002.500.png", "frame_t00005.000.png"]
        if names != want:
            problems.append("pictures %s, expected %s" % (names, want))
        for path in paths:
            data = open(path, "rb").read() if os.path.exists(path) else b""
            ok = data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
            w, h = struct.unpack(">II", data[16:24]) if ok else (0, 0)
            print("%s: %d bytes, %d x %d" % (os.path.basename(path), len(data), w, h))
            if not ok or (w, h) != (1280, 800):
                problems.append("%s: not a 1280 x 800 PNG" % path)
            elif len(data) < 20000:
                problems.append("%s: %d bytes, blank?" % (path, len(data)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for msg in problems:
        print("FAIL: " + msg)
    print("PASS" if not problems else "FAIL (%d problem(s))" % len(problems))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
