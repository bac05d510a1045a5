#!/usr/bin/env bash
# The energy balance of a time-dependent problem (the car axis: moving constraint and potential)
# is integrated over the integrator's own steps, so it does not depend on how often output is
# written: at tol 1e-10 the largest balance error with --every 1 and --every 100 agree within a
# factor 3, for an adaptive ODE method, CVODE, IDA on a DAE and a fixed-step method; and it
# converges with the tolerance (tol 1e-8 -> 1e-12: at least 100 times smaller).
# usage: energy_balance_test.sh PATH_TO_CHS
set -uo pipefail
chs=$1
pass=0
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# balance ARGS...: the largest energy-balance error of `chs run --problem car-axis --tf 3 ARGS`
balance() {
  "$chs" run --problem car-axis --tf 3 --json "$@" |
    sed -n 's/.*"energy_balance_err_max": \([^,]*\),*/\1/p'
}
within() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a > 0 && b > 0 && a < f * b && b < f * a) }'; }
below() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a > 0 && b > 0 && a * f < b) }'; }

configs=("--formulation dirac --method erk:dp5 --rtol TOL --atol TOL"
  "--formulation dirac --method cvode:bdf --rtol TOL --atol TOL"
  "--formulation dae-ggl --method ida --rtol TOL --atol TOL"
  "--formulation dirac --method dirk:ARKODE_SDIRK_5_3_4 --rtol TOL --atol TOL")
for c in "${configs[@]}"; do
  # shellcheck disable=SC2206
  a=(${c//TOL/1e-10})
  e1=$(balance "${a[@]}" --every 1)
  e100=$(balance "${a[@]}" --every 100)
  if within "$e1" "$e100" 3; then pass=$((pass + 1)); else bad "$c tol 1e-10: --every 1 $e1, --every 100 $e100"; fi
done
for c in "${configs[@]:0:3}"; do
  # shellcheck disable=SC2206
  lo=(${c//TOL/1e-8})
  # shellcheck disable=SC2206
  hi=(${c//TOL/1e-12})
  b8=$(balance "${lo[@]}")
  b12=$(balance "${hi[@]}")
  if below "$b12" "$b8" 100; then pass=$((pass + 1)); else bad "$c: tol 1e-8 $b8, tol 1e-12 $b12"; fi
done
# the fixed-step families step themselves: rattle and RK4 at h = 1e-3
for m in rattle erk:rk4; do
  e1=$(balance --formulation dirac --method $m --h 1e-3 --every 1)
  e100=$(balance --formulation dirac --method $m --h 1e-3 --every 100)
  if within "$e1" "$e100" 3; then pass=$((pass + 1)); else bad "$m h 1e-3: --every 1 $e1, --every 100 $e100"; fi
done
echo "energy balance: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
