# Shared harness of the command-line tests (sourced by cli_test.sh, events_cli_test.sh,
# reproduce_test.sh after they set `chs`): a temporary directory $tmp removed at exit, pass/fail
# counters with ok/bad, `has` (a grep that reads all its input: `grep -q` may exit before the
# writer is done, and under pipefail the writer's SIGPIPE would fail a matching pipeline), and
# expect STATUS NEEDLE -- ARGS...: chs's exit status and a stderr message containing NEEDLE.
has() { grep "$@" >/dev/null; }
# JSON keys of `chs run` that are measured, not computed (they differ from run to run): the wall
# and CPU times, the kernel's share, the page faults, the peak resident size
measured_keys='wall_s|cpu_s|cpu_per_step_s|cpu_system_s|page_faults|peak_rss_bytes'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
expect() {
  local want=$1 needle=$2
  shift 3
  "$chs" "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [[ $got -ne $want ]]; then
    bad "chs $* -> exit $got, want $want ($(head -c 300 "$tmp/err"))"
  elif [[ -n $needle ]] && ! grep -qF -- "$needle" "$tmp/err"; then
    bad "chs $* -> message does not name '$needle': $(head -c 300 "$tmp/err")"
  else
    ok
  fi
}
