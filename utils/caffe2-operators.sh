#!/usr/bin/env bash
# Writes the list of Caffe2 operators the loader knows (model-runner -list-operators=caffe2, read
# from the loader's registry) into docs/caffe2.md between its caffe2-operators markers; with
# --check, fails instead when the list there differs (a ctest runs that).
#   utils/caffe2-operators.sh [--check]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_BUILD_DIR:-$root/build}"
doc="$root/docs/caffe2.md"
list="$("$build/tools/model-runner" -list-operators=caffe2 | sed 's/.*/`&`/' | paste -sd' ' - |
        sed 's/` `/`, `/g')"
new="$(awk -v list="$list" '
  /<!-- caffe2-operators:begin -->/ { print; print list; skip = 1; next }
  /<!-- caffe2-operators:end -->/ { skip = 0 }
  !skip { print }' "$doc")"
if [ "${1:-}" = "--check" ]; then
  if [ "$new" != "$(cat "$doc")" ]; then
    echo "docs/caffe2.md lists other operators than the loader knows; run utils/caffe2-operators.sh" >&2
    diff <(printf '%s\n' "$new") "$doc" >&2 || true
    exit 1
  fi
  exit 0
fi
printf '%s\n' "$new" >"$doc"
echo "updated docs/caffe2.md"
