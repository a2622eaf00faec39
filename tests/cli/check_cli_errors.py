#!/usr/bin/env python3
"""Bad command lines must be refused with exit status 2 and a useful message.

usage: check_cli_errors.py THRONG_EXE CASE

Each CASE runs `throng check` and `throng run` with the known-good scenario
tests/data/good/minimal.yaml (or a path that cannot be read) and one mistake
on the command line; both must exit with status 2, name the culprit on
stderr, crash in no way and write nothing (see check_bad_input.py).
CASE "good_minimal" checks that the scenario itself is accepted.
"""
import os
import re
import stat
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_bad_input import check_both_commands  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
MINIMAL = os.path.normpath(os.path.join(HERE, "..", "data", "good", "minimal.yaml"))
MISSING = "/nonexistent-throng-dir/no-such-scenario.yaml"

# case -> (scenario, extra arguments, regex the message must match)
CASES = {
    "missing_path": (MISSING, [], re.escape(MISSING) + r".*No such file or directory"),
    "set_no_equals": (MINIMAL, ["--set", "solver.iterations"],
                      r"--set solver\.iterations: expected KEY=VALUE"),
    "set_missing_value": (MINIMAL, ["--set"], r"--set"),
    "set_unknown_key": (MINIMAL, ["--set", "solvr.iterations=3"],
                        r"--set solvr\.iterations=3: unknown key 'solvr'.*did you mean 'solver'\?"),
    "set_unknown_nested_key": (MINIMAL, ["--set", "agents[0].sped=2"],
                               r"--set agents\[0\]\.sped=2: agents\[0\]: unknown key 'sped'"),
    "set_bad_value": (MINIMAL, ["--set", "solver.iterations=abc"],
                      r'--set solver\.iterations=abc: solver\.iterations: expected an integer >= 0, got "abc"'),
    "set_bad_yaml": (MINIMAL, ["--set", "world.min=[0, 0"], r"--set world\.min=\[0, 0: world\.min: bad YAML value"),
    "set_bad_index": (MINIMAL, ["--set", "agents[3].count=1"],
                      r"--set agents\[3\]\.count=1: agents\[3\]: index past the end of the list"),
    "unknown_option": (MINIMAL, ["--frobnicate"], r"--frobnicate"),
    # run's options are check's too (a job checks the command line it runs)
    "steps_negative": (MINIMAL, ["--steps", "-1"], r"--steps -1: expected a whole number >= 0"),
    "backend_unknown": (MINIMAL, ["--backend", "gpu"], r"--backend gpu: unknown backend \(known: cpu, cuda\)"),
    "set_bad_among_run_options": (MINIMAL, ["--quiet", "--steps", "50", "--set", "solver.iterations=-3"],
                                  r"--set solver\.iterations=-3: solver\.iterations: expected an integer >= 0"),
}


def check_unreadable(exe):
    """A directory, and (unless we are root) a file without read permission."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="throng_unreadable_") as d:
        problems += check_both_commands(exe, d, [], re.compile(re.escape(d) + r".*(is a directory, not a regular file)"),
                                        "directory as scenario")
        locked = os.path.join(d, "locked.yaml")
        with open(MINIMAL, encoding="utf-8") as src, open(locked, "w", encoding="utf-8") as dst:
            dst.write(src.read())
        os.chmod(locked, 0)
        if os.access(locked, os.R_OK):
            print("skipped: unreadable file (this user can read any file)")
        else:
            problems += check_both_commands(exe, locked, [], re.compile(re.escape(locked) + r".*Permission denied"),
                                            "unreadable file")
        os.chmod(locked, stat.S_IRUSR | stat.S_IWUSR)
    return problems


def check_good(exe):
    """The fixture the other cases lean on must itself be fine; check takes
    every run option (a job checks the command line it will run) and writes
    nothing for --out or --final-state."""
    problems = []
    res = subprocess.run([exe, "check", MINIMAL], capture_output=True, text=True, timeout=120)
    print(f"{'ok' if res.returncode == 0 else 'FAILED'}: check {MINIMAL}: exit {res.returncode}")
    if res.returncode != 0:
        print(f"    stderr: {res.stderr.strip()}")
        problems.append("the known-good scenario was refused")
    with tempfile.TemporaryDirectory() as tmp:
        out, final = os.path.join(tmp, "out"), os.path.join(tmp, "final.csv")
        args = [exe, "check", MINIMAL, "--steps", "20", "--out", out, "--final-state", final, "--backend", "cpu",
                "--quiet", "--overwrite", "--timing", "--set", "seed=3"]
        res = subprocess.run(args, capture_output=True, text=True, timeout=120)
        wrote = os.path.exists(out) or os.path.exists(final)
        good = res.returncode == 0 and not wrote
        print(f"{'ok' if good else 'FAILED'}: check with run options: exit {res.returncode}, "
              f"wrote {'something' if wrote else 'nothing'}")
        if not good:
            print(f"    stderr: {res.stderr.strip()}")
            problems.append("check refused run's options or wrote output")
    return problems


def main(argv):
    names = sorted(CASES) + ["unreadable_path", "good_minimal"]
    if len(argv) != 3 or argv[2] not in names:
        print(f"usage: check_cli_errors.py THRONG_EXE CASE   (CASE: {', '.join(names)})", file=sys.stderr)
        return 1
    exe, case = os.path.abspath(argv[1]), argv[2]
    if case == "good_minimal":
        problems = check_good(exe)
    elif case == "unreadable_path":
        problems = check_unreadable(exe)
    else:
        scenario, args, regex = CASES[case]
        print(f"expecting /{regex}/")
        problems = check_both_commands(exe, scenario, args, re.compile(regex), case)
    print("PASS" if not problems else f"FAIL ({len(problems)} problem(s))")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
