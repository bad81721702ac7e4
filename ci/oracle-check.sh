#!/usr/bin/env bash
# ci/oracle-check.sh TOOL [ORACLE FLAGS...] -- the oracle stage of the make tiers.
#
# Runs `TOOL oracle FLAGS --json REPORT` (every registry entry, every implementation in this
# build; any FAIL fails), then asserts what the Check tcase `registry` (tests/test_oracle.c)
# asserts besides: every entry that `TOOL oracle --list FLAGS` names passed at least one case
# (an entry that only skips proves nothing), and every implementation of an entry passed one
# unless all its cases were skipped. The tiers run this instead of that tcase, so the
# registry runs once natively and once under ASan (docs/building.md). With --threads LIST it
# also checks that the threaded cases ran at exactly those thread counts.
# Exit status: 0 when both hold, 1 otherwise (2: bad usage).
set -uo pipefail
TOOL=${1:?usage: bash ci/oracle-check.sh path/to/gnnref [oracle flags...]}
shift
if ! command -v python3 >/dev/null 2>&1; then
    echo "oracle-check: error: python3 not found (needed to read the JSON report); install python3" >&2
    exit 2
fi
threads=""
prev=""
for a in "$@"; do
    case "$a" in
    --threads=*) threads=${a#--threads=} ;;
    *) [ "$prev" = --threads ] && threads=$a ;;
    esac
    prev=$a
done
T=$(mktemp -d "${TMPDIR:-/tmp}/gnnref-oracle-check.XXXXXX")
trap 'rm -rf "$T"' EXIT

"$TOOL" oracle "$@" --json "$T/oracle.json"
rc=$?
if ! "$TOOL" oracle --list "$@" >"$T/list.txt"; then
    echo "oracle-check: FAIL (gnnref oracle --list $* failed)"
    exit 1
fi
python3 - "$T/oracle.json" "$T/list.txt" "$rc" "$threads" <<'EOF'
import json, sys

report_path, list_path, rc, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
# --list: a header line "OP ...", then per entry one line starting with its name and
# indented detail lines
ops = [line.split()[0] for line in open(list_path)
       if line.strip() and not line[0].isspace() and not line.startswith("OP ")]
try:
    report = json.load(open(report_path))
except (OSError, ValueError) as e:
    print(f"oracle-check: FAIL (no JSON report: {e}; gnnref oracle exit {rc})")
    sys.exit(1)
passed = {}
for r in report["results"]:
    if r["outcome"] == "PASS":
        passed[r["op"]] = passed.get(r["op"], 0) + 1
none = [op for op in ops if not passed.get(op)]
# every implementation of an entry passed a case too, unless each of its cases was skipped (the
# machine lacks what it needs: a GPU, an instruction set): one that is UNSUPPORTED on every case,
# as a cuda-emu table listed where its kernels cannot run, proves nothing (docs/oracle.md)
outcomes = {}
for r in report["results"]:
    outcomes.setdefault((r["op"], r["impl"]), set()).add(r["outcome"])
idle = sorted(f"{op} {impl}" for (op, impl), seen in outcomes.items() if "PASS" not in seen and seen - {"SKIP"})
for name in idle:
    print(f"oracle-check: {name}: no case passed (every case unsupported or skipped)")
c = report["counts"]
counts = f"oracle: {c['pass']} passed, {c['fail']} failed, {c['skip']} skipped, {c['unsupported']} unsupported"
for op in none:
    print(f"oracle-check: {op}: no case passed (every case skipped or failed)")
# --threads LIST: the threaded cases ran at those counts, each of them (unthreaded: 0)
bad_threads = ""
if threads:
    want = {int(t) for t in threads.split(",") if t}
    ran = {int(r["threads"]) for r in report["results"]} - {0}
    if ran != want and (ran or report["config"].get("openmp")):
        bad_threads = f"--threads {threads}, the cases ran at {sorted(ran)}"
        print(f"oracle-check: {bad_threads}")
ok = rc == 0 and not none and not idle and bool(ops) and not bad_threads
why = []
if rc != 0:
    why.append(f"gnnref oracle exit {rc}")
if none:
    why.append(f"{len(none)} of {len(ops)} entries passed no case")
if idle:
    why.append(f"{len(idle)} implementations passed no case")
if not ops:
    why.append("--list named no entry")
if bad_threads:
    why.append(bad_threads)
if ok:
    print(f"oracle-check: PASS ({len(ops)} entries, each passed a case; {counts})")
else:
    print(f"oracle-check: FAIL ({'; '.join(why)}; {counts})")
sys.exit(0 if ok else 1)
EOF
