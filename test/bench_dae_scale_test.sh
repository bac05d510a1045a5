#!/usr/bin/env bash
# `chs bench dae --scale`: bad options exit 2 before any work; at N = 100 (pendulum
# chain, two targets, short time limit) the JSON has its structure, every chosen configuration's
# error is at most its target and it is the cheapest such run of its side, every ERK table of
# `chs list methods` was a candidate (run or skipped with a reason), the ratio is the quotient of
# the chosen CPU times, and the CSV holds the same numbers exactly (%.17g round trip).
# usage: bench_dae_scale_test.sh PATH_TO_CHS
set -uo pipefail
chs=$1
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

b=(bench dae --scale)
expect 2 "--sizes" -- "${b[@]}" --sizes 1
expect 2 "--sizes" -- "${b[@]}" --sizes 100,x
expect 2 "--sizes" -- "${b[@]}" --sizes 2000000
expect 2 "given twice" -- "${b[@]}" --sizes 100,100
expect 2 "--sizes" -- "${b[@]}" --sizes ''
expect 2 "--targets" -- "${b[@]}" --targets 2
expect 2 "--targets" -- "${b[@]}" --targets 1e-4,nan
expect 2 "--tf" -- "${b[@]}" --tf -1
expect 2 "--time-limit" -- "${b[@]}" --time-limit 0
expect 2 "--problems" -- "${b[@]}" --problems chain,foo
expect 2 "--problems" -- "${b[@]}" --problems chain,chain
expect 2 "given twice" -- "${b[@]}" --json --json
expect 2 "needs a value" -- "${b[@]}" --tf
expect 2 "not valid for chs bench dae" -- "${b[@]}" --evals 3
expect 2 "belong to chs bench dae --scale" -- bench dae --sizes 100
expect 2 "--problems, not --problem" -- "${b[@]}" --problem pendulum
expect 2 "--csv" -- "${b[@]}" --csv "$tmp/no/such/dir/x.csv"
expect 2 "cannot be combined" -- "${b[@]}" --no-cache --cache-dir "$tmp/c"
# a bad option after good ones: exit 2 before any run (nothing on stdout)
"$chs" "${b[@]}" --sizes 100 --problems chain --json --tf 0 >"$tmp/out" 2>"$tmp/err"
st=$?
if [[ $st -eq 2 && ! -s $tmp/out ]]; then ok; else bad "--tf 0: exit $st, stdout $(head -c 200 "$tmp/out")"; fi
if "$chs" "${b[@]}" --help | has -- "--targets"; then ok; else bad "--help"; fi

"$chs" list methods | sed -n 's/^ *\(erk:ARKODE_[A-Za-z0-9_]*\)$/\1/p' >"$tmp/erk.txt"
"$chs" "${b[@]}" --sizes 100 --problems pendulum-chain --targets 1e-4,1e-6 --time-limit 3 \
  --cache-dir "$tmp/cache" --json --csv "$tmp/s.csv" >"$tmp/s.json" 2>"$tmp/s.err"
st=$?
if [[ $st -eq 0 ]]; then ok; else bad "bench dae --scale N=100: exit $st: $(head -c 300 "$tmp/s.err")"; fi
# progress goes to stderr only on a terminal
if [[ ! -s $tmp/s.err ]]; then ok; else bad "stderr not empty: $(head -c 300 "$tmp/s.err")"; fi
if python3 - "$tmp/s.json" "$tmp/s.csv" "$tmp/erk.txt" <<'EOF'; then ok; else bad "bench dae --scale JSON/CSV: $(head -c 400 "$tmp/s.json")"; fi
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["benchmark"] == "dae-scale" and d["tf"] == 0.1
(r,) = d["results"]
assert r["problem"] == "pendulum-chain:N=100" and r["N"] == 100 and r["states"] > 0
assert r["reference"]["source"] == "computed" and 0 <= r["reference"]["est_error"] < 1e-8
names = {x["config"] for x in r["runs"]} | {x["config"] for x in r["skipped"]}
for m in open(sys.argv[3]).read().split():
    assert "dirac/" + m in names, m
