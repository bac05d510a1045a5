#!/usr/bin/env bash
# The API reference of the public headers builds without a single doxygen warning.
# usage: doxygen_test.sh SOURCE_DIR OUTPUT_DIR
# Exits 77 (skipped) when doxygen is not installed.
set -euo pipefail
src=$1
out=$2
if ! command -v doxygen >/dev/null 2>&1; then
  echo "doxygen not installed: skipped"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out"
log="$out/warnings.log"
status=0
(
  cat "$src/docs/Doxyfile"
  echo "INPUT = $src/src/chs"
  echo "OUTPUT_DIRECTORY = $out"
  echo "STRIP_FROM_PATH = $src"
  echo "WARN_LOGFILE = $log"
) | doxygen - >"$out/doxygen.out" 2>&1 || status=$?
cat "$out/doxygen.out"
if [[ -s "$log" ]]; then
  echo "doxygen warnings ($(wc -l <"$log") lines):"
  cat "$log"
  exit 1
fi
if [[ $status -ne 0 ]]; then
  echo "doxygen failed (status $status)"
  exit 1
fi
if [[ ! -f "$out/html/index.html" ]]; then
  echo "doxygen wrote no html/index.html"
  exit 1
fi
echo "doxygen: API reference in $out/html, no warnings"
