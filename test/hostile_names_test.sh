#!/usr/bin/env bash
# Hostile output names: no string a user supplies reaches gnuplot or a shell. `chs workprec --out`,
# `chs reproduce --plot-dir`, `chs workprec --cache-dir` and `chs run --out` with names holding
# quotes, ';', '$()', backticks, newlines (a gnuplot '!' shell line), spaces and non-UTF-8 bytes:
# exit 0, the PNGs/CSV under exactly those names, and no file created by an injected command.
# Needs gnuplot (skipped with exit 77 otherwise).
# usage: hostile_names_test.sh PATH_TO_CHS
set -uo pipefail
# grep that reads all its input: `grep -q` may exit before the writer is done, and under
# pipefail the writer's SIGPIPE would then fail a pipeline whose grep matched.
has() { grep "$@" >/dev/null; }
chs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: the test runs in its directory
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "hostile_names: gnuplot not installed, skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

names=(
  "wp';system('touch INJECTED');print '"
  "dq\"; system(\"touch INJECTED\"); print \""
  'dollar;$(touch INJECTED)'
  'tick`touch INJECTED`'
  $'nl\n!touch INJECTED\nprint \''
  "with space"
  $'bytes\xff\xfe\x80'
  "at@x ~{}^_&"
)
# 0 when an injected command created its file (removed then, so every case is tested alone).
injected() {
  [[ -z $(find "$tmp" -name 'INJECTED*' -print -quit) ]] && return 1
  find "$tmp" -name 'INJECTED*' -delete
  return 0
}
is_png() { [[ -s $1 ]] && [[ $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; }

for i in "${!names[@]}"; do
  d="$tmp/${names[$i]}"
  # workprec: table, CSV, data and both plots into the hostile directory.
  "$chs" workprec --problem pendulum --configs dirac/erk:dp5,standard/erk:rkf45 \
    --tols 1e-4:1e-6:2 --tf 1 --repeats 1 --no-cache --out "$d" >"$tmp/out" 2>"$tmp/err"
  st=$?
  if [[ $st -eq 0 ]]; then ok; else bad "workprec --out name $i: exit $st: $(cat "$tmp/err")"; fi
  if is_png "$d/workprec-evals.png" && is_png "$d/workprec-wall.png" && [[ -s $d/workprec.csv ]]; then ok; else
    bad "workprec --out name $i: outputs missing: $(ls -A "$d" 2>&1)"
  fi
  if injected; then bad "workprec --out name $i: injected command ran"; else ok; fi
  if ls -A "$d" | has '\.tmp\.'; then bad "workprec --out name $i: temporary file left"; else ok; fi
  # run --out: the CSV under the hostile file name.
  "$chs" run --problem pendulum --formulation dirac --method erk:rk4 --h 0.1 --tf 1 \
    --out "$d/run ${names[$i]}.csv" >/dev/null 2>"$tmp/err"
  st=$?
  if [[ $st -eq 0 && $(wc -l <"$d/run ${names[$i]}.csv") -eq 12 ]]; then ok; else
    bad "run --out name $i: exit $st: $(cat "$tmp/err")"
  fi
done

# reproduce --plot-dir (a few names: each run takes seconds).
for i in 0 4 6; do
  d="$tmp/plots ${names[$i]}"
  "$chs" reproduce seiler-dirac-pendulum --json --plot-dir "$d" >/dev/null 2>"$tmp/err"
  st=$?
  if [[ $st -eq 0 ]]; then ok; else bad "reproduce --plot-dir name $i: exit $st: $(cat "$tmp/err")"; fi
  npng=0
  for f in "$d"/*.png; do
    if is_png "$f"; then npng=$((npng + 1)); fi
  done
  if [[ $npng -eq 4 ]]; then ok; else bad "reproduce --plot-dir name $i: $npng PNG, want 4"; fi
  if injected; then bad "reproduce --plot-dir name $i: injected command ran"; else ok; fi
done

# The reference cache under a hostile directory (a problem without a closed-form reference).
d="$tmp/cache ${names[0]} ${names[4]}"
for pass_no in 1 2; do
  "$chs" workprec --problem double-pendulum --configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --tf 1 \
    --repeats 1 --cache-dir "$d" --json >"$tmp/out" 2>"$tmp/err"
  st=$?
  want=$([[ $pass_no -eq 1 ]] && echo computed || echo cached)
  if [[ $st -eq 0 ]] && grep -q "\"reference_source\": \"$want\"" "$tmp/out"; then ok; else
    bad "--cache-dir hostile, pass $pass_no: exit $st, want $want: $(cat "$tmp/err")"
  fi
done
if injected; then bad "--cache-dir: injected command ran"; else ok; fi

# Hostile text where names are validated: configurations and problem specs are refused (exit 2).
"$chs" workprec --problem pendulum --configs "dirac/erk:dp5';system('touch INJECTED');print '" \
  --tols 1e-4:1e-6:2 --tf 1 --repeats 1 --no-cache --out "$tmp/cfg" >/dev/null 2>"$tmp/err"
st=$?
if [[ $st -eq 2 ]] && ! injected; then ok; else bad "hostile configuration: exit $st: $(cat "$tmp/err")"; fi
"$chs" workprec --problem "pendulum:length=1';system('touch INJECTED');print '" \
  --configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --tf 1 --no-cache --out "$tmp/spec" >/dev/null 2>&1
st=$?
if [[ $st -eq 2 ]] && ! injected; then ok; else bad "hostile problem spec: exit $st"; fi

echo "hostile_names: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
