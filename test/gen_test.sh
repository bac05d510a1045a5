#!/usr/bin/env bash
# chs-gen: installs chs (with chs-gen) from the build tree into a temporary prefix, generates and
# builds every description in examples/symbolic against that prefix (-Werror), and checks
#   - the generated callbacks against the built-in `pendulum` / `double-pendulum` and the
#     hand-written problems/examples/spherical_pendulum.c at random points (gen_harness compare,
#     1e-13 relative), at default and other parameters, with dense and CSR Jacobians;
#   - every generated derivative against finite differences (gen_harness check), including M(q)
#     and the time derivatives, and the initial state's consistency;
#   - values of the M(q) and time-dependent examples against formulas computed by hand;
#   - runs through `chs run` (constant-mass examples) and the error paths of chs-gen and of the
#     generated plugins' parameters.
# Exit status 77 (skipped) when python3, SymPy, cmake or a C compiler is missing.
# usage: gen_test.sh SOURCE_DIR BUILD_DIR GEN_HARNESS
set -euo pipefail
src=$1
bin=$2
harness=$3

if ! command -v python3 >/dev/null || ! python3 -c 'import sympy' 2>/dev/null; then
  echo "SKIP: chs-gen needs python3 with SymPy (Debian: python3-sympy)"
  exit 77
fi
if ! command -v cmake >/dev/null || ! command -v "${CC:-cc}" >/dev/null; then
  echo "SKIP: chs-gen --build needs cmake and a C compiler"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cmake --install "$bin" --prefix "$tmp/prefix" >"$tmp/install.log"
gen="$tmp/prefix/bin/chs-gen"
chs="$tmp/prefix/bin/chs"
[[ -x $gen ]] || fail "chs-gen was not installed"
flags=""
if grep -q '^CHS_SANITIZE:BOOL=ON' "$bin/CMakeCache.txt"; then
  flags="-fsanitize=address,undefined"
fi

# generate DESCRIPTION OUTDIR [chs-gen options]: prints the plugin's path
generate() {
  local desc=$1 out=$2
  shift 2
  # (no --chs-prefix: the installed chs-gen builds against the chs installed with it)
  "$gen" "$src/examples/symbolic/$desc" -o "$out" --build --werror \
    --cmake-arg="-DCMAKE_C_FLAGS=$flags" --cmake-arg="-DCMAKE_MODULE_LINKER_FLAGS=$flags" "$@" \
    >"$out.log" 2>&1 || { cat "$out.log"; fail "chs-gen $desc"; }
  tail -n 1 "$out.log"
}

# An output directory whose name a shell would misread: chs-gen never hands paths to a shell.
odd="$tmp/out dir \$(touch pwned) \`touch pwned\`"
pend=$(generate pendulum.py "$odd")
[[ $pend == "$odd/libpendulum_sym.so" && -f $pend ]] || fail "pendulum plugin not at $pend"
[[ ! -e pwned && ! -e "$tmp/pwned" ]] || fail "a path reached a shell"
rc=0
"$gen" "$src/examples/symbolic/pendulum.py" -o "$tmp/semi;colon" --build >"$tmp/semi.log" 2>&1 || rc=$?
[[ $rc == 2 ]] && grep -q "containing ';'" "$tmp/semi.log" || fail "';' in the output path: $rc"
dpend=$(generate double_pendulum.py "$tmp/dpend")
dpend_dense=$(generate double_pendulum.py "$tmp/dpend-dense" --jacobian dense)
grep -q 'd->jac_kind = CHS_JAC_CSR' "$tmp/dpend/double_pendulum_sym.c" ||
  fail "double pendulum: auto layout should be CSR (6 of 8 entries non-zero)"
grep -q 'd->jac_kind = CHS_JAC_DENSE' "$tmp/dpend-dense/double_pendulum_sym.c" ||
  fail "double pendulum: --jacobian dense ignored"
grep -q 'd->jac_kind = CHS_JAC_DENSE' "$(dirname "$pend")/pendulum_sym.c" ||
  fail "pendulum: auto layout should be dense (G has no zero)"
