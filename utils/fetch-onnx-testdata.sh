#!/usr/bin/env bash
# Fetches the ONNX 1.17 backend test suite, Debian 13's libonnx-testdata (arch all, data only),
# into a cache folder, installing nothing: apt-get download through a temporary sources list
# and its own package lists, then dpkg -x. Idempotent; utils/install-deps.sh calls it.
#   utils/fetch-onnx-testdata.sh          fetch if missing
#   utils/fetch-onnx-testdata.sh --path   print the suite's data folder (fetching if missing)
# The 1.12 suite is Debian 12's libonnx-testdata, installed as a package: /usr/share/libonnx-testdata.
set -euo pipefail
version=1.17.0
cache="${EMBER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ember}/libonnx-testdata-$version"
data="$cache/usr/share/libonnx-testdata/data"

if [ ! -f "$cache/.complete" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
  keys=/usr/share/keyrings/debian-archive-trixie-stable.gpg,/usr/share/keyrings/debian-archive-trixie-automatic.gpg
  echo "deb [signed-by=$keys] http://deb.debian.org/debian trixie main" >"$tmp/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
            -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache"
            -o Dir::State::Status=/dev/null -o Debug::NoLocking=1
            -o APT::Sandbox::User=root -o Acquire::Languages=none)
  apt-get "${apt_opts[@]}" -qq update >&2
  (cd "$tmp" && apt-get "${apt_opts[@]}" -qq download "libonnx-testdata=$version-*" >&2)
  rm -rf "$cache"
  mkdir -p "$cache"
  dpkg -x "$tmp"/libonnx-testdata_"$version"-*_all.deb "$cache"
  [ -d "$data/node" ] || { echo "fetch-onnx-testdata: no $data/node in the package" >&2; exit 1; }
  touch "$cache/.complete"
  echo "fetch-onnx-testdata: ONNX $version suite in $data" >&2
fi
if [ "${1:-}" = "--path" ]; then echo "$data"; fi
