#!/usr/bin/env bash
# ci/oracle-stress.sh TOOL -- the check-stress stage of both test tiers (docs/oracle.md,
# "Races"): `gnnref oracle --stress` over the entries whose optimized twins synchronize
# threads: through atomics (the ID maps' atomic min, CAS loop and counter; index_add's and the
# aggregations' per-thread ranges) and through barriers (every threaded counting sort: a count
# per thread, a prefix, a scatter), at 2, 4 and 8 threads, every case run several times under
# background noise threads and the kernels' stress mode (opt/cpu/omp_stress.h: random chunks
# for their dynamic loops, random pauses inside their counting sorts). A plain store in place
# of the dense map's atomic min fails 7-9 cases of the idmap run here, every time (measured on
# 2 cores); one run of each case, as check-oracle does, misses it. ThreadSanitizer over the
# same kernels is check-tsan-omp, in the full tier; the CAS loops' interleavings are the
# `interleave` Check suite's (tests/test_interleave.c).
#
# First, the class check: every file of opt/cpu/ and core/ with a threaded prefix-then-scatter
# in one parallel region (an OpenMP single or barrier, a running prefix gnn_run_prefix_to, a
# stress point) names the oracle entries that reach it in an "oracle-stress: ENTRY, ..." tag,
# and each of those entries is in PLAN. So a new counting sort cannot stay out of this stage.
#
# --quick (the fast tier, make check): half the runs of each entry, at least one; the full tier
# (make check-full) runs the whole plan.
set -uo pipefail
TOOL=${1:?usage: bash ci/oracle-stress.sh path/to/gnnref [--quick]}
QUICK=0
[ "${2:-}" = "--quick" ] && QUICK=1
[ -x "$TOOL" ] && TOOL=$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL")
cd "$(dirname "$0")/.." || exit 1
# ENTRY RUNS: runs per case, more where the races are narrow (a few instructions)
PLAN="idmap* 8
index_add 4
aggregate* 4
sample.blocks 2
dsample.blocks 2
hetero.ids 8
partition.build 4
partition.db_halo 4
partition.ldg 1
spmm.dw 4
commplan.build 4
reorder.degree 4"

in_plan() {
    local op runs
    while read -r op runs; do
        # shellcheck disable=SC2053
        [[ $1 == $op ]] && return 0
    done <<<"$PLAN"
    return 1
}

rc=0
files=$(grep -lE '#pragma omp (single|barrier)|gnn_run_prefix_to\(|GNN_OMP_STRESS_POINT\(' opt/cpu/*.c core/*/*.c)
n_files=0
for f in $files; do
    n_files=$((n_files + 1))
    tags=$(grep -oE 'oracle-stress: [a-z0-9_.*]+(, [a-z0-9_.*]+)*' "$f" | sed 's/^oracle-stress: //; s/,/ /g')
    if [ -z "$tags" ]; then
        echo "oracle-stress: $f has a threaded prefix-then-scatter (an omp single or barrier, gnn_run_prefix_to or a stress point) and no \"oracle-stress: ENTRY\" tag naming the oracle entries that reach it"
        rc=1
    fi
    for e in $tags; do
        if ! in_plan "$e"; then
            echo "oracle-stress: $f names $e (its oracle-stress tag), which is not in this script's PLAN"
            rc=1
        fi
    done
done
[ $rc -eq 0 ] && echo "== oracle-stress: the $n_files files with a threaded prefix-then-scatter all name entries of the plan"

summary=""
while read -r op runs; do
    [ $QUICK -eq 1 ] && runs=$(((runs + 1) / 2))
    echo "== oracle-stress: $TOOL oracle --op '$op' --cases 1 --stress $runs"
    "$TOOL" oracle --op "$op" --cases 1 --stress "$runs" || rc=1
    summary="$summary${summary:+, }$op x$runs"
done <<<"$PLAN"
if [ $rc -eq 0 ]; then
    echo "oracle-stress: PASS ($summary at threads 2, 4, 8 under noise threads and the kernels' stress mode: every run the same bits)"
else
    echo "oracle-stress: FAIL (a case failed or changed its output between runs, or a counting sort is out of the plan: see above)"
fi
exit $rc