sph=$(generate spherical_pendulum.py "$tmp/sph")
mech=$(generate spherical_pendulum_mechanics.py "$tmp/mech")
fourbar=$(generate four_bar.py "$tmp/fourbar")
grep -q 'd->jac_kind = CHS_JAC_CSR' "$tmp/fourbar/four_bar.c" ||
  fail "four-bar: auto layout should be CSR (24 of 72 entries non-zero)"
polar=$(generate polar_pendulum.py "$tmp/polar")
moving=$(generate moving_support.py "$tmp/moving")
andrews=$(generate andrews.py "$tmp/andrews")
example="$(dirname "$harness")/libchs_example_plugin.so"

# 1. Generated = built-in / hand-written, callback by callback.
"$harness" compare "$pend" pendulum
"$harness" compare "$pend:length=1.3,mass=2,gscale=1,gravity=0.5" \
  "pendulum:length=1.3,mass=2,gscale=1,gravity=0.5"
"$harness" compare "$dpend" double-pendulum
"$harness" compare "$dpend:m1=0.7,m2=1.3,L1=1.2,L2=0.8,theta1=0.3,omega2=2" \
  "double-pendulum:m1=0.7,m2=1.3,L1=1.2,L2=0.8,theta1=0.3,omega2=2,sparse=0"
"$harness" compare "$dpend_dense" double-pendulum:sparse=0
"$harness" compare "$dpend_dense" double-pendulum
for p in "$sph" "$mech"; do
  "$harness" compare "$p" "$example"
  "$harness" compare "$p:length=2,mass=3,gravity=2,depth=1.1" \
    "$example:length=2,mass=3,gravity=2,depth=1.1"
done
# Andrews' squeezer (M(q), trigonometric constraints, spring): every callback, mass_matrix,
# mass_dir and mass_grad included, at the initial state, near it and at random points (1e-12)
"$harness" compare "$andrews" andrews 1e-12
# ... and the comparison can fail: a different parameter is noticed.
if "$harness" compare "$pend:mass=2" pendulum >"$tmp/neg.log"; then
  fail "gen_harness compare did not notice mass=2 vs mass=1"
fi
grep -q MISMATCH "$tmp/neg.log" || fail "no MISMATCH line for mass=2 vs mass=1"
if "$harness" compare "$andrews:mom=0.0331" andrews 1e-12 >"$tmp/neg.log"; then
  fail "gen_harness compare did not notice a drive torque 0.0331 vs 0.033"
fi
grep -q "MISMATCH force" "$tmp/neg.log" || fail "no MISMATCH force line for mom=0.0331"

# 2. Every derivative against finite differences; declared facts; initial states.
for p in "$pend" "$dpend" "$dpend_dense" "$sph" "$mech" "$fourbar" "$polar" "$moving" "$andrews"; do
  "$harness" check "$p"
done
"$harness" check "$polar:mass=2,length=1.5,theta0=-1"
"$harness" check "$moving:amplitude=0.5,Omega=2,eps=0.3"
# ... and the check can fail: the built-in pendulum (ABI 3) leaves hessian_potential NULL, which
# a version-3 table must declare (CHS_DECLARE_LINEAR_POTENTIAL).
if "$harness" check pendulum >"$tmp/neg2.log"; then
  if ! grep -q "declares 0x3" "$tmp/neg2.log"; then
    fail "gen_harness check accepted NULL derivatives without declarations"
  fi
fi

