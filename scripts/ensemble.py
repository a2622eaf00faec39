#!/usr/bin/env python3
"""Ensemble studies (docs/slurm.md, "Ensembles"): a manifest of runs, and the
aggregation of their results.

  ensemble.py count MANIFEST            check the manifest; print its number of runs
  ensemble.py row MANIFEST K OUT        run K (1-based): its directory, its scenario and
                                        its `--set` options, each ended by a NUL byte
                                        (jobs/ensemble.sbatch reads them with mapfile -d '')
  ensemble.py aggregate MANIFEST OUT    OUT/runs.csv, OUT/summary.csv, OUT/summary.md and
                                        OUT/evacuation_time.png, OUT/exit_flows.png

The manifest is a CSV file with the header `group,scenario,seed,overrides`:
one row per run; runs with the same group are replicates (they differ in the
seed) and are summarised together. `scenario` is relative to the directory
the study is submitted from (not starting with '-'); `overrides` is empty or
`KEY=VALUE` pairs separated by `;` (each becomes `--set KEY=VALUE`, one
argument; KEY a dotted path such as agents[0].count). A cell is data: one
line of text, no control characters (a quoted cell with a line break is
refused), and nothing but those `--set` options comes out of it; keys that
name files to run or read (catalyst.*, output.dir, walkable_file,
points_file) are refused: they belong in the scenario. Run K goes
to OUT/runs/KKK-GROUP-seedSEED/.

The aggregate reads each run's summary.json (evacuation time, t95) and
evacuated.csv (each exit's flow: (n - 1) / (last - first leaving time), in
agents per second, over the n agents through it). Per group and quantity it
gives the mean, the standard deviation and the 95 % confidence interval of
the mean (Student's t with n - 1 degrees of freedom). Runs that did not
complete are listed in runs.csv with their state and left out of the
statistics. Exit status: 0; 2 for a bad manifest (MANIFEST:LINE: column N
(NAME): what, LINE the line its row starts on); 1 when no run completed.
"""
import csv
import json
import math
import os
import re
import sys
import unicodedata

HEADER = ["group", "scenario", "seed", "overrides"]
# an override's KEY, as throng's --set takes it: names (not starting with '-')
# joined by '.', list items by [index]
KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_][A-Za-z0-9_-]*|\[[0-9]+\])*")
DEBIAN_PYTHON = "/usr/bin/python3"


def _betacf(a, b, x):
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, qab, qap, qam = 1e-300, a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)), -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betainc(a, b, x):
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t975(df):
    """Student's t quantile for a two-sided 95 % interval (P(T <= t) = 0.975) with df degrees of
    freedom, exact to 1e-9 by bisection on the t distribution's tail, 0.5 I_{df/(df+t^2)}(df/2, 1/2)
    (12.706 at 1, 2.042 at 30, 2.000 at 60, 1.984 at 100)."""
    lo, hi = 0.0, 700.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if 0.5 * _betainc(0.5 * df, 0.5, df / (df + mid * mid)) > 0.025:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)

def bad(manifest, line, what):
    print("%s:%d: %s" % (manifest, line, what), file=sys.stderr)
    sys.exit(2)


def bad_cell(manifest, line, col, what):
    name = " (%s)" % HEADER[col] if col < len(HEADER) else ""
    bad(manifest, line, "column %d%s: %s" % (col + 1, name, what))


# characters that are never data in a cell: control characters (a line
# break would become another argument of throng), invisible format
# characters and Unicode line and paragraph separators
def control_char(text):
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            return ch
    return None


def shown(text, limit=60):
    """text for a message: control characters escaped, long text cut."""
    out = "".join(ch if not control_char(ch) else ascii(ch)[1:-1] for ch in text)
    return out if len(out) <= limit else out[:limit] + "..."


def check_cells(path, line, row):
    for col, cell in enumerate(row):
        ch = control_char(cell)
        if ch is not None:
            what = "a line break" if ch in "\n\r\v\f\x85\u2028\u2029" else "a control character"
            bad_cell(path, line, col, "%s (U+%04X) in '%s': a cell is one line of text" % (what, ord(ch), shown(cell)))


