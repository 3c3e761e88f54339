#!/usr/bin/env bash
# Creates (once) the build tree's Python environment, build/venv, from PyPI with
# utils/requirements.txt: Python tooling only (the current onnx and onnxruntime for references
# and the newer ONNX suite's element kinds); ember itself never imports it. Idempotent;
# utils/install-deps.sh calls it. Prints nothing when the environment is current.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="${EMBER_VENV:-${EMBER_BUILD_DIR:-$root/build}/venv}"
req="$root/utils/requirements.txt"
if [ -f "$venv/.requirements" ] && cmp -s "$req" "$venv/.requirements"; then
  exit 0
fi
rm -rf "$venv"
/usr/bin/python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
cp "$req" "$venv/.requirements"
echo "python-env: $venv ready ($(tr '\n' ' ' <"$req" | grep -o '[a-z_]*==[0-9.]*' | tr '\n' ' '))"
