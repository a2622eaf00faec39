#!/usr/bin/env python3
"""Bad scenario input must never start a run.

usage: check_bad_input.py THRONG_EXE FILE.yaml

FILE's first line is "# expect: REGEX" (a Python regex the error message must
match); an optional second line "# args: ..." adds command-line arguments.
Runs `THRONG_EXE check FILE` and `THRONG_EXE run FILE --out TMP/out --steps 2`
(plus the args), each in a fresh temporary directory as working directory,
and requires for both: exit status 2, stderr matching REGEX, no crash report
in the output, and no file or directory created (TMP/out included).
Exit status 0 when every check passed, 1 otherwise.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

TIMEOUT_S = 120
# signs of a crash rather than a clean refusal
CRASH_MARKERS = ("Traceback", "Segmentation", "AddressSanitizer", "runtime error:", "core dumped")


def read_header(path):
    """The (expect regex, extra args) of a bad-input file."""
    with open(path, encoding="utf-8") as f:
        lines = [f.readline().rstrip("\n"), f.readline().rstrip("\n")]
    m = re.match(r"#\s*expect:\s*(.+)$", lines[0])
    if not m:
        raise ValueError(f"{path}: the first line must be '# expect: REGEX'")
    args = []
    a = re.match(r"#\s*args:\s*(.*)$", lines[1])
    if a:
        args = shlex.split(a.group(1))
    return re.compile(m.group(1)), args


def expect_refusal(label, cmd, pattern, tmp, must_not_exist=()):
    """Run cmd in tmp (an empty directory); return a list of problems."""
    problems = []
    try:
        res = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=TIMEOUT_S,
                             errors="replace")
    except subprocess.TimeoutExpired:
        return [f"{label}: still running after {TIMEOUT_S} s"]
    out = res.stdout + res.stderr
    if res.returncode != 2:
        problems.append(f"{label}: exit status {res.returncode}, expected 2")
    if not pattern.search(res.stderr):
        problems.append(f"{label}: stderr does not match /{pattern.pattern}/")
    for marker in CRASH_MARKERS:
        if marker in out:
            problems.append(f"{label}: output contains '{marker}'")
    for path in must_not_exist:
        if os.path.exists(path):
            problems.append(f"{label}: {path} was created")
    left = sorted(os.listdir(tmp))
    if left:
        problems.append(f"{label}: files were created in the working directory: {', '.join(left)}")
    status = "ok" if not problems else "FAILED"
    print(f"{status}: {label}: exit {res.returncode}")
    print(f"    command: {shlex.join(cmd)}")
    print(f"    stderr:  {res.stderr.strip()}")
    for p in problems:
        print(f"    problem: {p}")
    return problems


def check_both_commands(exe, scenario, extra_args, pattern, name):
    """`check` and `run` on the same input must both refuse it."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="throng_bad_") as tmp:
        problems += expect_refusal(f"{name}: check", [exe, "check", scenario] + extra_args, pattern, tmp)
    with tempfile.TemporaryDirectory(prefix="throng_bad_") as tmp:
        out = os.path.join(tmp, "out")
        cmd = [exe, "run", scenario, "--out", out, "--steps", "2"] + extra_args
        problems += expect_refusal(f"{name}: run", cmd, pattern, tmp, must_not_exist=(out,))
    return problems


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    exe, scenario = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    pattern, extra_args = read_header(scenario)
    print(f"expecting /{pattern.pattern}/" + (f" with {shlex.join(extra_args)}" if extra_args else ""))
    problems = check_both_commands(exe, scenario, extra_args, pattern, os.path.basename(scenario))
    print("PASS" if not problems else f"FAIL ({len(problems)} problem(s))")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
