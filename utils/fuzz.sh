#!/usr/bin/env bash
# Runs a libFuzzer campaign on a harness of tests/fuzz in the fuzz build ($EMBER_FUZZ_BUILD_DIR,
# default build-fuzz: clang-19, ASan+UBSan, -DEMBER_FUZZ=ON), configured and built on first use.
#   utils/fuzz.sh HARNESS SECONDS [libFuzzer flags...]   one campaign (-fork=N: N processes)
#   utils/fuzz.sh all SECONDS                            each harness in turn, SECONDS each
# The corpus lives in the build (corpus/HARNESS, seeded by utils/fuzz/make_seeds.py) and grows
# from campaign to campaign. A crash (or leak, timeout, out-of-memory) stops the campaign and is
# copied to tests/fuzz/regressions/HARNESS/: fix it and commit both, and ctest replays it in
# every build. Prints executions, coverage and crashes, and appends them to fuzz-log.tsv in the
# build; a campaign of 300 s or more also to tests/fuzz/campaigns.tsv, to be committed (the
# record of how far each harness has been fuzzed). Prints the per-harness totals of both.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${EMBER_FUZZ_BUILD_DIR:-$root/build-fuzz}"
campaigns="$root/tests/fuzz/campaigns.tsv"
# As utils/build.sh: paths relative to the checkout in ccache's keys, so clones share the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
harnesses=(onnx_binary onnx_text caffe2 tensor_files compile_interpreter compile_cpu)
[ $# -ge 2 ] || { echo "usage: utils/fuzz.sh {all|${harnesses[*]// /|}} SECONDS [flags]" >&2; exit 2; }
which="$1" seconds="$2"
shift 2

if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEMBER_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null
fi
targets=()
if [ "$which" = all ]; then
  for h in "${harnesses[@]}"; do targets+=("fuzz-$h"); done
else
  targets=("fuzz-$which")
fi
ninja -C "$build" -j"$(nproc)" "${targets[@]}" >/dev/null

dict_of() { case "$1" in caffe2) echo caffe2.dict ;; tensor_files) echo "" ;; *) echo onnx.dict ;; esac; }

