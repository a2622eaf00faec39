#!/usr/bin/env python3
"""3D agents with separation-plane avoidance (label `3d`; seed paper 003,
docs/3d.md). Each case runs throng and prints what it measured; exit 0 when
every check holds, 1 otherwise, 77 when it cannot run (no mpiexec, no GPU).

Usage: check_3d.py THRONG CASE --scenario FILE [options]

Cases:
  pair     --plane horizontal|vertical: two drones head-on, paths 0.05 m apart,
           climbing from 2 m to 8 m (configs/3d/pair-head-on.yaml), a CSV frame
           every step. Horizontal: their altitudes equal at every frame (the
           response has no vertical part) and where they cross (smallest |dx|)
           |dy| >= 2 r 1.05 - 0.025 m (the altitudes equal within 1e-5 m: the
           climbs to the mirrored goals round differently). Vertical: |dz| >= 2 r 1.05 - 0.025 m there
           and |dy| stays below 0.1 m. Both: the smallest centre distance over all
           frames >= 0.95 (r_i + r_j), both at their goals at the end.
  auto     --scenario auto-flanked.yaml --pair pair-head-on.yaml: plane auto; a
           pair in a corridor of hovering drones passes over and under (|dz| >=
           1.0 m where they cross) and pushes no flanker sideways (|dy|) by
           0.01 m, while with plane horizontal it passes sideways (dz = 0) and
           pushes the flankers sideways by more than 0.1 m; the lone pair of pair-head-on.yaml with auto ends byte for
           byte as with horizontal (no crowd around it: both prefer horizontal).
  swarm    --plane horizontal|vertical|auto: two swarms of 48 cross
           (configs/3d/swarm-crossing.yaml), metrics every step: the largest
           overlap below 5 % of a radius at every step, all 96 at their goals at
           the end. Horizontal: every drone's altitude exactly its start altitude
           in every frame; vertical: some drone leaves its layer by more than
           0.5 m while crossing.
  rvo3d_pair   the head-on pair with 3D ORCA (configs/3d/pair-head-on-rvo3d.yaml,
           model.kind rvo3d), a CSV frame every step: the smallest centre
           distance over all frames >= r_i + r_j - 1e-4 m, both at their goals at
           the end, and every step's displacement is dt times the velocity stored
           after it: |(x_n+1 - x_n)/dt - v_n+1| <= 1e-5 m/s in x, y and z.
  rvo3d_swarm  the swarms with 3D ORCA (configs/3d/swarm-crossing-rvo3d.yaml),
           metrics and a CSV frame every step: the largest overlap below 5 % of a
           radius at every step, all 96 at their goals at the end, the same
           displacement check for every drone and step.
  outputs  the swarms (plane vertical, 900 steps) with an HDF5 and a CSV trajectory
           (a frame every 8 steps, and the last step: /final): the CSV files have z and vz columns, run.json
           says dimensions 3 and world_z; trajectory.h5's /trajectory z, /points z
           and /velocity z equal the CSV run's z and vz at float precision frame
           by frame, and the altitudes vary (vertical avoidance); trajectory.xdmf
           gives ParaView XYZ points; /final/points z = the CSV run's last file's
           z; --final-state has id,x,y,z,vx,vy,vz.
           Skipped without h5py or an HDF5 build.
  ranks    --ranks 1,2,3,4 [--set K=V]: --final-state byte-identical on every
           rank count (mpiexec for more than one).
  cpu_vs_cuda [--set K=V]: --final-state byte-identical on the CPU and CUDA
           backends; skipped without a GPU or in a build without
           THRONG_STRICT_FP.
"""
import argparse
import csv
import glob
import math
import os
import re
import shlex
import subprocess
import sys
import tempfile

SKIP = 77
problems = []


class Skip(Exception):
    pass


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        problems.append(what)


