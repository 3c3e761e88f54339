#!/usr/bin/python3
"""ember's latency next to onnxruntime's, measured in one run, written to docs/performance.md.

For each zoo model (utils/models/export_zoo.py: torchvision/torch with random weights, torch's
output saved beside the model: image classifiers, BERT- and GPT-2-shaped transformers, Whisper-
tiny's audio encoder, a mel front-end, GRU and LSTM sequence models, a small MLP and encoder):
  - ember: model-compiler builds a bundle (dynamic API) for this machine, single-threaded and
    with -threads=2; the system C compiler links it into examples/bundles/dynamic_runner.c,
    which runs it (warm-up runs, then N timed runs: median and min of the bundle's entry point
    alone). Compile time and the bundle's three regions come from model-compiler.
  - ember's Interpreter (the reference; only for the models named by --interpreter-models, with
    fewer runs: it is not built for speed), through model-runner.
  - ember's OpenCL backend (docs/opencl-backend.md; PoCL here) through model-runner, for the
    models named by --opencl-models (--opencl-iterations runs, the lower median of two such):
    latency including the upload of the inputs and the read-back of the outputs, and its ratio
    to the CPU backend's bundle.
  - onnxruntime 1.30 (npm's onnxruntime-node, CPU provider) with 1 and 2 intra-op threads,
    through utils/bench/ort-run.js, with its peak resident memory.
  - every output is compared with torch's: |got - want| <= 1e-4 max|want| + 1e-4 |want| (zoo.sh's
    tolerance); a number from a run that computed the wrong answer is marked WRONG and fails.
The runs of one model follow each other, so each ratio compares runs made within a minute on the
same machine. The models of at least SMALL_GFLOP GFLOP (model_flops) make the main table and its
geometric means; the smaller ones are listed apart, as their time is mostly a runtime's call
overhead, not arithmetic (a 0.01 ms MLP against onnxruntime's 0.07 would otherwise weigh as much
in the summary as resnet50). The machine's peak is measured first (utils/bench/peak.c: an FMA
loop on one core).
Then int8 (--int8-models, 1 thread): each model's float32 bundle next to its int8 bundles, one
quantized by ember from a profile (model-runner -dump-profile, model-compiler -load-profile), one
compiled from the QDQ version of the model (utils/models/make_qdq_models.py --bench), and
onnxruntime on that QDQ model; errors as relative L2 (int8_errors).
Finally the three slowest instructions of resnet50 and mobilenet_v2 (model-runner -profile).

    /usr/bin/python3 utils/bench/bench.py [--models resnet18,resnet50] [--iterations 20]
                                          [--int8-models resnet50] [--output docs/performance.md]
                                          [--interpreter-models ...] [--opencl-models ...]
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZOO = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "shufflenet_v2_x1_0",
       "efficientnet_b0", "densenet121", "inception_v3", "mlp", "transformer_encoder",
       "bert_mini", "bert_base", "gpt2_decoder", "whisper_tiny_encoder", "mel_frontend", "gru",
       "lstm"]
# The Interpreter's column, the reference: not bert_base, gpt2_decoder, whisper_tiny_encoder
# (2-6 s a run each).
INTERPRETED = ["resnet18", "resnet50", "mobilenet_v2", "squeezenet1_1", "transformer_encoder",
               "bert_mini", "mel_frontend", "gru", "lstm"]
# The OpenCL column: all but bert_base, gpt2_decoder and whisper_tiny_encoder, which PoCL on this
# 2-core VM runs in 1.0, 0.6 and 8.6 s each (40 runs: minutes; whisper_tiny_encoder alone, 6).
OPENCL = [m for m in ZOO if m not in ("bert_base", "gpt2_decoder", "whisper_tiny_encoder")]
# The main table and its geometric means take the models of at least this many GFLOP; below, a
# run is mostly a runtime's fixed cost per call (mlp: 0.0005 GFLOP, transformer_encoder: 0.001).
SMALL_GFLOP = 0.05
PROFILED = ["resnet50", "mobilenet_v2"]
# The int8 section: models utils/models/make_qdq_models.py --bench also writes in QDQ form.
INT8 = ["resnet50", "mobilenet_v2"]
PROFILE_INPUTS, PROFILE_SEED = 4, 1234
# Relative L2 error bounds of the int8 outputs: ember on a QDQ model against onnxruntime on it
# (integer arithmetic on the same scales, apart by rounding at requantization); ember's
# profiled int8 against torch's float32, relative to onnxruntime's int8 error (int8_errors).
INT8_QDQ_BOUND, INT8_PROFILE_FACTOR, INT8_PROFILE_FLOOR = 0.05, 2.0, 0.1
# Each timing process (ember's runner, onnxruntime's) runs this many times and the lowest median
# counts, alike for both: on this 2-core VM a run's median now and then doubles (seen at 2
# threads: the same bundle took 13.9 ms in one run, 6.8-7.0 ms in every other).
REPEATS = 2


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d):\n%s%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                        p.stderr))
    return p.stdout


def read_pb(path):
    import onnx
    from onnx import numpy_helper
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t.name, numpy_helper.to_array(t)


def matches(got, want):
    """The largest |got - want| and whether it is within zoo.sh's tolerance."""
    import numpy as np
    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
    atol = max(1e-5, 1e-4 * float(np.abs(want).max()))
    return float(err.max()), bool(np.all(err <= atol + 1e-4 * np.abs(want)))


