#!/usr/bin/env bash
# ci/resume-check.sh TOOL -- checkpoint and resume under real mpirun (docs/checkpoint.md):
#   for data parallel and for hec training on partitions, `mpirun -np 4 TOOL train ... --backend
#   mpi`: an uninterrupted run; a run with --checkpoint killed with SIGKILL after a step chosen
#   by the keyed generator (Philox4x32-10, DESIGN.md section 2: seed 25, tag GNN_TAG_ORACLE = 10
#   -- the choice of a test case, as the oracle's case generators make it --, step 0, layer 0,
#   id = the setting, draw 0, uniform over [every * M, total - 1): after the first checkpoint,
#   before the last step) through the tool's test hook GNNREF_TEST_KILL_AT_STEP (every rank
#   raises SIGKILL after that step; mpirun then ends the job); then --resume. The resumed run's
#   JSON "steps" must equal the uninterrupted run's, and its final.weights_crc32c and
#   final.state_crc32c too; the uninterrupted run under the simulator with 4 ranks must agree as
#   well (sim and MPI are bitwise equal, DESIGN.md section 4).
# Environment: NO_MPI=1 skips (built without MPI); RESUME_NP (default 4).
set -uo pipefail
TOOL=${1:?usage: bash ci/resume-check.sh path/to/gnnref}
NP=${RESUME_NP:-4}
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: mpirun not found (install openmpi-bin and libopenmpi-dev to run the MPI resume check)"
    exit 0
fi
if [ "${NO_MPI:-}" = 1 ]; then
    echo "SKIP: gnnref was built with NO_MPI=1 (the MPI backend is not compiled in)"
    exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
T=$(mktemp -d /tmp/gnnref-resume-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0

philox_step() { # setting lo hi -> lo + integer(hi - lo) of (seed 25, ORACLE, 0, 0, setting)
    python3 - "$@" <<'EOF'
import sys
setting, lo, hi = map(int, sys.argv[1:4])
M32 = 0xFFFFFFFF
def philox(ctr, key):
    c = list(ctr); k = list(key)
    for r in range(10):
        p0 = 0xD2511F53 * c[0]; p1 = 0xCD9E8D57 * c[2]
        c = [((p1 >> 32) ^ c[1] ^ k[0]) & M32, p1 & M32, ((p0 >> 32) ^ c[3] ^ k[1]) & M32, p0 & M32]
        if r < 9:
            k = [(k[0] + 0x9E3779B9) & M32, (k[1] + 0xBB67AE85) & M32]
    return c
assert philox([0, 0, 0, 0], [0, 0]) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
seed, tag, step, layer, vid = 25, 10, 0, 0, setting
w = philox([0, vid & M32, ((vid >> 32) & 0xFFFF) | layer << 16 | tag << 24, step], [seed & M32, seed >> 32])
r = w[1] << 32 | w[0]          # draw 0: words 0 (low) and 1 (high) of block 0
print(lo + ((r * (hi - lo)) >> 64))
EOF
}

steps_of() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ".join(repr(s["loss"]) for s in r["steps"]))' "$1"; }
final_of() { python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["final"]; print(f["weights_crc32c"], f["state_crc32c"])' "$1"; }
count_of() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["steps"]), len(r["epochs"]))' "$1"; }

check() { # name setting epochs every flags...
    local name=$1 setting=$2 epochs=$3 every=$4
    shift 4
    local flags=("$@" --epochs "$epochs" --quiet) ck=()
    [ "$every" -gt 1 ] && ck=(--checkpoint-every "$every")
    rm -rf "$T/ck"
    if ! mpirun -np "$NP" --oversubscribe "$TOOL" train "${flags[@]}" --backend mpi --json "$T/full.json" >"$T/full.log" 2>&1; then
        echo "FAIL $name: the uninterrupted run: $(tail -3 "$T/full.log")"; fail=1; return
    fi
    "$TOOL" train "${flags[@]}" --backend sim --ranks "$NP" --json "$T/sim.json" >/dev/null 2>&1 ||
        { echo "FAIL $name: the simulator run"; fail=1; return; }
    read -r total ne < <(count_of "$T/full.json")
    local M=$((total / ne))
    local kill
    kill=$(philox_step "$setting" "$((every * M))" "$((total - 1))")
    GNNREF_TEST_KILL_AT_STEP=$kill mpirun -np "$NP" --oversubscribe -x GNNREF_TEST_KILL_AT_STEP "$TOOL" train \
        "${flags[@]}" --backend mpi --checkpoint "$T/ck" "${ck[@]}" --json "$T/killed.json" >"$T/killed.log" 2>&1
    local rc=$?
    if [ $rc = 0 ] || [ -e "$T/killed.json" ]; then
        echo "FAIL $name: the run was not killed after step $kill (rc $rc)"; fail=1; return
    fi
    if ! mpirun -np "$NP" --oversubscribe "$TOOL" train "${flags[@]}" --backend mpi --resume "$T/ck" \
        --checkpoint "$T/ck" --json "$T/resumed.json" >"$T/resumed.log" 2>&1; then
        echo "FAIL $name: resume: $(tail -3 "$T/resumed.log")"; fail=1; return
    fi
    if [ "$(steps_of "$T/full.json")" != "$(steps_of "$T/resumed.json")" ]; then
        echo "FAIL $name: killed after step $kill, the resumed step losses differ"; fail=1; return
    fi
    if [ "$(final_of "$T/full.json")" != "$(final_of "$T/resumed.json")" ]; then
        echo "FAIL $name: final weights $(final_of "$T/full.json"), resumed $(final_of "$T/resumed.json")"; fail=1; return
    fi
    if [ "$(steps_of "$T/full.json")" != "$(steps_of "$T/sim.json")" ] ||
        [ "$(final_of "$T/full.json")" != "$(final_of "$T/sim.json")" ]; then
        echo "FAIL $name: mpirun and the simulator differ"; fail=1; return
    fi
    echo "ok   $name: mpirun -np $NP, killed after step $kill of $total ($M per epoch), resumed: $total step losses and weights $(final_of "$T/full.json") bitwise equal"
}

base=(--data builtin --batch 64 --hidden 16 --fanouts 5,5)
check "data parallel" 0 4 1 "${base[@]}"
check "partitions hec" 1 4 1 "${base[@]}" --remote hec --hec-delay 2
check "partitions hec, pipeline, every 2" 2 5 2 "${base[@]}" --remote hec --pipeline 3
[ $fail = 0 ] && echo "resume-check: PASS (mpirun -np 4: data parallel, hec, hec pipelined; killed at a keyed step and resumed: step losses and weights bitwise equal to runs never stopped)" || echo "resume-check: FAIL"
exit $fail
