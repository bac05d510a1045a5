#!/usr/bin/env bash
# `chs run --stop-at`, the events in the JSON, q_final / p_final and the energy-balance keys
# against independent truths: the pendulum's event times from the complete elliptic
# integral K (arithmetic-geometric mean, computed here by awk) and Andrews' published positions
# at t = 0.03 (IVP test set, PSIDE at tol 1e-14).
# usage: events_cli_test.sh PATH_TO_CHS
set -uo pipefail
chs=$1
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# a top-level JSON key's value (one line)
val() { sed -n "s/^  \"$2\": \\(.*\\)\$/\\1/p" "$1" | sed 's/,$//'; }
# |a - b| <= tol
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# K(1/2) by the arithmetic-geometric mean: the bottom-started pendulum (k = 1/2) reaches its
# turning point (vy_zero) at K and passes under the pivot (x_zero) at 2 K.
K=$(awk 'BEGIN { a = 1; b = sqrt(0.75); for (i = 0; i < 40; i++) { c = (a + b) / 2; b = sqrt(a * b); a = c }; printf "%.17g", 3.14159265358979324 / (2 * a) }')
bottom=(run --problem pendulum:x=0,y=-1,px=1,py=0 --formulation dirac --tf 10)

# Bad input: exit 2 before any work, naming the value and the problem's events.
expect 2 "'nosuch'" -- "${bottom[@]}" --method erk:rk4 --h 0.01 --stop-at nosuch
expect 2 "x_zero, vy_zero" -- "${bottom[@]}" --method erk:rk4 --h 0.01 --stop-at x_zero,nosuch
expect 2 "empty event name" -- "${bottom[@]}" --method erk:rk4 --h 0.01 --stop-at x_zero,
expect 2 "--stop-at" -- "${bottom[@]}" --method erk:rk4 --h 0.01 --stop-at
expect 2 "--stop-at" -- "${bottom[@]}" --method erk:rk4 --h 0.01 --stop-at ""
expect 2 "declares no events" -- run --problem andrews --formulation standard --method cvode:bdf --rtol 1e-6 --atol 1e-6 --tf 0.03 --stop-at x_zero
expect 2 "no events" -- run --problem fj-example --method erk:rk4 --h 0.01 --tf 1 --stop-at all
expect 2 "--wedge" -- "${bottom[@]}" --method rattle --h 0.01 --stop-at x_zero --wedge
# an unknown name never leaves an output file
expect 2 "nosuch" -- "${bottom[@]}" --method erk:rk4 --h 0.01 --stop-at nosuch --out "$tmp/bad.csv"
if [[ -e $tmp/bad.csv ]]; then bad "--stop-at nosuch wrote --out"; else ok; fi

# Adaptive (ARKODE root finding): x_zero at 2 K to 1e-8; the events before it in the JSON.
"$chs" "${bottom[@]}" --method erk:dp5 --rtol 1e-12 --atol 1e-12 --stop-at x_zero --json >"$tmp/a.json"
if near "$(val "$tmp/a.json" t_final)" "$(awk -v k="$K" 'BEGIN { printf "%.17g", 2 * k }')" 1e-8; then ok; else bad "erk:dp5 x_zero at $(val "$tmp/a.json" t_final), want 2K = 2 * $K"; fi
if [[ $(val "$tmp/a.json" stopped_at) == '"x_zero"' ]]; then ok; else bad "stopped_at: $(val "$tmp/a.json" stopped_at)"; fi
tv=$(val "$tmp/a.json" events | sed -n 's/^\[{"name": "vy_zero", "t": \([^,]*\), "direction": "falling"}.*/\1/p')
if [[ -n $tv ]] && near "$tv" "$K" 1e-8; then ok; else bad "first event vy_zero at K = $K: $(val "$tmp/a.json" events)"; fi
# the final state is the event's: x = 0 (to the location's accuracy), y = -1
qf=$(val "$tmp/a.json" q_final | tr -d '[]')
if near "${qf%%,*}" 0 1e-8 && near "${qf##*, }" -1 1e-8; then ok; else bad "q_final at x_zero: $qf"; fi
# CVODE and IDA root finding, fixed-step bracketing (order 4: 3e-7 at h = 0.05)
for m in "--formulation standard --method cvode:bdf --rtol 1e-12 --atol 1e-12" \
  "--formulation dae-ggl --method ida --rtol 1e-11 --atol 1e-11" \
  "--formulation dirac --method erk:rk4 --h 0.05" "--formulation standard --method lobatto:3 --h 0.05"; do
  # shellcheck disable=SC2086
  t=$("$chs" run --problem pendulum:x=0,y=-1,px=1,py=0 $m --tf 10 --stop-at vy_zero --stop-at x_zero --json | sed -n 's/^  "t_final": \(.*\),$/\1/p')
  if near "$t" "$K" 1e-6; then ok; else bad "$m: first event at $t, want K = $K"; fi