def run(args, ranks=1, backend=None):
    cmd = [A.throng, "run", A.scenario, "--quiet"] + args
    for s in A.set:
        cmd += ["--set", s]
    if backend:
        cmd += ["--backend", backend]
    if ranks > 1:
        if not A.mpiexec:
            raise Skip("no mpiexec for %d ranks" % ranks)
        cmd = [A.mpiexec, A.np_flag, str(ranks)] + shlex.split(A.mpi_flags) + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
    check(p.returncode == 0, "%s exits 0" % " ".join(os.path.basename(c) for c in cmd[:3] + args[:6]))
    return p


def frames(out):
    """[(step, {id: row})] of a CSV trajectory, in step order."""
    res = []
    for f in sorted(glob.glob(os.path.join(out, "trajectory", "trajectory.*.csv"))):
        step = int(re.search(r"\.(\d+)\.csv$", f).group(1))
        with open(f) as fh:
            res.append((step, {int(r["id"]): {k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)}))
    return res


def metrics(out):
    with open(os.path.join(out, "metrics.csv")) as fh:
        return list(csv.DictReader(fh))


def pair_frames(out):
    """(step, dx, dy, dz, distance, a, b) of agents 0 and 1 at every frame."""
    res = []
    for step, ag in frames(out):
        a, b = ag[0], ag[1]
        d = [b[k] - a[k] for k in ("x", "y", "z")]
        res.append((step, d[0], d[1], d[2], math.sqrt(sum(v * v for v in d)), a, b))
    return res


def crossing(pf):
    return min(pf, key=lambda f: abs(f[1]))


# ---- cases ----------------------------------------------------------------------------------

def case_pair():
    out = os.path.join(A.tmp, "pair")
    run(["--out", out, "--set", "avoidance.plane=" + A.plane, "--set", "output.trajectory_format=csv",
         "--set", "output.trajectory_every=1", "--set", "output.metrics_every=1"])
    pf = pair_frames(out)
    step, dx, dy, dz, d, a, b = crossing(pf)
    contact = (a["radius"] + b["radius"]) * 1.05
    print("crossing at step %d: dx %.3f dy %.3f dz %.3f (z %.3f, %.3f)" % (step, dx, dy, dz, a["z"], b["z"]))
    dmin = min(f[4] for f in pf)
    check(dmin >= 0.95 * (a["radius"] + b["radius"]), "smallest centre distance %.4f m >= 0.95 (r_i + r_j)" % dmin)
    if A.plane == "horizontal":
        dzmax = max(abs(f[3]) for f in pf)
        check(dzmax <= 1e-5, "horizontal: the two altitudes equal within 1e-5 m at every frame (%d frames; largest "
              "%.2g m: the climb to the two mirrored goals rounds differently)" % (len(pf), dzmax))
        check(abs(dy) >= contact - 0.025, "horizontal: |dy| %.3f >= %.3f where they cross" % (abs(dy), contact - 0.025))
    else:
        check(abs(dz) >= contact - 0.025, "vertical: |dz| %.3f >= %.3f where they cross" % (abs(dz), contact - 0.025))
        ymax = max(abs(f[2]) for f in pf)
        check(ymax < 0.1, "vertical: |dy| stays below 0.1 m (largest %.4f)" % ymax)
    m = metrics(out)
    check(int(m[-1]["at_goal"]) == 2, "both at their goals at the end (%s)" % m[-1]["at_goal"])


