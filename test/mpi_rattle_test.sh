#!/usr/bin/env bash
# rattle and the projections on the distributed chains (docs/mpi.md): `mpirun -np K chs run`
# against the serial run (the library's own rattle.c and projection.c, not the distributed code).
# usage: mpi_rattle_test.sh CHS MPIEXEC K
# For K ranks, pendulum-chain:N=30 and chain:N=30 (all Lennard-Jones pairs), fixed steps:
#   - rattle, h = 0.01, t in [0, 1] (100 steps), standard and dirac (rattle works on the
#     problem's callbacks: the formulation only names the state (q, p));
#   - erk:dp5, h = 0.05, t in [0, 1] (20 steps), --project both and --project momentum;
#   - erk:dp5 with --project both --project-tol 1e-12 --project-every 2 (the threshold and the
#     every-k counter), and rattle with --rtol 1e-8 (the SHAKE iteration to a user tolerance).
# Same steps, same t_final, the same numbers of projections, q_final and p_final within 1e-11
# relative to max(1, |x|) (measured: 2e-16 .. 4e-14: the Gram solves are ScaLAPACK's pdpttrf/s
# instead of the serial tridiagonal solver, and the projections' norms are summed over the ranks),
# and the final residuals |g|, |psi| at the serial run's level (within 10x + 1e-14; without the
# projection pendulum-chain's |g| and |psi| at h = 0.05 are ~3e-10, so a projection that was not
# applied fails this). Then rattle's refusals exit 2 naming what is refused (the other methods and
# --out: mpi_test.sh).
set -uo pipefail
chs=$1
mpiexec=$2
k=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# oversubscribed ranks yield the core when they wait (else each spins through its time slice)
export OMPI_MCA_mpi_yield_when_idle=1
run_mpi() { "$mpiexec" --oversubscribe -np "$k" "$chs" "$@"; }
source "$(dirname "$0")/cli_lib.sh"

compare() { # serial.json mpi.json label
  if python3 - "$@" <<'PY'; then ok; else bad "$3: the distributed run differs from the serial"; fi
import json, sys
s, m = (json.load(open(f)) for f in sys.argv[1:3])
assert len(m["q_final"]) == len(s["q_final"]) > 0, "lengths"
for key in ("steps", "t_final", "proj_position", "proj_momentum"):
    assert m[key] == s[key], (key, m[key], s[key])
err = max(abs(a - b) / max(1.0, abs(b))
          for key in ("q_final", "p_final") for a, b in zip(m[key], s[key]))
res = {key: (m[key], s[key]) for key in ("pos_res_final", "mom_res_final")}
print(f"{sys.argv[3]}: max relative difference {err:.2e}, residuals {res}", file=sys.stderr)
assert err <= 1e-11, err
for key, (a, b) in res.items():
    assert a <= 10 * b + 1e-14, (key, a, b)
PY
}

cases=(
  "standard rattle --h 0.01"
  "dirac rattle --h 0.01"
  "standard erk:dp5 --h 0.05 --project both"
  "dirac erk:dp5 --h 0.05 --project momentum"
)
for problem in pendulum-chain:N=30 chain:N=30; do
  for c in "${cases[@]}"; do
    read -r -a w <<<"$c"
    args=(run --problem "$problem" --formulation "${w[0]}" --method "${w[@]:1}" --tf 1 --json)
    label="$problem $c K=$k"
    if "$chs" "${args[@]}" >"$tmp/serial.json" && run_mpi "${args[@]}" >"$tmp/mpi.json"; then
      compare "$tmp/serial.json" "$tmp/mpi.json" "$label"
    else
      bad "$label: a run failed ($(head -c 300 "$tmp/mpi.json"))"
    fi
  done
done
for c in "erk:dp5 --h 0.05 --project both --project-tol 1e-12 --project-every 2" \
  "rattle --h 0.01 --rtol 1e-8"; do
  read -r -a w <<<"$c"
  args=(run --problem pendulum-chain:N=30 --formulation standard --method "${w[@]}" --tf 1 --json)
  label="pendulum-chain $c K=$k"
  if "$chs" "${args[@]}" >"$tmp/serial.json" && run_mpi "${args[@]}" >"$tmp/mpi.json"; then
    compare "$tmp/serial.json" "$tmp/mpi.json" "$label"
  else
    bad "$label: a run failed ($(head -c 300 "$tmp/mpi.json"))"
  fi
done

expect_mpi() { # STATUS NEEDLE -- ARGS
  local want=$1 needle=$2
  shift 3
  run_mpi "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [[ $got -ne $want ]]; then
    bad "mpirun -np $k chs $* -> exit $got, want $want ($(head -c 300 "$tmp/err"))"
  elif ! grep -qF -- "$needle" "$tmp/err"; then
    bad "mpirun -np $k chs $* -> message does not name '$needle': $(head -c 300 "$tmp/err")"
  else
    ok
  fi
}
base=(run --problem pendulum-chain:N=30 --formulation standard --tf 0.1)
expect_mpi 2 "method rattle needs a fixed step --h" -- "${base[@]}" --method rattle --rtol 1e-6 \
  --atol 1e-6
expect_mpi 2 "unknown method 'rattle:x'" -- "${base[@]}" --method rattle:x --h 0.01
expect_mpi 2 "--stop-at do not run distributed" -- "${base[@]}" --method rattle --h 0.01 \
  --stop-at 0.05

echo "mpi rattle K=$k: $pass passed, $fail failed"
((fail == 0))
