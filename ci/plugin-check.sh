#!/usr/bin/env bash
# ci/plugin-check.sh -- the plugin ABI end to end, as an outside team would use it (issue 25,
# item 4; docs/plugin.md): a stage of make check-full.
#
#   1. make install PREFIX=TMP (the headers with include/gnnref/plugin.h, bin/gnnref, gnnref.pc)
#   2. examples/plugin/ copied out of the tree and built there with its own Makefile against
#      the INSTALLED gnnref, through pkg-config (PKG_CONFIG_PATH=TMP/lib/pkgconfig)
#   3. TMP/bin/gnnref oracle --plugin good.so: exit 0, every line PASS, nothing unsupported
#   4. TMP/bin/gnnref oracle --plugin bad.so: exit 1 (the oracle's failure status), FAIL lines
#      naming the failing cases (aggregate.mean.fwd(impl=bad-lastedge,...)) and their replay
#      commands, which replay the same FAIL
#   5. a plugin built for another ABI version and a missing file: exit 2, the file named
#   6. make uninstall PREFIX=TMP
# Uses $MAKE (make by default; under make, the parent's jobserver), $BUILD (default build), $CC.
# Exit status 0 when all hold, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
CHECK_NAME=plugin-check
# MAKE BUILD CC, T and P, fail, install_prefix, uninstall_prefix
. ci/install-prefix.sh

# ---- 1. install --------------------------------------------------------------------------------
install_prefix "$T/install.log" bin/gnnref include/gnnref/plugin.h include/gnnref/aggregate.h lib/pkgconfig/gnnref.pc
echo "installed into $P"

# ---- 2. the examples, out of the tree, against the installed gnnref ------------------------------
mkdir -p "$T/plugin"
cp examples/plugin/good.c examples/plugin/bad.c examples/plugin/Makefile "$T/plugin/"
export PKG_CONFIG_PATH=$P/lib/pkgconfig
pkg-config --exists gnnref || fail "pkg-config does not find gnnref in $PKG_CONFIG_PATH"
echo "pkg-config --cflags --libs gnnref: $(pkg-config --cflags --libs gnnref)"
# MAKEFLAGS cleared: the tree's make variables (BUILD=..., -j) are not the example's
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$T/plugin" CC="$CC" >"$T/build.log" 2>&1 ||
    { cat "$T/build.log"; fail "examples/plugin: make against the installed gnnref failed"; }
sed 's/^/    /' "$T/build.log"
grep -q -- "-I$P/include" "$T/build.log" || fail "examples/plugin was not built with the installed headers (-I$P/include)"
for so in good.so bad.so; do
    [ -f "$T/plugin/$so" ] || fail "examples/plugin did not build $so"
done
G=$P/bin/gnnref

# ---- 3. good.so: PASS ----------------------------------------------------------------------------
"$G" oracle --plugin "$T/plugin/good.so" >"$T/good.txt" 2>&1
rc=$?
cat "$T/good.txt"
[ "$rc" = 0 ] || fail "gnnref oracle --plugin good.so exited $rc, expected 0"
grep -q '^PASS  *aggregate\.mean\.fwd  *good-columns ' "$T/good.txt" || fail "no PASS line for good-columns"
grep -q '^PASS  *index_add  *good-gather ' "$T/good.txt" || fail "no PASS line for good-gather (index_add)"
if grep -v '^oracle: ' "$T/good.txt" | grep -qv '^PASS '; then
    fail "gnnref oracle --plugin good.so printed a line other than PASS"
fi
grep -q '^oracle: [1-9][0-9]* passed, 0 failed, 0 skipped, 0 unsupported$' "$T/good.txt" ||
    fail "good.so: the summary is not all passed"

# ---- 4. bad.so: FAIL, naming the case ------------------------------------------------------------
"$G" oracle --plugin "$T/plugin/bad.so" >"$T/bad.txt" 2>&1
rc=$?
grep -v '^  ' "$T/bad.txt"
sed -n '/^  FAIL /,/replay:/p' "$T/bad.txt" | head -8
[ "$rc" = 1 ] || fail "gnnref oracle --plugin bad.so exited $rc, expected 1 (a case failed)"
grep -q '^FAIL  *aggregate\.mean\.fwd  *bad-lastedge ' "$T/bad.txt" || fail "no FAIL line for aggregate.mean.fwd"
case_str=$(sed -n "s/^  FAIL \(aggregate\.mean\.fwd(impl=bad-lastedge,[^)]*)\)$/\1/p" "$T/bad.txt" | head -1)
[ -n "$case_str" ] || fail "bad.so: no failure names an aggregate.mean.fwd case"
grep -qF "replay: gnnref oracle --plugin '$T/plugin/bad.so' --case '$case_str'" "$T/bad.txt" ||
    fail "bad.so: no replay command for $case_str"
"$G" oracle --plugin "$T/plugin/bad.so" --case "$case_str" >"$T/replay.txt" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -qF "FAIL $case_str" "$T/replay.txt" || { cat "$T/replay.txt"; fail "the replay of $case_str did not FAIL (exit $rc)"; }
echo "replayed: FAIL $case_str"

# ---- 5. refusals: exit 2, naming the file --------------------------------------------------------
printf 'const unsigned gnnref_plugin_abi_version = 999;\nint gnnref_plugin_register(void *r) { (void)r; return 0; }\n' \
    >"$T/old.c"
"$CC" -shared -fPIC "$T/old.c" -o "$T/old.so" || fail "cannot build old.so"
"$G" oracle --plugin "$T/old.so" >"$T/old.txt" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -qF "gnnref: error: oracle: --plugin $T/old.so: wrong plugin ABI: the plugin was built for ABI version 999" "$T/old.txt" ||
    { cat "$T/old.txt"; fail "a plugin of ABI version 999: exit $rc, expected 2 with a message naming the file and both versions"; }
"$G" oracle --plugin "$T/absent.so" >"$T/absent.txt" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -qF "$T/absent.so: cannot open" "$T/absent.txt" ||
    { cat "$T/absent.txt"; fail "a missing plugin: exit $rc, expected 2 naming the file"; }
echo "refused: $(cat "$T/old.txt")"

# ---- 6. uninstall --------------------------------------------------------------------------------
uninstall_prefix "$T/uninstall.log"
echo "plugin-check: PASS (make install, examples/plugin built through pkg-config, good.so PASS, bad.so FAIL naming" \
    "$case_str, replayed; wrong ABI and missing file refused)"