def case_auto():
    got = {}
    for plane in ("auto", "horizontal"):
        out = os.path.join(A.tmp, "auto-" + plane)
        run(["--out", out, "--set", "avoidance.plane=" + plane, "--set", "output.trajectory_format=csv",
             "--set", "output.trajectory_every=2"])
        fr = frames(out)
        first = fr[0][1]
        flank = [i for i in first if i > 1]
        # sideways: XSPH drags the flankers along x alike in both modes
        shift = max(abs(ag[i]["y"] - first[i]["y"]) for _, ag in fr for i in flank)
        step, dx, dy, dz, d, a, b = crossing(pair_frames(out))
        print("%s: crossing at step %d: dx %.3f dy %.3f dz %.3f; largest flanker shift %.4f m"
              % (plane, step, dx, dy, dz, shift))
        got[plane] = (dz, shift, int(metrics(out)[-1]["at_goal"]))
    check(abs(got["auto"][0]) >= 1.0, "auto: the pair passes over and under (|dz| %.3f >= 1.0)" % abs(got["auto"][0]))
    check(got["auto"][1] < 0.01, "auto: no flanker is pushed sideways by 0.01 m (%.4f)" % got["auto"][1])
    check(got["horizontal"][0] == 0.0, "horizontal: the pair stays level (dz %.3f)" % got["horizontal"][0])
    check(got["horizontal"][1] > 0.1, "horizontal: the pair pushes the flankers sideways (%.3f m > 0.1)"
          % got["horizontal"][1])
    check(got["auto"][2] == 2 and got["horizontal"][2] == 2,
          "the pair at its goals at the end (auto %d, horizontal %d)" % (got["auto"][2], got["horizontal"][2]))
    # a lone pair: both prefer horizontal
    scenario, A.scenario = A.scenario, A.pair
    finals = {}
    for plane in ("auto", "horizontal"):
        finals[plane] = os.path.join(A.tmp, "lone-%s.csv" % plane)
        run(["--no-output", "--set", "avoidance.plane=" + plane, "--final-state", finals[plane]])
    A.scenario = scenario
    same = open(finals["auto"], "rb").read() == open(finals["horizontal"], "rb").read()
    check(same, "a lone pair with auto ends byte for byte as with horizontal")


def case_swarm():
    out = os.path.join(A.tmp, "swarm")
    run(["--out", out, "--set", "avoidance.plane=" + A.plane, "--set", "output.trajectory_format=csv",
         "--set", "output.metrics_every=1"])
    m = metrics(out)
    worst = max(float(r["max_overlap_ratio"]) for r in m)
    check(worst < 0.05, "largest overlap %.4f of a radius at any step (< 0.05)" % worst)
    check(int(m[-1]["at_goal"]) == 96, "all 96 at their goals at the end (%s)" % m[-1]["at_goal"])
    fr = frames(out)
    z0 = {i: r["z"] for i, r in fr[0][1].items()}
    leave = max(abs(r["z"] - z0[i]) for _, ag in fr for i, r in ag.items())
    print("largest change of altitude: %.4f m over %d frames" % (leave, len(fr)))
    if A.plane == "horizontal":
        check(leave == 0.0, "horizontal: every drone keeps its start altitude exactly")
    elif A.plane == "vertical":
        check(leave > 0.5, "vertical: drones leave their layers while crossing (%.3f m > 0.5)" % leave)


def displacement_error(fr, dt):
    """The largest |(x_n+1 - x_n)/dt - v_n+1| over consecutive frames one
    step apart, every agent and axis."""
    worst = 0.0
    for (s0, a0), (s1, a1) in zip(fr, fr[1:]):
        if s1 != s0 + 1:
            continue
        for i, r in a1.items():
            if i in a0:
                for k, vk in (("x", "vx"), ("y", "vy"), ("z", "vz")):
                    worst = max(worst, abs((r[k] - a0[i][k]) / dt - r[vk]))
    return worst


def check_displacement(fr):
    worst = displacement_error(fr, 1.0 / 48.0)
    check(worst <= 1e-5, "every step's displacement = dt x the stored velocity within 1e-5 m/s (largest %.3g, "
          "%d frames)" % (worst, len(fr)))


