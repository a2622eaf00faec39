#!/usr/bin/env python3
"""scripts/paraview_frames.py (pvpython) on short runs (issue 20; pictures that
follow the scene, a region, the time).

Usage: check_paraview_frames.py THRONG SOURCE_DIR

frames    configs/paper/bottleneck-480.yaml for 240 steps with a frame every
          24, then the script under xvfb-run for 3 pictures: it exits 0,
          prints 3 PNG paths named after the first, middle and last frame's
          time (0, 2.5 and 5 s), PNGs of 1280 x 640 pixels (the geometry,
          80 x 30.6 m, gives the canvas's shape: the longer side 1280, the
          other from the bounds plus the margin and the bands of the time
          and the colour bar; docs/user-guide.md), not blank, and the room's
          west wall is drawn where that layout puts x = 0 (the script's
          camera is the one used, not ParaView's reset).
time      the same pictures with --no-time: white in the label's corner
          (upper left, above the scene), which has dark pixels in every
          picture with the label; elsewhere the two are the same; the
          corners of t = 0.0, 2.5 and 5.0 s differ from each other.
aspect    tests/data/catalyst/corridor.yaml (60 x 4 m): pictures of
          1280 x 246, more than 5 times as wide as high; its walls at the
          rows and every agent of the first frame at the pixel that the
          layout gives.
region    --region 0 0 10 4 on the corridor: 1280 x 662, the part left for
          the scene has the region's shape (10 : 4 within 1 %), the agents'
          discs at the region's larger scale (their centres coloured, the
          points between them white); --region 0 0 2 4 (taller than wide):
          1280 high, narrower, the colour bar's band on the right; a region
          with X1 < X0: exit 2 naming --region.
size      --size 1280 800: a fixed canvas of exactly that size.

Exit 77 (skipped) without pvpython, xvfb-run or an HDF5 build (no
trajectory.xdmf). PNGs are read with the standard library.
"""
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77

# the canvas of scripts/paraview_frames.py and configs/catalyst/render_*.py (pixels)
from picture_layout import BAR_BAND, LABEL_BAND, MARGIN, MIN_SIDE, canvas  # noqa: E402,F401


