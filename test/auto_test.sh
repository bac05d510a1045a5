#!/usr/bin/env bash
# --formulation auto / --method auto (docs/auto.md): the defaults of `chs run`. The choice follows
# src/run/auto.c's table (dirac; cvode:adams adaptive; rattle, else erk:rk4, at a fixed step; ida
# for a DAE formulation), the text report and the JSON say so, and an auto run is the explicit
# run of the chosen configuration: the same steps, evaluations and final error, bit for bit.
# usage: auto_test.sh PATH_TO_CHS
set -uo pipefail
chs=$1
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

# same PROBLEM OPTIONS F M [GIVEN]: auto with OPTIONS and GIVEN chooses F/M and runs like it
same() {
  local p=$1 opts=$2 f=$3 m=$4 given=${5:-}
  # shellcheck disable=SC2086
  "$chs" run --problem "$p" $opts $given --json >"$tmp/a.json" 2>"$tmp/a.err" || {
    bad "auto $p $opts failed: $(head -c 300 "$tmp/a.err")"
    return
  }
  # shellcheck disable=SC2086
  "$chs" run --problem "$p" $opts --formulation "$f" --method "$m" --json >"$tmp/e.json" 2>/dev/null
  if jq -e --arg f "$f" --arg m "$m" '.formulation == $f and .method == $m and
      (.auto_choice | contains($m) or contains($f))' "$tmp/a.json" >/dev/null; then ok; else
    bad "auto $p $opts: $(jq -c '[.formulation, .method, .auto_choice]' "$tmp/a.json"), want $f/$m"
  fi
  local a e
  a=$(jq -c '[.steps, .rhs_evals, .int_err_final, .pos_res_max, .q_final]' "$tmp/a.json")
  e=$(jq -c '[.steps, .rhs_evals, .int_err_final, .pos_res_max, .q_final]' "$tmp/e.json")
  if [[ -n $a && $a == "$e" ]]; then ok; else bad "auto $p $opts differs from $f/$m: $a vs $e"; fi
  if jq -e 'has("auto_choice") | not' "$tmp/e.json" >/dev/null; then ok; else
    bad "explicit $f/$m has auto_choice"
  fi
}
same pendulum "--tf 10 --rtol 1e-8 --atol 1e-8" dirac cvode:adams
same andrews "--tf 0.03 --rtol 1e-6 --atol 1e-6" dirac cvode:adams
same car-axis "--tf 3 --rtol 1e-6 --atol 1e-6" dirac cvode:adams
same "heavy-top:steady=1" "--tf 10 --rtol 1e-7 --atol 1e-7" dirac cvode:adams
same pendulum "--tf 1 --h 0.01" dirac rattle
# RATTLE refuses the slider-crank's damper: the fixed-step choice falls back to RK4
same slider-crank "--tf 0.1 --h 0.001" dirac erk:rk4
# one of the two given: the other is chosen
same pendulum "--tf 1 --rtol 1e-6 --atol 1e-6" dae-ggl ida "--formulation dae-ggl"
same pendulum "--tf 1 --rtol 1e-6 --atol 1e-6" standard cvode:adams "--formulation standard"
same pendulum "--tf 1 --rtol 1e-6 --atol 1e-6" dirac erk:dp5 "--method erk:dp5"
# the text report names the choice and its reason
"$chs" run --problem pendulum --tf 1 --rtol 1e-6 --atol 1e-6 >"$tmp/t.txt" 2>&1
if has -E '^problem pendulum, formulation dirac, method cvode:adams' "$tmp/t.txt" &&
  has -E '^  auto +dirac \(Hamilton-Dirac' "$tmp/t.txt"; then ok; else
  bad "text report: $(head -c 400 "$tmp/t.txt")"
fi
# refused where auto cannot choose: --wedge
expect 2 "--wedge" -- run --problem pendulum --h 0.1 --tf 1 --wedge

# chs bench auto (drivers/cmd_bench_auto.c): against a `chs bench calibrate` sweep of the same
# subset, each result's best point is the fewest-evaluation point (any tolerance) whose final error
# is at most auto's, the ratio is auto_evals / best_evals, worst_ratio their maximum; auto's error
# and evaluations are those of `chs run` without --formulation and --method; the CSV holds the
# JSON's rows. On this subset the cheapest is another configuration at 4 of 6 points (measured:
# fj/cvode:adams on the pendulum at 1e-8, ssf and standard with cvode:adams on andrews).
sub=(--problems "pendulum,andrews" --formulations "dirac,standard,fj,ssf"
  --methods "erk:dp5,cvode:adams" --tols 1e-6:1e-8:3 --quiet)
if "$chs" bench auto "${sub[@]}" --json --csv "$tmp/ba.csv" >"$tmp/ba.json" 2>"$tmp/ba.err" &&
  "$chs" bench calibrate "${sub[@]}" --json >"$tmp/bc.json" 2>>"$tmp/ba.err"; then ok; else
  bad "bench auto / calibrate: $(head -c 300 "$tmp/ba.err")"
