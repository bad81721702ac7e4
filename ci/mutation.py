#!/usr/bin/env python3
"""ci/mutation.py -- the mutation score of the test suite (docs/oracle.md, "Mutation score").

Each mutant in ci/mutants.txt is a small, realistic bug planted in one source file: an
off-by-one bound, a skipped tail, a swapped RNG field, a plain store where an atomic is needed,
a reordered reduction, a wrong displacement. For each, this script copies the tree once into a
scratch directory, applies the mutant, runs the test command (`make -j2 check` by default) with a
time limit, and restores the file. A mutant is

    killed      the command failed (exit != 0): the tests see the bug;
    timeout     the command ran past the limit (counted as killed, and listed: a hang is a
                defect of the tests too, since CI must never hang);
    survived    the command passed: the tests miss the bug;
    equivalent  marked so in ci/mutants.txt, with the reason (the change cannot alter any
                result); not run;
    stale       the text to replace is not in the file (the code moved: fix the mutant);
    flaky       with --repeat, killed in one run and timed out in another. A mutant that
                passes any one run counts as survived: a kill must be reproducible.

Usage:
    python3 ci/mutation.py [--only ID[,ID...]] [--repeat N] [--timeout S] [--cmd "make -j2 check"]
                           [--scratch DIR] [--report FILE]
    python3 ci/mutation.py --check-applies   (every mutant's `find` once in its file; runs nothing)
--repeat 2 runs every killed mutant again, so each kill is shown to be reproducible.
The tier stops at its first failed stage (GNN_STAGE_FAIL_FAST=1, ci/stage.sh): the verdict is
the one of the whole tier, since a tier fails iff one of its stages does.
Not part of CI (it takes about a minute per mutant); run it once per issue that changes the
oracle and copy the table into docs/oracle.md.

ci/mutants.txt: blocks separated by blank lines, each

    id: M01
    class: race
    file: opt/cpu/idmap_impl.h
    find: <code exactly as it appears once in the file; \n for a line break>
    replace: <its replacement; \n for a line break>
    why: what the bug is
    [equivalent: why the change cannot alter any result]

`find` must occur exactly once in the file (the script refuses an ambiguous mutant).
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def parse_mutants(path):
    mutants, cur = [], {}
    with open(path, encoding="utf-8") as f:
        for raw in f.read().split("\n"):
            line = raw.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                if cur:
                    mutants.append(cur)
                    cur = {}
                continue
            key, sep, val = line.partition(": ")
            if not sep:
                key, val = line.rstrip(":"), ""
            cur[key.strip()] = val.replace("\\n", "\n")  # "\n" in a value is a line break
    if cur:
        mutants.append(cur)
    for m in mutants:
        for k in ("id", "class", "file", "find", "replace", "why"):
            if k not in m:
                sys.exit(f"ci/mutants.txt: mutant {m.get('id', '?')} lacks '{k}'")
    return mutants


def copy_tree(dst):
    """The tracked and untracked-but-not-ignored files of the working tree (as git sees them)."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split("\n")
    for rel in filter(None, files):
        src = os.path.join(ROOT, rel)
        if not os.path.isfile(src):
            continue
        out = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copy2(src, out)
    shared = os.path.join(ROOT, "..", "shared")
    link = os.path.join(dst, "..", "shared")
    if os.path.isdir(shared) and not os.path.exists(link):
        os.symlink(os.path.abspath(shared), link)


