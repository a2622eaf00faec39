#!/usr/bin/env python3
"""The Tawaf measurements of seed paper 002 (Figs. 12-15; docs/orca.md) from throng runs.

Each RUN is LABEL=DIR, the output directory of a run of configs/orca/tawaf*.yaml
(scripts/make_tawaf.py writes the seven regions region1..region7 and the area
`stone` into measurement.areas). What it reads:

  Fig. 12  peak density: the most agent centres in one 1 m x 1 m and one 2 m x 2 m
           cell (cells aligned at the origin) over the trajectory frames
           (trajectory/*.csv: output.trajectory_format=csv), the largest value of
           maps/density_max.csv when the run has maps, and the peak of each
           region's density in areas.csv
  Fig. 13  the queue to the Black Stone, from states.csv: the agents in `queue`
           over time, the arrivals at the stone (agent-seconds in `touch` /
           --touch-time, the seconds an agent touches), the agent-seconds in the
           queue per agent that joined it (arrivals + those still queueing at the
           end: a lower bound of the time in the queue), and the mean speed in
           the area `stone` (3 m x 3 m outside the Black Stone corner)
  Fig. 14  the mean speed per region: sum of agents x mean_speed / sum of agents
           over areas.csv's rows from --from seconds on
  Fig. 15  each region's speed against --base's, in m/s and per cent, and the
           mean speed of all agents (metrics.csv); the share of agent-samples
           in `exiting` (states.csv, from --from on)

It prints Markdown tables; --json FILE writes the numbers, --plot FILE.png
draws the region speeds and the queue over time (the agents queueing and the
agents that reached the stone so far; needs matplotlib, e.g.
/usr/bin/python3 on Debian).

    for v in off:forces.enabled=false default:forces.enabled=true; do
      OMP_WAIT_POLICY=passive build/bin/throng run configs/orca/tawaf-small.yaml --quiet \\
        --steps 1200 --out /tmp/tawaf-${v%%:*} --set ${v#*:} --set output.trajectory_format=csv \\
        --set output.trajectory_every=10
    done
    scripts/tawaf_figures.py off=/tmp/tawaf-off default=/tmp/tawaf-default --base off
"""
import argparse
import csv
import glob
import json
import math
import os
import sys

REGIONS = ["region%d" % k for k in range(1, 8)]


def fail(msg):
    sys.exit("tawaf_figures: " + msg)


def read_csv(path, what):
    if not os.path.exists(path):
        fail("%s: no %s (%s)" % (os.path.dirname(path) or ".", os.path.basename(path), what))
    with open(path) as fh:
        return list(csv.DictReader(fh))


def num(x):
    try:
        return float(x)
    except ValueError:
        return float("nan")


def peak_cells(out):
    """The most centres in one 1 m and one 2 m cell over the CSV trajectory frames (None without them)."""
    files = sorted(glob.glob(os.path.join(out, "trajectory", "trajectory.*.csv")))
    if not files:
        return None
    p1 = p2 = 0
    for f in files:
        c1, c2 = {}, {}
        with open(f) as fh:
            for r in csv.DictReader(fh):
                x, y = float(r["x"]), float(r["y"])
                k1, k2 = (math.floor(x), math.floor(y)), (math.floor(x / 2), math.floor(y / 2))
                c1[k1] = c1.get(k1, 0) + 1
                c2[k2] = c2.get(k2, 0) + 1
        if c1:
            p1, p2 = max(p1, max(c1.values())), max(p2, max(c2.values()))
    return {"frames": len(files), "peak_1m": p1, "peak_2m_per_m2": p2 / 4.0}


def peak_map(out):
    path = os.path.join(out, "maps", "density_max.csv")
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        lines = [ln for ln in fh if not ln.startswith("#")]
    cell = float(lines[0].split(",")[2])
    vals = [num(v) for ln in lines[1:] for v in ln.split(",")]
    return {"cell": cell, "peak": max(v for v in vals if not math.isnan(v))}


