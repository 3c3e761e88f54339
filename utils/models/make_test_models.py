#!/usr/bin/python3
"""Generate ember's small ONNX operator test cases under tests/models/.

Each case is a folder in the ONNX backend test-suite layout:

    tests/models/<case>/model.onnxtxt             ModelProto in protobuf text format
    tests/models/<case>/test_data_set_0/input_<i>.pb   TensorProto per graph input
    tests/models/<case>/test_data_set_0/output_<i>.pb  TensorProto per graph output

Expected outputs come from numpy reference implementations in this file (never
from ember). When torch is importable, the convolution and pooling references are
additionally cross-checked against torch.nn.functional.

The script is deterministic and idempotent: it deletes and rewrites every case
folder it owns (and only those). Run from anywhere:

    /usr/bin/python3 utils/models/make_test_models.py
"""

import math
import os
import shutil

import numpy as np
import onnx
from google.protobuf import text_format
from onnx import TensorProto, helper, numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(REPO, "tests", "models")

F32 = TensorProto.FLOAT
I64 = TensorProto.INT64


# ----------------------------------------------------------------------------
# Numpy reference implementations
# ----------------------------------------------------------------------------

def ref_conv(x, w, b=None, pads=(0, 0, 0, 0), strides=(1, 1), dilations=(1, 1), group=1):
    """2-D convolution (cross-correlation), ONNX semantics.

    pads = [h_begin, w_begin, h_end, w_end]."""
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    assert c == cg * group and m % group == 0
    xp = np.pad(x.astype(np.float64),
                ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    sh, sw = strides
    dh, dw = dilations
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
    oh = (xp.shape[2] - ekh) // sh + 1
    ow = (xp.shape[3] - ekw) // sw + 1
    y = np.zeros((n, m, oh, ow), np.float64)
    mg = m // group
    w64 = w.astype(np.float64)
    for g in range(group):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w64[g * mg:(g + 1) * mg]
        for i in range(oh):
            for j in range(ow):
                patch = xg[:, :, i * sh:i * sh + ekh:dh, j * sw:j * sw + ekw:dw]
                y[:, g * mg:(g + 1) * mg, i, j] = np.einsum("nckl,mckl->nm", patch, wg)
    if b is not None:
        y += b.astype(np.float64).reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def same_upper_pads(in_hw, k_hw, strides, dilations=(1, 1)):
    """Explicit [h_begin, w_begin, h_end, w_end] for auto_pad=SAME_UPPER."""
    begins, ends = [], []
    for size, k, s, d in zip(in_hw, k_hw, strides, dilations):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        begins.append(total // 2)
        ends.append(total - total // 2)
    return begins + ends


def ref_pool(x, kind, kernel, strides, pads=(0, 0, 0, 0), ceil_mode=False,
             count_include_pad=False):
    """2-D MaxPool / AveragePool, ONNX semantics. pads = [hb, wb, he, we]."""
    n, c, h, w = x.shape
    kh, kw = kernel
    sh, sw = strides

    def out_size(size, k, s, pb, pe):
        num = size + pb + pe - k
        o = (-(-num // s) if ceil_mode else num // s) + 1
        # A window may not start in the end padding (ONNX / torch rule).
        if ceil_mode and (o - 1) * s >= size + pb:
            o -= 1
        return o

    oh = out_size(h, kh, sh, pads[0], pads[2])
    ow = out_size(w, kw, sw, pads[1], pads[3])
    y = np.zeros((n, c, oh, ow), np.float64)
    x64 = x.astype(np.float64)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * sh - pads[0], j * sw - pads[1]
            h1, w1 = h0 + kh, w0 + kw
            hs, ws = max(h0, 0), max(w0, 0)
            he, we = min(h1, h), min(w1, w)
            win = x64[:, :, hs:he, ws:we]
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                if count_include_pad:
                    # padded area counts, but not the part beyond the end pads
                    ch = min(h1, h + pads[2]) - h0
                    cw = min(w1, w + pads[3]) - w0
                    cnt = ch * cw
                else:
                    cnt = (he - hs) * (we - ws)
                y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return y.astype(np.float32)


def ref_batchnorm(x, scale, bias, mean, var, eps):
    shp = (1, -1) + (1,) * (x.ndim - 2)
    x64 = x.astype(np.float64)
    y = (x64 - mean.reshape(shp)) / np.sqrt(var.astype(np.float64).reshape(shp) + eps)
    return (y * scale.reshape(shp) + bias.reshape(shp)).astype(np.float32)


def ref_softmax(x, axis):
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True)).astype(np.float32)


def ref_softmax_opset11(x, axis):
    """opset < 13: coerce to 2-D [prod(shape[:axis]), prod(shape[axis:])]."""
    shape = x.shape
    rows = int(np.prod(shape[:axis]))
    return ref_softmax(x.reshape(rows, -1), 1).reshape(shape)


def ref_sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x.astype(np.float64)))).astype(np.float32)


