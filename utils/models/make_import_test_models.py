#!/usr/bin/python3
"""Generate ember's test cases for the importer-lowered operator families under tests/models/:

    cf_*       control flow: Scan (opset 8 and 16), Loop, sequences through Loop/If/SequenceMap;
               If, Loop and Scan decided at run time (loops in the IR); LSTMs and GRUs in
               nested run-time Ifs and in a Loop (cf_recurrent_cases.py)
    signal_*   DFT, STFT, the windows and MelWeightMatrix (opset 17)
    tfidf_*    TfIdfVectorizer (opset 9)

The layout is make_test_models.py's (the ONNX backend test-suite layout):

    tests/models/<case>/model.onnxtxt                   ModelProto in protobuf text format
    tests/models/<case>/test_data_set_0/input_<i>.pb    TensorProto per graph input
    tests/models/<case>/test_data_set_0/output_<i>.pb   TensorProto per graph output

Expected outputs come from the numpy references in this file, never from ember; each reference
says which rule it follows (the ONNX operator spec and the reference code of its backend tests in
onnx/backend/test/case/node/, or onnxruntime's kernel where ONNX leaves a case open).

Every case runs on every backend (ModelCasesTest) and as a bundle built by model-compiler
(BundleTest), which fixes nothing at compile time from the test data: so every value ember needs
at compile time (an unrolled Loop's trip count and condition, a window's size, a DFT's length, a
frame step) is an initializer, and the graph inputs are plain run-time tensors.

The models ember must refuse (a Loop beyond the unroll limit, bad signal and TfIdf operands)
live in tests/unittests/ImporterOpsTest.cpp, which checks the error text.

The script is deterministic and idempotent: it deletes and rewrites every case folder it owns
(cf_*, signal_*, tfidf_*) and only those. Run from anywhere:

    /usr/bin/python3 utils/models/make_import_test_models.py
"""

import glob
import math
import os
import shutil

import numpy as np
import onnx
from google.protobuf import text_format
from onnx import TensorProto, helper, mapping, numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(REPO, "tests", "models")
FAMILIES = ("cf_", "signal_", "tfidf_")

F32, F64, I32, I64, BOOL = (TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32,
                            TensorProto.INT64, TensorProto.BOOL)


# ----------------------------------------------------------------------------
# Model building / saving
# ----------------------------------------------------------------------------

def elem_type(arr):
    return mapping.NP_TYPE_TO_TENSOR_TYPE[np.asarray(arr).dtype]


def tensor(name, arr):
    """An initializer with typed fields (float_data, int64_data, ...): readable in text format."""
    arr = np.asarray(arr)
    return helper.make_tensor(name, elem_type(arr), arr.shape, arr.flatten().tolist())


def vi(name, kind, shape):
    return helper.make_tensor_value_info(name, kind, shape)


def seq_vi(name, kind):
    return helper.make_tensor_sequence_value_info(name, kind, None)


class Case:
    """One model with its test data: graph inputs and outputs carry their arrays."""

    def __init__(self, name, opset):
        assert name.startswith(FAMILIES), name
        self.name, self.opset = name, opset
        self.nodes, self.inputs, self.outputs, self.inits = [], [], [], []
        self.tolerance = None  # the case's absolute tolerance when not the tests' 1e-5

    def input(self, name, arr):
        """Declares graph input `name` with test data `arr`; returns the array."""
        arr = np.asarray(arr)
        self.inputs.append((name, arr))
        return arr

    def init(self, name, arr):
        self.inits.append(tensor(name, arr))
        return name

    def node(self, op, inputs, outputs, name, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))

    def output(self, name, arr):
        self.outputs.append((name, np.asarray(arr)))

    def save(self):
        for _, arr in self.inputs + self.outputs:
            assert arr.dtype.kind != "f" or np.all(np.isfinite(arr)), self.name
        graph = helper.make_graph(
            self.nodes, self.name,
            [vi(n, elem_type(a), a.shape) for n, a in self.inputs],
            [vi(n, elem_type(a), a.shape) for n, a in self.outputs],
            initializer=self.inits)
        model = helper.make_model(graph, producer_name="ember-tests", ir_version=8,
                                  opset_imports=[helper.make_opsetid("", self.opset)])
        onnx.checker.check_model(model, full_check=True)

        case_dir = os.path.join(OUT_DIR, self.name)
        data_dir = os.path.join(case_dir, "test_data_set_0")
        os.makedirs(data_dir)
        txt = text_format.MessageToString(model)
        # The text must parse back to the identical model.
        assert text_format.Parse(txt, onnx.ModelProto()).SerializeToString() == \
            model.SerializeToString(), self.name
        with open(os.path.join(case_dir, "model.onnxtxt"), "w") as f:
            f.write(txt)
        if self.tolerance is not None:
            with open(os.path.join(case_dir, "tolerance"), "w") as f:
                f.write("%g\n" % self.tolerance)
        for kind, items in (("input", self.inputs), ("output", self.outputs)):
            for i, (n, arr) in enumerate(items):
                # (not np.ascontiguousarray: it makes a scalar 1-D)
                t = numpy_helper.from_array(arr.copy(order="C"), name=n)
                with open(os.path.join(data_dir, "%s_%d.pb" % (kind, i)), "wb") as f:
                    f.write(t.SerializeToString())


