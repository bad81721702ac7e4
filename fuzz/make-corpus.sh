#!/usr/bin/env bash
# fuzz/make-corpus.sh -- regenerate the seed corpus fuzz/corpus/<target>/ (docs/fuzzing.md):
# tiny valid inputs made with the tool (gnnref gen, convert, partition) and the test fixtures,
# and a few invalid ones. The corpus is kept in the tree (well under 1 MB); run this only to
# remake it:   bash fuzz/make-corpus.sh [path/to/gnnref]   (default build/bin/gnnref)
set -euo pipefail
cd "$(dirname "$0")/.."
T=$(readlink -f "${1:-build/bin/gnnref}")
C=fuzz/corpus
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
rm -rf "$C"
mkdir -p "$C"/{dataset,text,edgelist,ogb,manifest,part,case,report,ckpt}

# ---- dataset: versions 1 (dense), 2 (CSR features), 3 (types), a part file (extensions) ----
"$T" gen sbm -o "$W/sbm.gnn" --nodes 12 --classes 3 --features 4 --deg-in 2 --deg-out 1 >/dev/null
"$T" gen sbm -o "$W/sbm0.gnn" --nodes 6 --classes 2 --features 0 --split 0,0,0 >/dev/null
"$T" gen rmat -o "$W/rmat.gnn" --scale 3 --edge-factor 2 >/dev/null
"$T" gen hsbm -o "$W/hsbm.gnn" --nodes 12 --classes 3 --features 4 --types 2 --featureless 1 --deg-in 2 --deg-out 1 >/dev/null
"$T" convert "$W/sbm.gnn" --feature-storage csr -o "$W/csr.gnn" >/dev/null
"$T" convert --format text tests/fixtures/text_tiny -o "$W/text_tiny.gnn" >/dev/null
"$T" convert --format text tests/fixtures/text_tiny --feature-storage csr -o "$W/text_tiny_csr.gnn" >/dev/null
"$T" partition "$W/sbm.gnn" --parts 2 -o "$W/pset" >/dev/null
for f in sbm sbm0 rmat hsbm csr text_tiny text_tiny_csr; do cp "$W/$f.gnn" "$C/dataset/$f.gnn"; done
cp "$W/pset/part-00001.gnn" "$C/dataset/part1.gnn"
head -c 700 "$W/sbm.gnn" >"$C/dataset/truncated.gnn"
printf 'GNNREF\0\0' >"$C/dataset/magic_only.gnn"
cp tests/fixtures/tiny.edges "$C/dataset/not_binary.txt"

# ---- text: bundles of the text layout (fuzz/fuzz_util.h: "@@ NAME" lines) ----
bundle() { # bundle OUT DIR [gz-name...]: every file of DIR as "@@ NAME" sections
    local out=$1 dir=$2 f first=1
    shift 2
    : >"$out"
    for f in $(cd "$dir" && find . -type f | sed 's|^\./||' | sort); do
        [ $first = 1 ] || printf '\n' >>"$out"
        first=0
        local name=$f
        for g in "$@"; do [ "$g" = "$f" ] && name="$f.gz"; done
        printf '@@ %s\n' "$name" >>"$out"
        cat "$dir/$f" >>"$out"
    done
}
bundle "$C/text/text_tiny" tests/fixtures/text_tiny
bundle "$C/text/text_tiny_gz_splits" tests/fixtures/text_tiny train.txt val.txt test.txt
printf '@@ meta.txt\nnum_nodes 3\n@@ edges.txt\n0 1\n1 0\n1 2\n' >"$C/text/minimal"
printf '@@ meta.txt\nnum_nodes 3\nnum_features 2\nnum_classes 2\n@@ edges.txt\n0 1\n2 2\n@@ features.txt\n0 1 0.5\n2 0 -1e3\n@@ labels.txt\n1\n-1\n0\n@@ train.txt\n0\n@@ test.txt.gz\n2\n' >"$C/text/small"
printf '@@ meta.txt\nnum_nodes 2\n@@ edges.txt\n0 1\n1 0\0 99' >"$C/text/nul_last_line"

# ---- edgelist ----
cp tests/fixtures/tiny.edges "$C/edgelist/tiny.edges"
cp tests/fixtures/fig2.edges "$C/edgelist/fig2.edges"
printf '# comment\n%% konect\n0 1\n1\t2\n2 2\n\n3 0\r\n' >"$C/edgelist/comments"
printf 'GZ:0 1\n1 2\n2 3\n' >"$C/edgelist/gz"
printf '0 1\n2 3\0 99 98' >"$C/edgelist/nul"
printf '0 1 5\n' >"$C/edgelist/weight"
gzip -c tests/fixtures/tiny.edges | head -c 20 >"$C/edgelist/truncated_gzip"

