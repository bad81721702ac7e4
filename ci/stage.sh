#!/usr/bin/env bash
# ci/stage.sh -- run one stage of a make test tier with its output in a log, so that stages
# overlapping under `make -jN` stay readable (docs/building.md).
#
#   bash ci/stage.sh LOGDIR NAME [--after STAGE]... CMD [ARG...]
#       runs CMD with stdout and stderr in LOGDIR/NAME.log; prints one line when it starts and
#       one when it ends: PASS or FAIL, the seconds it took and its summary line (the last line
#       of the log that looks like one, in this order of preference: a script's verdict
#       "<script>: PASS|FAIL|SKIP ...", Check's "NN%: Checks: ...", the oracle's
#       "oracle: N passed, ...", "SKIP: ..."), and on failure the log's last lines.
#       With --after STAGE, CMD runs only when STAGE passed (its build, say); otherwise the
#       stage fails without running. Records the result in LOGDIR/NAME.result (one line:
#       PASS|FAIL, seconds, summary). Exits with CMD's status (1 when not run), or 0 when
#       GNN_STAGE_COLLECT=1 (set by `make check` / `make check-full`, which run every stage
#       and fail at the end, in the summary), unless GNN_STAGE_FAIL_FAST=1 and CMD failed.
#       CMD is cut after STAGE_TIMEOUT seconds (default 3000; exit 124, the stage fails).
#   bash ci/stage.sh --summary LOGDIR TIER T0 NAME...
#       the tier's last lines: one per stage (result, seconds, summary line) and a final
#       "TIER: PASS|FAIL ..." line; T0 is when make started (seconds since the epoch, or -).
#       Exits 1 when a stage failed or left no result.
set -uo pipefail

SUMMARY_RES=('^[a-z-]+: (PASS|FAIL|SKIP)\b' '^[0-9]+%: Checks: ' '^oracle: [0-9]+ passed' '^SKIP: ')
TAIL_LINES=${STAGE_TAIL_LINES:-40}
STAGE_TIMEOUT=${STAGE_TIMEOUT:-3000}

if [ "${1:-}" = --summary ]; then
    LOGDIR=$2 TIER=$3 T0=$4
    shift 4
    n_pass=0 n_fail=0 failed=""
    echo "$TIER: summary (logs in $LOGDIR/)"
    for name in "$@"; do
        res="$LOGDIR/$name.result"
        if [ -s "$res" ]; then
            read -r outcome secs line <"$res" || true
        else
            outcome=FAIL secs=- line="(no result: the stage did not run or was interrupted)"
        fi
        printf '  %-18s %-4s %5s s  %s\n' "$name" "$outcome" "$secs" "$line"
        if [ "$outcome" = PASS ]; then
            n_pass=$((n_pass + 1))
        else
            n_fail=$((n_fail + 1))
            failed="$failed $name"
        fi
    done
    took=""
    if [ "$T0" != - ]; then
        took="; $(($(date +%s) - T0)) s since make started"
    fi
    if [ $n_fail -eq 0 ]; then
        echo "$TIER: PASS ($n_pass stages passed$took)"
        exit 0
    fi
    echo "$TIER: FAIL ($n_fail of $((n_pass + n_fail)) stages failed:$failed; see $LOGDIR/<stage>.log$took)"
    exit 1
fi

LOGDIR=${1:?usage: ci/stage.sh LOGDIR NAME CMD...}
NAME=${2:?usage: ci/stage.sh LOGDIR NAME CMD...}
shift 2
mkdir -p "$LOGDIR"
LOG=$LOGDIR/$NAME.log
RES=$LOGDIR/$NAME.result
rm -f "$RES"
blocked=""
while [ "${1:-}" = --after ]; do
    read -r first _ <"$LOGDIR/$2.result" 2>/dev/null || first=""
    [ "$first" = PASS ] || blocked="$blocked${blocked:+, }$2"
    shift 2
done
[ $# -gt 0 ] || { echo "usage: ci/stage.sh LOGDIR NAME [--after STAGE]... CMD..." >&2; exit 2; }
if [ -n "$blocked" ]; then
    line="not run: $blocked did not pass"
    echo "$line" >"$LOG"
    echo "== $NAME: FAIL ($line)"
    printf '%s %s %s\n' FAIL 0 "$line" >"$RES"
    [ "${GNN_STAGE_COLLECT:-0}" = 1 ] && exit 0
    exit 1
fi
echo "== $NAME: started (log: $LOG)"
t0=$(date +%s%N)
# a stage that hangs is cut at STAGE_TIMEOUT seconds (its process group: mpirun's ranks too)
# and fails, so that one hang cannot use up the whole CI run
timeout --kill-after=60 "$STAGE_TIMEOUT" "$@" >"$LOG" 2>&1 </dev/null
rc=$?
secs=$((($(date +%s%N) - t0) / 1000000000))
line=""
for re in "${SUMMARY_RES[@]}"; do
    line=$(grep -E "$re" "$LOG" | tail -1 | cut -c1-240)
    [ -z "$line" ] || break
done
[ -n "$line" ] || line="(no summary line; see $LOG)"
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    line="timed out after $STAGE_TIMEOUT s (STAGE_TIMEOUT); $line"
fi
if [ $rc -eq 0 ]; then
    outcome=PASS
    echo "== $NAME: PASS in $secs s: $line"
else
    outcome=FAIL
    line="exit $rc: $line"
    # one write, so that a stage finishing at the same time does not cut into it
    msg=$(
        echo "== $NAME: FAIL in $secs s ($line); last $TAIL_LINES lines of $LOG:"
        tail -n "$TAIL_LINES" "$LOG" | sed 's/^/    | /'
    )
    printf '%s\n' "$msg"
fi
printf '%s %s %s\n' "$outcome" "$secs" "$line" >"$RES"
# GNN_STAGE_FAIL_FAST=1 (ci/mutation.py): a failed stage fails make at once, even in a tier,
# so a run that is only asked "does any stage fail" stops at the first that does
if [ "${GNN_STAGE_COLLECT:-0}" = 1 ] && { [ $rc -eq 0 ] || [ "${GNN_STAGE_FAIL_FAST:-0}" != 1 ]; }; then
    exit 0
fi
exit $rc