# ----------------------------------------------------------------------------
# cf_*: control flow. References follow the ONNX spec of Scan, Loop, If and the sequence
# operators (and their backend tests: onnx/backend/test/case/node/{scan,loop,sequence_map}.py).
# ----------------------------------------------------------------------------

def cf_cases():
    cases = []

    # Scan-16 with scan_input_axes/directions and scan_output_axes/directions: input x is
    # scanned along axis 1 in reverse, y along axis 0 forward; out1 is stacked along the last
    # axis, out2 in reverse (Scan-9+ spec: a reverse scan output's first iteration goes last).
    c = Case("cf_scan16_axes_directions", 16)
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "a"], ["s_out"]),
         helper.make_node("Mul", ["s_out", "b"], ["o1"]),
         helper.make_node("Sub", ["a", "b"], ["o2"])],
        "body", [vi("s_in", F32, [2]), vi("a", F32, [2]), vi("b", F32, [2])],
        [vi("s_out", F32, [2]), vi("o1", F32, [2]), vi("o2", F32, [2])])
    c.input("init", np.array([1, 2], np.float32))
    x = c.input("x", np.arange(6, dtype=np.float32).reshape(2, 3))
    y = c.input("y", np.arange(6, dtype=np.float32).reshape(3, 2) * 0.5 + 1)
    c.node("Scan", ["init", "x", "y"], ["final", "out1", "out2"], "scan0", body=body,
           num_scan_inputs=2, scan_input_axes=[1, 0], scan_input_directions=[1, 0],
           scan_output_axes=[-1, 0], scan_output_directions=[0, 1])
    s, o1, o2 = np.array([1, 2], np.float32), [], []
    for t in range(3):
        a, b = x[:, 2 - t], y[t]
        s = s + a
        o1.append(s * b)
        o2.append(a - b)
    c.output("final", s)
    c.output("out1", np.stack(o1, axis=-1))
    c.output("out2", np.stack(o2[::-1], axis=0))
    cases.append(c)

    # Scan-8: a batch axis, sequence_lens [3, 2] and a reverse direction. Scan-8 spec: each
    # batch row runs its own length; a reverse row starts at its last valid step; scan output
    # steps beyond a row's length are zero (onnxruntime fills them with zeros).
    c = Case("cf_scan8_lens_reverse", 8)
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "a"], ["s_out"]),
         helper.make_node("Identity", ["s_out"], ["o"])],
        "body", [vi("s_in", F32, [2]), vi("a", F32, [2])],
        [vi("s_out", F32, [2]), vi("o", F32, [2])])
    lens = [3, 2]
    c.init("lens", np.array(lens, np.int64))
    init = c.input("init", np.array([[1, 2], [3, 4]], np.float32))
    x = c.input("x", np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    c.node("Scan", ["lens", "init", "x"], ["final", "out"], "scan0", body=body,
           num_scan_inputs=1, directions=[1])
    final, out = [], np.zeros((2, 3, 2), np.float32)
    for row, n in enumerate(lens):
        s = init[row].copy()
        for t in range(n):
            s = s + x[row, n - 1 - t]
            out[row, t] = s
        final.append(s)
    c.output("final", np.stack(final))
    c.output("out", out)
    cases.append(c)

    # Loop whose condition turns false before the trip count: M = 10, the body continues while
    # i < 3, so 4 iterations run. Loop spec: the body's condition output decides whether the
    # next iteration runs; the scan output has one row per iteration run.
    c = Case("cf_loop_while_condition", 13)
    body = helper.make_graph(
        [helper.make_node("Constant", [], ["three"], value=helper.make_tensor("t", I64, [], [3])),
         helper.make_node("Less", ["i", "three"], ["c_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F32),
         helper.make_node("Add", ["v_in", "fi"], ["v_out"]),
         helper.make_node("Mul", ["v_out", "x"], ["scan"])],
        "body", [vi("i", I64, []), vi("c_in", BOOL, []), vi("v_in", F32, [2])],
        [vi("c_out", BOOL, []), vi("v_out", F32, [2]), vi("scan", F32, [2])])
    c.init("M", np.array(10, np.int64))
    c.init("cond", np.array(True))
    v0 = c.input("v0", np.array([1, -1], np.float32))
    xx = c.input("x", np.array([2, 3], np.float32))
    c.node("Loop", ["M", "cond", "v0"], ["v", "scans"], "loop0", body=body)
    v, rows = v0.copy(), []
    for i in range(10):
        v = v + i
        rows.append(v * xx)
        if not i < 3:
            break
    c.output("v", v)
    c.output("scans", np.stack(rows))
    cases.append(c)

    # Loop with no trip count whose condition is computed from carried data (not from the
    # iteration number): acc grows by `step` until its sum reaches `limit`. acc's start and
    # step are initializers, as ember unrolls a loop at compile time; the run-time input v0
    # flows through every iteration.
    c = Case("cf_loop_data_condition", 13)
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "step"], ["acc_out"]),
         helper.make_node("ReduceSum", ["acc_out"], ["sum"], keepdims=0),
         helper.make_node("Less", ["sum", "limit"], ["c_out"]),
         helper.make_node("Mul", ["v_in", "acc_out"], ["v_out"])],
        "body", [vi("i", I64, []), vi("c_in", BOOL, []), vi("acc_in", F32, [2]),
                 vi("v_in", F32, [2])],
        [vi("c_out", BOOL, []), vi("acc_out", F32, [2]), vi("v_out", F32, [2])])
    acc0, step, limit = np.array([1, -1], np.float32), np.array([0.5, 1], np.float32), 7.0
    c.init("cond", np.array(True))
    c.init("acc0", acc0)
    c.init("step", step)
    c.init("limit", np.array(limit, np.float32))
    v0 = c.input("v0", np.array([0.5, 2], np.float32))
    c.node("Loop", ["", "cond", "acc0", "v0"], ["acc", "v"], "loop0", body=body)
    acc, v = acc0.copy(), v0.copy()
    while True:
        acc = acc + step
        v = v * acc
        if not acc.sum() < limit:
            break
    c.output("acc", acc)
    c.output("v", v)
    cases.append(c)

    # Sequences: SplitToSequence (no split: pieces of 1 along axis 0, kept), SequenceMap of a
    # Mul, ConcatFromSequence; a Loop appending to a carried sequence (SequenceEmpty, then
    # SequenceInsert of w * i for i = 0, 1, 2); an If whose then-branch erases the loop's first
    # element (position -3 of 3) and returns that sequence; ConcatFromSequence with new_axis=1
    # and SequenceLength of the If's result.
    c = Case("cf_sequence_map_loop_if", 17)
    map_body = helper.make_graph(
        [helper.make_node("Mul", ["e", "w"], ["m"])], "map_body",
        [vi("e", F32, [1, 3]), vi("w", F32, [3])], [vi("m", F32, [1, 3])])
    loop_body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F32),
         helper.make_node("Mul", ["w", "fi"], ["wi"]),
         helper.make_node("SequenceInsert", ["s_in", "wi"], ["s_out"])],
        "loop_body", [vi("i", I64, []), vi("c_in", BOOL, []), seq_vi("s_in", F32)],
        [vi("c_out", BOOL, []), seq_vi("s_out", F32)])
    then_branch = helper.make_graph(
        [helper.make_node("SequenceErase", ["looped", "first"], ["erased"])], "then", [],
        [seq_vi("erased", F32)])
    else_branch = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["w"], ["single"])], "else", [],
        [seq_vi("single", F32)])
    x = c.input("x", np.arange(6, dtype=np.float32).reshape(2, 3))
    w = c.input("w", np.array([1, 2, 3], np.float32))
    c.init("M", np.array(3, np.int64))
    c.init("yes", np.array(True))
    c.init("first", np.array(-3, np.int64))
    c.node("SplitToSequence", ["x"], ["pieces"], "split0", axis=0)
    c.node("SequenceMap", ["pieces", "w"], ["mapped"], "map0", body=map_body)
    c.node("ConcatFromSequence", ["mapped"], ["y"], "concat0", axis=0)
    c.node("SequenceEmpty", [], ["empty"], "empty0", dtype=F32)
    c.node("Loop", ["M", "", "empty"], ["looped"], "loop0", body=loop_body)
    c.node("If", ["yes"], ["chosen"], "if0", then_branch=then_branch, else_branch=else_branch)
    c.node("ConcatFromSequence", ["chosen"], ["z"], "concat1", axis=0, new_axis=1)
    c.node("SequenceLength", ["chosen"], ["n"], "length0")
    c.output("y", x * w)
    c.output("z", np.stack([w * 1, w * 2]))
    c.output("n", np.array(2, np.int64))
    cases.append(c)
    from cf_recurrent_cases import cf_recurrent_cases  # it imports this module's helpers
    return cases + cf_runtime_cases() + cf_recurrent_cases()


