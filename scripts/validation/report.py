#!/usr/bin/env python3
"""The validation report: throng's validation suite and JuPedSim 1.4 on the same
scenarios, measured by the same code, in one command.

    .venv-validation/bin/python scripts/validation/report.py [--quick] [--no-jupedsim] [--out DIR]
                                                             [--throng build/bin/throng] [--docs DIR]

It runs, at the same time (two processes):
  * throng: tests/validation/check_validation.py THRONG all --full --json DIR/throng.json
    --keep DIR/throng-runs (with --quick: without --full, the CI sizes), log DIR/throng.log;
  * JuPedSim: scripts/validation/jupedsim_run.py (collision-free speed model, its default
    options) on the same configs/validation/*.yaml, with the same --set overrides (seeds,
    lattice sizes) and time limits, outputs in DIR/jupedsim-runs, log DIR/jupedsim.log. Its
    frames are turned into the areas.csv / lines.csv that check_validation.py reads
    (measure.area_density_speed, measure.line_crossings), and then check_validation.py's own
    case functions measure and judge them: the same areas, windows, lines and criteria.
and writes into --docs (default docs/validation/):
  fd_speed.png    speed vs density: throng, JuPedSim, Weidmann, the +-0.15 m/s band
  fd_flow.png     specific flow vs density, with Weidmann's
  bottleneck.png  flow vs door width: mean +- sd over the seeds, 1.9 b and its band, the fits
  results.md      every case: criterion, throng, pass, JuPedSim, pass, closer to the reference;
                  date, versions, machine, wall times
and prints a summary table. The exit status is 0 unless a run failed to execute (throng or
the JuPedSim runner crashed, check_validation.py could not run); failed criteria are reported,
not an error. Without JuPedSim installed (scripts/validation/setup_venv.sh) the JuPedSim
column says so; --no-jupedsim skips it. Run it with a python that has numpy and matplotlib
(the venv of setup_venv.sh has both, and JuPedSim).
"""
import argparse
import contextlib
import datetime
import io
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CHECK = os.path.join(ROOT, "tests", "validation", "check_validation.py")
RUNNER = os.path.join(HERE, "jupedsim_run.py")
INSTALL = ("JuPedSim is not installed for this python. Install it with\n"
           "    scripts/validation/setup_venv.sh        # .venv-validation/ with jupedsim 1.4, pedpy, matplotlib\n"
           "and run this report with .venv-validation/bin/python (or pass --jupedsim-python PY).")

try:
    import numpy as np
    import yaml
except ImportError as e:
    sys.exit("report.py: cannot import %s: run it with the validation venv's python "
             "(scripts/validation/setup_venv.sh, then .venv-validation/bin/python scripts/validation/report.py)" % e.name)

sys.path.insert(0, os.path.dirname(CHECK))
with contextlib.redirect_stdout(io.StringIO()):
    import check_validation as CV  # noqa: E402  (the cases, CRITERIA, SIZES; measure.py as CV.M)
M, G = CV.M, CV.G


def log(msg):
    print(msg, file=sys.__stdout__, flush=True)  # not the case tables, which go to a file


# ---- throng: check_validation.py in the background -----------------------------------

class ThrongSuite:
    def __init__(self, a):
        self.a = a
        self.json = os.path.join(a.out, "throng.json")
        self.keep = os.path.join(a.out, "throng-runs")
        self.logf = os.path.join(a.out, "throng.log")
        for p in (self.json,):
            if os.path.exists(p):
                os.remove(p)
        shutil.rmtree(self.keep, ignore_errors=True)
        os.makedirs(self.keep)
        self.cmd = [sys.executable, CHECK, a.throng, "all"] + ([] if a.quick else ["--full"]) + \
                   ["--json", self.json, "--keep", self.keep]
        self.t0 = time.time()
        self.p = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  env=dict(os.environ, PYTHONUNBUFFERED="1"), cwd=ROOT)
        self.th = threading.Thread(target=self._pump, daemon=True)
        self.th.start()
        self.rc, self.wall = None, None

    def _pump(self):
        tag = None
        with open(self.logf, "w") as fh:
            fh.write("$ " + " ".join(self.cmd) + "\n")
            for ln in self.p.stdout:
                fh.write(ln)
                fh.flush()
                if ln.startswith("$ ") and "--out" in ln:
                    w = ln.split()
                    tag = os.path.basename(w[w.index("--out") + 1])
                elif ln.startswith("  exit ") and tag:
                    log("[throng   %6.0f s] %-16s %s" % (time.time() - self.t0, tag, ln.strip()))
                    tag = None
        self.t_end = time.time()

    def wait(self):
        self.rc = self.p.wait()
        self.th.join()
        self.wall = self.t_end - self.t0
        try:
            with open(self.json) as fh:
                res = json.load(fh)
        except (OSError, ValueError):
            res = None
        return res


