#!/usr/bin/env bash
# The run's warnings (chs/run.h "Warnings"; docs/cli.md "Warnings"): a plugin whose Gdot has the
# wrong sign (libchs_fault_gdot_sign.so) runs to the end with exit 0, but the derivative probe
# names jacobian_dot on stderr ("chs: warning: ...") and in the JSON's warnings array, and the
# watch sees the residual leave the manifold; --strict exits 2 before any integration (no
# output); --no-check drops the probe's warning (the watch's stays); the sound plugin and a
# sample of built-in runs give an empty warnings array and nothing on stderr.
# usage: watch_test.sh PATH_TO_CHS PLUGIN_DIR
set -uo pipefail
chs=$1
dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
ok() { pass=$((pass + 1)); }
dp5=(--formulation dirac --method erk:dp5 --rtol 1e-6 --atol 1e-8 --tf 20)

# the wrong Gdot: exit 0, the probe's and the watch's warnings on stderr and in the JSON
"$chs" run --problem "$dir/libchs_fault_gdot_sign.so" "${dp5[@]}" --json >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc -eq 0 ]] && ok || bad "gdot_sign: exit $rc"
grep -q '^chs: warning: .*derivative probe: jacobian_dot disagrees' "$tmp/err" && ok ||
  bad "gdot_sign: no probe warning on stderr: $(head -c 400 "$tmp/err")"
grep -q '^chs: warning: constraint residual' "$tmp/err" && ok ||
  bad "gdot_sign: no watch warning on stderr: $(head -c 400 "$tmp/err")"
python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["warnings"]
assert any("jacobian_dot" in x for x in w), w
assert any("constraint residual" in x for x in w), w
' "$tmp/out" && ok || bad "gdot_sign: JSON warnings: $(grep warnings "$tmp/out" | head -c 400)"

# --strict: exit 2, before any integration (nothing on stdout)
"$chs" run --problem "$dir/libchs_fault_gdot_sign.so" "${dp5[@]}" --strict --json >"$tmp/out" 2>"$tmp/err"
rc=$?
[[ $rc -eq 2 && ! -s $tmp/out ]] && grep -q "jacobian_dot" "$tmp/err" && ok ||
  bad "gdot_sign --strict: exit $rc, stdout $(wc -c <"$tmp/out") bytes: $(head -c 300 "$tmp/err")"

# --no-check: no probe warning; the watch still warns
"$chs" run --problem "$dir/libchs_fault_gdot_sign.so" "${dp5[@]}" --no-check >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc -eq 0 ]] && ! grep -q "derivative probe" "$tmp/err" && grep -q "constraint residual" "$tmp/err"; then
  ok
else
  bad "gdot_sign --no-check: exit $rc: $(head -c 300 "$tmp/err")"
fi

# no warning: the sound plugin (probed) and a sample of built-in runs
quiet_run() {
  "$chs" run --json --quiet "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [[ $rc -eq 0 && ! -s $tmp/err ]] && grep -q '"warnings": \[\]' "$tmp/out"; then
    ok
  else
    bad "$*: exit $rc, warnings $(grep warnings "$tmp/out" | head -c 300) stderr $(head -c 300 "$tmp/err")"
  fi
}
quiet_run --problem "$dir/libchs_fault_sound.so" "${dp5[@]}"
quiet_run --problem "$dir/libchs_fault_sound.so" --formulation dae-ggl --method ida --rtol 1e-6 --atol 1e-8 --tf 20
quiet_run --problem "$dir/libchs_fault_sound.so" --formulation dirac --method rattle --h 0.01 --tf 20
for p in pendulum double-pendulum chain heavy-top slider-crank car-axis; do
  tf=10
  [[ $p == car-axis ]] && tf=3
  quiet_run --problem $p --formulation dirac --method erk:dp5 --rtol 1e-6 --atol 1e-8 --tf $tf
  # standard/cvode:bdf ends 5101 x tol from the pendulum's reference at t = 10: warned below
  [[ $p == pendulum ]] ||
    quiet_run --problem $p --formulation standard --method cvode:bdf --rtol 1e-6 --atol 1e-8 --tf $tf
  quiet_run --problem $p --formulation dae-ggl --method ida --rtol 1e-6 --atol 1e-8 --tf $tf
  [[ $p == slider-crank ]] || quiet_run --problem $p --formulation dirac --method rattle --h 0.01 --tf $tf
done
quiet_run --problem andrews --formulation dae-ggl --method ida --rtol 1e-6 --atol 1e-8 --tf 0.03
# a configuration the calibration found wanting (docs/calibration.md) warns, in stderr and JSON
"$chs" run --problem andrews --formulation dae-index3 --method ida --rtol 1e-6 --atol 1e-8 --tf 0.03 \
  --json >"$tmp/out" 2>"$tmp/err"
if grep -q '"warnings": \[.*"dae-index3/ida: fails calibration' "$tmp/out" &&
  grep -q '^chs: warning: dae-index3/ida: fails calibration' "$tmp/err"; then ok; else
  bad "andrews dae-index3/ida: no calibration warning: $(head -c 300 "$tmp/err")"
fi
# the reference check: a run that ends farther than 1000 x tol from the problem's reference
"$chs" run --problem pendulum --formulation standard --method cvode:bdf --rtol 1e-6 --atol 1e-8 \
  --tf 10 --json >"$tmp/out" 2>"$tmp/err"
if grep -q '^chs: warning: final error |(q,p) - reference| = .* x the tolerance 1e-06' "$tmp/err" &&
  grep -q '"warnings": \["final error' "$tmp/out"; then ok; else
  bad "pendulum standard/cvode:bdf: no reference warning: $(head -c 300 "$tmp/err")"
fi
echo "warnings: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
