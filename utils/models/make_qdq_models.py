#!/usr/bin/python3
"""Write int8 QDQ test models whose expected outputs come from onnxruntime.

The models are in the QuantizeLinear -> op -> DequantizeLinear ("QDQ") form that onnxruntime's
and PyTorch's post-training quantizers write, built here with onnx.helper and numpy (Debian has
no onnxruntime python package, so onnxruntime.quantization is not available):

  - activations: uint8, asymmetric; scale = (max - min) / 255 and zero point = round(-min /
    scale) from the min/max seen over the calibration data, the range first widened to hold 0
    (as onnxruntime's compute_scale_zp does, so that 0 is exact);
  - weights: int8, symmetric, per output channel: scale[c] = max|w[c]| / 127, zero point 0,
    stored as an int8 constant read by DequantizeLinear(axis = the output-channel axis);
  - biases: int32, scale[c] = input scale * weight scale[c], zero point 0, read by
    DequantizeLinear(axis=0), so the integer kernel adds them to its int32 accumulator unchanged;
  - every activation between quantized ops goes through a Q -> DQ pair, so each Conv / Gemm /
    MatMul / Add / pool reads DQ(Q(x)) and its output goes through Q -> DQ;
  - ops that only move values (MaxPool, Flatten, Reshape, Transpose, Squeeze, Unsqueeze) keep
    their input's scale and zero point on their output, as onnxruntime's quantizer does, so they
    run on the integers unchanged; Softmax's output has the fixed range [0, 1];
  - a Relu (or Clip from 0) right after a quantized op is folded into that op's output range,
    as onnxruntime's quantizer writes it (QDQRemovableActivation): the op's output is quantized
    with the activation's range, whose zero point is 0, so Q's clamp at 0 *is* the Relu.
    qdq_small_cnn keeps one Relu as an explicit node (Conv -> Relu -> Q, the form PyTorch's
    exporter writes and onnxruntime's ReluQuantFusion accepts) so that both forms are tested.

THE EXPECTED OUTPUTS ARE ONNXRUNTIME'S: each case's output_0.pb is what onnxruntime (through
utils/bench/ort-run.js and onnxruntime-node, which runs the QDQ graph with its integer
kernels) computes for input_0.pb; nothing comes from ember. Calibration ranges are also
measured with onnxruntime, on the float model. Without node and onnxruntime-node (install with
utils/bench/setup-ort.sh) the script stops with an error. onnxruntime fuses these graphs into
QLinearConv, QLinearAdd, QLinearGlobalAveragePool, QGemm and QLinearSoftmax (its optimized
graph says so). The checked-in outputs were made with onnxruntime-node 1.30.0 on a CPU with
AVX-512 VNNI; on an AVX2-only CPU onnxruntime's uint8 x int8 kernels can saturate their 16-bit
pair sums (the caveat behind its reduce_range option), so regenerate them on a VNNI machine.

Test cases, in the ONNX test-case layout that ModelCasesTest runs on every backend:

    tests/models/qdq_<name>/model.onnx
    tests/models/qdq_<name>/test_data_set_0/{input_0,output_0}.pb
    tests/models/qdq_<name>/tolerance      2 * the output's quantization scale (see below)

  qdq_small_cnn  Conv 3x3 + Relu (folded), MaxPool, Conv 1x1 -> Relu (explicit), residual Add,
                 GlobalAveragePool, Flatten, Gemm; input [1,3,16,16]; seeded random weights,
                 calibrated on 8 seeded random inputs. 64 channels, so that the 1x1 layer is
                 a shape the CPU backend's AMX kernel takes (32 filters a group, K a multiple
                 of 64): its bundles then carry that kernel too.
  qdq_digits     examples/models/digits_cnn.onnx quantized, calibrated on the first 100 images
                 of its training split (sklearn digits, the split of make_digits_example.py);
                 the test input is the first image of the test split.

The tolerance is two steps of the output's quantization: at every requantization onnxruntime's
integer kernels (int32 accumulation, then a rounded rescale) and ember (float between the Q/DQ
pairs today, its own integer kernels later) may round one element to the neighbouring level;
one such step at the last layer is one output step, and a step at an earlier layer reaches the
output scaled by the layers after it. In these two shallow models ember (float between the
pairs) and onnxruntime differ by at most 0 and 1 output steps; a deep network accumulates more
(the --bench resnet50: up to 5 steps, 1 on average), so two steps is a bound for these cases,
not a general one.
Both classifiers' test inputs are chosen (checked here) with their top two outputs more than
four steps apart, so within the tolerance the predicted class cannot change.

With --bench DIR, writes QDQ versions of the zoo's resnet50 and mobilenet_v2 (torchvision,
random weights, built and BatchNorm-calibrated exactly as utils/models/export_zoo.py does,
BatchNorm folded into the convolutions by torch's eval-mode export) as DIR/<name>/ in the same
layout as the zoo (model.onnx, test_data_set_0/input_0.pb and onnxruntime's output_0.pb),
calibrated on 4 seeded random inputs. A folder already holding all three files is skipped
unless --force.

    /usr/bin/python3 utils/models/make_qdq_models.py                 # the test cases
    /usr/bin/python3 utils/models/make_qdq_models.py --bench build/zoo/qdq [--only resnet50]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTS_DIR = os.path.join(REPO, "tests", "models")
ORT_RUN = os.path.join(REPO, "utils", "bench", "ort-run.js")
ORT_MODULE = os.path.join(REPO, "utils", "bench", "node_modules", "onnxruntime-node")
DIGITS_MODEL = os.path.join(REPO, "examples", "models", "digits_cnn.onnx")

OPSET = 13            # QuantizeLinear / DequantizeLinear take 'axis' (per channel) from 13
MAX_CASE_BYTES = 100_000
TOLERANCE_STEPS = 2   # see the module docstring
ARGMAX_MARGIN_STEPS = 2 * TOLERANCE_STEPS

# Ops whose output keeps the input's quantization (they move values without computing new ones).
SAME_PARAMS_OPS = {"MaxPool", "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze"}
# Ops whose output gets its own calibrated quantization.
OWN_PARAMS_OPS = {"Conv", "Gemm", "MatMul", "Add", "GlobalAveragePool", "AveragePool", "Relu"}
# Activations onnxruntime's quantizer folds into the producing op's output range.
FOLDABLE_ACTIVATIONS = {"Relu", "Clip"}


# ----------------------------------------------------------------------------------------------
# onnxruntime (through node)

def require_onnxruntime():
    """Stops with a clear message when onnxruntime-node cannot run."""
    problem = None
    if shutil.which("node") is None:
        problem = "node is not installed"
    elif not os.path.isdir(ORT_MODULE):
        problem = "onnxruntime-node is not installed in utils/bench/node_modules"
    if problem:
        sys.exit("make_qdq_models.py: the expected outputs and calibration ranges come from "
                 "onnxruntime, but %s.\nInstall it with utils/bench/setup-ort.sh (needs Node.js "
                 ">= 16 and npm)." % problem)


def npy_file_name(tensor_name):
    """The file ort-run.js writes for an output (it replaces characters outside [\\w.-])."""
    return "".join(c if c.isalnum() or c in "_.-" else "_" for c in tensor_name) + ".npy"


def run_onnxruntime(model, inputs):
    """Runs \p model (a ModelProto) under onnxruntime on {input name: array}; returns
    {output name: array}."""
    with tempfile.TemporaryDirectory(prefix="qdq-ort-") as tmp:
        model_path = os.path.join(tmp, "model.onnx")
        onnx.save(model, model_path)
        cmd = ["node", ORT_RUN, "--model", model_path, "--iterations", "1", "--warmup", "0",
               "--output-dir", os.path.join(tmp, "out")]
        for i, (name, value) in enumerate(inputs.items()):
            path = os.path.join(tmp, "input_%d.npy" % i)
            np.save(path, value)
            cmd += ["--input", "%s=%s" % (name, path)]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise RuntimeError("onnxruntime failed (%s):\n%s%s" % (" ".join(cmd), done.stdout,
                                                                   done.stderr))
        return {o.name: np.load(os.path.join(tmp, "out", npy_file_name(o.name)))
                for o in model.graph.output}


# ----------------------------------------------------------------------------------------------
# Calibration: the min and max of every float activation, measured by onnxruntime

def with_symbolic_batch(model):
    """A copy of \p model whose inputs take any batch size, without the exporter's fixed
    intermediate shapes (which would contradict a larger batch)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    del m.graph.value_info[:]
    for vi in list(m.graph.input) + list(m.graph.output):
        if vi.type.tensor_type.HasField("shape") and vi.type.tensor_type.shape.dim:
            dim = vi.type.tensor_type.shape.dim[0]
            dim.Clear()
            dim.dim_param = "batch"
    return m


