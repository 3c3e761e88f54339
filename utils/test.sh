#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, and runs ctest. .ci/run calls exactly this.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_BUILD_DIR:-$root/build}"
"$root/utils/install-deps.sh"
"$root/utils/build.sh"
cd "$build"
# PoCL compiles each OpenCL kernel on its first launch and caches it: in the build tree, so a
# run starts from what the previous run compiled and leaves nothing outside.
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$build/pocl-cache}"
ctest --output-on-failure -j"$(nproc)" "$@"
