#!/usr/bin/env bash
# ci/tsan-omp.sh -- ThreadSanitizer over the OpenMP kernels (the check-tsan-omp stage of
# make check-full; docs/oracle.md, "Races"; docs/building.md).
#
# ci/tsan.sh keeps OpenMP at one thread: libgomp is not built with TSan, so its barriers are
# invisible to TSan and every parallel loop would be reported as racing with the code after
# it. This script builds with clang instead, against LLVM's OpenMP runtime (libomp), and loads
# its TSan tool, archer (OMP_TOOL_LIBRARIES), which tells TSan about every OpenMP
# synchronization (fork, join, barriers, tasks, locks, ordered, atomics through the
# compiler). Then a plain store where an atomic is needed is reported whenever two threads
# touch the same cell in one parallel region, whatever the interleaving: races the oracle's
# comparisons see only by chance (a window of a few instructions) are found every time.
#
# Runs, with the threaded implementations at 2 and 4 threads:
#   gnnref oracle --cases 1 --threads 2,4   every registry entry (the threaded kernels, the
#                                           samplers and ID maps, training under the simulator)
#   gnnref train ... --threads 4            one epoch of GraphSAGE and of GAT, mini-batches,
#                                           end to end through the OpenMP kernels
# Any race report fails the run (the reports are in the output: the stage's log); so does an
# oracle failure. Usage: make check-tsan-omp (a stage of make check-full), or by hand:
# bash ci/tsan-omp.sh. Build in $BUILD/tsan-omp (BUILD default build). Needs clang and LLVM's
# libomp with archer (Debian: clang libomp-dev; bash ci/install-deps.sh tsan-omp).
#
# TSAN_OPTIONS=ignore_noninstrumented_modules=1 is what archer asks for: libomp itself is not
# built with TSan, and without the option TSan reports libomp's own bookkeeping (its
# allocator's memset and free of the dynamic-schedule buffers, called from uninstrumented
# code) as races with the previous region's threads. Our code stays fully checked; no
# suppression is needed.
set -uo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
B=${BUILD:-build}/tsan-omp
TCC=${TSAN_OMP_CC:-clang}
SAN="-fsanitize=thread -fno-omit-frame-pointer -O1"

if [ "${NO_OPENMP:-}" = 1 ]; then
    echo "tsan-omp: SKIP (NO_OPENMP=1: no OpenMP kernels to check)"
    exit 0
fi
# clang and, beside it, LLVM's libomp and archer (clang-N lives in /usr/lib/llvm-N/bin)
if ! command -v "$TCC" >/dev/null 2>&1; then
    echo "tsan-omp: FAIL (no $TCC: install clang and libomp-dev, e.g. bash ci/install-deps.sh tsan-omp)"
    exit 1
fi
LLVM_LIB=$(cd "$(dirname "$(readlink -f "$(command -v "$TCC")")")/../lib" && pwd)
ARCHER=$LLVM_LIB/libarcher.so
for f in "$ARCHER" "$LLVM_LIB/libomp.so"; do
    if [ ! -e "$f" ]; then
        echo "tsan-omp: FAIL (no $f: LLVM's OpenMP runtime and its TSan tool; install libomp-dev, e.g. bash ci/install-deps.sh tsan-omp)"
        exit 1
    fi
done
export LD_LIBRARY_PATH=$LLVM_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_TOOL_LIBRARIES=$ARCHER
# verbose=1: archer says it is active (checked below: without it every report is suspect)
export ARCHER_OPTIONS="verbose=1"
export TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=0 exitcode=66 second_deadlock_stack=1"