def check_override(path, line, s):
    key = s.split("=", 1)[0].strip() if "=" in s else ""
    if not KEY.fullmatch(key):
        bad_cell(path, line, 3, "'%s': expected KEY=VALUE with KEY a dotted path such as "
                 "solver.iterations or agents[0].count" % shown(s))
    if key == "seed":
        bad_cell(path, line, 3, "'%s': the seed has its own column" % shown(s))
    # keys that would run code or write outside the run's directory: a
    # manifest varies the physics of a study; these belong in the scenario
    top = re.split(r"[.\[]", key, 1)[0]
    if top == "catalyst" or key in ("output.dir", "output", "geometry.walkable_file") or key.endswith("points_file") \
            or key.endswith("scripts"):
        bad_cell(path, line, 3, "'%s': a manifest may not set %s (it names files to run or read); put it in the "
                 "scenario" % (shown(s), key))


def read_rows(path):
    """[(first line of the row, [cells]), ...]: each row with the line it starts on."""
    try:
        f = open(path, newline="", encoding="utf-8-sig")
    except OSError as e:
        print("%s: cannot read the manifest: %s" % (path, e.strerror), file=sys.stderr)
        sys.exit(2)
    rows = []
    with f:
        reader = csv.reader(f, strict=True)
        start = 1
        try:
            for row in reader:
                rows.append((start, row))
                start = reader.line_num + 1
        except csv.Error as e:
            bad(path, start, "not a CSV row: %s" % e)
        except UnicodeDecodeError as e:
            bad(path, start, "not UTF-8 text (byte 0x%02x)" % e.object[e.start])
    return rows


def read_manifest(path):
    """[(line, group, scenario, seed, [KEY=VALUE, ...]), ...], checked: each
    cell is data, one line of text; only --set overrides come out of it."""
    rows = read_rows(path)
    if rows:
        check_cells(path, 1, rows[0][1])
    if not rows or [c.strip() for c in rows[0][1]] != HEADER:
        bad(path, 1, "the header must be '%s'" % ",".join(HEADER))
    out = []
    for k, row in rows[1:]:
        check_cells(path, k, row)
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != 4:
            bad(path, k, "expected 4 columns (%s), got %d" % (",".join(HEADER), len(row)))
        group, scenario, seed, overrides = (c.strip() for c in row)
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", group):
            bad_cell(path, k, 0, "'%s': use letters, digits, '_', '.' and '-'" % shown(group))
        if not scenario:
            bad_cell(path, k, 1, "empty: no scenario")
        if scenario.startswith("-"):
            bad_cell(path, k, 1, "'%s' starts with '-': throng would take it for an option "
                     "(write ./%s for a file of that name)" % (shown(scenario), shown(scenario)))
        if not re.fullmatch(r"[0-9]+", seed):
            bad_cell(path, k, 2, "'%s': expected a whole number >= 0" % shown(seed))
        sets = [s.strip() for s in overrides.split(";") if s.strip()]
        for s in sets:
            check_override(path, k, s)
        out.append((k, group, scenario, int(seed), sets))
    if not out:
        bad(path, 2, "no runs")
    return out


def run_dir(out, index, group, seed):
    return os.path.join(out, "runs", "%03d-%s-seed%d" % (index, group, seed))


def cmd_count(manifest):
    print(len(read_manifest(manifest)))


def cmd_row(manifest, k, out):
    runs = read_manifest(manifest)
    if not re.fullmatch(r"[0-9]+", k) or not 1 <= int(k) <= len(runs):
        print("%s: no run %s (it has runs 1 to %d)" % (manifest, k, len(runs)), file=sys.stderr)
        sys.exit(2)
    k = int(k)
    _, group, scenario, seed, sets = runs[k - 1]
    fields = [run_dir(out, k, group, seed), scenario, "--set", "seed=%d" % seed]
    for s in sets:
        fields += ["--set", s]
    # each field ends with a NUL: the job script reads them as they are (mapfile -d '')
    sys.stdout.write("".join(f + "\0" for f in fields))