def measure(label, out, a):
    if not os.path.isdir(out):
        fail("%s=%s: not a directory (give LABEL=DIR, DIR a throng run's output directory)" % (label, out))
    m = read_csv(os.path.join(out, "metrics.csv"), "a run writes it with output.metrics_every > 0")
    ar = read_csv(os.path.join(out, "areas.csv"), "configs/orca/tawaf*.yaml from scripts/make_tawaf.py have areas")
    st = read_csv(os.path.join(out, "states.csv"), "an ORCA run with behaviors.states and metrics writes it")
    for rows, name in ((m, "metrics.csv"), (st, "states.csv")):
        if not rows:
            fail("%s: %s has no rows" % (out, name))
    names = {r["area"] for r in ar}
    missing = [n for n in REGIONS + ["stone"] if n not in names]
    if missing:
        fail("%s: areas.csv has no area %s (regenerate the scenario with scripts/make_tawaf.py)"
             % (out, ", ".join(missing)))
    r = {"label": label, "dir": out, "end_time": float(m[-1]["time"]), "agents_start": int(m[0]["agents"])}
    if r["end_time"] <= a.t_from:
        fail("%s: the run ends at %g s, not after --from %g s" % (out, r["end_time"], a.t_from))
    late = [x for x in m if float(x["time"]) >= a.t_from]
    r["mean_speed"] = sum(float(x["mean_speed"]) * int(x["agents"]) for x in late) / sum(int(x["agents"]) for x in late)
    # Fig. 14: agent-weighted mean speed per region
    r["regions"] = {}
    for n in REGIONS + ["stone"]:
        rows = [x for x in ar if x["area"] == n and float(x["time"]) >= a.t_from]
        ag = sum(int(x["agents"]) for x in rows)
        sp = sum(int(x["agents"]) * num(x["mean_speed"]) for x in rows if int(x["agents"]) > 0)
        dens = [float(x["density"]) for x in ar if x["area"] == n]
        r["regions"][n] = {"mean_speed": sp / ag if ag else float("nan"), "mean_agents": ag / max(1, len(rows)),
                           "mean_density": sum(float(x["density"]) for x in rows) / max(1, len(rows)),
                           "peak_density": max(dens)}
    # Figs. 13 and 15 from states.csv
    by = {}
    for x in st:
        by.setdefault(float(x["time"]), {})[x["name"]] = int(x["agents"])
    times = sorted(by)
    for need in ("queue", "touch", "exiting"):
        if need not in by[times[0]]:
            fail("%s: states.csv has no state '%s' (not the Tawaf of scripts/make_tawaf.py?)" % (out, need))
    qs = tt = 0.0
    for i in range(1, len(times)):
        dt = times[i] - times[i - 1]
        qs += by[times[i]]["queue"] * dt
        tt += by[times[i]]["touch"] * dt
    arrivals = tt / a.touch_time
    joined = arrivals + by[times[-1]]["queue"]
    first_touch = next((t for t in times if by[t]["touch"] > 0), None)
    lt = [t for t in times if t >= a.t_from]
    tot = sum(sum(by[t].values()) for t in lt)
    r["queue"] = {"series": [[t, by[t]["queue"], by[t]["touch"]] for t in times],
                  "max": max(by[t]["queue"] for t in times),
                  "end": by[times[-1]]["queue"], "agent_seconds": qs, "arrivals": arrivals, "first_touch": first_touch,
                  "seconds_per_joined": qs / joined if joined > 0 else float("nan")}
    r["shares"] = {s: sum(by[t][s] for t in lt) / tot for s in by[times[0]]}
    # exiting share over the first minute too (the reduced Tawaf starts a block with 6 circuits walked)
    early = [t for t in times if a.t_from <= t <= 60.0]
    r["exiting_to_60s"] = (sum(by[t]["exiting"] for t in early) / sum(sum(by[t].values()) for t in early)
                           if early else float("nan"))
    r["peak_cells"] = peak_cells(out)
    r["peak_map"] = peak_map(out)
    return r


def fmt(v, f="%.3f"):
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f % v


