#!/usr/bin/env python3
"""The report page of a real run in a real browser (tests/report/report_tests.cmake,
unit.report.browser).

Usage: check_report_browser.py THRONG [--keep DIR]

Runs tests/data/evacuation/ranks.yaml (a 24 x 12 m hall with two exits, a
measurement area, a line and density/speed maps; 78 agents, out in about
31 s of simulated time, about 2 s of run) with a trajectory frame every
second, then `throng report OUTDIR`, and opens OUTDIR/report/index.html in
headless Chromium, served by a private HTTP server on 127.0.0.1 (this
script's own, on a free port) so that a check page of the same origin can
look into it:

  page      a check page loads index.html in an iframe, waits for every
            image, and writes what the browser saw into its DOM (read back
            with --dump-dom): the browser's document.images are as many as
            the <img> elements of index.html (at least 6 for this run),
            each has loaded (complete, naturalWidth > 0) with the size of
            its PNG file; every link to a file of the same origin (<a href>,
            <link href>) answers 200; the server answered no request of the
            page with an error; every local file that index.html names
            (src, href) exists.
  screenshot  --screenshot of index.html at 1280 px wide and the page's
            full height: a PNG of that size, not blank (at least 3 % of its
            pixels not white, at least 100 colours), and the middle of each
            image's box on the page not blank either.
  control   the same check on a copy of the output directory without the
            first image's PNG: it must report that image as not loaded, its
            404 and the missing file (the check can fail).

Exit 77 (skipped) without Chromium (Debian's package `chromium`: binary
chromium or chromium-headless-shell) or without matplotlib (python3-
matplotlib; `throng report` draws with it, and it reads the screenshot).
"""
import argparse
import html
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "data", "evacuation", "ranks.yaml")
CHECK_PATH = "/__throng_check__.html"
WIDTH = 1280
MAX_HEIGHT = 16000  # px: a longer page is shot down to here

# The check page: index.html in an iframe of the same origin; once it has
# loaded, every image is scrolled to (lazy ones load too) and waited for,
# every same-origin link is asked for with HEAD, and the result goes into
# <pre id="result"> as JSON, which --dump-dom prints.
CHECK_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>check</title></head>
<body style="margin:0">
<iframe id="page" src="%(page)s" style="width:%(width)dpx;height:900px;border:0"></iframe>
<pre id="result">pending</pre>
<script>
function settle(img) {
  if (img.complete) return Promise.resolve();
  return Promise.race([
    new Promise(function (r) { img.addEventListener('load', r); img.addEventListener('error', r); }),
    new Promise(function (r) { setTimeout(r, 8000); })]);
}
document.getElementById('page').addEventListener('load', async function () {
  var out = document.getElementById('result');
  try {
    var doc = this.contentDocument;
    var imgs = Array.prototype.slice.call(doc.images);
    for (var i = 0; i < imgs.length; i++) { imgs[i].scrollIntoView(); await settle(imgs[i]); }
    doc.defaultView.scrollTo(0, 0);
    var links = {};
    var anchors = doc.querySelectorAll('a[href], link[href]');
    for (var k = 0; k < anchors.length; k++) {
      var u = new URL(anchors[k].getAttribute('href'), doc.baseURI);
      if (u.origin !== location.origin) continue;
      u.hash = '';
      try { links[u.href] = (await fetch(u.href, {method: 'HEAD', cache: 'no-store'})).status; }
      catch (e) { links[u.href] = String(e); }
    }
    out.textContent = JSON.stringify({
      title: doc.title,
      height: doc.documentElement.scrollHeight,
      images: imgs.map(function (im) {
        var r = im.getBoundingClientRect();
        return {src: im.getAttribute('src'), url: im.src, complete: im.complete, w: im.naturalWidth,
                h: im.naturalHeight, box: [r.left, r.top + doc.defaultView.scrollY, r.width, r.height]};
      }),
      links: links});
  } catch (e) {
    out.textContent = 'error: ' + e;
  }
});
</script>
</body></html>
"""

# Reads a PNG (with the python3 that has matplotlib) and prints its size, the
# share of pixels that are not white, the number of colours, and per box
# (x, y, w, h in pixels) the number of colours in its middle half.
PNG_STATS = """
import json, sys
import numpy as np
from matplotlib import image
px = image.imread(sys.argv[1])
rgb = np.round(px[:, :, :3] * 255).astype(np.int32) if px.dtype.kind == 'f' else px[:, :, :3].astype(np.int32)
h, w = rgb.shape[:2]
flat = rgb.reshape(-1, 3)
key = (flat[:, 0] << 16) | (flat[:, 1] << 8) | flat[:, 2]
boxes = []
for x, y, bw, bh in json.loads(sys.argv[2]):
    x0, x1 = int(x + bw / 4), int(x + 3 * bw / 4)
    y0, y1 = int(y + bh / 4), int(y + 3 * bh / 4)
    part = rgb[max(y0, 0):min(y1, h), max(x0, 0):min(x1, w)].reshape(-1, 3)
    boxes.append(int(len(np.unique((part[:, 0] << 16) | (part[:, 1] << 8) | part[:, 2]))) if len(part) else 0)