def exit_flows(path):
    """{exit: (agents out, flow in agents/s or None)} from evacuated.csv."""
    times = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            times.setdefault(row["exit"], []).append(float(row["time"]))
    out = {}
    for name, t in times.items():
        span = max(t) - min(t)
        out[name] = (len(t), (len(t) - 1) / span if len(t) >= 2 and span > 0 else None)
    return out


def stats(values):
    """(n, mean, sd, ci_low, ci_high); sd and the interval need 2 values."""
    v = [x for x in values if x is not None]
    n = len(v)
    if not n:
        return 0, None, None, None, None
    mean = sum(v) / n
    if n < 2:
        return n, mean, None, None, None
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1))
    t = t975(n - 1)
    half = t * sd / math.sqrt(n)
    return n, mean, sd, mean - half, mean + half


def fmt(x, digits=3):
    return "" if x is None else ("%.*f" % (digits, x))


def cmd_aggregate(manifest, out):
    runs = read_manifest(manifest)
    table, exits = [], []
    for k, (line, group, scenario, seed, sets) in enumerate(runs, start=1):
        d = run_dir(out, k, group, seed)
        rec = {"run": os.path.basename(d), "group": group, "seed": seed, "scenario": scenario,
               "overrides": ";".join(sets), "state": "missing"}
        try:
            with open(os.path.join(d, "run.json")) as f:
                rec["state"] = json.load(f).get("state", "?")
            with open(os.path.join(d, "summary.json")) as f:
                s = json.load(f)
            rec.update(evacuated=s.get("evacuated"), remaining=s.get("remaining"),
                       evacuation_time=s.get("evacuation_time"), t95=s.get("t95"))
            rec["exits"] = exit_flows(os.path.join(d, "evacuated.csv"))
            for name in rec["exits"]:
                if name not in exits:
                    exits.append(name)
        except (OSError, ValueError, KeyError) as e:
            rec["problem"] = str(e)
        table.append(rec)
    done = [r for r in table if r["state"] == "complete" and "exits" in r]

    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "group", "seed", "scenario", "overrides", "state", "evacuated", "remaining",
                    "evacuation_time", "t95"] + ["out_" + e for e in exits] + ["flow_" + e for e in exits])
        for r in table:
            ex = r.get("exits", {})
            w.writerow([r["run"], r["group"], r["seed"], r["scenario"], r["overrides"], r["state"],
                        r.get("evacuated", ""), r.get("remaining", ""), fmt(r.get("evacuation_time"), 6),
                        fmt(r.get("t95"), 6)] + [ex[e][0] if e in ex else 0 for e in exits]
                       + [fmt(ex[e][1], 6) if e in ex else "" for e in exits])

    groups = []
    for r in table:
        if r["group"] not in groups:
            groups.append(r["group"])
    quantities = ["evacuation_time", "t95"] + ["flow_" + e for e in exits]
    summary = []
    for g in groups:
        mine = [r for r in done if r["group"] == g]
        for q in quantities:
            if q.startswith("flow_"):
                vals = [r["exits"].get(q[5:], (0, None))[1] for r in mine]
            else:
                vals = [r.get(q) for r in mine]
            summary.append((g, q, len([r for r in table if r["group"] == g]), stats(vals)))
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["group", "quantity", "runs", "complete", "mean", "sd", "ci95_low", "ci95_high"])
        for g, q, n_all, (n, mean, sd, lo, hi) in summary:
            w.writerow([g, q, n_all, n, fmt(mean, 6), fmt(sd, 6), fmt(lo, 6), fmt(hi, 6)])
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("# Ensemble %s\n\n%d of %d runs complete. Mean, standard deviation and 95 %% confidence "
                "interval of the mean over each group's runs (times in s, flows in agents/s).\n\n"
                % (os.path.basename(os.path.abspath(out)), len(done), len(table)))
        f.write("| group | quantity | runs | mean | sd | 95 % CI |\n|---|---|---|---|---|---|\n")
        for g, q, n_all, (n, mean, sd, lo, hi) in summary:
            ci = "[%s, %s]" % (fmt(lo, 2), fmt(hi, 2)) if lo is not None else ""
            f.write("| %s | %s | %d/%d | %s | %s | %s |\n" % (g, q, n, n_all, fmt(mean, 2), fmt(sd, 2), ci))
        bad_runs = [r for r in table if r not in done]
        if bad_runs:
            f.write("\nLeft out: %s\n" % ", ".join("%s (%s)" % (r["run"], r["state"]) for r in bad_runs))
    plots(out, groups, done, exits, summary)
    print("ensemble: %d of %d runs complete; %s" % (len(done), len(table), os.path.join(out, "summary.md")))
    return 0 if done else 1


