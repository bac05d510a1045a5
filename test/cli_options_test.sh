#!/usr/bin/env bash
# The option table (drivers/cli_options.c) and what comes from it: getopt_long parsing (--h=0.1,
# abbreviations and other subcommands' options refused), the generated --help of each subcommand
# (only its own options; every registered formulation and method family), --dry-run, --quiet,
# the bash completion (sourced, COMPREPLY checked) and the man page (groff without warnings).
# usage: cli_options_test.sh PATH_TO_CHS [PATH_TO_MAN_PAGE]
set -uo pipefail
chs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: --dry-run runs in a directory
man1=${2:-}
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
run=(run --problem pendulum --formulation dirac --method erk:rk4)

# --- parsing: --opt=value is --opt value (the same run, the same numbers)
strip_wall() { grep -vE "\"($measured_keys)\""; }
"$chs" "${run[@]}" --h 0.1 --tf 1 --json | strip_wall >"$tmp/a.json"
"$chs" run --problem=pendulum --formulation=dirac --method=erk:rk4 --h=0.1 --tf=1 --json |
  strip_wall >"$tmp/b.json"
if [[ -s $tmp/a.json ]] && cmp -s "$tmp/a.json" "$tmp/b.json"; then ok; else bad "--h=0.1 differs from --h 0.1"; fi
expect 2 "--h given twice ('--h=0.2')" -- "${run[@]}" --h 0.1 --tf 1 --h=0.2
expect 2 "unknown option '--form'" -- "${run[@]:0:3}" --form dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "unknown option '--met'" -- "${run[@]:0:5}" --met erk:rk4 --h 0.1 --tf 1
expect 2 "--json takes no value ('--json=1')" -- "${run[@]}" --h 0.1 --tf 1 --json=1
expect 2 "--h needs a non-empty value" -- "${run[@]}" --h= --tf 1
expect 2 "option --out is not valid for chs compare (it applies to: run, workprec)" -- \
  compare --problem pendulum --method erk:rk4 --h 0.1 --tf 1 --out x.csv
expect 2 "--wedge is not valid for chs compare" -- compare --problem pendulum --method erk:rk4 --h 0.1 --tf 1 --wedge
expect 2 "--evals is not valid for chs bench dae" -- bench dae --evals 10
expect 2 "--quiet is not valid for chs check" -- check --problem pendulum --quiet
expect 2 "--tf" -- "${run[@]}" --h 0.1
expect 2 "--cache-dir and --no-cache cannot be combined" -- workprec --problem pendulum \
  --configs dirac/erk:dp5 --tols 1e-3:1e-4:2 --tf 1 --cache-dir "$tmp/c" --no-cache
expect 2 "--stop-at and --wedge cannot be combined" -- "${run[@]}" --h 0.1 --tf 1 --stop-at all --wedge
expect 2 "--max-n" -- bench scale --max-n 200
expect 2 "unexpected argument 'x'" -- "${run[@]}" --h 0.1 --tf 1 -- x
expect 0 "" -- "${run[@]}" --h 0.1 --tf 1 --
# defaults come from the table: workprec --repeats 3, check --points 3 --seed 1
if "$chs" workprec --help | has -- '--repeats R .*(default 3)'; then ok; else bad "workprec --help: default of --repeats"; fi
"$chs" check --problem pendulum --json >"$tmp/c1.json"
"$chs" check --problem pendulum --json --points 3 --seed 1 >"$tmp/c2.json"
if has '"seed": 1' "$tmp/c1.json" && cmp -s "$tmp/c1.json" "$tmp/c2.json"; then ok; else bad "check defaults"; fi

# --- generated help: only the subcommand's options; the registries
"$chs" compare --help >"$tmp/compare.txt"
if has -e '--formulations' "$tmp/compare.txt" && ! has -E -e '--(out|wedge|stop-at)\b' "$tmp/compare.txt"; then ok; else
  bad "compare --help lists --out, --wedge or --stop-at (compare refuses them)"
