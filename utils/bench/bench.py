#!/usr/bin/python3
"""Latency of ember's backends next to onnxruntime's, measured in one run, as docs/performance.md.

For each zoo model (utils/models/export_zoo.py: random weights, torch's output saved beside):
  - ember CPU: model-runner -backend=CPU -iterations=N (the compiled function alone: median and
    min of N runs after one warm-up run), its compile time (-time-phases) and its memory plan;
  - ember Interpreter: the same with fewer runs (it is the reference, not built for speed);
  - onnxruntime 1.30 (utils/bench/ort-run.js, CPU provider) with 1 and 2 intra-op threads;
  - each output is compared with torch's (|got - want| <= 1e-4 + 1e-3 |want|): a number is only
    reported for a run that computed the right answer.
The runs of one model follow each other (CPU, Interpreter, onnxruntime x1, x2), so each ratio
compares runs made on the same machine within a minute. Ratios are ember / onnxruntime (below 1:
ember is faster). GFLOP/s counts 2 flops per multiply-add of Conv, Gemm and MatMul.

    /usr/bin/python3 utils/bench/bench.py [--models resnet18,resnet50] [--iterations 20]
                                          [--output docs/performance.md]
"""

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MODELS = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "transformer_encoder"]


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                        p.stderr))
    return p.stdout


def model_flops(path):
    """2 x multiply-adds of Conv, Gemm and MatMul, from ONNX shape inference."""
    import onnx
    from onnx import shape_inference
    m = shape_inference.infer_shapes(onnx.load(path))
    g = m.graph
    shapes = {}
    for v in list(g.value_info) + list(g.input) + list(g.output):
        dims = [d.dim_value for d in v.type.tensor_type.shape.dim]
        shapes[v.name] = dims
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    flops = 0
    for n in g.node:
        if n.op_type == "Conv":
            w, y = shapes.get(n.input[1]), shapes.get(n.output[0])
            if w and y:
                k = 1
                for d in w[1:]:
                    k *= d
                out = 1
                for d in y:
                    out *= d
                flops += 2 * out * k
        elif n.op_type in ("Gemm", "MatMul"):
            a, y = shapes.get(n.input[0]), shapes.get(n.output[0])
            if a and y:
                out = 1
                for d in y:
                    out *= d
                trans_a = any(at.name == "transA" and at.i for at in n.attribute)
                flops += 2 * out * (a[-2] if trans_a and len(a) >= 2 else a[-1])
    return flops


def compare(got_path, want_path):
    """Largest |got - want| and whether all are within 1e-4 + 1e-3 |want|."""
    import numpy as np
    from onnx import numpy_helper, TensorProto
    got = np.load(got_path)
    t = TensorProto()
    with open(want_path, "rb") as f:
        t.ParseFromString(f.read())
    want = numpy_helper.to_array(t)
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    return float(err.max()), bool(np.all(err <= 1e-4 + 1e-3 * np.abs(want)))


def ember_run(build, case, backend, iterations, tmp):
    out_dir = os.path.join(tmp, backend)
    text = run([os.path.join(build, "tools", "model-runner"), "-model=" + case + "/model.onnx",
                "-input=" + case + "/test_data_set_0/input_0.pb", "-backend=" + backend,
                "-iterations=%d" % iterations, "-time-phases", "-print-memory",
                "-output-dir=" + out_dir])
    lat = re.search(r"latency: median ([\d.]+) ms, min ([\d.]+) ms", text)
    total = re.search(r"^  total\s+([\d.]+) ms", text, re.M)
    backend_ms = re.search(r"^  backend compile\s+([\d.]+) ms", text, re.M)
    regions = {k: int(v) for k, v in re.findall(r"^  (constant|mutable|activations):\s+(\d+) bytes",
                                                 text, re.M)}
    outputs = sorted(f for f in os.listdir(out_dir) if f.endswith(".npy"))
    err, ok = compare(os.path.join(out_dir, outputs[0]),
                      os.path.join(case, "test_data_set_0", "output_0.pb"))
    return {"median": float(lat.group(1)), "min": float(lat.group(2)),
            "compile_ms": float(total.group(1)), "backend_ms": float(backend_ms.group(1)),
            "regions": regions, "max_err": err, "ok": ok}