# ---- JuPedSim: the runner, then check_validation's cases on its outputs ------------------

class NotRun(Exception):
    """The runner refused the scenario (exit 2) or failed (exit 1)."""

    def __init__(self, why, failed):
        super().__init__(why)
        self.failed = failed


def _dt(scen):
    v = (scen.get("time") or {}).get("dt", 1 / 48)
    if isinstance(v, str) and "/" in v:
        x, y = v.split("/")
        return float(x) / float(y)
    return float(v)


def write_measurements(out, scen, frames):
    """areas.csv and lines.csv as throng writes them, from the JuPedSim frames: classic density
    and mean |v| in each area at each frame, a row per crossing of each line (cumulative)."""
    meas = scen.get("measurement") or {}
    if meas.get("areas"):
        rows = ["step,time,area,agents,density,mean_speed\n"]
        for ar in meas["areas"]:
            poly = [tuple(p) for p in ar["polygon"]]
            A = abs(M._ring_area(np.asarray(poly, float)))
            t, rho, v = M.area_density_speed(frames, poly)
            for ti, ri, vi in zip(t, rho, v):
                rows.append("%d,%.6f,%s,%d,%.9g,%s\n" % (round(ti / 0.01), ti, ar["name"], round(ri * A), ri,
                                                          "nan" if math.isnan(vi) else "%.9g" % vi))
        with open(os.path.join(out, "areas.csv"), "w") as fh:
            fh.writelines(rows)
    if meas.get("lines"):
        rows = ["step,time,line,crossings,flow\n"]
        for ln in meas["lines"]:
            for k, t in enumerate(M.line_crossings(frames, ln["segment"])):
                rows.append("%d,%.6f,%s,%d,0\n" % (round(t / 0.01), t, ln["name"], k + 1))
        with open(os.path.join(out, "lines.csv"), "w") as fh:
            fh.writelines(rows)


class JuPedSimRunner:
    """Stands in for check_validation.Runner: run(scenario, tag, *extra) runs JuPedSim on
    configs/validation/SCENARIO with the same overrides (--set K=V; --steps N becomes
    --max-time N dt) and returns an output directory that check_validation's cases can read."""

    def __init__(self, a, python):
        self.a = argparse.Namespace(full=not a.quick, keep=None, throng=a.throng)
        self.python, self.throng = python, a.throng
        self.dir = os.path.join(ROOT, "configs", "validation")
        self.runs = os.path.join(a.out, "jupedsim-runs")
        os.makedirs(self.runs, exist_ok=True)
        self.logf = open(os.path.join(a.out, "jupedsim.log"), "a")
        self.stats = []   # (tag, summary)
        self.t0 = time.time()

    def run(self, scenario, tag, *extra, watch_line=None):
        path = os.path.join(self.dir, scenario)
        with open(path) as fh:
            scen = yaml.safe_load(fh)
        dt = _dt(scen)
        args, i = [], 0
        while i < len(extra):
            if extra[i] == "--steps":
                args += ["--max-time", "%.9g" % (int(extra[i + 1]) * dt)]
            elif extra[i] == "--set":
                args += ["--set", extra[i + 1]]
            else:
                raise NotRun("throng option %s has no JuPedSim counterpart" % extra[i], False)
            i += 2
        # frames: as often as throng writes its trajectory, or its areas/lines rows (at most every 0.1 s)
        o = scen.get("output") or {}
        te, me = int(o.get("trajectory_every", 24)), int(o.get("metrics_every", 1))
        m = scen.get("measurement") or {}
        cand = ([te * dt] if te else []) + ([max(me * dt, 0.1)] if (m.get("areas") or m.get("lines")) else [])
        every = max(min(cand) if cand else 0.1, 0.01)
        out = os.path.join(self.runs, tag)
        if os.path.exists(out):
            shutil.rmtree(out)
        cmd = [self.python, RUNNER, path, "--out", out, "--throng", self.throng, "--frame-every", "%.6g" % every] + args
        t0 = time.time()
        self.logf.write("$ " + " ".join(cmd) + "\n")
        self.logf.flush()
        start = self.logf.tell()
        p = subprocess.run(cmd, stdout=self.logf, stderr=subprocess.STDOUT, cwd=ROOT)   # progress as it goes
        self.logf.flush()
        if p.returncode != 0:
            with open(self.logf.name) as fh:
                fh.seek(start)
                text = fh.read()
            last = [ln for ln in text.strip().splitlines() if ln.strip()][-1:] or ["(no output)"]
            log("[jupedsim %6.0f s] %-16s exit %d: %s" % (time.time() - self.t0, tag, p.returncode, last[0]))
            raise NotRun(last[0].replace("jupedsim_run.py: ", "").replace(ROOT + os.sep, ""), p.returncode != 2)
        s = M.summary(out)
        frames = M.load_frames(out)
        write_measurements(out, scen, frames)
        self.stats.append((tag, s))
        log("[jupedsim %6.0f s] %-16s %s: %d of %d out, %.1f s simulated, wall %.1f s" % (
            time.time() - self.t0, tag, s["stopped"], s["evacuated"], s["agents"], s["time"], time.time() - t0))
        return out


