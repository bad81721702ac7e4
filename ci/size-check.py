#!/usr/bin/env python3
"""ci/size-check.py -- no function body over 120 lines, no source file over 800 lines, unless
the file's header says why (part of `make check`: the check-size stage, with --self-test).

A long function hides its steps and a long file its parts; STYLE.md asks for small named
steps. This script scans the tree's C, C++ and CUDA sources (.c .h .cc .cu .cuh) in every
folder but .git, build/ and vendored code (third-party/, third_party/, vendor/) and reports:

    FILE:LINE: function NAME is N lines (limit 120)
    FILE: N lines (limit 800)

A function's lines count from the line of its opening brace to the line of its closing brace,
both included. Braces are matched on the code alone: comments, string and character literals
and preprocessor lines (with their backslash continuations) are blanked first. A top-level
`{` opens a function when the declaration before it ends in `)`, allowing identifiers
(`const`, `noexcept`, attribute macros) and `__attribute__((...))` between; so struct, enum
and union bodies and array or struct initializers (`= {`) never count. The blocks of
`extern "C"`, `namespace` and C++ class/struct bodies are looked into, so functions in them
count too. Check's `START_TEST(name)` bodies are reported under NAME.

The excuse: the file's header comment (its first comment block, a /* */ comment or a run of
// lines) holds a line with the marker

    size: file -- REASON         the file may be over 800 lines
    size: NAME -- REASON         function NAME may be over 120 lines

REASON must be given (two words at least). An excuse that excuses nothing (the file is within
its limit, or no function NAME over the limit exists in the file) is reported too, so excuses
do not outlive their cause:

    FILE:LINE: size: NAME excuses nothing (...)

A file whose braces do not balance once comments, literals and preprocessor lines are set
aside (an opening brace written twice in two #if branches, say) is reported as one the brace
matcher cannot follow: write the brace once, outside the branches.

Usage:
    python3 ci/size-check.py [--root DIR]   check the tree (exit 1 on any offence, 0 clean)
    python3 ci/size-check.py --self-test    plant a 121-line function and an 801-line file in
                                            a temporary copy of a small file of the tree and
                                            show each is reported, and that a 120-line
                                            function and an excused file pass; then check a
                                            temporary tree of each (exit 1, then exit 0)
"""
import contextlib
import io
import os
import re
import shutil
import sys
import tempfile

FUNC_LIMIT = 120
FILE_LIMIT = 800
EXTS = (".c", ".h", ".cc", ".cu", ".cuh")
SKIP_DIRS = {".git", "build", "third-party", "third_party", "vendor"}
MARKER = re.compile(r"\bsize:\s+([A-Za-z_][A-Za-z0-9_]*)\s+--\s+(\S.*)$")
# identifiers before a paren group that are not the function's name
NOT_NAMES = {"__attribute__", "__declspec", "__launch_bounds__", "alignas", "_Alignas",
             "__align__", "decltype", "__attribute"}
SCOPE_HEAD = re.compile(r'^(?:(?:typedef|static|inline|template\s*<[^>]*>)\s+)*'
                        r'(?:extern\s+"[^"]*"|namespace(?:\s+[A-Za-z_][\w:]*)?|'
                        r'(?:class|struct)\s+[A-Za-z_]\w*(?:\s+final)?(?:\s*:[^{]*)?)\s*$')


