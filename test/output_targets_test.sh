#!/usr/bin/env bash
# Outputs that are symbolic links or special files (docs/cli.md "Output files"), control bytes of
# a plugin path in the text reports, and temporary files on terminating signals.
#
# 1. Every output option (run --out, run --plot, bench dae --scale --csv, bench mpi --csv,
#    workprec --out DIR, reproduce --plot-dir DIR) into, in a scratch directory: a relative
#    symbolic link to a regular file, a dangling link, a link to /proc/self/fd/1, a FIFO with a
#    reader and (root only) a character device made with `mknod NAME c 1 3` (a null device inside
#    the scratch directory; no system file is ever a target). Links stay links pointing where they
#    did, the FIFO stays a FIFO, the device a device, and the data ends where documented: in the
#    file the link names (created for the dangling one), on chs's standard output, in the FIFO's
#    reader. A link to a directory, a loop of links, a dangling link into a missing directory, a
#    socket and (root) a block device are refused before any work (exit 2, the path named,
#    stdout empty, link untouched).
#    No NAME.tmp.* is left anywhere (scratch directory and TMPDIR).
# 2. A copy of the example plugin named with ESC and a newline: the text reports of run, compare,
#    workprec, check and bench dae hold no raw control byte and keep the problem line whole; the
#    JSON reports parse.
# 3. Each catchable terminating signal (INT TERM HUP QUIT USR1 USR2 ALRM XCPU XFSZ VTALRM PROF
#    PIPE) sent to a run writing --out: the status is 128 + the signal's number and no temporary
#    file is left (also for an output written into a FIFO, whose temporary file is in TMPDIR).
# usage: output_targets_test.sh PATH_TO_CHS PLUGIN_DIR
set -uo pipefail
chs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
plugin=$2/libchs_example_plugin.so
# shellcheck source=cli_lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"
export TMPDIR=$tmp/tmpdir XDG_CACHE_HOME=$tmp/cache
mkdir -p "$TMPDIR"
s=$tmp/s
mkdir -p "$s"
root=0
if [[ $(id -u) -eq 0 ]]; then root=1; else echo "output_targets: not root, the mknod (character device) cases are skipped"; fi
have_gnuplot=0
if command -v gnuplot >/dev/null 2>&1; then have_gnuplot=1; else echo "output_targets: no gnuplot, the plot cases are skipped"; fi

# ---------------------------------------------------------------- 1. links and special files
declare -A kind_of ref_of link_of reader_of
n=0
# prep KIND PATH: makes PATH a KIND (lreg dang fdlink fifo dev); its referent lives in $s/refN.
prep() {
  local kind=$1 p=$2 r
  n=$((n + 1))
  r=$s/ref$n
  mkdir -p "$r"
  kind_of[$p]=$kind
  ref_of[$p]=$r
  case $kind in
    lreg)
      echo old >"$r/target"
      ln -s "$(realpath --relative-to="$(dirname "$p")" "$r")/target" "$p"
      ;;
    dang) ln -s "$(realpath --relative-to="$(dirname "$p")" "$r")/made" "$p" ;;
    fdlink) ln -s /proc/self/fd/1 "$p" ;;
    fifo)
      mkfifo "$p"
      timeout 120 cat "$p" >"$r/fifo.out" &
      reader_of[$p]=$!
      ;;
    dev) mknod "$p" c 1 3 ;;
  esac
  if [[ -L $p ]]; then link_of[$p]=$(readlink "$p"); fi
}
# data_ok FILE WANT: FILE holds a PNG (WANT png) or a line matching ^WANT.
data_ok() {
  if [[ $2 == png ]]; then LC_ALL=C grep -qa $'^\x89PNG' "$1" 2>/dev/null; else grep -qaE "^$2" "$1" 2>/dev/null; fi
}
# verify WHAT PATH WANT STDOUT: PATH is still what prep made and the data is where documented.
verify() {
  local what=$1 p=$2 want=$3 out=$4 kind=${kind_of[$2]} r=${ref_of[$2]}
  if [[ -n ${link_of[$p]:-} ]] && ! [[ -L $p && $(readlink "$p") == "${link_of[$p]}" ]]; then
    bad "$what -> $kind: the link was replaced: $(ls -l "$p" 2>&1)"
    return
  fi
  case $kind in
    lreg)
      if [[ -f $r/target && ! -L $r/target ]] && data_ok "$r/target" "$want"; then ok; else bad "$what -> link to a file: data not in the file it names"; fi
      ;;
    dang)
      if [[ -f $r/made ]] && data_ok "$r/made" "$want"; then ok; else bad "$what -> dangling link: the file it names was not created with the data"; fi
      ;;
    fdlink)
      if data_ok "$out" "$want"; then ok; else bad "$what -> /proc/self/fd/1: data not on stdout"; fi
      ;;
    fifo)
      local pid=${reader_of[$p]} k
      for ((k = 0; k < 50; k++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      if [[ -p $p ]]; then ok; else bad "$what -> FIFO: no longer a FIFO: $(ls -l "$p")"; fi
      if data_ok "$r/fifo.out" "$want"; then ok; else bad "$what -> FIFO: the reader got no data"; fi
      ;;
    dev)
      if [[ -c $p && $(stat -c %t,%T "$p") == 1,3 ]]; then ok; else bad "$what -> device: no longer the device: $(ls -l "$p")"; fi
      ;;
  esac
}
no_tmp() {
  local left
  left=$(find "$s" "$TMPDIR" -name '*.tmp.*' 2>/dev/null)
  if [[ -z $left ]]; then ok; else
    bad "$1: temporary files left: $left"
    find "$s" "$TMPDIR" -name '*.tmp.*' -delete
  fi
}