# 3. Values against formulas computed by hand.
# close NAME EXPECTED...: the line NAME of $out equals EXPECTED to 1e-14 (absolute + relative)
close() {
  local name=$1
  shift
  local got
  got=$(awk -v n="$name" '$1 == n { $1 = ""; print }' <<<"$out")
  awk -v got="$got" -v want="$*" -v n="$name" 'BEGIN {
    k = split(got, a, " "); l = split(want, b, " ");
    if (k != l) { print "FAIL: " n ": " k " values, expected " l; exit 1 }
    for (i = 1; i <= k; i++) {
      d = a[i] - b[i]; if (d < 0) d = -d; s = b[i] < 0 ? -b[i] : b[i];
      if (d > 1e-14 * (1 + s)) { print "FAIL: " n "[" i "] = " a[i] ", expected " b[i]; exit 1 }
    } }' || fail "$name"
}
# polar pendulum, mass 2, length 1.5 at (r, theta) = (2, 0.3): M = diag(m, m r^2),
# V = -m g r cos(theta), F = (m g cos(theta), -m g r sin(theta)), g = (r^2 - L^2)/2, G = (r, 0);
# initial state: r0 = 1.2 -> r = L by Newton, v_r projected away, p = (0, m L^2 omega0).
out=$("$harness" eval "$polar:mass=2,length=1.5" 0 2,0.3)
read -r c s < <(awk 'BEGIN { printf "%.17g %.17g\n", cos(0.3), sin(0.3) }')
close V "$(awk -v c="$c" 'BEGIN { printf "%.17g", -4 * c }')"
close F "$(awk -v c="$c" -v s="$s" 'BEGIN { printf "%.17g %.17g", 2 * c, -4 * s }')"
close g 0.875
close G 2 0
close M 2 0 0 8
close q0 1.5 0.5
close p0 0 4.5
# initial_guess: the description's q0 and v0 as stated (r0 = 1.2 off the constraint, vr0 = 0.3
# not yet projected away); for the Cartesian pendulum, stated with p0 = (0, -2), v0 = p0 / mass.
close guess_q 1.2 0.5
close guess_v 0.3 1
out=$("$harness" eval "$pend:mass=2" 0 1,0)
close guess_q 1 0
close guess_v 0 -1
# chs run --fix from that guess: r made consistent (r = L), theta not held but untouched (the
# minimum-norm step moves r only), omega held at the given 0.7, the radial velocity projected
# away: p = (0, m L^2 0.7); holding the radial velocity 0.3 admits no consistent state.
"$chs" run --problem "$polar:mass=2,length=1.5" --formulation dirac --method erk:dp5 \
  --rtol 1e-10 --atol 1e-10 --tf 0 --fix v2=0.7 --out "$tmp/fix.csv" --quiet >/dev/null ||
  fail "chs run --fix v2=0.7 on the polar pendulum"
out=$(awk -F, 'NR == 2 { printf "q0 %s %s\np0 %s %s\n", $2, $3, $4, $5 }' "$tmp/fix.csv")
close q0 1.5 0.5
close p0 0 3.15
rc=0
"$chs" run --problem "$polar" --formulation dirac --method erk:dp5 --rtol 1e-10 --atol 1e-10 \
  --tf 1 --fix v1 --quiet >/dev/null 2>"$tmp/fix.err" || rc=$?
[[ $rc == 2 ]] && grep -q 'held components v:r admit no consistent state' "$tmp/fix.err" ||
  fail "--fix v1 on the polar pendulum: exit $rc, $(cat "$tmp/fix.err")"
# moving support at t = 0.5, q = (0.3, -0.9): x_s = A sin(W t), g_t = -(x - x_s) A W cos(W t),
# g_tt = (A W cos(W t))^2 + (x - x_s) A W^2 sin(W t); V = m g (1 + eps cos(W t)) y.
out=$("$harness" eval "$moving:amplitude=0.2,Omega=3,eps=0.1" 0.5 0.3,-0.9)
close gt "$(awk 'BEGIN { xs = 0.2 * sin(1.5); printf "%.17g", -(0.3 - xs) * 0.6 * cos(1.5) }')"
close gtt "$(awk 'BEGIN { xs = 0.2 * sin(1.5); c = 0.6 * cos(1.5);
                           printf "%.17g", c * c + (0.3 - xs) * 1.8 * sin(1.5) }')"
close V "$(awk 'BEGIN { printf "%.17g", (1 + 0.1 * cos(1.5)) * -0.9 }')"
close G "$(awk 'BEGIN { printf "%.17g", 0.3 - 0.2 * sin(1.5) }')" -0.9

