#!/usr/bin/env bash
# `chs run --output`, `--csv`, the JSON "records" and `--plot --plot-vars` against independent
# truths: the pendulum's tension from energy conservation (H = |p|^2/2 + y, g = (|q|^2 - 1)/2:
# lambda = |v|^2 + q . F = 2 H0 - 3 y on the manifold), the reactions R = -q lambda, the default
# CSV unchanged by --output's default keys, and the bad-input contract of the new options.
# The problem's names in the headers, the JSON keys and --plot-vars: the example plugin with
# names, and with names unfit for a CSV header or a script (the numbered names instead).
# usage: outputs_cli_test.sh PATH_TO_CHS PLUGIN_DIR
set -uo pipefail
chs=$1
plugins=$2
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"

pend=(run --problem pendulum --formulation dirac --quiet)

# The acceptance command: the tension to 1e-8 at every output time (H0 = 2 from (1, 0, 0, -2)).
"$chs" "${pend[@]}" --method erk:dp5 --rtol 1e-10 --atol 1e-10 --tf 10 --output t,q,lambda \
  --csv "$tmp/out.csv" >/dev/null || bad "acceptance run failed"
# (the pendulum's own column names are whatever it declares: checked here by position and prefix,
# the names themselves with the plugins below)
if head -1 "$tmp/out.csv" | has -E '^t,[^,]+,[^,]+,lambda[^,]*$'; then ok; else bad "header: $(head -1 "$tmp/out.csv")"; fi
worst=$(awk -F, 'NR > 1 { d = $4 - (2 * 2 - 3 * $3); if (d < 0) d = -d; if (d > m) m = d; n++ }
                 END { if (n < 100) print "few"; else printf "%.3g", m }' "$tmp/out.csv")
if awk -v w="$worst" 'BEGIN { exit !(w != "few" && w <= 1e-8) }'; then ok; else bad "tension off the closed form by $worst (want <= 1e-8)"; fi

# --output all: every column; R = -q lambda and v = p (mass 1) in each row.
"$chs" "${pend[@]}" --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 2 --output all --out "$tmp/all.csv" >/dev/null || bad "--output all failed"
if head -1 "$tmp/all.csv" | has -E '^t,[^,]+,[^,]+,p[^,]+,p[^,]+,v[^,]+,v[^,]+,lambda[^,]*,R[^,]+,R[^,]+,energy,energy_err,pos_res,mom_res,int_err$'; then ok; else bad "--output all header: $(head -1 "$tmp/all.csv")"; fi
IFS=, read -r _ x y _ _ _ _ lam r1 _ <"$tmp/all.csv" # the pendulum's column names
if awk -F, 'NR > 1 { for (k = 0; k < 2; k++) { r = $(9 + k) + $(2 + k) * $8; v = $(6 + k) - $(4 + k);
       if (r < -1e-12 || r > 1e-12 || v != 0) bad = 1 } n++ } END { exit bad || n < 10 }' "$tmp/all.csv"; then ok; else bad "R != -q lambda or v != p in all.csv"; fi

# The default columns: --output with the default keys writes the same bytes as no --output.
"$chs" "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --out "$tmp/d1.csv" >/dev/null
"$chs" "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --out "$tmp/d2.csv" \
  --output t,q,p,energy,energy_err,pos_res,mom_res,int_err >/dev/null
if cmp -s "$tmp/d1.csv" "$tmp/d2.csv" && head -1 "$tmp/d1.csv" | has -E '^t,[^,]+,[^,]+,p[^,]+,p[^,]+,energy,energy_err,pos_res,mom_res,int_err$'; then ok; else bad "default CSV differs from --output's default keys"; fi

# JSON: "records" holds the selected columns, as many values as CSV rows, and the other keys are
# those of a run without --output.
"$chs" "${pend[@]}" --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 1 --json --output t,lambda,reaction --out "$tmp/j.csv" >"$tmp/j.json"
"$chs" "${pend[@]}" --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 1 --json >"$tmp/n.json"
if python3 - "$tmp/j.json" "$tmp/n.json" "$tmp/j.csv" "$measured_keys" <<'PY'; then ok; else bad "JSON records"; fi
import csv, json, re, sys
j, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[3])))
rec = j.pop("records")
measured = re.compile("^(" + sys.argv[4] + ")$")
assert len(rec) == 4 and list(rec)[0] == "t", list(rec)
assert [k[:1] for k in list(rec)[1:]] == ["l", "R", "R"], list(rec)
assert all(len(v) == len(rows) for v in rec.values())
for name, vals in rec.items():
    assert all(float(r[name]) == v for r, v in zip(rows, vals)), name
