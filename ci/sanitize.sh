#!/usr/bin/env bash
# Build gnnref with AddressSanitizer + UndefinedBehaviorSanitizer (leak checking on) in
# build/asan and run the oracle and the Check suites (the slow Cora case excluded).
# Any report fails the run. Usage: bash ci/sanitize.sh   (or: make sanitize)
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/asan
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
make --no-print-directory -j2 BUILD=$B COVFLAGS="$SAN" $B/bin/gnnref $B/bin/gnnref-tests >/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# OpenMP's runtime keeps thread pools alive at exit; libgomp allocations are not ours.
export LSAN_OPTIONS=suppressions=$PWD/ci/lsan.supp
echo "== sanitize: oracle =="
$B/bin/gnnref oracle --cases 2 | tail -1
echo "== sanitize: Check suites (CK_FORK=no so the sanitizer sees every case in one process) =="
CK_FORK=no CK_DEFAULT_TIMEOUT=300 CK_EXCLUDE_TAGS=slow GNN_TOOL=$B/bin/gnnref $B/bin/gnnref-tests | tail -1
