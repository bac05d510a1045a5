#!/usr/bin/env bash
# --formulation auto / --method auto (docs/auto.md): the defaults of `chs run`. The choice follows
# drivers/auto.c's table (dirac; cvode:adams adaptive; rattle, else erk:rk4, at a fixed step; ida
# for a DAE formulation), the text report and the JSON say so, and an auto run is the explicit
# run of the chosen configuration: the same steps, evaluations and final error, bit for bit.
# usage: auto_test.sh PATH_TO_CHS
set -uo pipefail
chs=$1
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# same PROBLEM OPTIONS F M [GIVEN]: auto with OPTIONS and GIVEN chooses F/M and runs like it
same() {
  local p=$1 opts=$2 f=$3 m=$4 given=${5:-}
  # shellcheck disable=SC2086
  "$chs" run --problem "$p" $opts $given --json >"$tmp/a.json" 2>"$tmp/a.err" || {
    bad "auto $p $opts failed: $(head -c 300 "$tmp/a.err")"
    return
  }
  # shellcheck disable=SC2086
  "$chs" run --problem "$p" $opts --formulation "$f" --method "$m" --json >"$tmp/e.json" 2>/dev/null
  if jq -e --arg f "$f" --arg m "$m" '.formulation == $f and .method == $m and
      (.auto_choice | contains($m) or contains($f))' "$tmp/a.json" >/dev/null; then ok; else
    bad "auto $p $opts: $(jq -c '[.formulation, .method, .auto_choice]' "$tmp/a.json"), want $f/$m"
  fi
  local a e
  a=$(jq -c '[.steps, .rhs_evals, .int_err_final, .pos_res_max, .q_final]' "$tmp/a.json")
  e=$(jq -c '[.steps, .rhs_evals, .int_err_final, .pos_res_max, .q_final]' "$tmp/e.json")
  if [[ -n $a && $a == "$e" ]]; then ok; else bad "auto $p $opts differs from $f/$m: $a vs $e"; fi
  if jq -e 'has("auto_choice") | not' "$tmp/e.json" >/dev/null; then ok; else
    bad "explicit $f/$m has auto_choice"
  fi
}
same pendulum "--tf 10 --rtol 1e-8 --atol 1e-8" dirac cvode:adams
same andrews "--tf 0.03 --rtol 1e-6 --atol 1e-6" dirac cvode:adams
same car-axis "--tf 3 --rtol 1e-6 --atol 1e-6" dirac cvode:adams
same "heavy-top:steady=1" "--tf 10 --rtol 1e-7 --atol 1e-7" dirac cvode:adams
same pendulum "--tf 1 --h 0.01" dirac rattle
# RATTLE refuses the slider-crank's damper: the fixed-step choice falls back to RK4
same slider-crank "--tf 0.1 --h 0.001" dirac erk:rk4
# one of the two given: the other is chosen
same pendulum "--tf 1 --rtol 1e-6 --atol 1e-6" dae-ggl ida "--formulation dae-ggl"
same pendulum "--tf 1 --rtol 1e-6 --atol 1e-6" standard cvode:adams "--formulation standard"
same pendulum "--tf 1 --rtol 1e-6 --atol 1e-6" dirac erk:dp5 "--method erk:dp5"
# the text report names the choice and its reason
"$chs" run --problem pendulum --tf 1 --rtol 1e-6 --atol 1e-6 >"$tmp/t.txt" 2>&1
if has -E '^problem pendulum, formulation dirac, method cvode:adams' "$tmp/t.txt" &&
  has -E '^  auto +dirac \(Hamilton-Dirac' "$tmp/t.txt"; then ok; else
  bad "text report: $(head -c 400 "$tmp/t.txt")"
fi
# refused where auto cannot choose: --wedge
expect 2 "--wedge" -- run --problem pendulum --h 0.1 --tf 1 --wedge

echo "auto: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