def blank_noncode(text):
    """The text with comments, string and char literals and preprocessor lines turned into
    spaces (newlines kept, so offsets and line numbers stay); and the list of comments as
    (first line, last line, text) in file order."""
    out = list(text)
    comments = []
    i, n = 0, len(text)
    line = 1
    at_line_start = True  # only blanks so far on this line: a '#' starts a directive

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            at_line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if at_line_start and c == "#":
            # a directive runs to the end of the line, continued by a trailing backslash;
            # comments inside it end it where they end
            j = i
            while j < n:
                if text[j] == "\n":
                    if j > 0 and text[j - 1] == "\\":
                        line += 1
                        j += 1
                        continue
                    break
                if text.startswith("/*", j):
                    e = text.find("*/", j + 2)
                    e = n if e < 0 else e + 2
                    line += text.count("\n", j, e)
                    j = e
                    continue
                if text.startswith("//", j):
                    while j < n and text[j] != "\n":
                        j += 1
                    break
                j += 1
            blank(i, j)
            i = j
            continue
        at_line_start = False
        if text.startswith("/*", i):
            e = text.find("*/", i + 2)
            e = n if e < 0 else e + 2
            last = line + text.count("\n", i, e)
            comments.append((line, last, text[i:e]))
            blank(i, e)
            line = last
            i = e
            continue
        if text.startswith("//", i):
            e = text.find("\n", i)
            e = n if e < 0 else e
            comments.append((line, line, text[i:e]))
            blank(i, e)
            i = e
            continue
        if c == '"' or c == "'":
            # a C++ raw string R"delim( ... )delim"
            if c == '"' and i > 0 and text[i - 1] == "R" and (i < 2 or not (text[i - 2].isalnum() or text[i - 2] == "_")):
                p = text.find("(", i)
                delim = text[i + 1:p]
                e = text.find(")" + delim + '"', p)
                e = n if e < 0 else e + len(delim) + 2
            else:
                e = i + 1
                while e < n and text[e] != c and text[e] != "\n":
                    e += 2 if text[e] == "\\" else 1
                e = min(e + 1, n)
            line += text.count("\n", i, e)
            blank(i + 1, e - 1 if e - 1 > i else e)
            i = e
            continue
        i += 1
    return "".join(out), comments


def header_comment(comments):
    """The file's first comment block: its first /* */ comment, or its first run of //
    comments on consecutive lines. Returns (first line, text) or (None, "")."""
    if not comments:
        return None, ""
    first, last, body = comments[0]
    if body.startswith("//"):
        parts = [body]
        for c in comments[1:]:
            if c[2].startswith("//") and c[0] == last + 1:
                parts.append(c[2])
                last = c[0]
            else:
                break
        body = "\n".join(parts)
    return first, body


def excuses(comments):
    """{name: (line, reason)} from the header comment's `size: NAME -- REASON` lines."""
    first, body = header_comment(comments)
    found = {}
    if first is None:
        return found
    for k, ln in enumerate(body.splitlines()):
        m = MARKER.search(ln.rstrip().rstrip("/").rstrip("*").rstrip())
        if m and len(m.group(2).split()) >= 2:
            found[m.group(1)] = (first + k, m.group(2))
    return found


def line_of(code, pos, starts):
    """1-based line of offset pos (starts: offsets where each line starts)."""
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= pos:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1


TOKEN = re.compile(r"[A-Za-z_]\w*|\S")


def function_name(head):
    """The name of the function a declaration head declares, or None when the head is no
    function's: it does not end in `)` once trailing identifiers and attributes are set
    aside, or it holds an `=` outside parentheses (an initializer), or a `(` still open (a
    compound literal in a macro's arguments)."""
    toks = TOKEN.findall(head)
    depth = 0
    for t in toks:
        if t in "([":
            depth += 1
        elif t in ")]":
            depth -= 1
        elif t == "=" and depth == 0:
            return None
    if depth != 0:
        return None  # a brace inside parentheses: a compound literal in a macro's arguments
    # set aside trailing identifiers (const, noexcept, override, attribute macros)
    end = len(toks)
    while end > 0 and re.match(r"[A-Za-z_]", toks[end - 1]):
        end -= 1
    if end == 0 or toks[end - 1] != ")":
        return None
    # the top-level paren groups: (index of '(' , index of ')')
    groups, depth, open_at = [], 0, None
    for k, t in enumerate(toks[:end]):
        if t == "(":
            if depth == 0:
                open_at = k
            depth += 1
        elif t == ")":
            depth -= 1
            if depth == 0:
                groups.append((open_at, k))
    for a, b in groups:
        if a == 0 or not re.match(r"[A-Za-z_]", toks[a - 1]) or toks[a - 1] in NOT_NAMES:
            continue
        name = toks[a - 1]
        if name in ("START_TEST", "TEST", "TEST_F") and b > a + 1:
            name = [t for t in toks[a + 1:b] if re.match(r"[A-Za-z_]", t)][-1]
        # a C++ qualified name: Class::method
        k = a - 2
        while k >= 1 and toks[k] == ":" and toks[k - 1] == ":" and k >= 2 and re.match(r"[A-Za-z_~]", toks[k - 2]):
            name = toks[k - 2] + "::" + name
            k -= 3
        return name
    return None