assert any("KNOTH_WOLKE" in s["config"] and "embedded" in s["reason"] for s in r["skipped"])
for s in ("dae-index3", "dae-ggl", "dae-index1"):
    assert s + "/ida:ls=klu" in names and s + "/ida:ls=spgmr" in names, s
assert any(x["config"].startswith("standard/rattle") for x in r["runs"])
targets = [t["target_error"] for t in r["targets"]]
assert targets == [1e-4, 1e-6], targets
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 4, rows
for t in r["targets"]:
    # a target below the reference's estimated error is not checkable: nothing chosen there
    assert t["checkable"] == (t["target_error"] >= r["reference"]["est_error"]), t
    for side, dae in (("ode", True), ("dae", False)):
        p = t[side]
        assert p is not None, (t, side)
        assert p["error"] <= t["target_error"], (t, side)
        assert p["evals"] > 0 and p["cpu_s"] > 0 and p["peak_rss_bytes"] > 1e6
        is_dae = p["config"].startswith("dae-")
        assert is_dae == (side == "dae"), p
        # the cheapest run of its side at or below the target
        same = [x for x in r["runs"] if x["ok"] and x["config"].startswith("dae-") == is_dae
                and x["error"] <= t["target_error"]]
        assert min(x["cpu_s"] for x in same) == p["cpu_s"], (side, p)
        (row,) = [w for w in rows if float(w["target_error"]) == t["target_error"] and w["side"] == side]
        assert row["config"] == p["config"] and float(row["error"]) == p["error"]
        assert float(row["cpu_s"]) == p["cpu_s"] and int(row["evals"]) == p["evals"]
    assert t["cpu_ratio_ode_over_dae"] == t["ode"]["cpu_s"] / t["dae"]["cpu_s"]
    assert float(rows[0]["cpu_ratio_ode_over_dae"]) > 0
EOF
# the reference and its estimate (the run at 10 tol, made in a forked child) equal two `chs run`s
for tol in 1e-13 1e-12; do
  "$chs" run --problem pendulum-chain:N=100 --formulation dirac --method erk:ARKODE_VERNER_8_5_6 \
    --rtol $tol --atol $tol --tf 0.1 --every 1000000000 --quiet --out "$tmp/r$tol.csv" >/dev/null
done
if python3 - "$tmp/s.json" "$tmp/cache" "$tmp/r1e-13.csv" "$tmp/r1e-12.csv" <<'EOF'; then ok; else bad "reference != chs run"; fi
import glob, json, math, sys
(r,) = json.load(open(sys.argv[1]))["results"]
def final(path):
    rows = open(path).read().split()
    head, last = rows[0].split(","), rows[-1].split(",")
    return [float(v) for v in last[1:head.index("energy")]]  # q, p: between t and energy
z13, z12 = final(sys.argv[3]), final(sys.argv[4])
(entry,) = [f for f in glob.glob(sys.argv[2] + "/ref-*.txt") if "pendulum-chain:N=100 " in open(f).read()]
lines = dict(l.split(" ", 1) for l in open(entry).read().splitlines() if " " in l)
zc = [float(v) for v in lines["z"].split()]
assert zc == z13, "cached reference != chs run at 1e-13"
est = math.sqrt(sum((a - b) ** 2 for a, b in zip(z13, z12)))
assert abs(r["reference"]["est_error"] - est) <= 1e-12 * est, (r["reference"]["est_error"], est)
EOF
# the reference is cached: a second run reads it
"$chs" "${b[@]}" --sizes 100 --problems pendulum-chain --targets 1e-4 --time-limit 3 \
  --cache-dir "$tmp/cache" >"$tmp/t.txt" 2>&1
st=$?
if [[ $st -eq 0 ]] && has "cached, est. error" "$tmp/t.txt" && has -E '^ +1e-04 DAE +dae-' "$tmp/t.txt"; then ok; else bad "second run (cached reference): exit $st $(head -c 400 "$tmp/t.txt")"; fi

echo "bench_dae_scale_test: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
