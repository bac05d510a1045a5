#!/usr/bin/env bash
# docs/cli.md's reference (between <!-- BEGIN OPTIONS ... --> and <!-- END OPTIONS -->) must be what
# `chs help --markdown` prints from the option table (drivers/cli_options.c).
# usage: cli_docs_test.sh PATH_TO_CHS PATH_TO_CLI_MD [--update]
set -uo pipefail
chs=$1 doc=$2
want=$(mktemp)
trap 'rm -f "$want" "$want.new"' EXIT
"$chs" help --markdown >"$want" || { echo "chs help --markdown failed" >&2; exit 1; }
begin=$(grep -n '^<!-- BEGIN OPTIONS' "$doc" | cut -d: -f1)
end=$(grep -n '^<!-- END OPTIONS -->' "$doc" | cut -d: -f1)
if [[ -z $begin || -z $end ]] || ((end <= begin)); then
  echo "$doc: no generated region (<!-- BEGIN OPTIONS ... --> ... <!-- END OPTIONS -->)" >&2
  exit 1
fi
if [[ ${3:-} == --update ]]; then
  { head -n "$begin" "$doc"; cat "$want"; tail -n "+$end" "$doc"; } >"$want.new" && mv "$want.new" "$doc"
  exit 0
fi
if sed -n "$((begin + 1)),$((end - 1))p" "$doc" | diff -u - "$want"; then
  echo "cli_docs: $doc's reference matches the option table"
else
  echo "FAIL: $doc's reference differs from \`chs help --markdown\` (above); regenerate with" >&2
  echo "  test/cli_docs_test.sh build/chs docs/cli.md --update" >&2
  exit 1
fi
