#!/usr/bin/env bash
# Install the Debian packages gnnref needs, by group; safe to run by hand.
#
#   bash ci/install-deps.sh [GROUP...]            install what the groups need (none: all)
#   bash ci/install-deps.sh --missing [GROUP...]  print the groups whose headers or tools are
#                                                 missing (nothing when all are there); exit 0
#   bash ci/install-deps.sh --explain [GROUP...]  say which header or tool each group lacks
# Groups (the make targets that need them):
#   build     the library and the tool (make, make install): a C compiler, pkg-config, json-c,
#             zlib, METIS, OpenBLAS
#   test      the Check suites and the test tiers (make check, check-full, sanitize, tsan,
#             coverage): Check (with libsubunit), python3
#   mpi       the MPI backend and its checks: OpenMPI (mpicc, mpirun); optional, make builds
#             without it and the MPI checks say SKIP
#   bench     make bench: Google Benchmark and a C++ compiler
#   coverage  make coverage: lcov (lcov, genhtml)
#   tsan-omp  make check-full's check-tsan-omp stage (ci/tsan-omp.sh): clang and LLVM's OpenMP
#             runtime with its ThreadSanitizer tool, archer (libomp-dev)
#   fuzz      make fuzz and check-full's check-fuzz stage (ci/fuzz.sh, docs/fuzzing.md): clang
#             and its libFuzzer and sanitizer runtimes (libclang-rt-dev: clang alone only
#             recommends it)
#   plot      `gnnref plot` (docs/plot.md) and its tests: gnuplot with the cairo PNG terminal
#             (gnuplot-nox); optional at build time, found on PATH at run time, and the plot
#             tests say SKIP without it
# make runs `--missing` for the groups its goals need and this script for those missing.
# Installs with apt-get as root, sudo otherwise, and says clearly when neither works.
set -eu

ALL_GROUPS="build test mpi bench coverage tsan-omp fuzz plot"

pkgs_of() {
    case "$1" in
    build) echo "build-essential pkg-config libopenblas-dev libmetis-dev zlib1g-dev libjson-c-dev" ;;
    test) echo "check libsubunit-dev python3" ;;
    mpi) echo "openmpi-bin libopenmpi-dev" ;;
    bench) echo "g++ libbenchmark-dev" ;;
    coverage) echo "lcov" ;;
    tsan-omp) echo "clang libomp-dev" ;;
    fuzz) echo "clang libclang-rt-dev" ;;
    plot) echo "gnuplot-nox" ;;
    *)
        echo "install-deps: unknown group '$1' (groups: $ALL_GROUPS)" >&2
        exit 2
        ;;
    esac
}

# has_header LANG COMPILER HEADER: the preprocessor finds HEADER
has_header() {
    printf '#include <%s>\n' "$3" | $2 -x "$1" -E - >/dev/null 2>&1
}

# present GROUP: exit 0 when what GROUP provides is usable here; LACKS: what is not
present() {
    local cc=${CC:-cc} cxx=${CXX:-c++} h t
    LACKS=""
    case "$1" in
    build)
        for t in "${cc%% *}" pkg-config; do
            command -v "$t" >/dev/null 2>&1 || LACKS="$LACKS, command $t"
        done
        for h in json-c/json.h zlib.h metis.h cblas.h; do
            has_header c "$cc" "$h" || LACKS="$LACKS, header <$h> (for '$cc')"
        done
        ;;
    test)
        has_header c "$cc" check.h || LACKS="$LACKS, header <check.h> (for '$cc')"
        command -v python3 >/dev/null 2>&1 || LACKS="$LACKS, command python3"
        ;;
    mpi)
        for t in mpicc mpirun; do
            command -v "$t" >/dev/null 2>&1 || LACKS="$LACKS, command $t"
        done
        ;;
    bench)
        has_header c++ "$cxx" benchmark/benchmark.h || LACKS="$LACKS, header <benchmark/benchmark.h> (for '$cxx')"
        ;;
    coverage)
        for t in lcov genhtml; do
            command -v "$t" >/dev/null 2>&1 || LACKS="$LACKS, command $t"
        done
        ;;
    tsan-omp)
        command -v clang >/dev/null 2>&1 || LACKS="$LACKS, command clang"
        if command -v clang >/dev/null 2>&1; then
            # libomp and archer live beside clang: /usr/lib/llvm-N/lib
            local lib
            lib=$(dirname "$(readlink -f "$(command -v clang)")")/../lib
            [ -e "$lib/libarcher.so" ] || LACKS="$LACKS, LLVM's libarcher.so (libomp-dev)"
        fi
        ;;
    fuzz)
        if ! command -v clang >/dev/null 2>&1; then
            LACKS="$LACKS, command clang"
        elif ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
            clang -fsanitize=fuzzer,address,undefined -x c - -o /dev/null >/dev/null 2>&1; then
            LACKS="$LACKS, clang's libFuzzer runtime (libclang-rt-dev)"
        fi
        ;;
    plot)
        command -v gnuplot >/dev/null 2>&1 || LACKS="$LACKS, command gnuplot"
        ;;
    *)
        pkgs_of "$1" >/dev/null
        ;;
    esac
    LACKS=${LACKS#, }
    [ -z "$LACKS" ]
}

if [ "${1:-}" = --missing ]; then
    shift
    out=""
    for g in ${*:-$ALL_GROUPS}; do
        pkgs_of "$g" >/dev/null
        present "$g" || out="$out${out:+ }$g"
    done
    [ -z "$out" ] || echo "$out"
    exit 0
fi
if [ "${1:-}" = --explain ]; then
    shift
    for g in ${*:-$ALL_GROUPS}; do
        pkgs_of "$g" >/dev/null
        present "$g" || printf '%s: no %s (Debian: %s)\n' "$g" "$LACKS" "$(pkgs_of "$g")"
    done
    exit 0
fi

PKGS=""
for g in ${*:-$ALL_GROUPS}; do
    PKGS="$PKGS $(pkgs_of "$g")"
done

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "install-deps: all packages present (${*:-$ALL_GROUPS})"
    exit 0
fi

echo "install-deps: installing:$missing"
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: error: no apt-get here; install by hand the equivalents of:$missing" >&2
    exit 1
fi
if [ "$(id -u)" = 0 ]; then
    SUDO=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
else
    echo "install-deps: error: need root or password-less sudo to install:$missing" >&2
    echo "install-deps: install them by hand: apt-get install$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
echo "install-deps: done"