# ---- ogb: homogeneous (the fixture, plain and gzipped) and heterogeneous ----
bundle "$C/ogb/ogb_tiny" tests/fixtures/ogb_tiny
(cd tests/fixtures/ogb_tiny && find . -type f | sed 's|^\./||') >"$W/ogbfiles"
# shellcheck disable=SC2046
bundle "$C/ogb/ogb_tiny_gz" tests/fixtures/ogb_tiny $(cat "$W/ogbfiles")
mkdir -p "$W/mag"
put() { mkdir -p "$(dirname "$W/mag/$1")"; printf "$2" >"$W/mag/$1"; }
put raw/num-node-dict.csv 'paper,author,institution\n4,3,2\n'
put raw/triplet-type-list.csv 'author,writes,paper\npaper,cites,paper\nauthor,affiliated_with,institution\n'
put raw/relations/author___writes___paper/edge.csv '0,0\n0,1\n1,1\n2,3\n0,1\n'
put raw/relations/author___writes___paper/num-edge-list.csv '5\n'
put raw/relations/paper___cites___paper/edge.csv '1,0\n2,0\n3,2\n'
put raw/relations/author___affiliated_with___institution/edge.csv '0,0\n1,1\n2,1\n'
put raw/node-feat/paper/node-feat.csv '0.5,1\n-1,2\n3,4\n0,0.25\n'
put raw/node-label/paper/node-label.csv '1\n0\n2\n1\n'
put split/time/paper/train.csv '0\n2\n'
put split/time/paper/valid.csv '1\n'
put split/time/paper/test.csv '3\n'
bundle "$C/ogb/mag_tiny" "$W/mag"
printf '\x01' >>"$C/ogb/mag_tiny" # last byte bit 0: --reverse-relations
bundle "$C/ogb/mag_tiny_gz" "$W/mag" raw/num-node-dict.csv raw/triplet-type-list.csv \
    raw/relations/author___writes___paper/edge.csv split/time/paper/train.csv
printf '@@ raw/edge.csv.gz!\n\x1f\x8b\x08\x00\x00\x00\x00\x00' >"$C/ogb/corrupt_gzip"

# ---- manifest and part files of a partition set (the harnesses' own template set, exported
# by a built fuzz_part: FUZZ_PSET_EXPORT) and of another set; part vector files ----
FZ=${FUZZ_BUILD:-build/fuzz}
if [ -x "$FZ/fuzz_part" ]; then
    mkdir -p "$W/tpl"
    printf '0' >"$W/one"
    FUZZ_PSET_EXPORT="$W/tpl" "$FZ/fuzz_part" "$W/one" >/dev/null 2>&1
    cp "$W/tpl/manifest.json" "$C/manifest/template.json"
    { printf '0'; cat "$W/tpl/part-00000.gnn"; } >"$C/part/part0"
    { printf '1'; cat "$W/tpl/part-00001.gnn"; } >"$C/part/part1"
else
    echo "make-corpus: no $FZ/fuzz_part (make fuzz first): no template seeds for fuzz_manifest and fuzz_part" >&2
fi
cp "$W/pset/manifest.json" "$C/manifest/other_set.json"
"$T" partition "$W/sbm.gnn" --parts 2 --trainers 2 -o "$W/pset2" >/dev/null 2>&1 &&
    cp "$W/pset2/manifest.json" "$C/manifest/other_set_trainers.json" || true
{ printf '1'; cat "$W/pset/part-00001.gnn"; } >"$C/part/other_set_part1"
{ printf 'v\x07\x03'; cat tests/fixtures/fig2.part; } >"$C/part/vector_fig2"
printf 'v\x04\x00 0\n1 \r\n2\n3\n\n' >"$C/part/vector_blanks"
printf 'v\x03\x02-1\n1\n0\n' >"$C/part/vector_negative"

# ---- checkpoints: the five settings' real files, exported by a built fuzz_ckpt ----
if [ -x "$FZ/fuzz_ckpt" ]; then
    FUZZ_CKPT_EXPORT="$C/ckpt" "$FZ/fuzz_ckpt" >/dev/null 2>&1
    head -c 200 "$C/ckpt/setting-1.ckpt" >"$C/ckpt/truncated"
    printf '\x01' >>"$C/ckpt/truncated"
