#!/usr/bin/env bash
# The dynamic symbols of libchs and of the chs command are exactly the public API: every function
# declared with CHS_EXPORT in src/chs/*.h, and nothing else (the internal chs_* functions are
# hidden, -fvisibility=hidden). The chs command contains the library and exports the same list,
# which plugins use: a plugin that calls a CHS* function (the example plugin reads its parameter
# with CHSParams_GetRealMin) runs, and its call binds to the command, not to a second copy in
# libchs.so (ld.so's LD_DEBUG=bindings report).
# usage: symbols_test.sh SOURCE_DIR LIBCHS CHS_EXE EXAMPLE_PLUGIN
set -euo pipefail
src=$1
lib=$2
exe=$3
plugin=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Declared: the name before '(' on each CHS_EXPORT declaration (clang-format keeps the name on the
# CHS_EXPORT line; a declaration where it does not shows up as missing below).
# chs/mpi.h is built and installed only with MPI (CHS_MPI): its functions count when the library
# links libmpi.
headers=()
for h in "$src"/src/chs/*.h; do
  if [[ $(basename "$h") != mpi.h ]] || ldd "$lib" | awk '/libmpi/ {found = 1} END {exit !found}'; then
    headers+=("$h")
  fi
done
sed -n 's/^CHS_EXPORT .*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "${headers[@]}" | sort -u \
  >"$tmp/declared"
test -s "$tmp/declared"
# Functions declared in the public headers without CHS_EXPORT would be hidden: none.
if grep -hE '^[A-Za-z].*\bCHS[A-Za-z0-9_]*\(' "$src"/src/chs/*.h |
  grep -vE '^(CHS_EXPORT |typedef |#)' >"$tmp/unmarked"; then
  echo "FAIL: public declarations without CHS_EXPORT:"
  cat "$tmp/unmarked"
  fail=1
fi

check() { # FILE WHAT: its defined dynamic symbols against the declared list
  local file=$1 what=$2
  # Not chs's: versioned symbols (another library's variables copied into an executable, e.g.
  # stdout@GLIBC_2.2.5), names reserved to the implementation (_start, __bss_start, sanitizer
  # hooks), data_start (crt1.o) and the variables of unversioned libraries copied into an
  # executable (R_*_COPY relocations, e.g. Open MPI's ompi_mpi_comm_world); everything else must
  # be CHS*.
  readelf -rW "$file" | awk '$3 ~ /_COPY$/ {sub(/@.*/, "", $5); print $5}' | sort -u >"$tmp/copied"
  nm -D --defined-only "$file" | awk '{print $3}' | grep -v '@' | grep -vE '^(_|data_start$)' |
    sort -u | comm -23 - "$tmp/copied" >"$tmp/defined" || true
  if grep -v '^CHS' "$tmp/defined" >"$tmp/extra"; then
    echo "FAIL: $what exports $(wc -l <"$tmp/extra") symbols outside the public API:"
    head -50 "$tmp/extra"
    fail=1
  fi
  if ! comm -23 "$tmp/declared" "$tmp/defined" >"$tmp/missing" || [[ -s "$tmp/missing" ]]; then
    echo "FAIL: $what does not export these declared functions:"
    cat "$tmp/missing"
    fail=1
  fi
  if ! comm -13 "$tmp/declared" "$tmp/defined" >"$tmp/undeclared" || [[ -s "$tmp/undeclared" ]]; then
    echo "FAIL: $what exports CHS symbols no public header declares:"
    cat "$tmp/undeclared"
    fail=1
  fi
  echo "$what: $(wc -l <"$tmp/defined") public symbols"
}
check "$lib" "$(basename "$lib")"
check "$exe" "the chs command"

# The plugin's imports from chs are all provided by the command.
nm -D --undefined-only "$plugin" | awk '{print $2}' | sed 's/@.*//' | grep '^CHS' | sort -u \
  >"$tmp/imports" || true
if [[ ! -s "$tmp/imports" ]]; then
  echo "FAIL: the example plugin imports no CHS* function (the test needs one)"
  fail=1
fi
if comm -23 "$tmp/imports" "$tmp/declared" | grep . ; then
  echo "FAIL: the plugin imports the above, which the command does not provide"
  fail=1
fi
# ... and bind to the command's copy when the command loads it.
LD_DEBUG=bindings LD_DEBUG_OUTPUT="$tmp/ld" "$exe" run --problem "$plugin:depth=0.6" \
  --formulation dirac --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 0.5 --json >"$tmp/run.json"
grep -h "normal symbol \`CHS" "$tmp"/ld.* | grep "$(basename "$plugin")" >"$tmp/bindings" || true
while read -r sym; do
  if ! grep "\`$sym'" "$tmp/bindings" | sed -n 's/.* to \(.*\) \[[0-9]*\]: normal symbol.*/\1/p' |
    grep -Fx "$exe" >/dev/null; then
    echo "FAIL: the plugin's $sym does not bind to $exe:"
    grep "\`$sym'" "$tmp/bindings" || echo "  (no binding reported)"
    fail=1
  fi
done <"$tmp/imports"
err=$(sed -n 's/^  "int_err_final": \(.*\),$/\1/p' "$tmp/run.json")
if ! awk -v e="$err" 'BEGIN { exit !(e < 1e-6) }'; then
  echo "FAIL: the plugin run's error to the exact orbit is $err"
  fail=1
fi
[[ $fail -eq 0 ]] && echo "exported_symbols: PASS"
exit $fail
