#!/usr/bin/env bash
# Installs chs from a build tree into a temporary prefix, then builds and runs the README example
# (examples/erk_user) as an outside CMake project that only knows that prefix: find_package(chs)
# and CHS::chs must work, and the example's own ERKStep must integrate the pendulum to within
# 1e-6 of the reference. Also checks the README shows the example file verbatim. The CVODE and
# IDA examples (examples/cvode_user, examples/ida_user) are built and run the same way and with
# pkg-config only.
# usage: install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. README shows exactly the tested example.
awk '/<!-- example: examples\/erk_user\/erk_user.c -->/ {grab=1; next}
     grab && /^```c$/ {inblock=1; next}
     inblock && /^```$/ {exit}
     inblock {print}' "$src/README.md" >"$tmp/readme_example.c"
if ! diff -u "$src/examples/erk_user/erk_user.c" "$tmp/readme_example.c"; then
  echo "FAIL: README.md does not show examples/erk_user/erk_user.c verbatim" >&2
  exit 1
fi

# 1b. docs/sundials.md's excerpts ("From `examples/X/X.c`" and the ```c block after it) are lines
#     of those files ("..." marks an omission).
awk '/^From `examples\/[a-z_]*\/[a-z_]*\.c`/ { match($0, /examples\/[a-z_]*\/[a-z_]*\.c/);
       file = substr($0, RSTART, RLENGTH); next }
     file && /^```c$/ { inblock = 1; next }
     inblock && /^```$/ { inblock = 0; file = ""; next }
     inblock && $0 != "..." { print file "\t" $0 }' "$src/docs/sundials.md" >"$tmp/excerpts"
test -s "$tmp/excerpts"
while IFS=$'\t' read -r file line; do
  if ! grep -Fxq -- "$line" "$src/$file"; then
    echo "FAIL: docs/sundials.md quotes a line that $file does not have: $line" >&2
    exit 1
  fi
done <"$tmp/excerpts"

# 2. Install, then build the example against the installed package only.
cmake --install "$bin" --prefix "$tmp/prefix" >"$tmp/install.log"
test -f "$tmp/prefix/include/chs/chs.h"
flags=""
if grep -q '^CHS_SANITIZE:BOOL=ON' "$bin/CMakeCache.txt"; then
  flags="-fsanitize=address,undefined"
fi
cmake -S "$src/examples/erk_user" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/build" >"$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
"$tmp/build/erk_user"

# 2b. The same example built with pkg-config only (chs.pc), no CMake; the installed docs.
PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --exists chs
# shellcheck disable=SC2046
cc -std=c11 $flags -o "$tmp/erk_user_pc" "$src/examples/erk_user/erk_user.c" \
  $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs chs)
# chs.pc records the run-time path: the program runs without LD_LIBRARY_PATH naming the prefix
"$tmp/erk_user_pc"
readelf -d "$tmp/erk_user_pc" | grep -E 'RUNPATH|RPATH' | grep -qF "$tmp/prefix/lib" ||
  { echo "FAIL: erk_user_pc has no run-time path to $tmp/prefix/lib"; exit 1; }
test -f "$tmp/prefix/share/doc/chs/README.md"
test -f "$tmp/prefix/share/doc/chs/docs/mechanics.md"
test -f "$tmp/prefix/share/doc/chs/examples/erk_user/erk_user.c"

# 2c. The CVODE and IDA examples (docs/sundials.md) the same two ways: find_package(chs), and
#     pkg-config only. Each checks its own output (|g| at round-off at every output, the error to
#     the reference) and exits non-zero otherwise.
for ex in cvode_user ida_user; do
  cmake -S "$src/examples/$ex" -B "$tmp/build-$ex" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$tmp/configure-$ex.log" ||
    { cat "$tmp/configure-$ex.log"; exit 1; }
  cmake --build "$tmp/build-$ex" >"$tmp/build-$ex.log" || { cat "$tmp/build-$ex.log"; exit 1; }
  "$tmp/build-$ex/$ex" || { echo "FAIL: examples/$ex (find_package)"; exit 1; }
  # shellcheck disable=SC2046
  cc -std=c11 $flags -o "$tmp/${ex}_pc" "$src/examples/$ex/$ex.c" \
    $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs chs)
  "$tmp/${ex}_pc" >/dev/null ||
    { echo "FAIL: examples/$ex (pkg-config)"; exit 1; }
  test -f "$tmp/prefix/share/doc/chs/examples/$ex/$ex.c"
done
# The installed headers declare the public API with CHS_EXPORT (chs/export.h installed).
test -f "$tmp/prefix/include/chs/export.h"

# 3. The example plugin problem, built against the installed package only, run by the installed
#    chs through every formulation (the unstable total Hamiltonian over a shorter time).
cmake -S "$src/problems/examples" -B "$tmp/plugin" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" -DCMAKE_MODULE_LINKER_FLAGS="$flags" \
  >"$tmp/plugin-configure.log" || { cat "$tmp/plugin-configure.log"; exit 1; }
cmake --build "$tmp/plugin" >"$tmp/plugin-build.log" || { cat "$tmp/plugin-build.log"; exit 1; }
plugin="$tmp/plugin/libspherical_pendulum.so"
for f in $("$tmp/prefix/bin/chs" list formulations | awk '{print $1}'); do
  tf=5
  method=erk:dp5
  limit=1e-6
  [[ $f == total ]] && tf=1
  if [[ $f == dae-* ]]; then
    method=ida
    limit=1e-4 # the index-3 form controls only the error in q
  fi
  out=$("$tmp/prefix/bin/chs" run --problem "$plugin:depth=0.6" --formulation "$f" --method $method \
    --rtol 1e-10 --atol 1e-10 --tf $tf --json) || { echo "FAIL: plugin with $f"; exit 1; }
  err=$(sed -n 's/^  "int_err_final": \(.*\),$/\1/p' <<<"$out")
  if ! awk -v e="$err" -v l="$limit" 'BEGIN { exit !(e < l) }'; then
    echo "FAIL: plugin with $f ($method): error to the exact conical orbit $err"
    exit 1
  fi
  echo "plugin through $f ($method): |(q,p) - exact| = $err"
done
echo "install_and_use: PASS"
