#!/usr/bin/env python3
"""Layer by layer, ember's CPU backend against onnxruntime on one model, one thread.

ember: `model-runner -profile` (the JIT, the same code a bundle runs; fused runs are charged to
their first member). onnxruntime: its own profiler (utils/bench/ort-profile.js, per-node kernel
times). Both are medians over the runs. Nodes are matched by name: onnxruntime's fused QDQ nodes
keep the original node's name with a `_token_N` suffix, ember's instructions the node's name with
a suffix of their own (`.acc`, `.requantize`, ...); what matches in neither is summed apart.

    /usr/bin/python3 utils/bench/compare-layers.py --model build/zoo/qdq/resnet50/model.onnx \\
        --input build/zoo/qdq/resnet50/test_data_set_0/input_0.pb
"""
import argparse
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ember_times(runner, model, inp, runs):
    out = subprocess.run([runner, f"-model={model}", f"-input={inp}", f"-iterations={runs}",
                          "-profile"], capture_output=True, text=True, check=True).stdout
    times = {}
    for line in out.splitlines():
        m = re.match(r"\s+([0-9.]+) ms .*? %(\S+) ->", line)
        if m:
            name = re.sub(r"\.(matmul\.)?(acc|requantize)$", "", m.group(2))
            times[name] = times.get(name, 0.0) + float(m.group(1))
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--input", required=True)
    ap.add_argument("--runs", type=int, default=60)
    ap.add_argument("--build", default=os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build")))
    args = ap.parse_args()
    ort = json.loads(subprocess.run(
        ["node", os.path.join(ROOT, "utils", "bench", "ort-profile.js"), args.model, args.input,
         str(args.runs)], capture_output=True, text=True, check=True).stdout)
    ort = {re.sub(r"_token_\d+$", "", k): v for k, v in ort.items()}
    ember = ember_times(os.path.join(args.build, "tools", "model-runner"), args.model, args.input,
                        args.runs)
    both = sorted(set(ember) & set(ort), key=lambda k: ember[k] - ort[k]["ms"], reverse=True)
    print(f"{'node':60s} {'onnxruntime op':16s} {'ember ms':>9s} {'ort ms':>9s} {'diff':>8s}")
    for k in both:
        print(f"{k:60s} {ort[k]['op']:16s} {ember[k]:9.3f} {ort[k]['ms']:9.3f} "
              f"{ember[k] - ort[k]['ms']:+8.3f}")
    matched_e = sum(ember[k] for k in both)
    matched_o = sum(ort[k]["ms"] for k in both)
    rest_e = sum(v for k, v in ember.items() if k not in ort)
    rest_o = sum(v["ms"] for k, v in ort.items() if k not in ember)
    print(f"matched nodes: ember {matched_e:.3f} ms, onnxruntime {matched_o:.3f} ms; "
          f"the rest: ember {rest_e:.3f} ms, onnxruntime {rest_o:.3f} ms; "
          f"total: ember {matched_e + rest_e:.3f}, onnxruntime {matched_o + rest_o:.3f}")


if __name__ == "__main__":
    main()
