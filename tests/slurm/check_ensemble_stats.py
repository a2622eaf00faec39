#!/usr/bin/env python3
"""scripts/ensemble.py's statistics without a cluster (label unit): Student's t
quantile of the 95 % confidence interval against the printed tables (df 1-30,
then 40, 60, 120 and the normal limit), and an interval worked by hand.
Standard library only."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import ensemble as E  # noqa: E402

# t(0.975, df) from the printed tables (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2)
TABLE = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 10: 2.228, 20: 2.086, 29: 2.045, 30: 2.042,
         31: 2.040, 40: 2.021, 45: 2.014, 50: 2.009, 59: 2.001, 60: 2.000, 100: 1.984, 120: 1.980}
bad = [(df, round(E.t975(df), 3), t) for df, t in TABLE.items() if abs(E.t975(df) - t) > 0.0006]
print("t975 against the table at df %s: %s" % (sorted(TABLE), "ok" if not bad else bad))
limit = E.t975(100000)
print("t975(1e5) = %.4f (the normal 1.9600)" % limit)
# an interval by hand: 45 runs, mean 100, sd 10: half width t(44) * 10 / sqrt(45)
v = [100.0 + 10.0 * math.sqrt(44.0 / 45.0) * (1 if k % 2 else -1) for k in range(45)]
n, mean, sd, lo, hi = E.stats(v)
half = 2.0154 * sd / math.sqrt(45)
print("45 runs: mean %.3f sd %.3f interval [%.3f, %.3f] (half width %.3f; t(44) = 2.0154)" % (mean, sd, lo, hi,
                                                                                             (hi - lo) / 2))
ok = not bad and abs(limit - 1.96) < 0.0006 and n == 45 and abs((hi - lo) / 2 - half) < 1e-3
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