def model_flops(path):
    """2 x the multiply-adds of Conv (any rank: Conv1d too), Gemm, MatMul (batched operands too:
    attention's products) and the recurrent nodes, from ONNX shape inference. An LSTM / GRU / RNN
    node multiplies each step's input by W [directions, gates x hidden, input] and its hidden
    state by R [directions, gates x hidden, hidden]: 2 x steps x batch x (|W| + |R|), i.e.
    2 x gates x hidden x (input + hidden) x steps x directions per layer (4 gates for LSTM, 3 for
    GRU)."""
    import onnx
    from onnx import shape_inference
    g = shape_inference.infer_shapes(onnx.load(path)).graph
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
              for v in list(g.value_info) + list(g.input) + list(g.output)}
    shapes.update({t.name: list(t.dims) for t in g.initializer})

    def count(dims):
        n = 1
        for d in dims:
            n *= d
        return n

    flops = 0
    for n in g.node:
        y = shapes.get(n.output[0])
        if not y or 0 in y:
            continue
        if n.op_type == "Conv" and shapes.get(n.input[1]):
            flops += 2 * count(y) * count(shapes[n.input[1]][1:])
        elif n.op_type in ("Gemm", "MatMul") and shapes.get(n.input[0]):
            a = shapes[n.input[0]]
            trans_a = any(at.name == "transA" and at.i for at in n.attribute)
            flops += 2 * count(y) * (a[-2] if trans_a else a[-1])
        elif n.op_type in ("LSTM", "GRU", "RNN") and all(shapes.get(i) for i in n.input[:3]):
            x = shapes[n.input[0]]  # [steps, batch, input], or [batch, steps, input] (layout 1)
            flops += 2 * count(x[:2]) * (count(shapes[n.input[1]]) + count(shapes[n.input[2]]))
    return flops


def measure_peak(tmp):
    exe = os.path.join(tmp, "peak")
    run(["cc", "-O2", "-march=native", os.path.join(ROOT, "utils", "bench", "peak.c"), "-o", exe])
    return float(re.search(r"([\d.]+) GFLOP/s", run([exe])).group(1))


