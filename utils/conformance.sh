#!/usr/bin/env bash
# Runs an ONNX backend test suite on a backend and checks it against the checked-in list of tests
# every backend must pass: a listed test that does not pass, or any crash or hang, fails; a test
# passing beyond the list is reported so the list can grow. Two suites: ONNX 1.12 (Debian 12's
# libonnx-testdata, tests/conformance/passing.txt) and, with --onnx=1.17, ONNX 1.17 (Debian 13's,
# unpacked into a cache folder by utils/fetch-onnx-testdata.sh; tests/conformance/passing-1.17.txt).
#   utils/conformance.sh [--onnx=1.17] [Backend]
#                                      check one backend with the conformance tool (default:
#                                      Interpreter)
#   utils/conformance.sh [--onnx=1.17] --as-user [Backend]
#                                      the same check, each test run through model-runner exactly
#                                      as a user would (utils/conformance_as_user.py: the model,
#                                      -input= with the test's .pb files, -output-format=pb, the
#                                      outputs compared with output_*.pb)
#   utils/conformance.sh --update      for both suites: run every backend with the tool, and the
#                                      Interpreter and CPU as a user; rewrite the lists from the
#                                      Interpreter (the reference), docs/conformance.md and
#                                      docs/conformance-refusals.md from them all
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_BUILD_DIR:-$root/build}"
backends=(Interpreter CPU OpenCL)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Chooses suite $1 (1.12 or 1.17): its data, its list, and the Python that reads its tensors
# (ONNX 1.12's, Debian's, cannot read the float8 and int4 tensors of the newer suite: the build
# tree's venv, utils/python-env.sh, can).
use_suite() {
  onnx="$1"
  case "$onnx" in
  1.12) data=/usr/share/libonnx-testdata/data
        expected="$root/tests/conformance/passing.txt"
        python=/usr/bin/python3 ;;
  1.17) data="$("$root/utils/fetch-onnx-testdata.sh" --path)"
        expected="$root/tests/conformance/passing-1.17.txt"
        python="$build/venv/bin/python"
        [ -x "$python" ] || python=/usr/bin/python3 ;;
  *) echo "conformance.sh: unknown suite $onnx (1.12 or 1.17)" >&2; exit 2 ;;
  esac
  suites="$data/node,$data/pytorch-converted,$data/pytorch-operator,$data/simple"
}
use_suite 1.12
R="$tmp"
case "${1:-}" in
--onnx=*) use_suite "${1#--onnx=}"; shift ;;
esac