done

# The text summary lists the events and the stop; the CSV ends at the event.
"$chs" "${bottom[@]}" --method erk:rk4 --h 0.01 --stop-at all --out "$tmp/e.csv" >"$tmp/e.txt"
if has -E '^  stopped at +vy_zero, t = 1\.6857' "$tmp/e.txt"; then ok; else bad "text summary: $(cat "$tmp/e.txt")"; fi
last=$(tail -n 1 "$tmp/e.csv" | cut -d, -f1)
if near "$last" "$K" 1e-6; then ok; else bad "CSV last row at t = $last, want the event's K = $K"; fi
# without --stop-at: no event keys, but q_final and p_final (two coordinates each)
"$chs" "${bottom[@]}" --method erk:rk4 --h 0.1 --json >"$tmp/n.json"
if has '"events"' "$tmp/n.json" || has '"energy_balance' "$tmp/n.json"; then bad "events or balance keys without --stop-at / for a conservative problem"; else ok; fi
if [[ $(val "$tmp/n.json" q_final | tr ',' '\n' | wc -l) -eq 2 && $(val "$tmp/n.json" p_final | tr ',' '\n' | wc -l) -eq 2 ]]; then ok; else bad "q_final/p_final: $(grep final "$tmp/n.json")"; fi

# Andrews at t = 0.03: q_final against the published positions, 1e-7 relative per component.
ref="0.1581077119629904e+2 -0.1575637105984298e+2 0.4082224013073101e-1 -0.5347301163226948e+0 0.5244099658805304e+0 0.5347301163226948e+0 0.1048080741042263e+1"
for cfg in "standard cvode:bdf 1e-12 1e-14" "dae-ggl ida 1e-10 1e-12"; do
  read -r f m r a <<<"$cfg"
  "$chs" run --problem andrews --formulation "$f" --method "$m" --rtol "$r" --atol "$a" --tf 0.03 --json >"$tmp/an.json"
  q=$(val "$tmp/an.json" q_final | tr -d '[],')
  if awk -v q="$q" -v r="$ref" 'BEGIN { n = split(q, x, " "); split(r, y, " "); if (n != 7) exit 1;
      for (i = 1; i <= 7; i++) { d = (x[i] - y[i]) / y[i]; if (d < 0) d = -d; if (!(d <= 1e-7)) exit 1 } }'; then ok; else
    bad "andrews $f/$m q_final $q vs the published $ref"
  fi
done

# car-axis (time-dependent): the energy-balance keys and the text line.
"$chs" run --problem car-axis --formulation dirac --method erk:rk4 --h 5e-4 --tf 3 --json >"$tmp/car.json"
for k in energy_balance_err_max energy_balance_err_final energy_balance_work; do
  if [[ $(grep -c "\"$k\":" "$tmp/car.json") -eq 1 ]]; then ok; else bad "car-axis JSON lacks $k"; fi
done
if awk -v b="$(val "$tmp/car.json" energy_balance_err_max)" -v w="$(val "$tmp/car.json" energy_balance_work)" 'BEGIN { exit !(b < 1e-4 && w > 2e-4) }'; then ok; else bad "car-axis balance: $(grep balance "$tmp/car.json")"; fi
if "$chs" run --problem car-axis --formulation dirac --method erk:rk4 --h 1e-3 --tf 1 | has -E '^  energy balance +max [0-9.]+e-0[4-9]'; then ok; else bad "car-axis text summary lacks the energy balance line"; fi
if grep -qi nan "$tmp"/*.json; then bad "NaN in JSON"; else ok; fi

echo "events_cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