def run_jupedsim(a, python):
    """check_validation's cases on JuPedSim: {case: results} (or {"not_run": why}), failures."""
    r = JuPedSimRunner(a, python)
    res, failed = {}, []
    buf = open(os.path.join(a.out, "jupedsim-tables.txt"), "w")
    fd_one = CV.fd_one

    def fd_one_or_not(rr, rho, t_end):
        """One density the runner refuses (the lattice of 5 /m2 has touching agents, which JuPedSim
        does not place) must not take the other densities with it."""
        try:
            return fd_one(rr, rho, t_end)
        except NotRun as e:
            if e.failed:
                failed.append("JuPedSim rimea04_fd rho %g: %s" % (rho, e))
            return {"rho": rho, "density": None, "speed": None, "samples": 0, "window": [CV.CRITERIA["fd_warmup"], t_end],
                    "not_run": str(e)}
    CV.fd_one = fd_one_or_not
    for case in CV.CASES:
        name = case.__name__
        CV.problems.clear()
        CV.results.clear()
        try:
            with contextlib.redirect_stdout(buf):
                case(r)
            res[name] = dict(CV.results.get(name, {}))
            res[name]["problems"] = list(CV.problems)
        except NotRun as e:
            res[name] = {"not_run": str(e)}
            if e.failed:
                failed.append("JuPedSim %s: %s" % (name, e))
        except Exception as e:  # a measurement on a run that ended oddly: report it, go on
            res[name] = {"not_run": "measurement failed: %s: %s" % (type(e).__name__, e)}
            failed.append("JuPedSim %s: %s" % (name, e))
        buf.flush()
    buf.close()
    CV.fd_one = fd_one
    res["_runs"] = {tag: {k: s.get(k) for k in ("stopped", "agents", "evacuated", "evacuation_time", "time",
                                                "wall_time_s")} for tag, s in r.stats}
    res["_wall"] = time.time() - r.t0
    return res, failed


def find_jupedsim_python(given):
    cands = [given] if given else [sys.executable, os.path.join(ROOT, ".venv-validation", "bin", "python")]
    for py in cands:
        if not py or not os.path.exists(py):
            continue
        p = subprocess.run([py, "-c", "import jupedsim; print(jupedsim.__version__)"], capture_output=True, text=True)
        if p.returncode == 0:
            return py, p.stdout.strip()
    return None, None


# ---- the table -------------------------------------------------------------------------------

def fmt(v, d=3):
    return "n/a" if v is None or (isinstance(v, float) and math.isnan(v)) else "%.*f" % (d, v)


def verdict(res, case):
    q = (res or {}).get(case)
    if q is None:
        return None
    if "not_run" in q:
        return "not run"
    return "pass" if q.get("pass") else "FAIL"


def closer(ref, a, b):
    """Which of throng (a) and JuPedSim (b) is nearer ref."""
    if ref is None or a is None or b is None or any(isinstance(x, float) and math.isnan(x) for x in (a, b)):
        return "–"
    da, db = abs(a - ref), abs(b - ref)
    return "throng" if da < db - 1e-9 else "JuPedSim" if db < da - 1e-9 else "tie"


def bn_stats(q):
    """{width: (mean, sd, n)} of the steady flows over the seeds."""
    by = {}
    for p in q.get("points", []):
        if p.get("flow") is not None and not math.isnan(p["flow"]):
            by.setdefault(p["width"], []).append(p["flow"])
    return {w: (float(np.mean(v)), float(np.std(v, ddof=1)) if len(v) > 1 else 0.0, len(v)) for w, v in sorted(by.items())}


