#!/usr/bin/env python3
"""ci/check-doc-paths.py -- the docs say what the tree holds, and nothing else (part of `make check`).

The docs are the newcomer's map; a renamed file, a new subsystem or a removed function must not
leave them pointing at nothing, or leave a part of the tree off the map. Plain Python 3, standard
library only. What it checks, in README.md and docs/*.md:

1. Paths. Every `code span` (not fenced blocks: those hold commands and output) that looks like
   a path into this tree (a directory prefix such as core/ or docs/, or a file name with a source
   or doc extension) exists, relative to the repository root or the page's folder (a bare file
   name: a file of that name somewhere in the tree). In a span with spaces (a command line), each
   word that starts with a top directory of the tree is checked the same way. Skipped: spans with
   a wildcard, '<', '$', '...', '{', a URL, an absolute path; paths into ../shared are checked when
   ../shared is present.
2. Library names. A span that is one name, `gnn_...`, `GNN_...` or `name()`, must be named in the
   C sources (.c, .h, .cc, .cu) outside comments; string literals count, so an environment
   variable read by getenv("GNN_...") is found.
3. Functions with arguments. In any span, a snake_case name followed at once by '('
   (`gnn_foo(a, b)`, `Suite *suite_x(void)`, `x = gnn_y(p, ...)`) must be named in the C sources
   outside comments. Not checked: names without an underscore (the docs' mathematics: `ceil(x)`,
   `ulp(n)`), a name with a space before '(' (`N_train (1 - p)`: a product in the mathematics),
   a name after '.', '-' or '/' (oracle case strings: `aggregate.mean.fwd(impl=...)`),
   placeholders (a part `NAME`, or the kernel `foo` in a section whose heading starts with
   "Adding", the how-to sections of architecture.md and oracle.md), and the names in EXTERNAL_FUNCS
   below (other projects' functions and the pages' mathematics, each with its reason).
4. docs/architecture.md is the whole map:
   a. every .c and .h file under ref/, core/ and include/gnnref/, at any depth, is named in its
      directory's row of the layout table (the row whose first cell is `core/`, `ref/` or
      `include/gnnref/`) as a code span, relative to that directory (`model.c`, or `train/step.c`
      for core/train/step.c) or as its full path (`core/train/model.c`);
   b. the page shows the implementation context `struct gnn_impl` (found in include/gnnref/) in
      a ```c block with exactly the header's members, each with the header's type.
5. Every docs/*.md page is linked, as a markdown link [text](docs/page.md) from README.md or
   [text](page.md) from docs/architecture.md (an #anchor may follow). Every relative markdown
   link in README.md and docs/*.md points at a file that exists.
6. README agrees with the tool (needs build/bin/gnnref, or --tool PATH). README.md keeps two
   marked lists, each between a line `<!-- doc-list: commands -->` (or `models`) and a line
   `<!-- /doc-list -->`; each table row or list item between them names one entry as its first
   code span (| `train` | ... |). The commands must be exactly those `gnnref --help` lists under
   "commands:", the models exactly the choices of `gnnref train --help`'s `--model` flag. Beyond
   the lists, no page may show a command the tool lacks (`gnnref WORD` at the start of a code
   span, or at a command's place in a fenced block: a line's start, after `$ `, after `bin/`)
   or a model it lacks (`--model X`, `--model a|b`), and every --flag written after such a
   `gnnref CMD` on the same line (up to a pipe, ';', '&&' or a '#' comment; not on continuation
   lines) must be one that `gnnref CMD --help` names. Without a tool this part is skipped with a
   notice, unless --tool names one (then a missing tool is an error). The Makefile's check-docs
   depends on the tool and passes it.

Exit status 1 with one line per problem (file:line: what), 0 when all holds.

Usage:
  python3 ci/check-doc-paths.py [--tool PATH] [REPO_ROOT]
  python3 ci/check-doc-paths.py --self-test [--tool PATH] [REPO_ROOT]
--self-test proves the check can fail: it copies the tree (without .git and build/) to a
temporary folder, requires the copy to pass, then plants one fault at a time and requires each
to be reported: a command and a model README lists that the tool lacks, a command the tool has
that README omits, an example running a command the tool lacks, one training a model it lacks,
one with a flag the command lacks, a page linked from nowhere, a ref/ file, a core/ file in a
subfolder and an include/gnnref/ header missing from architecture.md, a gnn_impl member missing
there, a misspelt function with arguments, a removed one in a statement, a broken link. Last,
the copy without the plants must pass again. It takes about 3 s. Without a tool it uses a
stand-in that prints the help README's lists describe (and skips the flag case), and says so.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP_DIRS = ("core/", "ref/", "opt/", "sim/", "oracle/", "cli/", "tests/", "bench/", "docs/", "ci/",
            "include/", "examples/", "datasets/", "fuzz/", ".ci/")
EXTS = (".c", ".h", ".cc", ".cu", ".md", ".sh", ".py", ".in", ".supp")
SKIP_CHARS = (" ", "*", "<", ">", "$", "{", "}", "...", "|", "=", "(", ")", ",")
# names of other projects' files that docs cite (system headers, Graph500's validator)
EXTERNAL = {"check.h", "zlib.h", "metis.h", "cblas.h", "omp.h", "mpi.h", "json.h", "validate.c", "DESIGN.md",
            "STYLE.md"}
# names written with arguments that are not gnnref's functions
EXTERNAL_FUNCS = {
    "openblas_get_parallel": "OpenBLAS's (docs/update.md)",
    "partition_graph": "DGL's dgl.distributed.partition_graph (docs/partitioning.md)",
    "curand_uniform": "cuRAND's (docs/sampling.md, FastGL's weighted sampler)",
    "__powf": "CUDA's intrinsic (docs/sampling.md)",
    "h_N": "mathematics: the aggregated neighborhood of v (docs/aggregate.md)",
    "max_ps": "mathematics: the largest prefix sum (docs/quant.md)",
    "clock_sender": "mathematics: the sender's clock in the time model (docs/simulator.md)",
}
SOURCE_EXTS = (".c", ".h", ".cc", ".cu")
MAP_DIRS = ("ref/", "core/", "include/gnnref/")  # every file under these is named in architecture.md
ARCH = "docs/architecture.md"
LIST_BEGIN = re.compile(r"^\s*<!--\s*doc-list:\s*(\w+)\s*-->\s*$")
LIST_END = re.compile(r"^\s*<!--\s*/doc-list\s*-->\s*$")
# C comments, kept apart from string and character literals (a "/*" inside a string is no comment)
C_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NAME = re.compile(r"^(gnn_[a-z0-9_]+|GNN_[A-Z0-9_]+|[a-z_][a-z0-9_]*(?=\(\)$))(\(\))?$")
CALL = re.compile(r"(?<![\w.\-/])([A-Za-z_][A-Za-z0-9_]*)\(")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def walk(root):
    """Every file of the tree (relative paths with '/'), without .git and build/."""
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if s not in (".git", "build"))
        for f in sorted(files):
            yield os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def strip_comments(text):
    return C_TOKENS.sub(lambda m: " " if m.group(0).startswith("/") else m.group(0), text)


_IDENTS = {}  # (path, size, mtime) -> a source file's names: the self-test's runs rescan only what they change


def source_idents(path):
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    if key not in _IDENTS:
        _IDENTS[key] = set(IDENT.findall(strip_comments(read(path))))
    return _IDENTS[key]


class Tree:
    """What the checks look things up in: the files, the sources' names, the pages."""

    def __init__(self, root):
        self.root = root
        self.files = list(walk(root))
        self.basenames = {f.rsplit("/", 1)[-1] for f in self.files}
        self.idents = set()  # every name in the C sources outside comments
        for f in self.files:
            if f.endswith(SOURCE_EXTS):
                self.idents.update(source_idents(os.path.join(root, f)))
        self.docs = ["README.md"] + sorted(f for f in self.files if re.fullmatch(r"docs/[^/]+\.md", f))
        self.text = {d: read(os.path.join(root, d)) for d in self.docs if os.path.exists(os.path.join(root, d))}


