#!/usr/bin/env python3
"""configs/orca/tawaf*.yaml are generated: each must be exactly what
scripts/make_tawaf.py writes for its agent count (edit the script, not the
files). Usage: check_tawaf_files.py SOURCE_DIR"""
import os
import subprocess
import sys

src = sys.argv[1]
bad = 0
for name, agents, steps in (("tawaf-small", 3000, 600), ("tawaf", 35000, 600), ("tawaf-1m", 1000000, 200)):
    path = os.path.join(src, "configs", "orca", name + ".yaml")
    want = subprocess.run([sys.executable, os.path.join(src, "scripts", "make_tawaf.py"), "--agents", str(agents),
                           "--steps", str(steps)], capture_output=True, text=True, check=True).stdout
    same = open(path).read() == want
    print(("ok   " if same else "FAIL ") + "%s.yaml = make_tawaf.py --agents %d --steps %d" % (name, agents, steps))
    bad += not same
sys.exit(1 if bad else 0)