def cf_runtime_cases():
    """Control flow decided at run time: If on a run-time condition, a Loop longer than ember
    unrolls (a loop in the IR), a Loop whose trip count and condition are run-time inputs, with
    an If nested in its body, and a long Scan. Every value crossing into a body is a graph input
    or computed from one, so nothing folds."""
    cases = []

    # If on a graph input: the then-branch reads a value computed outside it (t = x * x) and
    # the graph input x; the else-branch an initializer of its own. One model, two data sets
    # (one per branch); ControlFlowTest also runs both from one compile.
    then_branch = helper.make_graph(
        [helper.make_node("Add", ["t", "x"], ["z_then"])], "then", [],
        [vi("z_then", F32, [3, 4])])
    else_branch = helper.make_graph(
        [helper.make_node("Sigmoid", ["x"], ["s"]),
         helper.make_node("Mul", ["s", "two"], ["z_else"])], "else", [],
        [vi("z_else", F32, [3, 4])], initializer=[tensor("two", np.array(2, np.float32))])
    for flag in (True, False):
        c = Case("cf_if_runtime_" + ("then" if flag else "else"), 13)
        x = c.input("x", (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) * 0.25)
        c.input("flag", np.array(flag))
        c.node("Mul", ["x", "x"], ["t"], "square")
        c.node("If", ["flag"], ["z"], "if0", then_branch=then_branch, else_branch=else_branch)
        c.output("z", x * x + x if flag else (1 / (1 + np.exp(-x))).astype(np.float32) * 2)
        cases.append(c)

    # A Loop of 40 iterations (more than ember unrolls), no condition: acc = acc * 0.5 + x * i,
    # with x read from outside the body; the scan output stacks every acc.
    c = Case("cf_loop_static_long", 13)
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Mul", ["acc_in", "half"], ["scaled"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F32),
         helper.make_node("Mul", ["x", "fi"], ["xi"]),
         helper.make_node("Add", ["scaled", "xi"], ["acc_out"]),
         helper.make_node("Identity", ["acc_out"], ["row"])],
        "body", [vi("i", I64, []), vi("c_in", BOOL, []), vi("acc_in", F32, [4])],
        [vi("c_out", BOOL, []), vi("acc_out", F32, [4]), vi("row", F32, [4])],
        initializer=[tensor("half", np.array(0.5, np.float32))])
    c.init("M", np.array(40, np.int64))
    acc = c.input("acc0", np.array([1, -2, 3, 0.5], np.float32))
    x = c.input("x", np.array([0.25, -0.5, 1, 2], np.float32))
    c.node("Loop", ["M", "", "acc0"], ["acc", "rows"], "loop0", body=body)
    rows = []
    for i in range(40):
        acc = acc * np.float32(0.5) + x * np.float32(i)
        rows.append(acc)
    c.output("acc", acc)
    c.output("rows", np.stack(rows))
    cases.append(c)

    # A Loop whose trip count M and condition are graph inputs, and whose body computes its
    # condition from the data (sum(acc) < limit, limit a graph input), with an If on the
    # iteration's parity nested in the body: even i scales acc by 1.5, odd i adds x (read from
    # outside the loop, through both bodies). n counts the iterations run.
    c = Case("cf_loop_runtime_count", 13)
    then_branch = helper.make_graph(
        [helper.make_node("Mul", ["acc_in", "k"], ["a_then"])], "then", [],
        [vi("a_then", F32, [3])], initializer=[tensor("k", np.array(1.5, np.float32))])
    else_branch = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "x"], ["a_else"])], "else", [],
        [vi("a_else", F32, [3])])
    body = helper.make_graph(
        [helper.make_node("Mod", ["i", "two"], ["parity"]),
         helper.make_node("Equal", ["parity", "zero"], ["even"]),
         helper.make_node("If", ["even"], ["acc_out"], then_branch=then_branch,
                          else_branch=else_branch),
         helper.make_node("ReduceSum", ["acc_out"], ["sum"], keepdims=0),
         helper.make_node("Less", ["sum", "limit"], ["c_out"]),
         helper.make_node("Add", ["n_in", "one"], ["n_out"])],
        "body", [vi("i", I64, []), vi("c_in", BOOL, []), vi("acc_in", F32, [3]),
                 vi("n_in", I64, [])],
        [vi("c_out", BOOL, []), vi("acc_out", F32, [3]), vi("n_out", I64, [])],
        initializer=[tensor("two", np.array(2, np.int64)), tensor("zero", np.array(0, np.int64)),
                     tensor("one", np.array(1, np.int64))])
    m = c.input("M", np.array(50, np.int64))
    go = c.input("cond", np.array(True))
    acc = c.input("acc0", np.array([0.5, 1, -0.25], np.float32))
    x = c.input("x", np.array([1, 0.5, 2], np.float32))
    limit = c.input("limit", np.array(60, np.float32))
    c.init("n0", np.array(0, np.int64))
    c.node("Loop", ["M", "cond", "acc0", "n0"], ["acc", "n"], "loop0", body=body)
    n, i = 0, 0
    while i < m and go:
        acc = acc * np.float32(1.5) if i % 2 == 0 else acc + x
        n += 1
        go = acc.sum(dtype=np.float32) < limit
        i += 1
    assert 3 < n < 50, n  # the condition, not M, ends it
    c.output("acc", acc)
    c.output("n", np.array(n, np.int64))
    cases.append(c)

    # Scan-16 over 24 steps (a loop in the IR): x scanned forward along axis 0, y in reverse
    # along axis 1; the state sums x + y's element, the scan output is state * 2 (Scan-9+ spec).
    c = Case("cf_scan_long", 16)
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "a"], ["s1"]),
         helper.make_node("Add", ["s1", "b"], ["s_out"]),
         helper.make_node("Add", ["s_out", "s_out"], ["o"])],
        "body", [vi("s_in", F32, [2]), vi("a", F32, [2]), vi("b", F32, [2])],
        [vi("s_out", F32, [2]), vi("o", F32, [2])])
    s = c.input("init", np.array([1, -1], np.float32))
    x = c.input("x", (np.arange(48, dtype=np.float32).reshape(24, 2) - 20) * 0.125)
    y = c.input("y", (np.arange(48, dtype=np.float32).reshape(2, 24) % 7) * 0.5)
    c.node("Scan", ["init", "x", "y"], ["final", "out"], "scan0", body=body, num_scan_inputs=2,
           scan_input_axes=[0, 1], scan_input_directions=[0, 1])
    outs = []
    for t in range(24):
        s = (s + x[t]) + y[:, 23 - t]
        outs.append(s + s)
    c.output("final", s)
    c.output("out", np.stack(outs))
    cases.append(c)
    return cases


