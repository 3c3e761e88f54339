#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, and runs ctest. .ci/run calls exactly this.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_BUILD_DIR:-$root/build}"
"$root/utils/install-deps.sh"
"$root/utils/build.sh"
cd "$build"
ctest --output-on-failure -j"$(nproc)" "$@"
