#!/usr/bin/env bash
# Command-line contract of `chs` (DESIGN "Command-line contract"): exit statuses, messages that
# name the bad value, JSON keys, the [Seiler, Dirac] Sec. 6 comparison, and failure behaviour (exit 3,
# complete CSV rows only, no NaN, no temporary files left).
# usage: cli_test.sh PATH_TO_CHS [PLUGIN_DIR]
set -uo pipefail
chs=$1
plugins=${2:-}
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

run=(run --problem pendulum --formulation dirac --method erk:rk4)
# valgrind checks run where valgrind is installed and chs is not built with AddressSanitizer
under_valgrind=0
if command -v valgrind >/dev/null 2>&1 && ! ldd "$chs" 2>/dev/null | has 'libasan'; then
  under_valgrind=1
fi
# Bad input: exit 2, message naming the bad value.
expect 2 nosuch -- run --problem nosuch --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 nosuch -- run --problem pendulum --formulation nosuch --method erk:rk4 --h 0.1 --tf 1
expect 2 nosuch -- "${run[@]:0:5}" --method erk:nosuch --h 0.1 --tf 1
expect 2 bogus -- "${run[@]:0:5}" --method bogus:x --h 0.1 --tf 1
expect 2 "-0.1" -- "${run[@]}" --h -0.1 --tf 1
expect 2 "--h: '0'" -- "${run[@]}" --h 0 --tf 1
expect 2 "abc" -- "${run[@]}" --h abc --tf 1
expect 2 "nan" -- "${run[@]}" --h nan --tf 1
expect 2 "-1" -- "${run[@]}" --h 0.1 --tf -1
expect 2 "length=nan" -- run --problem pendulum:length=nan --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "length" -- run --problem pendulum:length=-1 --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "foo" -- run --problem pendulum:foo=1 --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "residual" -- run --problem pendulum:x=0.5 --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "residual" -- run --problem pendulum:px=1 --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "--bogus" -- "${run[@]}" --h 0.1 --tf 1 --bogus 3
expect 2 "rk4" -- "${run[@]}" --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "nosuch" -- compare --problem pendulum --formulations dirac,nosuch --method erk:rk4 --h 0.1 --tf 1
expect 2 "" -- frobnicate
expect 0 "" -- --help
expect 0 "" -- run --help
# the help of every subcommand is generated from the option table (test/cli_options_test.sh)
for c in compare workprec reproduce check list completion "bench rhs" "bench dae" "bench scale"; do
  # shellcheck disable=SC2086
  expect 0 "" -- $c --help
done
expect 2 "--out is not valid for chs compare" -- compare --out x.csv --help
if "$chs" --version | has -E 'SUNDIALS [0-9]+\.[0-9]+'; then ok; else bad "--version"; fi
if "$chs" list problems | has '^pendulum'; then ok; else bad "list problems"; fi
# the names list problems shows are those of the default instance's CSV columns and --fix items
"$chs" run --problem double-pendulum --formulation dirac --method erk:rk4 --h 0.1 --tf 0.1 \
  --output q,lambda --out "$tmp/names.csv" >/dev/null 2>&1
want="coordinates: $(head -1 "$tmp/names.csv" | cut -d, -f1-4 | sed 's/,/, /g'); constraints: $(head -1 "$tmp/names.csv" | cut -d, -f5- | sed 's/lambda_//g; s/,/, /g')"
if "$chs" list problems | sed -n '/^double-pendulum/,/^[a-z]/p' | has -F "$want"; then ok; else bad "list problems names: want '$want'"; fi
if "$chs" list formulations | has '^dirac'; then ok; else bad "list formulations"; fi
if "$chs" list methods | has 'erk:rk4'; then ok; else bad "list methods"; fi

# Implicit methods report Jacobian evaluations; unknown tables are input errors on every version.
if "$chs" run --problem pendulum --formulation dirac --method dirk:midpoint --h 0.05 --tf 1 --json | has -E '"jac_evals": [1-9]'; then ok; else bad "dirk:midpoint jac_evals"; fi
expect 2 "dirk:bogus" -- "${run[@]:0:5}" --method dirk:bogus --h 0.1 --tf 1
if [[ $("$chs" "${run[@]:0:5}" --method erk:bogus --h 0.1 --tf 1 2>&1 | wc -l) -eq 1 ]]; then ok; else bad "unknown ERK table printed more than one line"; fi

# Lobatto IIIA-IIIB and alpha-PRK: bad stage counts and options are input errors naming the value,
# variable steps refused (exit 2); a step too large for the stage Newton is a numerical failure.
lob=(run --problem pendulum --formulation standard)
expect 2 "lobatto:5" -- "${lob[@]}" --method lobatto:5 --h 0.1 --tf 1
expect 2 "lobatto:x" -- "${lob[@]}" --method lobatto:x --h 0.1 --tf 1
expect 2 "--h" -- "${lob[@]}" --method lobatto:3 --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "alpha-prk:2" -- "${lob[@]}" --method alpha-prk:2 --h 0.1 --tf 1
expect 2 "beta=1" -- "${lob[@]}" --method alpha-prk:3:beta=1 --h 0.1 --tf 1
expect 2 "alpha=x" -- "${lob[@]}" --method alpha-prk:3:alpha=x --h 0.1 --tf 1
expect 2 "--h" -- "${lob[@]}" --method alpha-prk:3 --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "--alpha" -- "${lob[@]}" --method alpha-prk:3 --h 0.1 --tf 1 --alpha 1
expect 3 "reduce --h" -- "${lob[@]}" --method alpha-prk:3 --h 3 --tf 30
if "$chs" "${lob[@]}" --method alpha-prk:3 --h 0.1 --tf 10 --json | has -E '"energy_err_max": [0-9.]+e-1[5-6]'; then ok; else bad "alpha-prk:3 energy not conserved"; fi

# Projections: bad kind is an input error; formulations with another state refuse (exit 2);
# counts appear in the JSON.
expect 2 "sideways" -- "${run[@]}" --h 0.1 --tf 1 --project sideways
expect 2 "impetus" -- run --problem pendulum --formulation impetus --method erk:rk4 --h 0.1 --tf 1 --project momentum
if "$chs" run --problem pendulum --formulation standard --method erk:rk4 --h 0.1 --tf 1 --project both --json | has '"proj_momentum": 10'; then ok; else bad "projection counts in JSON"; fi

# CVODE: adaptive only; projection with BDF only.
expect 2 "rtol" -- run --problem pendulum --formulation dirac --method cvode:bdf --h 0.1 --tf 1
expect 2 "BDF" -- run --problem pendulum --formulation standard --method cvode:adams --rtol 1e-6 --atol 1e-6 --tf 1 --project momentum
if "$chs" run --problem pendulum --formulation standard --method cvode:bdf --rtol 1e-8 --atol 1e-8 --tf 5 --project both --json | has -E '"pos_res_max": [0-9.]+e-1[5-9]'; then ok; else bad "cvode:bdf with projection keeps |g| at round-off"; fi

# Plugins: the example loads and matches its exact reference; broken ones are input errors.
if [[ -n $plugins ]]; then
  good=$plugins/libchs_example_plugin.so
  if "$chs" run --problem "$good:depth=0.5" --formulation dirac --method erk:dp5 --rtol 1e-10 --atol 1e-10 --tf 5 --json | has -E '"int_err_final": [0-9.]+e-(09|1[0-9])'; then ok; else bad "example plugin run"; fi
  # alpha-prk on the conical orbit (a relative equilibrium: the energy error of lobatto:3 is at
  # rounding level and hardly depends on alpha): alpha stays 0 and the accuracy is lobatto's
  "$chs" run --problem "$good" --formulation standard --method alpha-prk:3 --h 0.01 --tf 1 --json >"$tmp/ap.json" 2>&1
  if grep -qE '"alpha_max": 0(\.0)?[,e]' "$tmp/ap.json" && grep -qE '"int_err_max": [0-9.]+e-(09|1[0-9])' "$tmp/ap.json"; then ok; else bad "alpha-prk on the relative equilibrium: $(grep -E 'alpha_max|int_err_max' "$tmp/ap.json")"; fi
  expect 2 "cannot load plugin" -- run --problem ./no/such/plugin.so --formulation dirac --method erk:rk4 --h 0.1 --tf 1
  expect 2 "does not export" -- run --problem "$plugins/libchs_bad_plugin_1.so" --formulation dirac --method erk:rk4 --h 0.1 --tf 1
  expect 2 "ABI version" -- run --problem "$plugins/libchs_bad_plugin_2.so" --formulation dirac --method erk:rk4 --h 0.1 --tf 1
  expect 2 "required callback" -- run --problem "$plugins/libchs_bad_plugin_3.so" --formulation dirac --method erk:rk4 --h 0.1 --tf 1
  expect 2 "required callback" -- run --problem "$plugins/libchs_bad_plugin_4.so" --formulation dirac --method erk:rk4 --h 0.1 --tf 1
  expect 2 "depth" -- run --problem "$good:depth=2" --formulation dirac --method erk:rk4 --h 0.1 --tf 1
  # a plugin built against problem ABI version 1 still loads and runs (no invariants)
  if "$chs" run --problem "$plugins/libchs_v1_plugin.so:depth=0.5" --formulation dirac --method erk:dp5 --rtol 1e-10 --atol 1e-10 --tf 5 --json | has -E '"int_err_final": [0-9.]+e-(09|1[0-9])'; then ok; else bad "ABI v1 plugin run"; fi
fi

# The chain at scale: bad parameters name the value; invariants in the JSON only for problems
# that have them; bench scale on small sizes.
chainrun=(--formulation dirac --method erk:rk4 --h 0.1 --tf 1)
expect 2 "cutoff=-1" -- run --problem chain:cutoff=-1 "${chainrun[@]}"
expect 2 "vel=hot" -- run --problem chain:vel=hot "${chainrun[@]}"
expect 2 "kT=0" -- run --problem chain:vel=thermal,kT=0 "${chainrun[@]}"
expect 2 "init=3" -- run --problem chain:init=3 "${chainrun[@]}"
expect 2 "seed=-1" -- run --problem chain:vel=thermal,seed=-1 "${chainrun[@]}"
expect 2 "distance" -- run --problem chain:N=30,init=1,L=0.4 "${chainrun[@]}"
expect 2 "--max-n" -- bench scale --max-n 50
expect 2 "--bogus" -- bench scale --bogus
if "$chs" run --problem chain:N=200,init=2,vel=thermal --formulation dirac --method erk:rk4 --h 0.01 --tf 0.5 --json | has -E '"invariant_err_max": \{"momentum_x": [0-9.]+e-1[4-9], "momentum_y": [0-9.]+e-1[4-9], "angular_momentum": '; then ok; else bad "chain JSON invariant_err_max"; fi
if "$chs" run --problem pendulum "${chainrun[@]}" --json | has invariant_err_max; then bad "pendulum JSON has invariant_err_max"; else ok; fi
"$chs" bench scale --max-n 100 --json >"$tmp/scale.json"
if [[ $(grep -c '"dirac_over_standard"' "$tmp/scale.json") -eq 2 ]] && grep -q '"full_runs"' "$tmp/scale.json" && ! grep -qi nan "$tmp/scale.json"; then ok; else bad "bench scale --json"; fi