# Runs the suite on backend $1 into $R/$1.txt ("status<TAB>suite/test<TAB>detail" lines, then
# "summary: ..."); returns the tool's status (nonzero on a crash or hang).
run_suite() {
  local s=0
  "$build/tools/conformance" -backend="$1" -suite="$suites" -verbose >"$R/$1.txt" || s=$?
  echo "conformance (ONNX $onnx) on $1: $(tail -n 1 "$R/$1.txt")"
  return "$s"
}
# The same through model-runner into $R/user-$1.txt (a fourth column: inputs fixed at compile
# time).
run_as_user() {
  local s=0
  "$python" "$root/utils/conformance_as_user.py" --backend="$1" ${suites//,/ } \
    >"$R/user-$1.txt" || s=$?
  echo "model-runner (ONNX $onnx) on $1: $(tail -n 1 "$R/user-$1.txt")"
  return "$s"
}
passing_of() { awk -F'\t' '$1 == "pass" { print $2 }' "$R/$1.txt" | sort; }
as_user_backends=(Interpreter CPU)

# Runs suite $1 on every backend (the tool) and the Interpreter and CPU as a user, into
# $tmp/$1/, and rewrites its list from the Interpreter.
update_suite() {
  use_suite "$1"
  R="$tmp/$onnx"
  mkdir -p "$R"
  for b in "${backends[@]}"; do run_suite "$b" || status=1; done
  for b in "${as_user_backends[@]}"; do run_as_user "$b" || status=1; done
  passing_of Interpreter >"$expected"
  for b in "${backends[@]}" "${as_user_backends[@]/#/user-}"; do
    missing=$(comm -23 "$expected" <(passing_of "$b"))
    if [ -n "$missing" ]; then
      echo "ONNX $onnx: $b does not pass every listed test:"
      printf '  %s\n' $missing
      status=1
    fi
  done
}

# docs/conformance.md's section of suite $1 (its results in $tmp/$1/).
suite_tables() {
  use_suite "$1"
  R="$tmp/$onnx"
  echo "## ONNX $onnx"
  echo
  echo "### As a user runs it: model-runner"
  echo
  echo "Each test run by \`utils/conformance.sh --as-user <Backend>\` exactly as a user would:"
  echo "\`model-runner -model=model.onnx -backend=B -input=NAME=input_K.pb,...\`"
  echo "\`-output-format=pb -output-dir=DIR\`, then each \`output_K.pb\` compared with what it wrote"
  echo "(\`utils/conformance_as_user.py\`). When the model needs a graph input at compile time (a"
  echo "Reshape's shape, a Pad's pads, ...), model-runner fixes exactly that input to its file's"
  echo "value and says so; every other input stays a run-time input, so the backend runs the test."
  echo "\`fixed\` counts the tests that needed it (the whole test folds at compile time only when"
  echo "every input is needed then, e.g. a window function's size). Refusals, with reasons:"
  echo "\`docs/conformance-refusals.md\`. The \`wrong\` tests of both suites: node/test_adam_multiple has"
  echo "expected data made with an epsilon of 1e-2 that its node does not carry (ONNX 1.12's"
  echo "generator; fixed upstream later): ember gives the reference's value for the model as written."
  echo "The six node/test_bernoulli* tests expect numpy's random draws, which no other generator"
  echo "gives: ember draws its own, once per compile (a seed gives the same draws every time); their"
  echo "distribution is tested in ImporterOpsTest (in ONNX 1.17 also their \\_expanded forms). ONNX"
  echo "1.17's other wrong tests have wrong expected data: the four node/test_qlinearmatmul_*_int8_*"
  echo "tests expect 20 where int8 saturates to -128 (onnxruntime 1.32 and the onnx 1.23 reference"
  echo "give ember's values; ONNX's generator was fixed later), and"
  echo "node/test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True counts"
  echo "cells past the padding in the divisor (ember gives onnxruntime's output exactly)."
  echo
  echo "| backend | suite | pass | wrong | refused | crashed | hung | total | fixed |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for b in "${as_user_backends[@]}"; do
    for s in node pytorch-converted pytorch-operator simple; do
      awk -F'\t' -v s="$s" -v b="$b" 'index($2, s "/") == 1 { n[$1]++; t++; if ($4 > 0) f++ }
        END { printf "| %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", b, s, n["pass"],
              n["wrong"], n["refused"], n["crashed"], n["hung"], t, f }' "$R/user-$b.txt"
    done
  done
  echo
  echo "### The conformance tool"
  echo
  echo "\`build/tools/conformance\` runs the same tests in-process (one child process per test),"
  echo "binding the inputs needed at compile time by the same rule (\`tools/common/InputBinding.cpp\`,"
  echo "shared with model-runner); \`fixed\` as above."
  echo
  echo "| backend | suite | pass | wrong | refused | crashed | hung | total | fixed |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for b in "${backends[@]}"; do
    for s in node pytorch-converted pytorch-operator simple; do
      awk -F'\t' -v s="$s" -v b="$b" 'index($2, s "/") == 1 { n[$1]++; t++;
          if ($3 ~ /input\(s\) fixed at compile time$/) f++ }
        END { printf "| %s | %s | %d | %d | %d | %d | %d | %d | %d |\n", b, s, n["pass"],
              n["wrong"], n["refused"], n["crashed"], n["hung"], t, f }' "$R/$b.txt"
    done
  done
  echo
}

suite_per_test() {
  use_suite "$1"
  R="$tmp/$onnx"
  echo "## Per test: ONNX $onnx"
  echo
  echo "The Interpreter's result and, for a test it does not pass, why. The other backends"
  echo "pass exactly the tests it passes unless the table above says otherwise."
  echo
  echo "| test | result | reason |"
  echo "| --- | --- | --- |"
  awk -F'\t' 'NF >= 2 && $1 != "summary:" {
      reason = ($1 == "pass") ? "" : $3;
      if ($1 == "pass" && match($3, /[0-9]+ input\(s\) fixed at compile time$/)) reason = substr($3, RSTART);
      gsub(/\|/, "\\|", reason); if (length(reason) > 160) reason = substr(reason, 1, 160) "...";
      sub(/^.*\/usr\/share\/libonnx-testdata\/data\//, "", reason);
      printf "| %s | %s | %s |\n", $2, $1, reason }' "$R/Interpreter.txt"
}

