#!/usr/bin/env bash
# Installs onnxruntime-node (pinned in package.json / package-lock.json) into utils/bench/node_modules
# for ort-run.js. Idempotent: once installed it prints at most one line.
#   utils/bench/setup-ort.sh
# Only the npm registry is reachable, so the package's postinstall (which fetches the CUDA/TensorRT
# provider libraries from NuGet) is skipped: the CPU binding and libonnxruntime.so ship inside the npm
# tarball (bin/napi-v6/linux/x64/) and need nothing else.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
want=1.30.0

command -v node >/dev/null 2>&1 || { echo "setup-ort.sh: node not found (Node.js >= 16 is needed)" >&2; exit 1; }

# Loading the binding is the real test: a present but unloadable .node file must trigger a reinstall.
loads() {
  (cd "$here" && node -e '
    const v = require("onnxruntime-node/package.json").version;
    if (v !== process.argv[1]) throw new Error("have " + v);
    require("onnxruntime-node");' "$want") >/dev/null 2>&1
}

if loads; then
  echo "onnxruntime-node $want already installed in $here/node_modules"
  exit 0
fi

command -v npm >/dev/null 2>&1 || {
  echo "setup-ort.sh: npm not found: it is needed to install onnxruntime-node (e.g. apt-get install npm)" >&2
  exit 1
}
export ONNXRUNTIME_NODE_INSTALL=skip   # belt and braces: postinstall exits early even if scripts run
flags=(--ignore-scripts --no-audit --no-fund --loglevel=error)
cd "$here"
if [ -f package-lock.json ]; then
  npm ci "${flags[@]}" >/dev/null
else
  npm install "${flags[@]}" >/dev/null   # first time: writes package-lock.json, to be committed
fi

if ! loads; then
  echo "setup-ort.sh: onnxruntime-node $want installed but its native binding does not load:" >&2
  (cd "$here" && node -e 'require("onnxruntime-node")') >&2 || true
  exit 1
fi
echo "installed onnxruntime-node $want in $here/node_modules"
