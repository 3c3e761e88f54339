#!/usr/bin/env bash
# Runs the digits CNN (examples/models/digits_cnn.onnx) on each test image with model-runner
# and prints the image next to the prediction, so a person can check it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_BUILD_DIR:-$root/build}"
runner="$build/tools/model-runner"
model="$root/examples/models/digits_cnn.onnx"
backend="${EMBER_BACKEND:-Interpreter}"

echo "ember: $model on the $backend backend"
correct=0
total=0
for image in "$root"/examples/digits/images/digit_?.npy; do
  art="${image%.npy}.txt"
  label=$(sed -n 's/^label: //p' "$art")
  line=$("$runner" -model="$model" -backend="$backend" -input="image=$image" |
         grep "^output 'probabilities'")
  predicted=$(sed -n 's/.* argmax \([0-9]*\).*/\1/p' <<<"$line")
  confidence=$(sed -n 's/.* max \([^ ]*\) argmax.*/\1/p' <<<"$line")
  total=$((total + 1))
  verdict="WRONG"
  if [ "$predicted" = "$label" ]; then correct=$((correct + 1)); verdict="ok"; fi
  echo
  echo "$(basename "$image"): label $label, predicted $predicted (p=$confidence) $verdict"
  grep -v '^label:' "$art" | sed 's/^/    |/'
done
echo
echo "$correct of $total digits classified correctly"
[ "$correct" -eq "$total" ]
