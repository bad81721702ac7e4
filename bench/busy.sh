#!/usr/bin/env bash
# bench/busy.sh -- 1 against 2 OpenMP threads while one other process keeps a core busy
# (issue 21, "OpenMP that survives a busy machine"; docs/openmp.md explains the figures).
#
# Starts one background busy loop (`sh -c 'while :; do :; done'`), then runs, interleaved
# (1 thread, 2 threads, 1, 2, ...) so that a change in the machine's other load hits both:
#   - the sampler: `gnnref sample` on an R-MAT graph (fused sampler, ordered ID map),
#     fanouts 15,10,5, batch 1000, 20 batches: sampled edges per second;
#   - a GraphSAGE epoch: `gnnref train` on an SBM graph of 200k vertices, hidden 64,
#     fanouts 10,10, batch 256, one epoch: the epoch's training time (the JSON report's
#     epoch time less its evaluation), and the sampling phase within it.
# Prints every run, the medians, and the ratio 2 threads : 1 thread (above 1: 2 threads are
# faster). Timings are not tests: this is not part of make check, and it always exits 0 when
# the runs themselves succeed. The busy loop is killed on every way out (trap).
#
# usage: bash bench/busy.sh [--tool PATH] [--reps N] [--scale S] [--nodes N] [--dir DIR]
#                           [--only sample|sage] [--no-load] [--adapt on|off]
#   --tool   the gnnref binary (default: $GNN_TOOL, else build/bin/gnnref)
#   --reps   runs per thread count (default 3)
#   --scale  R-MAT scale of the sampler's graph (default 18; edge factor 16)
#   --nodes  vertices of the SBM graph (default 200000; split 0.5,0.2,0.2)
#   --dir    where the generated graphs are kept between runs (default build/bench-busy)
#   --only   run only the sampler or only the SAGE epoch
#   --no-load  the same runs without the busy loop (the quiet-machine reference)
#   --adapt  the runs' --adapt-threads (default: the tool's, on): whether a run may use fewer
#            threads than it was given when that is measured to be faster (docs/openmp.md,
#            section 6); the mean team size of the 2-thread runs is printed
# The gnnref tool runs its OpenMP threads with OMP_WAIT_POLICY=passive unless the caller set
# OMP_WAIT_POLICY or GOMP_SPINCOUNT (docs/openmp.md); `OMP_WAIT_POLICY=active bash
# bench/busy.sh` shows what spinning waits cost.
set -euo pipefail

tool=${GNN_TOOL:-build/bin/gnnref}
reps=3
scale=18
nodes=200000
dir=build/bench-busy
only=
load=1
adapt=on
while [ $# -gt 0 ]; do
    case $1 in
    --tool) tool=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --no-load) load=0; shift ;;
    --adapt) adapt=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/busy.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
case $only in ''|sample|sage) ;; *) echo "bench/busy.sh: --only sample|sage" >&2; exit 2 ;; esac
case $adapt in on|off) ;; *) echo "bench/busy.sh: --adapt on|off" >&2; exit 2 ;; esac
[ -x "$tool" ] || { echo "bench/busy.sh: no gnnref at '$tool' (make, or --tool PATH)" >&2; exit 2; }