def functions(code):
    """[(name, first line, last line)] of the functions in code (already blanked)."""
    starts = [0] + [m.end() for m in re.finditer("\n", code)]
    found = []
    # stack of open blocks: 'scope' (looked into), 'func' or 'other'
    stack = []
    head_start = 0
    for m in re.finditer(r"[{};]", code):
        ch, pos = m.group(), m.start()
        in_scope = all(kind == "scope" for kind, _, _ in stack)
        if ch == "{":
            if in_scope:
                head = code[head_start:pos]
                name = function_name(head)
                if name is not None:
                    stack.append(("func", pos, name))
                elif SCOPE_HEAD.match(" ".join(head.split())):
                    stack.append(("scope", pos, None))
                    head_start = pos + 1
                else:
                    stack.append(("other", pos, None))
            else:
                stack.append(("other", pos, None))
        elif ch == "}":
            if not stack:
                raise ValueError("line %d: '}' with no '{'" % line_of(code, pos, starts))
            kind, opened, name = stack.pop()
            if kind == "func":
                found.append((name, line_of(code, opened, starts), line_of(code, pos, starts)))
            if all(k == "scope" for k, _, _ in stack):
                head_start = pos + 1
        elif ch == ";" and in_scope:
            head_start = pos + 1
    if stack:
        raise ValueError("line %d: '{' never closed" % line_of(code, stack[-1][1], starts))
    return found


