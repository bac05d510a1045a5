#!/usr/bin/env bash
# Every C source and header is formatted by the committed .clang-format.
# usage: format_test.sh SOURCE_DIR CLANG_FORMAT
set -euo pipefail
cd "$1"
bad=0
while IFS= read -r f; do
  if ! "$2" --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (run: clang-format -i $f)" >&2
    bad=1
  fi
done < <(find src formulations problems drivers test examples -name '*.[ch]' | sort)
[[ $bad -eq 0 ]] && echo "format: all files formatted"
exit $bad