def lines_of(text):
    """(line number, line, in a fenced block, heading of the section) for each line but the fences."""
    fence = False
    heading = ""
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence and line.startswith("#"):
            heading = line.lstrip("#").strip()
        yield lineno, line, fence, heading


def spans_of(line):
    return [s.strip() for s in re.findall(r"`([^`\n]+)`", line)]


# ---- 1-3: paths, names, functions with arguments ----

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


def path_exists(tree, span, doc_dir):
    root = tree.root
    if span.startswith("../shared/"):
        shared = os.path.join(root, span)
        return os.path.exists(shared) or not os.path.isdir(os.path.join(root, "..", "shared"))
    # "file.c:123" and "file.c:f()" name a place in a file
    path = re.sub(r":[^/]*$", "", span)
    if os.path.exists(os.path.join(root, path)):
        return True
    path = path.rstrip("/")
    if "/" in path:
        return os.path.exists(os.path.join(root, path)) or os.path.exists(os.path.join(root, doc_dir, path))
    return path in tree.basenames


def words_as_paths(span):
    """The words of a command-line span that name a path into the tree."""
    for w in re.split(r"[\s,;()\[\]'\"]+", span):
        w = w.rstrip(".:")
        if w.startswith(TOP_DIRS) and re.fullmatch(r"[A-Za-z0-9_./+-]+", w) and "..." not in w and "foo" not in w:
            yield w


