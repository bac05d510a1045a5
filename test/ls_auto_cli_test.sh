#!/usr/bin/env bash
# ls=auto, the default linear solver of ida and cvode (src/linalg/linsol.c, chs_ls_auto; docs/cli.md):
# a small system keeps the dense LU with exactly its numbers; a large DAE picks klu where its
# Jacobian fills little (the pendulum chain) and GMRES with the sparse preconditioner where it
# fills like a 2-D mesh (the coiled chain); CVODE on a large ODE formulation picks GMRES. Each
# choice is checked against a run with the same solver given by ls=: the same numbers, bit for
# bit (every key but the measured ones and the method's name). The choice is in the JSON
# (linear_solver) and the text report ("linear solver  NAME (ls=auto)").
# usage: ls_auto_cli_test.sh PATH_TO_CHS
set -uo pipefail
chs=$1
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# a top-level JSON key's value (one line)
val() { sed -n "s/^  \"$2\": \\(.*\\)\$/\\1/p" "$1" | sed 's/,$//'; }
# the computed keys of a run's JSON (left out: the measured ones, the method, the choice, and
# the warnings, which name the method)
computed() { grep -vE "^  \"($measured_keys|method|linear_solver|warnings)\":" "$1"; }

# same PROBLEM FORMULATION AUTO_METHOD GIVEN_METHOD WANT TF: AUTO_METHOD (ls=auto) chooses WANT
# and gives GIVEN_METHOD's numbers
same() {
  local p=$1 f=$2 ma=$3 mg=$4 want=$5 tf=$6 tag=$7
  "$chs" run --problem "$p" --formulation "$f" --method "$ma" --rtol 1e-6 --atol 1e-6 --tf "$tf" --json >"$tmp/$tag-a.json" 2>"$tmp/$tag-a.err"
  local ra=$?
  "$chs" run --problem "$p" --formulation "$f" --method "$mg" --rtol 1e-6 --atol 1e-6 --tf "$tf" --json >"$tmp/$tag-g.json" 2>"$tmp/$tag-g.err"
  local rg=$?
  if [[ $ra -eq 0 && $rg -eq 0 ]]; then ok; else bad "$p $f: $ma exit $ra, $mg exit $rg ($(head -c 200 "$tmp/$tag-a.err"))"; fi
  if [[ $(val "$tmp/$tag-a.json" linear_solver) == "\"$want\"" ]]; then ok; else bad "$p $f $ma: linear_solver $(val "$tmp/$tag-a.json" linear_solver), want \"$want\""; fi
  if [[ $(val "$tmp/$tag-g.json" linear_solver) == "\"$want\"" ]]; then ok; else bad "$p $f $mg: linear_solver $(val "$tmp/$tag-g.json" linear_solver), want \"$want\""; fi
  if [[ $(grep -c '"q_final":' "$tmp/$tag-a.json") -eq 1 ]] && diff <(computed "$tmp/$tag-a.json") <(computed "$tmp/$tag-g.json") >"$tmp/$tag.diff"; then ok; else bad "$p $f: $ma and $mg differ: $(head -c 400 "$tmp/$tag.diff")"; fi
}

# (a) small systems: dense, today's numbers (pendulum chain of 10 links, dae-ggl: N = 60, the
# largest small built-in; the pendulum in dae-index3; CVODE BDF and Adams on the chain of 7)
same pendulum-chain:N=10 dae-ggl ida ida:ls=dense dense 1 pc10
same pendulum dae-index3 ida:ls=auto ida:ls=dense dense 3 pend
same chain:N=7 standard cvode:bdf cvode:bdf:ls=dense dense 1 c7bdf
same chain:N=7 standard cvode:adams cvode:adams:ls=dense dense 1 c7adams
# the text report names the choice, and that ls=auto made it; a given ls= is named alone
if "$chs" run --problem pendulum --formulation dae-ggl --method ida --rtol 1e-6 --atol 1e-6 --tf 1 | has -x '  linear solver  dense (ls=auto)'; then ok; else bad "text report: no 'linear solver  dense (ls=auto)'"; fi
if "$chs" run --problem pendulum --formulation dae-ggl --method ida:ls=klu --rtol 1e-6 --atol 1e-6 --tf 1 | has -x '  linear solver  klu'; then ok; else bad "text report: no 'linear solver  klu'"; fi

# (b) large systems: the pendulum chain of 1000 links (N = 6000, KLU's fill 1.96 nnz(J)) -> klu;
# the coiled chain of 1000 atoms (N = 5998, fill 16) -> spgmr, IDA's GMRES preconditioned by the
# Jacobian without hess V; CVODE on the coil of 100 atoms (N = 400, an ODE formulation, whose
# Jacobian would be an N x N array) -> spgmr
same pendulum-chain:N=1000 dae-ggl ida ida:ls=klu klu 0.02 pc1000
same chain:N=1000,init=2,vel=thermal dae-ggl ida ida:ls=spgmr spgmr 0.02 coil1000
same chain:N=1000,init=2,vel=thermal dae-index3 ida:ls=auto ida:ls=spgmr spgmr 0.02 coil1000i3
same chain:N=100,init=2,vel=thermal standard cvode:bdf cvode:bdf:ls=spgmr spgmr 0.05 coil100cv
# jac= asks for a direct solver: auto keeps to klu on the large DAE
same pendulum-chain:N=1000 dae-ggl ida:jac=analytic ida:ls=klu,jac=analytic klu 0.02 pc1000jac

# Bad input: exit 2 naming the value (test/bad_input/matrix.tsv has the rows of the matrix)
expect 2 "ls=bogus" -- run --problem pendulum --formulation dae-ggl --method ida:ls=bogus --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "prec= is for ls=spgmr only" -- run --problem pendulum --formulation dae-ggl --method ida:ls=auto,prec=sparse --rtol 1e-6 --atol 1e-6 --tf 1

echo "ls_auto_cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
