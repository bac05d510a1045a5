#!/usr/bin/env bash
# MPI sweeps, messages of failing ranks and the scaling benchmark (docs/mpi.md).
# usage: mpi_bench_test.sh CHS MPIEXEC
#  1. `bench dae` under mpirun -np 2 gives the serial table but for timings: the stabilised ODE side
#     (configuration, evaluations), the IDA Jacobian runs' evaluation counts, and the DAE side when
#     both runs made the same (timing-based) Jacobian choice.
#  2. `bench dae --scale` under mpirun -np 2: every candidate of the serial run present (runs or
#     skipped), every run that both made has the same outcome and error (each run is deterministic;
#     which runs are made depends on CPU times, serially too), the CSV written once, complete.
#  3. A failure on rank 1 only (MPMD launch with the same arguments on every rank but another
#     working directory, where the plugin ./p.so named by --problem is missing) exits with rank 1's
#     status on every rank, and rank 0 prints rank 1's message. Ranks given different arguments
#     (MPMD: another --h, another problem parameter; 1 + 2 ranks) are refused with exit 2 before any
#     work, rank 0 naming the lowest rank that differs and its arguments; the same arguments on
#     both sides of ':' run as -np 2 does.
#  4. `bench mpi --ranks 1,2` on tiny chains: every row present, N as asked, the RHS count of the
#     fixed step, comm share in [0, 1], speed-up and efficiency recomputed from the JSON's wall
#     times, oversubscription = K > cores, the CSV's rows; launches over --time-limit are killed
#     and marked (exit 3), K > cores stated; bad --ranks, --n, a missing or non-executable launcher
#     and a run under mpirun are refused (exit 2).
#  5. A launcher whose children outlive it (a script leaving background sleeps, one of them
#     ignoring SIGTERM): at --time-limit its whole process group is ended, none of the children
#     is alive when chs returns, and chs exits 3 with every row marked; SIGTERM to chs during a
#     launch ends the launch's group too, and chs ends by that signal.
set -uo pipefail
chs=$(realpath "$1") # absolute: the MPMD launches below run in other directories
mpiexec=$2
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
run_mpi() { "$mpiexec" --oversubscribe -np 2 "$chs" "$@"; }
source "$(dirname "$0")/cli_lib.sh"

# 1. bench dae
bd=(bench dae --problem pendulum --tf 1 --json --quiet)
if "$chs" "${bd[@]}" >"$tmp/bd1.json" && run_mpi "${bd[@]}" >"$tmp/bd2.json" &&
  python3 - "$tmp/bd1.json" "$tmp/bd2.json" <<'PY'; then ok; else bad "bench dae -np 2 differs"; fi
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ra, rb = a["results"], b["results"]
assert len(ra) == len(rb) == 5, (len(ra), len(rb))
ja, jb = a["ida_jacobian"], b["ida_jacobian"]
assert len(ja) == len(jb) == 3
for x, y in zip(ja, jb):
    for k in ("problem", "formulation", "evals_analytic", "evals_fd", "jac_evals_analytic",
              "jac_evals_fd"):
        assert x[k] == y[k], (k, x, y)
same_choice = [x["chosen"] for x in ja] == [y["chosen"] for y in jb]
for x, y in zip(ra, rb):
    keys = ["problem", "target_error", "ode", "ode_evals"]
    if same_choice:
        keys += ["dae", "dae_evals", "evals_ratio_dae_over_ode"]
    for k in keys:
        assert x[k] == y[k], (k, x, y)
PY

# 2. bench dae --scale (pendulum chain of 4 atoms, one target)
sc=(bench dae --scale --sizes 4 --problems pendulum-chain --targets 1e-4 --tf 0.1 --time-limit 20
    --no-cache --json --quiet)
if "$chs" "${sc[@]}" --csv "$tmp/s1.csv" >"$tmp/s1.json" &&
  run_mpi "${sc[@]}" --csv "$tmp/s2.csv" >"$tmp/s2.json" &&
  python3 - "$tmp/s1.json" "$tmp/s2.json" "$tmp/s1.csv" "$tmp/s2.csv" <<'PY'; then ok; else
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert len(a["results"]) == len(b["results"]) == 1
x, y = a["results"][0], b["results"][0]
assert x["problem"] == y["problem"] and x["N"] == y["N"] == 4
assert x["reference"] == y["reference"], (x["reference"], y["reference"])
def cands(r):
    return {e["config"] for e in r["runs"]} | {e["config"] for e in r["skipped"]}