def ref_relu(x):
    return np.maximum(x, 0).astype(np.float32)


def ref_gemm(a, b, c=None, alpha=1.0, beta=1.0, trans_a=False, trans_b=False):
    a64 = a.astype(np.float64).T if trans_a else a.astype(np.float64)
    b64 = b.astype(np.float64).T if trans_b else b.astype(np.float64)
    y = alpha * (a64 @ b64)
    if c is not None:
        y = y + beta * c.astype(np.float64)
    return y.astype(np.float32)


def ref_gelu(x):
    """x / 2 * (1 + erf(x / sqrt(2))) in float64, rounded once to float32."""
    d = x.astype(np.float64)
    erf = np.vectorize(math.erf)
    return (0.5 * d * (1.0 + erf(d / math.sqrt(2.0)))).astype(np.float32)


def ref_flatten(x, axis):
    rows = int(np.prod(x.shape[:axis]))
    return x.reshape(rows, -1)


# ----------------------------------------------------------------------------
# Model building / saving helpers
# ----------------------------------------------------------------------------

def tensor(name, arr):
    """Initializer / Constant value with typed fields (float_data / int64_data),
    which is far more readable than raw_data in text format."""
    arr = np.asarray(arr)
    if arr.dtype == np.float32:
        return helper.make_tensor(name, F32, arr.shape, arr.flatten().tolist())
    if arr.dtype == np.int64:
        return helper.make_tensor(name, I64, arr.shape, arr.flatten().tolist())
    raise TypeError(arr.dtype)


class Case:
    def __init__(self, name, opset=13, binary=False):
        self.name = name
        self.opset = opset
        self.binary = binary
        self.nodes = []
        self.inputs = []        # (name, array, declared shape)
        self.outputs = []       # (name, array, declared shape)
        self.inits = []

    def input(self, name, arr, shape=None):
        self.inputs.append((name, arr, list(arr.shape) if shape is None else shape))
        return name

    def init(self, name, arr):
        self.inits.append(tensor(name, arr))
        return name

    def node(self, op, inputs, outputs, name, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, **attrs))
        return outputs[0] if len(outputs) == 1 else outputs

    def output(self, name, arr, shape=None):
        self.outputs.append((name, arr, list(arr.shape) if shape is None else shape))

    def save(self):
        for _, arr, _ in self.inputs + self.outputs:
            assert arr.dtype == np.float32, (self.name, arr.dtype)
            assert np.all(np.isfinite(arr)), self.name
        graph = helper.make_graph(
            self.nodes, self.name,
            [helper.make_tensor_value_info(n, F32, s) for n, _, s in self.inputs],
            [helper.make_tensor_value_info(n, F32, s) for n, _, s in self.outputs],
            initializer=self.inits)
        model = helper.make_model(
            graph, producer_name="ember-tests", ir_version=8,
            opset_imports=[helper.make_opsetid("", self.opset)])
        onnx.checker.check_model(model, full_check=True)

        case_dir = os.path.join(OUT_DIR, self.name)
        if os.path.exists(case_dir):
            shutil.rmtree(case_dir)
        data_dir = os.path.join(case_dir, "test_data_set_0")
        os.makedirs(data_dir)
        if self.binary:
            onnx.save(model, os.path.join(case_dir, "model.onnx"))
        else:
            txt = text_format.MessageToString(model)
            # The text must parse back to the identical model.
            back = text_format.Parse(txt, onnx.ModelProto())
            assert back.SerializeToString() == model.SerializeToString(), self.name
            with open(os.path.join(case_dir, "model.onnxtxt"), "w") as f:
                f.write(txt)
        for kind, items in (("input", self.inputs), ("output", self.outputs)):
            for i, (n, arr, _) in enumerate(items):
                t = numpy_helper.from_array(np.ascontiguousarray(arr), name=n)
                with open(os.path.join(data_dir, "%s_%d.pb" % (kind, i)), "wb") as f:
                    f.write(t.SerializeToString())
        return model