fi
# auto's runs at the bench's tolerances, with its one record at tf (the record times move the
# pendulum's reference at tf by 1e-12 relative)
python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(r["problem"], repr(r["t_final"]), repr(r["tol"]))' "$tmp/ba.json" |
  while read -r p tf tol; do
    "$chs" run --problem "$p" --tf "$tf" --rtol "$tol" --atol "$tol" --every 1000000000 --json 2>/dev/null |
      jq -c --arg p "$p" --arg tol "$tol" '{problem: $p, tol: ($tol | tonumber),
        config: (.formulation + "/" + .method), err: .int_err_final, evals: .rhs_evals}'
  done >"$tmp/runs.jsonl"
if python3 - "$tmp/ba.json" "$tmp/bc.json" "$tmp/ba.csv" "$tmp/runs.jsonl" <<'EOF'; then ok; else bad "bench auto: results"; fi
import csv, json, sys
a = json.load(open(sys.argv[1]))
c = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[3])))
runs = [json.loads(l) for l in open(sys.argv[4])]
res = a["results"]
assert a["benchmark"] == "auto" and len(res) == 6 == len(rows) == len(runs), (res, rows, runs)
assert a["configurations_swept"] == len(c["configurations"]) == 16
others = 0
for r, w in zip(res, rows):
    assert r["auto_config"] == "dirac/cvode:adams" and r["auto_status"] == "ok", r
    run = [x for x in runs if x["problem"] == r["problem"] and x["tol"] == r["tol"]]
    assert len(run) == 1 and run[0]["config"] == r["auto_config"], (r, run)
    assert run[0]["err"] == r["auto_err"] and run[0]["evals"] == r["auto_evals"], (r, run)
    pts = [(p["rhs_evals"], p["int_err_final"], k["formulation"] + "/" + k["method"], p["tol"])
           for k in c["configurations"] if k["problem"] == r["problem"]
           for p in k["points"] if p["status"] == "ok" and p["int_err_final"] <= r["auto_err"]]
    least = min(e for e, _, _, _ in pts)
    assert r["best_evals"] == least, (r, least)
    assert (r["best_evals"], r["best_err"], r["best_config"], r["best_tol"]) in pts, r
    assert r["best_err"] <= r["auto_err"], r
    assert abs(r["ratio"] - r["auto_evals"] / r["best_evals"]) <= 1e-12 * r["ratio"], r
    assert r["ratio"] >= 1, r  # auto's own configuration is swept
    others += r["best_config"] != r["auto_config"]
    for k in ("auto_config", "best_config"):
        assert w[k] == r[k], (w, r)
    for k in ("tol", "auto_err", "auto_evals", "best_tol", "best_err", "best_evals", "ratio"):
        assert float(w[k]) == r[k], (k, w, r)
assert others == 4, others
assert a["worst_ratio"] == max(r["ratio"] for r in res), a["worst_ratio"]
# the grid's inner point is the double of its printed decimal (what --rtol 1e-7 gives)
assert sorted({r["tol"] for r in res}) == [1e-8, 1e-7, 1e-6], res
assert a["jitter"] == 1, a
EOF

# --jitter 3: each point is the medians of the runs at tol x 10^(d/40), d = -1, 0, 1 (error and
# evaluations medians separately), for auto's run and for every swept point alike
if "$chs" bench auto --problems andrews --formulations dirac,ssf --methods cvode:adams \
  --tols 1e-7:1e-7:1 --jitter 3 --json --quiet >"$tmp/bj.json" 2>"$tmp/bj.err"; then ok; else
  bad "bench auto --jitter 3: $(head -c 300 "$tmp/bj.err")"
fi
for f in dirac ssf; do
  for d in -1 0 1; do
    tol=$(python3 -c "print(repr(1e-7 * 10 ** ($d / 40)) if $d else '1e-07')")
    "$chs" run --problem andrews --tf 0.03 --formulation $f --method cvode:adams --rtol "$tol" \
      --atol "$tol" --every 1000000000 --json 2>/dev/null |
      jq -c --arg f $f '{f: $f, err: .int_err_final, evals: .rhs_evals}'
  done
done >"$tmp/jruns.jsonl"
if python3 - "$tmp/bj.json" "$tmp/jruns.jsonl" <<'EOF'; then ok; else bad "bench auto --jitter: medians"; fi
import json, statistics, sys
a = json.load(open(sys.argv[1]))
runs = [json.loads(l) for l in open(sys.argv[2])]
assert a["jitter"] == 3 and len(a["results"]) == 1 and len(runs) == 6, (a, runs)
r = a["results"][0]
med = {f: (statistics.median(x["err"] for x in runs if x["f"] == f),
           statistics.median(x["evals"] for x in runs if x["f"] == f)) for f in ("dirac", "ssf")}
assert (r["auto_err"], r["auto_evals"]) == med["dirac"], (r, med)
best = min((e, f) for f, (err, e) in med.items() if err <= r["auto_err"])
assert r["best_evals"] == best[0] and r["best_config"] == best[1] + "/cvode:adams", (r, med)
assert r["best_err"] == med[best[1]][0], (r, med)
EOF

echo "auto: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