def ember_bundle(build, case, iterations, tmp, threads=1, flags=(), tag="", check=None):
    """Compiles the case to a bundle (with model-compiler's \p flags), links and times it;
    checks its output against the case's (torch's) with matches, or with \p check(got, want)
    -> (error, ok)."""
    import numpy as np
    tmp = os.path.join(tmp, "threads%d%s" % (threads, tag))
    os.makedirs(tmp, exist_ok=True)
    bundle = os.path.join(tmp, "bundle")
    name, x = read_pb(os.path.join(case, "test_data_set_0", "input_0.pb"))
    npy = os.path.join(tmp, "input.npy")
    np.save(npy, x)
    text = run([os.path.join(build, "tools", "model-compiler"), "-model=" + case + "/model.onnx",
                "-emit-bundle=" + bundle, "-network-name=net", "-bundle-api=dynamic",
                "-input=%s=%s" % (name, npy), "-time-phases", "-threads=%d" % threads] +
               list(flags))
    total = float(re.search(r"^  total\s+([\d.]+) ms", text, re.M).group(1))
    # The compile just wrote the weights (151 MB for resnet50; 1.1 GB when weights.txt was
    # written too): timed while the kernel writes that back, the bundle ran up to 40% slower, by
    # chance, in either build.
    os.sync()
    with open(os.path.join(bundle, "net.json")) as f:
        manifest = json.load(f)
    exe = os.path.join(tmp, "runner")
    # A threaded bundle runs every call on one team kept across calls (docs/bundles.md), as a
    # program calling it repeatedly should.
    team = ["-DBUNDLE_TEAM", "-DBUNDLE_UPPER=NET"] if manifest.get("threads", 1) > 1 else []
    run(["cc", "-O2", "-I" + bundle, "-I" + os.path.join(ROOT, "examples", "bundles"),
         "-DBUNDLE=net"] + team + [os.path.join(ROOT, "examples", "bundles", "dynamic_runner.c"),
         os.path.join(bundle, "net.o"), "-o", exe] + manifest["link_flags"])
    out = os.path.join(tmp, "out")
    os.makedirs(out, exist_ok=True)
    lat = best_of(REPEATS, lambda: re.search(
        r"latency: median ([\d.]+) ms, min ([\d.]+) ms",
        run([exe, os.path.join(bundle, "net.weights.bin"), "%s=%s" % (name, npy), "-o", out,
             "-n", str(iterations), "-w", "3"])))
    output = [p for p in manifest["placeholders"] if p["kind"] == "output"][0]
    got = np.fromfile(os.path.join(out, re.sub(r"[^A-Za-z0-9.-]", "_", output["name"]) + ".bin"),
                      dtype=output["type"]).reshape(output["shape"])
    err, ok = (check or matches)(
        got, read_pb(os.path.join(case, "test_data_set_0", "output_0.pb"))[1])
    return {"median": float(lat.group(1)), "min": float(lat.group(2)), "compile_ms": total,
            "memory": manifest["memory"], "max_err": err, "ok": ok, "output": got}


def best_of(repeats, measure):
    """The run with the lowest median of \p repeats runs of \p measure (a latency match)."""
    return min((measure() for _ in range(repeats)), key=lambda m: float(m.group(1)))


def ember_runner(build, case, iterations, tmp, backend, repeats=1):
    """model-runner's latency on \p backend (Interpreter, OpenCL), the lower median of
    \p repeats runs, and its output's match."""
    import numpy as np
    out = os.path.join(tmp, backend)
    lat = best_of(repeats, lambda: re.search(
        r"latency: median ([\d.]+) ms, min ([\d.]+) ms",
        run([os.path.join(build, "tools", "model-runner"), "-model=" + case + "/model.onnx",
             "-input=" + case + "/test_data_set_0/input_0.pb", "-backend=" + backend,
             "-iterations=%d" % iterations, "-output-dir=" + out])))
    got = np.load(os.path.join(out, sorted(os.listdir(out))[0]))
    err, ok = matches(got, read_pb(os.path.join(case, "test_data_set_0", "output_0.pb"))[1])
    return {"median": float(lat.group(1)), "min": float(lat.group(2)), "max_err": err, "ok": ok}


def onnxruntime(case, threads, iterations, tmp):
    import numpy as np
    out = os.path.join(tmp, "ort%d" % threads)

    def once():
        text = run(["node", os.path.join(ROOT, "utils", "bench", "ort-run.js"), "--model",
                    case + "/model.onnx", "--input", case + "/test_data_set_0/input_0.pb",
                    "--threads", str(threads), "--iterations", str(iterations), "--warmup", "3",
                    "--output-dir", out, "--json"])
        return json.loads(text.strip().splitlines()[-1])
    runs = [once() for _ in range(REPEATS)]
    r = min(runs, key=lambda x: x["median_ms"])
    got = np.load(r["output_files"][0])
    err, ok = matches(got, read_pb(os.path.join(case, "test_data_set_0", "output_0.pb"))[1])
    return {"median": r["median_ms"], "min": r["min_ms"], "rss": r["peak_rss_mib"],
            "max_err": err, "ok": ok, "output": got}