def float_activations(model):
    """Names of the graph inputs and node outputs that hold float tensors, in graph order."""
    inferred = onnx.shape_inference.infer_shapes(model)
    types = {vi.name: vi.type.tensor_type.elem_type
             for vi in list(inferred.graph.input) + list(inferred.graph.value_info)
             + list(inferred.graph.output)}
    inits = {i.name for i in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    names += [o for n in model.graph.node for o in n.output if o]
    return [n for n in names if types.get(n) == TensorProto.FLOAT]


def calibrate(model, samples, batch):
    """{tensor name: (min, max)} over \p samples (arrays of the one input's shape, batch 1),
    run \p batch at a time."""
    names = float_activations(model)
    probe = with_symbolic_batch(model)
    del probe.graph.output[:]
    # Identity into plainly named outputs: the tensors' own names may not be file names.
    for i, name in enumerate(names):
        out = "calib_%d" % i
        probe.graph.node.append(helper.make_node("Identity", [name], [out]))
        probe.graph.output.append(helper.make_tensor_value_info(out, TensorProto.FLOAT, None))
    input_name = graph_inputs(model)[0]
    ranges = {}
    for start in range(0, len(samples), batch):
        x = np.concatenate(samples[start:start + batch], axis=0)
        got = run_onnxruntime(probe, {input_name: x})
        for i, name in enumerate(names):
            v = got["calib_%d" % i]
            lo, hi = float(v.min()), float(v.max())
            if name in ranges:
                lo, hi = min(lo, ranges[name][0]), max(hi, ranges[name][1])
            ranges[name] = (lo, hi)
    return ranges


# ----------------------------------------------------------------------------------------------
# Quantization parameters (onnxruntime's formulas)

def activation_params(lo, hi):
    """uint8 asymmetric (scale, zero point) for the range [lo, hi], widened to hold 0."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = np.float32((hi - lo) / 255.0)
    if scale == 0:
        scale = np.float32(1.0)
    zero_point = int(np.clip(np.round(-lo / scale), 0, 255))
    return scale, np.uint8(zero_point)


def quantize_weight(w, axis):
    """int8 symmetric per-channel along \p axis: (q, scales). Range [-127, 127] (not -128), so
    that the symmetric range has zero exactly in the middle, as onnxruntime's quantizer does."""
    other = tuple(d for d in range(w.ndim) if d != axis)
    absmax = np.abs(w).max(axis=other).astype(np.float32)
    scale = np.where(absmax > 0, absmax / np.float32(127), np.float32(1)).astype(np.float32)
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


def quantize_bias(b, input_scale, weight_scale):
    """int32 with scale input_scale * weight_scale[c] (the accumulator's scale): (q, scales)."""
    scale = (np.float32(input_scale) * weight_scale).astype(np.float32)
    q = np.clip(np.round(b.astype(np.float64) / scale), -2**31, 2**31 - 1).astype(np.int32)
    return q, scale


# ----------------------------------------------------------------------------------------------
# QDQ insertion

def graph_inputs(model):
    inits = {i.name for i in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


class QDQBuilder:
    """Rewrites a float graph into QDQ form (see the module docstring for the scheme)."""

    def __init__(self, model, ranges, keep_activation):
        self.model = model
        self.ranges = ranges
        self.keep_activation = keep_activation
        g = model.graph
        self.consts = {i.name: numpy_helper.to_array(i) for i in g.initializer}
        for n in g.node:  # Constant nodes (the Clip bounds torch writes) count as constants too
            if n.op_type == "Constant" and n.attribute[0].name == "value":
                self.consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        self.consumers = {}
        for n in g.node:
            for i in n.input:
                self.consumers.setdefault(i, []).append(n)
        self.graph_outputs = {o.name for o in g.output}
        self.nodes, self.inits = [], []
        self.params = {}      # float tensor -> (scale name, zero point name, scale value)
        self.dequantized = {}  # float tensor -> the name of its DQ(Q(tensor))
        self.folded = set()    # outputs of the activations folded into their producer

    # -- small helpers
    def const(self, name, value):
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def is_activation(self, name):
        return name in self.ranges and name not in self.consts

    def folded_activation(self, node):
        """The Relu/Clip that folds into \p node's output range, or None."""
        users = self.consumers.get(node.output[0], [])
        if len(users) != 1 or node.output[0] in self.graph_outputs:
            return None
        act = users[0]
        if act.op_type not in FOLDABLE_ACTIVATIONS or self.keep_activation(act):
            return None
        if act.op_type == "Clip":
            low = self.consts.get(act.input[1]) if len(act.input) > 1 and act.input[1] else None
            if low is None or float(low) != 0.0:
                return None  # only a Clip from 0 is what a zero point of 0 clamps to
        return act

    def new_params(self, tensor, scale, zero_point):
        """Constants for a per-tensor (scale, zero point): (scale name, zero point name, scale)."""
        return (self.const(tensor + "_scale", np.float32(scale)),
                self.const(tensor + "_zero_point", zero_point), np.float32(scale))

    def add_qdq(self, tensor, params):
        """Q -> DQ on \p tensor with \p params (from new_params, or another tensor's when they
        share them); its consumers then read the DQ output."""
        self.params[tensor] = params
        scale, zero_point, _ = params
        q, dq = tensor + "_quantized", tensor + "_dequantized"
        self.nodes.append(helper.make_node("QuantizeLinear", [tensor, scale, zero_point], [q],
                                           tensor + "_QuantizeLinear"))
        self.nodes.append(helper.make_node("DequantizeLinear", [q, scale, zero_point], [dq],
                                           tensor + "_DequantizeLinear"))
        self.dequantized[tensor] = dq

    def add_calibrated_qdq(self, tensor, lo, hi):
        self.add_qdq(tensor, self.new_params(tensor, *activation_params(lo, hi)))

    def quantized_input(self, tensor):
        """DQ(Q(tensor)), adding the pair (with the tensor's calibrated range) if it has none."""
        if tensor not in self.dequantized:
            self.add_calibrated_qdq(tensor, *self.ranges[tensor])
        return self.dequantized[tensor]

    def dq_constant(self, name, q, scale, axis):
        """DequantizeLinear of a constant integer tensor, per channel along \p axis."""
        zero = np.zeros(scale.shape, q.dtype)
        self.const(name + "_quantized", q)
        self.const(name + "_scale", scale)
        self.const(name + "_zero_point", zero)
        out = name + "_dequantized"
        self.nodes.append(helper.make_node(
            "DequantizeLinear", [name + "_quantized", name + "_scale", name + "_zero_point"],
            [out], name + "_DequantizeLinear", axis=axis))
        return out

    def weight_axis(self, node):
        """The weight's output-channel axis, or None when this node's weight stays float."""
        if node.op_type == "Conv":
            return 0
        if node.op_type == "Gemm":
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            if attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0 or \
                    attrs.get("transA", 0):
                return None
            return 0 if attrs.get("transB", 0) else 1
        if node.op_type == "MatMul":
            return 1 if self.consts[node.input[1]].ndim == 2 else None
        return None

    # -- the rewrite
    def quantize_weighted(self, node):
        """Conv / Gemm / MatMul: activation in, int8 per-channel weight, int32 bias."""
        x, w = node.input[0], node.input[1]
        b = node.input[2] if len(node.input) > 2 and node.input[2] else None
        if w not in self.consts or not self.is_activation(x) or (
                b is not None and (b not in self.consts or self.consts[b].ndim != 1)):
            return False
        axis = self.weight_axis(node)
        if axis is None:
            return False
        inputs = [self.quantized_input(x)]
        wq, wscale = quantize_weight(self.consts[w], axis)
        inputs.append(self.dq_constant(w, wq, wscale, axis))
        if b is not None:
            bq, bscale = quantize_bias(self.consts[b], self.params[x][2], wscale)
            inputs.append(self.dq_constant(b, bq, bscale, 0))
        self.emit(node, inputs)
        return True

    def emit(self, node, inputs):
        new = onnx.NodeProto()
        new.CopyFrom(node)
        del new.input[:]
        new.input.extend(inputs)
        self.nodes.append(new)

    def quantize_output(self, node, same_as=None):
        """Q -> DQ on the node's output: the input's parameters (\p same_as), Softmax's fixed
        [0, 1], or the calibrated range of the output (of the folded Relu's, when there is one)."""
        out = node.output[0]
        act = self.folded_activation(node) if node.op_type in ("Conv", "Gemm", "MatMul",
                                                               "Add") else None
        if act is not None:
            # The activation disappears: the op writes the activation's output tensor.
            self.nodes[-1].output[0] = act.output[0]
            self.folded.add(act.output[0])
            out = act.output[0]
        elif node.op_type in ("Conv", "Gemm", "MatMul", "Add") and self.kept_activation(node):
            return  # Conv -> Relu -> Q: the Relu's output is quantized instead
        if same_as is not None:
            self.add_qdq(out, self.params[same_as])
        elif node.op_type == "Softmax":
            self.add_calibrated_qdq(out, 0.0, 1.0)
        else:
            self.add_calibrated_qdq(out, *self.ranges[out])

    def kept_activation(self, node):
        users = self.consumers.get(node.output[0], [])
        return (len(users) == 1 and users[0].op_type == "Relu" and
                node.output[0] not in self.graph_outputs and self.keep_activation(users[0]))

    def rewrite(self):
        for node in self.model.graph.node:
            if node.output[0] in self.folded:
                continue
            op = node.op_type
            if op in ("Conv", "Gemm", "MatMul") and self.quantize_weighted(node):
                self.quantize_output(node)
            elif op == "Add" and all(self.is_activation(i) for i in node.input):
                self.emit(node, [self.quantized_input(i) for i in node.input])
                self.quantize_output(node)
            elif op in SAME_PARAMS_OPS and self.is_activation(node.input[0]):
                x = node.input[0]
                self.emit(node, [self.quantized_input(x)] + list(node.input[1:]))
                self.quantize_output(node, same_as=x)
            elif (op in OWN_PARAMS_OPS or op == "Softmax") and self.is_activation(node.input[0]):
                # Relu here reads a Conv's raw output (Conv -> Relu -> Q) or a quantized tensor.
                x = node.input[0]
                first = x if x not in self.params and op == "Relu" else self.quantized_input(x)
                self.emit(node, [first] + list(node.input[1:]))
                self.quantize_output(node)
            else:  # stays float, reading the dequantized values of quantized inputs
                self.emit(node, [self.dequantized.get(i, i) for i in node.input])
        return self.finish()

    def finish(self):
        g = self.model.graph
        # A graph output keeps its name: it becomes the last DequantizeLinear's output, and the
        # float tensor before quantization takes the name <output>_float.
        rename = {}
        for o in g.output:
            if o.name in self.dequantized:
                rename[o.name] = o.name + "_float"
                rename[self.dequantized[o.name]] = o.name
        for n in self.nodes:
            for field in (n.input, n.output):
                for k, name in enumerate(field):
                    field[k] = rename.get(name, name)
        # The float weights and biases replaced by their quantized forms go, and the bounds of
        # the folded Clips.
        used = {i for n in self.nodes for i in n.input} | self.graph_outputs
        self.nodes = [n for n in self.nodes if n.op_type != "Constant" or n.output[0] in used]
        inits = [i for i in list(g.initializer) + self.inits if i.name in used]
        init_names = {i.name for i in g.initializer}
        inputs = [i for i in g.input if i.name not in init_names or i.name in used]
        graph = helper.make_graph(self.nodes, g.name, inputs, list(g.output), inits)
        model = helper.make_model(graph, producer_name="ember make_qdq_models.py",
                                  opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = 7
        onnx.checker.check_model(model, full_check=True)
        return model

    def output_scale(self, name):
        return float(self.params[name][2])


def quantize(model, samples, batch, keep_activation=lambda node: False):
    """The QDQ form of a float \p model calibrated on \p samples; returns (model, builder)."""
    if model.opset_import[0].version != OPSET:
        raise ValueError("expected an opset-%d model" % OPSET)
    if any(n.op_type == "BatchNormalization" for n in model.graph.node):
        raise ValueError("fold BatchNormalization into the convolutions first (torch's "
                         "eval-mode export with constant folding does)")
    builder = QDQBuilder(model, calibrate(model, samples, batch), keep_activation)
    return builder.rewrite(), builder


# ----------------------------------------------------------------------------------------------
# Test cases

def case_files(case):
    data = os.path.join(case, "test_data_set_0")
    return [os.path.join(case, "model.onnx"), os.path.join(data, "input_0.pb"),
            os.path.join(data, "output_0.pb")]


def write_model_and_data(case, qmodel, x):
    """The case folder \p case afresh: model.onnx, input_0.pb (\p x) and output_0.pb, which
    onnxruntime computes here. Returns the output."""
    input_name, output_name = graph_inputs(qmodel)[0], qmodel.graph.output[0].name
    y = run_onnxruntime(qmodel, {input_name: x})[output_name]
    model_path, input_path, output_path = case_files(case)
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(os.path.dirname(input_path))
    onnx.save(qmodel, model_path)
    for path, value, tname in ((input_path, x, input_name), (output_path, y, output_name)):
        with open(path, "wb") as f:
            f.write(numpy_helper.from_array(value, tname).SerializeToString())
    return y


def write_case(name, qmodel, output_scale, x):
    """tests/models/<name>: the model, the input, onnxruntime's output and the tolerance. The
    input must separate the top two outputs by more than ARGMAX_MARGIN_STEPS, so that a
    difference within the tolerance cannot change the predicted class."""
    case = os.path.join(TESTS_DIR, name)
    y = write_model_and_data(case, qmodel, x)
    top2 = np.sort(y.reshape(-1))[-2:]
    margin = (top2[1] - top2[0]) / output_scale
    if margin <= ARGMAX_MARGIN_STEPS:
        raise RuntimeError("%s: onnxruntime's top two outputs are only %.1f steps apart; "
                           "choose another test input" % (name, margin))
    with open(os.path.join(case, "tolerance"), "w") as f:
        f.write("%.9g\n" % (TOLERANCE_STEPS * output_scale))
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(case) for f in fs)
    if size > MAX_CASE_BYTES:
        raise RuntimeError("%s is %d bytes, over %d" % (name, size, MAX_CASE_BYTES))
    print("%-14s %6d bytes  output %s scale %.6g  onnxruntime argmax %d" % (
        name, size, list(y.shape), output_scale, int(np.argmax(y))))


def small_cnn():
    """The float qdq_small_cnn graph (seeded random weights, He-scaled) and its input shape."""
    rng = np.random.default_rng(1717)

    def he(*shape):
        fan_in = int(np.prod(shape[1:]))
        return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)

    def small(n):
        return (rng.standard_normal(n) * 0.1).astype(np.float32)

    inits = [numpy_helper.from_array(v, n) for n, v in (
        ("conv0_W", he(64, 3, 3, 3)), ("conv0_B", small(64)),
        ("conv1_W", he(64, 64, 1, 1)), ("conv1_B", small(64)),
        ("fc_W", he(10, 64)), ("fc_B", small(10)))]
    nodes = [
        helper.make_node("Conv", ["x", "conv0_W", "conv0_B"], ["conv0_out"], "conv0",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["conv0_out"], ["relu0_out"], "relu0"),
        helper.make_node("MaxPool", ["relu0_out"], ["pool0_out"], "pool0", kernel_shape=[2, 2],
                         strides=[2, 2]),
        helper.make_node("Conv", ["pool0_out", "conv1_W", "conv1_B"], ["conv1_out"], "conv1",
                         kernel_shape=[1, 1]),
        helper.make_node("Relu", ["conv1_out"], ["relu1_out"], "relu1"),
        helper.make_node("Add", ["pool0_out", "relu1_out"], ["res_out"], "residual"),
        helper.make_node("GlobalAveragePool", ["res_out"], ["gap_out"], "gap0"),
        helper.make_node("Flatten", ["gap_out"], ["flat_out"], "flatten0", axis=1),
        helper.make_node("Gemm", ["flat_out", "fc_W", "fc_B"], ["y"], "fc0", transB=1),
    ]
    graph = helper.make_graph(
        nodes, "qdq_small_cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                               [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 7
    return model


def make_small_cnn():
    rng = np.random.default_rng(17)
    samples = [rng.standard_normal((1, 3, 16, 16)).astype(np.float32) for _ in range(8)]
    x = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
    # relu1 stays an explicit node (Conv -> Relu -> Q); relu0 is folded into conv0's range.
    qmodel, b = quantize(small_cnn(), samples, batch=8,
                         keep_activation=lambda node: node.name == "relu1")
    write_case("qdq_small_cnn", qmodel, b.output_scale("y"), x)


def digits_split():
    """(train images, train labels, test images, test labels) of the digits example: sklearn's
    digits scaled to [0, 1], the seed-0 80/20 permutation of utils/models/make_digits_example.py.
    Checked against the shipped test images (examples/digits/images/digit_<k>.npy)."""
    from sklearn.datasets import load_digits
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int64)
    perm = np.random.default_rng(0).permutation(len(labels))
    n_train = int(round(0.8 * len(labels)))
    train, test = perm[:n_train], perm[n_train:]
    for k in range(10):
        shipped = np.load(os.path.join(REPO, "examples", "digits", "images", "digit_%d.npy" % k))
        first = images[test][labels[test] == k][0:1]
        if not np.array_equal(shipped, first):
            raise RuntimeError("the digits split differs from make_digits_example.py's")
    return images[train], labels[train], images[test], labels[test]


DIGITS_CALIBRATION_IMAGES = 100


def quantize_digits():
    """The QDQ digits model, calibrated on the first 100 training-split images, and its
    output scale."""
    x_train, _, _, _ = digits_split()
    samples = [x_train[i:i + 1] for i in range(DIGITS_CALIBRATION_IMAGES)]
    qmodel, b = quantize(onnx.load(DIGITS_MODEL), samples, batch=len(samples))
    return qmodel, b.output_scale(qmodel.graph.output[0].name)


def make_digits():
    qmodel, scale = quantize_digits()
    _, _, x_test, _ = digits_split()
    write_case("qdq_digits", qmodel, scale, x_test[0:1])


# ----------------------------------------------------------------------------------------------
# Benchmark models

BENCH_MODELS = ["resnet50", "mobilenet_v2"]
BENCH_CALIBRATION_SEED = 3   # export_zoo.py uses 0 (weights), 1 (BatchNorm data), 2 (test input)
BENCH_CALIBRATION_INPUTS = 4


def export_float(name, path):
    """export_zoo.py's model \p name (same seeds, BatchNorm calibration and eval-mode export
    with constant folding, which folds BatchNorm into the convolutions) to \p path; returns the
    test input (export_zoo.py's)."""
    import warnings
    import torch
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import export_zoo
    torch.manual_seed(export_zoo.SEED)
    model, shape = export_zoo.build(name)
    export_zoo.calibrate_batchnorm(model, shape)
    model.eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(export_zoo.INPUT_SEED))
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), path, opset_version=OPSET, input_names=["input"],
                          output_names=["output"], do_constant_folding=True,
                          training=torch.onnx.TrainingMode.EVAL)
    return x.numpy().astype(np.float32), shape


