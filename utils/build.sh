#!/usr/bin/env bash
# Configures (once) and builds ember in build/ with Ninja and ccache. EMBER_SANITIZE (e.g.
# address,undefined or thread) configures a build instrumented with those sanitizers; give it
# a build directory of its own (EMBER_BUILD_DIR), as utils/test.sh --sanitize does.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_BUILD_DIR:-$root/build}"
# Paths relative to the checkout in ccache's keys: another clone or worktree reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DEMBER_SANITIZE="${EMBER_SANITIZE:-}"
fi
ninja -C "$build" "$@"
