#!/usr/bin/env python3
"""The key tables of docs/configuration.md must be what `throng schema` prints.

usage: check_schema_docs.py THRONG_EXE CONFIGURATION_MD

Runs `THRONG_EXE schema`, splits its output into tables (runs of lines that
start with '|') and requires each one to be a table of the document,
verbatim: the same rows in the same order, none missing and none extra. On
a mismatch it names the table and its first row that the document lacks or
has differently, and shows the document's row there.
Exit status 0 when every table is found, 1 otherwise.
"""
import subprocess
import sys


def tables(lines):
    """[(heading, [row, ...]), ...]: each run of '|' lines and the heading above it."""
    found, heading, rows = [], "", []
    for line in lines + [""]:
        if line.startswith("|"):
            rows.append(line)
            continue
        if rows:
            found.append((heading, rows))
            rows = []
        if line.startswith("#"):
            heading = line
    return found


def first_difference(doc_tables, rows):
    """(generated row, document row or None) where the closest document table departs from rows."""
    def shared(doc):
        return len(set(doc[1]) & set(rows[2:]))
    best = max(doc_tables, key=shared, default=None)
    if best is None or shared(best) == 0:
        return rows[2] if len(rows) > 2 else rows[0], None
    doc = best[1]
    for i, row in enumerate(rows):
        if i >= len(doc) or doc[i] != row:
            return row, doc[i] if i < len(doc) else None
    return "(no such row)", doc[len(rows)]


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    exe, doc_path = argv[1], argv[2]
    res = subprocess.run([exe, "schema"], capture_output=True, text=True, timeout=60)
    if res.returncode != 0:
        print(f"FAIL: `{exe} schema` exited with status {res.returncode}: {res.stderr.strip()}")
        return 1
    generated = tables(res.stdout.split("\n"))
    if not generated:
        print(f"FAIL: `{exe} schema` printed no table")
        return 1
    with open(doc_path, encoding="utf-8") as f:
        doc_tables = tables(f.read().split("\n"))
    failed = 0
    for heading, rows in generated:
        if any(doc == rows for _, doc in doc_tables):
            print(f"ok: {heading} ({len(rows) - 2} rows)")
            continue
        failed += 1
        row, doc_row = first_difference(doc_tables, rows)
        print(f"FAIL: {heading}: {doc_path} differs from `throng schema` first here:")
        print(f"    throng schema: {row}")
        print(f"    document:      {doc_row if doc_row is not None else '(no such row)'}")
    if failed:
        print(f"{failed} of {len(generated)} table(s) differ; paste the output of `throng schema` over them")
        return 1
    print(f"PASS: all {len(generated)} tables of `throng schema` are in {doc_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