def check_file(path, rel):
    """The offence lines for one file."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    code, comments = blank_noncode(text)
    exc = excuses(comments)
    used = set()
    out = []
    n_lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    if n_lines > FILE_LIMIT:
        if "file" in exc:
            used.add("file")
        else:
            out.append("%s: %d lines (limit %d)" % (rel, n_lines, FILE_LIMIT))
    try:
        funcs = functions(code)
    except ValueError as e:
        return out + ["%s:%s (the brace matcher cannot follow this file)" % (rel, e)]
    for name, first, last in funcs:
        length = last - first + 1
        if length > FUNC_LIMIT:
            if name in exc:
                used.add(name)
            else:
                out.append("%s:%d: function %s is %d lines (limit %d)" % (rel, first, name, length, FUNC_LIMIT))
    for name, (ln, _) in sorted(exc.items(), key=lambda kv: kv[1][0]):
        if name not in used:
            why = ("the file is %d lines" % n_lines if name == "file"
                   else "no function %s over %d lines here" % (name, FUNC_LIMIT))
            out.append("%s:%d: size: %s excuses nothing (%s)" % (rel, ln, name, why))
    return out


def sources(root):
    for d, subdirs, files in os.walk(root):
        subdirs[:] = sorted(s for s in subdirs if s not in SKIP_DIRS)
        for f in sorted(files):
            if f.endswith(EXTS):
                p = os.path.join(d, f)
                yield p, os.path.relpath(p, root)


def check_tree(root):
    """Prints the offences; returns their number and the number of files read."""
    n_off = n_files = 0
    for path, rel in sources(root):
        n_files += 1
        for line in check_file(path, rel):
            print(line)
            n_off += 1
    return n_off, n_files


def self_test(root):
    """Plants the offences in a temporary copy of a small file of the tree and checks what
    check_file says of each."""
    small = None
    for path, rel in sources(root):
        if rel.endswith(".c") and os.path.getsize(path) < 4000:
            small = (path, rel)
            break
    if small is None:
        print("size-check: FAIL (self-test: no small .c file in the tree to copy)")
        return 1
    with open(small[0], encoding="utf-8") as fh:
        base = fh.read()
    if not base.endswith("\n"):
        base += "\n"
    failures = []

    def body(name, n):
        """A function of exactly n lines, from '{' to '}', with braces in a string, a char
        literal, comments and a preprocessor line that the matcher must pass over."""
        inner = ['    const char *s = "}}} {";', "    char c = '}';", "    /* } */ // {",
                 "#define PLANTED_BRACE }", "    (void)s; (void)c;"]
        inner += ["    x += %d;" % k for k in range(n - 2 - len(inner) - 1)]
        return ["static int %s(int x)" % name, "{"] + inner + ["    return x;", "}"]

    def struct_init(n):
        return ["static const int planted_table[] = {"] + ["    %d," % k for k in range(n - 2)] + ["};"]

    tmp = tempfile.mkdtemp(prefix="size-check-")
    try:
        name = os.path.basename(small[1])

        def run(label, text, want):
            p = os.path.join(tmp, name)
            with open(p, "w", encoding="utf-8") as fh:
                fh.write(text)
            got = check_file(p, name)
            ok = sorted(got) == sorted(want)
            print("  %-56s %s%s" % (label, "ok" if ok else "WRONG", "" if not got else ": " + "; ".join(got)))
            if not ok:
                failures.append("%s: expected %s, got %s" % (label, want or "nothing", got or "nothing"))

        lines = base.splitlines()
        at = len(lines) + 1
        f121 = "\n".join(lines + body("planted_long", 121)) + "\n"
        run("(i) a 121-line function is reported", f121,
            ["%s:%d: function planted_long is 121 lines (limit %d)" % (name, at + 1, FUNC_LIMIT)])
        f120 = "\n".join(lines + body("planted_ok", 120) + struct_init(200)) + "\n"
        run("a 120-line function and a 200-line initializer pass", f120, [])
        pad = ["/* padding line %d */" % k for k in range(801 - len(lines))]
        f801 = "\n".join(lines + pad) + "\n"
        run("(ii) an 801-line file is reported", f801, ["%s: 801 lines (limit %d)" % (name, FILE_LIMIT)])
        f800 = "\n".join(lines + pad[:-1]) + "\n"
        run("an 800-line file passes", f800, [])
        # the excuse goes into the header comment, the file's first comment block
        m = re.search(r"\*/", base)
        if not base.startswith("/*") or m is None:
            failures.append("%s does not open with a /* */ header comment" % small[1])
        else:
            marked = base[:m.start()] + "\n * size: file -- planted by the self-test to be long\n" \
                     " * size: planted_long -- planted by the self-test, one step\n " + base[m.start():]
            mlines = marked.splitlines()
            pad2 = ["/* padding line %d */" % k for k in range(801 - len(mlines) - 121)]
            run("an excused 801-line file, excused 121-line function pass",
                "\n".join(mlines + body("planted_long", 121) + pad2) + "\n", [])
            fl = 1 + mlines.index(" * size: file -- planted by the self-test to be long")
            run("an excuse that excuses nothing is reported", marked,
                ["%s:%d: size: file excuses nothing (the file is %d lines)" % (name, fl, len(mlines)),
                 "%s:%d: size: planted_long excuses nothing (no function planted_long over %d lines here)"
                 % (name, fl + 1, FUNC_LIMIT)])
        # the whole check on a tree of one planted file: exit 1 with the offence, then exit 0
        for label, text, want_rc in (("a tree with the 121-line function exits 1", f121, 1),
                                     ("a tree with the 120-line function exits 0", f120, 0)):
            root = os.path.join(tmp, "tree-%d" % want_rc)
            os.makedirs(os.path.join(root, "src"))
            with open(os.path.join(root, "src", name), "w", encoding="utf-8") as fh:
                fh.write(text)
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                rc = main(["--root", root])
            ok = rc == want_rc
            print("  %-56s %s: exit %d" % (label, "ok" if ok else "WRONG", rc))
            if not ok:
                failures.append("%s: exit %d; it printed %r" % (label, rc, buf.getvalue()))
    finally:
        shutil.rmtree(tmp)
    if failures:
        for f in failures:
            print("self-test: " + f)
        print("size-check: FAIL (self-test, copy of %s: %d wrong)" % (small[1], len(failures)))
        return 1
    print("size-check: PASS (self-test, copy of %s: every planted offence reported, the "
          "passes pass)" % small[1])
    return 0


def main(argv):
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    args = list(argv)
    if "--root" in args:
        k = args.index("--root")
        root = os.path.abspath(args[k + 1])
        del args[k:k + 2]
    if args == ["--self-test"]:
        return self_test(root)
    if args:
        print(__doc__.split("Usage:")[1].rstrip(), file=sys.stderr)
        return 2
    n_off, n_files = check_tree(root)
    if n_off:
        print("size-check: FAIL (%d offences in %d files; limits: function %d lines, file %d "
              "lines; excuse one in the file's header comment: `size: NAME -- REASON`)"
              % (n_off, n_files, FUNC_LIMIT, FILE_LIMIT))
        return 1
    print("size-check: PASS (%d C, C++ and CUDA files: no function over %d lines, no file over "
          "%d lines, except where a file's header excuses it)" % (n_files, FUNC_LIMIT, FILE_LIMIT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
