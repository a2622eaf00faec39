#!/usr/bin/env python3
"""Seed corpus and dictionary of the scenario fuzzers (docs/testing.md).

usage: make_corpus.py THRONG_EXE SOURCE_DIR CORPUS_DIR DICT_FILE

CORPUS_DIR gets every configs/**/*.yaml and tests/data/**/*.yaml of
SOURCE_DIR and every input of tests/fuzz/regressions/, named after its path,
plus a few copies of the smallest good scenarios with "#set KEY=VALUE" lines (the
fuzzers' override format, tests/fuzz/fuzz_input.h). DICT_FILE (libFuzzer's
-dict format) gets every key name and choice word of `THRONG_EXE schema` and
the YAML tokens the scenario parser treats specially.
"""
import pathlib
import re
import subprocess
import sys

SEED_GLOBS = ("configs/**/*.yaml", "tests/data/**/*.yaml", "tests/fuzz/regressions/*")
# overrides appended to small seeds, so that the fuzzers start with working ones
SET_LINES = ("#set solver.iterations=8", "#set agents[0].count=3", "#set goals=[{name: a, point: [1, 1]}]",
             "#set name=x\\x1by")
SEEDS_WITH_SETS = 4
YAML_TOKENS = (": ", "- ", "? ", "[", "]", "{", "}", ", ", "---", "...", "#", "#set ", "!!str ", "!", "&a ", "*a",
               "<<: ", "|", ">", "'", '"', "\\x1b", "\\0", "\\u2028", ".inf", "-.inf", ".nan", "~", "null", "true",
               "false", "1/48", "1e9", "-0", "%YAML 1.1", "%TAG ! tag:x,2000:", "\t", "\r\n", "\xc2\x85",
               "\xef\xbb\xbf", "\xff\xfe", "\xfe\xff")


def seed_files(src):
    files = set()
    for pattern in SEED_GLOBS:
        files.update(p for p in src.glob(pattern) if p.is_file() and p.name != "README.md")
    return sorted(files)


def write_corpus(src, corpus):
    corpus.mkdir(parents=True, exist_ok=True)
    for old in corpus.iterdir():
        old.unlink()
    seeds = seed_files(src)
    for path in seeds:
        name = str(path.relative_to(src)).replace("/", "__")
        (corpus / name).write_bytes(path.read_bytes())
    good = (p for p in seeds if p.suffix == ".yaml" and p.parent.name not in ("bad", "regressions"))
    smallest = sorted(good, key=lambda p: p.stat().st_size)
    for k, path in enumerate(smallest[:SEEDS_WITH_SETS]):
        text = path.read_bytes().rstrip(b"\n") + b"\n" + SET_LINES[k % len(SET_LINES)].encode() + b"\n"
        (corpus / f"with_set_{k}__{path.name}").write_bytes(text)
    return len(seeds) + min(SEEDS_WITH_SETS, len(smallest))


def schema_words(throng):
    """Key names (each part of every key path) and choice words of `throng schema`."""
    text = subprocess.run([throng, "schema"], check=True, capture_output=True, text=True).stdout
    words = set()
    for line in text.splitlines():
        cells = line.split("|")
        if len(cells) < 4:
            continue
        for key in re.findall(r"`([^`]+)`", cells[1]):
            words.update(part.replace("[]", "") for part in key.split("."))
        words.update(re.findall(r"`([A-Za-z_]+)`", cells[2]))
    words.discard("")
    return sorted(words)


def dict_entry(token):
    """A -dict line; token's characters are bytes (latin-1), so that it can hold any."""
    escaped = "".join(chr(b) if 0x20 <= b < 0x7F and chr(b) not in '"\\' else f"\\x{b:02X}"
                      for b in token.encode("latin-1"))
    return f'"{escaped}"'


def write_dict(throng, path):
    words = schema_words(throng)
    lines = ["# scenario keys and choices (throng schema)"]
    lines += [dict_entry(w) for w in words] + [dict_entry(w + ": ") for w in words]
    lines += ["# YAML the scenario parser treats specially"] + [dict_entry(t) for t in YAML_TOKENS]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return len(words)


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    throng, src, corpus, dict_file = argv[1], pathlib.Path(argv[2]), pathlib.Path(argv[3]), pathlib.Path(argv[4])
    seeds = write_corpus(src, corpus)
    words = write_dict(throng, dict_file)
    print(f"make_corpus: {seeds} seeds in {corpus}, {words} schema words in {dict_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
