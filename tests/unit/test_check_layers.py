#!/usr/bin/env python3
"""check_layers.py must fail where the layering breaks: a call cycle between
two files of one folder (src/core/ here, not only src/decomp/), a model pass
header reachable from src/decomp/ through other headers, an include that
points up, and a .cxx file that includes a layer above it. Each case is a
small source tree written to a temporary folder; a clean tree must pass."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def tree(files):
    d = tempfile.mkdtemp()
    for rel, text in files.items():
        path = os.path.join(d, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return d


def check(files):
    p = subprocess.run([sys.executable, os.path.join(HERE, "check_layers.py"), tree(files)],
                       capture_output=True, text=True)
    return p.returncode, p.stdout


CLEAN = {
    "base/a.h": "int thr_a(void);\n",
    "kernels/passes.h": '#include "base/a.h"\n',
    "kernels/pass_list.h": '#include "base/a.h"\n',
    "kernels/backend.h": '#include "pass_list.h"\n',
    "decomp/d.c": '#include "kernels/backend.h"\nint thr_d(void) { return 0; }\n',
    "core/one.c": "int thr_one(void) { return 1; }\n",
    "core/two.c": "int thr_one(void);\nint thr_two(void) { return thr_one(); }\n",
}

CASES = {
    "a call cycle in core/": dict(CLEAN, **{
        "core/one.c": "int thr_two(void);\nint thr_one(void) { return thr_two(); }\n"}),
    "a model pass reachable from decomp/": dict(CLEAN, **{
        "kernels/backend.h": '#include "pass_list.h"\n#include "passes.h"\n'}),
    "an include pointing up": dict(CLEAN, **{"kernels/up.h": '#include "core/x.h"\n', "core/x.h": ""}),
    "a .cxx including a layer above": dict(CLEAN, **{"kernels/view.cxx": '#include "core/x.h"\n', "core/x.h": ""}),
}


def main():
    failures = 0
    rc, out = check(CLEAN)
    print("clean tree: exit %d: %s" % (rc, out.strip().splitlines()[-1] if out.strip() else ""))
    failures += rc != 0
    for name, files in CASES.items():
        rc, out = check(files)
        print("%s: exit %d: %s" % (name, rc, out.strip().splitlines()[0] if out.strip() else ""))
        failures += rc == 0
    print("FAIL" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
