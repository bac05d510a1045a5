#!/usr/bin/env bash
# The Python package as installed (ctest python_sympy): `cmake --install` into a temporary prefix,
# then, with PYTHONPATH at the prefix's package directory and no CHS_LIBRARY:
#   - the README's acceptance one-liner prints andrews' final q (7 finite numbers);
#   - test_sympy.py: the package loads the prefix's libchs (its _config.py), and
#     chs.Problem.from_sympy builds examples/symbolic/pendulum.py with the installed chs-gen and
#     runs it like the built-in pendulum.
# Exit status 77 (skipped) when SymPy, cmake or a C compiler is missing (chs-gen --build needs
# them).
# usage: sympy_test.sh BUILD_DIR PYTHON PACKAGE_DIR(relative to the prefix) SOURCE_DIR
set -euo pipefail
bin=$1
py=$2
pkgdir=$3
src=$4

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cmake --install "$bin" --prefix "$tmp/prefix" >"$tmp/install.log"
[[ -f $tmp/prefix/$pkgdir/chs/_config.py ]] || fail "no chs/_config.py under $tmp/prefix/$pkgdir"
grep -qF "$tmp/prefix/" "$tmp/prefix/$pkgdir/chs/_config.py" ||
  fail "_config.py does not name the prefix: $(cat "$tmp/prefix/$pkgdir/chs/_config.py")"

export PYTHONPATH="$tmp/prefix/$pkgdir"
unset CHS_LIBRARY CHS_GEN
cd "$tmp"
out=$("$py" -c 'import chs; r = chs.run(problem="andrews", formulation="dirac", method="cvode:bdf", tf=0.03, rtol=1e-10, atol=1e-10); print(r.q[-1])')
echo "acceptance: $out"
"$py" - "$out" <<'PY' || fail "the acceptance call printed '$out'"
import sys
vals = [float(x) for x in sys.argv[1].strip("[] \n").split()]
assert len(vals) == 7 and all(abs(v) < 100 for v in vals), vals
PY

if ! "$py" -c 'import sympy' 2>/dev/null; then
  echo "SKIP: chs.Problem.from_sympy needs SymPy (Debian: python3-sympy)"
  exit 77
fi
if ! command -v cmake >/dev/null || ! command -v "${CC:-cc}" >/dev/null; then
  echo "SKIP: chs.Problem.from_sympy needs cmake and a C compiler"
  exit 77
fi
"$py" "$src/test/python/test_sympy.py" "$src" "$tmp/prefix"

# docs/python.md's five-minute example, shown verbatim there, runs (and plots where matplotlib is).
awk '/^<!-- example: examples\/python\/pendulum_plot.py -->$/ { f = 1; next }
     f && /^```python$/ { c = 1; next } c && /^```$/ { exit } c { print }' \
  "$src/docs/python.md" >"$tmp/doc_example.py"
cmp -s "$tmp/doc_example.py" "$src/examples/python/pendulum_plot.py" ||
  fail "docs/python.md does not show examples/python/pendulum_plot.py verbatim"
mkdir -p "$tmp/ex"
(cd "$tmp/ex" && "$py" "$src/examples/python/pendulum_plot.py") >"$tmp/ex.log" 2>&1 ||
  { cat "$tmp/ex.log"; fail "examples/python/pendulum_plot.py"; }
cat "$tmp/ex.log"
grep -q "max energy error" "$tmp/ex.log" || fail "the example printed no summary"
if "$py" -c 'import matplotlib' 2>/dev/null; then
  [[ -s $tmp/ex/pendulum.png ]] || fail "matplotlib is installed but no pendulum.png"
fi
