# ci/install-prefix.sh -- what ci/install-check.sh and ci/plugin-check.sh share, sourced by both:
# the tools they need, a temporary directory removed at exit, `fail`, and `make install` into
# a prefix in it. Before sourcing, set CHECK_NAME (the name a FAIL line starts with). After:
#   MAKE BUILD CC   as the environment gives them (make, build, cc by default)
#   T               the temporary directory; P = $T/prefix, the install prefix
#   fail MSG        prints "CHECK_NAME: FAIL (MSG)" and exits 1
#   install_prefix [LOG] [FILE...]
#                   make install PREFIX=$P (its output into LOG when given, shown only when it
#                   fails), then each FILE (relative to $P) must exist
#   uninstall_prefix [LOG]
#                   make uninstall PREFIX=$P (its output into LOG when given, as above)
# shellcheck shell=bash
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
CC=${CC:-cc}

fail() {
    echo "$CHECK_NAME: FAIL ($*)"
    exit 1
}

for t in pkg-config "$CC"; do
    command -v "$t" >/dev/null 2>&1 || fail "$t not found; bash ci/install-deps.sh build installs it"
done
T=$(mktemp -d "${TMPDIR:-/tmp}/gnnref-$CHECK_NAME.XXXXXX")
trap 'rm -rf "$T"' EXIT
P=$T/prefix

install_prefix() {
    local log=${1:-} f
    shift || true
    if [ -n "$log" ]; then
        $MAKE --no-print-directory BUILD="$BUILD" PREFIX="$P" install >"$log" 2>&1 ||
            { cat "$log"; fail "make install PREFIX=$P failed"; }
    else
        $MAKE --no-print-directory BUILD="$BUILD" PREFIX="$P" install || fail "make install PREFIX=$P failed"
    fi
    for f in "$@"; do
        [ -e "$P/$f" ] || fail "make install did not install $f"
    done
}

uninstall_prefix() {
    if [ -n "${1:-}" ]; then
        $MAKE --no-print-directory BUILD="$BUILD" PREFIX="$P" uninstall >"$1" 2>&1 ||
            { cat "$1"; fail "make uninstall PREFIX=$P failed"; }
    else
        $MAKE --no-print-directory BUILD="$BUILD" PREFIX="$P" uninstall || fail "make uninstall PREFIX=$P failed"
    fi
}
