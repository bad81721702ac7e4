#!/usr/bin/env bash
# bench/peers/run.sh -- `make bench-peers`: gnnref side by side with DGL and PyTorch.
#
# 1. The peers' virtual environment, OUTSIDE the tree: $PEERS_VENV (default
#    $HOME/.cache/gnnref-peers), with the exact versions of bench/peers/requirements.txt from the
#    Python package registry. It is made once and reused while requirements.txt is unchanged (a
#    stamp in the environment holds its checksum). When the registry cannot be reached, this
#    script says SKIP and exits 0.
# 2. The two small C programs of bench/peers/ in $BUILD/peers: peers_tool (linked against
#    $BUILD/libgnnref.a: exports seeds and blocks, times the ID map alone) and randread (the
#    random-read ceiling).
# 3. bench/peers/peers.py run with the environment's Python: the workloads, interleaved, the
#    table on stdout and $BUILD/peers/report.json. Arguments go to it (--quick, --only,
#    --repeats, ...; `bash bench/peers/run.sh --help`).
#
# Environment: PEERS_VENV, BUILD (default build), CC (default cc), GNN_LIBS (the libraries
# libgnnref.a needs; the Makefile passes its own), PYTHON (the interpreter that makes the
# environment, default python3), GNNREF_IMPL (gnnref train's --impl).
set -euo pipefail
cd "$(dirname "$0")/../.."
HERE=bench/peers
BUILD=${BUILD:-build}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
VENV=${PEERS_VENV:-$HOME/.cache/gnnref-peers}
REQ=$HERE/requirements.txt
OUT=$BUILD/peers
mkdir -p "$OUT"
LOG=$OUT/pip.log

skip() { echo "bench-peers: SKIP: $*"; exit 0; }

for f in "$BUILD/bin/gnnref" "$BUILD/libgnnref.a" "$BUILD/bin/gnnref-bench"; do
    [ -e "$f" ] || { echo "bench-peers: error: $f is missing (make bench-peers builds it)" >&2; exit 1; }
done

# ---- 1. the virtual environment ----------------------------------------------------------
want=$(sha256sum "$REQ" | cut -d' ' -f1)
have=$(cat "$VENV/.gnnref-requirements" 2>/dev/null || true)
if [ "$want" != "$have" ] || ! "$VENV/bin/python" -c 'import sys' 2>/dev/null; then
    echo "bench-peers: making the peers' environment in $VENV (DGL and PyTorch for CPU; a few GB, once)"
    command -v "$PYTHON" >/dev/null || skip "no $PYTHON to make the peers' environment with"
    if [ ! -x "$VENV/bin/python" ]; then
        "$PYTHON" -m venv "$VENV" >"$LOG" 2>&1 ||
            skip "cannot make a virtual environment with $PYTHON -m venv (Debian: apt-get install python3-venv); see $LOG"
    fi
    # can the registry be reached? one small pinned package, downloaded and thrown away
    probe=$(mktemp -d)
    if ! "$VENV/bin/python" -m pip download --no-deps --no-cache-dir --quiet -d "$probe" \
            "$(grep -m1 '^PyYAML==' "$REQ")" >>"$LOG" 2>&1; then
        rm -rf "$probe"
        skip "the Python package registry cannot be reached (pip download failed; see $LOG)"
    fi
    rm -rf "$probe"
    if ! "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ" >>"$LOG" 2>&1; then
        tail -20 "$LOG" >&2
        echo "bench-peers: error: pip install -r $REQ failed in $VENV (log: $LOG)" >&2
        exit 1
    fi
    echo "$want" >"$VENV/.gnnref-requirements"
fi

# ---- 2. the C programs -----------------------------------------------------------------------
GNN_LIBS=${GNN_LIBS:-"$(pkg-config --libs json-c zlib 2>/dev/null) -lopenblas -lmetis -fopenmp -lpthread -lm"}
CFLAGS="-std=c11 -D_GNU_SOURCE -O2 -fopenmp -Iinclude -I."
if [ ! -x "$OUT/peers_tool" ] || [ "$HERE/peers_tool.c" -nt "$OUT/peers_tool" ] || [ "$BUILD/libgnnref.a" -nt "$OUT/peers_tool" ]; then
    # shellcheck disable=SC2086
    $CC $CFLAGS "$HERE/peers_tool.c" "$BUILD/libgnnref.a" $GNN_LIBS -o "$OUT/peers_tool"
fi
if [ ! -x "$OUT/randread" ] || [ "$HERE/randread.c" -nt "$OUT/randread" ]; then
    # shellcheck disable=SC2086
    $CC $CFLAGS "$HERE/randread.c" -o "$OUT/randread"
fi

# ---- 3. the workloads --------------------------------------------------------------------------
exec "$VENV/bin/python" "$HERE/peers.py" run --gnnref "$BUILD/bin/gnnref" --bench "$BUILD/bin/gnnref-bench" \
    --tool "$OUT/peers_tool" --randread "$OUT/randread" --out "$OUT" "$@"