def relative_error(got, want):
    """||got - want|| / ||want|| (L2): int8 outputs differ from float32 ones by design, so the
    int8 runs are checked against a bound on this rather than elementwise."""
    import numpy as np
    got, want = got.astype(np.float64), want.astype(np.float64)
    return float(np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30))


def within(bound):
    """A check for ember_bundle: the relative error, and whether it is at most \p bound."""
    def check(got, want):
        err = relative_error(got, want)
        return err, err <= bound
    return check


def ember_int8_from_profile(build, case, iterations, tmp):
    """The documented post-training flow (docs/quantization.md) on the float model: model-runner
    -dump-profile over PROFILE_INPUTS seeded random inputs (not the test input), then
    model-compiler -load-profile (its default schema) into a bundle, timed as ember_bundle.
    Its output is checked by the caller (int8_errors)."""
    import numpy as np
    work = os.path.join(tmp, "profile")
    inputs = os.path.join(work, "inputs")
    os.makedirs(inputs)
    x = read_pb(os.path.join(case, "test_data_set_0", "input_0.pb"))[1]
    rng = np.random.default_rng(PROFILE_SEED)
    for i in range(PROFILE_INPUTS):
        np.save(os.path.join(inputs, "%02d.npy" % i),
                rng.standard_normal(x.shape).astype(np.float32))
    profile = os.path.join(work, "profile.yaml")
    run([os.path.join(build, "tools", "model-runner"), "-model=" + case + "/model.onnx",
         "-backend=CPU", "-input=" + os.path.join(inputs, "00.npy"), "-profile-inputs=" + inputs,
         "-dump-profile=" + profile, "-output-dir=" + os.path.join(work, "out")])
    return ember_bundle(build, case, iterations, tmp, flags=["-load-profile=" + profile],
                        tag="int8", check=lambda got, want: (0.0, True))


def int8_errors(row, torch_output):
    """The int8 section's relative errors, and the profiled run's verdict: int8 is off float32
    by design, by as much as onnxruntime's own int8 is on the QDQ version (0.18 on the random-
    weight resnet50), so ember's profiled int8 must be within INT8_PROFILE_FACTOR times that
    (at least INT8_PROFILE_FLOOR) of torch's output; a broken kernel is off by ~1."""
    reference = relative_error(row["ort_qdq"]["output"], torch_output)
    profiled = relative_error(row["profiled"]["output"], torch_output)
    row["profiled"]["ok"] = profiled <= max(INT8_PROFILE_FLOOR, INT8_PROFILE_FACTOR * reference)
    return profiled, reference, row["qdq"]["max_err"]