def rand(rng, shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


# ----------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------

def make_cases():
    cases = []

    def new(name, **kw):
        c = Case(name, **kw)
        cases.append(c)
        return c

    # --- const_add: the seed walkthrough (no graph inputs, one dead node) ---
    c = new("const_add")
    a = np.array([1.4, 3.7, 19.2], np.float32)
    b = np.array([50.3, 10.7, 9.4], np.float32)
    c.node("Constant", [], ["a"], "const_a", value=tensor("a_value", a))
    c.node("Constant", [], ["b"], "const_b", value=tensor("b_value", b))
    c.node("Add", ["a", "b"], ["sum"], "add_live")
    c.node("Add", ["a", "a"], ["unused"], "add_dead")
    c.output("sum", (a + b).astype(np.float32))

    # --- broadcasting binary ops ---
    def binary(name, op, xs, ys, fn, seed, ylo=-1.0, yhi=1.0):
        rng = np.random.default_rng(seed)
        c = new(name)
        x = rand(rng, xs)
        y = rand(rng, ys, ylo, yhi)
        c.input("x", x)
        c.input("y", y)
        c.node(op, ["x", "y"], ["z"], op.lower() + "0")
        c.output("z", fn(x, y).astype(np.float32))

    binary("add_broadcast", "Add", [2, 3, 4], [4], np.add, 101)
    binary("sub_broadcast", "Sub", [2, 1, 4], [3, 1], np.subtract, 102)
    binary("mul_broadcast", "Mul", [2, 3, 4], [1, 3, 1], np.multiply, 103)
    binary("div_broadcast", "Div", [3, 4], [4], np.divide, 104, 0.5, 2.0)

    # --- unary activations ---
    def unary(name, op, fn, seed):
        rng = np.random.default_rng(seed)
        c = new(name)
        x = rand(rng, [2, 3, 4], -3.0, 3.0)
        c.input("x", x)
        c.node(op, ["x"], ["y"], op.lower() + "0")
        c.output("y", fn(x))

    unary("relu", "Relu", ref_relu, 201)
    unary("sigmoid", "Sigmoid", ref_sigmoid, 202)
    unary("tanh", "Tanh", lambda x: np.tanh(x.astype(np.float64)).astype(np.float32), 203)

    # --- Conv ---
    rng = np.random.default_rng(301)
    c = new("conv_basic")
    x, w, bias = rand(rng, [1, 2, 5, 5]), rand(rng, [3, 2, 3, 3]), rand(rng, [3])
    c.input("x", x)
    c.init("W", w)
    c.init("B", bias)
    c.node("Conv", ["x", "W", "B"], ["y"], "conv0", pads=[1, 1, 1, 1], strides=[1, 1],
           kernel_shape=[3, 3])
    c.output("y", ref_conv(x, w, bias, pads=(1, 1, 1, 1)))

    rng = np.random.default_rng(302)
    c = new("conv_strided_dilated")
    x, w = rand(rng, [1, 3, 9, 9]), rand(rng, [4, 3, 3, 3])
    c.input("x", x)
    c.init("W", w)
    c.node("Conv", ["x", "W"], ["y"], "conv0", strides=[2, 2], dilations=[2, 2],
           pads=[1, 0, 1, 0])
    c.output("y", ref_conv(x, w, None, pads=(1, 0, 1, 0), strides=(2, 2), dilations=(2, 2)))

    rng = np.random.default_rng(303)
    c = new("conv_group")
    x, w, bias = rand(rng, [1, 4, 6, 6]), rand(rng, [4, 2, 3, 3]), rand(rng, [4])
    c.input("x", x)
    c.init("W", w)
    c.init("B", bias)
    c.node("Conv", ["x", "W", "B"], ["y"], "conv0", group=2, pads=[0, 0, 0, 0])
    c.output("y", ref_conv(x, w, bias, group=2))

    rng = np.random.default_rng(304)
    c = new("conv_autopad_same_upper")
    x, w = rand(rng, [1, 1, 5, 6]), rand(rng, [2, 1, 3, 3])
    c.input("x", x)
    c.init("W", w)
    c.node("Conv", ["x", "W"], ["y"], "conv0", auto_pad="SAME_UPPER", strides=[2, 2],
           kernel_shape=[3, 3])
    pads = same_upper_pads([5, 6], [3, 3], [2, 2])
    assert pads == [1, 0, 1, 1], pads
    c.output("y", ref_conv(x, w, None, pads=pads, strides=(2, 2)))

    # --- conv_threaded: large enough that -threads=2 splits both convolutions over the team
    # (a part is 2^20 flops: 4.9 M and 3.3 M here), the 1x1 one through the packed GEMM, whose
    # 23 x 23 = 529 columns end in a partial tile (packed and finished through memset and
    # memcpy). The concurrency tests run it on threaded JIT code and bundles under TSan.
    # Binary: 7680 weights. The mean keeps the reference file small.
    rng = np.random.default_rng(305)
    c = new("conv_threaded", binary=True)
    x, w1, b1 = rand(rng, [1, 16, 23, 23]), rand(rng, [32, 16, 3, 3]), rand(rng, [32])
    w2 = rand(rng, [96, 32, 1, 1])
    c.input("x", x)
    c.init("W1", w1)
    c.init("B1", b1)
    c.init("W2", w2)
    c.node("Conv", ["x", "W1", "B1"], ["c1"], "conv0", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    c.node("Relu", ["c1"], ["r1"], "relu0")
    c.node("Conv", ["r1", "W2"], ["c2"], "conv1", kernel_shape=[1, 1])
    c.node("GlobalAveragePool", ["c2"], ["y"], "mean0")
    c2 = ref_conv(ref_relu(ref_conv(x, w1, b1, pads=(1, 1, 1, 1))), w2)
    c.output("y", c2.astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(np.float32))

    # --- Gemm / MatMul ---
    rng = np.random.default_rng(401)
    c = new("gemm_basic")
    x, bm, cm = rand(rng, [3, 4]), rand(rng, [4, 5]), rand(rng, [5])
    c.input("x", x)
    c.init("B", bm)
    c.init("C", cm)
    c.node("Gemm", ["x", "B", "C"], ["y"], "gemm0")
    c.output("y", ref_gemm(x, bm, cm))

    rng = np.random.default_rng(402)
    c = new("gemm_trans")
    x, bm, cm = rand(rng, [4, 3]), rand(rng, [5, 4]), rand(rng, [1, 5])
    c.input("x", x)
    c.init("B", bm)
    c.init("C", cm)
    c.node("Gemm", ["x", "B", "C"], ["y"], "gemm0", transA=1, transB=1, alpha=0.5, beta=2.0)
    c.output("y", ref_gemm(x, bm, cm, alpha=0.5, beta=2.0, trans_a=True, trans_b=True))

    for name, xs, ws, seed in (("matmul_2d", [3, 4], [4, 2], 403),
                               ("matmul_3d_2d", [2, 3, 4], [4, 5], 404)):
        rng = np.random.default_rng(seed)
        c = new(name)
        x, w = rand(rng, xs), rand(rng, ws)
        c.input("x", x)
        c.init("W", w)
        c.node("MatMul", ["x", "W"], ["y"], "matmul0")
        c.output("y", (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32))

    # --- Pooling ---
    rng = np.random.default_rng(501)
    c = new("maxpool")
    x = rand(rng, [1, 2, 6, 6])
    c.input("x", x)
    c.node("MaxPool", ["x"], ["y"], "maxpool0", kernel_shape=[2, 2], strides=[2, 2])
    c.output("y", ref_pool(x, "max", (2, 2), (2, 2)))

    rng = np.random.default_rng(502)
    c = new("maxpool_pads_strides")
    x = rand(rng, [1, 1, 7, 7])
    c.input("x", x)
    c.node("MaxPool", ["x"], ["y"], "maxpool0", kernel_shape=[3, 3], strides=[2, 2],
           pads=[1, 1, 1, 1])
    c.output("y", ref_pool(x, "max", (3, 3), (2, 2), pads=(1, 1, 1, 1)))

    rng = np.random.default_rng(503)
    c = new("maxpool_ceil")
    x = rand(rng, [1, 1, 6, 6])
    c.input("x", x)
    c.node("MaxPool", ["x"], ["y"], "maxpool0", kernel_shape=[3, 3], strides=[2, 2],
           ceil_mode=1)
    c.output("y", ref_pool(x, "max", (3, 3), (2, 2), ceil_mode=True))

    for name, cip, seed in (("averagepool", 0, 504), ("averagepool_include_pad", 1, 505)):
        rng = np.random.default_rng(seed)
        c = new(name)
        x = rand(rng, [1, 2, 6, 6])
        c.input("x", x)
        c.node("AveragePool", ["x"], ["y"], "averagepool0", kernel_shape=[3, 3],
               strides=[1, 1], pads=[1, 1, 1, 1], count_include_pad=cip)
        c.output("y", ref_pool(x, "avg", (3, 3), (1, 1), pads=(1, 1, 1, 1),
                               count_include_pad=bool(cip)))

    rng = np.random.default_rng(506)
    c = new("globalaveragepool")
    x = rand(rng, [2, 3, 4, 5])
    c.input("x", x)
    c.node("GlobalAveragePool", ["x"], ["y"], "globalaveragepool0")
    c.output("y", x.astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(np.float32))

    # --- BatchNormalization ---
    rng = np.random.default_rng(601)
    c = new("batchnorm")
    x = rand(rng, [2, 3, 4, 4])
    scale, bias, mean = rand(rng, [3], 0.5, 1.5), rand(rng, [3]), rand(rng, [3])
    var = rand(rng, [3], 0.5, 2.0)
    c.input("x", x)
    for n, v in (("scale", scale), ("B", bias), ("mean", mean), ("var", var)):
        c.init(n, v)
    c.node("BatchNormalization", ["x", "scale", "B", "mean", "var"], ["y"], "batchnorm0",
           epsilon=1e-3)
    c.output("y", ref_batchnorm(x, scale, bias, mean, var, 1e-3))

    # --- Shape manipulation ---
    for name, axis, seed in (("flatten", 2, 701), ("flatten_axis0", 0, 702)):
        rng = np.random.default_rng(seed)
        c = new(name)
        x = rand(rng, [2, 3, 4, 5])
        c.input("x", x)
        c.node("Flatten", ["x"], ["y"], "flatten0", axis=axis)
        c.output("y", ref_flatten(x, axis))

    for name, shape, expect, seed in (("reshape", [0, -1], (2, 12), 703),
                                      ("reshape_neg", [-1, 6], (4, 6), 704)):
        rng = np.random.default_rng(seed)
        c = new(name)
        x = rand(rng, [2, 3, 4])
        c.input("x", x)
        c.init("shape", np.array(shape, np.int64))
        c.node("Reshape", ["x", "shape"], ["y"], "reshape0")
        c.output("y", x.reshape(expect))

    rng = np.random.default_rng(705)
    c = new("transpose")
    x = rand(rng, [2, 3, 4])
    c.input("x", x)
    c.node("Transpose", ["x"], ["y"], "transpose0", perm=[2, 0, 1])
    c.output("y", np.ascontiguousarray(np.transpose(x, (2, 0, 1))))

    rng = np.random.default_rng(706)
    c = new("transpose_default")
    x = rand(rng, [2, 3, 4])
    c.input("x", x)
    c.node("Transpose", ["x"], ["y"], "transpose0")
    c.output("y", np.ascontiguousarray(np.transpose(x)))

    rng = np.random.default_rng(707)
    c = new("concat")
    xs = [rand(rng, [2, k, 3]) for k in (1, 2, 3)]
    for i, xi in enumerate(xs):
        c.input("x%d" % i, xi)
    c.node("Concat", ["x0", "x1", "x2"], ["y"], "concat0", axis=1)
    c.output("y", np.concatenate(xs, axis=1))

    rng = np.random.default_rng(708)
    c = new("concat_neg_axis")
    xs = [rand(rng, [2, 3]), rand(rng, [2, 2])]
    for i, xi in enumerate(xs):
        c.input("x%d" % i, xi)
    c.node("Concat", ["x0", "x1"], ["y"], "concat0", axis=-1)
    c.output("y", np.concatenate(xs, axis=-1))

    # --- Softmax, both semantics ---
    rng = np.random.default_rng(801)
    c = new("softmax13", opset=13)
    x = rand(rng, [2, 3, 4], -3.0, 3.0)
    c.input("x", x)
    c.node("Softmax", ["x"], ["y"], "softmax0", axis=1)
    c.output("y", ref_softmax(x, 1))

    rng = np.random.default_rng(802)
    c = new("softmax11", opset=11)
    x = rand(rng, [2, 3, 4], -3.0, 3.0)
    c.input("x", x)
    c.node("Softmax", ["x"], ["y"], "softmax0", axis=1)
    y11 = ref_softmax_opset11(x, 1)
    assert not np.allclose(y11, ref_softmax(x, 1))
    c.output("y", y11)

    # --- Identity / Dropout (inference) ---
    rng = np.random.default_rng(803)
    c = new("identity_dropout")
    x = rand(rng, [2, 3, 4], -3.0, 3.0)
    c.input("x", x)
    c.node("Identity", ["x"], ["x_identity"], "identity0")
    c.node("Dropout", ["x_identity"], ["x_dropout"], "dropout0")
    c.node("Relu", ["x_dropout"], ["y"], "relu0")
    c.output("y", ref_relu(x))

    # --- mlp ---
    rng = np.random.default_rng(901)
    c = new("mlp")
    x = rand(rng, [4, 8], -2.0, 2.0)
    w1, b1 = rand(rng, [16, 8], -0.5, 0.5), rand(rng, [16], -0.5, 0.5)
    w2, b2 = rand(rng, [3, 16], -0.5, 0.5), rand(rng, [3], -0.5, 0.5)
    c.input("x", x)
    for n, v in (("W1", w1), ("b1", b1), ("W2", w2), ("b2", b2)):
        c.init(n, v)
    c.node("Gemm", ["x", "W1", "b1"], ["h1"], "gemm0", transB=1)
    c.node("Relu", ["h1"], ["h1_relu"], "relu0")
    c.node("Gemm", ["h1_relu", "W2", "b2"], ["logits"], "gemm1", transB=1)
    c.node("Softmax", ["logits"], ["y"], "softmax0", axis=1)
    h = ref_relu(ref_gemm(x, w1, b1, trans_b=True))
    c.output("y", ref_softmax(ref_gemm(h, w2, b2, trans_b=True), 1))

    # --- small_cnn ---
    rng = np.random.default_rng(902)
    c = new("small_cnn")
    x = rand(rng, [1, 1, 8, 8], 0.0, 1.0)
    cw1, cb1 = rand(rng, [4, 1, 3, 3], -0.5, 0.5), rand(rng, [4], -0.1, 0.1)
    bn_s, bn_b = rand(rng, [4], 0.5, 1.5), rand(rng, [4], -0.2, 0.2)
    bn_m, bn_v = rand(rng, [4], -0.2, 0.2), rand(rng, [4], 0.5, 1.5)
    cw2, cb2 = rand(rng, [8, 4, 3, 3], -0.3, 0.3), rand(rng, [8], -0.1, 0.1)
    fw, fb = rand(rng, [10, 8], -0.5, 0.5), rand(rng, [10], -0.1, 0.1)
    c.input("x", x)
    for n, v in (("conv0_W", cw1), ("conv0_B", cb1), ("bn0_scale", bn_s), ("bn0_B", bn_b),
                 ("bn0_mean", bn_m), ("bn0_var", bn_v), ("conv1_W", cw2), ("conv1_B", cb2),
                 ("fc_W", fw), ("fc_B", fb)):
        c.init(n, v)
    c.node("Conv", ["x", "conv0_W", "conv0_B"], ["conv0_out"], "conv0", kernel_shape=[3, 3],
           pads=[1, 1, 1, 1])
    c.node("BatchNormalization", ["conv0_out", "bn0_scale", "bn0_B", "bn0_mean", "bn0_var"],
           ["bn0_out"], "bn0", epsilon=1e-5)
    c.node("Relu", ["bn0_out"], ["relu0_out"], "relu0")
    c.node("MaxPool", ["relu0_out"], ["pool0_out"], "pool0", kernel_shape=[2, 2],
           strides=[2, 2])
    c.node("Conv", ["pool0_out", "conv1_W", "conv1_B"], ["conv1_out"], "conv1",
           kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    c.node("Relu", ["conv1_out"], ["relu1_out"], "relu1")
    c.node("GlobalAveragePool", ["relu1_out"], ["gap_out"], "gap0")
    c.node("Flatten", ["gap_out"], ["flat_out"], "flatten0", axis=1)
    c.node("Gemm", ["flat_out", "fc_W", "fc_B"], ["y"], "fc0", transB=1)
    t = ref_conv(x, cw1, cb1, pads=(1, 1, 1, 1))
    t = ref_relu(ref_batchnorm(t, bn_s, bn_b, bn_m, bn_v, 1e-5))
    t = ref_pool(t, "max", (2, 2), (2, 2))
    t = ref_relu(ref_conv(t, cw2, cb2, pads=(1, 1, 1, 1)))
    t = t.astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(np.float32)
    t = ref_flatten(t, 1)
    y = ref_gemm(t, fw, fb, trans_b=True)
    assert y.shape == (1, 10)
    c.output("y", y)

    # --- conv_gelu: torch's erf GELU after a Conv; recognize-gelu and fuse-activations make it
    # one FusedConv (the worked example of docs/adding-an-operator.md) ---
    rng = np.random.default_rng(904)
    c = new("conv_gelu")
    x, w, bias = rand(rng, [1, 3, 6, 6], -2.0, 2.0), rand(rng, [4, 3, 3, 3]), rand(rng, [4])
    c.input("x", x)
    c.init("W", w)
    c.init("B", bias)
    c.init("sqrt2", np.array(math.sqrt(2.0), np.float32))
    c.init("one", np.array(1.0, np.float32))
    c.init("half", np.array(0.5, np.float32))
    c.node("Conv", ["x", "W", "B"], ["c"], "conv0", kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    c.node("Div", ["c", "sqrt2"], ["d"], "div0")
    c.node("Erf", ["d"], ["e"], "erf0")
    c.node("Add", ["e", "one"], ["a"], "add0")
    c.node("Mul", ["c", "a"], ["p"], "mul0")
    c.node("Mul", ["p", "half"], ["y"], "mul1")
    c.output("y", ref_gelu(ref_conv(x, w, bias, pads=(1, 1, 1, 1))))

    # --- symbolic_batch: dim_param "N", test data uses N=3 ---
    rng = np.random.default_rng(903)
    c = new("symbolic_batch")
    x = rand(rng, [3, 4], -2.0, 2.0)
    bias = rand(rng, [4])
    c.input("x", x, shape=["N", 4])
    c.init("bias", bias)
    c.node("Relu", ["x"], ["x_relu"], "relu0")
    c.node("Add", ["x_relu", "bias"], ["y"], "add0")
    c.output("y", (ref_relu(x) + bias).astype(np.float32), shape=["N", 4])

    return cases


# ----------------------------------------------------------------------------
# Cross-check of the numpy references against torch (when available)
# ----------------------------------------------------------------------------

def cross_check_with_torch():
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("torch not importable: skipping cross-check")
        return
    torch.set_num_threads(1)
    rng = np.random.default_rng(12345)
    T = lambda a: torch.from_numpy(a)

    def close(a, b, what):
        b = b.detach().numpy() if hasattr(b, "detach") else b
        assert a.shape == b.shape, (what, a.shape, b.shape)
        assert np.allclose(a, b, rtol=1e-5, atol=1e-5), (what, np.abs(a - b).max())

    # conv: plain, strided+dilated with (begin, end) pads, grouped, SAME_UPPER
    x, w, b = rand(rng, [1, 2, 5, 5]), rand(rng, [3, 2, 3, 3]), rand(rng, [3])
    close(ref_conv(x, w, b, pads=(1, 1, 1, 1)), F.conv2d(T(x), T(w), T(b), padding=1), "conv")
    x, w = rand(rng, [1, 3, 9, 9]), rand(rng, [4, 3, 3, 3])
    for pads in ((1, 0, 1, 0), (1, 0, 0, 2)):
        xp = F.pad(T(x), (pads[1], pads[3], pads[0], pads[2]))
        close(ref_conv(x, w, None, pads=pads, strides=(2, 2), dilations=(2, 2)),
              F.conv2d(xp, T(w), stride=2, dilation=2), "conv dilated %s" % (pads,))
    x, w, b = rand(rng, [1, 4, 6, 6]), rand(rng, [4, 2, 3, 3]), rand(rng, [4])
    close(ref_conv(x, w, b, group=2), F.conv2d(T(x), T(w), T(b), groups=2), "conv group")
    x, w = rand(rng, [1, 1, 5, 6]), rand(rng, [2, 1, 3, 3])
    p = same_upper_pads([5, 6], [3, 3], [2, 2])
    close(ref_conv(x, w, None, pads=p, strides=(2, 2)),
          F.conv2d(F.pad(T(x), (p[1], p[3], p[0], p[2])), T(w), stride=2), "conv same_upper")

    # pooling
    x = rand(rng, [1, 2, 6, 6])
    close(ref_pool(x, "max", (2, 2), (2, 2)), F.max_pool2d(T(x), 2, 2), "maxpool")
    x = rand(rng, [1, 1, 7, 7])
    close(ref_pool(x, "max", (3, 3), (2, 2), pads=(1, 1, 1, 1)),
          F.max_pool2d(T(x), 3, 2, padding=1), "maxpool pads")
    for size in (6, 7):
        x = rand(rng, [1, 1, size, size])
        close(ref_pool(x, "max", (3, 3), (2, 2), ceil_mode=True),
              F.max_pool2d(T(x), 3, 2, ceil_mode=True), "maxpool ceil %d" % size)
    x = rand(rng, [1, 2, 6, 6])
    for cip in (False, True):
        close(ref_pool(x, "avg", (3, 3), (1, 1), pads=(1, 1, 1, 1), count_include_pad=cip),
              F.avg_pool2d(T(x), 3, 1, padding=1, count_include_pad=cip), "avgpool %s" % cip)

    # batchnorm, softmax, sigmoid, gemm
    x = rand(rng, [2, 3, 4, 4])
    s, bb, m, v = rand(rng, [3]), rand(rng, [3]), rand(rng, [3]), rand(rng, [3], 0.5, 2)
    close(ref_batchnorm(x, s, bb, m, v, 1e-3),
          F.batch_norm(T(x), T(m), T(v), T(s), T(bb), training=False, eps=1e-3), "batchnorm")
    x = rand(rng, [2, 3, 4], -3, 3)
    close(ref_softmax(x, 1), F.softmax(T(x), dim=1), "softmax")
    close(ref_softmax_opset11(x, 1), F.softmax(T(x).reshape(2, 12), dim=1).reshape(2, 3, 4),
          "softmax11")
    close(ref_sigmoid(x), torch.sigmoid(T(x)), "sigmoid")
    close(ref_gelu(x), F.gelu(T(x).double()).float(), "gelu")
    a, bm, cm = rand(rng, [4, 3]), rand(rng, [5, 4]), rand(rng, [1, 5])
    close(ref_gemm(a, bm, cm, 0.5, 2.0, True, True),
          0.5 * T(a).t() @ T(bm).t() + 2.0 * T(cm), "gemm")
    print("numpy references agree with torch.nn.functional")


def main():
    cross_check_with_torch()
    os.makedirs(OUT_DIR, exist_ok=True)
    cases = make_cases()
    names = [c.name for c in cases]
    assert len(names) == len(set(names))
    for c in cases:
        c.save()
        print("wrote tests/models/%s (opset %d)" % (c.name, c.opset))
    print("%d cases" % len(cases))


if __name__ == "__main__":
    main()
