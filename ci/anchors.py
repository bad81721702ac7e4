#!/usr/bin/env python3
"""ci/anchors.py -- the paper anchors in the sources, and docs/anchors.md made from them.

An anchor ties code to the paper it implements, in one form that grep finds:
    @alg{PAPER N}            Algorithm N of PAPER        @alg{DistGNN-MB 2}
    @alg{PAPER N, line L}    one line of it               @alg{DistGNN-MB 2, line 9}
    @alg{PAPER N, lines A-B} a range of lines             @alg{DistGNN-MB 1, lines 4-6}
    @eq{PAPER N}             Equation N                   @eq{DistGNN-MB 1}
    @eq{PAPER N-M}           Equations N to M             @eq{GAT 1-4} (not "Velickovic 2018, Eq. 1-4")
                             (N may be dotted: @eq{GIN 4.1})
    @sec{PAPER S}            a section without a number   @sec{DistGNN-MB 3.3}
PAPER is one of the names in PAPERS below (the seed papers and the models' own papers).

An anchor belongs to the function it is written in, or to the function whose leading comment
holds it, or else to its file (a file-header anchor). docs/anchors.md lists every anchor with
its file and function.

    python3 ci/anchors.py            write docs/anchors.md
    python3 ci/anchors.py --check    fail (exit 1) on a malformed anchor or when docs/anchors.md
                                     is not what the sources give (part of `make check`)
"""
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
OUT = os.path.join(ROOT, "docs", "anchors.md")
DIRS = ("core", "ref", "opt", "sim", "oracle", "cli", "include")
PAPERS = {
    "DistGNN-MB": "Vasimuddin et al., DistGNN-MB (seed 000)",
    "FastGL": "Zhu et al., FastGL, ASPLOS'24 (seed 001)",
    "Intel-FS": "Mostafa and Grabowski, fused sampling in DGL (seed 002)",
    "SuperGCN": "SuperGCN (seed 003)",
    "DistDGLv2": "Zheng et al., DistDGLv2 (seed 004)",
    "GAT": "Velickovic et al., Graph Attention Networks, ICLR 2018",
    "GCN": "Kipf and Welling, ICLR 2017",
    "GIN": "Xu et al., How Powerful are Graph Neural Networks?, ICLR 2019",
    "SAGE": "Hamilton et al., GraphSAGE, NeurIPS 2017",
    "Philox": "Salmon et al., Parallel random numbers: as easy as 1, 2, 3, SC'11",
    "Adam": "Kingma and Ba, Adam: A Method for Stochastic Optimization, ICLR 2015",
    "Glorot": "Glorot and Bengio, Understanding the difficulty of training deep feedforward networks, 2010",
    "LayerNorm": "Ba, Kiros and Hinton, Layer Normalization, 2016",
    "LDG": "Stanton and Kliot, Streaming graph partitioning for large distributed graphs, KDD 2012",
}
ANCHOR = re.compile(r"@(alg|eq|sec)\{([^}]*)\}")
BODY = {
    "alg": re.compile(r"^(?P<paper>[A-Za-z0-9-]+) (?P<num>\d+)(, (line (?P<line>\d+)|lines (?P<l0>\d+)-(?P<l1>\d+)))?$"),
    "eq": re.compile(r"^(?P<paper>[A-Za-z0-9-]+) (?P<num>\d+(\.\d+)?(-\d+(\.\d+)?)?)$"),
    "sec": re.compile(r"^(?P<paper>[A-Za-z0-9-]+) (?P<num>\d+(\.\d+)*)$"),
}
FUNC = re.compile(r"^(?:static\s+|inline\s+|const\s+|extern\s+|unsigned\s+|struct\s+)*[A-Za-z_][\w]*[\s\*]+\**"
                  r"([A-Za-z_]\w*)\s*\(")


def sources():
    for d in DIRS:
        for base, subdirs, files in os.walk(os.path.join(ROOT, d)):
            subdirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h", ".cu", ".cc")):
                    yield os.path.join(base, f)


def functions(lines):
    """(start, end, name) of every function definition (start: its first line; end: the line of
    its closing brace at column 0)."""
    out = []
    i = 0
    while i < len(lines):
        m = FUNC.match(lines[i])
        if m and not lines[i].startswith(("typedef", "#")):
            j = i
            while j < len(lines) and "{" not in lines[j] and ";" not in lines[j]:
                j += 1
            if j < len(lines) and "{" in lines[j] and ";" not in lines[j].split("{")[0]:
                k = j
                # a one-line body ends on its own line; otherwise at the next '}' in column 0
                if not (lines[j].rstrip().endswith("}") and lines[j].count("{") == lines[j].count("}")):
                    while k < len(lines) and not lines[k].startswith("}"):
                        k += 1
                out.append((i, k, m.group(1)))
                i = k + 1
                continue
        i += 1
    return out


def owner(lineno, funcs, lines):
    for start, end, name in funcs:
        if start <= lineno <= end:
            return name
    # the leading comment of the next function: only comment lines in between, no blank line
    for start, end, name in funcs:
        if start > lineno:
            between = lines[lineno + 1:start]
            if all(l.strip() and (l.lstrip().startswith(("/*", "*", "//")) or l.rstrip().endswith("*/"))
                   for l in between):
                return name
            break
    return None


def collect():
    anchors, errors = [], []
    for path in sources():
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        funcs = functions(lines)
        for n, line in enumerate(lines):
            for kind, body in ANCHOR.findall(line):
                m = BODY[kind].match(body.strip())
                if not m or m.group("paper") not in PAPERS:
                    errors.append(f"{rel}:{n + 1}: malformed anchor @{kind}{{{body}}} "
                                  f"(forms and paper names: ci/anchors.py)")
                    continue
                anchors.append((kind, body.strip(), rel, owner(n, funcs, lines)))
    return anchors, errors


def sort_key(a):
    kind, body, rel, fn = a
    paper, rest = body.split(" ", 1)
    nums = [int(x) for x in re.findall(r"\d+", rest)]
    return (paper, {"alg": 0, "eq": 1, "sec": 2}[kind], nums, rel, fn or "")


def render(anchors):
    out = ["# Paper anchors", "",
           "Every place in the code that implements a numbered algorithm, equation or section of a",
           "paper carries an anchor: `@alg{PAPER N, line L}`, `@eq{PAPER N}` or `@sec{PAPER S}`",
           "(forms in `ci/anchors.py`). This page is generated from the sources by",
           "`python3 ci/anchors.py`; `make check` fails when it is out of date. A function of `-`",
           "means a file-header anchor (the whole file implements it).", ""]
    by_paper = {}
    for a in sorted(set(anchors), key=sort_key):
        by_paper.setdefault(a[1].split(" ", 1)[0], []).append(a)
    for paper in sorted(by_paper):
        out += [f"## {paper}: {PAPERS[paper]}", "", "| anchor | file | function |", "| --- | --- | --- |"]
        for kind, body, rel, fn in by_paper[paper]:
            out.append(f"| `@{kind}{{{body}}}` | `{rel}` | {('`' + fn + '`') if fn else '-'} |")
        out.append("")
    return "\n".join(out)


def main():
    anchors, errors = collect()
    for e in errors:
        print(e)
    text = render(anchors)
    if "--check" in sys.argv:
        have = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if have != text:
            print("docs/anchors.md is out of date: run python3 ci/anchors.py")
            return 1
        print(f"anchors: {len(anchors)} anchors, docs/anchors.md up to date")
        return 1 if errors else 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"anchors: {len(anchors)} anchors written to docs/anchors.md")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