# Work-precision: JSON points, CSV and plots; bad configurations are input errors.
"$chs" workprec --problem pendulum --configs 'dirac/erk:dp5,dae-ggl/ida' --tols 1e-4:1e-8:2 --tf 5 --repeats 1 --out "$tmp/wp" --json >"$tmp/wp.json"
if [[ $(grep -c '"status": "ok"' "$tmp/wp.json") -eq 4 && -s $tmp/wp/workprec.csv && -s $tmp/wp/workprec-evals.png ]]; then ok; else bad "workprec output"; fi
expect 2 "bogus" -- workprec --problem pendulum --configs 'bogus/erk:dp5' --tols 1e-4:1e-8:2 --tf 1
expect 2 "--tols" -- workprec --problem pendulum --configs 'dirac/erk:dp5' --tols 1e-4 --tf 1
# Reference cache: computed once, then cached; a corrupt or mismatched entry is ignored and
# recomputed (stderr says why); the cache goes to $XDG_CACHE_HOME/chs/references by default.
wpc=(workprec --problem double-pendulum --configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --repeats 1)
if "$chs" "${wpc[@]}" --tf 1 --cache-dir "$tmp/rc" | head -1 | has 'computed in .*est. error'; then ok; else bad "workprec reference computed"; fi
if "$chs" "${wpc[@]}" --tf 1 --cache-dir "$tmp/rc" --json | has '"reference_source": "cached"'; then ok; else bad "workprec reference cached"; fi
p1=$(ls "$tmp"/rc/ref-*.txt)
sed -i 's/^z -*[0-9]/z 7/' "$p1"
if "$chs" "${wpc[@]}" --tf 1 --cache-dir "$tmp/rc" 2>"$tmp/err" | head -1 | has computed && grep -q 'checksum mismatch' "$tmp/err"; then ok; else bad "corrupt reference cache entry"; fi
"$chs" "${wpc[@]}" --tf 2 --cache-dir "$tmp/rc" >/dev/null
p2=$(ls "$tmp"/rc/ref-*.txt | grep -v "$p1")
cp "$p1" "$p2"
if "$chs" "${wpc[@]}" --tf 2 --cache-dir "$tmp/rc" 2>"$tmp/err" | head -1 | has computed && grep -q 'key mismatch' "$tmp/err"; then ok; else bad "mismatched reference cache entry"; fi
if ls "$tmp/rc" | has '\.tmp\.'; then bad "temporary reference file left"; else ok; fi
XDG_CACHE_HOME="$tmp/xdg" "$chs" "${wpc[@]}" --tf 1 >/dev/null
if ls "$tmp"/xdg/chs/references/ref-*.txt >/dev/null 2>&1; then ok; else bad "reference cache in XDG_CACHE_HOME"; fi
if XDG_CACHE_HOME="$tmp/xdg2" "$chs" "${wpc[@]}" --tf 1 --no-cache | head -1 | has 'computed, est' && [[ ! -e $tmp/xdg2 ]]; then ok; else bad "workprec --no-cache"; fi

# Failed runs (too much work) are marked points: FAILED in the table, "failed" rows with the work
# spent in the CSV, and the plots are still drawn.
"$chs" workprec --problem pendulum --configs 'dae-ggl/ida' --tols 1e-3:1e-9:2 --tf 5 --repeats 1 --max-steps 300 --out "$tmp/wpf" >"$tmp/wpf.txt" 2>&1
if grep -q 'FAILED' "$tmp/wpf.txt" && grep -qE '^dae-ggl/ida,1e-09,failed,[0-9]+,[0-9]+,' "$tmp/wpf/workprec.csv" && grep -q ',ok,' "$tmp/wpf/workprec.csv" && [[ -s $tmp/wpf/workprec-wall.png ]]; then ok; else bad "workprec failed points: $(cat "$tmp/wpf.txt")"; fi

# Linear solvers of CVODE and IDA: bad values are input errors naming them; every solver runs.
expect 2 "ls=auto, dense, band, klu, umfpack, spgmr" -- run --problem pendulum --formulation standard --method cvode:bdf:ls=lapack --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "jac=analytic, fd" -- run --problem pendulum --formulation standard --method cvode:bdf:ls=klu,jac=exact --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "prec=sparse needs a DAE formulation" -- run --problem pendulum --formulation dirac --method ida:ls=spgmr,prec=sparse --rtol 1e-6 --atol 1e-6 --tf 1
# IDA's GMRES, preconditioned by the DAE Jacobian without hess V: the coil's Krylov line
if "$chs" run --problem chain:N=200,init=2,vel=thermal --formulation dae-ggl --method ida:ls=spgmr --rtol 1e-6 --atol 1e-6 --tf 0.05 | has 'per Newton iteration'; then ok; else bad "ida:ls=spgmr"; fi
expect 2 "ls=auto, dense, band, klu, umfpack, spgmr" -- run --problem pendulum --formulation dae-ggl --method ida:ls=superlu --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "no analytic Jacobian" -- run --problem pendulum --formulation dirac --method ida:jac=analytic --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "unknown parameter" -- run --problem pendulum --formulation dae-ggl --method ida:solver=klu --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "too large for a dense Jacobian" -- run --problem pendulum-chain:N=3000 --formulation dae-ggl --method ida:ls=band --rtol 1e-6 --atol 1e-6 --tf 1
# Ida:ls=klu on a DAE assembles its Jacobian sparse (no size limit); the dense solver
# refuses N x N beyond 8000 up front (was: "cannot create the linear solver" at chain:N=1e6);
# cvode's Krylov solver takes prec=none|sparse and reports its iterations
if "$chs" run --problem pendulum-chain:N=3000 --formulation dae-ggl --method ida:ls=klu --rtol 1e-6 --atol 1e-6 --tf 0.01 | has 'Jacobian evaluations'; then ok; else bad "ida:ls=klu at N = 3000 (sparse Jacobian)"; fi
# KLU's ordering (order=amd|colamd|nd, ls=klu only)
if "$chs" run --problem pendulum-chain:N=50 --formulation dae-index3 --method ida:ls=klu,order=amd --rtol 1e-6 --atol 1e-6 --tf 0.1 | has 'Jacobian evaluations'; then ok; else bad "ida:ls=klu,order=amd"; fi
expect 2 "order=amd, colamd, nd" -- run --problem pendulum --formulation dae-ggl --method ida:ls=klu,order=metis --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "order=nested: bad ordering" -- run --problem chain:N=50,init=2 --formulation dae-ggl --method ida:ls=klu,order=nested --rtol 1e-6 --atol 1e-6 --tf 0.01
if "$chs" run --problem chain:N=100,init=2,vel=thermal --formulation dae-ggl --method ida:ls=klu,order=nd --rtol 1e-6 --atol 1e-6 --tf 0.01 | has 'Jacobian evaluations'; then ok; else bad "ida:ls=klu,order=nd"; fi
expect 2 "order= is for ls=klu only" -- run --problem pendulum --formulation dae-ggl --method ida:ls=dense,order=amd --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "too large for the dense linear solver" -- run --problem pendulum-chain:N=5000 --formulation standard --method cvode:bdf:ls=dense --rtol 1e-6 --atol 1e-6 --tf 0.01
expect 2 "too large for the dense linear solver" -- run --problem pendulum-chain:N=5000 --formulation dae-ggl --method ida:ls=dense --rtol 1e-6 --atol 1e-6 --tf 0.01
expect 2 "bad preconditioner" -- run --problem pendulum --formulation standard --method cvode:bdf:ls=spgmr,prec=ilu --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "prec= is for ls=spgmr only" -- run --problem pendulum --formulation standard --method cvode:bdf:prec=sparse --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "prec=sparse needs" -- run --problem andrews --formulation standard --method cvode:bdf:ls=spgmr,prec=sparse --rtol 1e-6 --atol 1e-6 --tf 0.01
if "$chs" run --problem chain:N=200,init=2,vel=thermal --formulation standard --method cvode:bdf:ls=spgmr,prec=sparse --rtol 1e-6 --atol 1e-6 --tf 0.05 | has 'per Newton iteration'; then ok; else bad "cvode:bdf:ls=spgmr,prec=sparse"; fi
if "$chs" run --problem chain:N=200,init=2,vel=thermal --formulation dirac --method cvode:bdf:ls=spgmr --rtol 1e-6 --atol 1e-6 --tf 0.05 --json | has '"lin_iters_per_newton"'; then ok; else bad "run spgmr --json lin_iters"; fi
for m in cvode:bdf:ls=band cvode:bdf:ls=klu cvode:bdf:ls=spgmr; do
  if "$chs" run --problem pendulum-chain:N=4 --formulation standard --method $m --rtol 1e-6 --atol 1e-6 --tf 1 --json | has '"jac_evals"'; then ok; else bad "run $m"; fi
done
if [[ $("$chs" compare --problem pendulum --formulations standard,dirac --method cvode:bdf:ls=klu --tols 1e-5:1e-7:3 --tf 2 --project both | grep -cE '^(standard|dirac) ') -eq 12 ]]; then ok; else bad "compare --tols with ls=klu"; fi

