#!/usr/bin/env bash
# The main job on the shipped example: compile the digits CNN (examples/models/digits_cnn.onnx)
# into a bundle with model-compiler, link it into a small C program with the system compiler
# (examples/bundles/static_digits.c: no ember in it), and run that on ten held-out test digits,
# printing each image next to its prediction so a person can check it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_BUILD_DIR:-$root/build}"
model="$root/examples/models/digits_cnn.onnx"
out="$build/example"
rm -rf "$out"
mkdir -p "$out"

echo "== model-compiler -model=examples/models/digits_cnn.onnx -emit-bundle=$out/bundle -bundle-weights=bin,txt"
"$build/tools/model-compiler" -model="$model" -emit-bundle="$out/bundle" -bundle-weights=bin,txt
echo
link=(cc -O2 -I"$out/bundle" -I"$root/examples/bundles" "$root/examples/bundles/static_digits.c"
      "$out/bundle/digits_cnn.o" -lm -o "$out/digits")
echo "== ${link[*]}"
"${link[@]}"
echo

images=("$root"/examples/digits/images/digit_?.npy)
echo "== $out/digits examples/digits/images/digit_?.npy"
predictions=$("$out/digits" "${images[@]}")
correct=0
for image in "${images[@]}"; do
  label=$(sed -n 's/^label: //p' "${image%.npy}.txt")
  # "<image>: <predicted> (p=<probability>)" then the image as eight lines of ASCII art.
  block=$(grep -A8 -F "$image:" <<<"$predictions")
  predicted=$(head -n 1 <<<"$block" | sed 's/.*: \([0-9]\) (p=.*/\1/')
  verdict="WRONG"
  if [ "$predicted" = "$label" ]; then correct=$((correct + 1)); verdict="ok"; fi
  echo
  echo "$(basename "$image"): label $label, predicted $(head -n 1 <<<"$block" | sed 's/.*: //') $verdict"
  tail -n 8 <<<"$block"
done
echo
echo "$correct of ${#images[@]} digits classified correctly by the bundle"
[ "$correct" -eq "${#images[@]}" ]
