#!/usr/bin/env bash
# ci/oracle-stress.sh TOOL -- the check-stress stage of both test tiers (docs/oracle.md,
# "Races"): `gnnref oracle --stress` over the entries whose optimized twins synchronize
# threads through atomics (the ID maps' atomic min, CAS loop and counter; index_add's and the
# aggregations' per-thread ranges), at 2, 4 and 8 threads, every case run several times under
# background noise threads and a random OpenMP schedule. A plain store in place of the dense
# map's atomic min fails 7-9 cases of the idmap run here, every time (measured on 2 cores);
# one run of each case, as check-oracle does, misses it. ThreadSanitizer over the same kernels
# is check-tsan-omp, in the full tier.
set -uo pipefail
TOOL=${1:?usage: bash ci/oracle-stress.sh path/to/gnnref}
# ENTRY RUNS: runs per case, more where the races are narrow (a few instructions)
PLAN="idmap* 8
index_add 4
aggregate* 4"
rc=0
summary=""
while read -r op runs; do
    echo "== oracle-stress: $TOOL oracle --op '$op' --cases 1 --stress $runs"
    "$TOOL" oracle --op "$op" --cases 1 --stress "$runs" || rc=1
    summary="$summary${summary:+, }$op x$runs"
done <<<"$PLAN"
if [ $rc -eq 0 ]; then
    echo "oracle-stress: PASS ($summary at threads 2, 4, 8 under noise threads: every run the same bits)"
else
    echo "oracle-stress: FAIL (a case failed or changed its output between runs; its replay line is above)"
fi
exit $rc