def rows_for(T, J, jnote):
    """[(case, criterion, reference, throng value, throng verdict, JuPedSim value, JuPedSim verdict, closer)]."""
    C = CV.CRITERIA
    rows = []

    def jv(case, text_fn):
        q = (J or {}).get(case)
        if J is None:
            return jnote, "–"
        if q is None:
            return "not run", "–"
        if "not_run" in q:
            return "not run (%s)" % q["not_run"], "–"
        return text_fn(q), ("pass" if q.get("pass") else "FAIL")

    def tv(case, text_fn):
        q = (T or {}).get(case)
        if q is None:
            return "not run", "–"
        return text_fn(q), ("pass" if q.get("pass") else "FAIL")

    def get(R, case, fn):
        q = (R or {}).get(case)
        if not q or "not_run" in q:
            return None
        try:
            return fn(q)
        except (KeyError, TypeError, ZeroDivisionError):
            return None

    # RiMEA 1
    ref = (G.R01_X1 - G.R01_X0) / G.R01_SPEED
    f1 = lambda q: "%s s" % fmt(q.get("walking_time"), 2)
    rows.append(["RiMEA 1", "40 m walk in %g–%g s" % C["rimea01_time"], "%.2f s (40 m / %g m/s)" % (ref, G.R01_SPEED),
                 *tv("rimea01", f1), *jv("rimea01", f1),
                 closer(ref, get(T, "rimea01", lambda q: q["walking_time"]), get(J, "rimea01", lambda q: q["walking_time"]))])
    # RiMEA 4, each density, then the peak
    dens = lambda R: {d["rho"]: d for d in (get(R, "rimea04_fd", lambda q: q["densities"]) or [])}
    dT, dJ = dens(T), dens(J)
    for rho in sorted(set(dT) | set(dJ)):
        judged = C["fd_rho_range"][0] <= rho <= C["fd_rho_range"][1]

        def cell(d):
            if d is None:
                return None, None
            if d.get("not_run"):
                return "not run (%s)" % d["not_run"], "–"
            if d.get("density") is None:
                return "no sample", "–"
            dv = d["speed"] - d["weidmann"]
            ok = abs(dv) <= C["fd_speed_tol"]
            return ("ρ %.2f, v %.3f (W %.3f, %+.3f)" % (d["density"], d["speed"], d["weidmann"], dv),
                    ("pass" if ok else "FAIL") if judged else "(not judged)")
        a, b = cell(dT.get(rho)), cell(dJ.get(rho))
        if a[0] is None:
            a = ("not run", "–")
        if b[0] is None:
            b = jv("rimea04_fd", lambda q: "not run")
        err = lambda d: None if not d or d.get("density") is None else d["speed"] - d["weidmann"]
        rows.append(["RiMEA 4, ρ %g" % rho, "|v − W(ρ)| ≤ %g m/s" % C["fd_speed_tol"] if judged else "(documented)",
                     "Weidmann at the measured ρ", a[0], a[1], b[0], b[1], closer(0.0, err(dT.get(rho)), err(dJ.get(rho)))])
    peak_ref = 1.225
    fp = lambda q: "%s /(m s)" % fmt(q.get("peak_flow"))
    rows.append(["RiMEA 4, peak ρv", "%g–%g /(m s)" % C["fd_peak_flow"], "%.3f /(m s) (Weidmann)" % peak_ref,
                 *tv("rimea04_fd", fp), *jv("rimea04_fd", fp),
                 closer(peak_ref, get(T, "rimea04_fd", lambda q: q["peak_flow"]), get(J, "rimea04_fd", lambda q: q["peak_flow"]))])
    # RiMEA 5
    def f5(q):
        d = [abs(x["first_move"] - x["reaction"]) for x in q.get("agents", []) if x.get("first_move") is not None]
        n = len(q.get("agents", []))
        return "%d/%d moved, max |Δ| %s s" % (len(d), n, fmt(max(d) if d else None, 2))
    rows.append(["RiMEA 5", "start within %d frames (1 s) of the reaction time" % C["rimea05_frames"], "the reaction times",
                 *tv("rimea05", f5), *jv("rimea05", f5), "–"])
    # RiMEA 6
    f6 = lambda q: "outside %d, crossings %d, overlaps %d, min clearance %s m" % (
        q["n_outside"], q["n_crossings"], q["n_overlap"], fmt(q["min_clearance"], 3))
    rows.append(["RiMEA 6", "no point in a wall (disk ≤ %g m in)" % C["wall_tol"], "–", *tv("rimea06", f6), *jv("rimea06", f6), "–"])
    # RiMEA 7
    def f7(q):
        out = []
        for name, g in q.get("groups", {}).items():
            s = g["speeds"]
            out.append("%s %.2f–%.2f" % (name, min(s), max(s)) if s else name + " none")
        return "; ".join(out)
    rows.append(["RiMEA 7", "free speeds inside the group ranges", "0.58–1.61, 1.41–1.54, 0.68–1.41, 0.46–0.76",
                 *tv("rimea07", f7), *jv("rimea07", f7), "–"])
    # RiMEA 9
    f9 = lambda q: "%s (T4 %s s, T2 %s s, %d agents)" % (fmt(q.get("ratio"), 2), fmt(q.get("t4"), 1), fmt(q.get("t2"), 1),
                                                       q.get("agents", 0))
    rows.append(["RiMEA 9", "T(2 doors)/T(4 doors) in %g–%g" % C["rimea09_ratio"], "–", *tv("rimea09", f9), *jv("rimea09", f9), "–"])
    # RiMEA 10
    f10 = lambda q: "%d/%d assigned exit, %d out" % (q["assigned"], q["agents"], q["out"])
    rows.append(["RiMEA 10", "100 % through the assigned exit", "–", *tv("rimea10", f10), *jv("rimea10", f10), "–"])
    # RiMEA 12
    f12 = lambda q: "J corr %s, J door %s /s; ρ %s / %s; %d left in" % (
        fmt(q["j_corridor"], 2), fmt(q["j_last_door"], 2), fmt(q["density_entry"], 2), fmt(q["density_exit"], 2),
        q.get("remaining", 0))
    rows.append(["RiMEA 12", "J corridor ≥ J last door − %g; ρ door ≤ %g ρ corridor" % (C["rimea12_margin"],
                                                                                     C["rimea12_density_ratio"]), "–",
                 *tv("rimea12", f12), *jv("rimea12", f12), "–"])
    # RiMEA 15
    f15 = lambda q: "short %s, corner %s, long %s s" % tuple(fmt(q["times"].get(k), 1) for k in ("short", "corner", "long"))
    rows.append(["RiMEA 15", "short ≤ corner ≤ long", "–", *tv("rimea15", f15), *jv("rimea15", f15), "–"])
    # IMO
    fi = lambda q: "%s p/s (steady %s)" % (fmt(q["mean_flow"], 2), fmt(q["steady_flow"], 2))
    rows.append(["IMO door", "mean flow ≤ %g p/s" % C["imo_flow"], "–", *tv("imo_door", fi), *jv("imo_door", fi), "–"])
    # merging flows, IMO test 8 counterflow, exit choice under congestion (issue 32)
    fm = lambda q: "after the T %s p/s, straight %s p/s (%s)" % (fmt(q["j_t"], 2), fmt(q["j_straight"], 2),
                                                               fmt(q["share"], 2))
    rows.append(["Merge (T-junction)", "flow after the merge ≥ %g × straight" % C["merge_share"], "–",
                 *tv("merge", fm), *jv("merge", fm), "–"])
    fc = lambda q: "room 1 out after %s s for 0 / 10 / 50 / 100 the other way" % " / ".join(
        fmt(q["times"].get(k), 1) for k in ("0", "10", "50", "100"))
    rows.append(["Counterflow (IMO test 8)", "everyone arrives; time grows with the counterflow", "–",
                 *tv("counterflow", fc), *jv("counterflow", fc), "–"])
    fe = lambda q: "last out %s / %s s (%s apart)" % (fmt(q["last_out"].get("west"), 1), fmt(q["last_out"].get("east"), 1),
                                                   fmt(q["gap"], 3))
    rows.append(["Exit choice", "both doors; last out within %g %%" % (100 * C["exit_balance"]), "–",
                 *tv("exit_choice", fe), *jv("exit_choice", fe), "–"])
    # bottleneck
    fb = lambda q: "slope %s /(m s), R² %s" % (fmt(q["slope"], 2), fmt(q["r2"], 3))
    rows.append(["Bottleneck fit", "slope %g–%g, R² ≥ %g" % (C["bn_slope"] + (C["bn_r2"],)), "1.9 /(m s) (Seyfried 2009)",
                 *tv("bottleneck_scan", fb), *jv("bottleneck_scan", fb),
                 closer(1.9, get(T, "bottleneck_scan", lambda q: q["slope"]), get(J, "bottleneck_scan", lambda q: q["slope"]))])
    sT = get(T, "bottleneck_scan", bn_stats) or {}
    sJ = get(J, "bottleneck_scan", bn_stats) or {}
    pT = get(T, "bottleneck_scan", lambda q: q["points"]) or []
    pJ = get(J, "bottleneck_scan", lambda q: q["points"]) or []
    for w in sorted(set(sT) | set(sJ) | {p["width"] for p in pT + pJ}):
        def c(s, pts):
            if s:
                return "J %.2f ± %.2f /s (%.2f b, n %d)" % (s[0], s[1], s[0] / w, s[2])
            pts = [p for p in pts if p["width"] == w]
            if pts:   # runs without a steady flow (fewer than 2 crossings)
                return "no flow: %s crossings of %d" % ("/".join(str(p["crossings"]) for p in pts), pts[0]["agents"])
            return None
        a = c(sT.get(w), pT) or "not run"
        b = c(sJ.get(w), pJ) or (jnote if J is None else "not run")
        rows.append(["Bottleneck b %.1f m" % w, "(in the fit)", "%.2f /s (1.9 b)" % (1.9 * w), a, "–", b, "–",
                     closer(1.9 * w, sT.get(w, (None,))[0], sJ.get(w, (None,))[0])])
    return rows