def is_placeholder(name, heading):
    parts = name.split("_")
    if "NAME" in parts:
        return True
    return "foo" in parts and re.match(r"^(\d+\.\s*)?Adding", heading) is not None


def check_spans(tree, out):
    checked = 0
    for doc, text in tree.text.items():
        doc_dir = os.path.dirname(doc)
        for lineno, line, fence, heading in lines_of(text):
            if fence:
                continue
            for span in spans_of(line):
                where = f"{doc}:{lineno}"
                m = NAME.match(span)
                if m and "foo" not in span:
                    checked += 1
                    if m.group(1) not in tree.idents and m.group(1) not in EXTERNAL_FUNCS:
                        out.append(f"{where}: `{span}` is named nowhere in the C sources (outside comments)")
                    continue
                for c in CALL.finditer(span):
                    name = c.group(1)
                    if "_" not in name.strip("_") and name not in EXTERNAL_FUNCS:
                        continue  # mathematics: ceil(x), ulp(n), allclose(a, r)
                    if is_placeholder(name, heading) or name in EXTERNAL_FUNCS:
                        continue
                    checked += 1
                    if name not in tree.idents:
                        out.append(f"{where}: `{span}`: function `{name}` is named nowhere in the C sources"
                                   " (outside comments)")
                if looks_like_path(span):
                    checked += 1
                    if not path_exists(tree, span, doc_dir):
                        out.append(f"{where}: `{span}` does not exist")
                elif " " in span:
                    for w in words_as_paths(span):
                        checked += 1
                        if not path_exists(tree, w, doc_dir):
                            out.append(f"{where}: `{w}` (in `{span}`) does not exist")
    return checked


# ---- 4: architecture.md is the whole map ----

def layout_rows(arch_text):
    """{directory: the text of its row} for the layout table's rows (first cell one code span)."""
    rows = {}
    for line in arch_text.splitlines():
        m = re.match(r"^\|\s*`([^`]+/)`\s*\|", line)
        if m:
            rows[m.group(1)] = line
    return rows


def check_map(tree, out):
    arch = tree.text.get(ARCH)
    if arch is None:
        out.append(f"{ARCH}: missing")
        return 0
    rows = layout_rows(arch)
    checked = 0
    for top in MAP_DIRS:
        row = rows.get(top)
        if row is None:
            out.append(f"{ARCH}: the layout table has no row for `{top}`")
            continue
        row_spans = set(spans_of(row))
        for f in tree.files:
            if not f.startswith(top) or not f.endswith((".c", ".h")):
                continue
            checked += 1
            rel = f[len(top):]
            if rel not in row_spans and f not in row_spans:
                out.append(f"{ARCH}: `{f}` is not named in the layout table's `{top}` row (as `{rel}`)")
    checked += check_context(tree, arch, out)
    return checked


def struct_members(body):
    """[(type, name)] of a C struct body: one declarator per member, comments removed."""
    members = []
    for decl in strip_comments(body).split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        m = re.fullmatch(r"(.*?)[\s*]*\b([A-Za-z_]\w*)", decl)
        if m:
            members.append((re.sub(r"\s*\*\s*", " *", decl[:m.start(2)]).strip(), m.group(2)))
    return members


def find_struct(text, name):
    m = re.search(r"typedef\s+struct\s+" + name + r"\s*\{(.*?)\}\s*" + name + r"\s*;", text, re.S)
    return m.group(1) if m else None