fi
"$chs" run --help >"$tmp/run.txt"
for f in $("$chs" list formulations | awk '{print $1}'); do
  if has -w -e "$f" "$tmp/run.txt"; then ok; else bad "run --help does not list formulation $f"; fi
done
for fam in $("$chs" list methods | awk -F: '/^[a-z]/ {print $1}'); do
  if has -E "^  $fam " "$tmp/run.txt"; then ok; else bad "run --help does not list method family $fam"; fi
done
for p in $("$chs" list problems | awk '/^[a-z]/ {print $1}'); do
  if has -w -e "$p" "$tmp/run.txt"; then ok; else bad "run --help does not list problem $p"; fi
done
if has -e 'PATH.so:help' "$tmp/run.txt" && has -e '--stop-at' "$tmp/run.txt"; then ok; else bad "run --help: plugins, --stop-at"; fi
for c in run compare workprec reproduce "bench rhs" "bench dae" "bench scale"; do
  # shellcheck disable=SC2086
  if "$chs" $c --help | has -e '--quiet' && "$chs" $c --help | has -e '--dry-run'; then ok; else
    bad "$c --help: --quiet and --dry-run"
  fi
done
if "$chs" bench --help | has -e 'usage: chs bench scale'; then ok; else bad "bench --help lists bench scale"; fi
if "$chs" help workprec | cmp -s - <("$chs" workprec --help); then ok; else bad "chs help workprec"; fi
expect 2 "no help for 'nosuch'" -- help nosuch

# --- --dry-run: checks as a real run, writes nothing, exit 0
dry() {
  local want=$1
  shift
  (cd "$tmp/dry" && "$chs" "$@" >"$tmp/out" 2>"$tmp/err")
  local st=$?
  if [[ $st -ne $want ]]; then
    bad "chs $* -> exit $st, want $want: $(head -c 300 "$tmp/err")"
  elif [[ -n $(ls -A "$tmp/dry") ]]; then
    bad "chs $* wrote $(ls -A "$tmp/dry")"
  elif [[ $want -eq 0 ]] && ! has 'dry run' "$tmp/err"; then
    bad "chs $*: no 'dry run' message"
  elif [[ -s $tmp/out ]]; then
    bad "chs $*: output on stdout"
  else
    ok
  fi
}
mkdir "$tmp/dry"
dry 0 "${run[@]}" --h 0.1 --tf 1e5 --out x.csv --dry-run
dry 2 "${run[@]:0:5}" --method erk:nosuch --h 0.1 --tf 1 --dry-run
dry 2 "${run[@]:0:3}" --formulation dae-ggl --method erk:rk4 --h 0.1 --tf 1 --dry-run
dry 2 run --problem pendulum:length=-1 --formulation dirac --method erk:rk4 --h 0.1 --tf 1 --dry-run
dry 0 run --problem fj-example --method erk:rk4 --h 0.1 --tf 1 --dry-run
dry 0 compare --problem pendulum --formulations standard,dirac --method erk:rk4 --h 0.01 --tf 1e3 --dry-run
dry 2 compare --problem pendulum --formulations standard,dae-ggl --method erk:rk4 --h 0.01 --tf 1 --dry-run
dry 0 workprec --problem pendulum --configs dirac/erk:dp5 --tols 1e-3:1e-8:6 --tf 10 --out wp --no-cache --dry-run
dry 2 workprec --problem pendulum --configs dirac/erk:rk4 --tols 1e-3:1e-8:6 --tf 10 --no-cache --dry-run
dry 0 reproduce seiler-fj-pendulum --plot-dir plots --dry-run
dry 0 reproduce --all --dry-run
dry 0 bench rhs --problem pendulum --dry-run
dry 2 bench rhs --problem nosuch --dry-run
dry 0 bench dae --dry-run
dry 0 bench scale --dry-run
for c in "run ${run[*]:1} --h 0.1 --tf 1" \
  "compare --problem pendulum --formulations standard,dirac --method erk:rk4 --h 0.1 --tf 1" \
  "workprec --problem pendulum --configs dirac/erk:dp5 --tols 1e-3:1e-4:2 --tf 1 --no-cache --repeats 1" \
  "reproduce seiler-fj-pendulum"; do
  # shellcheck disable=SC2086
  if "$chs" $c --quiet >/dev/null; then ok; else bad "chs $c --quiet"; fi
