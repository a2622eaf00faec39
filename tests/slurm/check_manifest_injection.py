#!/usr/bin/env python3
"""Ensemble manifests are data, never throng options (label robustness; no Slurm).

Usage: check_manifest_injection.py SOURCE_DIR

A manifest whose cell holds a line break (a quoted CSV cell: the old
jobs/ensemble.sbatch read `ensemble.py row` line by line, so each line of the
cell became an argument of throng, here `--final-state FILE`), a control
character, a scenario that is an option (`--final-state FILE`) or an override
that is one (`--catalyst=...`) is refused:
  - `scripts/ensemble.py count` and `row` exit 2 with
    MANIFEST:LINE: column N (NAME): ..., and `row` prints nothing;
  - jobs/ensemble.sbatch (run by bash, with srun and throng stand-ins that
    record their arguments) exits non-zero before throng runs;
  - jobs/submit-ensemble.sh (with an sbatch stand-in) exits 2 before it
    submits anything or creates the output directory.
A good manifest whose cells hold blanks, commas and quotes reaches throng
through jobs/ensemble.sbatch as one argument per override, as written.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

src = os.path.abspath(sys.argv[1])
ENSEMBLE = os.path.join(src, "scripts", "ensemble.py")
H = "group,scenario,seed,overrides\n"
failures = 0


def check(ok, what):
    """what: 'case: step: details'; the details only when it failed."""
    global failures
    print("ok: " + ": ".join(what.split(": ")[:2]) if ok else "FAIL: " + what)
    failures += not ok


def stand_ins(tmp):
    """bin/ with srun and sbatch stand-ins, and a throng that records its arguments."""
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    scripts = {
        # srun --mpi=X CMD...: runs CMD
        "srun": '#!/bin/bash\n[[ $1 == --mpi=* ]] && shift\nexec "$@"\n',
        # sbatch: records that it was called
        "sbatch": '#!/bin/bash\necho sbatch >>"%s"\necho 1\n' % os.path.join(tmp, "sbatch.calls"),
        "throng": "#!%s\nimport json, sys\nwith open(%r, 'a') as f:\n    f.write(json.dumps(sys.argv[1:]) + '\\n')\n"
                  % (sys.executable, os.path.join(tmp, "throng.calls")),
    }
    for name, text in scripts.items():
        path = os.path.join(bindir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return bindir


def calls(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(l) if l.startswith("[") else l.strip() for l in f]


def run(cmd, env=None):
    p = subprocess.run(cmd, cwd=src, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def job_env(tmp, bindir, manifest, row):
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"], MANIFEST=manifest,
               OUT=os.path.join(tmp, "study"), THRONG=os.path.join(bindir, "throng"), SRUN_MPI="none",
               SLURM_ARRAY_TASK_ID=str(row), SLURM_ARRAY_JOB_ID="1", SLURM_SUBMIT_DIR=src, EXTRA_ARGS="--quiet")
    env.pop("SLURM_CPUS_PER_TASK", None)
    return env


def refused(tmp, name, text, row, line, column):
    """The manifest `text` is refused at LINE, COLUMN everywhere; row is its bad run."""
    case = os.path.join(tmp, name)
    os.makedirs(case)
    manifest = os.path.join(case, "study.csv")
    with open(manifest, "w", newline="") as f:
        f.write(text)
    bindir = stand_ins(case)
    where = "%s:%d: %s:" % (manifest, line, column)
    rc, out, err = run([sys.executable, ENSEMBLE, "count", manifest])
    check(rc == 2 and err.startswith(where), "%s: count: exit %d, %r (want exit 2, %r)" % (name, rc, err.strip(), where))
    rc, out, err = run([sys.executable, ENSEMBLE, "row", manifest, str(row), "/o"])
    check(rc == 2 and not out and err.startswith(where),
          "%s: row %d: exit %d, printed %r, %r" % (name, row, rc, out, err.strip()))
    rc, out, err = run(["bash", "jobs/ensemble.sbatch"], job_env(case, bindir, manifest, row))
    throng = calls(os.path.join(case, "throng.calls"))
    check(rc != 0 and not throng and where in err,
          "%s: jobs/ensemble.sbatch: exit %d, throng called %s, %r" % (name, rc, throng, (err + out).strip()[-300:]))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
    study = os.path.join(case, "study")
    rc, out, err = run(["bash", "jobs/submit-ensemble.sh", manifest, study], env)
    submitted = calls(os.path.join(case, "sbatch.calls"))
    check(rc == 2 and not submitted and not os.path.exists(study) and where in err,
          "%s: submit-ensemble.sh: exit %d, sbatch called %d times, %s created: %r"
          % (name, rc, len(submitted), "OUT" if os.path.exists(study) else "nothing", err.strip()[-300:]))


def good_manifest(tmp):
    """Cells with blanks, commas and quotes reach throng as written, one argument each."""
    case = os.path.join(tmp, "good")
    os.makedirs(case)
    manifest = os.path.join(case, "study.csv")
    with open(manifest, "w", newline="") as f:
        f.write(H + 'a,"my dir, 2/s.yaml",3,"b.c=x y; d=[1, 2];e=it\'s ""q"";agents[0].count=5"\n')
    bindir = stand_ins(case)
    rc, out, err = run(["bash", "jobs/ensemble.sbatch"], job_env(case, bindir, manifest, 1))
    got = calls(os.path.join(case, "throng.calls"))
    sets = ["--set", "seed=3", "--set", "b.c=x y", "--set", "d=[1, 2]", "--set", "e=it's \"q\"", "--set",
            "agents[0].count=5"]
    want = [["check", "my dir, 2/s.yaml"] + sets + ["--quiet"],
            ["run", "my dir, 2/s.yaml", "--out", os.path.join(case, "study", "runs", "001-a-seed3"), "--overwrite"]
            + sets + ["--quiet"]]
    check(rc == 0 and got == want, "good manifest: jobs/ensemble.sbatch passes each cell as one argument: exit %d, throng got %s\n  want %s\n%s" % (rc, got, want, err))


def main():
    tmp = tempfile.mkdtemp(prefix="throng-manifest-")
    try:
        x = os.path.join(tmp, "%s", "x")  # the file an injected --final-state would write
        refused(tmp, "newline-override", H + 'a,s.yaml,1,\nb,s.yaml,2,"model.preset=pedestrian\n--final-state\n%s"\n'
                % (x % "newline-override"), 2, 3, "column 4 (overrides)")
        refused(tmp, "newline-scenario", H + 'b,"s.yaml\n--final-state\n%s",2,\n' % (x % "newline-scenario"), 1, 2,
                "column 2 (scenario)")
        refused(tmp, "cr-seed", H + 'b,s.yaml,"2\r",\n', 1, 2, "column 3 (seed)")
        refused(tmp, "escape-group", H + '"b\x1b[2J",s.yaml,2,\n', 1, 2, "column 1 (group)")
        refused(tmp, "option-scenario", H + 'a,--final-state %s,1,\n' % (x % "option-scenario"), 1, 2,
                "column 2 (scenario)")
        refused(tmp, "option-override", H + 'a,s.yaml,1,x=1;--catalyst=/tmp/evil.py\n', 1, 2, "column 4 (overrides)")
        refused(tmp, "catalyst-key", H + 'a,s.yaml,1,catalyst.scripts=[/tmp/evil.py]\n', 1, 2,
                "column 4 (overrides)")
        good_manifest(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("PASS" if not failures else "FAIL: %d" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
