#!/usr/bin/env bash
# tools/docs-numbers catches a drifted number: on a copy of README.md, the original passes; one
# digit changed in a checked number of the first command's printed table (the formulation table)
# fails; one digit changed in an exempt column (wall_s) passes; --update restores the changed
# number, after which the copy passes again.
# usage: docs_numbers_selftest.sh SOURCE_DIR PATH_TO_CHS
set -euo pipefail
src=$1
chs=$2
tool=$src/tools/docs-numbers
# README.md quotes a SUNDIALS 6.4.1 run (tools/docs-numbers: other versions are not checked)
if ! "$chs" --version | grep -q 'SUNDIALS 6\.4\.1)'; then
  echo "skip: README.md quotes SUNDIALS 6.4.1 runs; $("$chs" --version)"
  exit 77
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail=0
check() { # want-status file description
  local st=0
  "$tool" --src "$src" --chs "$chs" "$2" >"$d/log" 2>&1 || st=$?
  if [ "$st" = "$1" ]; then
    echo "ok   $3 (exit $st)"
  else
    echo "FAIL $3: exit $st, want $1"
    cat "$d/log"
    fail=1
  fi
}
cp "$src/README.md" "$d/README.md"
check 0 "$d/README.md" "README.md as it is"
grep -q '^standard  *1000  *4001  *4\.942e+00 ' "$d/README.md" || {
  echo "FAIL README.md has no 'standard 1000 4001 4.942e+00' row: update this test"
  exit 1
}
# int_err_final of the standard formulation: 4.942e+00 -> 4.952e+00
sed -i 's/^\(standard  *1000  *4001  *\)4\.942e+00/\14.952e+00/' "$d/README.md"
check 1 "$d/README.md" "README.md with one int_err_final digit changed"
grep -q 'FAIL.*4\.952e+00, printed 4\.942e+00' "$d/log" || { echo "FAIL the message does not name the number"; cat "$d/log"; fail=1; }
"$tool" --src "$src" --chs "$chs" --update "$d/README.md" >/dev/null
check 0 "$d/README.md" "README.md after --update"
grep -q '^standard  *1000  *4001  *4\.942e+00 ' "$d/README.md" || { echo "FAIL --update did not restore 4.942e+00"; fail=1; }
# an exempt column (wall_s of dirac): any value passes
cp "$src/README.md" "$d/README.md"
sed -i 's/^\(dirac  *1000  *4001 .*  \)\([0-9.]*\)\(  *[0-9.e+-]*\)$/\1987.6\3/' "$d/README.md"
grep -q '^dirac .* 987\.6 ' "$d/README.md" || { echo "FAIL could not change dirac's wall_s"; exit 1; }
check 0 "$d/README.md" "README.md with dirac's wall_s changed (exempt)"
# a row's words changed: fails
cp "$src/README.md" "$d/README.md"
sed -i 's/^dirac  *1000/dirac2     1000/' "$d/README.md"
check 1 "$d/README.md" "README.md with a row's label changed"
exit $fail