# 4. Through chs: the constant-mass examples integrate with g, psi and H (or the exact solution)
#    where they should be.
json() { sed -n "s/^  \"$1\": \(.*\),\$/\1/p" <<<"$run"; }
below() { awk -v e="$1" -v l="$2" 'BEGIN { exit !(e != "" && e != "null" && e < l) }'; }
for f in dirac standard; do
  run=$("$chs" run --problem "$pend" --formulation $f --method erk:dp5 --rtol 1e-10 --atol 1e-10 \
    --tf 5 --json) || fail "chs run pendulum $f"
  ref=$("$chs" run --problem pendulum --formulation $f --method erk:dp5 --rtol 1e-10 \
    --atol 1e-10 --tf 5 --json)
  [[ $(json energy_err_max) == $(sed -n 's/^  "energy_err_max": \(.*\),$/\1/p' <<<"$ref") ]] ||
    fail "pendulum-sym with $f: energy error $(json energy_err_max) differs from the built-in's"
done
run=$("$chs" run --problem "$sph:depth=0.6" --formulation dirac --method erk:dp5 --rtol 1e-10 \
  --atol 1e-10 --tf 5 --json) || fail "chs run spherical-pendulum-sym"
below "$(json int_err_final)" 1e-6 || fail "spherical-pendulum-sym: error to the exact orbit $(json int_err_final)"
# its invariant's name lives in the plugin: chs run once printed it after unloading the plugin
# (SIGSEGV); now the drift of L_z is reported under its name, in JSON and in the text summary
drift=$(sed -n 's/^  "invariant_err_max": {"angular momentum z": \(.*\)}$/\1/p' <<<"$run")
below "$drift" 1e-8 || fail "spherical-pendulum-sym: L_z drift '$drift'"
run=$("$chs" run --problem "$sph:depth=0.6" --formulation dirac --method erk:dp5 --rtol 1e-10 \
  --atol 1e-10 --tf 5) || fail "chs run spherical-pendulum-sym (text)"
grep -q "angular momentum z *max" <<<"$run" || fail "no invariant line in the summary"
run=$("$chs" run --problem "$dpend" --formulation dirac --method erk:dp5 --rtol 1e-10 \
  --atol 1e-10 --tf 5 --json) || fail "chs run double-pendulum-sym"
below "$(json energy_err_max)" 1e-7 || fail "double-pendulum-sym: energy error $(json energy_err_max)"
# the four-bar's non-quadratic constraints and non-linear V reach extended/total (constraint_third,
# hessian_potential)
for f in dirac extended total; do
  tf=5
  [[ $f == total ]] && tf=1
  run=$("$chs" run --problem "$fourbar" --formulation $f --method erk:dp5 --rtol 1e-10 \
    --atol 1e-10 --tf $tf --json) || fail "chs run four-bar $f"
  below "$(json energy_err_max)" 1e-7 || fail "four-bar $f: energy error $(json energy_err_max)"
  below "$(json pos_res_max)" 1e-7 || fail "four-bar $f: |g| $(json pos_res_max)"
  echo "four-bar through $f: energy error $(json energy_err_max), |g| $(json pos_res_max)"
done

# Andrews through chs: the generated plugin and the built-in reach the same final state (the same
# steps; round-off only), and both the test set's published positions at t = 0.03.
last_row() { tail -n 1 "$1" | cut -d, -f2-15; }
for p in andrews "$andrews"; do
  "$chs" run --problem "$p" --formulation dirac --method erk:dp5 --rtol 1e-8 --atol 1e-8 \
    --tf 0.03 --out "$tmp/andrews-run.csv" >/dev/null || fail "chs run $p"
  last_row "$tmp/andrews-run.csv" >"$tmp/andrews-$([[ $p == andrews ]] && echo builtin || echo gen).txt"
done
awk -F, -v a="$(cat "$tmp/andrews-gen.txt")" -v b="$(cat "$tmp/andrews-builtin.txt")" 'BEGIN {
  k = split(a, x, ","); l = split(b, y, ",");
  if (k != 14 || l != 14) { print "FAIL: andrews final rows: " k ", " l " values"; exit 1 }
  split("15.81077119629904 -15.75637105984298 0.04082224013073101 -0.5347301163226948 " \
        "0.5244099658805304 0.5347301163226948 1.048080741042263", ref, " ");
  for (i = 1; i <= 14; i++) {
    d = x[i] - y[i]; d = d < 0 ? -d : d; s = y[i] < 0 ? -y[i] : y[i]; s = s > 1e-3 ? s : 1e-3;
    if (d > 1e-9 * s) { print "FAIL: andrews-sym final state[" i "] " x[i] " vs built-in " y[i]; exit 1 }
    if (i <= 7) {
      d = x[i] - ref[i]; d = d < 0 ? -d : d; s = ref[i] < 0 ? -ref[i] : ref[i];
      if (d > 1e-5 * (s > 1 ? s : 1)) { print "FAIL: andrews-sym q" i "(0.03) " x[i] " vs " ref[i]; exit 1 }
    }
  } }' || fail "andrews-sym run"
