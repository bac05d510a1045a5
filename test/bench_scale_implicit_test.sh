#!/usr/bin/env bash
# `chs bench scale --implicit`: bad options exit 2 before any work; at N = 100 and
# 1000, every row's counts (steps, Newton iterations, Jacobians) are those of the `chs run` it
# stands for, its medians, ratios (per step and per run) and verdict follow from its own per-round
# times, its memory per atom is positive; with --sizes, the same counts at each size and the cost per
# atom and step and its growth from the size before follow from the rounds; a run over the time
# limit is killed and reported (exit 3).
# usage: bench_scale_implicit_test.sh PATH_TO_CHS
set -uo pipefail
chs=$1
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

b=(bench scale --implicit)
expect 2 "--max-n" -- "${b[@]}" --max-n 10
expect 2 "--rounds" -- "${b[@]}" --rounds 0
expect 2 "--rounds" -- "${b[@]}" --rounds 100
expect 2 "--problems" -- "${b[@]}" --problems chain,foo
expect 2 "--problems" -- "${b[@]}" --problems pendulum-chain,pendulum-chain
expect 2 "--time-limit" -- "${b[@]}" --time-limit 0
expect 2 "--time-limit" -- "${b[@]}" --time-limit 1e6
expect 2 "--rounds is for bench scale --implicit" -- bench scale --rounds 3
expect 2 "--problems is for bench scale --implicit" -- bench scale --problems chain
expect 2 "at least two sizes" -- "${b[@]}" --sizes 100
expect 2 "given twice" -- "${b[@]}" --sizes 100,100
expect 2 "--sizes" -- "${b[@]}" --sizes 5,100
expect 2 "--sizes" -- "${b[@]}" --sizes 100,1000,abc
expect 2 "--sizes and --max-n" -- "${b[@]}" --sizes 100,1000 --max-n 1000
expect 2 "--sizes is for bench scale --implicit" -- bench scale --sizes 100,1000
if "$chs" "${b[@]}" --max-n 1000 --dry-run >"$tmp/out" 2>&1 && has "would run bench scale --implicit" "$tmp/out"; then ok; else bad "--dry-run: $(head -c 200 "$tmp/out")"; fi

"$chs" "${b[@]}" --max-n 1000 --rounds 9 --json --quiet >"$tmp/s.json" 2>"$tmp/s.err"
st=$?
if [[ $st -eq 0 ]]; then ok; else bad "bench scale --implicit --max-n 1000: exit $st $(head -c 300 "$tmp/s.err")"; fi
# the rows' `chs run`s, at both sizes
python3 - "$tmp/s.json" >"$tmp/runs.txt" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
for r in j["results"]:
    for k, n in enumerate(j["sizes"]):
        print(r["problem"].replace("N=..", "N=%d" % n), r["formulation"], r["method"], k)
EOF
while read -r p f m k; do
  "$chs" run --problem "$p" --formulation "$f" --method "$m" --rtol 1e-6 --atol 1e-6 --tf 0.1 \
    --json >"$tmp/run_${f}_${m//[:=]/_}_${p%%:*}_$k.json" 2>/dev/null || bad "chs run $p $f $m"
done <"$tmp/runs.txt"
if python3 - "$tmp/s.json" "$tmp" <<'EOF'; then ok; else bad "bench scale --implicit JSON: $(head -c 400 "$tmp/s.json")"; fi
import json, sys, statistics
j = json.load(open(sys.argv[1]))
d = sys.argv[2]
ok = j["benchmark"] == "scale-implicit" and j["sizes"] == [100, 1000] and j["rounds"] == 9
ok = ok and j["bound"] == 12 and len(j["results"]) == 8
def close(a, b):
    return abs(a - b) <= 1e-3 * abs(b)
lin = True
undecided = 0
for r in j["results"]:
    for k in range(2):
        m = r["method"].replace(":", "_").replace("=", "_")
        run = json.load(open("%s/run_%s_%s_%s_%d.json" % (d, r["formulation"], m, r["problem"].split(":")[0], k)))
        same = (r["steps"][k], r["newton_iters"][k], r["jac_evals"][k]) == (run["steps"], run["nonlin_iters"], run["jac_evals"])
        if not same:
            print("counts differ from chs run:", r["problem"], r["formulation"], k, r, run["steps"], run["nonlin_iters"], run["jac_evals"])
        ok = ok and same
    a, b = r["cpu_per_step_s"]
    ratios = [y / x for x, y in zip(a, b)]
    rs = r["ratio_per_step"]
    ok = ok and len(a) == len(b) == 9 and all(x > 0 for x in a + b)
    ok = ok and close(r["cpu_per_step_median_s"][0], statistics.median(a)) and close(r["cpu_per_step_median_s"][1], statistics.median(b))
    ok = ok and close(rs["median"], statistics.median(ratios)) and close(rs["min"], min(ratios)) and close(rs["max"], max(ratios))
    ok = ok and r["linear"] == (rs["median"] <= 12)
    # the median's interval: order statistics j and n + 1 - j, j the largest with coverage >= 95 %
    # (9 rounds: j = 2, 1 - 2 (1 + 9) / 2^9); the verdict: undecided when the interval holds 12
    s = sorted(ratios)
    ok = ok and close(rs["median_ci"][0], s[1]) and close(rs["median_ci"][1], s[-2]) and close(rs["ci_coverage"], 1 - 20 / 512)
    want = "undecided" if s[1] <= 12 < s[-2] else ("linear" if r["linear"] else "NOT linear")
    ok = ok and r["verdict"] == want
    undecided += want == "undecided"
    # whole runs: each round's CPU time is its per-step time times its steps; their ratios
    ca, cb = r["cpu_s"]
    ok = ok and all(close(c, p * r["steps"][0]) for c, p in zip(ca, a)) and all(close(c, p * r["steps"][1]) for c, p in zip(cb, b))
    rr = [y / x for x, y in zip(ca, cb)]
    ru = r["ratio_per_run"]
    ok = ok and close(ru["median"], statistics.median(rr)) and close(ru["min"], min(rr)) and close(ru["max"], max(rr))
    ok = ok and all(x > 0 for x in r["peak_rss_bytes_per_atom"])
    # the Krylov rows iterate, the KLU rows evaluate Jacobians
    ok = ok and (r["krylov_iters"][1] > 0 if "spgmr" in r["method"] else r["jac_evals"][1] > 0)
    lin = lin and r["linear"]