print(json.dumps({"w": w, "h": h, "not_white": float((flat < 245).any(axis=1).mean()),
                  "colours": int(len(np.unique(key))), "boxes": boxes}))
"""


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def need(cond, msg):
    if not cond:
        fail(msg)


def find_chromium():
    """(path, extra arguments) of a headless Chromium, or None."""
    for name in ("chromium", "chromium-headless-shell"):
        path = shutil.which(name)
        if path:
            return path, ([] if name == "chromium-headless-shell" else ["--headless=new"])
    return None


def report_python():
    """The python3 that `throng report` would use with matplotlib, or None: it
    runs python3 from PATH, and report.py falls back on /usr/bin/python3."""
    for py in (shutil.which("python3"), "/usr/bin/python3"):
        if py and os.access(py, os.X_OK):
            if subprocess.run([py, "-c", "import matplotlib, numpy"], capture_output=True).returncode == 0:
                return py
    return None


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    need(head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", "%s is not a PNG" % path)
    return struct.unpack(">II", head[16:24])


class References(html.parser.HTMLParser):
    """The <img src> and the other src/href attributes of a page."""

    def __init__(self):
        super().__init__()
        self.images, self.others = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img":
            self.images.append(a.get("src") or "")
        for key in ("src", "href"):
            if a.get(key) and not (tag == "img" and key == "src"):
                self.others.append(a[key])


def local_file(page_dir, ref):
    """The file a reference of the page names, or None for another site, an
    anchor or a data: URL."""
    u = urllib.parse.urlsplit(ref)
    if u.scheme or u.netloc or not u.path:
        return None
    return os.path.normpath(os.path.join(page_dir, urllib.parse.unquote(u.path)))


class Server:
    """A threaded HTTP server on 127.0.0.1 for ROOT plus the check page;
    it records every request's path and status."""

    def __init__(self, root, page):
        self.log = []
        check = (CHECK_PAGE % {"page": page, "width": WIDTH}).encode()
        log = self.log

        class Handler(SimpleHTTPRequestHandler):
            def do_GET(self):
                if self.path == CHECK_PATH:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(check)))
                    self.end_headers()
                    self.wfile.write(check)
                    return
                super().do_GET()

            def log_request(self, code="-", size="-"):
                log.append((urllib.parse.unquote(self.path.split("?")[0]), int(getattr(code, "value", code))))

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=root))
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.httpd.server_address[1], path)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def chromium(browser, tmp, args, url):
    path, extra = browser
    profile = tempfile.mkdtemp(prefix="profile-", dir=tmp)
    cmd = [path] + extra + ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                            "--hide-scrollbars", "--user-data-dir=" + profile] + args + [url]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        fail("%s did not finish in 120 s" % " ".join(cmd))
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def browse(browser, tmp, outdir):
    """Open OUTDIR/report/index.html in Chromium: (what the check page saw, the
    server's log, the local files that index.html names and that are missing,
    the <img> sources of index.html)."""
    page_dir = os.path.join(outdir, "report")
    refs = References()
    with open(os.path.join(page_dir, "index.html"), encoding="utf-8") as f:
        refs.feed(f.read())
    missing = []
    for ref in refs.images + refs.others:
        path = local_file(page_dir, ref)
        if path is not None and not os.path.exists(path):
            missing.append(ref)
    server = Server(outdir, "/report/index.html")
    try:
        p = chromium(browser, tmp, ["--virtual-time-budget=30000", "--window-size=%d,1000" % (WIDTH + 40),
                                    "--dump-dom"], server.url(CHECK_PATH))
    finally:
        server.close()
    m = re.search(r'<pre id="result">(.*?)</pre>', p.stdout, re.S)
    need(p.returncode == 0 and m, "chromium --dump-dom: exit %d, no result in its output:\n%s\n%s"
         % (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    text = html.unescape(m.group(1))
    need(text.startswith("{"), "the check page did not finish: %r" % text[:500])
    return json.loads(text), server.log, missing, refs.images


def problems_of(seen, log, missing, images, page_dir):
    """What is wrong with the page as the browser saw it (a list of sentences)."""
    out = []
    if len(seen["images"]) != len(images):
        out.append("the browser has %d images, index.html has %d <img>" % (len(seen["images"]), len(images)))
    for im in seen["images"]:
        if not im["complete"] or im["w"] <= 0 or im["h"] <= 0:
            out.append("image %s did not load (naturalWidth %d)" % (im["src"], im["w"]))
            continue
        path = local_file(page_dir, im["src"])
        if path and os.path.exists(path) and tuple(png_size(path)) != (im["w"], im["h"]):
            out.append("image %s: the browser has %d x %d, the file %d x %d"
                       % ((im["src"], im["w"], im["h"]) + tuple(png_size(path))))
    for url, status in sorted(seen["links"].items()):
        if status != 200:
            out.append("link %s: %s" % (url, status))
    for path, status in log:
        if status >= 400 and path != "/favicon.ico":  # asked for by the browser, not by the page
            out.append("the server answered %d for %s" % (status, path))
    for ref in missing:
        out.append("index.html names %s, which does not exist" % ref)
    return out


def png_stats(py, path, boxes):
    p = subprocess.run([py, "-c", PNG_STATS, path, json.dumps(boxes)], capture_output=True, text=True)
    need(p.returncode == 0, "reading %s: %s" % (path, p.stderr[-2000:]))
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("throng")
    ap.add_argument("--keep", help="run in DIR and keep it (to look at the pages)")
    a = ap.parse_args()
    throng = os.path.abspath(a.throng)
    browser = find_chromium()
    if browser is None:
        print("SKIP: no chromium or chromium-headless-shell on PATH (apt-get install chromium)")
        return SKIP
    py = report_python()
    if py is None:
        print("SKIP: matplotlib is not importable (apt-get install python3-matplotlib)")
        return SKIP
    tmp = a.keep or tempfile.mkdtemp(prefix="throng-report-browser-")
    os.makedirs(tmp, exist_ok=True)
    try:
        return check(throng, browser, py, tmp)
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def check(throng, browser, py, tmp):
    out = os.path.join(tmp, "run")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([throng, "run", SCENARIO, "--out", out, "--quiet", "--set", "output.trajectory_every=48"],
                       capture_output=True, text=True, timeout=120)
    need(p.returncode == 0, "throng run: exit %d\n%s" % (p.returncode, p.stderr[-3000:]))
    p = subprocess.run([throng, "report", out], capture_output=True, text=True, timeout=240)
    need(p.returncode == 0, "throng report: exit %d\n%s%s" % (p.returncode, p.stdout[-2000:], p.stderr[-3000:]))
    page_dir = os.path.join(out, "report")

    # page: every image loaded, every link answers
    seen, log, missing, images = browse(browser, tmp, out)
    print("page %r: %d <img> in index.html, %d in the browser, %d links, %d requests, %d px high"
          % (seen["title"], len(images), len(seen["images"]), len(seen["links"]), len(log), seen["height"]))
    for im in seen["images"]:
        print("  %-16s complete=%s %d x %d" % (im["src"], im["complete"], im["w"], im["h"]))
    need(len(images) >= 6, "index.html shows only %d images (%s); this run has agents, exits, maps, an area "
         "and a line" % (len(images), images))
    new = ["density_max.png", "los.png", "time_above.png", "rset.png"]  # issue 36's maps
    need(all(any(src.endswith(n) for src in images) for n in new),
         "the page shows the peak density, level of service, time-above and RSET maps (%s)" % images)
    bad = problems_of(seen, log, missing, images, page_dir)
    need(not bad, "the page in Chromium:\n  " + "\n  ".join(bad))
    requested = {path for path, _ in log}
    for src in images:
        need("/report/" + urllib.parse.unquote(src) in requested, "the browser never asked for %s" % src)
    print("ok page: %d images loaded, %d links answer 200, no failed request" % (len(images), len(seen["links"])))

    # screenshot: the full page, not blank, the images drawn
    height = min(max(int(seen["height"]), 200), MAX_HEIGHT)
    shot = os.path.join(tmp, "page.png")
    server = Server(out, "/report/index.html")
    try:
        p = chromium(browser, tmp, ["--screenshot=" + shot, "--window-size=%d,%d" % (WIDTH, height)],
                     server.url("/report/index.html"))
    finally:
        server.close()
    need(p.returncode == 0 and os.path.exists(shot), "chromium --screenshot: exit %d, no %s\n%s"
         % (p.returncode, shot, p.stderr[-2000:]))
    boxes = [im["box"] for im in seen["images"] if im["box"][1] + im["box"][3] <= height]
    st = png_stats(py, shot, boxes)
    print("screenshot %d x %d: %.1f %% not white, %d colours; colours in the middle of each image: %s"
          % (st["w"], st["h"], 100 * st["not_white"], st["colours"], st["boxes"]))
    need((st["w"], st["h"]) == (WIDTH, height), "screenshot %d x %d, expected %d x %d"
         % (st["w"], st["h"], WIDTH, height))
    need(st["not_white"] >= 0.03 and st["colours"] >= 100, "the screenshot is blank (%.2f %% not white, %d colours)"
         % (100 * st["not_white"], st["colours"]))
    need(len(boxes) >= min(len(images), 3), "only %d images lie within the screenshot" % len(boxes))
    need(all(n >= 3 for n in st["boxes"]), "an image's box is blank in the screenshot: %s" % st["boxes"])
    print("ok screenshot: %d x %d, %d images drawn" % (st["w"], st["h"], len(boxes)))

    # control: without one PNG the check must say so
    broken = os.path.join(tmp, "broken")
    shutil.rmtree(broken, ignore_errors=True)
    shutil.copytree(out, broken, ignore=shutil.ignore_patterns("trajectory.h5", "trajectory.xdmf"))
    gone = images[0]
    os.remove(local_file(os.path.join(broken, "report"), gone))
    seen, log, missing, imgs = browse(browser, tmp, broken)
    bad = problems_of(seen, log, missing, imgs, os.path.join(broken, "report"))
    print("control without %s: %s" % (gone, bad))
    need(any(s.startswith("image %s did not load" % gone) for s in bad), "the check missed the image %s that "
         "did not load" % gone)
    need(any(s.startswith("the server answered 404") and s.endswith(gone) for s in bad),
         "the check missed the 404 for %s" % gone)
    need(any(s.startswith("index.html names %s" % gone) for s in bad), "the check missed the missing file %s" % gone)
    need(not any(s.startswith("image ") and gone not in s for s in bad), "the control flags other images: %s" % bad)
    print("ok control: the check reports the missing %s" % gone)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
