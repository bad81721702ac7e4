#!/usr/bin/env bash
# ci/install-check.sh -- `make install` and `make uninstall` into a temporary prefix, and a
# program built against the installed library through pkg-config (a stage of make check).
#
#   1. make install PREFIX=TMP: libgnnref.so.0.1.0 with soname libgnnref.so.0, the links
#      libgnnref.so.0 and libgnnref.so, libgnnref.a, the headers, bin/gnnref, gnnref.pc
#   2. cc prog.c $(pkg-config --cflags --libs gnnref) (PKG_CONFIG_PATH=TMP/lib/pkgconfig):
#      the program calls the Philox known-answer vector and generates the built-in dataset;
#      run with LD_LIBRARY_PATH=TMP/lib it must print the Random123 answer and the vertex and
#      edge counts that the installed `gnnref info builtin` prints, and it must load the
#      installed libgnnref.so.0
#   3. the same program linked statically against libgnnref.a with
#      `pkg-config --static --libs gnnref` (Libs.private, Requires.private): same output,
#      no libgnnref.so needed
#   4. make uninstall PREFIX=TMP: no gnnref file is left under TMP
# Uses $MAKE (make by default; under make, the parent's jobserver) and $BUILD (default build).
# Exit status 0 when all hold, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
CHECK_NAME=install-check
# MAKE BUILD CC, T and P, fail, install_prefix, uninstall_prefix
. ci/install-prefix.sh

# ---- 1. install ------------------------------------------------------------------------------
install_prefix "" lib/libgnnref.so.0.1.0 lib/libgnnref.so.0 lib/libgnnref.so lib/libgnnref.a bin/gnnref \
    include/gnnref/rng.h include/gnnref/dataset.h lib/pkgconfig/gnnref.pc
[ "$(readlink "$P/lib/libgnnref.so.0")" = libgnnref.so.0.1.0 ] || fail "libgnnref.so.0 does not point to libgnnref.so.0.1.0"
# (the outputs go through variables: under pipefail, `cmd | grep -q` fails when grep stops
# reading early)
if command -v readelf >/dev/null 2>&1; then
    dyn=$(readelf -d "$P/lib/libgnnref.so.0.1.0")
    grep -q 'SONAME.*\[libgnnref\.so\.0\]' <<<"$dyn" || fail "libgnnref.so.0.1.0 has no soname libgnnref.so.0"
fi
echo "installed into $P:"
(cd "$P" && find . -type f -o -type l | sort | sed 's/^/    /')

# ---- 2. a program against the installed library, through pkg-config ---------------------------
cat >"$T/prog.c" <<'EOF'
/* built by ci/install-check.sh against an installed gnnref */
#include <inttypes.h>
#include <stdio.h>
#include "gnnref/dataset.h"
#include "gnnref/rng.h"

int main(void)
{
    const uint32_t ctr[4] = { 0, 0, 0, 0 }, key[2] = { 0, 0 };
    uint32_t out[4];
    gnn_philox4x32_10(ctr, key, out);
    printf("philox %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", out[0], out[1], out[2], out[3]);
    gnn_dataset ds;
    gnn_err err;
    if (gnn_dataset_builtin(&ds, &err) != GNN_OK) {
        fprintf(stderr, "gnn_dataset_builtin: %s\n", err.msg);
        return 1;
    }
    printf("vertices %" PRId64 "\nedges %" PRId64 "\n", gnn_dataset_n(&ds), ds.graph.nnz);
    gnn_dataset_free(&ds);
    return 0;
}
EOF
export PKG_CONFIG_PATH=$P/lib/pkgconfig
pkg-config --exists gnnref || fail "pkg-config does not find gnnref in $PKG_CONFIG_PATH"
echo "pkg-config --cflags --libs gnnref: $(pkg-config --cflags --libs gnnref)"
echo "pkg-config --static --libs gnnref: $(pkg-config --static --libs gnnref)"
# shellcheck disable=SC2046
$CC -std=c11 -Wall -Werror "$T/prog.c" -o "$T/prog" $(pkg-config --cflags --libs gnnref) ||
    fail "cc prog.c \$(pkg-config --cflags --libs gnnref) failed"
# the Random123 known answer for counter 0, key 0 (DESIGN.md section 2), and the counts the
# installed tool prints for the same dataset
{
    echo "philox 6627e8d5 e169c58d bc57ac4c 9b00dbd8"
    "$P/bin/gnnref" info builtin | awk '$1 == "vertices:" { print "vertices", $2 } $1 == "edges:" { print "edges", $2 }'
} >"$T/expected"
LD_LIBRARY_PATH=$P/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$T/prog" >"$T/got" || fail "the program failed"
diff -u "$T/expected" "$T/got" || fail "the program's output differs from the expected (above)"
if command -v ldd >/dev/null 2>&1; then
    deps=$(LD_LIBRARY_PATH=$P/lib ldd "$T/prog")
    grep -q "libgnnref.so.0 => $P/lib/libgnnref.so.0 " <<<"$deps" ||
        fail "the program does not load $P/lib/libgnnref.so.0: $(tr '\n' ' ' <<<"$deps")"
fi
echo "shared: $(tr '\n' ' ' <"$T/got")"

# ---- 3. the same, linked statically against libgnnref.a ---------------------------------------
# shellcheck disable=SC2046
$CC -std=c11 -Wall -Werror "$T/prog.c" -o "$T/prog-static" $(pkg-config --cflags gnnref) \
    "$P/lib/libgnnref.a" $(pkg-config --static --libs gnnref | sed 's/\(^\| \)-lgnnref\( \|$\)/ /') ||
    fail "cc prog.c libgnnref.a \$(pkg-config --static --libs gnnref) failed: Libs.private or Requires.private incomplete"
env -u LD_LIBRARY_PATH "$T/prog-static" >"$T/got-static" || fail "the statically linked program failed"
diff -u "$T/expected" "$T/got-static" || fail "the statically linked program's output differs (above)"
if command -v ldd >/dev/null 2>&1; then
    deps=$(ldd "$T/prog-static")
    ! grep -q libgnnref <<<"$deps" || fail "the statically linked program still needs libgnnref.so"
fi
echo "static: $(tr '\n' ' ' <"$T/got-static")"

# ---- 4. uninstall ----------------------------------------------------------------------------
uninstall_prefix
left=$(cd "$P" && find . \( -name '*gnnref*' -o -type f \) | sort)
if [ -n "$left" ]; then
    echo "left after make uninstall:"
    echo "$left" | sed 's/^/    /'
    fail "make uninstall left files under $P"
fi
echo "install-check: PASS (make install, a program through pkg-config, shared and static, make uninstall left nothing)"
