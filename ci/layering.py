#!/usr/bin/env python3
"""ci/layering.py -- the folders of the library depend on each other one way only (part of
`make check`: the check-layering stage, with --self-test; issue 35 items 2 and 3).

Every file includes the public headers (include/gnnref/), so #include lines hide who really
uses whom. This script measures the dependencies at the SYMBOL level: it runs `nm` on each
object of the build (BUILD/obj/**.o, BUILD defaults to build; objects whose source is gone
are stale and skipped), takes each object's undefined symbols and finds the object that
defines them; an object's folder is its source's folder (core/base, core/io, ref, opt/cpu,
opt/cuda, opt/mpi, sim, oracle, cli, ...). It prints the folder graph (A -> B: symbols of B
that A uses, with the count), the #include "..." edges between folders (private headers;
include/gnnref/ is left out), and fails (exit 1) on

    two-way: A <-> B          A uses a symbol of B and B one of A (the symbols are named)
    core->ref: OBJ uses SYM   an object of core/ outside the implementation context's room
                              (core/api) refers to a function or table defined in ref/: only
                              the context picks the reference tables, so ref/ stays the
                              specification and core/ never calls around the context

Usage:
    python3 ci/layering.py [--build DIR] [--root DIR]   the graph, then the check
    python3 ci/layering.py --self-test                  compiles tiny objects in a temporary
        tree (a two-way pair core/x <-> core/y, a core/train -> ref call, a core/api -> ref
        reference that is allowed) and shows the two faults are reported and the allowed one
        is not; then a clean tree that passes
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

API_ROOM = "core/api"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def find_objects(root, build):
    """[(folder, source, object path)] for every object of build/obj whose source exists."""
    objdir = os.path.join(root, build, "obj")
    out = []
    for d, _, files in os.walk(objdir):
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            full = os.path.join(d, f)
            rel = os.path.relpath(full, objdir)
            src = None
            base = rel[:-2]
            for cand in ((base,) if base.endswith(".cu") else (base + ".c", base + ".cc")):
                if os.path.isfile(os.path.join(root, cand)):
                    src = cand
            if src is None:
                continue  # stale: the source moved or is gone
            out.append((os.path.dirname(src), src, full))
    return sorted(out)


def nm_symbols(path):
    """(defined {name: type}, undefined set) of one object, via nm -P."""
    res = subprocess.run(["nm", "-P", path], capture_output=True, text=True, check=True)
    defs, undefs = {}, set()
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, typ = parts[0], parts[1]
        if typ in ("U", "w", "v") and (len(parts) < 3 or typ == "U"):
            undefs.add(name)
        elif typ.isupper():
            defs[name] = typ
    return defs, undefs


def analyse(objects):
    """objects: [(folder, object name, defs {sym: type}, undefs set)].
    Returns (graph {(a, b): set of symbols}, core->ref offences [(obj, sym)])."""
    definer = collections.defaultdict(list)
    for folder, name, defs, _ in objects:
        for sym, typ in defs.items():
            definer[sym].append((folder, name, typ))
    graph = collections.defaultdict(set)
    core_ref = []
    for folder, name, _, undefs in objects:
        for sym in sorted(undefs):
            for dfolder, _dname, _typ in definer.get(sym, ()):
                if dfolder != folder:
                    graph[(folder, dfolder)].add(sym)
                if ((folder == "core" or folder.startswith("core/")) and dfolder == "ref"
                        and folder != API_ROOM and not folder.startswith(API_ROOM + "/")):
                    core_ref.append((name, sym))
    return graph, sorted(set(core_ref))


def two_way(graph):
    pairs = []
    for (a, b) in sorted(graph):
        if a < b and (b, a) in graph:
            pairs.append((a, b))
    return pairs


def include_edges(root, sources):
    """{(folder a, folder b): count} of #include "..." lines from a file of a to a private
    header of b (include/gnnref/ and generated headers left out)."""
    edges = collections.Counter()
    seen = set()
    todo = list(sources)
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        try:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError:
            continue
        for inc in INCLUDE_RE.findall(text):
            target = None
            for cand in (os.path.normpath(os.path.join(os.path.dirname(f), inc)),
                         os.path.normpath(inc), os.path.normpath(os.path.join("include", inc))):
                if os.path.isfile(os.path.join(root, cand)):
                    target = cand
                    break
            if target is None or target.startswith("include/"):
                continue
            a, b = os.path.dirname(f), os.path.dirname(target)
            if a != b:
                edges[(a, b)] += 1
            todo.append(target)
    return edges


def report(graph, core_ref, incs, out=sys.stdout, verbose=False):
    folders = sorted({a for a, _ in graph} | {b for _, b in graph})
    print("symbol graph (A -> B: B's symbols that A uses):", file=out)
    for a in folders:
        targets = sorted(b for (x, b) in graph if x == a)
        if not targets:
            continue
        print("  %-10s -> %s" % (a, ", ".join("%s (%d)" % (b, len(graph[(a, b)]))
                                                for b in targets)), file=out)
        if verbose:
            for b in targets:
                print("      %s: %s" % (b, " ".join(sorted(graph[(a, b)]))), file=out)
    if incs is not None:
        print('#include "..." edges between folders (private headers):', file=out)
        for a in sorted({a for a, _ in incs}):
            targets = sorted(b for (x, b) in incs if x == a)
            print("  %-10s -> %s" % (a, ", ".join("%s (%d)" % (b, incs[(a, b)])
                                                    for b in targets)), file=out)
    bad = 0
    for a, b in two_way(graph):
        bad += 1
        print("layering: two-way: %s <-> %s (%s -> %s: %s; %s -> %s: %s)" % (
            a, b, a, b, " ".join(sorted(graph[(a, b)])[:6]), b, a,
            " ".join(sorted(graph[(b, a)])[:6])), file=out)
    if incs is not None:
        for (a, b) in sorted(incs):
            if a < b and (b, a) in incs:
                bad += 1
                print('layering: two-way #include: %s <-> %s' % (a, b), file=out)
    for obj, sym in core_ref:
        bad += 1
        print("layering: core->ref: %s uses %s of ref/ outside the context (%s)" % (
            obj, sym, API_ROOM), file=out)
    return bad


def check_tree(root, build, verbose=False, out=sys.stdout):
    objs = find_objects(root, build)
    if not objs:
        print("layering: no objects under %s/obj (build first: make all)" % build, file=out)
        return 2
    table = []
    for folder, src, path in objs:
        defs, undefs = nm_symbols(path)
        table.append((folder, src, defs, undefs))
    graph, core_ref = analyse(table)
    incs = include_edges(root, [src for _, src, _ in objs])
    bad = report(graph, core_ref, incs, out=out, verbose=verbose)
    if bad:
        print("layering: FAIL (%d offence%s)" % (bad, "" if bad == 1 else "s"), file=out)
        return 1
    print("layering: PASS (%d objects in %d folders; no two-way dependency, no core->ref call "
          "outside %s)" % (len(objs), len({o[0] for o in objs}), API_ROOM), file=out)
    return 0


def self_test():
    cc = os.environ.get("CC", "cc")
    faulty = {
        "core/x/a.c": "int gnn_y_fn(void);\nint gnn_x_fn(void) { return gnn_y_fn(); }\n",
        "core/y/b.c": "int gnn_x_fn(void);\nint gnn_y_fn(void) { return 1; }\n"
                      "int gnn_y_other(void) { return gnn_x_fn(); }\n",
        "core/train/t.c": "double gnn_ref_adam(double);\n"
                          "double gnn_train_step(double w) { return gnn_ref_adam(w); }\n",
        "core/api/impl.c": "extern const int gnn_ref_table;\n"
                           "int gnn_impl_pick(void) { return gnn_ref_table; }\n",
        "ref/nn.c": "double gnn_ref_adam(double w) { return w * 0.5; }\n"
                    "const int gnn_ref_table = 3;\n",
    }
    clean = dict(faulty)
    clean["core/y/b.c"] = "int gnn_y_fn(void) { return 1; }\n"
    clean["core/train/t.c"] = "double gnn_train_step(double w) { return w; }\n"
    ok = True
    for label, files, expect in (("planted faults", faulty, 1), ("clean tree", clean, 0)):
        tmp = tempfile.mkdtemp(prefix="gnn-layering-")
        try:
            for rel, text in files.items():
                src = os.path.join(tmp, rel)
                obj = os.path.join(tmp, "build", "obj", rel[:-2] + ".o")
                os.makedirs(os.path.dirname(src), exist_ok=True)
                os.makedirs(os.path.dirname(obj), exist_ok=True)
                with open(src, "w") as fh:
                    fh.write(text)
                subprocess.run([cc, "-c", "-O0", src, "-o", obj], check=True)
            import io
            buf = io.StringIO()
            rc = check_tree(tmp, "build", out=buf)
            text = buf.getvalue()
            print("--- self-test: %s (exit %d, expected %d)" % (label, rc, expect))
            print(text, end="")
            if rc != expect:
                ok = False
            if expect == 1:
                for needle in ("two-way: core/x <-> core/y",
                               "core->ref: core/train/t.c uses gnn_ref_adam"):
                    if needle not in text:
                        print("self-test: NOT reported: %s" % needle)
                        ok = False
                if "core/api/impl.c" in text.split("symbol graph")[0] or \
                        "core->ref: core/api" in text:
                    print("self-test: the context's reference to ref/ was reported")
                    ok = False
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("layering self-test: %s" % ("PASS (the two-way pair and the core->ref call were "
                                      "reported, the context's use of ref/ was not, the clean "
                                      "tree passed)" if ok else "FAIL"))
    return 0 if ok else 1


def main(argv):
    root, build, verbose = ".", os.environ.get("BUILD", "build"), False
    args = list(argv)
    if "--self-test" in args:
        return self_test()
    while args:
        a = args.pop(0)
        if a == "--build":
            build = args.pop(0)
        elif a == "--root":
            root = args.pop(0)
        elif a in ("-v", "--verbose"):
            verbose = True
        else:
            print(__doc__)
            return 2
    return check_tree(root, build, verbose=verbose)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
