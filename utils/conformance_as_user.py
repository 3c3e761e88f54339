#!/usr/bin/python3
"""Runs ONNX backend test cases through build/tools/model-runner exactly as a user would.

Per case and data set: `model-runner -model=model.onnx -backend=B -input=NAME=input_K.pb,...
-output-format=pb -output-dir=DIR`, then each output_K.pb is compared with the .pb model-runner
wrote (onnx.numpy_helper; floats pass when |got - want| <= atol + rtol * |want|, NaN matches NaN,
integers and bools exactly, as the conformance tool and docs/conformance.md say). Sequence and
optional inputs and outputs are SequenceProto and OptionalProto files, read as the model types
them, and compared element by element.

Prints one line per case, "status<TAB>suite/case<TAB>detail<TAB>N", where status is pass, wrong,
refused (model-runner said "error: ...", exit code 1), crashed (any other exit, or a signal) or
hung (killed after --timeout seconds), and N how many inputs model-runner fixed at compile time
(its "note: input ... fixed at compile time" lines); then "summary: pass P wrong W ...".

    utils/conformance_as_user.py --backend=CPU SUITE_DIR [SUITE_DIR ...]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from google.protobuf import text_format
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTE = re.compile(r"^note: input '.*' fixed at compile time", re.M)


def read_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def as_array(t, like=None):
    """The tensor as numpy; ONNX 1.12 stores bfloat16 as UINT16 bits: read those as bfloat16
    (widened to float32, as numpy_helper does for BFLOAT16) where the other side is bfloat16."""
    if t.data_type == onnx.TensorProto.UINT16 and like is not None and \
            like.data_type == onnx.TensorProto.BFLOAT16:
        bits = numpy_helper.to_array(t).astype(np.uint32) << 16
        return bits.view(np.float32), onnx.TensorProto.BFLOAT16
    return numpy_helper.to_array(t), t.data_type


def compare(got_t, want_t, atol, rtol):
    """Empty when equal within tolerance, else how they differ."""
    want, want_type = as_array(want_t, got_t)
    got, got_type = as_array(got_t)
    if got_type != want_type or got.shape != want.shape:
        return "type %s%s, expected %s%s" % (onnx.TensorProto.DataType.Name(got_type),
                                             list(got.shape),
                                             onnx.TensorProto.DataType.Name(want_type),
                                             list(want.shape))
    # ml_dtypes' float8 and float4 (dtype kind 'V'): exact values, NaN matching NaN, as the
    # conformance tool compares ember's narrow kinds.
    narrow_float = want.dtype.kind == "V" and want.dtype.name.startswith("float")
    if narrow_float:
        atol = rtol = 0
    if want.dtype.kind != "f" and not narrow_float:
        bad = got != want
    else:
        g, w = got.astype(np.float64), want.astype(np.float64)
        with np.errstate(invalid="ignore"):
            ok = (np.abs(g - w) <= atol + rtol * np.abs(w)) | (np.isnan(g) & np.isnan(w)) | \
                 (np.isinf(w) & (g == w))
        bad = ~ok
    n = int(np.count_nonzero(bad))
    if not n:
        return ""
    i = int(np.flatnonzero(bad.reshape(-1))[0])
    return "element %d is %r, expected %r (%d of %d elements differ)" % (
        i, got.reshape(-1)[i].item(), want.reshape(-1)[i].item(), n, want.size)


def value_kind(type_proto):
    """What an ONNX type holds: 'tensor', 'sequence' or 'optional'."""
    return {"sequence_type": "sequence", "optional_type": "optional"}.get(
        type_proto.WhichOneof("value"), "tensor")


def graph_values(model_path):
    """The graph's inputs that are not initializers, in order (for unnamed input files), and
    its outputs as (name, kind) pairs."""
    if model_path.endswith(".onnxtxt"):
        with open(model_path) as f:
            g = text_format.Parse(f.read(), onnx.ModelProto()).graph
    else:
        g = onnx.load(model_path, load_external_data=False).graph
    inits = {i.name for i in g.initializer}
    return [i.name for i in g.input if i.name not in inits], \
        [(o.name, value_kind(o.type)) for o in g.output]


def read_value(path, kind):
    """The value a .pb holds, parsed as `kind` says (a TensorProto, a SequenceProto and an
    OptionalProto cannot be told apart by their bytes): (its stored name, the value), the value
    a TensorProto, a list of them for a sequence, None for an empty optional."""
    m = {"tensor": onnx.TensorProto, "sequence": onnx.SequenceProto,
         "optional": onnx.OptionalProto}[kind]()
    with open(path, "rb") as f:
        m.ParseFromString(f.read())
    if kind == "tensor":
        return m.name, m
    if kind == "sequence":
        return m.name, list(m.tensor_values)
    if m.HasField("sequence_value"):
        return m.name, list(m.sequence_value.tensor_values)
    return m.name, (m.tensor_value if m.HasField("tensor_value") else None)


def describe(v):
    if v is None:
        return "an empty optional"
    return "a sequence of %d tensors" % len(v) if isinstance(v, list) else "a tensor"


def compare_values(got, want, atol, rtol):
    """compare() for tensors, sequences (element by element) and optionals."""
    if isinstance(got, list) != isinstance(want, list) or (got is None) != (want is None) or \
            (isinstance(got, list) and len(got) != len(want)):
        return "%s, expected %s" % (describe(got), describe(want))
    if got is None:
        return ""
    if not isinstance(got, list):
        return compare(got, want, atol, rtol)
    for i, (g, w) in enumerate(zip(got, want)):
        diff = compare(g, w, atol, rtol)
        if diff:
            return "element %d: %s" % (i, diff)
    return ""


def legalize_file_name(name):
    """model-runner's file name for an output (tools::legalizeFileName)."""
    out = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return "_" + out if out in ("", ".", "..") else out


