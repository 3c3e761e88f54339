#!/usr/bin/env bash
# The main job on the shipped example: compile the digits CNN (examples/models/digits_cnn.onnx)
# into a bundle with model-compiler, link it into a small C program with the system compiler
# (examples/bundles/static_digits.c: no ember in it), and run that on ten held-out test digits,
# printing each image next to its prediction so a person can check it; then model-runner on the
# same digits as PNG pictures (-input=image=digit_<k>.png -topk=3 -labels=...).
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

# The same digits as grayscale PNGs, straight into model-runner: pixel / 255 (-image-mode=0to1).
dir="$root/examples/digits/images"
echo
echo "== model-runner -model=examples/models/digits_cnn.onnx -image-mode=0to1 -topk=3 -labels=examples/digits/images/labels.txt -input=image=examples/digits/images/digit_<k>.png"
correct=0
for k in 0 1 2 3 4 5 6 7 8 9; do
  top=$("$build/tools/model-runner" -model="$model" -image-mode=0to1 -topk=3 \
        -labels="$dir/labels.txt" -input=image="$dir/digit_$k.png" | sed -n '/^top 3/,$p')
  echo "$top"
  if grep -q "^  1\. class $k " <<<"$top"; then correct=$((correct + 1)); fi
done
echo
echo "$correct of 10 PNG digits classified correctly by model-runner"
[ "$correct" -eq 10 ]