def check_context(tree, arch, out):
    header, body = None, None
    for f in tree.files:
        if f.startswith("include/gnnref/") and f.endswith(".h"):
            body = find_struct(read(os.path.join(tree.root, f)), "gnn_impl")
            if body is not None:
                header = f
                break
    if header is None:
        out.append("include/gnnref/: no `typedef struct gnn_impl { ... } gnn_impl;` found")
        return 0
    want = struct_members(body)
    blocks = re.findall(r"```c\n(.*?)```", arch, re.S)
    shown = None
    for b in blocks:
        shown = find_struct(b, "gnn_impl")
        if shown is not None:
            break
    if shown is None:
        out.append(f"{ARCH}: no ```c block shows `typedef struct gnn_impl {{ ... }} gnn_impl;` ({header})")
        return len(want)
    have = dict((n, t) for t, n in struct_members(shown))
    want_d = dict((n, t) for t, n in want)
    for t, n in want:
        if n not in have:
            out.append(f"{ARCH}: gnn_impl's member `{n}` ({t}, {header}) is not in the page's struct")
        elif have[n] != t:
            out.append(f"{ARCH}: gnn_impl's member `{n}` is `{have[n]}` on the page, `{t}` in {header}")
    for n in have:
        if n not in want_d:
            out.append(f"{ARCH}: the page's gnn_impl has a member `{n}` that {header} lacks")
    return len(want)


# ---- 5: every page linked, every link resolves ----

def check_links(tree, out):
    linked = set()
    checked = 0
    for doc, text in tree.text.items():
        doc_dir = os.path.dirname(doc)
        for lineno, line, fence, _ in lines_of(text):
            if fence:
                continue
            for target in LINK.findall(line):
                if "://" in target or target.startswith(("#", "mailto:")):
                    continue
                path = target.split("#", 1)[0]
                if not path:
                    continue
                checked += 1
                full = os.path.normpath(os.path.join(doc_dir, path)).replace(os.sep, "/")
                if full.startswith("../shared/") or full.startswith(".."):
                    continue
                if not os.path.exists(os.path.join(tree.root, full)):
                    out.append(f"{doc}:{lineno}: link `{target}` points at nothing")
                elif doc in ("README.md", ARCH) and full != doc:
                    linked.add(full)
    for doc in tree.docs:
        if doc.startswith("docs/") and doc not in linked:
            checked += 1
            out.append(f"{doc}: linked from neither README.md ([...](docs/{doc[5:]})) nor {ARCH} "
                       f"([...]({doc[5:]}))")
    return checked


# ---- 6: README agrees with the tool ----