def run_case(case_dir, args):
    """(status, detail, inputs fixed at compile time) of one case."""
    model = os.path.join(case_dir, "model.onnx")
    if not os.path.exists(model):  # ember's own cases (tests/models) are protobuf text
        model = os.path.join(case_dir, "model.onnxtxt")
    sets = sorted((d for d in os.listdir(case_dir) if d.startswith("test_data_set_")),
                  key=lambda d: int(d.rsplit("_", 1)[1]))
    if not sets:
        return "refused", "no test_data_set_0", 0
    fixed = 0
    graph_in, graph_out = graph_values(model)
    for s in sets:
        data = os.path.join(case_dir, s)
        count = lambda prefix: len([f for f in os.listdir(data) if re.fullmatch(prefix + r"\d+\.pb", f)])
        ins = [os.path.join(data, "input_%d.pb" % k) for k in range(count("input_"))]
        outs = [os.path.join(data, "output_%d.pb" % k) for k in range(count("output_"))]
        names = []
        for k, path in enumerate(ins):
            try:
                name = read_tensor(path).name
            except Exception:  # a sequence or optional: named by its position
                name = ""
            # A stored name the model lacks (ONNX 1.17's cast tests store 'x' for 'input') is
            # the writer's slip: the input at the file's position, as ONNX's runner binds it.
            if not name or (name not in graph_in and k < len(graph_in)):
                name = graph_in[k] if k < len(graph_in) else "input_%d" % k
            names.append(name)
        out_dir = tempfile.mkdtemp(prefix="ember-as-user-")
        try:
            cmd = [args.runner, "-model=" + model, "-backend=" + args.backend,
                   "-output-format=pb", "-output-dir=" + out_dir]
            if ins:
                cmd.append("-input=" + ",".join("%s=%s" % (n, p) for n, p in zip(names, ins)))
            try:
                r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                                   text=True, errors="replace", timeout=args.timeout)
            except subprocess.TimeoutExpired:
                return "hung", "killed after %d s" % args.timeout, fixed
            fixed = max(fixed, len(NOTE.findall(r.stderr)))
            if r.returncode < 0:
                return "crashed", "signal %d: %s" % (-r.returncode, r.stderr.strip()[-300:]), fixed
            if r.returncode == 1 and r.stderr.lstrip().startswith(("error:", "note:", "warning:")):
                errors = [l for l in r.stderr.splitlines() if not l.startswith(("note:", "warning:"))]
                return "refused", " ".join(l.strip() for l in errors), fixed
            if r.returncode != 0:
                return "crashed", "exit code %d: %s" % (r.returncode, r.stderr.strip()[-300:]), fixed
            # Each output in the file model-runner names after it, read as the model types it.
            kinds = dict(graph_out)
            written = len(os.listdir(out_dir))
            if written != len(outs):
                return "wrong", "model-runner wrote %d outputs, test data has %d" % (
                    written, len(outs)), fixed
            for k, path in enumerate(outs):
                name = graph_out[k][0] if k < len(graph_out) else ""
                stored, want = read_value(path, kinds.get(name, "tensor"))
                if stored in kinds:  # the file names its output: trust that over the position
                    name = stored
                    stored, want = read_value(path, kinds[name])
                got_path = os.path.join(out_dir, legalize_file_name(name) + ".pb")
                if not name or not os.path.exists(got_path):
                    return "wrong", "no output '%s' written" % name, fixed
                _, got = read_value(got_path, kinds[name])
                diff = compare_values(got, want, args.atol, args.rtol)
                if diff:
                    return "wrong", "%s: output '%s': %s" % (s, name, diff), fixed
        finally:
            shutil.rmtree(out_dir, ignore_errors=True)
    return "pass", "", fixed


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("suites", nargs="+", help="folders of test cases")
    p.add_argument("--backend", default="Interpreter")
    p.add_argument("--runner", default=os.path.join(
        os.environ.get("EMBER_BUILD_DIR", os.path.join(ROOT, "build")), "tools", "model-runner"))
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=int, default=120)
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--rtol", type=float, default=1e-3)
    p.add_argument("--filter", default="", help="only cases whose name contains this")
    args = p.parse_args()
    cases = []
    for suite in args.suites:
        suite = suite.rstrip("/")
        for c in sorted(os.listdir(suite)):
            if args.filter in c and os.path.isdir(os.path.join(suite, c)):
                cases.append((os.path.basename(suite) + "/" + c, os.path.join(suite, c)))
    # Runs a snapshot of the binary: a rebuild during the run (others build in the same tree)
    # must not turn tests into "crashed" by replacing the file under a starting process.
    snapshot = tempfile.mkdtemp(prefix="ember-as-user-bin-")
    shutil.copy2(args.runner, os.path.join(snapshot, "model-runner"))
    args.runner = os.path.join(snapshot, "model-runner")
    counts = {s: 0 for s in ("pass", "wrong", "refused", "crashed", "hung")}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_case, d, args) for _, d in cases]
        for (name, _), fut in zip(cases, futures):
            try:
                status, detail, fixed = fut.result()
            except Exception as e:  # the script's own failure must not pass for ember's
                status, detail, fixed = "crashed", "compare script: %r" % (e,), 0
            counts[status] += 1
            print("%s\t%s\t%s\t%d" % (status, name, detail.replace("\t", " ").replace("\n", " "),
                                      fixed), flush=True)
    shutil.rmtree(snapshot, ignore_errors=True)
    print("summary: " + " ".join("%s %d" % kv for kv in counts.items()))
    return 1 if counts["crashed"] or counts["hung"] else 0


if __name__ == "__main__":
    sys.exit(main())