echo "andrews-sym: the final state of chs run equals the built-in's"

# 5. Parameters are validated by the generated plugin (exit status 2, message names the value).
expect2() {
  local needle=$1
  shift
  local rc=0
  "$chs" run "$@" --formulation dirac --method erk:dp5 --rtol 1e-8 --atol 1e-8 --tf 1 \
    >"$tmp/e.out" 2>"$tmp/e.err" || rc=$?
  [[ $rc == 2 ]] || fail "status $rc (expected 2) for $*"
  grep -q -- "$needle" "$tmp/e.err" || { cat "$tmp/e.err"; fail "no '$needle' for $*"; }
}
expect2 "length" --problem "$pend:length=-1"
expect2 "length" --problem "$pend:length=nan"
expect2 "colour" --problem "$pend:colour=1"
expect2 "depth must be < length" --problem "$sph:depth=1.5"
expect2 "cannot be evaluated" --problem "$fourbar:ground=10"
# a constraint without real solutions (sin x = -2): Newton's method cannot converge
printf '%s\n' 'from chs_gen import Problem, sp' 'P = Problem("no-solution")' \
  'x, y = P.coordinates("x y")' 'P.mass_matrix(sp.eye(2))' 'P.constraints([sp.sin(x) + 2])' \
  'P.initial_state(q0=[0.3, 0], v0=[0, 0])' >"$tmp/nosol.py"
"$gen" "$tmp/nosol.py" -o "$tmp/nosol" --build --chs-prefix "$tmp/prefix" \
  --cmake-arg="-DCMAKE_C_FLAGS=$flags" --cmake-arg="-DCMAKE_MODULE_LINKER_FLAGS=$flags" \
  >"$tmp/nosol.log" 2>&1 || { cat "$tmp/nosol.log"; fail "chs-gen no-solution"; }
expect2 "Newton" --problem "$tmp/nosol/libno_solution.so"