def tool_lists(tool, flags=True):
    """{"commands", "models", "flags": {command: its flags} or None} from the tool's help, or raise
    RuntimeError."""
    def run(*args):
        p = subprocess.run([tool] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        if p.returncode != 0:
            raise RuntimeError(f"`{tool} {' '.join(args)}` exited {p.returncode}")
        return p.stdout.decode("utf-8", "replace")

    commands = []
    in_list = False
    for line in run("--help").splitlines():
        if line.strip() == "commands:":
            in_list = True
            continue
        if in_list:
            m = re.match(r"^\s{2}([a-z][a-z0-9-]*)\s+\S", line)
            if not m:
                break
            commands.append(m.group(1))
    models = []
    for line in run("train", "--help").splitlines():
        m = re.match(r"^\s*--model\s+([a-z0-9_|-]+)", line)
        if m:
            models = m.group(1).split("|")
            break
    if not commands:
        raise RuntimeError(f"`{tool} --help` lists no commands under 'commands:' (has its format changed?)")
    if not models:
        raise RuntimeError(f"`{tool} train --help` has no `--model a|b|...` line (has its format changed?)")
    cmd_flags = None
    if flags:
        cmd_flags = {c: set(re.findall(r"--[a-z0-9][a-z0-9-]*", run(c, "--help"))) | {"--help"} for c in commands}
    return {"commands": commands, "models": models, "flags": cmd_flags}


def readme_lists(text):
    """{list name: [(line number, entry)]} of README's marked lists."""
    lists = {}
    current = None
    for lineno, line in enumerate(text.splitlines(), 1):
        m = LIST_BEGIN.match(line)
        if m:
            current = lists.setdefault(m.group(1), [])
            continue
        if LIST_END.match(line):
            current = None
            continue
        if current is not None and re.match(r"^\s*(\||[-*] )", line):
            spans = spans_of(line)
            if spans:
                current.append((lineno, spans[0]))
    return lists


COMMAND_AT = re.compile(r"(?:^\s*(?:\$\s+)?(?:[A-Z_]+=\S*\s+)*|bin/)gnnref\s+([a-z][a-z0-9-]*)")
SPAN_COMMAND = re.compile(r"^(?:\S*/)?gnnref\s+([a-z][a-z0-9-]*)")
MODEL_FLAG = re.compile(r"--model[ =]([a-z0-9_|,-]+)")


def flags_after(rest):
    """The --flags of one command line after `gnnref CMD` (up to a pipe, ';', '&&' or a comment)."""
    rest = re.split(r"\s(?:\||;|&&|#)\s|;", rest, maxsplit=1)[0]
    return re.findall(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*)", rest)


def check_tool(tree, lists, out):
    commands, models, cmd_flags = lists["commands"], lists["models"], lists["flags"]
    readme = tree.text.get("README.md", "")
    marked = readme_lists(readme)
    checked = 0
    for kind, have in (("commands", commands), ("models", models)):
        if kind not in marked:
            out.append(f"README.md: no `<!-- doc-list: {kind} -->` ... `<!-- /doc-list -->` list")
            continue
        names = [n for _, n in marked[kind]]
        what = "gnnref --help" if kind == "commands" else "gnnref train --help's --model"
        for lineno, n in marked[kind]:
            checked += 1
            if n not in have:
                out.append(f"README.md:{lineno}: lists {kind[:-1]} `{n}`, which {what} does not offer")
        for n in have:
            checked += 1
            if n not in names:
                out.append(f"README.md: {what} offers `{n}`, missing from README's {kind} list")
    for doc, text in tree.text.items():
        for lineno, line, fence, _ in lines_of(text):
            if fence:
                texts = [line.split(" # ", 1)[0]]
                found = [m for t in texts for m in COMMAND_AT.finditer(t)]
            else:
                texts = spans_of(line)
                found = [m for t in texts for m in [SPAN_COMMAND.match(t)] if m]
            for m in found:
                c = m.group(1)
                checked += 1
                if c not in commands:
                    out.append(f"{doc}:{lineno}: `gnnref {c}`: the tool has no command `{c}`")
                elif cmd_flags is not None:
                    for f in flags_after(m.string[m.end():]):
                        checked += 1
                        if f not in cmd_flags[c]:
                            out.append(f"{doc}:{lineno}: `gnnref {c} ... {f}`: `gnnref {c} --help` has no flag `{f}`")
            for t in texts:
                for m in MODEL_FLAG.finditer(t):
                    for x in re.split(r"[|,]", m.group(1)):
                        if x and x not in models and x.upper() != x:
                            checked += 1
                            out.append(f"{doc}:{lineno}: `--model {x}`: gnnref train has no model `{x}`")
    return checked


# ---- the check and its self-test ----

def check(root, tool, tool_cache=None, quiet=False):
    """The problems found under root (a list of strings) and how many things were checked."""
    tree = Tree(root)
    out = []
    n = check_spans(tree, out) + check_map(tree, out) + check_links(tree, out)
    if tool is not None:
        if tool_cache is not None and "lists" in tool_cache:
            lists = tool_cache["lists"]
        else:
            try:
                lists = tool_lists(tool)
            except (OSError, RuntimeError, subprocess.SubprocessError) as e:
                out.append(f"tool: {e}")
                lists = None
            if tool_cache is not None:
                tool_cache["lists"] = lists
        if lists is not None:
            n += check_tool(tree, lists, out)
    elif not quiet:
        print("doc check: NOTICE: build/bin/gnnref is not built: README's command and model lists were not"
              " compared with the tool (make builds it; or pass --tool PATH)")
    return out, n


def default_tool(root):
    t = os.path.join(root, "build", "bin", "gnnref")
    return t if os.access(t, os.X_OK) else None


def stand_in_tool(tmp, readme_text):
    """A script that prints help listing what README's lists list (when no tool is built)."""
    marked = readme_lists(readme_text)
    cmds = [n for _, n in marked.get("commands", [])]
    models = [n for _, n in marked.get("models", [])]
    path = os.path.join(tmp, "stand-in-gnnref")
    with open(path, "w") as fh:
        fh.write("#!/bin/sh\nif [ \"$1\" = train ]; then\n  echo 'usage: gnnref train [flags]'\n"
                 f"  echo '  --model {'|'.join(models)}'\nelse\n  echo 'usage: gnnref <command>'\n"
                 "  echo; echo 'commands:'\n")
        for c in cmds:
            fh.write(f"  echo '  {c}  what it does'\n")
        fh.write("  echo\nfi\n")
    os.chmod(path, 0o755)
    return path


def self_test(root, tool):
    tmp = tempfile.mkdtemp(prefix="check-doc-paths.")
    try:
        copy = os.path.join(tmp, "tree")
        top = os.path.abspath(root)
        shutil.copytree(root, copy, ignore=lambda d, names: [n for n in names if n in (".git", "build")]
                        if os.path.abspath(d) == top else [])
        cache = {}
        if tool is None:
            tool = stand_in_tool(tmp, read(os.path.join(root, "README.md")))
            print("self-test: no tool built: a stand-in prints the help README's lists describe")
            cache["lists"] = tool_lists(tool, flags=False)
        failures = 0

        def edit(rel, fn):
            p = os.path.join(copy, rel)
            text = read(p) if os.path.exists(p) else ""
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(fn(text))

        def add_row(kind, row):
            def fn(text):
                lines = text.split("\n")
                for i, line in enumerate(lines):
                    if LIST_BEGIN.match(line) and LIST_BEGIN.match(line).group(1) == kind:
                        j = i + 1
                        while not LIST_END.match(lines[j]):
                            j += 1
                        lines.insert(j, row)
                        return "\n".join(lines)
                raise AssertionError(f"README has no {kind} list")
            return fn

        def drop_row(kind, name):
            def fn(text):
                lines, out, current = text.split("\n"), [], None
                for line in lines:
                    if LIST_BEGIN.match(line):
                        current = LIST_BEGIN.match(line).group(1)
                    elif LIST_END.match(line):
                        current = None
                    elif current == kind and spans_of(line)[:1] == [name]:
                        continue
                    out.append(line)
                return "\n".join(out)
            return fn

        def mkfile(rel, text):
            def plant():
                os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
                with open(os.path.join(copy, rel), "w") as fh:
                    fh.write(text)
            return plant

        marked = readme_lists(read(os.path.join(root, "README.md")))
        some_cmd = marked["commands"][-1][1] if marked.get("commands") else "plot"
        cases = [
            ("README names a command the tool lacks", ["README.md"],
             lambda: edit("README.md", add_row("commands", "| `serve` | serve a trained model over HTTP |")),
             r"README\.md:\d+: lists command `serve`"),
            ("README names a model the tool lacks", ["README.md"],
             lambda: edit("README.md", add_row("models", "| `graphormer` | a graph transformer |")),
             r"README\.md:\d+: lists model `graphormer`"),
            ("README omits a command the tool has", ["README.md"],
             lambda: edit("README.md", drop_row("commands", some_cmd)),
             r"offers `" + re.escape(some_cmd) + r"`, missing from README's commands list"),
            ("an example line runs a command the tool lacks", ["README.md"],
             lambda: edit("README.md", lambda t: t + "\n```sh\nbuild/bin/gnnref serve --data builtin\n```\n"),
             r"README\.md:\d+: `gnnref serve`"),
            ("an example trains a model the tool lacks", ["docs/models.md"],
             lambda: edit("docs/models.md", lambda t: t + "\nRun `gnnref train --model gcnii --data builtin`.\n"),
             r"docs/models\.md:\d+: `--model gcnii`"),
            ("an example with a flag the command lacks", ["docs/sampling.md"],
             lambda: edit("docs/sampling.md",
                          lambda t: t + "\n```sh\nbuild/bin/gnnref sample --data builtin --fanout 5,5\n```\n"),
             r"docs/sampling\.md:\d+: `gnnref sample \.\.\. --fanout`"),
            ("a page linked from nowhere", ["docs/orphan.md"],
             mkfile("docs/orphan.md", "# An orphan\n\nNo page links here.\n"),
             r"docs/orphan\.md: linked from neither"),
            ("a ref/ file missing from architecture.md", ["ref/newkernel.c"],
             mkfile("ref/newkernel.c", "/* ref/newkernel.c */\n"),
             r"`ref/newkernel\.c` is not named"),
            ("a core/ file in a subfolder missing from architecture.md", ["core/sub/split.c"],
             mkfile("core/sub/split.c", "/* core/sub/split.c */\n"),
             r"`core/sub/split\.c` is not named"),
            ("a header missing from architecture.md", ["include/gnnref/newthing.h"],
             mkfile("include/gnnref/newthing.h", "/* include/gnnref/newthing.h */\n"),
             r"`include/gnnref/newthing\.h` is not named"),
            ("a member of gnn_impl missing from architecture.md", ["include/gnnref/impl.h"],
             lambda: edit("include/gnnref/impl.h", lambda t: re.sub(
                 r"(\}\s*gnn_impl\s*;)", "    const gnn_newthing_ops *newthing; /* planted */\n\\1", t, count=1)),
             r"gnn_impl's member `newthing`"),
            ("a misspelt function with arguments", ["docs/sampling.md"],
             lambda: edit("docs/sampling.md", lambda t: t + "\nCall `gnn_sampler_creat(ops, g, &opt, &s)` first.\n"),
             r"docs/sampling\.md:\d+: .*function `gnn_sampler_creat`"),
            ("a removed function named in a statement with arguments", ["docs/architecture.md"],
             lambda: edit(ARCH, lambda t: t + "\nThen `st = gnn_impl_override_tpu(&c, NULL)` runs.\n"),
             r"function `gnn_impl_override_tpu`"),
            ("a link to a missing page", ["README.md"],
             lambda: edit("README.md", lambda t: t + "\nSee [the FAQ](docs/faq.md).\n"),
             r"README\.md:\d+: link `docs/faq\.md` points at nothing"),
        ]

        problems, n = check(copy, tool, cache, quiet=True)
        if problems:
            print("self-test: FAIL: the unplanted copy does not pass:")
            for p in problems:
                print("  " + p)
            return 1
        print(f"self-test: the unplanted copy passes ({n} checked)")
        if cache.get("lists") and cache["lists"]["flags"] is None:
            cases = [c for c in cases if "flag" not in c[0]]
        for what, touched, plant, expect in cases:
            saved = {}
            for rel in touched:
                p = os.path.join(copy, rel)
                saved[rel] = read(p) if os.path.exists(p) else None
            plant()
            problems, _ = check(copy, tool, cache, quiet=True)
            hit = [p for p in problems if re.search(expect, p)]
            if hit:
                print(f"self-test: planted {what}: reported: {hit[0]}")
            else:
                failures += 1
                print(f"self-test: FAIL: planted {what}: not reported (got {len(problems)} other lines:"
                      f" {problems[:3]})")
            for rel, text in saved.items():
                p = os.path.join(copy, rel)
                if text is None:
                    os.remove(p)
                else:
                    with open(p, "w", encoding="utf-8") as fh:
                        fh.write(text)
            shutil.rmtree(os.path.join(copy, "core", "sub"), ignore_errors=True)
        problems, _ = check(copy, tool, cache, quiet=True)
        if problems:
            failures += 1
            print(f"self-test: FAIL: the copy does not pass again after the plants were removed: {problems[:3]}")
        print(f"self-test: {'FAIL' if failures else 'PASS'}: {len(cases) - failures} of {len(cases)} planted faults"
              " reported, the unplanted copy passes")
        return 1 if failures else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description="the docs say what the tree holds (see the module's docstring)")
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--tool", help="the gnnref binary whose help README must agree with (default build/bin/gnnref"
                                   " when built); given and missing is an error")
    ap.add_argument("--self-test", action="store_true", help="plant faults in a copy and require each reported")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    tool = a.tool
    if tool is not None and not os.access(tool, os.X_OK):
        print(f"doc check: --tool {tool}: not an executable file")
        return 1
    if tool is not None:
        tool = os.path.abspath(tool)
    else:
        tool = default_tool(root)
    if a.self_test:
        return self_test(root, tool)
    problems, n = check(root, tool)
    for p in problems:
        print(p)
    if problems:
        print(f"check-doc-paths: FAIL: {len(problems)} problems ({n} things checked)")
    else:
        print(f"check-doc-paths: PASS: {n} things checked" + ("" if tool else " (not the README against the tool)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