# compare --tols: a sweep table, rows for each formulation x projection x tolerance.
# --json gives one object with a run per formulation x tolerance; a problem without a reference
# solution gets a computed one (as workprec's); every size of problem.
"$chs" compare --problem pendulum --formulations standard,dirac --method erk:dp5 --tols 1e-4:1e-6:2 --tf 1 --json >"$tmp/cmpsw.json"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"]; assert len(r)==4 and all(x["status"]=="ok" and len(x["err_q"])==2 and max(x["err_q"]+x["err_p"])<1e-3 for x in r)' "$tmp/cmpsw.json"; then ok; else bad "compare --tols --json: $(head -c 300 "$tmp/cmpsw.json")"; fi
if XDG_CACHE_HOME="$tmp/xdgc" "$chs" compare --problem double-pendulum --formulations dirac --method erk:dp5 --tols 1e-6:1e-6:1 --tf 1 | head -1 | has 'computed, est. error'; then ok; else bad "compare --tols computes a reference"; fi
# The reference cache holds problems of any size (an entry for n = 402 used to overflow its buffer).
XDG_CACHE_HOME="$tmp/xdgb" "$chs" workprec --problem chain:N=134 --configs dirac/erk:dp5 --tols 1e-5:1e-5:1 --tf 0.01 --repeats 1 --out "$tmp/wpbig" >/dev/null 2>"$tmp/err"
if ls "$tmp"/xdgb/chs/references/ref-*.txt >/dev/null 2>&1 && ! grep -q 'not cached' "$tmp/err"; then ok; else bad "reference cache for n = 402: $(cat "$tmp/err")"; fi
# CSV values in round-trip precision (17 significant digits), not %.6g.
if awk -F, 'NR == 2 { exit !(length($6) > 12) }' "$tmp/wpbig/workprec.csv"; then ok; else bad "workprec CSV precision: $(sed -n 2p "$tmp/wpbig/workprec.csv")"; fi
if [[ $("$chs" compare --problem pendulum --formulations standard,dirac --method cvode:bdf --tols 1e-5:1e-7:3 --tf 2 --project both | grep -cE '^(standard|dirac) ') -eq 12 ]]; then ok; else bad "compare --tols"; fi

# Benchmarks: a bad name or option is an input error; the JSON names every formulation.
expect 2 "nosuch" -- bench nosuch
if [[ $("$chs" bench dae --json | grep -c '"target_error"') -eq 20 ]]; then ok; else bad "bench dae --json"; fi
expect 2 "--evals" -- bench rhs --evals 0
if "$chs" bench rhs --evals 200 --json | grep -c '"ratio_to_standard"' | has -x "$(( $("$chs" list formulations | grep -vc '^dae-') * $("$chs" list problems | sed "/^first-order/,\$d" | grep -c '^[a-z]') ))"; then ok; else bad "bench rhs --json"; fi
# bench rhs --problem/--baseline: every problem validated before any timing; one row per
# formulation and problem, the baseline's included
expect 2 "'nosuch'" -- bench rhs --problem pendulum --problem nosuch
expect 2 "length=-1" -- bench rhs --problem pendulum --baseline pendulum:length=-1
expect 2 "--baseline" -- bench rhs --baseline pendulum
expect 2 "--problem" -- bench dae --problem pendulum
expect 2 "--tf" -- bench rhs --tf 1
expect 2 "'nosuch'" -- bench dae --problem nosuch --tf 1
# bench dae on one problem (every new mechanism runs through it): the heavy top's exact
# steady precession as the reference, one row per target error 1e-4 .. 1e-8
"$chs" bench dae --problem heavy-top:steady=1 --tf 2 --json >"$tmp/bdae.json"
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["results"]; assert len(r)==5 and all(x["problem"]=="heavy-top:steady=1" for x in r)' "$tmp/bdae.json"; then ok; else bad "bench dae --problem heavy-top: $(head -c 300 "$tmp/bdae.json")"; fi
if "$chs" bench rhs --problem pendulum --baseline pendulum --evals 200 --json | grep -c '"ratio_to_baseline": [0-9]' | has -x "$(( 2 * $("$chs" list formulations | grep -vc '^dae-') ))"; then ok; else bad "bench rhs --problem --baseline --json"; fi

# Reproduction of [Seiler, Dirac] Sec. 6: JSON shape, Table 1 and the growth claims computed as holding,
# plots written.
expect 2 "nosuch" -- reproduce nosuch
if "$chs" list experiments | has '^seiler-dirac-pendulum'; then ok; else bad "list experiments"; fi
"$chs" reproduce seiler-dirac-pendulum --json --plot-dir "$tmp/plots" >"$tmp/rep.json"
for key in '"experiment": "seiler-dirac-pendulum"' '"rows": \[' '"claims": \[' '"quantity": ' '"paper": ' '"ours": '; do
  if grep -q "$key" "$tmp/rep.json"; then ok; else bad "reproduce JSON lacks $key"; fi
done
for claim in 'Table 1 is reproduced' 'only the Hamilton-Dirac integration stays meaningful' \
  'ham and dir: quadratic growth' 'dir: the constraint residuals grow linearly'; do
  if grep -F "$claim" "$tmp/rep.json" | has '"holds": true'; then ok; else bad "claim '$claim' does not hold"; fi