if [ "${1:-}" = "--update" ]; then
  status=0
  update_suite 1.17
  update_suite 1.12
  {
    echo "# ONNX backend test suite conformance"
    echo
    echo "Generated by \`utils/conformance.sh --update\` from two ONNX backend test suites:"
    echo "ONNX 1.17 (Debian 13's libonnx-testdata 1.17.0, opsets up to 22, unpacked into a cache"
    echo "folder by \`utils/fetch-onnx-testdata.sh\`) and ONNX 1.12 (Debian 12's, installed)."
    echo "Floats pass when |got - want| <= 1e-5 + 1e-3 * |want|; integers and bools"
    echo "must match exactly. \`refused\` means ember declined the model with an error. Every"
    echo "backend is held to the same list per suite, \`tests/conformance/passing-1.17.txt\` and"
    echo "\`tests/conformance/passing.txt\` (what the Interpreter, the reference, passes); CI checks"
    echo "each with \`utils/conformance.sh [--onnx=1.17] <Backend>\`, and the Interpreter and CPU"
    echo "through model-runner with \`utils/conformance.sh [--onnx=1.17] --as-user <Backend>\`."
    echo
    suite_tables 1.17
    suite_tables 1.12
    suite_per_test 1.17
    suite_per_test 1.12
  } >"$root/docs/conformance.md"
  {
    echo "# ONNX backend test suites: refusals"
    echo
    echo "Generated by \`utils/conformance.sh --update\`: every test that model-runner refuses, run"
    echo "as a user runs it (\`docs/conformance.md\`), with its error on the Interpreter; a test the"
    echo "CPU backend refuses for another reason, or only there, has a second row."
    for onnx in 1.17 1.12; do
      R="$tmp/$onnx"
      echo
      echo "## ONNX $onnx"
      echo
      echo "| test | backend | reason |"
      echo "| --- | --- | --- |"
      awk -F'\t' 'FNR == 1 { b = (b == "") ? "Interpreter" : "CPU" }
          $1 == "refused" { reason = $3; gsub(/\|/, "\\|", reason);
            sub(/^.*\/usr\/share\/libonnx-testdata\/data\//, "", reason);
            if (length(reason) > 300) reason = substr(reason, 1, 300) "...";
            if (b == "Interpreter") { seen[$2] = reason; printf "| %s | Interpreter | %s |\n", $2, reason }
            else if (seen[$2] != reason) printf "| %s | CPU | %s |\n", $2, reason }' \
        "$R/user-Interpreter.txt" "$R/user-CPU.txt"
    done
  } >"$root/docs/conformance-refusals.md"
  echo "updated the lists, docs/conformance.md and docs/conformance-refusals.md"
  exit "$status"
fi

if [ "${1:-}" = "--as-user" ]; then
  backend="${2:-Interpreter}"
  status=0
  run_as_user "$backend" || status=$?
  results="$R/user-$backend.txt"
  passing=$(passing_of "user-$backend")
else
  backend="${1:-Interpreter}"
  status=0
  run_suite "$backend" || status=$?
  results="$R/$backend.txt"
  passing=$(passing_of "$backend")
fi
missing=$(comm -23 "$expected" <(printf '%s\n' "$passing"))
new=$(comm -13 "$expected" <(printf '%s\n' "$passing"))
if [ -n "$new" ]; then
  echo "passing beyond the list (the list follows the Interpreter; see --update):"
  printf '  %s\n' $new
fi
if [ -n "$missing" ]; then
  echo "REGRESSIONS: expected to pass but did not:"
  for t in $missing; do
    grep -P "\t$t(\t|$)" "$results" | sed 's/^/  /' || echo "  $t: not in the suite"
  done
  status=1
fi
if grep -qE '^(crashed|hung)' "$results"; then
  echo "crashes or hangs:"
  grep -E '^(crashed|hung)' "$results" | sed 's/^/  /'
  status=1
fi
echo "$(printf '%s\n' "$passing" | grep -c .) passed, $(printf '%s\n' "$missing" | grep -c .) failed"
exit "$status"