def case_rvo3d_pair():
    out = os.path.join(A.tmp, "rvo3d-pair")
    run(["--out", out, "--set", "output.trajectory_format=csv", "--set", "output.trajectory_every=1",
         "--set", "output.metrics_every=1"])
    pf = pair_frames(out)
    step, dx, dy, dz, d, a, b = crossing(pf)
    print("crossing at step %d: dx %.3f dy %.3f dz %.3f (z %.3f, %.3f)" % (step, dx, dy, dz, a["z"], b["z"]))
    dmin = min(f[4] for f in pf)
    rr = a["radius"] + b["radius"]
    check(dmin >= rr - 1e-4, "smallest centre distance %.5f m >= r_i + r_j - 1e-4 (%.4f)" % (dmin, rr - 1e-4))
    m = metrics(out)
    arrive = next((float(r["time"]) for r in m if int(r["at_goal"]) == 2), None)
    check(int(m[-1]["at_goal"]) == 2, "both at their goals at the end (%s; both from t = %s s)"
          % (m[-1]["at_goal"], arrive))
    check_displacement(frames(out))


def case_rvo3d_swarm():
    out = os.path.join(A.tmp, "rvo3d-swarm")
    run(["--out", out, "--set", "output.trajectory_format=csv", "--set", "output.trajectory_every=1",
         "--set", "output.metrics_every=1"])
    m = metrics(out)
    worst = max(float(r["max_overlap_ratio"]) for r in m)
    check(worst < 0.05, "largest overlap %.4f of a radius at any step (< 0.05)" % worst)
    arrive = next((float(r["time"]) for r in m if int(r["at_goal"]) == 96), None)
    check(int(m[-1]["at_goal"]) == 96, "all 96 at their goals at the end (%s; all from t = %s s)"
          % (m[-1]["at_goal"], arrive))
    print("steps with a fallback (LP4): %d" % sum(1 for r in m if int(r["lp_fallbacks"]) > 0))
    check_displacement(frames(out))


def case_outputs():
    import json
    import xml.etree.ElementTree as ET
    try:
        import h5py
        import numpy as np
    except ImportError:
        raise Skip("no h5py/numpy")
    info = subprocess.run([A.throng, "info"], capture_output=True, text=True).stdout
    if not re.search(r"HDF5\s+ON", info):
        raise Skip("a build without HDF5")
    outs = {}
    for fmt in ("hdf5", "csv"):
        outs[fmt] = os.path.join(A.tmp, fmt)
        extra = ["--final-state", os.path.join(A.tmp, "final.csv")] if fmt == "csv" else []
        run(["--out", outs[fmt], "--steps", "900", "--set", "avoidance.plane=vertical", "--set",
             "output.trajectory_format=" + fmt, "--set", "output.trajectory_every=8"] + extra)
    if problems:
        return
    with open(os.path.join(A.tmp, "final.csv")) as fh:
        check(fh.readline().strip() == "id,x,y,z,vx,vy,vz", "--final-state header id,x,y,z,vx,vy,vz")
    rj = json.load(open(os.path.join(outs["hdf5"], "run.json")))
    check(rj.get("dimensions") == 3 and rj.get("world_z") == {"min": 0, "max": 40},
          "run.json: dimensions 3, world_z {min 0, max 40} (%s, %s)" % (rj.get("dimensions"), rj.get("world_z")))
    fr = frames(outs["csv"])
    check(fr and all("z" in r and "vz" in r for _, ag in fr[:1] for r in ag.values()), "the CSV frames have z and vz")
    f = h5py.File(os.path.join(outs["hdf5"], "trajectory.h5"), "r")
    rows, table = f["trajectory"][:], f["frames"][:]
    pts, vel = f["points"][:], f["velocity"][:]
    bad = []
    zs = []
    last = fr.pop() if fr and fr[-1][0] % 8 else None  # step 900: /final
    for (step, ag), r in zip(fr, table):
        a, b = int(r["first_row"]), int(r["first_row"] + r["rows"])
        if int(r["step"]) != step or b - a != len(ag):
            bad.append("frame of step %d" % step)
            continue
        order = np.argsort(rows["id"][a:b], kind="stable")
        ids = rows["id"][a:b][order]
        cz = np.array([ag[int(i)]["z"] for i in ids])
        cvz = np.array([ag[int(i)]["vz"] for i in ids])
        zs.extend(cz.tolist())
        if not np.allclose(rows["z"][a:b][order].astype(np.float32), cz, rtol=2e-7, atol=1e-7):
            bad.append("step %d: /trajectory z" % step)
        if not np.array_equal(pts[a:b, 2][order], rows["z"][a:b][order].astype(np.float32)):
            bad.append("step %d: /points z" % step)
        if not np.allclose(vel[a:b, 2][order], cvz, rtol=2e-7, atol=1e-7):
            bad.append("step %d: /velocity z" % step)
    check(len(table) == len(fr) and not bad, "/trajectory z, /points z, /velocity z = the CSV run's z, vz in all %d "
          "frames%s" % (len(table), "" if not bad else ": " + ", ".join(bad[:5])))
    check(max(zs) - min(zs) > 4.5, "altitudes span %.2f m (layers 8-12 m, leaving them while crossing)"
          % (max(zs) - min(zs)))
    fz = f["final/points"][:, 2][np.argsort(f["final/id"][:], kind="stable")] if "final" in f else None
    check(last is not None and fz is not None and
          np.allclose(fz, [last[1][i]["z"] for i in sorted(last[1])], rtol=2e-7, atol=1e-7),
          "/final (step %s): z = the CSV run's last file" % (last[0] if last else "-"))
    grid = ET.parse(os.path.join(outs["hdf5"], "trajectory.xdmf")).getroot().find("Domain/Grid/Grid")
    geo = grid.find("Geometry") if grid is not None else None
    check(geo is not None and geo.get("GeometryType") == "XYZ", "trajectory.xdmf: XYZ points")