HEAD = ["case", "criterion", "reference", "throng", "", "JuPedSim", "", "closer to the reference"]


def md_table(rows):
    esc = lambda c: str(c).replace("|", "\\|")
    out = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    out += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def text_table(rows):
    cols = [0, 3, 4, 5, 6, 7]
    cells = [[HEAD[k] or ("throng?" if k == 4 else "JuPedSim?") for k in cols]] + \
            [[str(r[k]) if len(str(r[k])) <= 60 else str(r[k])[:57] + "..." for k in cols] for r in rows]
    w = [max(len(r[k]) for r in cells) for k in range(len(cols))]
    lines = [" | ".join(c.ljust(w[k]) for k, c in enumerate(r)) for r in cells]
    lines.insert(1, "-+-".join("-" * x for x in w))
    return "\n".join(lines)


# ---- figures ---------------------------------------------------------------------------------

def finish_figure(fig, ax, xlabel, ylabel, xlim, ylim, title, path, fontsize=8, loc="best"):
    """Labels, limits, grid and legend of a report figure; saves it to path and returns path."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=fontsize, loc=loc)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return path


def figures(T, J, docs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    made = []
    C = CV.CRITERIA
    rho = np.linspace(0.2, 5.4, 300)
    W = M.weidmann_speed(rho)

    def pts(R):
        d = ((R or {}).get("rimea04_fd") or {}).get("densities") or []
        d = [q for q in d if q.get("density") is not None]
        return np.array([q["density"] for q in d]), np.array([q["speed"] for q in d]), [q["rho"] for q in d]

    tx, tv_, _ = pts(T)
    jx, jv_, _ = pts(J)
    # speed
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    lo, hi = C["fd_rho_range"]
    band = (rho >= lo) & (rho <= hi)
    ax.fill_between(rho[band], W[band] - C["fd_speed_tol"], W[band] + C["fd_speed_tol"], color="0.85",
                    label="Weidmann ± %g m/s (judged at nominal %g–%g /m²)" % (C["fd_speed_tol"], lo, hi))
    ax.plot(rho, W, "k-", lw=1.5, label="Weidmann (1993)")
    if len(tx):
        ax.plot(tx, tv_, "o", color="C0", ms=7, label="throng")
    if len(jx):
        ax.plot(jx, jv_, "s", color="C1", ms=6, mfc="none", mew=1.6, label="JuPedSim 1.4 (collision-free speed)")
    made.append(finish_figure(fig, ax, "density ρ [1/m²]", "mean speed v [m/s]", (0, 5.5), (0, 1.6),
                              "Fundamental diagram: 3 m corridor, 4 m × 3 m area", os.path.join(docs, "fd_speed.png")))
    # flow
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    ax.axhspan(*C["fd_peak_flow"], color="0.9", label="peak criterion %g–%g /(m s)" % C["fd_peak_flow"])
    ax.plot(rho, rho * W, "k-", lw=1.5, label="Weidmann ρ·v(ρ)")
    if len(tx):
        ax.plot(tx, tx * tv_, "o", color="C0", ms=7, label="throng")
    if len(jx):
        ax.plot(jx, jx * jv_, "s", color="C1", ms=6, mfc="none", mew=1.6, label="JuPedSim 1.4")
    made.append(finish_figure(fig, ax, "density ρ [1/m²]", "specific flow Js = ρ v [1/(m s)]", (0, 5.5), (0, 2.0),
                              "Specific flow vs density", os.path.join(docs, "fd_flow.png")))
    # bottleneck
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    b = np.linspace(0, 2.8, 50)
    s_lo, s_hi = C["bn_slope"]
    ax.fill_between(b, s_lo * b, s_hi * b, color="0.88", label="%g–%g·b (criterion)" % (s_lo, s_hi))
    ax.plot(b, 1.9 * b, "k--", lw=1.2, label="1.9·b (Seyfried et al. 2009)")
    for R, name, mk, col in ((T, "throng", "o", "C0"), (J, "JuPedSim 1.4", "s", "C1")):
        q = (R or {}).get("bottleneck_scan")
        if not q or "not_run" in q:
            continue
        st = bn_stats(q)
        if not st:
            continue
        ws = np.array(list(st))
        m = np.array([st[w][0] for w in ws])
        sd = np.array([st[w][1] for w in ws])
        ax.errorbar(ws, m, yerr=sd, fmt=mk, color=col, mfc=col if name == "throng" else "none", ms=6, capsize=3,
                    label="%s (mean ± sd over %d seed%s)" % (name, max(v[2] for v in st.values()),
                                                           "s" if max(v[2] for v in st.values()) > 1 else ""))
        if q.get("slope") is not None and not math.isnan(q["slope"]):
            ax.plot(b, q["intercept"] + q["slope"] * b, "-", color=col, lw=1,
                    label="%s fit: %.2f + %.2f·b, R² %.3f" % (name, q["intercept"], q["slope"], q["r2"]))
    made.append(finish_figure(fig, ax, "door width b [m]", "steady flow J [1/s]", (0, 2.8), (0, 6.5),
                              "Bottleneck: 10 m × 8 m room, flow through the door",
                              os.path.join(docs, "bottleneck.png"), fontsize=7.5, loc="upper left"))
    return made


# ---- main ------------------------------------------------------------------------------------

def capture(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).stdout.strip()
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the CI sizes (check_validation.py without --full)")
    ap.add_argument("--no-jupedsim", action="store_true", help="throng only")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "validation-report"), metavar="DIR",
                    help="run outputs and logs (default out/validation-report)")
    ap.add_argument("--throng", default=os.environ.get("THRONG") or os.path.join(ROOT, "build", "bin", "throng"),
                    help="throng executable (default $THRONG, else build/bin/throng)")
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs", "validation"), metavar="DIR",
                    help="where the figures and results.md go (default docs/validation)")
    ap.add_argument("--jupedsim-from", metavar="DIR",
                    help="take JuPedSim's results from an earlier report's output folder (its jupedsim.json) instead "
                    "of running JuPedSim again: they do not depend on throng's model, only on the scenarios")
    ap.add_argument("--jupedsim-python", metavar="PY", help="python with jupedsim (default: this one, else "
                    ".venv-validation/bin/python)")
    a = ap.parse_args()
    a.out, a.docs, a.throng = os.path.abspath(a.out), os.path.abspath(a.docs), os.path.abspath(a.throng)
    if not os.access(a.throng, os.X_OK):
        sys.exit("report.py: %s: no throng executable there (build it: cmake -S . -B build -DTHRONG_CUDA=OFF && "
                 "cmake --build build -j2, or pass --throng)" % a.throng)
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.docs, exist_ok=True)
    t_start = time.time()
    started = datetime.datetime.now().astimezone()
    size = "quick (CI sizes)" if a.quick else "full"
    version = capture([a.throng, "--version"]) or "unknown"
    commit = capture(["git", "rev-parse", "--short", "HEAD"])
    dirty = capture(["git", "status", "--porcelain", "--untracked-files=no"])
    machine = "%s, %d CPUs (%s)" % (platform.machine(), os.cpu_count() or 0, platform.system())
    log("validation report, %s: %s (%s%s), outputs in %s" % (size, version, commit, "+dirty" if dirty else "", a.out))

    py, jver = (None, None)
    jnote = "not run (--no-jupedsim)"
    if a.jupedsim_from:
        pass
    elif not a.no_jupedsim:
        py, jver = find_jupedsim_python(a.jupedsim_python)
        if py is None:
            log(INSTALL)
            jnote = "not run (JuPedSim not installed)"

    suite = ThrongSuite(a)
    log("[throng] %s" % " ".join(suite.cmd))
    J, jfail, jwall = None, [], None
    if py:
        shutil.rmtree(os.path.join(a.out, "jupedsim-runs"), ignore_errors=True)
        if os.path.exists(os.path.join(a.out, "jupedsim.log")):
            os.remove(os.path.join(a.out, "jupedsim.log"))
        log("[jupedsim] JuPedSim %s with %s: collision-free speed model, default options" % (jver, py))
        J, jfail = run_jupedsim(a, py)
        jwall = J.pop("_wall")
        J["_version"], J["_wall"] = jver, jwall
        log("[jupedsim] done in %.0f s; waiting for throng" % jwall)
        with open(os.path.join(a.out, "jupedsim.json"), "w") as fh:
            json.dump(J, fh, indent=1, default=lambda o: o.item() if hasattr(o, "item") else str(o))
        J.pop("_version", None)
        J.pop("_wall", None)
    if a.jupedsim_from:
        src = os.path.join(os.path.abspath(a.jupedsim_from), "jupedsim.json")
        with open(src) as fh:
            J = json.load(fh)
        jver = "%s (the results of an earlier run, %s)" % (J.pop("_version", None) or "1.4",
                                                          os.path.relpath(os.path.dirname(src), ROOT))
        jwall = J.pop("_wall", None)
        log("[jupedsim] results taken from %s" % src)
    T = suite.wait()
    log("[throng] check_validation.py exited %d after %.0f s" % (suite.rc, suite.wall))
    failures = list(jfail)
    if suite.rc not in (0, 1) or T is None:
        failures.append("throng: check_validation.py exited %d%s (see %s)" % (
            suite.rc, "" if T is not None else " without writing its JSON", suite.logf))
    for p in (T or {}).get("problems", []):
        if "throng exited" in p:
            failures.append("throng run: " + p)
    jruns = (J or {}).pop("_runs", {}) if J else {}

    rows = rows_for(T, J, jnote)
    made = figures(T, J, a.docs)
    wall = time.time() - t_start

    # results.md
    cmd = "python scripts/validation/report.py" + (" --quick" if a.quick else "") + (" --no-jupedsim" if a.no_jupedsim else "")
    if a.jupedsim_from:
        cmd += " --jupedsim-from %s" % os.path.relpath(os.path.abspath(a.jupedsim_from), ROOT)
    notes = []
    for tag, s in sorted(jruns.items()):
        if s.get("stopped") != "all_left" and not tag.startswith(("fd-", "rimea07")):
            notes.append("- JuPedSim `%s`: stopped `%s` at t = %s s with %s of %s agents out (a freeze: nobody moved "
                         "for 60 s)" % (tag, s.get("stopped"), fmt(s.get("time"), 1), s.get("evacuated"), s.get("agents"))
                         if s.get("stopped") == "stalled" else
                         "- JuPedSim `%s`: did not drain: %s of %s agents out at the time limit, t = %s s (a jam "
                         "that the runner's freeze detector, mean speed < 0.01 m/s for 60 s, does not call a freeze)" %
                         (tag, s.get("evacuated"), s.get("agents"), fmt(s.get("time"), 1)))
    for case, q in sorted((J or {}).items()):
        if isinstance(q, dict) and "not_run" in q:
            notes.append("- JuPedSim %s: not run (%s)" % (case, q["not_run"]))
    for d in ((J or {}).get("rimea04_fd") or {}).get("densities") or []:
        if d.get("not_run"):
            notes.append("- JuPedSim RiMEA 4 at %g /m²: not run (%s)" % (d["rho"], d["not_run"]))
    for p in (T or {}).get("problems", []):
        notes.append("- throng FAIL: %s" % p)
    for case, q in sorted((J or {}).items()):
        for p in (q.get("problems") or []) if isinstance(q, dict) else []:
            notes.append("- JuPedSim FAIL: %s" % p)
    rel = lambda p: os.path.relpath(p, a.docs)
    md = ["# Validation report: throng and JuPedSim", "",
          "Generated by `%s` (scripts/validation/report.py); do not edit by hand. Criteria and scenarios: "
          "`docs/testing.md` (\"Validation tests\"), `configs/validation/README.md`; the numbers of the "
          "criteria are `CRITERIA` in `tests/validation/check_validation.py`." % cmd, "",
          "| | |", "|---|---|",
          "| date | %s |" % started.strftime("%Y-%m-%d %H:%M %Z"),
          "| sizes | %s |" % size,
          "| throng | %s, commit %s%s, `%s` |" % (version, commit or "?", " (+ local changes)" if dirty else "",
                                               os.path.relpath(a.throng, ROOT)),
          "| JuPedSim | %s |" % (("%s, collision-free speed model, default options (`jupedsim_run.py`)" % jver) if J is not None
                                 else jnote),
          "| machine | %s |" % machine,
          "| wall time | report %.0f s; throng suite %.0f s%s (concurrently, one process each) |" % (
              wall, suite.wall or 0, "; JuPedSim %.0f s" % jwall if jwall is not None else ""),
          "", "## Every case", "",
          "The JuPedSim column is measured by the throng suite's own code: its frames are turned into the "
          "`areas.csv` / `lines.csv` that `check_validation.py` reads, and its case functions judge them. "
          "*Closer to the reference*: which simulator's value lies nearer the empirical (or, for RiMEA 1, "
          "the analytic) reference; – where the criterion has no reference value.", "",
          md_table(rows), "",
          "## Figures", ""]
    for p in made:
        md.append("![%s](%s)" % (os.path.basename(p), rel(p)))
        md.append("")
    md += ["## Notes", ""] + (notes or ["- none"]) + [""]
    md += ["## Runs", "", "- throng: `%s` (log `%s`)" % (" ".join(["python"] + [os.path.relpath(x, ROOT) if x.startswith(ROOT)
                                                                            else x for x in suite.cmd[1:]]), os.path.relpath(suite.logf, ROOT)
                                                        if suite.logf.startswith(ROOT) else suite.logf)]
    if J is not None:
        md.append("- JuPedSim: `jupedsim_run.py configs/validation/CASE.yaml --out DIR [--set ...] [--max-time ...] "
                  "--frame-every S`, one per throng run; outputs in `%s`" % (
                      os.path.relpath(os.path.join(a.out, "jupedsim-runs"), ROOT) if a.out.startswith(ROOT) else
                      os.path.join(a.out, "jupedsim-runs")))
        md += ["", "| JuPedSim run | stopped | out | simulated [s] | wall [s] |", "|---|---|---|---|---|"]
        for tag, s in sorted(jruns.items()):
            md.append("| %s | %s | %s/%s | %s | %s |" % (tag, s.get("stopped"), s.get("evacuated"), s.get("agents"),
                                                      fmt(s.get("time"), 1), fmt(s.get("wall_time_s"), 1)))
    with open(os.path.join(a.docs, "results.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")

    log("\n" + text_table(rows))
    log("\nfigures: %s" % ", ".join(os.path.relpath(p, ROOT) for p in made))
    log("results: %s" % os.path.relpath(os.path.join(a.docs, "results.md"), ROOT))
    log("wall time %.0f s (throng %.0f s%s)" % (wall, suite.wall or 0, ", JuPedSim %.0f s" % jwall if jwall else ""))
    for f_ in failures:
        log("RUN FAILED: " + f_)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
