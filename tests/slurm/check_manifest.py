#!/usr/bin/env python3
"""scripts/ensemble.py's manifest checks and rows (label unit; no Slurm).

Usage: check_manifest.py SOURCE_DIR

Bad manifests exit 2 with MANIFEST:LINE (and the column) and what is wrong;
a good one gives its run count, and row K gives the run directory, the
scenario and the --set options (the seed first) that jobs/ensemble.sbatch
passes to throng, each ended by a NUL byte.
"""
import os
import subprocess
import sys
import tempfile

src = os.path.abspath(sys.argv[1])
script = os.path.join(src, "scripts", "ensemble.py")
failures = 0


def run(*args):
    p = subprocess.run([sys.executable, script] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def expect(text, want_rc, want):
    global failures
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(text)
    rc, out, err = run("count", f.name)
    got = (out + err).strip()
    ok = rc == want_rc and want in got and (want_rc != 2 or got.startswith(f.name + ":"))
    print("%s: %r -> exit %d: %s" % ("ok" if ok else "FAIL", text[:60], rc, got))
    failures += not ok
    os.unlink(f.name)


H = "group,scenario,seed,overrides\n"
expect(H + "a,s.yaml,1,\na,s.yaml,2,x=1;y=2\n\n", 0, "2")
expect("group,scenario,seed\n", 2, ":1: the header must be 'group,scenario,seed,overrides'")
expect(H, 2, ":2: no runs")
expect(H + "a,s.yaml,1\n", 2, ":2: expected 4 columns")
expect(H + "a b,s.yaml,1,\n", 2, ":2: column 1 (group): 'a b'")
expect(H + "a,,1,\n", 2, ":2: column 2 (scenario): empty")
expect(H + "a,s.yaml,x,\n", 2, ":2: column 3 (seed): 'x'")
expect(H + "a,s.yaml,1,\na,s.yaml,2,novalue\n", 2, ":3: column 4 (overrides): 'novalue': expected KEY=VALUE")
expect(H + "a,s.yaml,1,seed=4\n", 2, ":2: column 4 (overrides): 'seed=4': the seed has its own column")
rc, out, err = run("count", "/nonexistent/study.csv")
failures += not (rc == 2 and "/nonexistent/study.csv: cannot read the manifest" in err)

with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
    f.write(H + "base,s.yaml,1,\nwide,t.yaml,7,a.b=1; c=x y\n")
rc, out, err = run("row", f.name, "2", "/o")
want = ["/o/runs/002-wide-seed7", "t.yaml", "--set", "seed=7", "--set", "a.b=1", "--set", "c=x y"]
ok = rc == 0 and out == "".join(w + "\0" for w in want)
print("%s: row 2 -> %r" % ("ok" if ok else "FAIL", out))
failures += not ok
rc, out, err = run("row", f.name, "3", "/o")
failures += not (rc == 2 and "no run 3 (it has runs 1 to 2)" in err)
os.unlink(f.name)
print("PASS" if not failures else "FAIL: %d" % failures)
sys.exit(1 if failures else 0)
