#!/usr/bin/env bash
# Distributed chains (docs/mpi.md): `mpirun -np K chs run` gives the serial trajectory to
# round-off. usage: mpi_test.sh CHS MPIEXEC K
# For K ranks, pendulum-chain and chain (N = 30: all Lennard-Jones pairs, a smooth force), with the
# dirac and standard fields and erk:dp5 (adaptive): q_final and p_final of the JSON against the
# serial run (the library's own formulations, not the distributed code) within 1e-9 relative to
# max(1, |x|) (the step-size controller sees norms summed in another order: the accepted steps
# can differ in the last bits, and the trajectories by a few round-offs per step); the same
# number of steps. Then the refusals: too few constraints per rank, a problem, a formulation or
# an option that does not run distributed, all exit 2 before any integration.
set -uo pipefail
chs=$1
mpiexec=$2
k=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# oversubscribed ranks yield the core when they wait (else each spins through its time slice)
export OMPI_MCA_mpi_yield_when_idle=1
run_mpi() { "$mpiexec" --oversubscribe -np "$k" "$chs" "$@"; }
source "$(dirname "$0")/cli_lib.sh"

compare() { # serial.json mpi.json tolerance same_steps label
  if python3 - "$@" <<'PY'; then ok; else bad "$5: the distributed run differs from the serial"; fi
import json, sys
s, m = (json.load(open(f)) for f in sys.argv[1:3])
tol, same_steps = float(sys.argv[3]), sys.argv[4] == "1"
assert len(m["q_final"]) == len(s["q_final"]) > 0, "lengths"
assert not same_steps or m["steps"] == s["steps"], ("steps", m["steps"], s["steps"])
assert m["t_final"] == s["t_final"], ("t_final", m["t_final"], s["t_final"])
err = max(abs(a - b) / max(1.0, abs(b))
          for key in ("q_final", "p_final") for a, b in zip(m[key], s[key]))
print(f"{sys.argv[5]}: max relative difference {err:.2e}", file=sys.stderr)
assert err <= tol, err
PY
}

for problem in pendulum-chain:N=30 chain:N=30; do
  for form in dirac standard; do
    for m in "erk:rk4 --h 0.01 1e-11 1" "erk:dp5 --rtol 1e-10 --atol 1e-12 1e-8 0"; do
      read -r -a w <<<"$m"
      args=(run --problem "$problem" --formulation "$form" --method "${w[@]:0:$((${#w[@]} - 2))}"
            --tf 1 --json)
      label="$problem $form ${w[0]} K=$k"
      if "$chs" "${args[@]}" >"$tmp/serial.json" && run_mpi "${args[@]}" >"$tmp/mpi.json"; then
        compare "$tmp/serial.json" "$tmp/mpi.json" "${w[@]: -2}" "$label"
      else
        bad "$label: a run failed ($(head -c 300 "$tmp/mpi.json"))"
      fi
    done
  done
done
# Ghost atoms (ABI 6 force_atoms, src/mpi/mpi_ghost.c): the coiled chain with a cutoff, hot (kT = 10:
# atoms move ~3 sigma per unit time, so the ghost lists are rebuilt several times: more than
# skin/2 = 0.25), where the ranks' segments lie on different turns and exchange ghosts with
# non-neighbour ranks; erk:rk4 and rattle against the serial run within 1e-11 (the pair sums
# run in another order: measured 5e-13 at N = 2000 over 300 steps), at least two rebuilds, and
# ghosts with K > 1 (none with K = 1). No rank gathers the positions between rebuilds.
coil=chain:N=1000,init=2,vel=thermal,kT=10,cutoff=2.5
for m in "dirac erk:rk4" "standard rattle"; do
  read -r -a w <<<"$m"
  args=(run --problem "$coil" --formulation "${w[0]}" --method "${w[1]}" --h 0.005 --tf 0.25 --json)
  label="$coil ${w[1]} K=$k"
  if "$chs" "${args[@]}" >"$tmp/serial.json" && run_mpi "${args[@]}" >"$tmp/mpi.json"; then
    compare "$tmp/serial.json" "$tmp/mpi.json" 1e-11 1 "$label"
    if python3 -c 'import json,sys; g=json.load(open(sys.argv[1]))["mpi"]; print(g, file=sys.stderr); k = int(sys.argv[2]); assert g["ghost_rebuilds"] >= 2 and (g["ghost_atoms"] > 0 and g["ghost_bytes"] > 0) == (k > 1)' "$tmp/mpi.json" "$k"; then ok; else
      bad "$label: ghost statistics $(grep -o '"mpi".*' "$tmp/mpi.json")"
    fi
  else
    bad "$label: a run failed ($(head -c 300 "$tmp/mpi.json"))"
  fi
done

# the text summary names the distributed run
if run_mpi run --problem pendulum-chain:N=30 --formulation dirac --method erk:rk4 --h 0.01 \
  --tf 0.1 >"$tmp/text" && has -F "(MPI, $k ranks)" "$tmp/text"; then ok; else
  bad "K=$k: the summary does not name the MPI run: $(head -c 300 "$tmp/text")"
fi

# workprec: the sweep's points spread over the ranks, the reference (no closed form: computed)
# once and broadcast; every point as in the serial sweep but its wall time, and the CSV written
wp=(workprec --problem pendulum-chain:N=4 --configs dirac/erk:dp5,standard/erk:rkf45 --tols
    1e-5:1e-7:3 --tf 1 --no-cache --repeats 1 --json)
if "$chs" "${wp[@]}" >"$tmp/wp1.json" && run_mpi "${wp[@]}" --out "$tmp/wpk" >"$tmp/wpk.json" &&
  python3 - "$tmp/wp1.json" "$tmp/wpk.json" <<'PY'; then
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
pa, pb = a["points"], b["points"]
assert len(pa) == len(pb) == 6, (len(pa), len(pb))
for x, y in zip(pa, pb):
    x.pop("wall_s"); y.pop("wall_s")
    assert x == y, (x, y)
PY
  if ls "$tmp/wpk" | has -i 'csv'; then ok; else bad "workprec K=$k: no CSV in --out"; fi
else
  bad "workprec K=$k: the distributed sweep differs from the serial"
fi

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
small=$k # one link per rank: ScaLAPACK's blocks need at least 2
if ((k >= 2)); then
  expect_mpi 2 "cannot be split over $k ranks" -- run --problem "pendulum-chain:N=$small" \
    --formulation dirac --method erk:rk4 --h 0.01 --tf 0.1
fi
expect_mpi 2 "problem 'pendulum' does not run distributed" -- run --problem pendulum \
  --formulation dirac --method erk:rk4 --h 0.01 --tf 0.1
expect_mpi 2 "formulation 'total' does not run distributed" -- run --problem pendulum-chain:N=30 \
  --formulation total --method erk:rk4 --h 0.01 --tf 0.1
expect_mpi 2 "method 'gauss:2' does not run distributed" -- run --problem pendulum-chain:N=30 \
  --formulation dirac --method gauss:2 --h 0.01 --tf 0.1
expect_mpi 2 "do not run distributed" -- run --problem pendulum-chain:N=30 \
  --formulation dirac --method erk:rk4 --h 0.01 --tf 0.1 --out "$tmp/x.csv"

echo "mpi K=$k: $pass passed, $fail failed"
((fail == 0))