def plots(out, groups, done, exits, summary):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("ensemble: no matplotlib (python3-matplotlib) for %s: no plots" % (sys.executable or "python3"))
        return
    by = {(g, q): st for g, q, _, st in summary}
    fig, ax = plt.subplots(figsize=(max(4, 1.4 * len(groups) + 2), 4))
    for i, g in enumerate(groups):
        ys = [r["evacuation_time"] for r in done if r["group"] == g]
        ax.plot([i] * len(ys), ys, "o", color="0.6", ms=4)
        n, mean, sd, lo, hi = by[(g, "evacuation_time")]
        if mean is not None:
            err = [[mean - lo], [hi - mean]] if lo is not None else None
            ax.errorbar([i + 0.15], [mean], yerr=err, fmt="s", color="C0", capsize=4)
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylabel("evacuation time [s]")
    ax.set_title("runs (grey), mean and 95 % CI (blue)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "evacuation_time.png"), dpi=120)
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(max(4, 1.2 * len(exits) * len(groups) + 2), 4))
    width = 0.8 / max(len(groups), 1)
    for j, g in enumerate(groups):
        xs, ms, errs = [], [], [[], []]
        for i, e in enumerate(exits):
            n, mean, sd, lo, hi = by[(g, "flow_" + e)]
            if mean is None:
                continue
            xs.append(i + j * width)
            ms.append(mean)
            errs[0].append(mean - lo if lo is not None else 0)
            errs[1].append(hi - mean if hi is not None else 0)
        ax.bar(xs, ms, width, yerr=errs, capsize=3, label=g)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(exits))], exits)
    ax.set_ylabel("flow [agents/s]")
    ax.set_title("exit flows: mean and 95 % CI")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "exit_flows.png"), dpi=120)
    plt.close(fig)


def reexec_for_matplotlib(argv):
    """Debian's python3-matplotlib belongs to /usr/bin/python3: when the python3 running this (a virtual
    environment, a cluster's module) lacks it, aggregate with Debian's, as `throng report` does."""
    try:
        import matplotlib  # noqa: F401
        return
    except ImportError:
        pass
    here = os.path.realpath(sys.executable or "")
    if os.access(DEBIAN_PYTHON, os.X_OK) and here != os.path.realpath(DEBIAN_PYTHON) and \
            not os.environ.get("THRONG_ENSEMBLE_REEXEC"):
        import subprocess
        probe = subprocess.run([DEBIAN_PYTHON, "-c", "import matplotlib"], capture_output=True)
        if probe.returncode == 0:
            os.environ["THRONG_ENSEMBLE_REEXEC"] = "1"
            sys.stdout.flush()
            sys.stderr.flush()
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON, os.path.abspath(__file__)] + argv[1:])


def main(argv):
    if len(argv) >= 3 and argv[1] == "count" and len(argv) == 3:
        cmd_count(argv[2])
        return 0
    if len(argv) == 5 and argv[1] == "row":
        cmd_row(argv[2], argv[3], argv[4])
        return 0
    if len(argv) == 4 and argv[1] == "aggregate":
        reexec_for_matplotlib(argv)
        return cmd_aggregate(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
