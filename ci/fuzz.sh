#!/usr/bin/env bash
# ci/fuzz.sh -- build the libFuzzer harnesses (make fuzz: fuzz/, clang with ASan + UBSan) and
# run each from its seed corpus for a fixed time; make check-full's check-fuzz stage
# (docs/fuzzing.md).
#
#   bash ci/fuzz.sh [TARGET...]        (none: every harness)
# Environment: FUZZ_SECONDS (per target, default 60), FUZZ_PARALLEL (targets run at once,
# default 2), BUILD (default build), MAKE.
#
# Each target runs as
#   $BUILD/fuzz/fuzz_T -max_total_time=60 -timeout=10 -rss_limit_mb=2048 -max_len=L \
#       [-dict=fuzz/dict/T.dict] $BUILD/fuzz/run/T/corpus fuzz/corpus/T
# so that what it learns goes to the build folder, never into the tree's corpus. Any crash,
# leak (LeakSanitizer), UBSan report, timeout (one input over 10 s) or out-of-memory (over
# 2048 MB) stops that target with a non-zero status and its reproducer in
# $BUILD/fuzz/run/T/artifacts/; the script then fails, printing the report. Ends with one line:
# "fuzz: PASS|FAIL (...)" with the executions per target.
set -uo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
B=${BUILD:-build}
F=$B/fuzz
SECS=${FUZZ_SECONDS:-60}
PAR=${FUZZ_PARALLEL:-2}
ALL="dataset text edgelist ogb manifest part case report ckpt"
TARGETS=${*:-$ALL}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

max_len() {
    case "$1" in
    dataset | part) echo 32768 ;;
    text | ogb | report | ckpt) echo 16384 ;;
    edgelist | manifest) echo 8192 ;;
    *) echo 2048 ;;
    esac
}

jobs=""
[ -n "${MAKELEVEL:-}" ] || jobs="-j$(nproc 2>/dev/null || echo 2)"
echo "== fuzz: building the harnesses (make fuzz) =="
# shellcheck disable=SC2086
if ! $MAKE --no-print-directory $jobs BUILD="$B" fuzz; then
    echo "fuzz: FAIL (make fuzz failed)"
    exit 1
fi

run_one() {
    local t=$1 w=$F/run/$1 dict=""
    rm -rf "$w"
    mkdir -p "$w/corpus" "$w/artifacts"
    [ -f "fuzz/dict/$t.dict" ] && dict="-dict=fuzz/dict/$t.dict"
    # shellcheck disable=SC2086
    "$F/fuzz_$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len="$(max_len "$t")" \
        -print_final_stats=1 -artifact_prefix="$w/artifacts/" $dict "$w/corpus" "fuzz/corpus/$t" >"$w/log" 2>&1
    echo $? >"$w/rc"
}

t0=$(date +%s)
running=0
for t in $TARGETS; do
    [ -x "$F/fuzz_$t" ] || { echo "fuzz: FAIL (no harness $F/fuzz_$t)"; exit 1; }
    echo "== fuzz: $t (${SECS} s)"
    run_one "$t" &
    running=$((running + 1))
    if [ $running -ge "$PAR" ]; then
        wait -n
        running=$((running - 1))
    fi
done
wait

failed="" summary="" total=0
for t in $TARGETS; do
    w=$F/run/$t
    rc=$(cat "$w/rc" 2>/dev/null || echo 1)
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$w/log" | tail -1 | grep -o '[0-9]*$')
    execs=${execs:-0}
    total=$((total + execs))
    summary="$summary $t=$execs"
    if [ "$rc" != 0 ]; then
        failed="$failed $t"
        echo "== fuzz: $t FAILED (exit $rc); reproducer(s): $(ls "$w/artifacts" 2>/dev/null | sed "s|^|$w/artifacts/|" | tr '\n' ' ')"
        echo "   replay: $F/fuzz_$t $w/artifacts/<file>   (FUZZ_VERBOSE=1 prints the library's messages)"
        grep -E -A40 '==[0-9]+==ERROR|runtime error|ALARM|out-of-memory|SUMMARY|fuzz_[a-z]+:' "$w/log" | head -80 | sed 's/^/    | /'
    fi
done
secs=$(($(date +%s) - t0))
if [ -n "$failed" ]; then
    echo "fuzz: FAIL (crash, leak, timeout or OOM in:$failed; executions:$summary; logs in $F/run/<target>/log)"
    exit 1
fi
echo "fuzz: PASS ($(echo $TARGETS | wc -w) targets x $SECS s in $secs s, $total executions:$summary; no crash, leak, timeout or OOM)"
