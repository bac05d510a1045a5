#!/usr/bin/env bash
# Runs the bad-input matrix (matrix.tsv next to this script; its header documents the format and
# the checks) against the chs command.
# usage: run_matrix.sh PATH_TO_CHS [PLUGIN_DIR] [MATRIX]
# Environment: CHS_BAD_INPUT_TIMEOUT  time limit per row in seconds (default 10)
#              CHS_BAD_INPUT_WRAPPER  command put in front of chs (e.g. "valgrind -q --error-exitcode=9")
#              CHS_BAD_INPUT_FILTER   run only the rows whose text matches this extended regex
# Exit status 0 when every row without a pending tag passes.
set -uo pipefail
chs=$1
plugins=${2:-/nonexistent-plugin-dir}
matrix=${3:-$(dirname "${BASH_SOURCE[0]}")/matrix.tsv}
limit=${CHS_BAD_INPUT_TIMEOUT:-10}
read -r -a wrapper <<<"${CHS_BAD_INPUT_WRAPPER:-}"
filter=${CHS_BAD_INPUT_FILTER:-}
[[ -x $chs && -r $matrix ]] || {
  echo "usage: run_matrix.sh PATH_TO_CHS [PLUGIN_DIR] [MATRIX]" >&2
  exit 2
}
# Each row runs in its own directory: absolute paths.
chs=$(cd "$(dirname "$chs")" && pwd)/$(basename "$chs")
[[ -d $plugins ]] && plugins=$(cd "$plugins" && pwd)
work=$(mktemp -d)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT

# decode FIELD: the argument the field encodes, in REPLY (see matrix.tsv).
decode() {
  local s=$1 n t rep
  if [[ $s == '{empty}' ]]; then
    REPLY=''
    return
  fi
  while [[ $s =~ \{repeat:([0-9]+):([^}]*)\} ]]; do
    n=${BASH_REMATCH[1]}
    t=${BASH_REMATCH[2]}
    rep=''
    while ((n > 0)); do # doubling: linear time
      ((n & 1)) && rep+=$t
      t+=$t
      n=$((n >> 1))
    done
    s=${s/"${BASH_REMATCH[0]}"/"$rep"}
  done
  s=${s//'{tmp}'/"$scratch"}
  s=${s//'{file}'/"$scratch/file"}
  s=${s//'{plugins}'/"$plugins"}
  printf -v REPLY '%b' "$s"
}

# show ARGS...: the command line, printable and shortened, for messages.
show() {
  local a out="chs"
  for a in "$@"; do
    if ((${#a} > 60)); then
      a="${a:0:20}...(${#a} bytes)"
    fi
    printf -v a '%q' "$a"
    out+=" $a"
  done
  printf '%s' "$out"
}

# Checks use shell builtins only (the runner forks little: a loaded machine stays quick).
shopt -s globstar dotglob nullglob
nanre='(^|[^a-z0-9_])-?nan([^a-z0-9_]|$)'
sanre='Sanitizer|runtime error:|==[0-9]+== (ERROR|Invalid|Conditional|Use of|Mismatched|Syscall)'
total=0 passed=0 failed=0 pend_fail=0 pend_pass=0
lineno=0
pending_passing=()
while IFS= read -r line || [[ -n $line ]]; do
  lineno=$((lineno + 1))
  [[ -z $line || $line == \#* ]] && continue
  [[ -n $filter && ! $line =~ $filter ]] && continue
  IFS=$'\t' read -r -a f <<<"$line"
  if ((${#f[@]} < 3)); then
    echo "matrix.tsv:$lineno: malformed row" >&2
    failed=$((failed + 1))
    continue
  fi
  want=${f[0]} tag=${f[1]}
  total=$((total + 1))
  scratch="$work/row$lineno"
  mkdir "$scratch"
  printf 'a regular file\n' >"$scratch/file"
  decode "${f[2]}"
  needle=$REPLY
  [[ ${f[2]} == '*' ]] && needle=''
  args=()
  argnan=0
  for ((k = 3; k < ${#f[@]}; k++)); do
    decode "${f[k]}"
    args+=("$REPLY")
    [[ ${REPLY,,} == *nan* ]] && argnan=1
  done
  before=("$scratch"/**)
  (cd "$scratch" && XDG_CACHE_HOME="$scratch/.cache" HOME="$scratch" \
    exec timeout -k 5 "$limit" "${wrapper[@]}" "$chs" "${args[@]}" >"$work/out" 2>"$work/err")
  st=$?
  after=("$scratch"/**)
  out='' err=''
  IFS= read -r -d '' out <"$work/out"
  IFS= read -r -d '' err <"$work/err"
  errline=${err:0:200}
  errline=${errline//$'\n'/ }
  why=()
  hard=0 # failures that a pending tag does not excuse
  if ((st >= 128)) || [[ $err =~ $sanre ]]; then
    why+=("crashed (exit $st): $errline")
    hard=1
  elif ((st == 124)); then
    why+=("no answer within ${limit}s (work before the input checks?)")
  elif [[ "|$want|" != *"|$st|"* ]]; then
    why+=("exit $st, want $want: $errline")
  fi
  if [[ ${out,,} =~ $nanre ]]; then
    why+=("nan on stdout")
  fi
  if ((st != 0 && st < 124)); then
    if [[ -z $err ]]; then
      why+=("exit $st without a message on stderr")
    elif [[ -n $needle && $err != *"$needle"* ]]; then
      why+=("message does not name '$(show "$needle" | cut -c5-)': $errline")
    fi
    if ((!argnan)) && [[ ${err,,} =~ $nanre ]]; then
      why+=("nan in the message: $errline")
    fi
  fi
  if ((st == 2)) && [[ "${before[*]}" != "${after[*]}" ]]; then
    why+=("bad input, yet wrote: ${after[*]#"$scratch/"}")
  fi
  pwned=("$scratch"/**/PWNED)
  if ((${#pwned[@]})); then
    why+=("a command injected into gnuplot ran (PWNED created)")
  fi
  if [[ $tag == pending:* ]]; then
    if ((${#why[@]} == 0)); then
      pend_pass=$((pend_pass + 1))
      pending_passing+=("matrix.tsv:$lineno [$tag] $(show "${args[@]}")")
      passed=$((passed + 1))
      continue
    elif ((!hard)); then
      pend_fail=$((pend_fail + 1))
      echo "pending matrix.tsv:$lineno [$tag] $(show "${args[@]}"): ${why[*]}"
      continue
    fi
  fi
  if ((${#why[@]} == 0)); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL matrix.tsv:$lineno [$tag] $(show "${args[@]}"): ${why[*]}" >&2
  fi
done <"$matrix"

for p in "${pending_passing[@]}"; do
  echo "pending row now passes (remove its tag): $p"
done
echo "bad_input: $total rows: $((passed - pend_pass)) passed, $failed failed;" \
  "pending: $pend_fail still fail, $pend_pass now pass"
((failed == 0 && total > 0))
