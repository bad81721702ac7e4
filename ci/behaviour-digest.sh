#!/usr/bin/env bash
# ci/behaviour-digest.sh TOOL OUTDIR -- record what a refactor must not change, so that two
# builds can be compared with `diff -r OUTDIR_before OUTDIR_after`:
#   OUTDIR/oracle.txt      every oracle case (all presets, --cases 3) with its outcome and the
#                          CRC32C digest of the implementation's outputs, one line per case
#   OUTDIR/train-*.txt     the per-step losses (%.17g: equal strings are equal bits) of
#                          `train` for sage, gcn, gat and gin, --impl ref and opt, one rank,
#                          4 simulated ranks and, when mpirun exists, mpirun -np 4; and of
#                          training on a partition set with --remote drop, hec and fetch
# Timings are left out (they change from run to run). Usage, e.g. before and after a change:
#   bash ci/behaviour-digest.sh build/bin/gnnref /tmp/before
#   ... change, rebuild ...
#   bash ci/behaviour-digest.sh build/bin/gnnref /tmp/after && diff -r /tmp/before /tmp/after
set -euo pipefail
TOOL=${1:?usage: bash ci/behaviour-digest.sh path/to/gnnref OUTDIR}
OUT=${2:?usage: bash ci/behaviour-digest.sh path/to/gnnref OUTDIR}
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$TOOL" oracle --cases 3 --json "$TMP/oracle.json" >/dev/null || true
python3 - "$TMP/oracle.json" >"$OUT/oracle.txt" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(r["case"], r["outcome"], r.get("digest", "-"))
EOF

steps() { # steps JSON > lines "step loss"
    python3 - "$1" <<'EOF'
import json, sys
for s in json.load(open(sys.argv[1]))["steps"]:
    print(s["step"], repr(s["loss"]))
EOF
}

export OMP_NUM_THREADS=2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
COMMON="--data builtin --epochs 2 --seed 3 --quiet"
for model in sage gcn gat gin; do
    for impl in ref opt; do
        "$TOOL" train $COMMON --model "$model" --impl "$impl" --json "$TMP/r.json" >/dev/null
        steps "$TMP/r.json" >"$OUT/train-$model-$impl-self.txt"
    done
    "$TOOL" train $COMMON --model "$model" --backend sim --ranks 4 --json "$TMP/r.json" >/dev/null
    steps "$TMP/r.json" >"$OUT/train-$model-sim4.txt"
    if command -v mpirun >/dev/null 2>&1; then
        mpirun -np 4 --oversubscribe "$TOOL" train $COMMON --model "$model" --backend mpi --json "$TMP/r.json" \
            >/dev/null
        steps "$TMP/r.json" >"$OUT/train-$model-mpi4.txt"
    fi
done
"$TOOL" partition builtin --parts 4 --balance train,degree -o "$TMP/set" >/dev/null
for remote in drop hec fetch; do
    for impl in ref opt; do
        "$TOOL" train --partitions "$TMP/set" --remote "$remote" --impl "$impl" --backend sim --ranks 4 \
            --epochs 2 --seed 3 --quiet --json "$TMP/r.json" >/dev/null
        steps "$TMP/r.json" >"$OUT/train-part-$remote-$impl-sim4.txt"
    done
done
echo "behaviour digest of $TOOL in $OUT: $(cat "$OUT"/*.txt | wc -l) lines"