def run(cmd, cwd, timeout):
    t0 = time.time()
    # GNN_STAGE_FAIL_FAST: the tier stops at its first failed stage (ci/stage.sh); the
    # verdict is the same (make check fails iff a stage fails), a killed mutant costs less
    env = dict(os.environ, GNN_STAGE_FAIL_FAST="1")
    # a session of its own, so that a timeout ends the whole process group (make's children too)
    p = subprocess.Popen(cmd, cwd=cwd, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=env, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return ("killed" if p.returncode else "survived"), time.time() - t0, out[-5000:]
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return "timeout", time.time() - t0, (out or "")[-5000:]


def first_failure(log):
    """The first FAIL line of a tier's output: which stage killed the mutant."""
    for line in log.split("\n"):
        if "FAIL" in line:
            return line.strip()[:160]
    return ""


def check_applies(mutants):
    """--check-applies: every mutant still applies to the tree as it is, its `find` once in its
    file; no test runs (a stage of make check: a refactor that moves code must carry its
    mutants along, or the next mutation run finds them stale). Returns the exit status."""
    bad = []
    for m in mutants:
        path = os.path.join(ROOT, m["file"])
        if not os.path.exists(path):
            bad.append(f"{m['id']}: {m['file']} does not exist")
            continue
        n = open(path, encoding="utf-8").read().count(m["find"])
        if n != 1:
            bad.append(f"{m['id']}: its find text occurs {n} times in {m['file']} (once expected)")
    for b in bad:
        print(f"ci/mutants.txt: {b}")
    print(f"mutants: {'FAIL' if bad else 'PASS'} ({len(mutants) - len(bad)} of {len(mutants)} mutants apply to the tree)")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--cmd", default="make -j2 check")
    ap.add_argument("--scratch", default="/tmp/gnnref-mutation/main")
    ap.add_argument("--report", default="")
    ap.add_argument("--check-applies", action="store_true")
    a = ap.parse_args()
    mutants = parse_mutants(os.path.join(ROOT, "ci", "mutants.txt"))
    if a.check_applies:
        sys.exit(check_applies(mutants))
    if a.only:
        keep = set(a.only.split(","))
        mutants = [m for m in mutants if m["id"] in keep]
    if os.path.exists(a.scratch):
        shutil.rmtree(a.scratch)
    os.makedirs(a.scratch)
    copy_tree(a.scratch)
    # the unmutated tree must pass, or every mutant would look killed
    print(f"mutation: baseline `{a.cmd}` in {a.scratch} ...", flush=True)
    verdict, secs, log = run(a.cmd, a.scratch, a.timeout)
    if verdict != "survived":
        print(log)
        sys.exit(f"mutation: the unmutated tree does not pass `{a.cmd}` ({verdict})")
    print(f"mutation: baseline passes in {secs:.0f} s", flush=True)
    rows = []
    for m in mutants:
        path = os.path.join(a.scratch, m["file"])
        if "equivalent" in m:
            rows.append((m, "equivalent", 0.0, m["equivalent"]))
            print(f"{m['id']:5} equivalent  {m['why']}", flush=True)
            continue
        text = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        if text.count(m["find"]) != 1:
            rows.append((m, "stale", 0.0, f"'find' occurs {text.count(m['find'])} times"))
            print(f"{m['id']:5} stale       {m['file']}: 'find' occurs {text.count(m['find'])} times", flush=True)
            continue
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(m["find"], m["replace"]))
        verdicts = []
        try:
            for _ in range(a.repeat):
                verdict, secs, log = run(a.cmd, a.scratch, a.timeout)
                verdicts.append(verdict)
                if verdict == "survived":
                    break
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        final = "survived" if "survived" in verdicts else verdicts[-1]
        detail = first_failure(log) if final != "survived" else ""
        if final != "survived" and len(set(verdicts)) > 1:
            detail = "not reproducible: " + ",".join(verdicts)
            final = "flaky"
        rows.append((m, final, secs, detail))
        print(f"{m['id']:5} {final:11} {secs:5.0f} s  {m['class']:12} {m['file']}: {m['why']}  {detail}", flush=True)
    counted = [r for r in rows if r[1] in ("killed", "timeout", "survived", "flaky")]
    killed = [r for r in counted if r[1] in ("killed", "timeout")]
    lines = ["| id | class | file | bug | verdict | detail |", "| --- | --- | --- | --- | --- | --- |"]
    for m, v, s, d in rows:
        lines.append(f"| {m['id']} | {m['class']} | `{m['file']}` | {m['why']} | {v} | {d} |")
    score = 100.0 * len(killed) / len(counted) if counted else 0.0
    summary = (f"mutation: {len(killed)} of {len(counted)} non-equivalent mutants killed ({score:.1f}%), "
               f"{sum(r[1] == 'equivalent' for r in rows)} equivalent, "
               f"{sum(r[1] == 'stale' for r in rows)} stale; command `{a.cmd}`, repeat {a.repeat}")
    print("\n".join(lines))
    print(summary)
    if a.report:
        with open(a.report, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n\n" + summary + "\n")
    return 0 if all(r[1] in ("killed", "timeout", "equivalent") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