# 6. chs-gen refuses bad descriptions with status 2 and a message saying why.
gen_refuses() {
  local needle=$1 body=$2 rc=0
  printf 'from chs_gen import Problem, sp\n%s\n' "$body" >"$tmp/bad.py"
  "$gen" "$tmp/bad.py" -o "$tmp/bad" >"$tmp/bad.out" 2>&1 || rc=$?
  [[ $rc == 2 ]] || { cat "$tmp/bad.out"; fail "chs-gen status $rc (expected 2): $needle"; }
  grep -q -- "$needle" "$tmp/bad.out" || { cat "$tmp/bad.out"; fail "no '$needle'"; }
}
head='P = Problem("bad")
x, y = P.coordinates("x y")
vx, vy = P.velocities'
tail='P.initial_state(q0=[1, 0], v0=[0, 0])'
gen_refuses "'_x' is not a valid chs name" 'P = Problem("bad")
x, y = P.coordinates("_x y")'
gen_refuses "'lambda' is reserved for chs's output groups" 'P = Problem("bad")
x, y = P.coordinates("x y")
P.constraints([x**2 + y**2 - 1], names=["lambda"])'
gen_refuses "constraints: 2 names for 1 constraints" 'P = Problem("bad")
x, y = P.coordinates("x y")
P.constraints([x**2 + y**2 - 1], names="a b")'
gen_refuses "not quadratic in the velocities" "$head
P.kinetic_energy(vx**2 + vy**3)
P.constraints([x**2 + y**2 - 1])
$tail"
gen_refuses "not quadratic in the velocities" "$head
P.kinetic_energy(vx**2 + vy**2 + vx)
P.constraints([x**2 + y**2 - 1])
$tail"
gen_refuses "need 0 < m < n" "$head
P.kinetic_energy(vx**2 + vy**2)
P.constraints([x, y])
$tail"
gen_refuses "'zz'" "$head
zz = sp.Symbol('zz')
P.kinetic_energy(vx**2 + vy**2)
P.constraints([x**2 + y**2 - zz])
$tail"
gen_refuses "used twice" "$head
P.parameter('x', 1)"
gen_refuses "mass matrix depends on t" "$head
P.mass_matrix(sp.eye(2) * (1 + P.time**2))
P.constraints([x**2 + y**2 - 1])
$tail"
gen_refuses "exactly one Problem" "x = 1"
# event names chs run --stop-at could not select, a NUL byte in a string
gen_refuses "event name 'all'" "$head
P.kinetic_energy(vx**2 + vy**2)
P.constraints([x**2 + y**2 - 1])
P.events({'all': x})
$tail"
gen_refuses "event name 'a,b'" "$head
P.kinetic_energy(vx**2 + vy**2)
P.constraints([x**2 + y**2 - 1])
P.events({'a,b': x})
$tail"
gen_refuses "NUL byte" 'P = Problem("bad", "nul \0 here")'
# hostile strings compile under -Werror and -pedantic and read back unchanged:
# test/fuzz/gen_escape_fuzz.py (ctest chs_gen_escape)
rc=0
"$gen" "$tmp/does-not-exist.py" -o "$tmp/bad" >"$tmp/bad.out" 2>&1 || rc=$?
[[ $rc == 2 ]] && grep -q "cannot read the description" "$tmp/bad.out" ||
  fail "missing description: status $rc"

# 7. `chs check` passes on every generated plugin (exit status 0) ...
for p in "$pend" "$dpend" "$dpend_dense" "$sph" "$mech" "$fourbar" "$polar" "$moving" "$andrews"; do
  "$chs" check --problem "$p" >"$tmp/check.log" 2>&1 || { cat "$tmp/check.log"; fail "chs check $p"; }
  grep -q " 0 failed, .*every supplied derivative agrees" "$tmp/check.log" ||
    { cat "$tmp/check.log"; fail "chs check $p: no verdict line"; }