ok = ok and j["all_linear"] == lin and j["undecided"] == undecided
sys.exit(0 if ok else 1)
EOF

# --sizes: the cost per atom and step at each size (sorted), its growth from the size before
"$chs" "${b[@]}" --problems pendulum-chain --sizes 1000,100,300 --rounds 3 --json --quiet >"$tmp/z.json" 2>"$tmp/z.err"
st=$?
if [[ $st -eq 0 ]]; then ok; else bad "bench scale --implicit --sizes: exit $st $(head -c 300 "$tmp/z.err")"; fi
for n in 100 300 1000; do
  for f in dae-index3 dae-ggl dae-index1; do
    "$chs" run --problem "pendulum-chain:N=$n" --formulation "$f" --method ida:ls=klu --rtol 1e-6 \
      --atol 1e-6 --tf 0.1 --json >"$tmp/zrun_${f}_$n.json" 2>/dev/null || bad "chs run $f N=$n"
  done
done
if python3 - "$tmp/z.json" "$tmp" <<'EOF'; then ok; else bad "bench scale --implicit --sizes JSON: $(head -c 400 "$tmp/z.json")"; fi
import json, sys, statistics
j = json.load(open(sys.argv[1]))
d = sys.argv[2]
ok = j["benchmark"] == "scale-implicit-sizes" and j["sizes"] == [100, 300, 1000] and j["rounds"] == 3
ok = ok and [r["formulation"] for r in j["results"]] == ["dae-index3", "dae-ggl", "dae-index1"]
def close(a, b):
    return abs(a - b) <= 1e-3 * abs(b)
for r in j["results"]:
    ps = r["per_size"]
    ok = ok and [p["n"] for p in ps] == j["sizes"]
    for k, p in enumerate(ps):
        run = json.load(open("%s/zrun_%s_%d.json" % (d, r["formulation"], p["n"])))
        same = (p["steps"], p["newton_iters"], p["jac_evals"]) == (run["steps"], run["nonlin_iters"], run["jac_evals"])
        if not same:
            print("counts differ from chs run:", r["formulation"], p["n"], p, run["steps"], run["nonlin_iters"], run["jac_evals"])
        ok = ok and same and len(p["cpu_per_step_s"]) == 3 and all(x > 0 for x in p["cpu_per_step_s"])
        m = statistics.median(p["cpu_per_step_s"])
        ok = ok and close(p["cpu_per_step_median_s"], m) and close(p["cpu_per_atom_step_median_s"], m / p["n"])
        ok = ok and p["peak_rss_bytes_per_atom"] > 0
        g = p["per_atom_vs_before"]
        if k == 0:
            ok = ok and g is None
            continue
        q = ps[k - 1]
        # each round's cost per atom and step over the same round's at the size before; with 3
        # rounds the interval is the least and largest (coverage 1 - 2 / 2^3)
        w = sorted((b / p["n"]) / (a / q["n"]) for a, b in zip(q["cpu_per_step_s"], p["cpu_per_step_s"]))
        ok = ok and close(g["median"], statistics.median(w)) and close(g["min"], w[0]) and close(g["max"], w[-1])
        ok = ok and close(g["median_ci"][0], w[0]) and close(g["median_ci"][1], w[-1]) and close(g["ci_coverage"], 0.75)
sys.exit(0 if ok else 1)
EOF

# a run over the time limit: killed, reported, exit 3
"$chs" "${b[@]}" --problems pendulum-chain --rounds 1 --time-limit 0.5 >"$tmp/k.out" 2>"$tmp/k.err"
st=$?
if [[ $st -eq 3 ]] && has "killed at the time limit" "$tmp/k.err" && has "FAILED" "$tmp/k.out" &&
  ! has -i nan "$tmp/k.out"; then ok; else bad "time limit: exit $st $(head -c 300 "$tmp/k.err")"; fi

echo "bench_scale_implicit_test: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
