#!/usr/bin/env bash
# Self-check of ort-run.js: builds a tiny ONNX model (Y = (X @ W + B) * S, I = argmax(Y)) with fixed
# weights, runs it through ort-run.js from .npy and from TensorProto .pb inputs, and compares the
# outputs with numpy's (max |diff| <= 1e-5, argmax exact). Also round-trips .npy / .pb files of
# every supported dtype through ort-run.js's readers and .npy writer. Exit 1 on any mismatch.
#   utils/bench/ort-selftest.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
py=/usr/bin/python3   # Debian's python3 has python3-onnx and numpy; a python3 on PATH may not
"$here/setup-ort.sh" >/dev/null

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Model, inputs and expected outputs.
"$py" - "$tmp" <<'EOF'
import sys, os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

d = sys.argv[1]
rng = np.random.default_rng(1234)
W = rng.standard_normal((3, 4)).astype(np.float32)
B = rng.standard_normal(4).astype(np.float32)
X = rng.standard_normal((2, 3)).astype(np.float32)
S = np.array([1.5], dtype=np.float32)

graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["xw"]),
     helper.make_node("Add", ["xw", "b"], ["xwb"]),
     helper.make_node("Mul", ["xwb", "scale"], ["y"]),
     helper.make_node("ArgMax", ["y"], ["idx"], axis=1, keepdims=0)],
    "selftest",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info("scale", TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4]),
     helper.make_tensor_value_info("idx", TensorProto.INT64, [2])],
    initializer=[numpy_helper.from_array(W, "w"), numpy_helper.from_array(B, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
onnx.checker.check_model(model)
onnx.save(model, os.path.join(d, "model.onnx"))

np.save(os.path.join(d, "x.npy"), X)
np.save(os.path.join(d, "s.npy"), S)
# .pb inputs both ways ONNX stores data: raw_data (numpy_helper) and the typed float_data field.
with open(os.path.join(d, "s.pb"), "wb") as f:
    f.write(numpy_helper.from_array(S, "scale").SerializeToString())
with open(os.path.join(d, "x_fields.pb"), "wb") as f:
    f.write(helper.make_tensor("x", TensorProto.FLOAT, X.shape, X.flatten().tolist()).SerializeToString())
Y = (X @ W + B) * S
np.save(os.path.join(d, "want_y.npy"), Y)
np.save(os.path.join(d, "want_idx.npy"), Y.argmax(axis=1).astype(np.int64))

# Reader/writer round-trip cases: every dtype, ranks 0..3, a v2 .npy header, typed-field .pb files.
rt = os.path.join(d, "rt")
os.makedirs(rt)
cases = {
    "f4": np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5,
    "f8": np.linspace(-1, 1, 5),
    "f2": np.array([[0.5, -2.0], [65504, 1e-3]], dtype=np.float16),
    "i8": np.array([-(2**62), -1, 0, 2**62 + 3], dtype=np.int64),
    "i4": np.array([[[-7]], [[2**31 - 1]]], dtype=np.int32),
    "i2": np.array([-300, 300], dtype=np.int16),
    "i1": np.array([-128, 127], dtype=np.int8),
    "u1": np.array([0, 200, 255], dtype=np.uint8),
    "u2": np.array([65535, 1], dtype=np.uint16),
    "u4": np.array([2**32 - 1], dtype=np.uint32),
    "u8": np.array([2**64 - 1, 5], dtype=np.uint64),
    "b1": np.array([[True, False, True]]),
    "scalar": np.array(3.25, dtype=np.float32),
    "empty": np.zeros((0, 4), dtype=np.float32),
}
for name, a in cases.items():
    np.save(os.path.join(rt, name + ".npy"), a)
    np.save(os.path.join(rt, name + ".want.npy"), a)
with open(os.path.join(rt, "v2.npy"), "wb") as f:
    np.lib.format.write_array(f, cases["f4"], version=(2, 0))
np.save(os.path.join(rt, "v2.want.npy"), cases["f4"])
np.save(os.path.join(rt, "fortran1d.npy"), np.asfortranarray(cases["f8"]))
np.save(os.path.join(rt, "fortran1d.want.npy"), cases["f8"])
typed = {  # name -> (array, TensorProto type), serialized through the typed *_data fields
    "pb_i8": (cases["i8"], TensorProto.INT64),
    "pb_i4": (cases["i4"], TensorProto.INT32),
    "pb_i1": (cases["i1"], TensorProto.INT8),
    "pb_u1": (cases["u1"], TensorProto.UINT8),
    "pb_b1": (cases["b1"], TensorProto.BOOL),
    "pb_f8": (cases["f8"], TensorProto.DOUBLE),
    "pb_u8": (cases["u8"], TensorProto.UINT64),
}
for name, (a, t) in typed.items():
    vals = a.flatten().tolist()
    with open(os.path.join(rt, name + ".pb"), "wb") as f:
        f.write(helper.make_tensor(name, t, a.shape, vals).SerializeToString())
    np.save(os.path.join(rt, name + ".want.npy"), a)
for name in ("i8", "f2", "b1", "scalar"):  # raw_data .pb
    with open(os.path.join(rt, "pbraw_" + name + ".pb"), "wb") as f:
        f.write(numpy_helper.from_array(cases[name], name).SerializeToString())
    np.save(os.path.join(rt, "pbraw_" + name + ".want.npy"), cases[name])
EOF

run="$here/ort-run.js"
# Positional inputs in model order, two threads, text output.
node "$run" --model "$tmp/model.onnx" --input "$tmp/x.npy" --input "$tmp/s.npy" \
  --threads 2 --iterations 3 --warmup 1 --output-dir "$tmp/out_npy" >"$tmp/run_npy.txt"
# A named input before a positional one, .pb files, JSON output.
node "$run" --model "$tmp/model.onnx" --input "scale=$tmp/s.pb" --input "$tmp/x_fields.pb" \
  --iterations 3 --warmup 0 --output-dir "$tmp/out_pb" --json >"$tmp/run_pb.json"

# Round-trip every reader case through writeNpy.
node -e '
  const { readTensorFile, writeNpy } = require(process.argv[1]);
  const fs = require("fs"), path = require("path");
  const dir = process.argv[2];
  for (const f of fs.readdirSync(dir)) {
    if (f.includes(".want.") || f.includes(".got.")) continue;
    const t = readTensorFile(path.join(dir, f));
    writeNpy(path.join(dir, f.replace(/\.(npy|pb)$/, ".got.npy")), t.type, t.dims, t.data);
  }' "$run" "$tmp/rt"

# Errors must be clear, not stack traces.
err_passed=0 err_failed=0
expect_error() {  # expect_error TEXT ARGS...: ort-run.js must fail with TEXT on stderr
  local text="$1"; shift
  if node "$run" "$@" >/dev/null 2>"$tmp/err"; then
    echo "FAIL: ort-run.js $* succeeded, expected an error with '$text'"
    err_failed=$((err_failed + 1))
  elif ! grep -qF -- "$text" "$tmp/err"; then
    echo "FAIL: ort-run.js $*: expected '$text', got: $(head -3 "$tmp/err")"
    err_failed=$((err_failed + 1))
  else
    err_passed=$((err_passed + 1))
  fi
}
"$py" -c 'import numpy as np, sys; np.save(sys.argv[1], np.zeros((2, 3), dtype=np.complex64))' "$tmp/c.npy"
"$py" -c 'import numpy as np, sys; np.save(sys.argv[1], np.asfortranarray(np.zeros((2, 3), dtype=np.float32)))' "$tmp/fo.npy"
"$py" -c 'import numpy as np, sys; np.save(sys.argv[1], np.zeros((2, 3), dtype=np.float64))' "$tmp/x64.npy"
m=(--model "$tmp/model.onnx" --iterations 1 --warmup 0)
expect_error "unsupported .npy dtype '<c8'" "${m[@]}" --input "$tmp/c.npy" --input "$tmp/s.npy"
expect_error "Fortran-ordered" "${m[@]}" --input "$tmp/fo.npy" --input "$tmp/s.npy"
expect_error "must be float32, the file holds float64" "${m[@]}" --input "$tmp/x64.npy" --input "$tmp/s.npy"
expect_error "must have shape [1]" "${m[@]}" --input "$tmp/x.npy" --input "$tmp/x.npy"
expect_error "no file for model input(s) scale" "${m[@]}" --input "$tmp/x.npy"
expect_error "model has no input 'sclae'" "${m[@]}" --input "$tmp/x.npy" --input "sclae=$tmp/s.npy"
cp "$tmp/model.onnx" "$tmp/bad.npy"
expect_error "not a .npy file" "${m[@]}" --input "$tmp/bad.npy" --input "$tmp/s.npy"
expect_error "unknown input format" "${m[@]}" --input "$tmp/model.onnx" --input "$tmp/s.npy"
expect_error "--threads needs an integer" "${m[@]}" --threads 0

"$py" - "$tmp" "$err_passed" "$err_failed" <<'EOF'
import sys, os, glob, json
import numpy as np
d = sys.argv[1]
passed, failed = int(sys.argv[2]), ["error check"] * int(sys.argv[3])
def check(what, ok, detail=""):
    global passed
    if ok:
        passed += 1
    else:
        failed.append(what)
        print(f"FAIL: {what} {detail}")

want_y, want_idx = np.load(f"{d}/want_y.npy"), np.load(f"{d}/want_idx.npy")
for run in ("out_npy", "out_pb"):
    y, idx = np.load(f"{d}/{run}/y.npy"), np.load(f"{d}/{run}/idx.npy")
    diff = float(np.abs(y - want_y).max()) if y.shape == want_y.shape else float("inf")
    check(f"{run}/y", y.dtype == np.float32 and diff <= 1e-5, f"dtype {y.dtype} shape {y.shape} max|diff| {diff:g}")
    check(f"{run}/idx", idx.dtype == np.int64 and np.array_equal(idx, want_idx), f"{idx} vs {want_idx}")
    print(f"{run}: max |y - numpy| = {diff:.3g}")

r = json.load(open(f"{d}/run_pb.json"))
check("json fields", r["threads"] == 1 and r["iterations"] == 3 and 0 < r["min_ms"] <= r["median_ms"]
      and r["peak_rss_mib"] > 0 and r["outputs"]["y"]["dims"] == [2, 4], str(r))
check("text report", "latency    median" in open(f"{d}/run_npy.txt").read())

for want in sorted(glob.glob(f"{d}/rt/*.want.npy")):
    name = os.path.basename(want)[:-len(".want.npy")]
    a, b = np.load(want), np.load(f"{d}/rt/{name}.got.npy")
    check(f"round-trip {name}", a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b),
          f"want {a.dtype}{a.shape} {a.ravel()[:4]}, got {b.dtype}{b.shape} {b.ravel()[:4]}")
print(f"ort-selftest: {passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
EOF