done
"$chs" check --problem "$fourbar:crank=2,k=3" --points 6 --seed 7 >/dev/null || fail "chs check four-bar"
# ... and the generated plugins carry the SymPy names: coordinates always, constraints when the
# description names them (double_pendulum.py does, pendulum.py does not)
"$chs" check --problem "$dpend" --json >"$tmp/names.json" || fail "chs check --json $dpend"
python3 - "$tmp/names.json" <<'PYEOF' || fail "double_pendulum_sym: names differ from the SymPy symbols"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["coordinate_names"] == ["x1", "y1", "x2", "y2"], d.get("coordinate_names")
assert d["constraint_names"] == ["rod1", "rod2"], d.get("constraint_names")
PYEOF
"$chs" check --problem "$pend" --json >"$tmp/names.json" || fail "chs check --json $pend"
python3 - "$tmp/names.json" <<'PYEOF' || fail "pendulum_sym: names differ from the SymPy symbols"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["coordinate_names"] == ["x", "y"] and "constraint_names" not in d, d
PYEOF
# ... and fails on deliberately wrong generated code: the pendulum with one entry of Gdot and
# Andrews with one entry of mass_dir scaled by 1.001 in the generated source, then rebuilt (the
# same plugins passed above, so the edit is what fails).
wrong() { # wrong PLUGIN FUNCTION OUTPUT CALLBACK
  local so=$1 dir src rc=0
  dir=$(dirname "$so")
  src=$(ls "$dir"/*.c)
  sed -i "/^static int $2(/,/^}/ s/^  $3 = /  $3 = 1.001 * /" "$src"
  grep -q "$3 = 1.001 \\*" "$src" || fail "wrong variant: $2 not edited in $src"
  cmake --build "$dir/build" >"$tmp/wrong.log" 2>&1 || { cat "$tmp/wrong.log"; fail "rebuild $so"; }
  "$chs" check --problem "$so" >"$tmp/check.log" 2>&1 || rc=$?
  [[ $rc == 1 ]] || { cat "$tmp/check.log"; fail "chs check status $rc on a wrong $4 (expected 1)"; }
  grep -q "^$4 .* FAIL " "$tmp/check.log" || { cat "$tmp/check.log"; fail "no FAIL row for $4"; }
}
# 8. `chs bench rhs --problem`: a plugin against its built-in baseline in one run prints finite
#    numbers (no timing is asserted: performance is measured, not tested; docs/symbolic.md); a bad
#    problem is refused with status 2 naming it before anything is timed.
"$chs" bench rhs --problem "$pend" --baseline pendulum --evals 200 --json >"$tmp/bench.json" ||
  fail "chs bench rhs --problem plugin"
for f in standard dirac; do
  grep -q "\"formulation\": \"$f\", \"ns_per_eval\": [0-9.e+-]*, \"ratio_to_standard\": [0-9.e+-]*, \"ratio_to_baseline\": [0-9.e+-]*}" \
    "$tmp/bench.json" || { cat "$tmp/bench.json"; fail "bench rhs: no numbers for $f"; }
done
[[ $(grep -c '"ratio_to_baseline": 1}' "$tmp/bench.json") -ge 2 ]] || fail "bench rhs: baseline rows"
if grep -qi 'nan\|inf' "$tmp/bench.json"; then fail "bench rhs: not finite"; fi
"$chs" bench rhs --problem "$dpend" --baseline double-pendulum --evals 200 >"$tmp/bench.txt" ||
  fail "chs bench rhs (text)"
grep -q "^problem  *formulation  *ns/eval  *ratio vs-baseline$" "$tmp/bench.txt" || fail "bench header"
rc=0
"$chs" bench rhs --problem "$pend" --problem "$tmp/nosuch.so" --evals 200 >"$tmp/b.out" 2>"$tmp/b.err" || rc=$?
[[ $rc == 2 && ! -s $tmp/b.out ]] && grep -q "nosuch.so" "$tmp/b.err" || fail "bench: bad plugin, status $rc"
rc=0
"$chs" bench rhs --problem "$pend:length=-1" --evals 200 >"$tmp/b.out" 2>"$tmp/b.err" || rc=$?
[[ $rc == 2 && ! -s $tmp/b.out ]] && grep -q "length" "$tmp/b.err" || fail "bench: bad parameter, status $rc"

# 9. The README's (and docs/symbolic.md's) two commands, literally, in a directory holding only
#    examples/symbolic, with the installed chs and chs-gen first on PATH.
block() { # the first ```sh block after the heading $2 in the file $1
  awk -v h="$2" 'index($0, h) == 1 { f = 1 } f && /^```sh$/ { c = 1; next } c && /^```$/ { exit }
                 c { print }' "$1"
}
cmds=$(block "$src/docs/problems.md" "### From a symbolic description")
[[ $(grep -c . <<<"$cmds") == 2 ]] || fail "docs/problems.md: expected two commands, got: $cmds"
[[ $(block "$src/docs/symbolic.md" "# Problems from a symbolic description" | tr -d '\\\n ') == \
  "$(tr -d '\\\n ' <<<"$cmds")" ]] || fail "docs/symbolic.md's example differs from docs/problems.md's"
mkdir -p "$tmp/two/examples"
cp -r "$src/examples/symbolic" "$tmp/two/examples/"
(cd "$tmp/two" && PATH="$tmp/prefix/bin:$PATH" bash -euo pipefail -c "$cmds") >"$tmp/two.log" 2>&1 ||
  { cat "$tmp/two.log"; fail "the README's two commands"; }
grep -q "energy" "$tmp/two.log" || { cat "$tmp/two.log"; fail "the README's run printed no summary"; }

# (the wrong variants of section 7 last: they edit the pendulum and Andrews plugins in place)
wrong "$pend" gen_jacobian_dot 'Gd\[1\]' jacobian_dot
wrong "$andrews" gen_mass_dir 'out\[0\]' mass_dir

echo "chs_gen: PASS"