assert abs(list(rec.values())[1][0] - 4) < 1e-15
keys = [k for k in j if not measured.match(k)]
assert keys == [k for k in n if not measured.match(k)], (keys, list(n))
assert all(j[k] == n[k] for k in keys if k != "warnings"), [k for k in keys if j[k] != n[k]]
PY

# --plot-vars: a PNG of output columns against t, and of one against another.
if command -v gnuplot >/dev/null; then
  for vars in "$x,$y,$lam" "$x:$y" "$r1,energy_err"; do
    rm -f "$tmp/tr.png"
    "$chs" "${pend[@]}" --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 4 --plot "$tmp/tr.png" --plot-vars "$vars" >/dev/null 2>"$tmp/err"
    if [[ $(head -c 8 "$tmp/tr.png" 2>/dev/null | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]]; then ok; else bad "--plot-vars $vars: no PNG ($(head -c 300 "$tmp/err"))"; fi
  done
fi

# Names: the plugin's (x, y, z, rod) in the CSV header, the JSON keys and --plot-vars; a plugin
# with hostile names ("x,y", a quote, "$(touch PWNED)", a newline) is refused at load (exit 2,
# naming the entry), before any output.
named=(run --problem "$plugins/libchs_names_plugin_1.so" --formulation dirac --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 1 --quiet)
"$chs" "${named[@]}" --output all --out "$tmp/n1.csv" --json >"$tmp/n1.json" || bad "named plugin run failed"
want="t,x,y,z,p_x,p_y,p_z,v_x,v_y,v_z,lambda_rod,R_x,R_y,R_z,energy,energy_err,pos_res,mom_res,int_err"
if [[ $(head -1 "$tmp/n1.csv") == "$want" ]]; then ok; else bad "named header: $(head -1 "$tmp/n1.csv")"; fi
if python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["records"]; assert list(r) == sys.argv[2].split(","), list(r)' "$tmp/n1.json" "$want"; then ok; else bad "named JSON records keys"; fi
st=0
"$chs" run --problem "$plugins/libchs_names_plugin_2.so" --formulation dirac --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 1 --quiet --output t,q,lambda --out "$tmp/n2.csv" >/dev/null 2>"$tmp/n2.err" || st=$?
if [[ $st -eq 2 && ! -e "$tmp/n2.csv" && ! -e PWNED ]] && grep -q 'coordinate_names\[0\] = "x,y" is not a valid name' "$tmp/n2.err"; then ok; else bad "hostile names: exit $st, $(head -2 "$tmp/n2.err")"; fi
if command -v gnuplot >/dev/null; then
  rm -f "$tmp/n.png"
  "$chs" "${named[@]}" --plot "$tmp/n.png" --plot-vars x:y,x:z >/dev/null 2>"$tmp/err"
  if [[ -s $tmp/n.png ]]; then ok; else bad "--plot-vars x:y,x:z on the named plugin: $(head -c 300 "$tmp/err")"; fi
fi
expect 2 "'nosuch'" -- "${named[@]}" --plot "$tmp/bad.png" --plot-vars nosuch
if [[ -e PWNED || -e $tmp/PWNED ]]; then bad "a name reached a shell"; else ok; fi

# Bad input: exit 2 naming the key or name, before any work, no file written.
expect 2 "'lamda'" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --output t,lamda --out "$tmp/bad.csv"
expect 2 "lambda, reaction" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --output t,lamda --out "$tmp/bad.csv"
expect 2 "given twice" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --output t,q,t --out "$tmp/bad.csv"
expect 2 "empty key" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --output t,,q --out "$tmp/bad.csv"
expect 2 "'all' goes alone" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --output all,t --out "$tmp/bad.csv"
expect 2 "give one of them" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --output t,q
expect 2 "'zz'" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --plot "$tmp/bad.png" --plot-vars "$x,zz"
expect 2 "'lambda_nosuch'" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --plot "$tmp/bad.png" --plot-vars lambda_nosuch
expect 2 "X:Y" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --plot "$tmp/bad.png" --plot-vars "$x:$y,$x"
expect 2 "give --plot" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --plot-vars "$x"
expect 2 "--csv" -- "${pend[@]}" --method erk:rk4 --h 0.1 --tf 1 --out "$tmp/bad.csv" --csv "$tmp/bad2.csv"
expect 2 "first-order" -- run --problem fj-example --method erk:rk4 --h 0.01 --tf 1 --output t,q --json
if compgen -G "$tmp/bad*" >/dev/null; then bad "a refused command wrote $(ls "$tmp"/bad*)"; else ok; fi

echo "outputs_cli: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