def report(runs, a):
    base = next((r for r in runs if r["label"] == a.base), None) if a.base else None
    if a.base and base is None:
        fail("--base %s: no run with that label (%s)" % (a.base, ", ".join(r["label"] for r in runs)))
    cols = [r["label"] for r in runs]
    print("Tawaf figures from %g s on (002 Figs. 12-15; runs end at %s s)\n"
          % (a.t_from, ", ".join("%g" % r["end_time"] for r in runs)))
    print("| | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    rows = [("agents at the start", lambda r: "%d" % r["agents_start"]),
            ("mean speed, all agents [m/s] (metrics.csv)", lambda r: fmt(r["mean_speed"])),
            ("Fig. 12 peak in a 1 m x 1 m cell [agents]",
             lambda r: fmt(r["peak_cells"] and r["peak_cells"]["peak_1m"], "%d")),
            ("Fig. 12 peak over 2 m x 2 m [/m²]",
             lambda r: fmt(r["peak_cells"] and r["peak_cells"]["peak_2m_per_m2"], "%.2f")),
            ("Fig. 12 peak of maps/density_max [/m²]", lambda r: fmt(r["peak_map"] and r["peak_map"]["peak"], "%.2f")),
            ("Fig. 12 highest region density [/m²] (areas.csv)",
             lambda r: fmt(max(r["regions"][n]["peak_density"] for n in REGIONS), "%.2f")),
            ("Fig. 13 queue: most agents at once", lambda r: "%d" % r["queue"]["max"]),
            ("Fig. 13 queue: agents at the end", lambda r: "%d" % r["queue"]["end"]),
            ("Fig. 13 arrivals at the stone (touch agent-s / %g s)" % a.touch_time,
             lambda r: fmt(r["queue"]["arrivals"], "%.1f")),
            ("Fig. 13 first touch [s]", lambda r: fmt(r["queue"]["first_touch"], "%g")),
            ("Fig. 13 queue agent-s per agent that joined [s]",
             lambda r: fmt(r["queue"]["seconds_per_joined"], "%.1f")),
            ("Fig. 13 mean speed in `stone` [m/s]", lambda r: fmt(r["regions"]["stone"]["mean_speed"])),
            ("exiting share (from --from on)", lambda r: fmt(100 * r["shares"]["exiting"], "%.2f %%")),
            ("exiting share up to 60 s", lambda r: fmt(100 * r["exiting_to_60s"], "%.2f %%"))]
    for name, f in rows:
        print("| %s | %s |" % (name, " | ".join(f(r) for r in runs)))
    print("\nFig. 14/15: mean speed per region [m/s]%s\n" % (" (change against %s)" % a.base if base else ""))
    print("| region | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    for n in REGIONS + ["stone"]:
        cells = []
        for r in runs:
            v = r["regions"][n]["mean_speed"]
            if base and r is not base:
                b = base["regions"][n]["mean_speed"]
                cells.append("%s (%+.3f, %+.1f %%)" % (fmt(v), v - b, 100 * (v - b) / b))
            else:
                cells.append(fmt(v))
        print("| %s | %s |" % (n, " | ".join(cells)))
    for r in runs:
        sp = [(r["regions"][n]["mean_speed"], n) for n in REGIONS]
        print("\n%s: fastest %s, slowest %s; mean density per region %s /m²"
              % (r["label"], max(sp)[1], min(sp)[1],
                 ", ".join("%.2f" % r["regions"][n]["mean_density"] for n in REGIONS)))


def plot(runs, path, touch_time):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("--plot needs matplotlib (pip install matplotlib; on Debian /usr/bin/python3 has python3-matplotlib)")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    w = 0.8 / len(runs)
    for i, r in enumerate(runs):
        ax1.bar([k + 1 + (i - (len(runs) - 1) / 2) * w for k in range(7)],
                [r["regions"][n]["mean_speed"] for n in REGIONS], w, label=r["label"])
        s = r["queue"]["series"]
        ax2.plot([x[0] for x in s], [x[1] for x in s], label="%s: queueing" % r["label"])
        reached, acc = [], 0.0
        for i, x in enumerate(s):  # touch agent-seconds so far / the touch time: agents that reached the stone
            acc += x[2] * (x[0] - s[i - 1][0]) if i else 0.0
            reached.append(acc / touch_time)
        ax2.plot([x[0] for x in s], reached, ":", color=ax2.lines[-1].get_color(),
                 label="%s: reached the stone" % r["label"])
    lo = min(r["regions"][n]["mean_speed"] for r in runs for n in REGIONS)
    hi = max(r["regions"][n]["mean_speed"] for r in runs for n in REGIONS)
    ax1.set_ylim(max(0.0, lo - 0.1), hi + 0.05)
    ax1.set_xlabel("region (counter-clockwise from the start line)")
    ax1.set_ylabel("mean speed [m/s] (the axis does not start at 0)")
    ax1.set_title("002 Figs. 14-15: speed per region")
    ax1.legend(fontsize=8, ncol=len(runs), loc="upper right")
    ax2.set_xlabel("time [s]")
    ax2.set_ylabel("agents")
    ax2.set_title("002 Fig. 13: the queue to the Black Stone")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print("\nwrote %s" % path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", metavar="LABEL=DIR", help="a run's label and output directory")
    ap.add_argument("--from", dest="t_from", type=float, default=20.0,
                    help="average from this time on [s] (default 20: after the start-up)")
    ap.add_argument("--touch-time", type=float, default=5.0,
                    help="seconds an agent stays in `touch` (the scenario's touch -> circling after; default 5)")
    ap.add_argument("--base", help="the label the region speeds are compared with (Fig. 15)")
    ap.add_argument("--json", help="write the numbers to this file")
    ap.add_argument("--plot", help="draw the region speeds and the queue to this PNG file (needs matplotlib)")
    a = ap.parse_args()
    if a.touch_time <= 0:
        fail("--touch-time must be > 0")
    runs = []
    for arg in a.runs:
        if "=" not in arg:
            fail("%s: give LABEL=DIR" % arg)
        label, out = arg.split("=", 1)
        runs.append(measure(label, out, a))
    report(runs, a)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(runs, fh, indent=1)
    if a.plot:
        plot(runs, a.plot, a.touch_time)
    return 0


if __name__ == "__main__":
    sys.exit(main())
