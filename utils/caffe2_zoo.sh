#!/usr/bin/env bash
# Runs torchvision CNNs written as Caffe2 nets (predict_net + init_net, random weights, exported by
# utils/models/export_caffe2_zoo.py) through ember's model-runner on a backend and compares each
# output with torch's: |got - want| <= atol + 1e-4 * |want|, atol = max(1e-5, 1e-4 * max|want|)
# (utils/zoo.sh's rule). Each model runs as the two binary nets (-model=predict_net.pb
# -model=init_net.pb), as a directory holding the text-format pair, and, for the set's first
# model, with its input also declared by -model-input. Fails unless every run passes.
#   utils/caffe2_zoo.sh [--set ci|full] [Backend]      (default: --set ci, Interpreter)
# Exports are cached in $EMBER_BUILD_DIR/zoo/caffe2 (default build/); the export log is kept in
# the run's own temporary directory, as ctest runs this script on several backends at once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_BUILD_DIR:-$root/build}"
set=ci
backend=Interpreter
while [ $# -gt 0 ]; do
  case "$1" in
    --set) set="${2:?--set needs ci or full}"; shift 2 ;;
    --set=*) set="${1#--set=}"; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "caffe2_zoo.sh: unknown option $1" >&2; exit 2 ;;
    *) backend="$1"; shift ;;
  esac
done
case "$set" in ci|full) ;; *) echo "caffe2_zoo.sh: --set must be ci or full, not '$set'" >&2; exit 2 ;; esac
runner="$build/tools/model-runner"
[ -x "$runner" ] || { echo "caffe2_zoo.sh: $runner not built" >&2; exit 1; }

exporter=(/usr/bin/python3 "$root/utils/models/export_caffe2_zoo.py")
zoo="$build/zoo"
mkdir -p "$zoo"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if ! "${exporter[@]}" --out "$zoo/caffe2" --set "$set" >"$tmp/export.log" 2>&1; then
  echo "caffe2_zoo.sh: exporting the Caffe2 zoo failed:" >&2
  cat "$tmp/export.log" >&2
  exit 1
fi
passed=0
failed=0

# compare OUT_DIR WANT.pb: "<max abs error> <pass|fail> <detail>" for OUT_DIR/<name>.npy
compare() {
  /usr/bin/python3 - "$1" "$2" <<'EOF'
import os, sys
import numpy as np
from onnx import TensorProto, numpy_helper
t = TensorProto()
with open(sys.argv[2], "rb") as f:
    t.ParseFromString(f.read())
want = numpy_helper.to_array(t).astype(np.float64)
path = os.path.join(sys.argv[1], t.name + ".npy")
if not os.path.isfile(path):
    print("- fail no %s.npy (got: %s)" % (t.name, " ".join(sorted(os.listdir(sys.argv[1]))) or "nothing"))
    sys.exit(0)
got = np.load(path).astype(np.float64)
if got.shape != want.shape:
    print("- fail shape %s, want %s" % (list(got.shape), list(want.shape)))
    sys.exit(0)
err = np.abs(got - want)
atol = max(1e-5, 1e-4 * float(np.abs(want).max()))
ok = bool(np.all(err <= atol + 1e-4 * np.abs(want)))
print("%.3g %s atol %.3g" % (float(err.max()), "pass" if ok else "fail", atol))
EOF
}

# run NAME FORM DIR MODEL-RUNNER-ARGS...
run() {
  local name="$1" form="$2" dir="$3"
  shift 3
  local out="$tmp/out/$name.$form" log="$tmp/log/$name.$form"
  mkdir -p "$out" "$tmp/log"
  local result err verdict detail
  if "$runner" "$@" -backend="$backend" -input="data=$dir/test_data_set_0/input_0.pb" \
       -output-dir="$out" >"$log" 2>&1; then
    result=$(compare "$out" "$dir/test_data_set_0/output_0.pb" 2>&1) ||
      result="- fail comparing failed: $(tail -n 1 <<<"$result")"
  else
    result="- fail model-runner failed: $(grep -v '^$' "$log" | tail -n 1 | cut -c1-160)"
  fi
  read -r err verdict detail <<<"$result" || true
  if [ "$verdict" = pass ]; then
    passed=$((passed + 1))
    printf "PASS %-14s %-12s max_abs_err %-9s %s\n" "$name" "$form" "$err" "$detail"
  else
    failed=$((failed + 1))
    printf "FAIL %-14s %-12s max_abs_err %-9s %s\n" "$name" "$form" "$err" "$detail"
  fi
}

first=1
for name in $("${exporter[@]}" --set "$set" --list); do
  dir="$zoo/caffe2/$name"
  # 1. the two binary nets, predict_net first
  run "$name" pb "$dir" -model="$dir/predict_net.pb" -model="$dir/init_net.pb"
  # 2. a directory: the loader takes predict_net.pb(txt) and init_net.pb(txt) from it, so it
  #    must hold the text pair only
  txt="$tmp/txt/$name"
  mkdir -p "$txt"
  ln -s "$dir/predict_net.pbtxt" "$dir/init_net.pbtxt" "$txt/"
  run "$name" pbtxt-dir "$dir" -model="$txt"
  # 3. the input's type and shape declared on the command line as well
  if [ "$first" -eq 1 ]; then
    run "$name" model-input "$dir" -model="$dir/predict_net.pb" -model="$dir/init_net.pb" \
      "-model-input=data,float,[1,3,224,224]"
    first=0
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