def slowest_instructions(build, case, peak, count=3):
    """The profile's slowest instructions: (ms, share, rate or "", kind, name, type) each."""
    text = run([os.path.join(build, "tools", "model-runner"), "-model=" + case + "/model.onnx",
                "-input=" + case + "/test_data_set_0/input_0.pb", "-iterations=10", "-profile",
                "-peak-gflops=%.1f" % peak])
    total = re.search(r"profile: ([\d.]+) ms per run", text).group(1)
    rows = re.findall(r"^\s+([\d.]+) ms\s+([\d.]+)%\s+((?:[\d.]+ GFLOP/s\s+\d+% of peak\s+)?)"
                      r"(\S+) %(\S+) -> (.+)$", text, re.M)
    return total, [(ms, share, " ".join(rate.split()), kind, name, ty)
                   for ms, share, rate, kind, name, ty in rows[:count]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=",".join(ZOO))
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--interpreter-models", default=",".join(INTERPRETED))
    ap.add_argument("--interpreter-iterations", type=int, default=1)
    ap.add_argument("--opencl-iterations", type=int, default=20)
    ap.add_argument("--opencl-models", default=",".join(OPENCL),
                    help="models of the OpenCL column (default: all but the three largest "
                         "transformers, which take minutes on PoCL)")
    ap.add_argument("--int8-models", default=",".join(INT8),
                    help="models of the int8 section (QDQ versions: make_qdq_models.py --bench)")
    ap.add_argument("--build", default=os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--output", default=os.path.join(ROOT, "docs", "performance.md"))
    args = ap.parse_args()
    models = [m for m in args.models.split(",") if m]
    interpreted = set(args.interpreter_models.split(","))
    opencl = set(args.opencl_models.split(","))
    int8_models = [m for m in args.int8_models.split(",") if m]

    zoo = os.path.join(args.build, "zoo", "models")
    qdq = os.path.join(args.build, "zoo", "qdq")
    run(["/usr/bin/python3", os.path.join(ROOT, "utils", "models", "export_zoo.py"), "--out", zoo,
         "--only", ",".join(sorted(set(models) | set(int8_models)))])
    run([os.path.join(ROOT, "utils", "bench", "setup-ort.sh")])
    if int8_models:
        run(["/usr/bin/python3", os.path.join(ROOT, "utils", "models", "make_qdq_models.py"),
             "--bench", qdq, "--only", ",".join(int8_models)])

    rows, profiles = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        peak = measure_peak(tmp)
        print("bench: peak %.1f GFLOP/s per core" % peak, file=sys.stderr)
        for name in models:
            case = os.path.join(zoo, name)
            print("bench: %s" % name, file=sys.stderr)
            work = os.path.join(tmp, name)
            os.makedirs(work)
            row = {"name": name, "gflop": model_flops(case + "/model.onnx") / 1e9}
            row["ember"] = ember_bundle(args.build, case, args.iterations, work)
            row["ember2"] = ember_bundle(args.build, case, args.iterations, work, threads=2)
            if name in interpreted:
                row["interp"] = ember_runner(args.build, case, args.interpreter_iterations,
                                             work, "Interpreter")
            # As many runs as the bundle's, the lower of REPEATS: with 3, PoCL's first runs
            # (its thread pool and caches warming) swung the median by up to 1.5x.
            if name in opencl:
                row["opencl"] = ember_runner(args.build, case, args.opencl_iterations, work,
                                             "OpenCL", REPEATS)
            row["ort1"] = onnxruntime(case, 1, args.iterations, work)
            row["ort2"] = onnxruntime(case, 2, args.iterations, work)
            rows.append(row)
        int8_rows = []
        for name in int8_models:
            print("bench: %s int8" % name, file=sys.stderr)
            case, qcase = os.path.join(zoo, name), os.path.join(qdq, name)
            work = os.path.join(tmp, name + "-int8")
            os.makedirs(work)
            known = [r for r in rows if r["name"] == name]
            row = {"name": name}
            row["ember"] = known[0]["ember"] if known else ember_bundle(args.build, case,
                                                                       args.iterations, work)
            row["ort1"] = known[0]["ort1"] if known else onnxruntime(case, 1, args.iterations, work)
            row["profiled"] = ember_int8_from_profile(args.build, case, args.iterations, work)
            row["qdq"] = ember_bundle(args.build, qcase, args.iterations, work, tag="qdq",
                                      check=within(INT8_QDQ_BOUND))
            row["ort_qdq"] = onnxruntime(qcase, 1, args.iterations, work)
            row["errors"] = int8_errors(
                row, read_pb(os.path.join(case, "test_data_set_0", "output_0.pb"))[1])
            int8_rows.append(row)
        for name in PROFILED:
            if name in models:
                profiles[name] = slowest_instructions(args.build, os.path.join(zoo, name), peak)

    def cell(r):
        # under 1 ms, 3 significant digits: 0.0123, not 0.01
        ms = ("%.2f" if r["median"] >= 1 else "%.3g") % r["median"]
        return ms + ("" if r["ok"] else " (WRONG)")

    cpu_name = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu_name = re.search(r"model name\s*:\s*(.*)", f.read()).group(1)
    except (OSError, AttributeError):
        pass
    mib = lambda b: "%.1f" % (b / 1048576.0)
    lines = [
        "# Performance",
        "",
        "Generated by `/usr/bin/python3 utils/bench/bench.py` on %s (%s, %d CPUs), %s. This "
        "machine's measured single-core peak: **%.1f GFLOP/s** float32 (`utils/bench/peak.c`, an "
        "FMA loop)." % (cpu_name, platform.machine(), os.cpu_count(),
                         datetime.date.today().isoformat(), peak),
        "",
        "Latency in milliseconds, batch 1, the median of %d timed runs after 3 warm-up runs, the "
        "lower of %d such runs (for ember and onnxruntime alike). "
        "ember: the model compiled by `model-compiler` into a bundle for this machine and run from "
        "a C program (`examples/bundles/dynamic_runner.c`), single-threaded unless said. onnxruntime 1.30 "
        "(CPU provider, `utils/bench/ort-run.js`) with 1 and 2 intra-op threads. The Interpreter "
        "(the reference) gets %d run(s); the OpenCL backend (on PoCL, through `model-runner`, "
        "inputs uploaded and outputs read back in every run) %d, the lower of %d such runs. Every output matched torch's (|got - want| <= "
        "1e-4 max|want| + 1e-4 |want|) unless marked WRONG. GFLOP counts 2 per multiply-add of "
        "Conv, Gemm, MatMul (attention's batched products too) and of the recurrent nodes "
        "(LSTM, GRU: each step's input and hidden-state products)." % (
            args.iterations, REPEATS, args.interpreter_iterations, args.opencl_iterations,
            REPEATS),
        "",
    ]
    header = [
        "| model | GFLOP | ember | onnxruntime | ember / onnxruntime | ember GFLOP/s | of peak "
        "| ember, 2 threads | onnxruntime, 2 threads | ember / onnxruntime, 2 threads "
        "| ember 1 -> 2 threads | onnxruntime 1 -> 2 threads | ember Interpreter | ember OpenCL "
        "| OpenCL / CPU |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def table_row(r):
        e = r["ember"]
        gflops = r["gflop"] / (e["median"] / 1e3)
        return (
            "| %s | %.3g | %s | %s | **%.2fx** | %.1f | %.0f%% | %s | %s | **%.2fx** | %.2fx "
            "| %.2fx | %s | %s | %s |" % (
                r["name"], r["gflop"], cell(e), cell(r["ort1"]), e["median"] / r["ort1"]["median"],
                gflops, 100 * gflops / peak, cell(r["ember2"]), cell(r["ort2"]),
                r["ember2"]["median"] / r["ort2"]["median"], e["median"] / r["ember2"]["median"],
                r["ort1"]["median"] / r["ort2"]["median"],
                cell(r["interp"]) if "interp" in r else "-",
                cell(r["opencl"]) if "opencl" in r else "-",
                "%.1fx" % (r["opencl"]["median"] / e["median"]) if "opencl" in r else "-"))

    def geomean(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

    big = [r for r in rows if r["gflop"] >= SMALL_GFLOP]
    small = [r for r in rows if r["gflop"] < SMALL_GFLOP]
    ratio1 = [r["ember"]["median"] / r["ort1"]["median"] for r in big]
    ratio2 = [r["ember2"]["median"] / r["ort2"]["median"] for r in big]
    scaling = [r["ember"]["median"] / r["ember2"]["median"] for r in big]
    summary = (
        "Geometric mean of ember / onnxruntime over the %d model%s of at least %g GFLOP: "
        "**%.2fx** with 1 thread, **%.2fx** with 2 threads; ember 1 -> 2 threads **%.2fx**." % (
            len(big), "" if len(big) == 1 else "s", SMALL_GFLOP, geomean(ratio1),
            geomean(ratio2), geomean(scaling)))
    if big:
        lines += header + [table_row(r) for r in big] + ["", summary, ""]
    if small:
        lines += [
            "Models under %g GFLOP, reported apart: their time is mostly a runtime's call "
            "overhead, not arithmetic, and they are not in the geometric means." % SMALL_GFLOP,
            "",
        ] + header + [table_row(r) for r in small] + [""]
    lines += [
        "ember 1 -> 2 threads (onnxruntime's alike): the 1-thread latency over the 2-thread one "
        "(above 1, the second thread helps).",
        "",
        "ember / onnxruntime: below 1, ember is faster. With 2 threads, ember's bundle is "
        "compiled with `-threads=2` (docs/cpu-backend.md: convolutions and matrix products split "
        "over a team of threads) and the runner starts one team for all its calls "
        "(docs/bundles.md: `NET_team_start`, `NET_on_team`); a model with no kernel worth "
        "splitting stays on one thread.",
        "",
        "## Compile time and memory",
        "",
        "| model | compile (model-compiler, all phases) | constant MiB | mutable MiB | "
        "activations MiB | onnxruntime peak RSS MiB (1 thread) | max abs error vs torch |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        m = r["ember"]["memory"]
        lines.append("| %s | %.0f ms | %s | %s | %s | %.0f | %.2g |" % (
            r["name"], r["ember"]["compile_ms"], mib(m["constant"]), mib(m["mutable"]),
            mib(m["activations"]), r["ort1"]["rss"], r["ember"]["max_err"]))
    lines += ["", "A bundle's three regions are all the memory it uses; onnxruntime's peak "
              "resident set includes the Node.js process (about 40 MiB alone).", ""]
    if int8_rows:
        lines += [
            "## int8",
            "",
            "One thread, batch 1, timed as above. ember int8 (profile): the float model through "
            "the documented flow (`model-runner -dump-profile` on %d seeded random inputs, then "
            "`model-compiler -load-profile`, its default schema) into a bundle. QDQ: the model in QuantizeLinear/"
            "DequantizeLinear form (`utils/models/make_qdq_models.py --bench`, uint8 activations, "
            "int8 per-channel weights), which ember folds into integer kernels and onnxruntime "
            "runs with its own (QLinearConv, QGemm). Errors are relative L2 (||got - want|| / "
            "||want||): int8 against torch's float32 output, ember's profiled int8 and "
            "onnxruntime's int8 on the QDQ model (marked WRONG above %.0fx onnxruntime's, or "
            "%.2f), and ember against onnxruntime on the QDQ model (WRONG above %.2f). Ratios: "
            "below 1, ember is faster." % (PROFILE_INPUTS, INT8_PROFILE_FACTOR,
                                           INT8_PROFILE_FLOOR, INT8_QDQ_BOUND),
            "",
            "| model | ember float32 | onnxruntime float32 | ember int8 (profile) | ember int8 "
            "(QDQ) | onnxruntime int8 (QDQ) | ember int8 (QDQ) / onnxruntime float32 | ember int8 "
            "(QDQ) / onnxruntime int8 | ember int8 (profile) / float32 | int8 vs float32: ember (profile), "
            "onnxruntime (QDQ) | ember vs onnxruntime (QDQ) |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in int8_rows:
            q = r["qdq"]["median"]
            lines.append("| %s | %s | %s | %s | %s | %s | **%.2fx** | **%.2fx** | %.2fx | %.3f, "
                         "%.3f | %.3f |" % (
                             r["name"], cell(r["ember"]), cell(r["ort1"]), cell(r["profiled"]),
                             cell(r["qdq"]), cell(r["ort_qdq"]), q / r["ort1"]["median"],
                             q / r["ort_qdq"]["median"],
                             r["profiled"]["median"] / r["ember"]["median"],
                             *r["errors"]))
        lines.append("")
    if profiles:
        lines += ["## Slowest kernels", "",
                  "`model-runner -profile -iterations=10 -peak-gflops=<peak>` (the JIT, same code "
                  "as the bundle): the three instructions that take longest, with the rate of "
                  "the products and its share of the peak.", ""]
        for name, (total, top) in profiles.items():
            lines.append("- %s (%s ms per run in all):" % (name, total))
            for ms, share, rate, kind, instr, ty in top:
                lines.append("  %s ms (%s%%%s) `%s %s` -> `%s`" % (
                    ms, share, ", " + rate if rate else "", kind, instr, ty))
        lines.append("")
    with open(args.output, "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))
    results = [r[k] for r in rows + int8_rows
               for k in ("ember", "ember2", "interp", "opencl", "ort1", "ort2", "profiled", "qdq",
                         "ort_qdq") if k in r]
    if not all(x["ok"] for x in results):
        sys.exit(1)


if __name__ == "__main__":
    main()