def make_bench(out_dir, names, force):
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        case = os.path.join(out_dir, name)
        if not force and all(os.path.isfile(f) for f in case_files(case)):
            print("cached   %s" % case)
            continue
        with tempfile.TemporaryDirectory(prefix="qdq-bench-") as tmp:
            float_path = os.path.join(tmp, "float.onnx")
            x, shape = export_float(name, float_path)
            rng = np.random.default_rng(BENCH_CALIBRATION_SEED)
            samples = [rng.standard_normal(shape).astype(np.float32)
                       for _ in range(BENCH_CALIBRATION_INPUTS)]
            qmodel, _ = quantize(onnx.load(float_path), samples, batch=1)
        write_model_and_data(case, qmodel, x)
        ops = {}
        for n in qmodel.graph.node:
            ops[n.op_type] = ops.get(n.op_type, 0) + 1
        print("wrote    %s (%.1f MB; %s)" % (case, os.path.getsize(case_files(case)[0]) / 1e6,
                                            ", ".join("%s %d" % kv for kv in sorted(ops.items()))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", metavar="DIR",
                    help="write QDQ %s into DIR/<name>/ instead of the test cases"
                    % " and ".join(BENCH_MODELS))
    ap.add_argument("--only", help="with --bench: comma-separated names")
    ap.add_argument("--force", action="store_true", help="with --bench: rewrite cached models")
    args = ap.parse_args()
    require_onnxruntime()
    if args.bench:
        names = args.only.split(",") if args.only else BENCH_MODELS
        unknown = set(names) - set(BENCH_MODELS)
        if unknown:
            ap.error("unknown model(s) %s (known: %s)" % (", ".join(sorted(unknown)),
                                                          ", ".join(BENCH_MODELS)))
        make_bench(args.bench, names, args.force)
        return 0
    print("expected outputs: onnxruntime (utils/bench/ort-run.js) on the QDQ models")
    make_small_cnn()
    make_digits()
    return 0


if __name__ == "__main__":
    sys.exit(main())