def case_ranks():
    finals = []
    for n in [int(k) for k in A.ranks.split(",")]:
        f = os.path.join(A.tmp, "final-%d.csv" % n)
        run(["--no-output", "--final-state", f], ranks=n)
        finals.append((n, open(f, "rb").read() if os.path.exists(f) else b""))
    base = finals[0][1]
    check(base.count(b"\n") > 2 and base.startswith(b"id,x,y,z,vx,vy,vz"), "a 3D final state (id,x,y,z,vx,vy,vz)")
    for n, data in finals[1:]:
        check(data == base, "%d ranks: final state byte-identical to %d rank(s)" % (n, finals[0][0]))


def case_cpu_vs_cuda():
    text = subprocess.run([A.throng, "info"], capture_output=True, text=True).stdout
    mm = re.search(r"cuda\s+built; (\d+) GPU", text)
    if not mm or int(mm.group(1)) == 0:
        raise Skip("no CUDA backend in this build or no GPU visible")
    if not re.search(r"THRONG_STRICT_FP\)?:\s*ON", text):
        raise Skip("byte identity needs a THRONG_STRICT_FP=ON build")
    got = {}
    for backend in ("cpu", "cuda"):
        f = os.path.join(A.tmp, "final-%s.csv" % backend)
        run(["--no-output", "--final-state", f], backend=backend)
        got[backend] = open(f, "rb").read() if os.path.exists(f) else b""
    check(got["cpu"] == got["cuda"] and got["cpu"].count(b"\n") > 2,
          "final state byte-identical on cpu and cuda (%d agents)" % (got["cpu"].count(b"\n") - 1))


CASES = {"pair": case_pair, "auto": case_auto, "swarm": case_swarm, "outputs": case_outputs, "ranks": case_ranks,
         "cpu_vs_cuda": case_cpu_vs_cuda, "rvo3d_pair": case_rvo3d_pair, "rvo3d_swarm": case_rvo3d_swarm}


def main():
    global A
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--pair")
    ap.add_argument("--plane", default="horizontal")
    ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--mpiexec")
    ap.add_argument("--np-flag", default="-n")
    ap.add_argument("--mpi-flags", default="")
    A = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="throng_3d_") as tmp:
        A.tmp = tmp
        try:
            CASES[A.case]()
        except Skip as e:
            print("SKIPPED: %s" % e)
            return SKIP
    print("PASS" if not problems else "FAIL (%d problem(s))" % len(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