done

# --- bash completion, sourced
"$chs" completion bash >"$tmp/chs.bash"
expect 2 "bash" -- completion zsh
complete_words() { # LINE...: COMPREPLY for the last word of the line
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _chs; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$tmp/chs.bash" "$@"
}
if [[ $(complete_words chs ru) == run ]]; then ok; else bad "chs ru<TAB>: $(complete_words chs ru)"; fi
if [[ $(complete_words chs run --form) == --formulation ]]; then ok; else bad "chs run --form<TAB>: $(complete_words chs run --form)"; fi
if [[ $(complete_words chs compare --form) == --formulations ]]; then ok; else bad "chs compare --form<TAB>"; fi
if complete_words chs compare --o | has -e '--out'; then bad "chs compare --o<TAB> offers --out"; else ok; fi
complete_words chs run --formulation "" >"$tmp/forms"
if cmp -s <(sort "$tmp/forms") <("$chs" list formulations | awk '{print $1}' | sort); then ok; else
  bad "chs run --formulation <TAB>: $(tr '\n' ' ' <"$tmp/forms")"
fi
if complete_words chs run --problem pend | has -x pendulum-chain; then ok; else bad "chs run --problem pend<TAB>"; fi
# bash splits erk:rk at ':': the candidates are the text after it
if [[ $(complete_words chs run --method erk : rkf) == rkf45 ]]; then ok; else bad "chs run --method erk:rkf<TAB>"; fi
if [[ $(complete_words chs run --project b) == both ]]; then ok; else bad "chs run --project b<TAB>"; fi
if [[ $(complete_words chs bench s) == scale ]]; then ok; else bad "chs bench s<TAB>"; fi
if [[ $(complete_words chs bench scale --m) == --max-n ]]; then ok; else bad "chs bench scale --m<TAB>"; fi
if complete_words chs reproduce seiler-fj | has -x seiler-fj-pendulum; then ok; else bad "chs reproduce seiler-fj<TAB>"; fi
if [[ $(complete_words chs list ex) == experiments ]]; then ok; else bad "chs list ex<TAB>"; fi
touch "$tmp/out-file.csv"
if complete_words chs run --out "$tmp/out-f" | has -x "$tmp/out-file.csv"; then ok; else bad "chs run --out FILE<TAB>"; fi

# --- man page chs(1): roff structure; groff without warnings
"$chs" man >"$tmp/chs.1"
for s in '^\.TH CHS 1' '^\.SH NAME' '^\.SH SYNOPSIS' '^\.SH EXIT STATUS' '^\.SH EXAMPLES' '^\.SS chs run' '^\.SS chs bench scale' '\\-\\-formulations'; do
  if has -e "$s" "$tmp/chs.1"; then ok; else bad "chs man: no $s"; fi
done
if [[ -n $man1 ]]; then
  if cmp -s "$tmp/chs.1" "$man1"; then ok; else bad "the built man page $man1 is not chs man's"; fi
fi
if command -v groff >/dev/null 2>&1; then
  if groff -man -Tutf8 -ww -z "$tmp/chs.1" 2>"$tmp/groff.err" && [[ ! -s $tmp/groff.err ]]; then ok; else
    bad "groff warnings: $(head -c 300 "$tmp/groff.err")"
  fi
  if groff -man -Tutf8 "$tmp/chs.1" 2>/dev/null | has -e 'numerical failure'; then ok; else bad "groff output"; fi
fi

echo "cli_options: $pass passed, $fail failed"
((fail == 0))
