#!/usr/bin/env bash
# Runs each libFuzzer harness of test/fuzz for a bounded time, starting from its committed seed
# corpus (copied: new inputs go to a scratch corpus, not into the repository).
# usage: run_fuzz.sh BUILD_DIR [SECONDS_PER_HARNESS] [HARNESS...]
# (gen_escape: test/fuzz/gen_escape_fuzz.py, chs-gen's string escaping, with the same budget)
# Fails on any finding (crash, sanitizer report, leak, timeout, out of memory); the reproducer is
# left in BUILD_DIR/fuzz-findings/. Prints the executions per harness.
set -uo pipefail
build=$1
secs=${2:-60}
shift $(($# > 1 ? 2 : 1))
harnesses=("$@")
((${#harnesses[@]})) || harnesses=(fuzz_spec fuzz_cli fuzz_integrate gen_escape)
src=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
findings=$build/fuzz-findings
mkdir -p "$findings"
status=0
for h in "${harnesses[@]}"; do
  if [[ $h == gen_escape ]]; then # chs-gen (Python): its escaping of user strings into C
    python3 "$src/gen_escape_fuzz.py" "$src/../.." "$secs" >"$build/$h.log" 2>&1
    rc=$?
    if ((rc == 0)); then
      echo "fuzz: $h: $(tail -n 1 "$build/$h.log" | sed 's/^gen_escape_fuzz: //')"
    elif ((rc == 77)); then
      echo "fuzz: $h: skipped ($(tail -n 1 "$build/$h.log"))"
    else
      echo "fuzz: $h FAILED (exit $rc); log $build/$h.log:" >&2
      tail -n 20 "$build/$h.log" >&2
      status=1
    fi
    continue
  fi
  exe=$build/test/fuzz/$h
  [[ -x $exe ]] || {
    echo "fuzz: $exe not built" >&2
    status=1
    continue
  }
  work=$(mktemp -d)
  cp "$src/corpus/$h"/* "$work/" 2>/dev/null
  opts=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048
    -print_final_stats=1 -close_fd_mask=3 -artifact_prefix="$findings/$h-")
  [[ -f $src/$h.dict ]] && opts+=(-dict="$src/$h.dict")
  # fuzz_cli runs the drivers, which free at exit only: leaks are checked in the other two.
  asan=detect_leaks=1
  [[ $h == fuzz_cli ]] && asan=detect_leaks=0 && opts+=(-detect_leaks=0)
  ASAN_OPTIONS=$asan UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 "$exe" "${opts[@]}" "$work" >"$build/$h.log" 2>&1
  rc=$?
  execs=$(grep -m1 'stat::number_of_executed_units' "$build/$h.log" | awk '{print $2}')
  corpus=$(ls "$work" | wc -l)
  rm -rf "$work"
  if ((rc != 0)); then
    echo "fuzz: $h FAILED (exit $rc) after ${execs:-?} executions; log $build/$h.log:" >&2
    grep -E 'ERROR|SUMMARY|violated|Test unit written|^artifact_prefix' "$build/$h.log" | head -20 >&2
    status=1
  else
    echo "fuzz: $h: ${execs:-?} executions in ${secs}s, corpus $corpus inputs, no findings"
  fi
done
exit $status