kinds=(lreg dang fdlink fifo)
if [[ $root -eq 1 ]]; then kinds+=(dev); fi
run=(run --problem pendulum --formulation dirac --method erk:rk4 --h 0.1 --tf 1 --quiet)
dae=(bench dae --scale --sizes 4 --problems pendulum-chain --targets 1e-4 --tf 0.1 --time-limit 20
  --no-cache --quiet)
mpi=(bench mpi --ranks 1 --n 16 --n-per-rank 8 --steps 3 --quiet)
writers=("run --out|t,x,|${run[*]} --out"
  "bench dae --scale --csv|problem,N,|${dae[*]} --csv")
if [[ $have_gnuplot -eq 1 ]]; then writers+=("run --plot|png|${run[*]} --plot"); fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
if "$chs" "${mpi[@]}" >/dev/null 2>&1; then
  writers+=("bench mpi --csv|problem,scaling,|${mpi[*]} --csv")
else
  echo "output_targets: chs bench mpi not available, its --csv is skipped"
fi
for w in "${writers[@]}"; do
  IFS='|' read -r what want cmd <<<"$w"
  read -ra args <<<"$cmd"
  for kind in "${kinds[@]}"; do
    d=$s/$kind-${what//[^a-z]/_}
    mkdir -p "$d"
    p=$d/output
    prep "$kind" "$p"
    (cd "$d" && "$chs" "${args[@]}" "$p" >"$d/stdout" 2>"$d/stderr")
    st=$?
    if [[ $st -eq 0 ]]; then ok; else bad "$what -> $kind: exit $st: $(head -c 300 "$d/stderr")"; fi
    verify "$what" "$p" "$want" "$d/stdout"
    no_tmp "$what -> $kind"
  done
done

# Directory outputs: the files chs names inside the directory are links or special files.
wp=(workprec --problem pendulum --configs dirac/erk:dp5,standard/erk:rkf45 --tols 1e-4:1e-6:2
  --tf 1 --repeats 1 --no-cache --quiet)
wp_names=(workprec.csv workprec-evals.png workprec-wall.png)
wp_want=(config,tol, png png)
rounds=("lreg dang fifo" "fifo fdlink lreg" "dang lreg fdlink")
if [[ $root -eq 1 ]]; then rounds+=("dev dev dev"); fi
if [[ $have_gnuplot -eq 1 ]]; then
  for i in "${!rounds[@]}"; do
    read -ra ks <<<"${rounds[$i]}"
    d=$s/wp$i
    mkdir -p "$d"
    for j in 0 1 2; do prep "${ks[$j]}" "$d/${wp_names[$j]}"; done
    "$chs" "${wp[@]}" --out "$d" >"$s/wp$i.stdout" 2>"$s/wp$i.stderr"
    st=$?
    if [[ $st -eq 0 ]]; then ok; else bad "workprec --out (${rounds[$i]}): exit $st: $(head -c 300 "$s/wp$i.stderr")"; fi
    for j in 0 1 2; do
      verify "workprec --out ${wp_names[$j]}" "$d/${wp_names[$j]}" "${wp_want[$j]}" "$s/wp$i.stdout"
    done
    no_tmp "workprec --out (${rounds[$i]})"
  done
  # reproduce --plot-dir: one run, a different kind at each of the four figures.
  d=$s/plots
  mkdir -p "$d"
  figs=(fig1-energy-error fig1-integration-error fig2-momentum-residual fig2-position-residual)
  ks=(lreg dang fifo fdlink)
  if [[ $root -eq 1 ]]; then ks[1]=dev; fi
  for j in 0 1 2 3; do prep "${ks[$j]}" "$d/seiler-dirac-pendulum-${figs[$j]}.png"; done
  "$chs" reproduce seiler-dirac-pendulum --quiet --plot-dir "$d" >"$s/plots.stdout" 2>"$s/plots.stderr"
  st=$?
  if [[ $st -eq 0 ]]; then ok; else bad "reproduce --plot-dir: exit $st: $(head -c 300 "$s/plots.stderr")"; fi
  for j in 0 1 2 3; do
    verify "reproduce --plot-dir ${figs[$j]}" "$d/seiler-dirac-pendulum-${figs[$j]}.png" png "$s/plots.stdout"
  done
  no_tmp "reproduce --plot-dir"
fi

# Refused before any work: exit 2, the path named, nothing on stdout, the link untouched.
d=$s/refused
mkdir -p "$d/adir"
ln -s adir "$d/todir"
ln -s loop2 "$d/loop1"
ln -s loop1 "$d/loop2"
ln -s no/such/dir/x.csv "$d/intomissing"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$d/sock"
refused=(todir loop1 intomissing sock)
if [[ $root -eq 1 ]]; then
  # A block device of a number reserved for local use (no driver: never a real disk).
  mknod "$d/blk" b 240 254
  refused+=(blk)
fi
ref_opts=("--out" "--csv")
if [[ $have_gnuplot -eq 1 ]]; then ref_opts+=("--plot"); fi
for name in "${refused[@]}"; do
  before=$(ls -l "$d/$name")
  for opt in "${ref_opts[@]}"; do
    if [[ $opt == --csv ]]; then a=("${dae[@]}"); else a=("${run[@]}"); fi
    "$chs" "${a[@]}" "$opt" "$d/$name" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [[ $st -eq 2 ]] && has -F -- "$d/$name" "$tmp/err" && [[ ! -s $tmp/out ]]; then ok; else
      bad "$opt -> $name: exit $st (want 2 naming the path, stdout empty): $(head -c 300 "$tmp/err")"
    fi
    if [[ $(ls -l "$d/$name") == "$before" ]]; then ok; else bad "$opt -> $name: changed: $(ls -l "$d/$name")"; fi
  done
done
if [[ -z $(ls -A "$d/adir") ]]; then ok; else bad "refused outputs: something written into the linked directory"; fi
no_tmp "refused outputs"

# ---------------------------------------------------------------- 2. control bytes in reports
p=$s/$'evil\x1b[31m\nname.so'
cp "$plugin" "$p"
reports=("run --formulation dirac --method erk:rk4 --h 0.01 --tf 0.1"
  "compare --formulations dirac,standard --method erk:rk4 --h 0.01 --tf 0.1"
  "compare --formulations dirac --method erk:dp5 --tols 1e-3:1e-4:2 --tf 0.1"
  "workprec --configs dirac/erk:dp5 --tols 1e-4:1e-5:2 --tf 0.1 --repeats 1 --no-cache"
  "check"
  "bench dae --tf 0.1")
for r in "${reports[@]}"; do
  read -ra a <<<"$r"
  for json in "" --json; do
    q=--quiet
    if [[ ${a[0]} == check ]]; then q=--points=3; fi # check has no --quiet
    "$chs" "${a[@]}" $q $json --problem "$p" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [[ $st -eq 0 ]]; then ok; else bad "$r $json (control bytes in the plugin path): exit $st: $(head -c 300 "$tmp/err")"; fi
    if LC_ALL=C grep -qa $'\x1b' "$tmp/out"; then bad "$r $json: raw ESC on stdout"; else ok; fi
    if [[ -n $json ]]; then
      if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/out"; then ok; else bad "$r --json: not valid JSON"; fi
    elif grep -a 'evil' "$tmp/out" | has 'name\.so'; then ok; else
      bad "$r: the problem's line is broken by a raw newline: $(grep -a -A1 evil "$tmp/out" | head -3)"
    fi
  done
done

# ---------------------------------------------------------------- 3. signals
ulimit -c 0 # SIGQUIT, SIGXCPU, SIGXFSZ: no core file
set -m      # background runs in their own process group: SIGINT and SIGQUIT not ignored
long=(run --problem pendulum --formulation dirac --method erk:rk4 --h 1e-4 --tf 400 --every 100000 --quiet)
d=$s/sig
mkdir -p "$d"
# killed SIG OUT WHERE: a long run writing --out OUT receives SIG once its temporary file exists
# in WHERE; wants status 128 + SIG and no temporary file anywhere.
killed() {
  local sig=$1 out=$2 where=$3 k num
  num=$(kill -l "$sig")
  "$chs" "${long[@]}" --out "$out" >/dev/null 2>"$tmp/sigerr" &
  local pid=$!
  for ((k = 0; k < 200; k++)); do
    compgen -G "$where/*.tmp.*" >/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -s "$sig" "$pid"
  wait "$pid"
  local st=$?
  if [[ $st -eq $((128 + num)) ]]; then ok; else bad "SIG$sig: exit $st, want $((128 + num)) (temporary file seen: $k < 200) $(head -c 200 "$tmp/sigerr")"; fi
  no_tmp "SIG$sig"
}
for sig in INT TERM HUP QUIT USR1 USR2 ALRM XCPU XFSZ VTALRM PROF PIPE; do
  killed "$sig" "$d/o.csv" "$d"
  if [[ -e $d/o.csv ]]; then bad "SIG$sig: o.csv written"; rm -f "$d/o.csv"; else ok; fi
done
# An output written into (a FIFO): its temporary file is in TMPDIR.
mkfifo "$d/fifo"
timeout 60 cat "$d/fifo" >/dev/null &
rpid=$!
killed TERM "$d/fifo" "$TMPDIR"
killed XCPU "$d/fifo" "$TMPDIR"
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null
set +m

echo "output_targets: $pass passed, $fail failed"
[[ $fail -eq 0 ]]