# ----------------------------------------------------------------------------
# signal_*: DFT, STFT, windows, MelWeightMatrix (opset 17)
# ----------------------------------------------------------------------------

def ref_dft(x, length, axis, inverse, onesided):
    """DFT-17 spec: the last axis of x holds 1 (real) or 2 (real, imaginary) components;
    dft_length zero-pads or truncates the signal axis (as numpy.fft's n); inverse is ifft with
    its 1/n; onesided keeps the first n//2 + 1 frequencies. Backend test: onnx/backend/test/case/node/dft.py (numpy.fft)."""
    xc = x[..., 0].astype(np.float64) + (1j * x[..., 1] if x.shape[-1] == 2 else 0)
    axis = axis + x.ndim if axis < 0 else axis  # DFT-20 spells out negative axes: from the back
    n = length or x.shape[axis]
    r = (np.fft.ifft if inverse else np.fft.fft)(xc, n=n, axis=axis)
    if onesided:
        r = np.take(r, range(n // 2 + 1), axis=axis)
    return np.stack([r.real, r.imag], -1).astype(x.dtype)


def ref_stft(signal, step, length, window, onesided):
    """STFT-17 spec and onnx/backend/test/case/node/stft.py: frames of `length` every `step`
    samples, times the window, each transformed by fft; onesided keeps length//2 + 1 bins."""
    sc = signal[..., 0].astype(np.float64) + (1j * signal[..., 1] if signal.shape[-1] == 2 else 0)
    frames = 1 + (signal.shape[1] - length) // step
    f = np.stack([sc[:, k * step:k * step + length] for k in range(frames)], 1)
    r = np.fft.fft(f * (1 if window is None else window), axis=2)
    if onesided:
        r = r[:, :, :length // 2 + 1]
    return np.stack([r.real, r.imag], -1).astype(signal.dtype)


def ref_cosine_window(a0, a1, a2, size, periodic):
    """Hann/Hamming/Blackman-17 spec (and {hann,hamming,blackman}window.py): a0 - a1 cos(2 pi
    n / N) + a2 cos(4 pi n / N), N = size (periodic) or size - 1 (symmetric), in float64."""
    n = size if periodic else size - 1
    ang = np.arange(size) * (2 * np.pi / n)
    return a0 - a1 * np.cos(ang) + a2 * np.cos(2 * ang)


def ref_mel(num_mel_bins, dft_length, sample_rate, lower_hz, upper_hz):
    """MelWeightMatrix-17: onnx/backend/test/case/node/melweightmatrix.py line for line (mel
    points spaced by (high - low) / (num_mel_bins + 2), bins floor((dft_length + 1) f / rate),
    triangles rising to 1 at the centre, a single 1 where left and centre coincide)."""
    def mel(f):
        return 2595 * math.log10(1 + f / 700)
    lo, hi = mel(lower_hz), mel(upper_hz)
    step = (hi - lo) / (num_mel_bins + 2)
    bins = [int(math.floor((dft_length + 1) * 700 * (10 ** ((i * step + lo) / 2595) - 1)
                           / sample_rate)) for i in range(num_mel_bins + 2)]
    out = np.zeros((dft_length // 2 + 1, num_mel_bins))
    for i in range(num_mel_bins):
        left, centre, right = bins[i:i + 3]
        if centre == left:
            out[centre, i] = 1
        else:
            for j in range(left, centre + 1):
                out[j, i] = (j - left) / (centre - left)
        for j in range(centre, right):
            out[j, i] = (right - j) / (right - centre)
    return out


def signal_cases():
    cases = []
    rng = np.random.default_rng(1701)

    def dft_node(c, x, out, name, length, **attrs):
        ins = [x]
        if length:
            ins.append(c.init(out + "_length", np.array(length, np.int64)))
        c.node("DFT", ins, [out], name, **attrs)

    # DFT of a complex input: the default axis 1 over its whole length, and an inverse with
    # dft_length 6 truncating the 7 samples.
    c = Case("signal_dft_complex", 17)
    x = c.input("x", rng.standard_normal((3, 7, 4, 2)).astype(np.float32))
    dft_node(c, "x", "full", "dft_full", None)
    c.output("full", ref_dft(x, None, 1, 0, 0))
    dft_node(c, "x", "inverse_len6", "dft_inverse_len6", 6, axis=1, inverse=1)
    c.output("inverse_len6", ref_dft(x, 6, 1, 1, 0))
    cases.append(c)

    # DFT of a real input: dft_length 12 zero-padding axis 2 (onesided), axis 0 with
    # dft_length 8 padding the batch axis, and an inverse DFT at negative axis -3 (axis 1 of
    # rank 4) padding to 9. (Not inverse and onesided together: ONNX's DFT shape inference
    # refuses that pair.)
    c = Case("signal_dft_real", 17)
    x = c.input("x", rng.standard_normal((3, 7, 4, 1)).astype(np.float32))
    dft_node(c, "x", "pad12_axis2", "dft_pad12_axis2", 12, axis=2, onesided=1)
    c.output("pad12_axis2", ref_dft(x, 12, 2, 0, 1))
    dft_node(c, "x", "len8_axis0", "dft_len8_axis0", 8, axis=0)
    c.output("len8_axis0", ref_dft(x, 8, 0, 0, 0))
    dft_node(c, "x", "inverse_axis_neg3", "dft_inverse_axis_neg3", 9, axis=-3, inverse=1)
    c.output("inverse_axis_neg3", ref_dft(x, 9, -3, 1, 0))
    cases.append(c)

    # DFT in float64: onesided, dft_length 5 truncating axis -2 (axis 2).
    c = Case("signal_dft_float64", 17)
    x = c.input("x", rng.standard_normal((3, 7, 4, 1)))
    dft_node(c, "x", "y", "dft0", 5, axis=-2, onesided=1)
    c.output("y", ref_dft(x, 5, -2, 0, 1))
    cases.append(c)

    # STFT of a complex signal, two-sided, with a window (frame_length 10, step 3); and of a
    # real signal, onesided, with a window of 9 (step 5). onnx 1.12's STFT shape inference
    # counts the frames of a onesided STFT by the onesided length (5) instead of frame_length,
    # unlike its reference: 39 samples give 7 frames both ways.
    c = Case("signal_stft", 17)
    for name, comps, samples, length, step, onesided in (("complex", 2, 40, 10, 3, 0),
                                                         ("real", 1, 39, 9, 5, 1)):
        sig = c.input("x_" + name,
                      rng.standard_normal((2, samples, comps)).astype(np.float32))
        win = c.input("window_" + name, rng.standard_normal(length).astype(np.float32))
        c.init("step_" + name, np.array(step, np.int64))
        c.init("length_" + name, np.array(length, np.int64))
        c.node("STFT", ["x_" + name, "step_" + name, "window_" + name, "length_" + name],
               ["y_" + name], "stft_" + name, onesided=onesided)
        c.output("y_" + name, ref_stft(sig, step, length, win, onesided))
    cases.append(c)

    # STFT in float64, two-sided, no window: frame_length 8, step 5.
    c = Case("signal_stft_float64", 17)
    sig = c.input("x", rng.standard_normal((2, 40, 1)))
    c.init("step", np.array(5, np.int64))
    c.init("length", np.array(8, np.int64))
    c.node("STFT", ["x", "step", "", "length"], ["y"], "stft0", onesided=0)
    c.output("y", ref_stft(sig, 5, 8, None, 0))
    cases.append(c)

    # The windows: periodic Hann in float32 (the default) and float64, a symmetric Blackman in
    # float64, and a periodic Hamming cast to int32 (Cast's rule: truncation toward zero).
    c = Case("signal_windows", 17)
    c.init("size", np.array(7, np.int64))
    hann = ref_cosine_window(0.5, 0.5, 0, 7, True)
    c.node("HannWindow", ["size"], ["hann"], "hann_f32")
    c.output("hann", hann.astype(np.float32))
    c.node("HannWindow", ["size"], ["hann_f64"], "hann_f64", output_datatype=F64)
    c.output("hann_f64", hann)
    c.node("BlackmanWindow", ["size"], ["blackman_symmetric_f64"], "blackman_sym_f64",
           periodic=0, output_datatype=F64)
    c.output("blackman_symmetric_f64", ref_cosine_window(0.42, 0.5, 0.08, 7, False))
    c.node("HammingWindow", ["size"], ["hamming_i32"], "hamming_i32", output_datatype=I32)
    c.output("hamming_i32", ref_cosine_window(25 / 46, 21 / 46, 0, 7, True).astype(np.int32))
    cases.append(c)

    # MelWeightMatrix in float64, 10 bins of a 64-point DFT at 16 kHz, 100 Hz to 7 kHz.
    c = Case("signal_mel_float64", 17)
    c.init("num_mel_bins", np.array(10, np.int64))
    c.init("dft_length", np.array(64, np.int64))
    c.init("sample_rate", np.array(16000, np.int64))
    c.init("lower_edge_hertz", np.array(100, np.float32))
    c.init("upper_edge_hertz", np.array(7000, np.float32))
    c.node("MelWeightMatrix", ["num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz",
                               "upper_edge_hertz"], ["y"], "mel0", output_datatype=F64)
    c.output("y", ref_mel(10, 64, 16000, 100.0, 7000.0))
    cases.append(c)
    return cases


# ----------------------------------------------------------------------------
# tfidf_*: TfIdfVectorizer (opset 9)
# ----------------------------------------------------------------------------

def ref_tfidf(x, mode, min_gram_length, max_gram_length, max_skip_count, ngram_counts,
              ngram_indexes, pool_int64s, weights=None):
    """A port of onnxruntime's TfIdfVectorizer kernel (core/providers/cpu/nn/
    tfidfvectorizer.cc), which the ONNX spec leaves open in places: the pool's n-grams of the
    lengths in [min, max] are matched; for each skip distance d in 1..max_skip_count+1 and each
    start, the n-grams starting there with items d apart are counted (unigrams once, not per
    skip); ngram_indexes maps an n-gram to its output column (columns may be shared). IDF
    gives weight (1 without weights) where the count is non-zero; TFIDF count * weight (count
    without weights). A 2-D input gives [rows, columns], a 1-D one [columns]. Pool
    tokens that the input's type cannot hold never match (the comparison is by value)."""
    pool = {}
    ngram_id = 0
    for i, start in enumerate(ngram_counts):
        n = i + 1
        end = ngram_counts[i + 1] if i + 1 < len(ngram_counts) else len(pool_int64s)
        for j in range((end - start) // n):
            gram = tuple(pool_int64s[start + j * n:start + (j + 1) * n])
            if min_gram_length <= n <= max_gram_length:
                assert gram not in pool
                pool[gram] = ngram_id
            ngram_id += 1
    columns = max(ngram_indexes) + 1
    x = np.asarray(x)
    rows = x.reshape(-1, x.shape[-1] if x.ndim else 1)
    counts = np.zeros((rows.shape[0], columns))
    for r, row in enumerate(rows):
        row = [int(t) for t in row]

        def count(gram):
            if gram in pool:
                counts[r, ngram_indexes[pool[gram]]] += 1

        first_n = min_gram_length
        if first_n == 1:
            for t in row:
                count((t,))
            first_n = 2
        if first_n > max_gram_length:
            continue
        for d in range(1, max_skip_count + 2):
            for s in range(len(row)):
                if s + d * (first_n - 1) >= len(row):
                    break
                gram = tuple(row[s::d][:max_gram_length])
                for n in range(first_n, len(gram) + 1):
                    count(gram[:n])
    w = np.array(weights[:columns]) if weights else 1.0
    if mode == "IDF":
        counts = (counts > 0) * w
    elif mode == "TFIDF":
        counts = counts * w
    y = counts.astype(np.float32)
    return y if x.ndim == 2 else y.reshape(columns)


def tfidf_cases():
    cases = []
    rng = np.random.RandomState(0)
    tokens = rng.randint(0, 6, size=(3, 15))
    # 5 unigrams, 5 bigrams, 3 trigrams
    pool = [0, 1, 2, 3, 4, 0, 1, 1, 2, 2, 2, 3, 0, 5, 5, 1, 2, 3, 0, 0, 0, 2, 2, 2]
    counts = [0, 5, 15]
    permuted = [7, 3, 0, 9, 1, 12, 5, 4, 2, 11, 10, 8, 6]
    shared = [0, 1, 2, 0, 1, 2, 3, 4, 3, 4, 6, 6, 2]  # column 5 is never written
    identity = list(range(13))
    weights = [0.5 + 0.25 * i for i in range(13)]

    def vectorizer(c, x, out, **attrs):
        """A node reading input x into output `out`, with its reference output."""
        attrs = dict(dict(ngram_counts=counts, pool_int64s=pool), **attrs)
        c.node("TfIdfVectorizer", [x], [out], out, **attrs)
        xv = dict(c.inputs)[x]
        c.output(out, ref_tfidf(xv, attrs["mode"], attrs["min_gram_length"],
                                attrs["max_gram_length"], attrs["max_skip_count"],
                                attrs["ngram_counts"], attrs["ngram_indexes"],
                                attrs["pool_int64s"], attrs.get("weights")))

    # int64 rows: TF of uni- to trigrams into permuted columns; TFIDF with weights and a skip
    # longer than the rows.
    c = Case("tfidf_int64", 9)
    c.input("x", tokens.astype(np.int64))
    vectorizer(c, "x", "tf_trigrams_permuted", mode="TF", min_gram_length=1, max_gram_length=3,
               max_skip_count=2, ngram_indexes=permuted)
    vectorizer(c, "x", "tfidf_weighted_skip10", mode="TFIDF", min_gram_length=1,
               max_gram_length=3, max_skip_count=10, ngram_indexes=permuted, weights=weights)
    cases.append(c)

    # int32 rows: TF of bi- and trigrams into shared columns; IDF with weights; TFIDF of
    # unigrams only with weights.
    c = Case("tfidf_int32", 9)
    c.input("x", tokens.astype(np.int32))
    vectorizer(c, "x", "tf_shared_columns", mode="TF", min_gram_length=2, max_gram_length=3,
               max_skip_count=3, ngram_indexes=shared)
    vectorizer(c, "x", "idf_weighted", mode="IDF", min_gram_length=1, max_gram_length=2,
               max_skip_count=1, ngram_indexes=permuted, weights=weights)
    vectorizer(c, "x", "tfidf_unigrams", mode="TFIDF", min_gram_length=1, max_gram_length=1,
               max_skip_count=3, ngram_indexes=identity, weights=weights)
    cases.append(c)

    # One row as a 1-D input: IDF without weights (1 where an n-gram occurs).
    c = Case("tfidf_rank1_idf", 9)
    c.input("x", tokens[0].astype(np.int64))
    vectorizer(c, "x", "y", mode="IDF", min_gram_length=1, max_gram_length=3, max_skip_count=4,
               ngram_indexes=identity)
    cases.append(c)

    # int32 input with pool tokens beyond int32: 2**32 + 1 must not match token 1 (it would if
    # the pool were narrowed to the input's type).
    c = Case("tfidf_int32_wide_pool", 9)
    c.input("x", np.array([1, 1, 2, 1], np.int32))
    vectorizer(c, "x", "y", mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=0,
               ngram_counts=[0, 2], ngram_indexes=[0, 1, 2, 3],
               pool_int64s=[2**32 + 1, 1, 1, 2**32 + 2, 1, 2])
    cases.append(c)

    # Rows of 2 tokens: too short for any trigram, bigrams at skip 0 only.
    c = Case("tfidf_short_rows", 9)
    c.input("x", np.array([[1, 2], [2, 2]], np.int64))
    vectorizer(c, "x", "y", mode="TF", min_gram_length=2, max_gram_length=3, max_skip_count=5,
               ngram_indexes=identity)
    cases.append(c)

    return cases


def main():
    cases = cf_cases() + signal_cases() + tfidf_cases()
    names = [c.name for c in cases]
    assert len(names) == len(set(names))
    for family in FAMILIES:
        for old in glob.glob(os.path.join(OUT_DIR, family + "*")):
            shutil.rmtree(old)
    for c in cases:
        c.save()
        print("wrote tests/models/%s (opset %d)" % (c.name, c.opset))
    print("%d cases" % len(cases))


if __name__ == "__main__":
    main()
