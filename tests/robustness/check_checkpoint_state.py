#!/usr/bin/env python3
"""Damaged checkpoints (label `robustness`, issue 38): a restart from a
checkpoint whose bytes were changed after it was written must be refused
(exit 2, a message naming the file and the dataset), never crash, never go
on with corrupted state, never trip a sanitizer.

Usage: check_checkpoint_state.py THRONG CASE

Checkpoints come from three scenarios that between them fill every /state
dataset: tests/data/evacuation/ranks.yaml at step 400 (a ticket queue with
three agents holding position, round-robin transitions, a source, a
measurement area, line and maps: state/evacuation, state/measurement,
state/outputs), tests/formations/data/crossing-small.yaml at step 400
(state/formations) and tests/data/mpi/exit-choice.yaml at step 150 (exit
choice by time: state/routing).

Cases (each prints what it saw and exits 0 when every check holds; 77 skips
with the reason when h5py or HDF5 checkpoints are missing):
  mutate    one 32-bit word changed (bit flips, 0, -1, 10^6, 2^31, ...) at offsets spread over every
            non-empty /state blob (at least 48 in all), plus bytes of /scenario_text, agent rows
            (agents/x, agents/journey, agents/id), a /parameters value, the root attributes step and
            agent_steps, and a checksum attribute itself: every restart exits 2 naming the file, the
            dataset and "checksum"; no output directory is left
  content   the same words changed AND the dataset's checksum attribute recomputed (FNV-1a 64 of its
            bytes), so that only the bounds checks of the unpacking stand between the bytes and the
            run: targeted out-of-range values (a slot's journey 10^6, a queue of 10^6 agents, 10^6
            formations, an unknown waypoint, line or exit counts that differ, ...) exit 2 naming the
            dataset; the spread mutations exit 0 (a plausible value) or 2 (the dataset named), never
            anything else
  version   a checkpoint of format version 2 (no checksums but the agents') still restarts, with a
            warning naming the version; version 1 is refused naming it; a version-2 file with an
            out-of-range queue length is refused by the bounds checks (the dataset named)

Every run's stderr must be free of sanitizer reports ("runtime error", "AddressSanitizer"); UBSan is
asked to stop at its first report (UBSAN_OPTIONS=halt_on_error=1), so an ASan/UBSan build of throng runs
these cases as they are.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCENARIOS = {  # name: (scenario, checkpoint step)
    "ranks": (os.path.join(ROOT, "tests", "data", "evacuation", "ranks.yaml"), 400),
    "crossing": (os.path.join(ROOT, "tests", "formations", "data", "crossing-small.yaml"), 400),
    "choice": (os.path.join(ROOT, "tests", "data", "mpi", "exit-choice.yaml"), 150),
}
STATE = ["state/evacuation", "state/formations", "state/measurement", "state/outputs", "state/routing"]
SPREAD = 8  # words changed per non-empty blob (at most one per word)
RESTART_STEPS = 120  # a restart runs this far: long enough for queue departures and source spawns (2.5 s)
# what a changed word becomes: (name, function of the old value)
PATTERNS = [("lowest bit flipped", lambda v: v ^ 0x1), ("-1 (all ones)", lambda v: 0xFFFFFFFF),
            ("10^6", lambda v: 1000000), ("2^31", lambda v: 0x80000000), ("bit 24 flipped", lambda v: v ^ 0x1000000),
            ("0", lambda v: 0), ("bit 8 flipped", lambda v: v ^ 0x100), ("2^31 - 1", lambda v: 0x7FFFFFFF)]
SANITIZER = ("runtime error", "AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer")
problems = []


class Skip(Exception):
    pass


def check(cond, what):
    print(("ok:   " if cond else "FAIL: ") + what)
    if not cond:
        problems.append(what)
    return cond


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for c in data:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def as_i64(u):
    return u - (1 << 64) if u >= 1 << 63 else u


class Runner:
    def __init__(self, throng, tmp):
        self.throng, self.tmp, self.n = throng, tmp, 0
        self.env = dict(os.environ, OMP_NUM_THREADS="1")
        ub = self.env.get("UBSAN_OPTIONS", "")
        self.env["UBSAN_OPTIONS"] = (ub + ":" if ub else "") + "halt_on_error=1:print_stacktrace=1"

    def run(self, args, quiet=False):
        p = subprocess.run([self.throng] + args, cwd=self.tmp, env=self.env, capture_output=True, text=True,
                           errors="replace", timeout=300)
        if not quiet or p.returncode not in (0, 2):
            print("$ throng %s\n  exit %d\n  stderr: %s" % (" ".join(args), p.returncode, p.stderr.strip()[-900:]))
        return p

    def checkpoints(self):
        """{name: (scenario, step, checkpoint path)} written by this throng."""
        out = {}
        for name, (scen, step) in SCENARIOS.items():
            d = os.path.join(self.tmp, "run-" + name)
            p = self.run(["run", scen, "--steps", str(step), "--out", d, "--quiet",
                          "--set", "output.checkpoint_every=%d" % step])
            if p.returncode == 2 and "without HDF5" in p.stderr:
                raise Skip("this throng was built without HDF5: no checkpoints")
            if not check(p.returncode == 0, "%s: the run writing a checkpoint at step %d exits 0" % (name, step)):
                raise SystemExit(1)
            out[name] = (scen, step, os.path.join(d, "checkpoints", "checkpoint-%08d.h5" % step))
        return out

    def restart(self, scen, step, ck, quiet=True):
        """Restarts from ck for RESTART_STEPS steps: (process, its output directory)."""
        self.n += 1
        out = os.path.join(self.tmp, "again-%d" % self.n)
        return self.run(["run", scen, "--restart", ck, "--steps", str(step + RESTART_STEPS), "--out", out, "--quiet"],
                        quiet=quiet), out

    def copy(self, ck, tag):
        self.n += 1
        path = os.path.join(self.tmp, "%s-%d.h5" % (tag, self.n))
        shutil.copyfile(ck, path)
        return path


def sanitizer_free(p):
    return not any(s in p.stderr for s in SANITIZER)


def expect_refused(r, scen, step, ck, words, what):
    """A restart from ck exits 2 naming ck and every one of words, no signal, no sanitizer report, no output
    directory."""
    p, out = r.restart(scen, step, ck)
    ok = (p.returncode == 2 and ck in p.stderr and all(w in p.stderr for w in words) and sanitizer_free(p)
          and not os.path.exists(out))
    if not ok:
        print("$ (restart from %s)\n  exit %d\n  stderr: %s" % (ck, p.returncode, p.stderr.strip()[-900:]))
    else:
        print("  said: " + p.stderr.strip().splitlines()[-1].replace(ck, "FILE"))
    check(ok, "%s: exit 2 (got %d), the file and %s named, no output directory"
          % (what, p.returncode, " and ".join(repr(w) for w in words)))
    return p


def word_offsets(n):
    """SPREAD 4-byte aligned offsets spread over n bytes, the first and the last word among them."""
    words = n // 4
    if words <= SPREAD:
        return [4 * k for k in range(words)]
    return sorted({4 * (k * (words - 1) // (SPREAD - 1)) for k in range(SPREAD)})


def change_word(data, off, k):
    """data with the little-endian word at off changed by pattern k (another pattern if that changes
    nothing): (new bytes, description)."""
    old = struct.unpack_from("<I", data, off)[0]
    for j in range(len(PATTERNS)):
        name, f = PATTERNS[(k + j) % len(PATTERNS)]
        new = f(old) & 0xFFFFFFFF
        if new != old:
            b = bytearray(data)
            struct.pack_into("<I", b, off, new)
            return bytes(b), "word at byte %d: 0x%08x -> 0x%08x (%s)" % (off, old, new, name)
    raise AssertionError("no pattern changes 0x%08x" % old)


def write_bytes(path, name, data, recompute):
    import h5py
    import numpy
    with h5py.File(path, "r+") as f:
        d = f[name]
        d[...] = numpy.frombuffer(data, dtype=numpy.uint8)
        if recompute:
            d.attrs["checksum"] = numpy.int64(as_i64(fnv1a64(data)))


def blob(ck, name):
    import h5py
    with h5py.File(ck, "r") as f:
        return bytes(f[name][()]) if name in f else b""


def spread_mutations(cks):
    """[(scenario name, dataset, offset, pattern index)] over every non-empty /state blob."""
    out = []
    for name, (_, _, ck) in sorted(cks.items()):
        for ds in STATE:
            for i, off in enumerate(word_offsets(len(blob(ck, ds)))):
                out.append((name, ds, off, len(out) + i))
    return out


# ---- mutate -------------------------------------------------------------------------

def mutate(r):
    import h5py
    import numpy
    cks = r.checkpoints()
    for name, (scen, step, ck) in sorted(cks.items()):
        p, _ = r.restart(scen, step, ck, quiet=False)
        check(p.returncode == 0 and sanitizer_free(p), "%s: the checkpoint itself restarts (control)" % name)
    muts = spread_mutations(cks)
    per = {}
    for name, ds, _, _ in muts:
        per[ds] = per.get(ds, 0) + 1
    check(len(muts) >= 48 and len(per) == len(STATE),
          "%d word changes over every /state dataset (%s)" % (len(muts), ", ".join("%s %d" % kv for kv in
                                                                                    sorted(per.items()))))
    for name, ds, off, k in muts:
        scen, step, ck = cks[name]
        bad = r.copy(ck, "mut")
        data, what = change_word(blob(ck, ds), off, k)
        write_bytes(bad, ds, data, recompute=False)
        expect_refused(r, scen, step, bad, [ds, "checksum"], "%s %s %s" % (name, ds, what))
    # the other datasets and the attributes
    scen, step, ck = cks["ranks"]
    text = blob(ck, "scenario_text")
    for off in (0, len(text) // 2, len(text) - 1):
        bad = r.copy(ck, "text")
        b = bytearray(text)
        b[off] ^= 0x20
        write_bytes(bad, "scenario_text", bytes(b), recompute=False)
        expect_refused(r, scen, step, bad, ["scenario_text", "checksum"], "ranks scenario_text byte %d" % off)
    for field, row, col, value in (("x", 17, 0, None), ("journey", 0, None, 1000000), ("id", 5, None, 1)):
        bad = r.copy(ck, "agents")
        with h5py.File(bad, "r+") as f:
            d = f["agents/" + field]
            if value is None:
                v = d[row, col]
                d[row, col] = numpy.nextafter(v, numpy.float32(1e9), dtype=numpy.float32)
            else:
                d[row] = value if d[row] != value else value + 1
        expect_refused(r, scen, step, bad, ["agents/" + field, "checksum"], "ranks agents/%s row %d" % (field, row))
    bad = r.copy(ck, "param")
    with h5py.File(bad, "r+") as f:
        g = f["parameters"]
        key = sorted(k for k in g.attrs if k.startswith("solver."))[0]
        old = g.attrs[key]
        g.attrs[key] = (old.decode() if isinstance(old, bytes) else str(old)) + "1"
    expect_refused(r, scen, step, bad, ["parameters", "checksum"], "ranks /parameters %s changed" % key)
    for attr, value in (("step", numpy.int64(step + 1)), ("agent_steps", numpy.float64(1.5))):
        bad = r.copy(ck, "attr")
        with h5py.File(bad, "r+") as f:
            f.attrs[attr] = value
        expect_refused(r, scen, step, bad, ["root attributes", "checksum"], "ranks root attribute %s changed" % attr)
    bad = r.copy(ck, "sum")
    with h5py.File(bad, "r+") as f:
        d = f["state/evacuation"]
        d.attrs["checksum"] = numpy.int64(int(d.attrs.get("checksum", 0)) ^ 0x10)
    expect_refused(r, scen, step, bad, ["state/evacuation", "checksum"], "ranks state/evacuation's checksum changed")


# ---- content ------------------------------------------------------------------------

def MAP_SAMPLES(b):
    """Where state/measurement keeps the map samples: after the line and cell
    counts, the line crossings and the two sums per cell (then the cells'
    peaks, samples above the threshold and last steps: src/core/measure.c)."""
    lines, cells = struct.unpack_from("<qq", b, 0)
    return 16 + 8 * (lines + 2 * cells)


def content(r):
    cks = r.checkpoints()
    # (scenario, dataset, [(offset or -offset from the end, int64 value)], what); layouts as the pack
    # functions write them (src/core/evac.c, formations.c, measure.c, congestion.c, src/io/evac_output.c)
    i64 = "<q"
    targeted = [
        ("ranks", "state/evacuation", [(12, "<i", 1000000)], "the journey of the agent in the ticket queue's slot 0: "
         "10^6"),
        ("ranks", "state/evacuation", [(0, "<I", 1000000)], "a slot's occupant id 10^6 (past the ids given)"),
        ("ranks", "state/evacuation", [(48, i64, 1000000)], "a queue of 10^6 agents"),
        ("ranks", "state/evacuation", [(48, i64, -1)], "a queue of -1 agents"),
        ("ranks", "state/evacuation", [(56, "<I", 1000000)], "an agent holding position with id 10^6"),
        ("ranks", "state/evacuation", [(-24, i64, 1000000)], "the next agent id 10^6 (not what sources added)"),
        ("ranks", "state/evacuation", [(-8, i64, 7)], "the id-limit flag 7"),
        ("crossing", "state/formations", [(0, i64, 1000000)], "10^6 formations"),
        ("crossing", "state/formations", [(8, i64, 1000000)], "a formation's waypoint 10^6"),
        ("crossing", "state/formations", [(16, i64, 5)], "a formation's arrived flag 5"),
        ("crossing", "state/formations", [(24, "<I", 0x7FC00000)], "a formation's position NaN"),
        ("ranks", "state/measurement", [(0, i64, 5)], "5 measurement lines (the scenario has 1)"),
        ("ranks", "state/measurement", [(8, i64, 1000000)], "10^6 map cells"),
        ("ranks", "state/measurement", [(MAP_SAMPLES, i64, -1)], "-1 map samples"),
        ("ranks", "state/measurement", [(-8, i64, -5)], "a map cell last occupied at step -5"),
        ("ranks", "state/outputs", [(0, i64, 7)], "7 exits (the scenario has 2)"),
        ("ranks", "state/outputs", [(16, i64, -3)], "an exit count of -3"),
        ("ranks", "state/outputs", [(40, i64, 1000000)], "10^6 leaving times"),
        ("choice", "state/routing", [(0, i64, 1)], "a routing grid of 1 count"),
        ("choice", "state/routing", [(8, i64, 9)], "9 exits in the routing state (the scenario has 2)"),
        ("choice", "state/routing", [(16, i64, 7)], "the recomputed flag 7"),
        ("choice", "state/routing", [(-4, "<I", 0x7FC00000)], "an exit's queue time NaN"),
    ]
    # the first case changes the journey of an agent in a slot (its release follows it, RESTART_STEPS)
    check(struct.unpack_from("<I", blob(cks["ranks"][2], "state/evacuation"), 0)[0] != 0xFFFFFFFF,
          "ranks: the ticket queue's slot 0 is taken at the checkpoint")
    for name, ds, changes, what in targeted:
        scen, step, ck = cks[name]
        b = bytearray(blob(ck, ds))
        for off, fmt, value in changes:
            off = off(b) if callable(off) else off
            struct.pack_into(fmt, b, off if off >= 0 else len(b) + off, value)
        bad = r.copy(ck, "content")
        write_bytes(bad, ds, bytes(b), recompute=True)
        expect_refused(r, scen, step, bad, [ds], "%s %s: %s, checksum recomputed" % (name, ds, what))
    counts = {0: 0, 2: 0}
    for name, ds, off, k in spread_mutations(cks):
        scen, step, ck = cks[name]
        bad = r.copy(ck, "spread")
        data, what = change_word(blob(ck, ds), off, k)
        write_bytes(bad, ds, data, recompute=True)
        p, out = r.restart(scen, step, bad)
        ok = sanitizer_free(p) and (p.returncode == 0 or (p.returncode == 2 and ds in p.stderr and bad in p.stderr
                                                          and not os.path.exists(out)))
        if p.returncode in counts:
            counts[p.returncode] += 1
        if not ok:
            print("  stderr: %s" % p.stderr.strip()[-900:])
        elif p.returncode:
            print("  said: " + p.stderr.strip().splitlines()[-1].replace(bad, "FILE"))
        check(ok, "%s %s %s, checksum recomputed: exit 0 or 2 naming the dataset (got %d)"
              % (name, ds, what, p.returncode))
    print("spread with recomputed checksums: %d refused, %d plausible (restarted)" % (counts[2], counts[0]))


# ---- version ------------------------------------------------------------------------

def version(r):
    import h5py
    import numpy
    cks = r.checkpoints()
    scen, step, ck = cks["ranks"]

    def as_version(v, strip):
        path = r.copy(ck, "v%d" % v)
        with h5py.File(path, "r+") as f:
            if strip:
                def drop(_, o):
                    if "checksum" in o.attrs:
                        del o.attrs["checksum"]
                f.visititems(drop)
                for a in ("checksum", "parameters_checksum"):
                    if a in f.attrs:
                        del f.attrs[a]
            f.attrs["version"] = numpy.int64(v)
        return path
    v2 = as_version(2, True)
    p, _ = r.restart(scen, step, v2, quiet=False)
    check(p.returncode == 0 and "version 2" in p.stderr and "checksum" in p.stderr and sanitizer_free(p),
          "a version-2 checkpoint restarts (exit %d) with a warning naming the version and the missing checksums"
          % p.returncode)
    expect_refused(r, scen, step, as_version(1, True), ["checkpoint format version 1"], "a version-1 checkpoint")
    bad = as_version(2, True)
    b = bytearray(blob(ck, "state/evacuation"))
    struct.pack_into("<q", b, 48, 1000000)
    write_bytes(bad, "state/evacuation", bytes(b), recompute=False)
    expect_refused(r, scen, step, bad, ["state/evacuation"], "a version-2 checkpoint with a queue of 10^6 agents")


CASES = {"mutate": mutate, "content": content, "version": version}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("throng")
    ap.add_argument("case", choices=sorted(CASES))
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="throng-ckpt-state-")
    try:
        try:
            import h5py  # noqa: F401
            import numpy  # noqa: F401
        except ImportError as e:
            raise Skip("%s has no h5py/numpy (%s); install python3-h5py" % (sys.executable, e))
        CASES[a.case](Runner(os.path.abspath(a.throng), tmp))
    except Skip as e:
        print("SKIP: %s" % e)
        return 77
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if problems:
        print("\n%d problem(s):\n  %s" % (len(problems), "\n  ".join(problems)))
        return 1
    print("\nall checks hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