# replay_at_o3 CORPUS STAMP LOG: runs the corpus inputs newer than STAMP once through
# fuzz-compile_cpu at -llvm-opt-level=3; an input that fails becomes a regression input.
replay_at_o3() {
  local corpus="$1" stamp="$2" log="$3" inputs
  mapfile -t inputs < <(find "$corpus" -type f -newer "$stamp")
  echo "  compile_cpu: ${#inputs[@]} new corpus inputs through O3"
  [ ${#inputs[@]} -gt 0 ] || return 0
  : >"$log"
  local i
  for ((i = 0; i < ${#inputs[@]}; i += 200)); do
    if ! EMBER_FUZZ_LLVM_OPT_LEVEL=3 ASAN_OPTIONS="${ASAN_OPTIONS:-allocator_may_return_null=0}" \
      "$build/tests/fuzz/fuzz-compile_cpu" -rss_limit_mb=3072 -timeout=120 \
      "${inputs[@]:i:200}" >>"$log" 2>&1; then
      local failed
      failed="$(grep '^Running: ' "$log" | tail -1 | sed 's/^Running: //')"
      cp "$failed" "$root/tests/fuzz/regressions/compile_cpu/o3-$(basename "$failed")"
      echo "  new regression input (at O3): tests/fuzz/regressions/compile_cpu/o3-$(basename "$failed")"
      grep -m 3 -E 'ERROR|SUMMARY|runtime error' "$log" >&2 || tail -5 "$log" >&2
      return 1
    fi
  done
}

campaign() {
  local h="$1"
  shift
  local corpus="$build/corpus/$h" artifacts="$build/artifacts/$h/" log="$build/logs/$h.log"
  mkdir -p "$corpus" "$artifacts" "$build/logs" "$root/tests/fuzz/regressions/$h"
  if [ -z "$(ls -A "$corpus")" ]; then
    /usr/bin/python3 "$root/utils/fuzz/make_seeds.py" "$h" "$corpus" >/dev/null
  fi
  local dict=() d
  d="$(dict_of "$h")"
  [ -n "$d" ] && dict=(-dict="$root/tests/fuzz/$d")
  local status=0
  local stamp="$build/logs/$h.start"
  touch "$stamp"
  # A hang is a timeout of 30 s an input; the compile harnesses get more: every input goes
  # through LLVM and machine code (compile_cpu: at O0, then O3 for the inputs it keeps) under
  # ASan, several times slower than a normal build. The seed of tests/models/conv_strided_dilated
  # (one float conv) took 25 s of CPU there at O3 and ran past 30 s on a loaded two-core machine
  # (CI of 2026-11-27, when a float conv took 3 s to compile normally; 1.8 s since), and a small
  # QDQ CNN (1.7 s normally) still takes over 10 s.
  local timeout=30
  case "$h" in compile_*) timeout=120 ;; esac
  # Out of memory counts: the loaders must refuse sizes they cannot hold before allocating.
  ASAN_OPTIONS="${ASAN_OPTIONS:-allocator_may_return_null=0}" \
  "$build/tests/fuzz/fuzz-$h" "$corpus" "${dict[@]}" -max_total_time="$seconds" \
    -artifact_prefix="$artifacts" -print_final_stats=1 -rss_limit_mb=3072 -timeout="$timeout" \
    -max_len=65536 "$@" >"$log" 2>&1 || status=$?
  local execs cov crashes=0
  execs="$(awk '/stat::number_of_executed_units/ { print $2 }' "$log" | tail -1)"
  # -fork=N (one process per core) prints no final stats: its progress lines count the
  # executions of all its jobs ("#1867: cov: ...").
  [ -n "$execs" ] || execs="$(grep -oE '^#[0-9]+: cov:' "$log" | tail -1 | tr -dc '0-9')"
  cov="$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1)"
  for a in "$artifacts"*; do
    [ -f "$a" ] || continue
    case "$(basename "$a")" in
    slow-unit-*) # slow, not wrong: reported (the compile harnesses meet big models), not kept
      echo "  slow input (over 10 s): $a"
      continue ;;
    esac
    cp "$a" "$root/tests/fuzz/regressions/$h/$(basename "$a")"
    echo "  new regression input: tests/fuzz/regressions/$h/$(basename "$a")"
    rm "$a"
    crashes=$((crashes + 1))
  done
  # compile_cpu fuzzes at -llvm-opt-level=0 (FuzzCompile.cpp): each input the campaign added
  # to the corpus, the inputs that reached new code, now goes through LLVM's O3 as users run it.
  if [ "$h" = compile_cpu ] && [ "$status" -eq 0 ] && [ "$seconds" -ge 300 ]; then
    replay_at_o3 "$corpus" "$stamp" "$log.o3" || { status=1; crashes=$((crashes + 1)); }
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$h" "$seconds" "${execs:-0}" "$crashes" "$cov" >>"$build/fuzz-log.tsv"
  # A real campaign (5 minutes or more, not CI's short smoke runs) is also recorded in the
  # checkout, to be committed: the totals per harness must outlive any one build directory.
  if [ "$seconds" -ge 300 ]; then
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%F)" "$(git -C "$root" rev-parse --short HEAD)" \
      "$h" "$seconds" "${execs:-0}" "$crashes" "$cov" >>"$campaigns"
  fi
  echo "$h: ${execs:-0} executions in ${seconds} s, ${cov:-no coverage line}, $crashes crash(es)"
  if [ "$status" -ne 0 ]; then
    echo "  the campaign stopped (exit $status); see $log:" >&2
    grep -m 3 -E 'ERROR|SUMMARY|runtime error' "$log" >&2 || tail -5 "$log" >&2
  fi
  return "$status"
}

status=0
for t in "${targets[@]}"; do
  campaign "${t#fuzz-}" "$@" || status=1
done
echo "totals over every campaign in $build/fuzz-log.tsv (harness: executions, crashes):"
awk -F'\t' '{ e[$1] += $3; c[$1] += $4 } END { for (h in e) printf "  %s: %d, %d\n", h, e[h], c[h] }' \
  "$build/fuzz-log.tsv" | sort
echo "totals over the recorded campaigns in tests/fuzz/campaigns.tsv (harness: executions, crashes):"
awk -F'\t' '!/^#/ { e[$3] += $5; c[$3] += $6 } END { for (h in e) printf "  %s: %d, %d\n", h, e[h], c[h] }' \
  "$campaigns" | sort
exit "$status"
