#!/usr/bin/env bash
# A problem plugin runs distributed by the structure it declares, not by its name (docs/mpi.md,
# CHS_DECLARE_BOND_CHAIN): test/chain_plugin.c, the built-in chain's callbacks under the name
# "chain-plugin", declaring a free bond chain. usage: mpi_plugin_test.sh CHS MPIEXEC K PLUGINDIR
# For K ranks, dirac and standard with erk:rk4 (fixed step): the serial run of the plugin equals
# the built-in chain's (q_final, p_final, steps, evaluations: bitwise, the same callbacks), and
# `mpirun -np K` of the plugin gives the built-in chain's distributed numbers bitwise and the
# serial ones within 1e-11 relative (mpi_test.sh's bound for fixed steps). The same plugin
# without the declared structure is refused (exit 2, "not a bond chain") before any work.
set -uo pipefail
chs=$1
mpiexec=$2
k=$3
plugins=$4
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
run_mpi() { "$mpiexec" --oversubscribe -np "$k" "$chs" "$@"; }
source "$(dirname "$0")/cli_lib.sh"
plugin=$plugins/libchs_chain_plugin.so
undeclared=$plugins/libchs_chain_plugin_undeclared.so

same() { # a.json b.json tolerance label: q_final, p_final within tol, the same steps and counts
  if python3 - "$@" <<'PY'; then ok; else bad "$4: the runs differ"; fi
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
tol = float(sys.argv[3])
for key in ("steps", "t_final", "rhs_evals"):
    assert a[key] == b[key], (key, a[key], b[key])
assert len(a["q_final"]) == len(b["q_final"]) > 0, "lengths"
err = max(abs(x - y) / max(1.0, abs(y))
          for key in ("q_final", "p_final") for x, y in zip(a[key], b[key]))
print(f"{sys.argv[4]}: max relative difference {err:.2e}", file=sys.stderr)
assert err <= tol, err
PY
}

for form in dirac standard; do
  common=(--formulation "$form" --method erk:rk4 --h 0.01 --tf 0.5 --json)
  label="chain-plugin $form K=$k"
  if "$chs" run --problem chain:N=30 "${common[@]}" >"$tmp/chain.json" &&
    "$chs" run --problem "$plugin:N=30" "${common[@]}" >"$tmp/serial.json" &&
    run_mpi run --problem chain:N=30 "${common[@]}" >"$tmp/chain_mpi.json" &&
    run_mpi run --problem "$plugin:N=30" "${common[@]}" >"$tmp/mpi.json"; then
    same "$tmp/serial.json" "$tmp/chain.json" 0 "$label serial vs chain"
    same "$tmp/mpi.json" "$tmp/chain_mpi.json" 0 "$label distributed vs chain distributed"
    same "$tmp/mpi.json" "$tmp/serial.json" 1e-11 "$label distributed vs serial"
    if has -F "\"ranks\": $k" "$tmp/mpi.json"; then ok; else
      bad "$label: the JSON does not say $k ranks: $(grep -o '"mpi".*' "$tmp/mpi.json")"
    fi
  else
    bad "$label: a run failed ($(head -c 300 "$tmp/mpi.json" 2>/dev/null))"
  fi
done

run_mpi run --problem "$undeclared:N=30" --formulation dirac --method erk:rk4 --h 0.01 --tf 0.1 \
  >"$tmp/out" 2>"$tmp/err"
got=$?
if [[ $got -eq 2 ]] && has -F "not a bond chain" "$tmp/err"; then ok; else
  bad "undeclared plugin K=$k: exit $got, want 2 naming 'not a bond chain': $(head -c 300 "$tmp/err")"
fi

echo "mpi plugin K=$k: $pass passed, $fail failed"
((fail == 0))
