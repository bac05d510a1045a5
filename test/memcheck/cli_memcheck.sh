#!/usr/bin/env bash
# A sample of `chs` command lines under valgrind memcheck: every formulation, every method family,
# output files, a numerical failure and a few bad inputs. Fails on any valgrind error (invalid
# access, uninitialised value, definite or indirect leak) or an unexpected exit status.
# usage: cli_memcheck.sh PATH_TO_CHS [PLUGIN_DIR]
set -uo pipefail
chs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
plugins=${2:-}
[[ -n $plugins ]] && plugins=$(cd "$plugins" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export XDG_CACHE_HOME=$tmp/cache
vg=(valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect
  --show-leak-kinds=definite,indirect --track-origins=yes --num-callers=40
  --suppressions="$here/valgrind.supp")
runs=0 failed=0 errors=0

# check STATUS ARGS...: chs ARGS under valgrind exits with STATUS and valgrind reports nothing.
check() {
  local want=$1
  shift
  runs=$((runs + 1))
  local log=$tmp/vg.$runs.log
  "${vg[@]}" --log-file="$log" "$chs" "$@" >"$tmp/out" 2>"$tmp/err"
  local st=$? n
  n=$(sed -nE 's/.*ERROR SUMMARY: ([0-9]+) errors.*/\1/p' "$log" | tail -n1)
  errors=$((errors + ${n:-0}))
  if [[ $st -ne $want || ${n:-1} -ne 0 ]]; then
    failed=$((failed + 1))
    echo "FAIL (exit $st, want $want; ${n:-?} valgrind errors): chs $*" >&2
    head -c 300 "$tmp/err" >&2
    grep -vE '^==[0-9]+== *$' "$log" | sed -n '/ERROR SUMMARY\|Invalid\|uninitialised\|definitely lost\|indirectly lost/,+25p' | head -60 >&2
  else
    echo "ok: chs $*"
  fi
}

P=(--problem pendulum)
H=(--h 0.1 --tf 1)
A=(--rtol 1e-6 --atol 1e-8 --tf 1)
check 0 run "${P[@]}" --formulation standard --method erk:rk4 "${H[@]}" --out run.csv --json
check 0 run "${P[@]}" --formulation dirac --method erk:dp5 "${A[@]}" --project both
check 0 run --problem double-pendulum --formulation extended --method gauss:2 --h 0.05 --tf 0.5
check 0 run "${P[@]}" --formulation total --method erk:rk4 "${H[@]}"
check 0 run "${P[@]}" --formulation dirac --method dirk:midpoint "${H[@]}"
check 0 run "${P[@]}" --formulation baumgarte --method cvode:bdf:ls=klu "${A[@]}" --project both
check 0 run --problem pendulum:hamiltonian=modified --formulation impetus --method erk:rk4 "${H[@]}"
check 0 run "${P[@]}" --formulation fj --method erk:rk4 "${H[@]}"
check 0 run "${P[@]}" --formulation ssf --method gauss:1 "${H[@]}"
check 0 run "${P[@]}" --formulation dae-ggl --method ida:ls=klu "${A[@]}"
check 0 run --problem double-pendulum --formulation dae-index3 --method ida "${A[@]}"
check 0 run "${P[@]}" --formulation dae-index1 --method ida:jac=fd "${A[@]}"
check 0 run "${P[@]}" --formulation standard --method rattle --h 0.01 --tf 0.2 --wedge --json
check 0 run "${P[@]}" --formulation standard --method lobatto:3 --h 0.05 --tf 0.5
check 0 run --problem chain:N=12 --formulation standard --method lobatto:3:newton=structured --h 0.01 --tf 0.05
check 0 run "${P[@]}" --formulation standard --method alpha-prk:3 --h 0.05 --tf 0.5 --wedge
check 0 run "${P[@]}" --formulation standard --method sprk:ARKODE_SPRK_MCLACHLAN_4_4 "${H[@]}"
check 0 run "${P[@]}" --formulation dirac --method midpoint:fixed:tol=1e-10 "${H[@]}"
check 0 run --problem pendulum-chain:N=4 --formulation standard --method cvode:bdf:ls=spgmr "${A[@]}"
check 0 run --problem pendulum-chain:N=4 --formulation dirac --method cvode:adams:ls=band "${A[@]}"
check 0 run --problem chain:N=7,vel=thermal --formulation dirac --method erk:rk4 --h 0.1 --tf 0.5 --json
check 0 run --problem slider-crank --formulation dirac --method erk:dp5 --rtol 1e-6 --atol 1e-8 --tf 0.2
check 0 run --problem fj-example --method erk:rk4 "${H[@]}" --json
if [[ -n $plugins ]]; then
  check 0 run --problem "$plugins/libchs_example_plugin.so:depth=0.5" --formulation dirac --method erk:dp5 "${A[@]}"
  check 2 run --problem "$plugins/libchs_bad_plugin_3.so" --formulation dirac --method erk:rk4 "${H[@]}"
fi
check 0 compare "${P[@]}" --formulations standard,dirac --method cvode:bdf --tols 1e-4:1e-6:2 --tf 1
check 0 workprec "${P[@]}" --configs dirac/erk:dp5,dae-ggl/ida --tols 1e-3:1e-4:2 --tf 1 --repeats 1 --out wp
check 0 workprec --problem double-pendulum --configs dirac/erk:dp5 --tols 1e-3:1e-4:2 --tf 0.5 --repeats 1 --cache-dir rc
check 0 list methods
# numerical failure: exit 3, the CSV holds the complete rows
check 3 run "${P[@]}" --formulation standard --method erk:rk4 --h 2.5 --tf 1000 --out fail.csv
check 2 run --problem pendulum:x=0,y=0,py=0,length=1e-300 --formulation dirac --method erk:rk4 "${H[@]}"
# bad input: exit 2
check 2 run "${P[@]}" --formulation dirac --method erk:rk4 --h nan --tf 1
check 2 run --problem pendulum:length=1,length=2 --formulation dirac --method erk:rk4 "${H[@]}"
check 2 run "${P[@]}" --formulation dirac --method gauss:abc "${H[@]}"
check 2 run --problem /dev/null --formulation dirac --method erk:rk4 "${H[@]}"
check 2 run "${P[@]}" --formulation dirac --method erk:rk4 "${H[@]}" --out /proc/self/x.csv
check 2 compare "${P[@]}" --formulations standard,dirac --method cvode:bdf --tols 1e-4:1e-6 --tf 1
check 2 workprec "${P[@]}" --configs bogus/erk:dp5 --tols 1e-3:1e-4:2 --tf 1
check 2 bench rhs --evals 0
check 2 reproduce nosuch

echo "memcheck cli: $runs runs, $errors valgrind errors, $failed failed"
[[ $failed -eq 0 ]]