assert cands(x) == cands(y) and len(cands(x)) > 10, (cands(x) ^ cands(y))
runs = lambda r: {(e["config"], e["tol"], e["steps_fixed"]): e for e in r["runs"]}
rx, ry = runs(x), runs(y)
common = rx.keys() & ry.keys()
assert len(common) >= len(cands(x)), len(common)
for k in common:
    assert rx[k]["ok"] == ry[k]["ok"] and rx[k]["error"] == ry[k]["error"], (k, rx[k], ry[k])
assert len(x["targets"]) == len(y["targets"]) == 1
c1, c2 = (open(f).read().splitlines() for f in sys.argv[3:5])
assert len(c1) == len(c2) == 3 and c1[0] == c2[0], (c1, c2)
PY
  bad "bench dae --scale -np 2 differs from the serial run"
fi
if ls "$tmp" | has '\.tmp'; then bad "a temporary CSV was left behind: $(ls "$tmp")"; else ok; fi

# 3. one failing rank: its status on every rank, its message printed by rank 0. The arguments are
# the same on both ranks (else the launch is refused, below); only rank 1's working directory lacks
# the plugin ./p.so that --problem names.
plugin=$(dirname "$chs")/test/libchs_example_plugin.so
mkdir -p "$tmp/w0" "$tmp/w1"
ln -s "$plugin" "$tmp/w0/p.so"
w0=(workprec --configs dirac/erk:dp5 --tols 1e-5:1e-6:2 --no-cache --repeats 1 --quiet)
wp=("${w0[@]}" --problem pendulum-chain:N=4 --tf 0.5)
wpl=("${w0[@]}" --problem ./p.so --tf 0.5)
timeout 120 "$mpiexec" --oversubscribe -np 1 -wdir "$tmp/w0" "$chs" "${wpl[@]}" : \
  -np 1 -wdir "$tmp/w1" "$chs" "${wpl[@]}" >"$tmp/out" 2>"$tmp/err"
st=$?
if [[ $st -eq 2 ]] && has -F "rank 1 of 2 failed (exit status 2)" "$tmp/err" &&
  has -F "p.so" "$tmp/err"; then ok; else
  bad "rank 1 without the plugin: exit $st, want 2 with rank 1's message: $(head -c 400 "$tmp/err")"
