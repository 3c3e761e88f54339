#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what ember needs, build it, compile the
# shipped example (a CNN trained on scikit-learn's 8x8 digits) into a bundle, link it into a C
# program and run that on ten test images.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/utils/install-deps.sh"
"$root/utils/build.sh"
"$root/utils/run-example.sh"