def read_png(path):
    """(width, height, rows): each row's RGB bytes, top to bottom, of an 8-bit
    RGB or RGBA PNG without interlacing (what ParaView writes)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("%s: not a PNG" % path)
    pos, idat, head = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
        elif kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + n])
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("%s: a PNG of a kind this reader does not know %s" % (path, head))
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), w * bpp
    prev, rows = bytearray(stride), []
    for r in range(h):
        f = raw[r * (stride + 1)]
        line = bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif f == 4:
            for i in range(stride):
                a, b, c = (line[i - bpp] if i >= bpp else 0), prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    if bpp == 4:
        rows = [bytes(b for i, b in enumerate(row) if i % 4 != 3) for row in rows]
    return w, h, rows


def pixel(img, c, r):
    w, h, rows = img
    c, r = min(max(int(c), 0), w - 1), min(max(int(r), 0), h - 1)
    return tuple(rows[r][3 * c:3 * c + 3])


def white(rgb):
    return min(rgb) >= 245


def dark(rgb):
    return max(rgb) < 100


def near(img, c, r, test, d=1):
    """TEST holds at a pixel within D of (c, r)."""
    return any(test(pixel(img, c + i, r + j)) for i in range(-d, d + 1) for j in range(-d, d + 1))


def crop(img, c0, r0, c1, r1):
    return b"".join(row[3 * c0:3 * c1] for row in img[2][r0:r1])


class Check:
    def __init__(self, throng, src, tmp):
        self.throng, self.src, self.tmp = throng, src, tmp
        self.problems = []

    def need(self, cond, msg):
        if not cond:
            self.problems.append(msg)
            print("  problem: " + msg)
        return cond

    def run(self, scenario, name, extra=()):
        out = os.path.join(self.tmp, name)
        p = subprocess.run([self.throng, "run", os.path.join(self.src, scenario), "--out", out, "--quiet"]
                           + list(extra), capture_output=True, text=True, timeout=300)
        if p.returncode:
            print("FAIL: throng run %s: exit %d %s" % (scenario, p.returncode, p.stderr))
            sys.exit(1)
        if not os.path.exists(os.path.join(out, "trajectory.xdmf")):
            print("SKIP: no trajectory.xdmf (a build without HDF5)")
            sys.exit(SKIP)
        return out

    def frames(self, outdir, args, expect_rc=0):
        """paraview_frames.py OUTDIR ARGS under xvfb-run: the printed paths (and stderr)."""
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24 -noreset", "pvpython",
                            os.path.join(self.src, "scripts/paraview_frames.py"), outdir] + list(args),
                           capture_output=True, text=True, timeout=600, env=env)
        paths = [l.strip() for l in p.stdout.splitlines() if l.strip().endswith(".png")]
        print("paraview_frames.py %s: exit %d, printed %s" % (" ".join(args), p.returncode,
                                                              [os.path.basename(x) for x in paths]))
        self.need(p.returncode == expect_rc, "paraview_frames.py %s: exit %d, expected %d:\n%s"
                  % (" ".join(args), p.returncode, expect_rc, p.stderr[-2000:]))
        return paths, p.stderr

    def pictures(self, paths, size, names=None):
        """Every path a PNG of SIZE, not blank; the pictures, read."""
        imgs = []
        if names is not None:
            got = sorted(os.path.basename(x) for x in paths)
            self.need(got == names, "pictures %s, expected %s" % (got, names))
        for path in paths:
            data = open(path, "rb").read() if os.path.exists(path) else b""
            ok = data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
            w, h = struct.unpack(">II", data[16:24]) if ok else (0, 0)
            print("  %s: %d bytes, %d x %d" % (os.path.basename(path), len(data), w, h))
            if self.need(ok and (w, h) == tuple(size), "%s: %d x %d, expected a PNG of %d x %d"
                         % ((path, w, h) + tuple(size))):
                img = read_png(path)
                coloured = sum(1 for row in img[2] for k in range(0, len(row), 3 * 7) if min(row[k:k + 3]) < 245)
                self.need(coloured > 200, "%s: blank (%d coloured samples)" % (path, coloured))
                imgs.append(img)
        return imgs

    # ---- the cases ----------------------------------------------------------------------------

    def case_frames_and_time(self):
        out = self.run("configs/paper/bottleneck-480.yaml", "bottleneck",
                       ["--steps", "240", "--set", "output.trajectory_every=24"])
        box = (0.0, 80.0, -15.3, 15.3)  # geometry.vtp: the room and corridor, the goal disc to x = 80
        size, to_px, ppm = canvas(box)
        print("frames: geometry %s m -> %d x %d, %.2f px/m" % (box, size[0], size[1], ppm))
        self.need(size == (1280, 640), "the layout of the test gives %s for bottleneck-480" % (size,))
        names = ["frame_t00000.000.png", "frame_t00002.500.png", "frame_t00005.000.png"]
        paths, _ = self.frames(out, ["--frames", "3"])
        with_label = self.pictures(paths, size, names)
        for img, path in zip(with_label, paths):
            c = to_px(0.0, 0.0)[0]
            rows = [to_px(0.0, y)[1] for y in (-12, -6, 6, 12)]
            hits = sum(near(img, c, r, dark, 2) for r in rows)
            self.need(hits == len(rows), "%s: the west wall (x = 0) is not at column %.0f (%d of %d rows)"
                      % (os.path.basename(path), c, hits, len(rows)))

        # the time label: compare with pictures without it
        paths_plain, _ = self.frames(out, ["--frames", "3", "--no-time", "--out", os.path.join(self.tmp, "plain")])
        plain = self.pictures(paths_plain, size, names)
        corner = (0, 0, 240, LABEL_BAND)  # columns 0-240, rows 0-40: above the scene's margin
        crops = []
        for a, b, name in zip(with_label, plain, names):
            ca, cb = crop(a, *corner), crop(b, *corner)
            dark_a = sum(1 for k in range(0, len(ca), 3) if max(ca[k:k + 3]) < 100)
            dark_b = sum(1 for k in range(0, len(cb), 3) if max(cb[k:k + 3]) < 100)
            print("  %s: %d dark pixels in the label's corner, %d without the label" % (name, dark_a, dark_b))
            self.need(dark_a >= 40 and dark_b == 0, "%s: %d dark pixels in the corner with the label, %d without"
                      % (name, dark_a, dark_b))
            rest_a = [row[3 * corner[2]:] if r < corner[3] else row for r, row in enumerate(a[2])]
            rest_b = [row[3 * corner[2]:] if r < corner[3] else row for r, row in enumerate(b[2])]
            self.need(rest_a == rest_b, "%s: the pictures with and without the label differ outside its corner"
                      % name)
            crops.append(ca)
        self.need(len(set(crops)) == len(crops) == 3, "the labels of t = 0.0, 2.5 and 5.0 s are not all different")

    def case_aspect_and_region(self):
        out = self.run("tests/data/catalyst/corridor.yaml", "corridor")
        agents = [(x, 0.6 + k * 2.8 / 3) for x in range(1, 11) for k in range(4)]  # the grid, at t = 0
        box = (0.0, 60.0, 0.0, 4.0)
        size, to_px, ppm = canvas(box)
        print("aspect: corridor %s m -> %d x %d" % (box, size[0], size[1]))
        self.need(size == (1280, 246), "the layout of the test gives %s for the corridor" % (size,))
        paths, _ = self.frames(out, ["--frames", "2"])
        imgs = self.pictures(paths, size)
        self.need(size[0] > 5 * size[1], "the corridor's picture is not wide: %s" % (size,))
        if imgs:
            img = imgs[0]  # t = 0
            for y in (0.0, 4.0):
                c, r = to_px(45.0, y)
                self.need(near(img, c, r, dark, 2), "the corridor's wall y = %g is not at row %.0f" % (y, r))
            c, r = to_px(45.0, 2.0)
            self.need(white(pixel(img, c, r)), "the middle of the empty corridor is not white")
            hit = sum(near(img, *to_px(x, y), test=lambda p: not white(p)) for x, y in agents)
            self.need(hit == len(agents), "only %d of %d agents drawn where they are" % (hit, len(agents)))
        whole = imgs[0] if imgs else None

        # a region: the canvas takes its shape, the scale grows
        region = (0.0, 10.0, 0.0, 4.0)
        size, to_px, ppm = canvas(region)
        print("region 0 0 10 4 -> %d x %d, %.1f px/m" % (size[0], size[1], ppm))
        self.need(size == (1280, 662), "the layout of the test gives %s for the region" % (size,))
        paths, _ = self.frames(out, ["--frames", "2", "--region", "0", "0", "10", "4",
                                     "--out", os.path.join(self.tmp, "region")])
        imgs = self.pictures(paths, size)
        scene = (size[0] - 2 * MARGIN) / (size[1] - 2 * MARGIN - LABEL_BAND - BAR_BAND)
        self.need(abs(scene / 2.5 - 1) < 0.01, "the scene's part of the region's picture is %.3f : 1, the "
                  "region 2.5 : 1" % scene)
        if imgs:
            img = imgs[0]
            hit = sum(not white(pixel(img, *to_px(x, y))) for x, y in agents)
            self.need(hit == len(agents), "region: only %d of %d agents' centres coloured" % (hit, len(agents)))
            gaps = [(x + 0.5, y) for x, y in agents if x < 10]  # 0.5 m from two agents of radius 0.2
            clear = sum(white(pixel(img, *to_px(x, y))) for x, y in gaps)
            self.need(clear == len(gaps), "region: %d of %d points between the agents are not white"
                      % (len(gaps) - clear, len(gaps)))
            if whole is not None:
                def coloured(im):
                    return sum(1 for row in im[2] for k in range(0, len(row), 3) if min(row[k:k + 3]) < 245)
                cw, cr = coloured(whole), coloured(img)
                print("  coloured pixels: %d in the whole corridor, %d in the region" % (cw, cr))
                self.need(cr > 3 * cw, "the region's picture does not zoom in (%d coloured pixels, %d in the "
                          "whole corridor's)" % (cr, cw))

        size, _, _ = canvas((0.0, 2.0, 0.0, 4.0))
        self.need(size[1] == 1280 and size[0] < 1280, "the layout of the test gives %s for a tall region" % (size,))
        paths, _ = self.frames(out, ["--frames", "1", "--region", "0", "0", "2", "4",
                                     "--out", os.path.join(self.tmp, "tall")])
        self.pictures(paths, size)
        paths, err = self.frames(out, ["--region", "5", "0", "1", "4", "--out", os.path.join(self.tmp, "bad")],
                                 expect_rc=2)
        self.need(not paths and "--region" in err, "a region with X1 < X0: pictures %s, message %r"
                  % (paths, err[-500:]))

    def case_size(self):
        out = os.path.join(self.tmp, "corridor")
        paths, _ = self.frames(out, ["--frames", "1", "--size", "1280", "800",
                                     "--out", os.path.join(self.tmp, "fixed")])
        self.pictures(paths, (1280, 800))


def main():
    throng, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    for tool in ("pvpython", "xvfb-run"):
        if not shutil.which(tool):
            print("SKIP: %s not installed (apt-get install paraview xvfb xauth)" % tool)
            return SKIP
    tmp = tempfile.mkdtemp(prefix="throng-pvframes-")
    try:
        c = Check(throng, src, tmp)
        c.case_frames_and_time()
        c.case_aspect_and_region()
        c.case_size()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for msg in c.problems:
        print("FAIL: " + msg)
    print("PASS" if not c.problems else "FAIL (%d problem(s))" % len(c.problems))
    return 0 if not c.problems else 1


if __name__ == "__main__":
    sys.exit(main())
