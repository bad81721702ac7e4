#!/usr/bin/env python3
"""ci/check-doc-paths.py -- every path and library name a doc gives in backticks exists (part of
`make check`).

The docs are the newcomer's map; a renamed file must not leave them pointing at nothing.
Scans README.md and docs/*.md for `code spans` that look like a path into this tree (a
directory prefix such as core/ or docs/, or a file name with a source or doc extension) and
checks that the path exists relative to the repository root (or, for a bare file name, that a
file of that name exists somewhere in the tree); and that every library name in backticks
(`gnn_...`, `GNN_...`, or any `name()`) appears in the C sources. Spans that are commands, patterns or
placeholders are skipped: anything with a space, a wildcard, '<', '$', '...', '{', a URL, an
absolute path, or a path into ../shared (checked when ../shared is present).

Exit status 1 with one line per missing path (file:line: `path`), 0 when all exist.
Usage: python3 ci/check-doc-paths.py [REPO_ROOT]
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
TOP_DIRS = ("core/", "ref/", "opt/", "sim/", "oracle/", "cli/", "tests/", "bench/", "docs/", "ci/",
            "include/", "examples/", "datasets/", ".ci/")
EXTS = (".c", ".h", ".cc", ".cu", ".md", ".sh", ".py", ".in", ".supp")
SKIP_CHARS = (" ", "*", "<", ">", "$", "{", "}", "...", "|", "=", "(", ")", ",")
# names of other projects' files that docs cite (system headers, Graph500's validator)
EXTERNAL = {"check.h", "zlib.h", "metis.h", "cblas.h", "omp.h", "mpi.h", "json.h", "validate.c", "DESIGN.md",
            "STYLE.md"}


def source_text():
    """All of the tree's C sources and headers in one string, to look names up in."""
    chunks = []
    for d, subdirs, files in os.walk(ROOT):
        subdirs[:] = [s for s in subdirs if s not in (".git", "build")]
        for f in files:
            if f.endswith((".c", ".h", ".cc", ".cu")):
                with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                    chunks.append(fh.read())
    return "\n".join(chunks)


NAME = re.compile(r"^(gnn_[a-z0-9_]+|GNN_[A-Z0-9_]+|[a-z_][a-z0-9_]*(?=\(\)$))(\(\))?$")


def tree_files():
    names = set()
    for d, subdirs, files in os.walk(ROOT):
        subdirs[:] = [s for s in subdirs if s not in (".git", "build")]
        names.update(files)
    return names


def candidates(text):
    # code spans, not fenced blocks (those hold commands and output)
    in_fence = False
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for span in re.findall(r"`([^`\n]+)`", line):
            yield lineno, span.strip()


def looks_like_path(span):
    if any(c in span for c in SKIP_CHARS) or "://" in span or span.startswith(("/", "-", "~")):
        return False
    if "foo" in span or span in EXTERNAL:  # the how-to pages' placeholder kernel "foo"; other projects
        return False
    if span.startswith("../shared/"):
        return True
    if span.startswith(TOP_DIRS):
        return True
    if "/" not in span and span.endswith(EXTS) and not span.startswith("."):
        return True
    return False


def exists(span, doc_dir, names):
    if span.startswith("../shared/"):
        shared = os.path.join(ROOT, span)
        return os.path.exists(shared) or not os.path.isdir(os.path.join(ROOT, "..", "shared"))
    # "file.c:123" and "file.c:f()" name a place in a file
    path = re.sub(r":[^/]*$", "", span)
    if os.path.exists(os.path.join(ROOT, path)):
        return True
    path = path.rstrip("/")
    if "/" in path:
        return os.path.exists(os.path.join(ROOT, path)) or os.path.exists(os.path.join(doc_dir, path))
    return path in names


def main():
    names = tree_files()
    docs = [os.path.join(ROOT, "README.md")]
    ddir = os.path.join(ROOT, "docs")
    if os.path.isdir(ddir):
        docs += [os.path.join(ddir, f) for f in sorted(os.listdir(ddir)) if f.endswith(".md")]
    missing = 0
    checked = 0
    src = source_text()
    for doc in docs:
        if not os.path.exists(doc):
            continue
        with open(doc, encoding="utf-8") as f:
            text = f.read()
        for lineno, span in candidates(text):
            m = NAME.match(span)
            if m and "foo" not in span:  # a library name: it must be defined or declared somewhere in the tree
                checked += 1
                if not re.search(r"\b" + re.escape(m.group(1)) + r"\b", src):
                    print(f"{os.path.relpath(doc, ROOT)}:{lineno}: `{span}` is named nowhere in the sources")
                    missing += 1
                continue
            if not looks_like_path(span):
                continue
            checked += 1
            if not exists(span, os.path.dirname(doc), names):
                print(f"{os.path.relpath(doc, ROOT)}:{lineno}: `{span}` does not exist")
                missing += 1
    print(f"doc paths: {checked} checked, {missing} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
