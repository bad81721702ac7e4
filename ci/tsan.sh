#!/usr/bin/env bash
# Build gnnref with ThreadSanitizer in $BUILD/tsan and run what shares memory between POSIX
# threads: the simulator (one thread per rank, sim/), the communicator on top of it, and
# training on partitions under it (hec pushes in flight, faults, the mini-batch pipeline's worker
# threads). Any race report fails the
# run. Usage: make tsan (or make check-tsan, a stage of make check-full), or by hand:
# bash ci/tsan.sh. The build takes its job count from make (the parent's jobserver under
# make -jN; one job under plain make); by hand, make -j$(nproc).
#
# OpenMP stays at one thread here (OMP_NUM_THREADS=1, and only suites that keep it so): libgomp
# is not built with TSan, so its barriers are invisible to TSan and every parallel loop would
# be reported as racing with the code after it. The OpenMP kernels are checked by ci/tsan-omp.sh
# instead (clang, LLVM's libomp and its TSan tool archer), and by the oracle's stress mode.
set -euo pipefail
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
B=${BUILD:-build}/tsan
SAN="-fsanitize=thread -fno-omit-frame-pointer"

# a compiler or kernel without a working TSan (no libtsan; an address-space layout TSan cannot
# map): say so and skip, as the GPU checks do
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
if ! echo 'int main(void) { return 0; }' | ${CC:-cc} -x c - $SAN -o "$probe/p" 2>"$probe/err" ||
    ! "$probe/p" 2>>"$probe/err"; then
    echo "tsan: SKIP (ThreadSanitizer does not build or run here: $(head -c 200 "$probe/err" | tr '\n' ' '))"
    exit 0
fi

JOBS=""
[ -n "${MAKELEVEL:-}" ] || JOBS="-j$(nproc 2>/dev/null || echo 2)"
echo "== tsan: building $B =="
# shellcheck disable=SC2086
$MAKE --no-print-directory $JOBS BUILD="$B" COVFLAGS="$SAN" "$B/bin/gnnref" "$B/bin/gnnref-tests" >/dev/null
export OMP_NUM_THREADS=1
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
T=$B/bin/gnnref
echo "== tsan: Check suites sim, sim_faults, sim_golden, comm, train_part_cli (CK_FORK=no: one process per suite) =="
for s in sim sim_faults sim_golden comm train_part_cli; do
    CK_FORK=no CK_DEFAULT_TIMEOUT=600 CK_RUN_SUITE=$s GNN_TOOL=$T $B/bin/gnnref-tests | tail -1
done
echo "== tsan: commcheck and training on partitions under the simulator =="
$T commcheck --backend sim --ranks 4 | tail -1
$T train --backend sim --ranks 3 --remote hec --epochs 1 --layers 2 --fanouts 3,3 --quiet \
    --fault-drop 0.3 --fault-delay 2 --fault-delay-p 0.5 | tail -1
$T train --backend sim --ranks 3 --remote fetch --epochs 1 --layers 2 --fanouts 3,3 --quiet | tail -1
# the mini-batch pipeline: a worker thread per rank samples and copies ahead of the trainer
$T train --backend sim --ranks 3 --remote hec --epochs 2 --layers 2 --fanouts 3,3 --pipeline 4 --pipeline-copy 2 \
    --quiet | tail -1
$T train --backend sim --ranks 4 --epochs 1 --quiet | tail -1
echo "tsan: PASS (no race reported)"
