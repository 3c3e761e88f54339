#!/usr/bin/env bash
# Installs the Debian 12 packages ember needs, if missing. Idempotent and non-interactive:
# both README commands and .ci/run call it first. Nothing else is ever downloaded.
set -euo pipefail

packages=(
  # build
  cmake ninja-build ccache g++ pkg-config
  # CPU backend (LLVM 19); find_package(LLVM) fails without libzstd-dev
  llvm-19-dev clang-19 libzstd-dev
  # sanitizer and libFuzzer runtimes: utils/test.sh --sanitize and utils/fuzz.sh (CI runs it)
  libclang-rt-19-dev
  # importers and tools
  libprotobuf-dev protobuf-compiler libonnx-dev libgflags-dev libgtest-dev googletest
  # ImageDecoder's PNG and JPEG decoding
  libpng-dev libjpeg62-turbo-dev
  # ONNX backend test suite
  libonnx-testdata
  # OpenCL backend (PoCL)
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers
  # aarch64 bundles built, linked and run under emulation by the tests
  gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
  # only to (re)generate test models and expected outputs
  python3-onnx python3-numpy python3-torch python3-torchvision python3-sklearn libopenblas0-pthread
  # the Python module ember (python/, docs/python.md) for /usr/bin/python3, and its pytest suite
  pybind11-dev python3-pybind11 python3-dev python3-pytest
  # the build tree's Python environment (utils/python-env.sh)
  python3-venv
)

# Besides the packages: the ONNX 1.17 suite (Debian 13's data, unpacked into a cache folder)
# and the build tree's Python environment (PyPI: onnx, onnxruntime). Both idempotent.
extras() {
  "$(dirname "$0")/fetch-onnx-testdata.sh"
  "$(dirname "$0")/python-env.sh"
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  extras
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
extras
