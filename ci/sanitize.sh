#!/usr/bin/env bash
# Build gnnref with AddressSanitizer + UndefinedBehaviorSanitizer (leak checking on) in
# $BUILD/asan and run the oracle and the Check suites (the slow ones excluded). Any report
# fails the run.
#
#   bash ci/sanitize.sh [build|oracle|suites]...   (none: all three, in order; make sanitize)
#
# make check-full runs the phases as three stages (check-asan-build, then check-asan-oracle
# and check-asan-suites, which can overlap under make -jN).
#
# The oracle registry runs here once, through `gnnref oracle` (ci/oracle-check.sh) at seeds
# 1000 and 1001, every thread count: the seeds the Check tcase `registry` uses, which the
# suites phase excludes (CK_EXCLUDE_TAGS) so that the registry does not run twice under ASan;
# the native oracle stages run seeds 1 to 3.
#
# The build takes its job count from make: under make, $MAKE and MAKEFLAGS carry the parent's
# jobserver (make -jN check-full; plain make: one job); by hand, make -j$(nproc).
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
B=${BUILD:-build}/asan
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# OpenMP's runtime keeps thread pools alive at exit; libgomp allocations are not ours.
export LSAN_OPTIONS=suppressions=$PWD/ci/lsan.supp

phase_build() {
    local jobs=""
    [ -n "${MAKELEVEL:-}" ] || jobs="-j$(nproc 2>/dev/null || echo 2)"
    echo "== sanitize: building $B (ASan + UBSan) =="
    # shellcheck disable=SC2086
    $MAKE --no-print-directory $jobs BUILD="$B" COVFLAGS="$SAN" "$B/bin/gnnref" "$B/bin/gnnref-tests" >/dev/null
    echo "sanitize: PASS (built $B/bin/gnnref and $B/bin/gnnref-tests)"
}

phase_oracle() {
    echo "== sanitize: oracle (every registry entry, seeds 1000 and 1001) =="
    local line
    bash ci/oracle-check.sh "$B/bin/gnnref" --cases 2 --seed 1000 >"$B/oracle.log" 2>&1 || {
        tail -60 "$B/oracle.log"
        exit 1
    }
    line=$(tail -1 "$B/oracle.log")
    echo "$line"
    echo "sanitize: PASS (ASan + UBSan ${line#oracle-check: PASS })"
}

phase_suites() {
    echo "== sanitize: Check suites (CK_FORK=no so the sanitizer sees every case in one process) =="
    local line
    CK_FORK=no CK_DEFAULT_TIMEOUT=300 CK_EXCLUDE_TAGS="slow registry" GNN_TOOL=$B/bin/gnnref $B/bin/gnnref-tests \
        >"$B/suites.log" 2>&1 || {
        tail -60 "$B/suites.log"
        exit 1
    }
    line=$(grep -E '^[0-9]+%: Checks: ' "$B/suites.log" | tail -1)
    echo "$line"
    echo "sanitize: PASS (ASan + UBSan, Check suites: $line)"
}

[ $# -gt 0 ] || set -- build oracle suites
for phase in "$@"; do
    case "$phase" in
    build | oracle | suites) "phase_$phase" ;;
    *)
        echo "usage: bash ci/sanitize.sh [build|oracle|suites]..." >&2
        exit 2
        ;;
    esac
done