# a kernel TSan cannot run on (an address-space layout it cannot map): say so and skip, as
# ci/tsan.sh does
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
cat >"$probe/p.c" <<'EOF'
#include <omp.h>
int main(void)
{
    int n = 0;
#pragma omp parallel num_threads(2) reduction(+ : n)
    n += omp_get_thread_num() >= 0;
    return n == 2 ? 0 : 1;
}
EOF
# shellcheck disable=SC2086
if ! "$TCC" $SAN -fopenmp=libomp "$probe/p.c" -o "$probe/p" 2>"$probe/err"; then
    echo "tsan-omp: FAIL ($TCC -fsanitize=thread -fopenmp=libomp does not build: $(head -c 300 "$probe/err" | tr '\n' ' '))"
    exit 1
fi
if ! "$probe/p" >"$probe/out" 2>&1; then
    echo "tsan-omp: SKIP (ThreadSanitizer does not run here: $(head -c 300 "$probe/out" | tr '\n' ' '))"
    exit 0
fi
if ! grep -q '^Archer detected' "$probe/out"; then
    echo "tsan-omp: FAIL (archer did not load from $ARCHER: $(head -c 300 "$probe/out" | tr '\n' ' '))"
    exit 1
fi

JOBS=""
[ -n "${MAKELEVEL:-}" ] || JOBS="-j$(nproc 2>/dev/null || echo 2)"
echo "== tsan-omp: building $B with $TCC, libomp and $SAN =="
t0=$(date +%s)
# NO_MPI: the MPI backend is not what this checks (ci/mpi-check.sh); OMPFLAGS: LLVM's runtime
# by name, so that a clang built to default to libgomp still gets the one archer hooks into
# shellcheck disable=SC2086
if ! $MAKE --no-print-directory $JOBS BUILD="$B" CC="$TCC" NO_MPI=1 NO_CUDA=1 OMPFLAGS=-fopenmp=libomp \
    COVFLAGS="$SAN" "$B/bin/gnnref" "$B/bin/gnnref-tests" >"$probe/build.log" 2>&1; then
    cat "$probe/build.log"
    echo "tsan-omp: FAIL (the build failed)"
    exit 1
fi
echo "built in $(($(date +%s) - t0)) s"
T=$B/bin/gnnref
LOG=$B/run.log
: >"$LOG"
rc_all=0
# run NAME CMD...: CMD with its output shown and kept in $LOG (the reports are counted there)
run() {
    local name=$1
    shift
    echo "== tsan-omp: $name: $* =="
    "$@" 2>&1 | tee -a "$LOG"
    local rc=${PIPESTATUS[0]}
    if [ "$rc" -ne 0 ]; then
        echo "== tsan-omp: $name: exit $rc"
        rc_all=1
    fi
}
t0=$(date +%s)
run oracle "$T" oracle --cases 1 --threads 2,4
oracle_line=$(grep -E '^oracle: [0-9]+ passed' "$LOG" | tail -1)
run train-sage env OMP_NUM_THREADS=4 "$T" train --data builtin --model sage --impl opt --epochs 1 --threads 4 --quiet
run train-gat env OMP_NUM_THREADS=4 "$T" train --data builtin --model gat --impl opt --epochs 1 --threads 4 --quiet
secs=$(($(date +%s) - t0))
races=$(grep -c '^WARNING: ThreadSanitizer' "$LOG")
archer=$(grep -c '^Archer detected' "$LOG")
if [ "$races" -gt 0 ]; then
    echo "== tsan-omp: the race reports' summaries (in full above):"
    grep '^SUMMARY: ThreadSanitizer' "$LOG" | sort | uniq -c | sort -rn | head -20
fi
if [ "$races" -eq 0 ] && [ "$rc_all" -eq 0 ] && [ "$archer" -gt 0 ]; then
    echo "tsan-omp: PASS (no race reported at threads 2 and 4, archer active; ${oracle_line:-no oracle line}; training sage and gat; $secs s)"
    exit 0
fi
why=""
[ "$races" -eq 0 ] || why="$races race reports"
[ "$rc_all" -eq 0 ] || why="${why:+$why; }a run failed"
[ "$archer" -gt 0 ] || why="${why:+$why; }archer not active"
echo "tsan-omp: FAIL ($why; ${oracle_line:-no oracle line}; log: $LOG)"
exit 1
