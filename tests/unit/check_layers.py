#!/usr/bin/env python3
"""The layering of src/ (docs/architecture.md), checked on the source text.

Usage: check_layers.py SRC_DIR

1. Includes point down only:
     main (src/*.c, src/*.h) -> io, insitu -> core -> decomp, behavior -> kernels -> base
   A file may include headers of its own folder and of the layers below it;
   folders of the same layer (decomp, behavior; io, insitu) may not include each other.
2. kernels/backend_comm.h (the data-movement table) is included only by
   src/decomp/ and by the backends (src/kernels/cpu/, src/kernels/cuda/).
3. Only src/decomp/ calls MPI point-to-point (MPI_Send/Isend/Recv/Irecv/...).
4. No call cycle among the files of any one folder (src/decomp/, src/core/,
   ...): a file that calls a function defined in another file of its folder
   depends on it, and the dependencies must form no cycle.
5. No model pass is reachable from src/decomp/: no header it includes,
   directly or through other headers, is the pass table or a model's
   passes (kernels/pass_table.h, kernels/passes*.h, kernels/orca.h, ...).
Exit status 0 when all hold; 1 with one line per violation otherwise.
"""
import os
import re
import sys

LAYERS = {"base": 0, "kernels": 1, "decomp": 2, "behavior": 2, "core": 3, "io": 4, "insitu": 4, "": 5}
P2P = re.compile(r"\bMPI_(I?[sbr]?send|I?recv|Sendrecv\w*|Probe|Iprobe)\s*\(", re.I)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
DEFINE = re.compile(r"^(?!static)[A-Za-z_][\w \*]*?\b(thr_\w+)\s*\([^;{]*\)\s*\{", re.M)
CALL = re.compile(r"\b(thr_\w+)\s*\(")
MODEL_PASSES = re.compile(r"kernels/(pass_table|passes\w*|orca|powerlaw|formation|physics\w*)\.h$")


def layer_of(rel):
    top = rel.split("/")[0] if "/" in rel else ""
    return top, LAYERS.get(top)


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def main(src):
    problems = []
    files = []
    for dirpath, _, names in os.walk(src):
        for n in names:
            if n.endswith((".c", ".h", ".cu", ".cuh", ".cxx")):
                files.append(os.path.relpath(os.path.join(dirpath, n), src))
    for rel in sorted(files):
        top, mine = layer_of(rel)
        if mine is None:
            problems.append("%s: folder %s is in no layer" % (rel, top))
            continue
        text = open(os.path.join(src, rel), encoding="utf-8").read()
        for inc in INCLUDE.findall(text):
            if inc == "build_info.h":
                continue
            local = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
            target = local if os.path.exists(os.path.join(src, local)) else os.path.normpath(inc)
            if not os.path.exists(os.path.join(src, target)):
                problems.append("%s: includes %s, which is not in src/" % (rel, inc))
                continue
            ttop, theirs = layer_of(target)
            if theirs is None or theirs > mine:
                problems.append("%s (layer %s) includes %s (layer %s): dependencies must point down"
                                % (rel, top or "main", target, ttop or "main"))
            elif theirs == mine and ttop != top:
                problems.append("%s includes %s: folders %s and %s are siblings in one layer and must not "
                                "depend on each other" % (rel, target, top, ttop))
            if target == "kernels/backend_comm.h" and not (
                    rel.startswith(("decomp/", "kernels/cpu/", "kernels/cuda/")) or rel == "kernels/backend_comm.h"):
                problems.append("%s includes kernels/backend_comm.h, which is for src/decomp/ and the backends"
                                % rel)
        if not rel.startswith("decomp/") and P2P.search(strip_comments(text)):
            problems.append("%s calls MPI point-to-point; only src/decomp/ may" % rel)

    # call graph among the source files of each folder
    sources = [f for f in files if f.endswith((".c", ".cu", ".cxx"))]
    defined, body = {}, {}
    for rel in sources:
        text = strip_comments(open(os.path.join(src, rel), encoding="utf-8").read())
        body[rel] = text
        for name in DEFINE.findall(text):
            defined.setdefault(os.path.dirname(rel), {})[name] = rel
    edges = {rel: set() for rel in sources}
    for rel in sources:
        mine = defined.get(os.path.dirname(rel), {})
        for name in CALL.findall(body[rel]):
            other = mine.get(name)
            if other and other != rel:
                edges[rel].add(other)
    state = {}

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
                problems.append("call cycle in src/%s/: %s" % (os.path.dirname(node) or ".", " -> ".join(cycle)))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for rel in sources:
        if rel not in state:
            visit(rel, [rel])

    # headers reachable from src/decomp/
    def includes_of(rel):
        out = []
        text = strip_comments(open(os.path.join(src, rel), encoding="utf-8").read())
        for inc in INCLUDE.findall(text):
            local = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
            target = local if os.path.exists(os.path.join(src, local)) else os.path.normpath(inc)
            if os.path.exists(os.path.join(src, target)):
                out.append(target)
        return out

    for rel in sorted(f for f in files if f.startswith("decomp/")):
        seen, todo = {rel: None}, [rel]
        while todo:
            cur = todo.pop()
            for nxt in includes_of(cur):
                if nxt not in seen:
                    seen[nxt] = cur
                    todo.append(nxt)
        for h in sorted(seen):
            if MODEL_PASSES.match(h):
                chain, cur = [h], h
                while seen[cur] is not None:
                    cur = seen[cur]
                    chain.append(cur)
                problems.append("%s reaches the model passes %s (%s)" % (rel, h, " <- ".join(chain)))
    for p in problems:
        print("FAIL: " + p)
    if not problems:
        print("ok: %d files in layers main -> io -> core -> decomp, behavior -> kernels -> base; %d source files, "
              "%d call dependencies within folders, no cycle; no model pass reachable from src/decomp/"
              % (len(files), len(sources), sum(len(e) for e in edges.values())))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "src")))