def ort_run(case, threads, iterations, tmp):
    out_dir = os.path.join(tmp, "ort%d" % threads)
    text = run(["node", os.path.join(ROOT, "utils", "bench", "ort-run.js"), "--model",
                case + "/model.onnx", "--input", case + "/test_data_set_0/input_0.pb", "--threads",
                str(threads), "--iterations", str(iterations), "--warmup", "3", "--output-dir",
                out_dir, "--json"])
    r = json.loads(text.strip().splitlines()[-1])
    err, ok = compare(r["output_files"][0], os.path.join(case, "test_data_set_0", "output_0.pb"))
    return {"median": r["median_ms"], "min": r["min_ms"], "rss": r["peak_rss_mib"],
            "max_err": err, "ok": ok}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS))
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--interpreter-iterations", type=int, default=2)
    ap.add_argument("--build", default=os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--output", default=os.path.join(ROOT, "docs", "performance.md"))
    args = ap.parse_args()
    models = [m for m in args.models.split(",") if m]

    zoo = os.path.join(args.build, "zoo", "models")
    run(["/usr/bin/python3", os.path.join(ROOT, "utils", "models", "export_zoo.py"), "--out", zoo,
         "--only", ",".join(models)])
    run([os.path.join(ROOT, "utils", "bench", "setup-ort.sh")])

    rows = []
    for name in models:
        case = os.path.join(zoo, name)
        with tempfile.TemporaryDirectory() as tmp:
            print("bench: %s" % name, file=sys.stderr)
            row = {"name": name, "gflop": model_flops(case + "/model.onnx") / 1e9}
            row["cpu"] = ember_run(args.build, case, "CPU", args.iterations, tmp)
            row["interp"] = ember_run(args.build, case, "Interpreter", args.interpreter_iterations,
                                      tmp)
            row["ort1"] = ort_run(case, 1, args.iterations, tmp)
            row["ort2"] = ort_run(case, 2, args.iterations, tmp)
            rows.append(row)

    def cell(r):
        return "%.2f" % r["median"] if r["ok"] else "%.2f (WRONG)" % r["median"]

    cpu_name = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu_name = re.search(r"model name\s*:\s*(.*)", f.read()).group(1)
    except (OSError, AttributeError):
        pass
    lines = [
        "# Performance",
        "",
        "Generated by `/usr/bin/python3 utils/bench/bench.py` on %s (%s, %d CPUs), %s." %
        (cpu_name, platform.machine(), os.cpu_count(), datetime.date.today().isoformat()),
        "Latency is the median over %d runs of the compiled model alone (ember: model-runner "
        "`-iterations`, one warm-up run first; onnxruntime 1.30 CPU provider through "
        "`utils/bench/ort-run.js`, 3 warm-up runs), in milliseconds, batch 1. The Interpreter "
        "gets %d runs. Every output was checked against torch's (`WRONG` marks one that was not)."
        % (args.iterations, args.interpreter_iterations),
        "",
        "| model | GFLOP | ember CPU | ember Interpreter | onnxruntime 1 thread | onnxruntime 2 threads "
        "| CPU / ort 1 thread | CPU GFLOP/s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        ratio = r["cpu"]["median"] / r["ort1"]["median"]
        lines.append("| %s | %.2f | %s | %s | %s | %s | %.2fx | %.1f |" % (
            r["name"], r["gflop"], cell(r["cpu"]), cell(r["interp"]), cell(r["ort1"]),
            cell(r["ort2"]), ratio, r["gflop"] / (r["cpu"]["median"] / 1e3)))
    lines += [
        "",
        "Ratio: ember CPU latency / onnxruntime single-thread latency (below 1: ember is faster). "
        "ember runs single-threaded.",
        "",
        "## Compile time and memory",
        "",
        "| model | ember compile (total) | of which the CPU backend | constant | mutable | "
        "activations | onnxruntime peak RSS (1 thread) | max abs error vs torch (CPU) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    mib = lambda b: "%.1f MiB" % (b / 1048576.0)
    for r in rows:
        reg = r["cpu"]["regions"]
        lines.append("| %s | %.0f ms | %.0f ms | %s | %s | %s | %.0f MiB | %.2g |" % (
            r["name"], r["cpu"]["compile_ms"], r["cpu"]["backend_ms"], mib(reg["constant"]),
            mib(reg["mutable"]), mib(reg["activations"]), r["ort1"]["rss"], r["cpu"]["max_err"]))
    lines.append("")
    with open(args.output, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    if not all(r[k]["ok"] for r in rows for k in ("cpu", "interp", "ort1", "ort2")):
        sys.exit(1)


if __name__ == "__main__":
    main()
