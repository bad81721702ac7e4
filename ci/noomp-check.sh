#!/usr/bin/env bash
# ci/noomp-check.sh -- the check-noomp stage of make check-full (docs/building.md, "Without
# OpenMP"): a NO_OPENMP=1 build in $BUILD/noomp (NO_MPI and NO_CUDA too: neither changes what
# this checks) and the Check suites on it, the slow ones and the registry tcase excluded as in
# check-suites. Every suite must pass without OpenMP: a test whose subject is not threading
# asks for test_threads(N) (tests/thread_util.h) and expects what the build runs; one whose
# subject is threading says SKIP. Issue 34 found six cases that assumed two threads.
#
# The build takes its job count from make (make -jN check-full); by hand, make -j$(nproc).
set -uo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
B=${BUILD:-build}/noomp
jobs=""
[ -n "${MAKELEVEL:-}" ] || jobs="-j$(nproc 2>/dev/null || echo 2)"
echo "== noomp: building $B (NO_OPENMP=1 NO_MPI=1 NO_CUDA=1) =="
t0=$(date +%s)
# shellcheck disable=SC2086
if ! $MAKE --no-print-directory $jobs BUILD="$B" NO_OPENMP=1 NO_MPI=1 NO_CUDA=1 "$B/bin/gnnref" "$B/bin/gnnref-tests" \
    >"$B.build.log" 2>&1; then
    tail -40 "$B.build.log"
    echo "noomp: FAIL (the NO_OPENMP=1 build failed; log: $B.build.log)"
    exit 1
fi
if grep -q 'fopenmp\|GNN_HAVE_OPENMP' "$B/flags.stamp"; then
    echo "noomp: FAIL ($B was built with OpenMP: $B/flags.stamp)"
    exit 1
fi
echo "built in $(($(date +%s) - t0)) s"
echo "== noomp: Check suites (without the slow ones and the registry tcase) =="
CK_DEFAULT_TIMEOUT=120 CK_EXCLUDE_TAGS="slow registry" GNN_TOOL=$B/bin/gnnref $B/bin/gnnref-tests >"$B/suites.log" 2>&1
rc=$?
line=$(grep -E '^[0-9]+%: Checks: ' "$B/suites.log" | tail -1)
if [ $rc -ne 0 ] || [ -z "$line" ]; then
    grep -E ':[FE]:' "$B/suites.log" | head -20
    echo "noomp: FAIL (Check suites without OpenMP: ${line:-no summary}; log: $B/suites.log)"
    exit 1
fi
echo "noomp: PASS (every suite without OpenMP: $line; $(($(date +%s) - t0)) s)"