else
    echo "make-corpus: no $FZ/fuzz_ckpt (make fuzz first): no seeds for fuzz_ckpt" >&2
fi

# ---- reports that gnnref plot reads (one JSON, or a bundle; the last byte chooses --kind:
# 0 auto, 1 loss, 2 phases, 3 traffic, 4 ranks, 5 scaling, 6 bench) ----
mini() { python3 -c 'import json,sys; sys.stdout.write(json.dumps(json.load(open(sys.argv[1])),separators=(",",":")))' "$1"; }
small="--data builtin --epochs 2 --hidden 8 --fanouts 3,3 --quiet"
# shellcheck disable=SC2086
"$T" train $small --batch 1024 --json "$W/train.json" >/dev/null
# shellcheck disable=SC2086
"$T" train $small --batch 512 --backend sim --ranks 2 --remote hec --json "$W/dist2.json" >/dev/null
# shellcheck disable=SC2086
"$T" train $small --batch 512 --backend sim --ranks 4 --remote hec --json "$W/dist4.json" >/dev/null
"$T" info builtin --json "$W/info.json" >/dev/null
for k in 0 1 2; do { mini "$W/train.json"; printf "\\x0$k"; } >"$C/report/train$k"; done
{ mini "$W/dist2.json"; printf '\x00'; } >"$C/report/dist_auto"
{ mini "$W/dist4.json"; printf '\x03'; } >"$C/report/dist_traffic"
{ mini "$W/dist4.json"; printf '\x04'; } >"$C/report/dist_ranks"
{ mini "$W/info.json"; printf '\x00'; } >"$C/report/info"
{ printf '@@ a.json\n'; mini "$W/dist2.json"; printf '\n@@ b.json\n'; mini "$W/dist4.json"; printf '\x05'; } >"$C/report/scaling"
bench='{"context":{"host_name":"test","num_cpus":2},"benchmarks":[{"name":"quant/triad/threads=1/real_time","run_type":"iteration","real_time":9.1,"time_unit":"ms","GB/s":21.9,"bytes_per_second":2.19e10},{"name":"quant/unpack-int2/d=128/ref/real_time","run_type":"iteration","GB/s":0.57},{"name":"quant/unpack-int2/d=128/cpu/real_time","run_type":"iteration","GB/s":3.2}]}'
printf '%s\x06' "$bench" >"$C/report/bench"
printf '%s\x06' "${bench%]\}},{\"name\":\"sample/fused/threads=2/ref\",\"run_type\":\"aggregate\",\"aggregate_name\":\"mean\",\"GB/s\":1.5}]}" >"$C/report/bench_aggregate"
printf '%s\x01' "$bench" >"$C/report/bench_as_loss"
printf '{"command":"train","epochs":[{"epoch":0,"loss":1e308,"phase_s":{"sample":-1}}],"ranks":1e400}\x00' >"$C/report/odd_values"

# ---- oracle case strings ----
cases=(
    'aggregate.mean.fwd(impl=ref,n_dst=37,n_src=80,d=13,deg=0..9,seed=1)'
    'aggregate.mean.fwd(impl=cpu,threads=2,n_dst=3,n_src=5,d=1,deg=0..2,seed=18446744073709551615)'
    'train.part(impl=opt,threads=1,model=1,remote=1,ranks=2,scale=12,method=3,layers=3,cs=0,nc=0,ls=2,d=1,drop=0,delay=0,seed=5)'
    'nn.dropout.fwd(impl=ref, p=0.5, seed=3)'
    'spmm(impl=ref,n=1e3,seed=1)'
    'x(impl=ref,seed=1'
)
i=0
for c in "${cases[@]}"; do printf '%s' "$c" >"$C/case/case$i"; i=$((i + 1)); done
# the first case of every op the oracle reaches in 90 s (real strings, every parameter type)
timeout 90 "$T" oracle --cases 1 --threads 2 -v 2>/dev/null | grep -o '[a-z][a-z0-9_.]*([^)]*)' | awk -F'(' '!seen[$1]++' | head -80 >"$W/cases" || true
while IFS= read -r c; do printf '%s' "$c" >"$C/case/case$i"; i=$((i + 1)); done <"$W/cases"
du -sh "$C"
find "$C" -type f | wc -l