mkdir -p "$dir"
rmat=$dir/rmat-s$scale.gnn
sbm=$dir/sbm-n$nodes.gnn
out=$(mktemp -d)
busy=
child=
cleanup() {
    if [ -n "$child" ]; then kill "$child" 2>/dev/null || true; fi
    if [ -n "$busy" ]; then kill "$busy" 2>/dev/null || true; wait "$busy" 2>/dev/null || true; fi
    rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# each run in the background and waited for: a signal to this script interrupts `wait` at
# once (it would wait for a foreground child to finish first), so the busy loop goes with it
run() {
    "$@" &
    child=$!
    wait "$child"
    local rc=$?
    child=
    return $rc
}

# the graphs are generated before the load starts (and kept: the generator is deterministic)
if [ "$only" != sage ] && [ ! -s "$rmat" ]; then
    "$tool" gen rmat --scale "$scale" --edge-factor 16 --seed 1 -o "$rmat" >/dev/null
fi
if [ "$only" != sample ] && [ ! -s "$sbm" ]; then
    "$tool" gen sbm --nodes "$nodes" --split 0.5,0.2,0.2 --seed 1 -o "$sbm" >/dev/null
fi

if [ -n "${OMP_WAIT_POLICY:-}${GOMP_SPINCOUNT:-}" ]; then
    policy="as set: OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset} GOMP_SPINCOUNT=${GOMP_SPINCOUNT:-unset}"
else
    policy="none set (gnnref runs with OMP_WAIT_POLICY=passive)"
fi
echo "bench/busy.sh: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) before the run; wait policy $policy"
if [ $load = 1 ]; then
    sh -c 'while :; do :; done' &
    busy=$!
    echo "background load: one busy loop (pid $busy)"
    sleep 0.5
else
    echo "background load: none (--no-load)"
fi

for r in $(seq "$reps"); do
    for t in 1 2; do
        if [ "$only" != sage ]; then
            run "$tool" sample --data "$rmat" --fanouts 15,10,5 --batch 1000 --batches 20 --seed 1 \
                --threads $t --adapt-threads $adapt --json "$out/sample-$t-$r.json" >/dev/null
        fi
        if [ "$only" != sample ]; then
            run "$tool" train --data "$sbm" --model sage --hidden 64 --fanouts 10,10 --batch 256 --epochs 1 \
                --eval-every 0 --seed 1 --threads $t --adapt-threads $adapt --quiet --json "$out/sage-$t-$r.json" >/dev/null
        fi
    done
done

echo "adaptive team size (--adapt-threads): $adapt"
python3 - "$out" "$reps" "$only" "$rmat" "$sbm" <<'EOF'
import json, statistics, sys
out, reps, only, rmat, sbm = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
def load(kind, t, r):
    return json.load(open(f"{out}/{kind}-{t}-{r}.json"))
def row(name, unit, vals, higher_better):
    med = {t: statistics.median(vals[t]) for t in (1, 2)}
    ratio = med[2] / med[1] if higher_better else med[1] / med[2]
    runs = lambda t: " ".join(f"{v:.3g}" for v in vals[t])
    print(f"{name}: 1 thread {med[1]:.3g} {unit} [{runs(1)}], 2 threads {med[2]:.3g} {unit} [{runs(2)}]"
          f" -> 2:1 = {ratio:.2f}x ({'not slower' if ratio >= 1 else 'SLOWER'})")
if only != "sage":
    v = {t: [load("sample", t, r)["edges_per_s"] / 1e6 for r in range(1, reps + 1)] for t in (1, 2)}
    print(f"sampler ({rmat}, fanouts 15,10,5, batch 1000, 20 batches):")
    row("  sampled edges", "M/s", v, True)
    tm = [load("sample", 2, r)["team_mean"] for r in range(1, reps + 1)]
    print(f"  2-thread runs' mean team size: {' '.join(f'{x:.2f}' for x in tm)}")
if only != "sample":
    def epoch(t, r):
        e = load("sage", t, r)["epochs"][0]
        return e["time_s"] - e["phases"]["eval"], e["phases"]["sample"]
    v = {t: [epoch(t, r)[0] for r in range(1, reps + 1)] for t in (1, 2)}
    s = {t: [epoch(t, r)[1] for r in range(1, reps + 1)] for t in (1, 2)}
    print(f"SAGE epoch ({sbm}, hidden 64, fanouts 10,10, batch 256; time less evaluation):")
    row("  epoch", "s", v, False)
    row("  its sampling", "s", s, False)
    tm = [load("sage", 2, r)["epochs"][0]["team_mean"] for r in range(1, reps + 1)]
    print(f"  2-thread runs' mean team size: {' '.join(f'{x:.2f}' for x in tm)}")
EOF
