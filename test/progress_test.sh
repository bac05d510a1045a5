#!/usr/bin/env bash
# Progress on the standard error (drivers/progress.h): shown when it is a terminal (a
# pseudo terminal from util-linux `script`), erased at the end; absent with --quiet or without a
# terminal; the standard output (tables, JSON) and the CSV are the same either way.
# usage: progress_test.sh PATH_TO_CHS
set -uo pipefail
chs=$1
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
if ! command -v script >/dev/null 2>&1; then
  echo "progress: util-linux script not installed: skipped"
  exit 77
fi
# on_tty OUT CAPTURE ARGS...: chs ARGS with stdout to OUT and stderr on a pseudo terminal, whose
# bytes (stderr) go to CAPTURE. Returns chs's exit status.
on_tty() {
  local out=$1 cap=$2
  shift 2
  local cmd
  cmd=$(printf '%q ' "$chs" "$@")
  script -qec "$cmd >$(printf '%q' "$out")" /dev/null >"$cap" </dev/null
}
# without the wall times (they differ from run to run)
# the measured keys (cli_lib.sh) and the text's wall and cost lines
nowall() { sed -E "s/\"($measured_keys)\": [^,}]*//g; s/wall +[0-9.e+-]+ s//; s/cost +CPU .*//" "$1"; }

run=(run --problem pendulum --formulation dirac --method erk:rk4 --h 0.001 --tf 20)
# 1. a run on a terminal: the progress line (label, percentage, t of t_f, ETA), erased at the end
if on_tty "$tmp/tty.json" "$tmp/tty.err" "${run[@]}" --json --out "$tmp/tty.csv"; then ok; else bad "run on a terminal failed"; fi
if has -a 'chs run pendulum .*%.*t = .* of 20.*ETA' "$tmp/tty.err"; then ok; else bad "no progress line on a terminal: $(head -c 300 "$tmp/tty.err" | od -c | head -5)"; fi
# the last thing on the terminal is the erasure: blanks ending in '\r' (no text left behind)
if [[ $(tail -c 1 "$tmp/tty.err" | od -An -c | tr -d ' ') == '\r' ]]; then ok; else bad "progress line not erased at the end"; fi
# 2. the same run without a terminal: no progress, the same JSON (but the wall time) and CSV
"$chs" "${run[@]}" --json --out "$tmp/plain.csv" >"$tmp/plain.json" 2>"$tmp/plain.err"
if [[ ! -s $tmp/plain.err ]]; then ok; else bad "progress without a terminal: $(head -c 200 "$tmp/plain.err")"; fi
if cmp -s <(nowall "$tmp/tty.json") <(nowall "$tmp/plain.json") && cmp -s "$tmp/tty.csv" "$tmp/plain.csv"; then ok; else bad "stdout or CSV differ with a terminal"; fi
if has '"t_final": 20' "$tmp/plain.json"; then ok; else bad "run JSON: $(head -c 200 "$tmp/plain.json")"; fi
# 3. --quiet on a terminal: nothing on the standard error
if on_tty "$tmp/q.json" "$tmp/q.err" "${run[@]}" --json --quiet && [[ ! -s $tmp/q.err ]]; then ok; else bad "--quiet on a terminal: $(head -c 200 "$tmp/q.err" | od -c | head -3)"; fi
if cmp -s <(nowall "$tmp/q.json") <(nowall "$tmp/plain.json"); then ok; else bad "--quiet changed the JSON"; fi
# 4. sweeps: workprec (runs of the sweep), compare --tols; the table and JSON unchanged
wp=(workprec --problem pendulum --configs dirac/erk:dp5,standard/erk:dp5 --tols 1e-4:1e-6:2 --tf 5 --repeats 1 --no-cache)
on_tty "$tmp/wp.json" "$tmp/wp.err" "${wp[@]}" --json
if has -a 'chs workprec .*/4 runs.*%.*ETA' "$tmp/wp.err"; then ok; else bad "workprec: no progress line: $(head -c 300 "$tmp/wp.err")"; fi
"$chs" "${wp[@]}" --json >"$tmp/wp2.json" 2>"$tmp/wp2.err"
if [[ ! -s $tmp/wp2.err ]] && cmp -s <(nowall "$tmp/wp.json") <(nowall "$tmp/wp2.json"); then ok; else bad "workprec output differs with a terminal"; fi
on_tty "$tmp/wq.json" "$tmp/wq.err" "${wp[@]}" --json --quiet
if [[ ! -s $tmp/wq.err ]]; then ok; else bad "workprec --quiet: $(head -c 200 "$tmp/wq.err")"; fi
# the computed reference (no closed form: the pendulum chain) has its own line, t of t_f
on_tty "$tmp/wr.json" "$tmp/wr.err" workprec --problem pendulum-chain:N=8 --configs dirac/erk:dp5 \
  --tols 1e-4:1e-5:2 --tf 1 --repeats 1 --no-cache --json
if has -a 'reference, tol 1e-12 .*t = .* of 1 ' "$tmp/wr.err"; then ok; else bad "workprec: no progress of the reference: $(head -c 300 "$tmp/wr.err")"; fi
cmp=(compare --problem pendulum --formulations dirac,standard --method erk:dp5 --tols 1e-4:1e-6:2 --tf 5)
on_tty "$tmp/c.txt" "$tmp/c.err" "${cmp[@]}"
if has -a 'chs compare .*/4 runs' "$tmp/c.err"; then ok; else bad "compare --tols: no progress line"; fi
"$chs" "${cmp[@]}" >"$tmp/c2.txt" 2>/dev/null
if cmp -s "$tmp/c.txt" "$tmp/c2.txt"; then ok; else bad "compare --tols table differs with a terminal"; fi
on_tty "$tmp/cq.txt" "$tmp/cq.err" "${cmp[@]}" --quiet
if [[ ! -s $tmp/cq.err ]]; then ok; else bad "compare --quiet: $(head -c 200 "$tmp/cq.err")"; fi
# 5. an error message after progress starts on a line of its own (the line erased before it)
on_tty "$tmp/f.txt" "$tmp/f.err" run --problem pendulum --formulation dirac --method erk:dp5 --rtol 1e-6 --atol 1e-6 --tf 1e6 --max-steps 1000
if has -a $'\rchs: too much work' "$tmp/f.err" || has -a $'^chs: too much work' "$tmp/f.err"; then ok; else bad "error message not on a line of its own: $(od -c "$tmp/f.err" | tail -5)"; fi

echo "progress: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
