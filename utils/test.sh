#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, and runs ctest. .ci/run calls exactly this.
#   utils/test.sh [ctest args]                   in build/
#   utils/test.sh --sanitize[=thread] [args]     the same suite built with ASan and UBSan (or
#                                                TSan) in build-asan/ (build-tsan/)
# EMBER_TARGETS (e.g. ConcurrencyTest) builds only those targets, for a run limited with -R.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_BUILD_DIR:-$root/build}"
case "${1:-}" in
--sanitize | --sanitize=address)
  export EMBER_SANITIZE=address,undefined EMBER_BUILD_DIR="$root/build-asan"
  build="$EMBER_BUILD_DIR"
  # A leak, or any report, fails the test; the libraries ember loads are not ember's to fix
  # (utils/sanitizers/: what is suppressed and why).
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"
  # use_tls=0: LeakSanitizer's tracer crashed (signal 11, "LeakSanitizer has encountered a
  # fatal error") scanning the thread-local storage of threads that PoCL's dlopen'ed libraries
  # keep, after tests that compiled OpenCL kernels. Not scanning TLS can only report more
  # leaks (a block reachable from TLS alone), never hide one.
  export LSAN_OPTIONS="suppressions=$root/utils/sanitizers/lsan.supp:use_tls=0:${LSAN_OPTIONS:-}"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
  shift ;;
--sanitize=thread)
  export EMBER_SANITIZE=thread EMBER_BUILD_DIR="$root/build-tsan"
  build="$EMBER_BUILD_DIR"
  export TSAN_OPTIONS="halt_on_error=1:suppressions=$root/utils/sanitizers/tsan.supp:${TSAN_OPTIONS:-}"
  shift ;;
esac
"$root/utils/install-deps.sh"
# shellcheck disable=SC2086 # a list of targets
"$root/utils/build.sh" ${EMBER_TARGETS:-}
cd "$build"
# PoCL compiles each OpenCL kernel on its first launch and caches it: in the build tree, so a
# run starts from what the previous run compiled and leaves nothing outside.
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$build/pocl-cache}"
ctest --output-on-failure -j"$(nproc)" "$@"