fi
# ranks given different arguments: refused, exit 2, nothing run
mpmd() { # NEEDLE -- ARGS (rank 0) -- ARGS (rank 1) [-- ARGS (ranks 2 ..) with -np 2]
  local needle=$1 a=() b=() c=()
  shift 2
  while [[ $1 != -- ]]; do a+=("$1"); shift; done
  shift
  while [[ $# -gt 0 && $1 != -- ]]; do b+=("$1"); shift; done
  local launch=("$mpiexec" --oversubscribe -np 1 "$chs" "${a[@]}" : -np 1 "$chs" "${b[@]}")
  if [[ $# -gt 0 ]]; then
    shift
    c=("$@")
    launch+=(: -np 2 "$chs" "${c[@]}")
  fi
  timeout 120 "${launch[@]}" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [[ $got -ne 2 ]]; then
    bad "MPMD ${b[*]} -> exit $got, want 2 ($(head -c 400 "$tmp/err"))"
  elif ! has -F -- "$needle" "$tmp/err" || ! has -F "(an MPMD launch with ':' is refused)" \
    "$tmp/err" || [[ -s $tmp/out ]]; then
    bad "MPMD ${b[*]}: message '$needle' missing (or output written): $(head -c 400 "$tmp/err")"
  else
    ok
  fi
}
r0=(run --problem pendulum-chain:N=8 --formulation dirac --method erk:rk4 --tf 0.1 --json)
mpmd "the arguments of rank 1 of 2 differ from rank 0's" -- "${r0[@]}" --h 0.01 -- \
  "${r0[@]}" --h 0.02
mpmd "rank 1's: 'run --problem pendulum-chain:N=8,L=2 " -- "${r0[@]}" --h 0.01 -- \
  run --problem pendulum-chain:N=8,L=2 --formulation dirac --method erk:rk4 --tf 0.1 --json --h 0.01
mpmd "the arguments of rank 1 of 4 (and of 2 other ranks) differ" -- "${r0[@]}" --h 0.01 -- \
  "${r0[@]}" --h 0.02 -- "${r0[@]}" --h 0.02
# the same arguments on both sides of ':': the run of -np 2
if timeout 120 "$mpiexec" --oversubscribe -np 1 "$chs" "${r0[@]}" --h 0.01 : -np 1 "$chs" \
  "${r0[@]}" --h 0.01 >"$tmp/same.json" 2>"$tmp/err" && run_mpi "${r0[@]}" --h 0.01 \
  >"$tmp/np2.json" && python3 - "$tmp/same.json" "$tmp/np2.json" <<'PY'; then ok; else
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["mpi"]["ranks"] == b["mpi"]["ranks"] == 2, (a["mpi"], b["mpi"])
assert a["steps"] == b["steps"] == 10 and a["q_final"] == b["q_final"], (a["steps"], b["steps"])
PY
  bad "MPMD with the same arguments: $(head -c 400 "$tmp/err")"
fi
# every rank passing: no message of another rank
if run_mpi "${wp[@]}" >"$tmp/out" 2>"$tmp/err" && ! grep -q "rank 1" "$tmp/err"; then ok; else
  bad "a passing workprec -np 2 reported a rank: $(head -c 300 "$tmp/err")"
fi

# 4. bench mpi
bm=(bench mpi --ranks 1,2 --n 16 --n-per-rank 8 --steps 3 --quiet)
if "$chs" "${bm[@]}" --json --csv "$tmp/bm.csv" >"$tmp/bm.json" &&
  python3 - "$tmp/bm.json" "$tmp/bm.csv" "$(nproc)" <<'PY'; then ok; else bad "bench mpi: table"; fi
import csv, json, math, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert d["cores"] == int(sys.argv[3]), d["cores"]
assert d["steps"] == 3 and d["method"] == "erk:rk4"
want = [(p, s, k) for p in ("pendulum-chain", "chain") for s in ("strong", "weak") for k in (1, 2)]
assert [(r["problem"], r["scaling"], r["ranks"]) for r in rows] == want, rows
close = lambda x, y: abs(x - y) <= 1e-9 * max(1.0, abs(y))
for i, r in enumerate(rows):
    assert r["status"] == "ok", r
    assert r["N"] == (16 if r["scaling"] == "strong" else 8 * r["ranks"]), r
    assert r["rhs_evals"] == rows[0]["rhs_evals"] >= 4 * 3, r  # RK4: 4 per step, same for all
    assert r["oversubscribed"] == (r["ranks"] > d["cores"]), r
    assert close(r["wall_per_rhs_s"], r["wall_s"] / r["rhs_evals"]), r
    assert close(r["comm_per_rhs_s"], r["comm_s"] / r["rhs_evals"]), r
    assert 0 <= r["comm_share"] <= 1 and close(r["comm_share"], r["comm_s"] / r["wall_s"]), r
    base = rows[i - i % 2]
    s = (r["ranks"] if r["scaling"] == "weak" else base["ranks"]) * base["wall_per_rhs_s"] / \
        r["wall_per_rhs_s"]
    assert close(r["speedup"], s), (r, s)
    assert close(r["efficiency"], r["speedup"] / r["ranks"]), r
    assert r is not base or close(r["speedup"], 1.0), r
c = list(csv.DictReader(open(sys.argv[2])))
assert len(c) == len(rows), len(c)
for x, r in zip(c, rows):
    assert (x["problem"], x["scaling"], int(x["ranks"]), int(x["N"])) == \
        (r["problem"], r["scaling"], r["ranks"], r["N"]), (x, r)
    assert close(float(x["efficiency"]), r["efficiency"]), (x, r)
PY
# time-bounded, and more ranks than cores stated: launches of K = cores + 1 over a --time-limit of
# 0.1 s (mpirun alone takes longer to start) are killed, their rows marked, exit 3; the text
# table's rows and header say "oversubscribed"
over=$(($(nproc) + 1))
"$chs" bench mpi --ranks "$over" --n $((4 * over)) --n-per-rank 4 --steps 3 --time-limit 0.1 \
  --quiet >"$tmp/tl.txt" 2>"$tmp/tl.err"
st=$?
if [[ $st -eq 3 ]] && has -F "K > cores: oversubscribed" "$tmp/tl.txt" &&
  has -F "efficiency = speed-up / K" "$tmp/tl.txt" &&
  [[ $(grep -c "killed at the time limit (0.1 s) (oversubscribed)" "$tmp/tl.txt") -eq 4 ]] &&
  has -E "^chain +weak +$over +$((4 * over)) +killed" "$tmp/tl.txt" &&
  has -F "4 of 4 launches failed" "$tmp/tl.err"; then ok; else
  bad "bench mpi --time-limit, oversubscription: exit $st: $(head -c 900 "$tmp/tl.txt")"
fi
# a run's JSON holds its final state (~70 bytes per atom): at N = 20000 (the default --n) it is
# 1.3 MB, more than the 1 MB bench mpi once read before closing the pipe (every launch failed)
if "$chs" bench mpi --ranks 1 --n 20000 --n-per-rank 16000 --steps 1 --quiet >"$tmp/big.txt" \
  2>"$tmp/big.err" && [[ $(grep -cE "^(pendulum-chain|chain) +(strong|weak) +1 +(20000|16000) +5 " \
  "$tmp/big.txt") -eq 4 ]]; then ok; else
  bad "bench mpi at N = 20000: $(head -c 600 "$tmp/big.txt") $(head -c 300 "$tmp/big.err")"
fi
expect 2 "increasing" -- bench mpi --ranks 2,1
expect 2 "--n" -- bench mpi --ranks 1,4 --n 8
expect 2 "--ranks" -- bench mpi --ranks 0
expect 2 "--csv" -- bench mpi --csv "$tmp/nosuchdir/x.csv"
expect 2 "$tmp/no-such-mpirun" -- bench mpi --ranks 1 --n 8 --quiet --mpirun "$tmp/no-such-mpirun"
printf '#!/bin/sh\n' >"$tmp/not-executable"
expect 2 "not an executable file" -- bench mpi --ranks 1 --n 8 --quiet --mpirun "$tmp/not-executable"
if timeout 60 "$mpiexec" --oversubscribe -np 1 "$chs" bench mpi --ranks 1 >"$tmp/out" \
  2>"$tmp/err"; then
  bad "bench mpi under mpirun ran"
elif has -F "launches mpirun itself" "$tmp/err"; then ok; else
  bad "bench mpi under mpirun: $(head -c 300 "$tmp/err")"
fi

# 5. a launcher whose children outlive it: the first launch leaves a sleep that ignores SIGTERM
# (only SIGKILL, after the grace period, ends it), every launch two more, then waits past the limit
cat >"$tmp/fake-mpirun" <<'SH'
#!/usr/bin/env bash
if [[ ! -s $FAKE_PIDS ]]; then
  (trap '' TERM; exec sleep 100) &
  echo $! >>"$FAKE_PIDS"
fi
sleep 100 &
echo $! >>"$FAKE_PIDS"
sleep 100 &
echo $! >>"$FAKE_PIDS"
echo $$ >>"$FAKE_PIDS"
wait
SH
chmod +x "$tmp/fake-mpirun"
alive() { # the PIDs of file $1 still running (not zombies: PID 1 may not reap them)
  local pid s
  while read -r pid; do
    s=$(ps -o stat= -p "$pid" 2>/dev/null) && [[ $s != Z* ]] && echo "$pid"
  done <"$1"
}
reap() { # PIDs of file $1 left by a failing run: killed, not left for 100 s
  local pid
  for pid in $(alive "$1"); do kill -9 "$pid" 2>/dev/null; done
}
FAKE_PIDS=$tmp/pids.tl "$chs" bench mpi --ranks 1 --n 8 --n-per-rank 4 --steps 1 --time-limit 2 \
  --quiet --mpirun "$tmp/fake-mpirun" >"$tmp/fk.txt" 2>"$tmp/fk.err"
st=$?
left=$(alive "$tmp/pids.tl")
if [[ $st -eq 3 ]] && [[ $(wc -l <"$tmp/pids.tl") -eq 13 ]] && [[ -z $left ]] &&
  [[ $(grep -c "killed at the time limit (2 s)" "$tmp/fk.txt") -eq 4 ]] &&
  has -F "4 of 4 launches failed" "$tmp/fk.err"; then ok; else
  bad "bench mpi --time-limit, a launcher's children: exit $st, $(wc -l <"$tmp/pids.tl") PIDs," \
    "alive: ${left//$'\n'/ } $(head -c 400 "$tmp/fk.txt") $(head -c 300 "$tmp/fk.err")"
  reap "$tmp/pids.tl"
fi
# chs stopped by SIGTERM during a launch: the launch's group ended, chs ended by the signal
FAKE_PIDS=$tmp/pids.sig "$chs" bench mpi --ranks 1 --n 8 --n-per-rank 4 --steps 1 \
  --time-limit 60 --quiet --mpirun "$tmp/fake-mpirun" >"$tmp/sig.txt" 2>"$tmp/sig.err" &
cpid=$!
for _ in $(seq 100); do
  [[ -s $tmp/pids.sig && $(wc -l <"$tmp/pids.sig") -ge 4 ]] && break
  sleep 0.2
done
kill -TERM "$cpid"
wait "$cpid"
st=$?
left=$(alive "$tmp/pids.sig")
if [[ $st -eq 143 ]] && [[ $(wc -l <"$tmp/pids.sig") -eq 4 ]] && [[ -z $left ]] &&
  has -F "stopped by signal 15" "$tmp/sig.err"; then ok; else
  bad "bench mpi stopped by SIGTERM: exit $st (want 143), $(wc -l <"$tmp/pids.sig") PIDs," \
    "alive: ${left//$'\n'/ } $(head -c 300 "$tmp/sig.err")"
  reap "$tmp/pids.sig"
fi

echo "mpi_bench: $pass passed, $fail failed"
((fail == 0))