done
if grep -qi '"ours": nan' "$tmp/rep.json"; then bad "NaN in reproduce JSON"; else ok; fi
if [[ $(ls "$tmp/plots"/*.png 2>/dev/null | wc -l) -eq 4 ]]; then ok; else bad "reproduce wrote $(ls "$tmp/plots" | wc -l) files, want 4 PNG"; fi

# [Seiler, Faddeev-Jackiw] Sec. 6 Table 1: the paper's own claims hold.
"$chs" reproduce seiler-fj-pendulum --json >"$tmp/fj.json"
for claim in 'the stabilising effect occurs at any step size' 'five orders of magnitude'; do
  if grep -F "$claim" "$tmp/fj.json" | has '"holds": true'; then ok; else bad "fj claim '$claim' does not hold"; fi
done

# [Leimkuhler & Reich] Sec. 3: saddle vs centre under the implicit midpoint rule.
"$chs" reproduce leimkuhler-reich-stability --json >"$tmp/lr.json"
for claim in "simplified system's (eta = 0) constraint residuals grow very rapidly" "keeps the residuals bounded"; do
  if grep -F "$claim" "$tmp/lr.json" | has '"holds": true'; then ok; else bad "claim '$claim' does not hold"; fi
done

# [Seiler, stable] Sec. 8: impetus growth at the rate (51) predicts.
"$chs" reproduce seiler-impetus --json >"$tmp/imp.json"
for claim in "n grows on average at the rate (51) predicts" "stays on its circle" "resetting the impetuses"; do
  if grep -F "$claim" "$tmp/imp.json" | has '"holds": true'; then ok; else bad "claim '$claim' does not hold"; fi
done

# [Leimkuhler & Reich] Sec. 2: canonical SSF, exact constraints, bounded energy in one chart.
"$chs" reproduce leimkuhler-reich-ssf --json >"$tmp/ssf.json"
for claim in "preserves the constraints exactly" "bounded energy error (one chart"; do
  if grep -F "$claim" "$tmp/ssf.json" | has '"holds": true'; then ok; else bad "claim '$claim' does not hold"; fi
done

# [Seiler, stable] Sec. 8: momentum projections.
"$chs" reproduce seiler-momentum-projection --json >"$tmp/mp.json"
for claim in "only 155 momentum projections" "momentum projections reduce the energy error" "one spike at f = 1/T"; do
  if grep -F "$claim" "$tmp/mp.json" | has '"holds": true'; then ok; else bad "claim '$claim' does not hold"; fi
done

# [Seiler, Dirac] Sec. 11: dirac needs the fewest projections.
"$chs" reproduce seiler-dirac-projections --json >"$tmp/dp.json"
if grep -F "needs the fewest projections" "$tmp/dp.json" | has '"holds": true'; then ok; else bad "dirac projections claim"; fi

# [Seiler, Dirac] Sec. 7: the chain molecule.
"$chs" reproduce seiler-dirac-chain --json >"$tmp/chain.json"
for claim in "total linear momentum is preserved" "conserves the energy almost an order of magnitude better"; do
  if grep -F "$claim" "$tmp/chain.json" | has '"holds": true'; then ok; else bad "chain claim '$claim' does not hold"; fi
done

# [Leimkuhler & Reich] Sec. 4: midpoint projection is unstable, endpoint projection is not.
if "$chs" reproduce leimkuhler-reich-projection --json | grep -F "midpoint projection shows an evident instability" | has '"holds": true'; then ok; else bad "midpoint projection claim"; fi

# JSON: every key of the contract; [Seiler, Dirac] Sec. 6 (RK4, h = 0.1, t in [0, 100]).
keys="problem formulation method sundials_version t_final steps rhs_evals jac_evals proj_position
proj_momentum energy_err_max energy_err_final pos_res_max pos_res_final mom_res_max mom_res_final
int_err_final int_err_max wall_s"
"$chs" run --problem pendulum --formulation dirac --method erk:rk4 --h 0.1 --tf 100 --json >"$tmp/dirac.json"
"$chs" run --problem pendulum --formulation standard --method erk:rk4 --h 0.1 --tf 100 --json >"$tmp/std.json"
for k in $keys; do
  if [[ $(grep -c "\"$k\":" "$tmp/dirac.json") -eq 1 ]]; then ok; else bad "JSON key $k"; fi
done
nkeys=$(grep -c '^  "[a-z_]*":' "$tmp/dirac.json")
# --problem NAME:help prints the problem's parameters (built-in and plugin), exit 0; unknown: 2
if "$chs" run --problem heavy-top:help | has 'steady=0'; then ok; else bad "run --problem heavy-top:help"; fi
if "$chs" compare --problem pendulum:help | has 'gscale=0.5'; then ok; else bad "compare --problem pendulum:help"; fi
expect 2 "'nosuch'" -- run --problem nosuch:help
# energy_err is relative to |H(0)|, absolute when H(0) = 0 (the output says which)
if has '"energy_err_kind": "relative"' "$tmp/dirac.json" &&
  "$chs" run --problem pendulum:py=0 --formulation dirac --method erk:rk4 --h 0.1 --tf 1 --json | has '"energy_err_kind": "absolute"'; then ok; else bad "energy_err_kind"; fi
if [[ $nkeys -eq 28 ]]; then ok; else bad "JSON has $nkeys keys, the contract has 28 (with q_final, p_final, energy_err_kind, cpu_s, cpu_per_step_s, cpu_system_s, page_faults, peak_rss_bytes, warnings)"; fi
# the cost keys: CPU time positive, per step = cpu_s / steps, the kernel's part of it in
# [0, cpu_s], page faults a count, peak resident size above 1 MB
cost_ok='import json,sys; j=json.load(open(sys.argv[1])); c=j["cpu_s"]; k=j["cpu_system_s"]; f=j["page_faults"]; assert c>0 and abs(j["cpu_per_step_s"]*j["steps"]-c)<=1e-12*c and 0<=k<=c and isinstance(f,int) and f>=int(sys.argv[2]) and j["peak_rss_bytes"]>2**20'
if python3 -c "$cost_ok" "$tmp/dirac.json" 0; then ok; else bad "cost keys cpu_s, cpu_per_step_s, cpu_system_s, page_faults, peak_rss_bytes"; fi
# a run that allocates tens of MB (IDA + KLU on 2000 links) touches fresh pages: page faults counted
"$chs" run --problem pendulum-chain:N=2000 --formulation dae-ggl --method ida:ls=klu --rtol 1e-6 --atol 1e-6 --tf 0.01 --json >"$tmp/pc-cost.json"
if python3 -c "$cost_ok" "$tmp/pc-cost.json" 100; then ok; else bad "page faults of an IDA + KLU run"; fi
# the peak resident size is this run's, not its parent's: started from a process that holds
# 400 MB (getrusage's ru_maxrss keeps the parent's size across exec), a pendulum run is small
big_parent='import json,subprocess,sys; b=bytearray(400<<20); b[::4096]=b"x"*len(b[::4096]); j=json.loads(subprocess.run(sys.argv[1:],capture_output=True,text=True,check=True).stdout); assert 2**20<j["peak_rss_bytes"]<100e6, j["peak_rss_bytes"]'
if python3 -c "$big_parent" "$chs" run --problem pendulum --formulation dirac --method erk:rk4 --h 0.1 --tf 1 --json; then ok; else bad "peak_rss_bytes of a run started from a 400 MB process"; fi
if "$chs" run --problem pendulum --formulation dirac --method erk:rk4 --h 0.1 --tf 1 | has '^  cost           CPU [0-9.e+-]* s, [0-9.e+-]* ms per step, [0-9]* % in the kernel ([0-9]* page faults); peak resident [0-9.e+-]* MB, [0-9.e+-]* kB per coordinate$'; then ok; else bad "run's cost line"; fi
val() { sed -n "s/^  \"$2\": \\(.*\\),\\{0,1\\}\$/\\1/p" "$1" | tr -d ','; }
ed=$(val "$tmp/dirac.json" int_err_final)
es=$(val "$tmp/std.json" int_err_final)
if awk -v d="$ed" -v s="$es" 'BEGIN { exit !(d < 1 && s > d) }'; then ok; else
  bad "[Seiler, Dirac] Sec. 6: want dirac int_err_final < 1 < standard's; got dirac $ed, standard $es"
fi
# The Hamilton-Dirac equations do not depend on how the constraint is scaled: [Leimkuhler & Reich]'s
# g = x^2 + y^2 - 1 (gscale=1) gives the same trajectory as [Seiler, Dirac]'s (x^2 + y^2 - 1)/2.
"$chs" run --problem pendulum:gscale=1 --formulation dirac --method erk:rk4 --h 0.1 --tf 100 --json >"$tmp/g1.json"
e1=$(val "$tmp/g1.json" int_err_final)
if awk -v a="$ed" -v b="$e1" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-10 * a) }'; then ok; else
  bad "dirac depends on the constraint scaling: $ed vs $e1"
fi
if [[ $(val "$tmp/dirac.json" steps) -eq 1000 ]]; then ok; else bad "steps != 1000"; fi
if grep -qi nan "$tmp/dirac.json" "$tmp/std.json"; then bad "NaN in JSON"; else ok; fi

# CSV: header plus one row per output time.
"$chs" "${run[@]}" --h 0.1 --tf 1 --out "$tmp/run.csv" >/dev/null
rows=$(($(wc -l <"$tmp/run.csv") - 1))
if [[ $rows -eq 11 ]]; then ok; else bad "CSV has $rows rows, want 11 (t = 0, 0.1, ..., 1)"; fi
if head -1 "$tmp/run.csv" | has '^t,x,y,p_x,p_y,energy,energy_err,pos_res,mom_res,int_err$'; then ok; else bad "CSV header"; fi

# A run that fails numerically: exit 3, message, CSV with complete rows only, no NaN, no temp file.
"$chs" run --problem pendulum --formulation standard --method erk:rk4 --h 2.5 --tf 1000 \
  --out "$tmp/fail.csv" >"$tmp/out" 2>"$tmp/err"
st=$?
if [[ $st -eq 3 ]]; then ok; else bad "blow-up run exit $st, want 3: $(cat "$tmp/err")"; fi
if [[ -s $tmp/err ]]; then ok; else bad "blow-up run printed no message"; fi
if [[ -f $tmp/fail.csv ]] && awk -F, 'NR == 1 { n = NF } NF != n { exit 1 }' "$tmp/fail.csv"; then ok; else
  bad "failed run left an incomplete CSV"
fi
if grep -qiE 'nan|inf' "$tmp/fail.csv" "$tmp/out"; then bad "NaN/Inf written"; else ok; fi
if ls "$tmp" | has '\.tmp\.'; then bad "temporary CSV left behind"; else ok; fi
# A damped problem (slider-crank: non-conservative force): formulations and methods built on the
# Hamiltonian refuse it (exit 2, naming why); the others run it; bad parameters are named.
expect 2 "non-conservative" -- run --problem slider-crank --formulation extended --method erk:dp5 --rtol 1e-8 --atol 1e-10 --tf 1
expect 2 "rattle" -- run --problem slider-crank --formulation standard --method rattle --h 0.01 --tf 1
# the constrained steppers keep g and psi themselves: --project is refused, not silently ignored
expect 2 "rattle keeps the constraints" -- run --problem pendulum --formulation standard --method rattle --h 0.01 --tf 0.1 --project both
expect 2 "takes no --project" -- run --problem pendulum --formulation standard --method sprk:leapfrog_2_2 --h 0.01 --tf 0.1 --project momentum
expect 2 "takes no --project" -- run --problem pendulum --formulation standard --method lobatto:3 --h 0.01 --tf 0.1 --project position
if "$chs" run --problem slider-crank --formulation dirac --method erk:dp5 --rtol 1e-8 --atol 1e-10 --tf 1 --json | has -E '"pos_res_max": [0-9.]+e-(09|1[0-9])'; then ok; else bad "slider-crank dirac run"; fi
expect 2 "non-conservative" -- run --problem slider-crank --formulation dae-ggl --method ida:jac=analytic --rtol 1e-6 --atol 1e-8 --tf 0.1
for m in lobatto:3 alpha-prk:3 sprk:leapfrog_2_2; do
  expect 2 "non-conservative" -- run --problem slider-crank --formulation standard --method "$m" --h 0.01 --tf 0.1
done
expect 2 "l = 1" -- run --problem slider-crank:l=1 --formulation dirac --method erk:dp5 --h 0.01 --tf 1
expect 2 "c=-1" -- run --problem slider-crank:c=-1 --formulation dirac --method erk:dp5 --h 0.01 --tf 1
# The modified Hamiltonian (52): impetus only; a bad choice is named.
expect 2 "use impetus" -- run --problem pendulum:hamiltonian=modified --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "bogus" -- run --problem pendulum:hamiltonian=bogus --formulation impetus --method erk:rk4 --h 0.1 --tf 1
expect 0 "" -- run --problem pendulum:hamiltonian=modified --formulation impetus --method erk:rk4 --h 0.1 --tf 1
# Singular Gram matrix: the pendulum at its pivot (length 1e-300, so the state is consistent):
# found when the problem is created, before any integration: exit 2 naming the cause (a Gram
# matrix that becomes singular during a run is exit 3: test/fault_plugin_test.sh).
expect 2 "singular Gram" -- run --problem pendulum:x=0,y=0,py=0,length=1e-300 --formulation dirac --method erk:rk4 --h 0.1 --tf 1
# Unwritable output path: exit 2, nothing written.
expect 2 "/nonexistent/dir/x.csv" -- "${run[@]}" --h 0.1 --tf 1 --out /nonexistent/dir/x.csv

# sprk and midpoint: unknown tables and options are input errors; fixed step only.
sp=(run --problem pendulum --formulation standard)
expect 2 "nosuch_4_4" -- "${sp[@]}" --method sprk:nosuch_4_4 --h 0.1 --tf 1
expect 2 "bogus" -- "${sp[@]}" --method sprk:leapfrog_2_2:bogus --h 0.1 --tf 1
expect 2 "--h" -- "${sp[@]}" --method sprk:ARKODE_SPRK_MCLACHLAN_4_4 --rtol 1e-6 --atol 1e-6 --tf 1
expect 2 "" -- "${sp[@]}" --method sprk:leapfrog_2_2 --tf 1
expect 2 "midpoint:bogus" -- "${sp[@]}" --method midpoint:bogus --h 0.1 --tf 1
expect 0 "" -- "${sp[@]}" --method sprk:ARKODE_SPRK_YOSHIDA_6_8 --h 0.1 --tf 1
expect 0 "" -- run --problem pendulum --formulation dirac --method midpoint:fixed:tol=1e-5 --h 0.1 --tf 1
if "$chs" list methods | has 'sprk:ARKODE_SPRK_SOFRONIOU_10_36'; then ok; else bad "list methods sprk"; fi
if "$chs" list methods | has 'midpoint:fixed'; then ok; else bad "list methods midpoint"; fi
# --wedge: the key only when requested; fixed step only.
expect 2 "--h" -- run --problem pendulum --formulation dirac --method erk:dp5 --rtol 1e-6 --atol 1e-6 --tf 1 --wedge
"$chs" "${sp[@]}" --method rattle --h 0.01 --tf 1 --wedge --json >"$tmp/wedge.json" 2>"$tmp/err"
if grep -qE '"wedge_err_max": [0-9]' "$tmp/wedge.json"; then ok; else bad "--wedge JSON: $(cat "$tmp/wedge.json" "$tmp/err")"; fi
if grep -q '"wedge_linearisation": "tangent-map"' "$tmp/wedge.json"; then ok; else bad "rattle --wedge: not its tangent map"; fi
# alpha-prk: the tangent map (finite differences leave its energy root); erk: differences
"$chs" "${sp[@]}" --method alpha-prk:4 --h 0.01 --tf 0.5 --wedge --json >"$tmp/wedge.json" 2>"$tmp/err"
if grep -q '"wedge_linearisation": "tangent-map"' "$tmp/wedge.json"; then ok; else bad "alpha-prk --wedge: $(cat "$tmp/err")"; fi
"$chs" "${sp[@]}" --method erk:rk4 --h 0.01 --tf 0.5 --wedge --json >"$tmp/wedge.json" 2>"$tmp/err"
if grep -q '"wedge_linearisation": "finite-differences"' "$tmp/wedge.json"; then ok; else bad "erk --wedge: $(cat "$tmp/err")"; fi
# stage projection every k steps (not every k-th stage evaluation), also in the wedge's step maps
if "$chs" run --problem pendulum --formulation extended --method gauss:1:stage --project both --project-every 2 --h 0.05 --tf 1 --wedge >"$tmp/out" 2>&1; then ok; else bad "gauss:1:stage --project-every 2: $(tail -1 "$tmp/out")"; fi
# lobatto's dense stage Newton matrix: too large a system is refused with its size; the default
# switches to the structured Newton there; a bad newton= value is named
expect 2 "7998 unknowns" -- run --problem chain:N=1000 --formulation standard --method lobatto:3:newton=dense --h 0.005 --tf 0.01
if "$chs" run --problem chain:N=1000 --formulation standard --method lobatto:3 --h 0.005 --tf 0.01 --json | has -E '"pos_res_max": [0-9.]+e-1[3-9]'; then ok; else bad "lobatto:3 on a 1000-atom chain (structured Newton)"; fi
expect 2 "newton=lu" -- run --problem pendulum --formulation standard --method lobatto:3:newton=lu --h 0.01 --tf 0.1
expect 2 "newton=lu" -- run --problem pendulum --formulation standard --method alpha-prk:3:newton=lu --h 0.01 --tf 0.1
"$chs" "${sp[@]}" --method rattle --h 0.01 --tf 1 --json >"$tmp/nowedge.json"
if grep -q wedge "$tmp/nowedge.json"; then bad "wedge_err_max without --wedge"; else ok; fi

# IDA: the contract's keys plus the nonlinear solver's work; ERK runs keep exactly the contract.
"$chs" run --problem pendulum --formulation dae-index3 --method ida --rtol 1e-6 --atol 1e-6 --tf 2 --json >"$tmp/ida.json" 2>"$tmp/err"
for k in $keys nonlin_iters nonlin_conv_fails err_test_fails; do
  if [[ $(grep -c "\"$k\":" "$tmp/ida.json") -eq 1 ]]; then ok; else bad "ida JSON key $k: $(cat "$tmp/ida.json" "$tmp/err")"; fi
done
if [[ $(val "$tmp/ida.json" nonlin_iters) -ge $(val "$tmp/ida.json" steps) ]]; then ok; else bad "ida: fewer Newton iterations than steps"; fi

# First-order Lagrangians (chs/first_order.h): fj-example, [Seiler, Faddeev-Jackiw] (29)-(36).
if "$chs" list problems | sed -n '/^first-order/,$p' | has '^fj-example'; then ok; else bad "list problems: first-order section"; fi
fo=(run --problem fj-example --method erk:rk4)
"$chs" "${fo[@]}" --h 0.1 --tf 10 --json >"$tmp/fo.json" 2>"$tmp/err"
for k in $keys; do
  if [[ $(grep -c "\"$k\":" "$tmp/fo.json") -eq 1 ]]; then ok; else bad "first-order JSON key $k"; fi
done
if [[ $(val "$tmp/fo.json" steps) -eq 100 ]]; then ok; else bad "fj-example steps != 100"; fi
if awk -v e="$(val "$tmp/fo.json" int_err_max)" 'BEGIN { exit !(e < 1e-12) }'; then ok; else
  bad "fj-example: RK4 is not exact on (36): $(cat "$tmp/fo.json" "$tmp/err")"
fi
if grep -q '"formulation": null' "$tmp/fo.json" && ! grep -qi nan "$tmp/fo.json"; then ok; else bad "fj-example JSON"; fi
"$chs" run --problem fj-example:c=0.1 --method erk:dp5 --rtol 1e-8 --atol 1e-10 --tf 10 >"$tmp/fo.txt" 2>"$tmp/err"
if grep -q '|z-ref|' "$tmp/fo.txt"; then ok; else bad "fj-example text: $(cat "$tmp/fo.txt" "$tmp/err")"; fi
expect 2 "singular at t = 0" -- run --problem fj-example:extended=0 --method erk:rk4 --h 0.1 --tf 1
expect 2 "extended=2" -- run --problem fj-example:extended=2 --method erk:rk4 --h 0.1 --tf 1
expect 2 "k=abc" -- run --problem fj-example:k=abc --method erk:rk4 --h 0.1 --tf 1
expect 2 "c=0.5" -- run --problem fj-example:extended=0,c=0.5 --method erk:rk4 --h 0.1 --tf 1
expect 2 "bogus" -- run --problem fj-example:bogus=1 --method erk:rk4 --h 0.1 --tf 1
expect 2 "cvode:bdf" -- run --problem fj-example --method cvode:bdf --h 0.1 --tf 1
expect 2 "erk:nosuch" -- run --problem fj-example --method erk:nosuch --h 0.1 --tf 1
expect 2 "--formulation" -- run --problem fj-example --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "first-order" -- compare --problem fj-example --formulations dirac --method erk:rk4 --h 0.1 --tf 1
"$chs" reproduce seiler-fj-example --json >"$tmp/fjex.json"
if [[ $(grep -c '"holds": true' "$tmp/fjex.json") -eq 5 ]] && ! grep -q '"holds": false' "$tmp/fjex.json"; then ok; else bad "seiler-fj-example claims"; fi


# Outputs. Output paths are refused (exit 2, naming the path) before any integration:
# these runs would take hours, `timeout` fails them if they start.
long=(run --problem pendulum --formulation dirac --method erk:rk4 --h 1e-3 --tf 1e9 --max-steps 1000000000000)
touch "$tmp/afile"
for p in "$tmp" . / "" "$tmp/sub/" /dev/null/x.csv; do
  expect 2 "--out $p" -- "${long[@]}" --out "$p"
done
# A character device is written into when the output is complete (docs/cli.md "Output files"):
# /dev/full fails that write (exit 3, naming the path); a link to it stays a link.
ln -s /dev/full "$tmp/full.csv"
expect 3 "$tmp/full.csv" -- run --problem pendulum --formulation dirac --method erk:rk4 --h 0.1 --tf 1 --out "$tmp/full.csv"
if [[ -L $tmp/full.csv ]]; then ok; else bad "symlink to /dev/full replaced"; fi
expect 2 "--plot-dir $tmp/afile" -- reproduce seiler-dirac-pendulum --plot-dir "$tmp/afile"
wpl=(workprec --problem double-pendulum --configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --tf 1e6 --repeats 1)
expect 2 "--cache-dir /dev/null/cache" -- "${wpl[@]}" --cache-dir /dev/null/cache
expect 2 "--cache-dir $tmp/afile" -- "${wpl[@]}" --cache-dir "$tmp/afile"
expect 2 "--out" -- "${wpl[@]}" --no-cache --out ""
# A bad configuration is refused before --out is created or the reference computed.
expect 2 "erk:nosuch" -- workprec --problem double-pendulum --tols 1e-4:1e-6:2 --tf 1e6 --repeats 1 --configs dirac/erk:dp5,dirac/erk:nosuch --cache-dir "$tmp/rc-bad" --out "$tmp/wp-bad"
if [[ ! -e $tmp/wp-bad && ! -e $tmp/rc-bad ]]; then ok; else bad "workprec created outputs before refusing a configuration"; fi
timeout 20 "$chs" "${wpl[@]}" --out "$tmp/afile" >/dev/null 2>"$tmp/err"
st=$?
if [[ $st -eq 2 ]] && grep -qF -- "--out $tmp/afile" "$tmp/err"; then ok; else bad "workprec --out FILE: exit $st"; fi

# Write errors are errors (exit 3, naming the file) and leave no file and no temporary: a file
# size limit (ulimit -f, in 1024-byte blocks) with SIGXFSZ ignored makes the writes fail (EFBIG).
# Standard output to /dev/null, standard error through a pipe (neither counts against the limit).
fsz() {
  local lim=$1
  shift
  (trap '' XFSZ; ulimit -f "$lim"; exec "$chs" "$@") 2>&1 >/dev/null | cat >"$tmp/err"
  return "${PIPESTATUS[0]}"
}
fsz 1 run --problem pendulum --formulation dirac --method erk:rk4 --h 0.01 --tf 10 --out "$tmp/big.csv"
st=$?
if [[ $st -eq 3 ]] && grep -qF "$tmp/big.csv" "$tmp/err"; then ok; else bad "CSV write error: exit $st: $(cat "$tmp/err")"; fi
if [[ ! -e $tmp/big.csv ]] && ! ls "$tmp" | has 'big\.csv\.tmp'; then ok; else bad "CSV write error left files"; fi
# The same limit without ignoring SIGXFSZ: the signal ends chs, its temporary file is removed.
{ (ulimit -f 1; exec "$chs" run --problem pendulum --formulation dirac --method erk:rk4 --h 0.01 --tf 10 --out "$tmp/big2.csv") >/dev/null 2>&1; } 2>/dev/null
st=$?
if [[ $st -eq $((128 + $(kill -l XFSZ))) ]]; then ok; else bad "SIGXFSZ: exit $st"; fi
if [[ ! -e $tmp/big2.csv ]] && ! ls "$tmp" | has 'big2\.csv\.tmp'; then ok; else bad "SIGXFSZ left files"; fi
# Plots: the PNGs exceed the limit; gnuplot's truncated PNG is not taken for a plot.
fsz 4 workprec --problem pendulum --configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --tf 1 --repeats 1 --no-cache --out "$tmp/wpfull"
st=$?
if [[ $st -eq 3 ]] && grep -qF "$tmp/wpfull/workprec-evals.png" "$tmp/err"; then ok; else bad "PNG write error: exit $st: $(cat "$tmp/err")"; fi
if [[ -s $tmp/wpfull/workprec.csv && ! -e $tmp/wpfull/workprec-evals.png && ! -e $tmp/wpfull/workprec-wall.png ]] &&
  ! ls -A "$tmp/wpfull" | has '\.tmp\.'; then ok; else bad "PNG write error left files: $(ls -A "$tmp/wpfull")"; fi
# No byte may be written: the CSV fails (exit 3, naming it), nothing is left.
fsz 0 workprec --problem pendulum --configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --tf 1 --repeats 1 --no-cache --out "$tmp/wp0"
st=$?
if [[ $st -eq 3 ]] && grep -qF "$tmp/wp0/workprec.csv" "$tmp/err" && [[ -z $(ls -A "$tmp/wp0") ]]; then ok; else
  bad "workprec CSV write error: exit $st: $(cat "$tmp/err"; ls -A "$tmp/wp0")"
fi
# A reference cache entry that cannot be written: exit 3 naming it.
fsz 0 workprec --problem double-pendulum --configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --tf 1 --repeats 1 --cache-dir "$tmp/rc0"
st=$?
if [[ $st -eq 3 ]] && grep -qF "$tmp/rc0/ref-" "$tmp/err" && [[ -z $(ls -A "$tmp/rc0") ]]; then ok; else
  bad "cache write error: exit $st: $(cat "$tmp/err"; ls -A "$tmp/rc0")"
fi
# The standard output is an output too.
"$chs" workprec --problem pendulum --configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --tf 1 --repeats 1 --no-cache >/dev/full 2>"$tmp/err"
st=$?
if [[ $st -eq 3 ]] && grep -q 'standard output' "$tmp/err"; then ok; else bad "workprec >/dev/full: exit $st"; fi
"$chs" reproduce seiler-fj-example >/dev/full 2>"$tmp/err"
st=$?
if [[ $st -eq 3 ]] && grep -q 'standard output' "$tmp/err"; then ok; else bad "reproduce >/dev/full: exit $st"; fi

# workprec --tols: every number finite and > 0, COUNT 1 .. 32; the message names the value.
wpt=(workprec --problem pendulum --configs dirac/erk:dp5 --tf 1 --no-cache --tols)
for bad_tols in 1e-4:1e-6:4294967297 1e-4:1e-6:33 1e-4:1e-6:0 1e-4:1e-6:-2 inf:1e-6:2 1e400:1e-6:2 \
  -1e-4:1e-6:2 0:1e-6:2 1e-4:nan:2 1e-4:1e-400:2 1e-4:1e-6:2x 1e-4:1e-6:2:3 1e-4::2 :1e-6:2; do
  expect 2 "$bad_tols" -- "${wpt[@]}" "$bad_tols"
done
expect 2 "4294967297" -- "${wpt[@]}" 1e-4:1e-6:4294967297
expect 2 "1e400" -- "${wpt[@]}" 1e400:1e-6:2

# Temporary files: created with the usual permissions (0666 & ~umask, not mkstemp's 0600)...
(umask 002; "$chs" "${run[@]}" --h 0.1 --tf 1 --out "$tmp/perm.csv" >/dev/null)
if [[ $(stat -c %a "$tmp/perm.csv") == 664 ]]; then ok; else bad "CSV mode $(stat -c %a "$tmp/perm.csv"), want 664"; fi
(umask 027; "$chs" workprec --problem pendulum --configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --tf 1 --repeats 1 --no-cache --out "$tmp/wpperm" >/dev/null)
if [[ $(stat -c %a "$tmp/wpperm/workprec.csv" "$tmp/wpperm/workprec-evals.png" | sort -u) == 640 ]]; then ok; else
  bad "workprec output modes $(stat -c %a "$tmp/wpperm"/*), want 640"
fi
# ... and removed when chs is ended by SIGTERM or SIGINT (then the conventional status 128 + sig).
for sig in TERM INT; do
  rm -f "$tmp"/sig.csv*
  env --default-signal=INT "$chs" "${long[@]}" --out "$tmp/sig.csv" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    if compgen -G "$tmp/sig.csv.tmp.*" >/dev/null; then break; fi
    sleep 0.05
  done
  sleep 0.2
  kill -s "$sig" "$pid"
  wait "$pid"
  st=$?
  if [[ $st -eq $((128 + $(kill -l "$sig"))) ]]; then ok; else bad "SIG$sig: exit $st"; fi
  if [[ ! -e $tmp/sig.csv ]] && ! compgen -G "$tmp/sig.csv.tmp.*" >/dev/null; then ok; else
    bad "SIG$sig left $(ls "$tmp" | grep sig.csv)"
  fi
done

# workprec's input-error paths free everything (valgrind, where installed; not under ASan).
if [[ $under_valgrind -eq 1 ]]; then
  for args in "--configs dirac/erk:nosuch --tols 1e-4:1e-6:2" "--configs dirac/erk:dp5 --tols 1e-4:1e-6:0" \
    "--configs nosuch/erk:dp5 --tols 1e-4:1e-6:2" "--configs dirac/erk:dp5 --tols 1e-4:1e-6:2 --out $tmp/afile"; do
    # shellcheck disable=SC2086
    valgrind -q --leak-check=full --errors-for-leak-kinds=all --error-exitcode=9 \
      --suppressions="${BASH_SOURCE%/*}/memcheck/valgrind.supp" "$chs" workprec \
      --problem pendulum --tf 1 --no-cache $args >/dev/null 2>"$tmp/err"
    st=$?
    if [[ $st -eq 2 ]]; then ok; else bad "valgrind workprec $args: exit $st: $(head -c 600 "$tmp/err")"; fi
  done
fi
# ---- parsing, range checks, bounded runs: every bad value is exit 2 naming it --------
r12=(run --problem pendulum --formulation dirac --method erk:rk4)
c12=(compare --problem pendulum --formulations dirac --method erk:dp5 --tf 1)
# 5: tolerance sweeps: non-finite, non-positive, bad counts, HI < LO
expect 2 "'inf'" -- "${c12[@]}" --tols inf:1e-6:2
expect 2 "'1e400'" -- "${c12[@]}" --tols 1e400:1e-6:2
expect 2 "'nan'" -- "${c12[@]}" --tols 1e-4:nan:2
expect 2 "'0'" -- "${c12[@]}" --tols 1e-4:0:2
expect 2 "'-1e-4'" -- "${c12[@]}" --tols -1e-4:1e-6:2
expect 2 "'0'" -- "${c12[@]}" --tols 1e-4:1e-6:0
expect 2 "'-3'" -- "${c12[@]}" --tols 1e-4:1e-6:-3
expect 2 "'33'" -- "${c12[@]}" --tols 1e-4:1e-6:33
expect 2 "'2x'" -- "${c12[@]}" --tols 1e-4:1e-6:2x
expect 2 "'1e-4x'" -- "${c12[@]}" --tols 1e-4x:1e-6:2
expect 2 "HI:LO:COUNT" -- "${c12[@]}" --tols 1e-4:1e-6
expect 2 "HI:LO:COUNT" -- "${c12[@]}" --tols 1e-4:1e-6:2:5
expect 2 "HI 1e-06 must be >= LO 0.0001" -- "${c12[@]}" --tols 1e-6:1e-4:2
# 6: integers are range-checked before any narrowing
expect 2 "'4294967297'" -- "${c12[@]}" --tols 1e-4:1e-6:4294967297
expect 2 "gauss:4294967298" -- run --problem pendulum --formulation standard --method gauss:4294967298 --h 0.1 --tf 1
expect 2 "gauss:-1" -- run --problem pendulum --formulation standard --method gauss:-1 --h 0.1 --tf 1
expect 2 "lobatto:4294967299" -- run --problem pendulum --formulation standard --method lobatto:4294967299 --h 0.1 --tf 1
expect 2 "N=4294967298" -- run --problem pendulum-chain:N=4294967298 --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "N=99999999999999999999" -- run --problem pendulum-chain:N=99999999999999999999 --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "'9223372036854775808'" -- "${r12[@]}" --h 0.1 --tf 1 --every 9223372036854775808
expect 2 "'0'" -- "${r12[@]}" --h 0.1 --tf 1 --every 0
expect 2 "'2.5'" -- "${r12[@]}" --h 0.1 --tf 1 --every 2.5
expect 2 "'-1'" -- "${r12[@]}" --h 0.1 --tf 1 --project momentum --project-every -1
expect 2 "'0'" -- "${r12[@]}" --h 0.1 --tf 1 --max-steps 0
expect 2 "'1e6'" -- "${r12[@]}" --h 0.1 --tf 1 --max-steps 1e6
expect 2 "'1000000000001'" -- "${r12[@]}" --h 0.1 --tf 1 --max-steps 1000000000001
expect 2 "'9223372036854775807'" -- bench rhs --evals 9223372036854775807
expect 2 "'99999999999999999999'" -- bench rhs --evals 99999999999999999999
expect 2 "'0'" -- bench rhs --evals 0
expect 2 "'10000001'" -- bench rhs --evals 10000001
expect 2 "--evals" -- bench rhs --evals
expect 2 "--evals" -- bench rhs --evals 10 --evals 20
expect 2 "--evals" -- bench dae --evals 10
expect 2 "'100000000000000000000'" -- bench scale --max-n 100000000000000000000
expect 2 "'200'" -- bench scale --max-n 200
expect 2 "'1e3'" -- bench scale --max-n 1e3
expect 2 "--max-n" -- bench scale --max-n 100 --max-n 10
# 7: exit 2, not 0, on empty lists and extra arguments
expect 2 "--formulations" -- compare --problem pendulum --formulations '' --method erk:rk4 --h 0.1 --tf 1
expect 2 "'dirac,'" -- compare --problem pendulum --formulations dirac, --method erk:rk4 --h 0.1 --tf 1
expect 2 "'dirac,,standard'" -- compare --problem pendulum --formulations dirac,,standard --method erk:rk4 --h 0.1 --tf 1
expect 2 "'dirac' given twice" -- compare --problem pendulum --formulations dirac,dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "'extra'" -- list problems extra
expect 2 "'nosuch'" -- list nosuch
expect 2 "'x'" -- --version x
expect 2 "'extra'" -- bench rhs extra
expect 2 "'nosuch'" -- bench nosuch
expect 2 "'extra'" -- reproduce seiler-fj-example extra
expect 2 "nosuch" -- reproduce nosuch
# 8: bounded runs: --max-steps bounds the whole run; a fixed step that cannot reach tf within it is
# refused up front naming both numbers; an adaptive run stops with exit 3
expect 2 "needs 1.8e+308 steps, more than --max-steps 5000000" -- "${r12[@]}" --h 0.1 --tf 1e308
expect 2 "needs 100 steps, more than --max-steps 50" -- "${r12[@]}" --h 0.1 --tf 10 --max-steps 50
expect 2 "needs 1e+07 steps" -- run --problem pendulum --formulation standard --method gauss:2 --h 1e-7 --tf 1
expect 2 "needs 1e+300 steps" -- "${c12[@]:0:7}" --h 1e-300 --tf 1
expect 3 "too much work: 1000 steps" -- run --problem pendulum --formulation dirac --method erk:dp5 --rtol 1e-6 --atol 1e-6 --tf 1e6 --max-steps 1000
expect 3 "too much work: 1000 steps" -- run --problem pendulum --formulation dae-ggl --method ida --rtol 1e-6 --atol 1e-6 --tf 1e6 --max-steps 1000
expect 0 "" -- "${r12[@]}" --h 0.1 --tf 10 --every 1000 --max-steps 100
# 10: overflowing parameters: an input error at the first evaluation, no NaN time in the message
expect 2 "right-hand side is so large" -- run --problem pendulum:gravity=1e308 --formulation dirac --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 5
expect 2 "initial derivative is so large" -- run --problem pendulum:gravity=1e308 --formulation dae-ggl --method ida --rtol 1e-8 --atol 1e-8 --tf 5
expect 2 "initial derivative is so large" -- run --problem pendulum:gravity=1e150 --formulation dae-ggl --method ida --rtol 1e-8 --atol 1e-8 --tf 5
expect 2 "gravity=1e309" -- run --problem pendulum:gravity=1e309 --formulation dirac --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 5
for f12 in dirac standard; do
  "$chs" run --problem pendulum:gravity=1e308 --formulation $f12 --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 5 >/dev/null 2>"$tmp/err"
  if ! grep -qi nan "$tmp/err" && ! grep -q behind "$tmp/err"; then ok; else bad "gravity=1e308 $f12: $(cat "$tmp/err")"; fi
done
# the option classes: empty, garbage, negative, zero, nan, inf, trailing junk, leading space
expect 2 "'0.1x'" -- "${r12[@]}" --h 0.1x --tf 1
expect 2 "--h needs a non-empty value" -- "${r12[@]}" --h '' --tf 1
expect 2 "' 0.1'" -- "${r12[@]}" --h ' 0.1' --tf 1
expect 2 "'inf'" -- "${r12[@]}" --h 0.1 --tf inf
expect 2 "'-inf'" -- "${r12[@]}" --h 0.1 --tf -inf
expect 2 "'1e400'" -- "${r12[@]}" --h 0.1 --tf 1e400
expect 2 "'nan'" -- "${r12[@]:0:5}" --method erk:dp5 --rtol 1e-6 --atol nan --tf 1
expect 2 "--rtol: '0'" -- "${r12[@]:0:5}" --method erk:dp5 --rtol 0 --atol 1e-6 --tf 1
expect 2 "--project-tol: '-1'" -- "${r12[@]}" --h 0.1 --tf 1 --project momentum --project-tol -1
expect 2 "'abc'" -- "${r12[@]}" --h 0.1 --tf 1 --project position --project-newton-tol abc
expect 2 "--out needs a non-empty value" -- "${r12[@]}" --h 0.1 --tf 1 --out ''
expect 2 "--problem needs a non-empty value" -- run --problem '' --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "--method needs a non-empty value" -- run --problem pendulum --formulation dirac --method '' --h 0.1 --tf 1
expect 2 "--project needs a non-empty value" -- "${r12[@]}" --h 0.1 --tf 1 --project ''
expect 2 "--tf needs a value" -- "${r12[@]}" --h 0.1 --tf
# duplicated options and keys, missing '=', stray commas, unknown keys
expect 2 "--h given twice" -- "${r12[@]}" --h 0.1 --h 0.2 --tf 1
expect 2 "--problem given twice" -- "${r12[@]}" --problem pendulum --h 0.1 --tf 1
expect 2 "--json given twice" -- "${r12[@]}" --h 0.1 --tf 1 --json --json
expect 2 "--tols given twice" -- "${c12[@]}" --tols 1e-4:1e-6:2 --tols 1e-4:1e-6:2
expect 2 "'length' given twice" -- run --problem pendulum:length=1,length=2 --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "'length' has no value" -- run --problem pendulum:length --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "empty item" -- run --problem pendulum:length=1,,mass=1 --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "empty item" -- run --problem pendulum:length=1, --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "'foo'" -- run --problem pendulum --formulation dirac:foo=1 --method erk:rk4 --h 0.1 --tf 1
expect 2 "length=1x" -- run --problem pendulum:length=1x --formulation dirac --method erk:rk4 --h 0.1 --tf 1
# 100 kB specs: refused by length, no truncation into the fixed buffers
big12=$(head -c 100000 /dev/zero | tr '\0' 1)
expect 2 "--problem is too long (100016 bytes" -- run --problem "pendulum:length=$big12" --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 "--method is too long" -- run --problem pendulum --formulation dirac --method "erk:$big12" --h 0.1 --tf 1
expect 2 "--formulation is too long" -- run --problem pendulum --formulation "dirac:$big12" --method erk:rk4 --h 0.1 --tf 1
expect 2 "--formulations is too long" -- compare --problem pendulum --formulations "dirac,$big12" --method erk:rk4 --h 0.1 --tf 1
expect 2 "--out is too long" -- "${r12[@]}" --h 0.1 --tf 1 --out "$tmp/$big12.csv"
expect 2 "--h is too long" -- "${r12[@]}" --h "0.$big12" --tf 1
# non-UTF-8 and terminal control bytes in names: escaped as \xNN in the message
expect 2 'pend\x1b[31mulum\xff' -- run --problem "$(printf 'pend\x1b[31mulum\xff')" --formulation dirac --method erk:rk4 --h 0.1 --tf 1
expect 2 'dir\x0aac' -- run --problem pendulum --formulation "$(printf 'dir\nac')" --method erk:rk4 --h 0.1 --tf 1
expect 2 'erk:\xc3(' -- run --problem pendulum --formulation dirac --method "$(printf 'erk:\xc3\x28')" --h 0.1 --tf 1
"$chs" run --problem "$(printf 'p\x1b]0;x\x07\xc2\x9b')" --formulation dirac --method erk:rk4 --h 0.1 --tf 1 2>"$tmp/err" >/dev/null
if ! LC_ALL=C grep -q "$(printf '[\x01-\x08\x0b-\x1f\x7f]')" "$tmp/err" && ! grep -q "$(printf '\xc2\x9b')" "$tmp/err"; then ok; else bad "control bytes reached the terminal: $(od -c "$tmp/err" | head -3)"; fi
# ---- end of parsing ----

# stdout that cannot be written (a full disk) is a failed output for every subcommand
for args in "run --problem pendulum --formulation dirac --method erk:rk4 --h 0.1 --tf 1 --json" \
            "compare --problem pendulum --formulations standard,dirac --method erk:rk4 --h 0.1 --tf 1" \
            "list problems"; do
  # shellcheck disable=SC2086
  "$chs" $args >/dev/full 2>"$tmp/err"
  st=$?
  if [[ $st -eq 3 ]] && grep -q "standard output" "$tmp/err"; then ok; else bad "$args >/dev/full: exit $st"; fi
done
# workprec's tolerance sweep: the shared parser (no silent truncation of the count)
expect 2 "4294967297" -- workprec --problem pendulum --configs dirac/erk:dp5 --tols 1e-4:1e-6:4294967297 --tf 1 --no-cache
expect 2 "'inf'" -- workprec --problem pendulum --configs dirac/erk:dp5 --tols inf:1e-6:2 --tf 1 --no-cache
# chs check: exit 0 on correct derivatives, 1 naming the wrong callback (stdout), 2 bad input.
expect 0 "" -- check --problem pendulum
expect 0 "" -- check --problem chain:N=20 --points 2 --seed 7
expect 2 "--points" -- check --problem pendulum --points -1
expect 2 "nosuch" -- check --problem nosuch
expect 2 "--problem" -- check
expect 2 "residual" -- check --problem pendulum:x=0.5
"$chs" check --problem pendulum --json >"$tmp/check.json" 2>"$tmp/err"
if grep -q '"pass": true' "$tmp/check.json" && grep -q '"name": "jacobian_dot"' "$tmp/check.json" &&
  ! grep -qi nan "$tmp/check.json"; then ok; else bad "check --json: $(cat "$tmp/check.json" "$tmp/err")"; fi
if [[ -n $plugins ]]; then
  expect 0 "" -- check --problem "$plugins/libchs_example_plugin.so"
  for v in gdot:jacobian_dot hessian:hessian_potential third:constraint_third; do
    "$chs" check --problem "$plugins/libchs_check_plugin_${v%%:*}.so" >"$tmp/check.txt" 2>"$tmp/err"
    st=$?
    if [[ $st -eq 1 ]] && grep -E "^${v#*:} .* FAIL " "$tmp/check.txt" >/dev/null &&
      [[ $(grep -c " FAIL " "$tmp/check.txt") -eq 1 ]]; then ok; else
      bad "check ${v%%:*} plugin: exit $st: $(cat "$tmp/check.txt" "$tmp/err")"
    fi
  done
fi
# No silent zero defaults: the analytic Jacobian of slider-crank (no constraint_third) is refused
# by name; the default uses difference quotients.
expect 2 "constraint_third" -- run --problem slider-crank --formulation dae-index1 --method ida:jac=analytic --rtol 1e-6 --atol 1e-8 --tf 0.1

# References at one time only (andrews: t = 0.03) and problems that some formulations
# refuse (M(q), time dependence): runs with intermediate outputs and bench rhs exit 0.
expect 0 "" -- run --problem andrews --formulation standard --method cvode:bdf --rtol 1e-8 --atol 1e-10 --tf 0.03 --every 5
if grep -q '|(q,p)-ref|    max' "$tmp/out"; then ok; else bad "andrews run to 0.03 reports no reference error"; fi
expect 0 "" -- run --problem andrews --formulation standard --method cvode:bdf --rtol 1e-8 --atol 1e-10 --tf 0.02 --every 5
if grep -q '|(q,p)-ref|    max' "$tmp/out"; then bad "andrews run to 0.02 reports a reference error"; else ok; fi
expect 0 "" -- bench rhs --evals 20
# ---- integrator robustness (src/integrate) ----
# Defect 2: a bad newton= value is refused (exit 2) naming it, without reading uninitialised
# memory (valgrind, when installed, over one bad option per method family).
expect 2 "'foo'" -- run --problem pendulum --formulation standard --method lobatto:3:newton=foo --h 0.01 --tf 1
expect 2 "'foo'" -- run --problem pendulum --formulation standard --method alpha-prk:3:newton=foo --h 0.01 --tf 1
if [[ $under_valgrind -eq 1 ]]; then
  for m in lobatto:3:newton=foo alpha-prk:3:newton=foo alpha-prk:3:alpha=x rattle:foo \
    sprk:leapfrog_2_2:foo gauss:2:foo midpoint:fixed:tol=foo erk:foo dirk:foo; do
    valgrind -q --error-exitcode=9 "$chs" run --problem pendulum --formulation standard \
      --method "$m" --h 0.01 --tf 1 >/dev/null 2>"$tmp/err"
    if [[ $? -eq 2 ]]; then ok; else bad "valgrind chs run --method $m: $(head -c 300 "$tmp/err")"; fi
  done
  for m in cvode:foo cvode:bdf:ls=foo ida:ls=foo ida:ls=klu,jac=foo; do
    valgrind -q --error-exitcode=9 "$chs" run --problem pendulum --formulation standard \
      --method "$m" --rtol 1e-6 --atol 1e-6 --tf 1 >/dev/null 2>"$tmp/err"
    if [[ $? -eq 2 ]]; then ok; else bad "valgrind chs run --method $m: $(head -c 300 "$tmp/err")"; fi
  done
fi
# Defect 15: fixed steps are counted, not accumulated (t += h drifted: 100032 steps for
# --h 0.001 --every 1000 --tf 100, 100073 for --h 0.0003 --every 1000 --tf 30, 100043 with erk).
steps_case() { # METHOD FORMULATION H EVERY TF WANT
  "$chs" run --problem pendulum --formulation "$2" --method "$1" --h "$3" --every "$4" --tf "$5" \
    --json >"$tmp/steps.json" 2>"$tmp/err"
  local got
  got=$(grep -o '"steps": [0-9]*' "$tmp/steps.json" | grep -o '[0-9]*$')
  if [[ $got == "$6" ]]; then ok; else bad "$1 --h $3 --every $4 --tf $5: steps '$got', want $6 $(head -c 200 "$tmp/err")"; fi
}
steps_case rattle standard 0.00125 1 30 24000
steps_case rattle standard 0.001 1000 100 100000
steps_case rattle standard 0.001 10000 100 100000
steps_case rattle standard 0.0003 1000 30 100000
steps_case rattle standard 0.3 1 1 4
steps_case rattle standard 0.3 2 1 4
for m in sprk:leapfrog_2_2 gauss:1 lobatto:2; do
  steps_case $m standard 0.0003 1000 30 100000
  steps_case $m standard 0.3 1 1 4
done
for m in erk:rk4 dirk:midpoint; do
  steps_case $m dirac 0.001 1000 100 100000
  steps_case $m dirac 0.3 1 1 4
done
# Defect 15: small steps of the Lobatto / alpha-PRK stage Newton (stalled at its rounding level,
# which grows like 1/h, and failed advising "reduce --h").
for c in "lobatto:3 0.001" "lobatto:3 0.0005" "lobatto:4 0.001" "alpha-prk:3 0.001"; do
  set -- $c
  steps_case "$1" standard "$2" 100 10 "$(awk -v h="$2" 'BEGIN { printf "%d", 10 / h + 0.5 }')"
done
# Defect 10 (IDA part): an overflowing initial derivative is named (was "tstop = 5 is behind
# current t = 0").
expect 2 "initial derivative" -- run --problem pendulum:gravity=1e308 --formulation dae-ggl --method ida --rtol 1e-8 --atol 1e-8 --tf 5
# ---- end of integrator robustness ----
# ---- extended, total, impetus, fj, ssf with M(q) and g(q, t) ----
# They ran only standard/dirac/baumgarte/dae-* (exit 2 "does not support"); now M(q) (andrews)
# runs through all of them and g(q, t) (car-axis) through impetus, fj and ssf; extended and total
# refuse g(q, t) and say why (their multiplier gradient needs grad_q g_tt and d/dq (G_t v)).
for f in extended total impetus fj ssf; do
  expect 0 "" -- run --problem andrews --formulation $f --method erk:dp5 --rtol 1e-8 --atol 1e-10 --tf 0.002
done
for f in impetus fj ssf; do
  expect 0 "" -- run --problem car-axis --formulation $f --method erk:dp5 --rtol 1e-6 --atol 1e-8 --tf 0.05
done
expect 2 "g_tt" -- run --problem car-axis --formulation total --method erk:dp5 --rtol 1e-6 --atol 1e-8 --tf 0.05
expect 2 "g_tt" -- run --problem car-axis --formulation extended --method erk:dp5 --rtol 1e-6 --atol 1e-8 --tf 0.05
# ---- end of extended, total, impetus, fj, ssf ----

# ---- chs run --plot FILE.png ----
# A complete PNG (signature) drawn from a file chs names itself, none of its temporary files left;
# a bad path refused (exit 2) before any work (nothing on stdout); a failed write is exit 3 and
# leaves no file; a numerical failure still draws the run up to it (exit 3).
is_png() { [[ -s $1 && $(head -c 8 "$1" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; }
no_plot_tmp() { ! ls -a "$1" | has 'tmp\.'; }
mkdir -p "$tmp/plot"
pl=(run --problem pendulum --formulation dirac --method erk:rk4 --h 0.01 --tf 10)
if "$chs" "${pl[@]}" --plot "$tmp/plot/run.png" >"$tmp/out" 2>"$tmp/err" && is_png "$tmp/plot/run.png" &&
  no_plot_tmp "$tmp/plot" && [[ ! -s $tmp/err ]]; then ok; else bad "run --plot: no PNG ($(head -c 300 "$tmp/err"))"; fi
# a name gnuplot must never see (quotes, a newline): the file gets it, the script does not
odd=$'o\'dd "x\n$(y).png'
if "$chs" "${pl[@]}" --plot "$tmp/plot/$odd" >/dev/null 2>"$tmp/err" && is_png "$tmp/plot/$odd"; then ok; else bad "run --plot odd name ($(head -c 300 "$tmp/err"))"; fi
# without a reference solution (chain): two panels, still a PNG; adaptive, with --out beside it
if "$chs" run --problem chain --formulation dirac --method erk:dp5 --rtol 1e-6 --atol 1e-6 --tf 2 --plot "$tmp/plot/chain.png" --out "$tmp/plot/chain.csv" --json >"$tmp/out" 2>"$tmp/err" &&
  is_png "$tmp/plot/chain.png" && has '"int_err_max": null' "$tmp/out"; then ok; else bad "run --plot chain ($(head -c 300 "$tmp/err"))"; fi
# (a character device such as /dev/null is written into: test/output_targets_test.sh)
for badp in "$tmp/plot" "$tmp/plot/" "$tmp/nodir/x.png" ""; do
  expect 2 "--plot" -- "${pl[@]:0:7}" --h 1e-4 --tf 400 --plot "$badp"
  if [[ -s $tmp/out ]]; then bad "run --plot '$badp': output before the refusal"; else ok; fi
done
expect 2 "same file" -- "${pl[@]}" --plot "$tmp/plot/same" --out "$tmp/plot/same"
expect 2 "first-order" -- run --problem fj-example --method erk:rk4 --h 0.1 --tf 1 --plot "$tmp/plot/fj.png"
# gnuplot missing or killed (file size limit): exit 3, no file, no temporary file
if PATH=/nonexistent "$chs" "${pl[@]}" --plot "$tmp/plot/nognuplot.png" >/dev/null 2>"$tmp/err"; then
  bad "run --plot without gnuplot: exit 0"
elif [[ $? -eq 3 && ! -e $tmp/plot/nognuplot.png ]] && no_plot_tmp "$tmp/plot" && has gnuplot "$tmp/err"; then ok
else bad "run --plot without gnuplot: $(head -c 300 "$tmp/err")"; fi
(ulimit -f 8; "$chs" run --problem pendulum --formulation dirac --method erk:rk4 --h 0.1 --tf 1 --plot "$tmp/plot/big.png" >/dev/null 2>"$tmp/err")
st=$?
if [[ $st -eq 3 && ! -e $tmp/plot/big.png ]] && no_plot_tmp "$tmp/plot"; then ok; else bad "run --plot over the file size limit: exit $st, $(ls "$tmp/plot") $(head -c 300 "$tmp/err")"; fi
expect 3 "too much work" -- run --problem pendulum --formulation dirac --method erk:dp5 --rtol 1e-6 --atol 1e-6 --tf 1e6 --max-steps 1000 --plot "$tmp/plot/failed.png"
if is_png "$tmp/plot/failed.png" && has "shows the run up to" "$tmp/err"; then ok; else bad "run --plot of a failed run: no PNG"; fi
# ---- end of --plot ----
# hmax=H (cvode, ida): no step longer than H; without it the same runs take longer steps
for fm in "dae-ggl ida:ls=klu" "standard cvode:bdf"; do
  set -- $fm
  for m in "$2" "$2$([[ $2 == *:*:* || $2 == ida:* ]] && echo , || echo :)hmax=0.005"; do
    "$chs" run --problem pendulum-chain:N=20 --formulation "$1" --method "$m" --rtol 1e-6 --atol 1e-6 \
      --tf 0.5 --every 1 --quiet --out "$tmp/hmax.csv" >/dev/null
    hmax=$(awk -F, 'NR > 2 && $1 - t > h { h = $1 - t } NR > 1 { t = $1 } END { printf "%.17g", h }' "$tmp/hmax.csv")
    if [[ $m == *hmax* ]]; then
      if awk -v h="$hmax" 'BEGIN { exit !(h > 0 && h <= 0.005 * (1 + 1e-12)) }'; then ok; else bad "$m: a step of $hmax"; fi
    elif awk -v h="$hmax" 'BEGIN { exit !(h > 0.01) }'; then ok; else bad "$m: largest step $hmax (the bound test cannot fail)"; fi
  done
done
# The memory guard uses measured bytes per coordinate (dirac: 569, 25 % margin): chain:N=10^6 needs
# 1.42 GB, more than a 1.2 GB limit (the problem's own 700 bytes per atom, 0.7 GB, would pass it);
# refused with exit 2 before any work, and run under a 2 GB limit. CHS_MEMORY_LIMIT is checked.
big=(run --problem chain:N=1000000 --formulation dirac --method erk:rk4 --h 1e-3 --tf 1e-3 --dry-run)
CHS_MEMORY_LIMIT=1.2e9 expect 2 "needs about 1.42 GB (569 bytes per coordinate" -- "${big[@]}"
CHS_MEMORY_LIMIT=2e9 expect 0 "" -- "${big[@]}"
CHS_MEMORY_LIMIT=1.2e9 expect 2 "needs about 1.60 GB (642 bytes per coordinate" -- "${big[@]/dirac/extended}"
CHS_MEMORY_LIMIT=12x expect 2 "CHS_MEMORY_LIMIT '12x' is not a number" -- "${big[@]}"
# Analytic Jacobians for M(q) (mass_grad_dir, problem ABI 7) and time-dependent problems: andrews
# with jac=analytic runs, also through KLU (the dense Jacobian copied into CSC: the sparse DAE
# assembly is for constant M, autonomous problems); car-axis has one on dae-ggl, none on
# dae-index1 (2 G_t v + g_tt in its constraint: refused, naming why).
expect 0 "" -- run --problem andrews --formulation dae-ggl --method ida:jac=analytic --rtol 1e-6 --atol 1e-6 --tf 0.03
expect 0 "" -- run --problem andrews --formulation dae-index3 --method ida:ls=klu,jac=analytic --rtol 1e-6 --atol 1e-6 --tf 0.03
expect 0 "" -- run --problem heavy-top --formulation standard --method cvode:bdf:jac=analytic --rtol 1e-6 --atol 1e-6 --tf 1
expect 0 "" -- run --problem car-axis --formulation dae-ggl --method ida:jac=analytic --rtol 1e-6 --atol 1e-6 --tf 0.5
expect 2 "time-dependent constraints" -- run --problem car-axis --formulation dae-index1 --method ida:jac=analytic --rtol 1e-6 --atol 1e-6 --tf 0.5
echo "cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
