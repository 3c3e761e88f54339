#!/usr/bin/python3
"""Generate ember's small Caffe2 test nets under tests/models/caffe2/.

Each case is a folder in the layout the Caffe2 loader and the model-case harness read:

    tests/models/caffe2/<case>/predict_net.pbtxt   NetDef, protobuf text format (or predict_net.pb)
    tests/models/caffe2/<case>/init_net.pbtxt      NetDef of the weights fill ops (or init_net.pb)
    tests/models/caffe2/<case>/test_data_set_0/input_<i>.pb    ONNX TensorProto per run-time input
    tests/models/caffe2/<case>/test_data_set_0/output_<i>.pb   ONNX TensorProto per external output
    tests/models/caffe2/<case>/tolerance           (int8 cases only) absolute tolerance, one number
    tests/models/caffe2/<case>/value_info.json     (zoo_folder only) the input's type, as the zoo

predict_net.external_input lists the run-time inputs and the weight blobs (as Caffe2 zoo nets do),
except the inputs a case leaves unlisted on purpose; init_net.external_output lists the weights.
input_<i> are the run-time inputs (the external inputs init_net does not produce, in
external_input order, then the unlisted ones), each named after its blob; output_<i> follow
predict_net.external_output. The float cases use the harness default tolerance
|got - want| <= 1e-5 + 1e-4 * |want|; an int8 case's tolerance file holds one quantization step of
its (dequantized) output.

Expected outputs come from the numpy references in utils/models/caffe2_numpy.py (shared with
export_caffe2_zoo.py's check), each written from Caffe2's own CPU operator source
(pytorch/pytorch caffe2/operators/, and for the int8 family the QNNPACK kernels Caffe2 calls),
never from ember and never from another loader; each reference's docstring cites the file and
states the rule it follows. Before writing, this script cross-checks the conv, pool, FC, LRN,
BatchNorm and Softmax references against torch.nn.functional where the semantics coincide, and
the int8 helpers against values worked by hand.

The nets are written with ember's own wire-compatible schema, lib/Importer/Caffe2/caffe2.proto,
compiled at run time with protoc into a temporary folder (caffe2_numpy.caffe2_pb2(); no generated
code is checked in).

The script is deterministic (fixed seeds) and idempotent: it deletes and rewrites
tests/models/caffe2/ entirely. Run from anywhere:

    /usr/bin/python3 utils/models/make_caffe2_test_models.py
"""

import json
import os
import shutil
import sys

import numpy as np
from google.protobuf import text_format
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from caffe2_math_cases import math_cases  # noqa: E402  (cases of the element-wise ops)
from caffe2_recommendation_cases import recommendation_cases  # noqa: E402  (embedding bags)
from caffe2_numpy import (  # noqa: E402  (the numpy references, from this folder)
    CAFFE_LEGACY_POOLING, DT_BOOL, DT_FLOAT, DT_INT32, DT_UINT8, F32, SAME, VALID, caffe2_pb2,
    legacy_broadcast_sizes, pool_geometry, q_add, q_avgpool, q_conv, q_dequantize, q_dwconv, q_fc,
    q_global_avgpool, q_maxpool, q_quantize, qnnp_avgpool_requantize, qnnp_requantize,
    quantize_multiplier_smaller_than_one, ref_batch_matmul, ref_binary, ref_cast, ref_clip,
    ref_concat, ref_conv, ref_conv_transpose, ref_expand_dims, ref_fc, ref_flatten, ref_gather,
    ref_lrn, ref_matmul, ref_pool, ref_relu, ref_reshape, ref_sigmoid, ref_slice, ref_softmax,
    ref_spatial_bn, ref_split, ref_squeeze, ref_tanh, ref_tile, rounding_divide_by_pot, srdhm,
    tile_params)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(REPO, "tests", "models", "caffe2")


# ============================================================================
# Net building / saving
# ============================================================================

C2 = None  # the caffe2_pb2 module, set in main()


def make_arg(name, value):
    """Argument with the field Caffe2's ArgumentHelper reads for the value's type: i for int,
    f for float, s for str / bytes, ints / floats / strings for lists."""
    a = C2.Argument(name=name)
    if isinstance(value, (bool, int, np.integer)):
        a.i = int(value)
    elif isinstance(value, (float, np.floating)):
        a.f = float(value)
    elif isinstance(value, str):
        a.s = value.encode()
    elif isinstance(value, bytes):
        a.s = value
    elif isinstance(value, np.ndarray) and value.dtype == np.float32:
        a.floats.extend(value.flatten().tolist())
    elif isinstance(value, (list, tuple, np.ndarray)):
        vals = list(value.flatten()) if isinstance(value, np.ndarray) else list(value)
        if all(isinstance(v, (bytes, str)) for v in vals):
            a.strings.extend([v.encode() if isinstance(v, str) else v for v in vals])
        elif all(isinstance(v, (bool, int, np.integer)) for v in vals):
            a.ints.extend(int(v) for v in vals)
        else:
            a.floats.extend(float(v) for v in vals)
    else:
        raise TypeError((name, value))
    return a


class Case:
    """One test net: predict_net, init_net, run-time inputs and expected external outputs."""

    def __init__(self, name, binary=False, tolerance=None, also_text=False, value_info=None):
        self.name = name
        self.binary = binary
        self.also_text = also_text    # write the .pbtxt pair beside the binary one (the zoo's)
        self.value_info = value_info  # {blob: [DataType, [dims]]}, written as value_info.json
        self.tolerance = tolerance
        self.predict = C2.NetDef(name=name)
        self.init = C2.NetDef(name=name + "_init")
        self.inputs = []     # (blob, array)
        self.unlisted = []   # run-time inputs external_input leaves out
        self.outputs = []    # (blob, array)

    def input(self, name, arr, listed=True):
        if listed:
            self.predict.external_input.append(name)
        else:
            self.unlisted.append(name)
        self.inputs.append((name, np.ascontiguousarray(arr)))
        return name

    def _weight(self, name, op):
        self.init.op.append(op)
        self.init.external_output.append(name)
        self.predict.external_input.append(name)
        return name

    def weight(self, name, arr):
        """A weight made by the Given*Fill op that matches the array's dtype."""
        arr = np.asarray(arr)
        shape = list(arr.shape)
        if arr.dtype == np.float32:
            kind, vals = "GivenTensorFill", arr.astype(F32)
        elif arr.dtype == np.int32:
            kind, vals = "GivenTensorIntFill", [int(v) for v in arr.flatten()]
        elif arr.dtype == np.int64:
            kind, vals = "GivenTensorInt64Fill", [int(v) for v in arr.flatten()]
        elif arr.dtype == np.bool_:
            kind, vals = "GivenTensorBoolFill", [int(v) for v in arr.flatten()]
        elif arr.dtype == np.uint8:
            # One byte string, GetRepeatedArgument<string>("values") (strings field).
            kind, vals = "GivenTensorByteStringToUInt8Fill", [arr.tobytes()]
        else:
            raise TypeError(arr.dtype)
        op = C2.OperatorDef(type=kind, output=[name])
        op.arg.extend([make_arg("shape", shape), make_arg("values", vals)])
        return self._weight(name, op)

    def constant_fill(self, name, shape, value, dtype=None):
        """ConstantFill (filler_op.h): `shape`, `value` (f for float, i for the int types),
        `dtype` (default FLOAT)."""
        op = C2.OperatorDef(type="ConstantFill", output=[name])
        op.arg.append(make_arg("shape", list(shape)))
        op.arg.append(make_arg("value", value))
        if dtype is not None:
            op.arg.append(make_arg("dtype", dtype))
        return self._weight(name, op)

    def fill(self, name, kind, **args):
        """A weight made by the fill operator `kind` with the given arguments."""
        op = C2.OperatorDef(type=kind, output=[name])
        op.arg.extend(make_arg(k, v) for k, v in args.items())
        return self._weight(name, op)

    def int8_weight(self, name, q, scale, zero_point):
        """Int8GivenTensorFill (quantized/int8_given_tensor_fill_op.h): `values` one byte
        string of uint8 (GetSingleArgument<string>: the s field), `shape`, `Y_scale`,
        `Y_zero_point`."""
        op = C2.OperatorDef(type="Int8GivenTensorFill", output=[name])
        op.arg.extend([make_arg("shape", list(q.shape)), make_arg("values", q.tobytes()),
                       make_arg("Y_scale", float(scale)), make_arg("Y_zero_point", zero_point)])
        return self._weight(name, op)

    def int8_bias(self, name, b, scale, zero_point=0):
        """Int8GivenIntTensorFill: int32 `values` (ints), `shape`, `Y_scale`, `Y_zero_point`."""
        op = C2.OperatorDef(type="Int8GivenIntTensorFill", output=[name])
        op.arg.extend([make_arg("shape", list(b.shape)),
                       make_arg("values", [int(v) for v in b.flatten()]),
                       make_arg("Y_scale", float(scale)), make_arg("Y_zero_point", zero_point)])
        return self._weight(name, op)

    def op(self, kind, inputs, outputs, name=None, **args):
        o = C2.OperatorDef(type=kind, input=list(inputs), output=list(outputs))
        if name:
            o.name = name
        for k, v in args.items():
            o.arg.append(make_arg(k, v))
        self.predict.op.append(o)
        return outputs[0] if len(outputs) == 1 else outputs

    def output(self, name, arr):
        self.predict.external_output.append(name)
        # reshape: ascontiguousarray makes a scalar (SumElements' [] result) a [1].
        self.outputs.append((name, np.ascontiguousarray(arr).reshape(np.shape(arr))))

    def check(self):
        produced = set(self.init.external_output)
        runtime = [b for b in self.predict.external_input if b not in produced] + self.unlisted
        assert runtime == [n for n, _ in self.inputs], (self.name, runtime)
        assert set(self.init.external_output) <= set(self.predict.external_input), self.name
        defined = set(self.predict.external_input) | set(self.unlisted)
        for o in self.predict.op:
            for i in o.input:
                assert i in defined, (self.name, o.type, i)
            defined.update(o.output)
        for b in self.predict.external_output:
            assert b in defined, (self.name, b)
        for n, arr in self.inputs + self.outputs:
            if np.issubdtype(arr.dtype, np.floating):
                assert arr.dtype == np.float32 and np.all(np.isfinite(arr)), (self.name, n)
            assert arr.size <= 4096, (self.name, n, arr.shape)

    def save(self):
        self.check()
        case_dir = os.path.join(OUT_DIR, self.name)
        data_dir = os.path.join(case_dir, "test_data_set_0")
        os.makedirs(data_dir)
        for net, stem in ((self.predict, "predict_net"), (self.init, "init_net")):
            if self.also_text:
                with open(os.path.join(case_dir, stem + ".pbtxt"), "w") as f:
                    f.write(text_format.MessageToString(net))
            if self.binary:
                blob = net.SerializeToString()
                assert C2.NetDef.FromString(blob) == net
                with open(os.path.join(case_dir, stem + ".pb"), "wb") as f:
                    f.write(blob)
            else:
                txt = text_format.MessageToString(net)
                back = text_format.Parse(txt, C2.NetDef())
                assert back.SerializeToString() == net.SerializeToString(), self.name
                with open(os.path.join(case_dir, stem + ".pbtxt"), "w") as f:
                    f.write(txt)
        for kind, items in (("input", self.inputs), ("output", self.outputs)):
            for i, (n, arr) in enumerate(items):
                t = numpy_helper.from_array(arr, name=n)
                with open(os.path.join(data_dir, "%s_%d.pb" % (kind, i)), "wb") as f:
                    f.write(t.SerializeToString())
        if self.value_info is not None:
            with open(os.path.join(case_dir, "value_info.json"), "w") as f:
                json.dump(self.value_info, f)
                f.write("\n")
        if self.tolerance is not None:
            with open(os.path.join(case_dir, "tolerance"), "w") as f:
                f.write(repr(float(self.tolerance)) + "\n")


def rand(rng, shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(F32)


def rand_on_grid(rng, shape, scale, zero_point, lo=5, hi=250):
    """Floats that Int8Quantize maps unambiguously: (q - zp + u) * scale, |u| <= 0.35."""
    q = rng.integers(lo, hi + 1, size=shape)
    u = rng.uniform(-0.35, 0.35, size=shape)
    return ((q - zero_point + u) * scale).astype(F32)


# ============================================================================
# Cases
# ============================================================================

def conv_cases(new):
    # --- conv_net (binary): Conv with kernel/stride/pad + bias, Relu in place, MaxPool,
    # Dropout in place with its (unused; not written when is_test) mask, FC over the
    # flattened map, Softmax. Zoo-net shaped.
    rng = np.random.default_rng(1001)
    c = new("conv_net", binary=True)
    x = rand(rng, [2, 3, 8, 8])
    w, b = rand(rng, [4, 3, 3, 3], -0.5, 0.5), rand(rng, [4], -0.2, 0.2)
    fw, fb = rand(rng, [5, 4 * 4 * 4], -0.2, 0.2), rand(rng, [5], -0.1, 0.1)
    c.input("data", x)
    c.weight("conv1_w", w)
    c.weight("conv1_b", b)
    c.weight("fc_w", fw)
    c.weight("fc_b", fb)
    c.op("Conv", ["data", "conv1_w", "conv1_b"], ["conv1"], kernel=3, stride=1, pad=1)
    c.op("Relu", ["conv1"], ["conv1"])
    c.op("MaxPool", ["conv1"], ["pool1"], kernel=2, stride=2)
    c.op("Dropout", ["pool1"], ["pool1", "_pool1_mask"], is_test=1, ratio=0.5)
    c.op("FC", ["pool1", "fc_w", "fc_b"], ["fc"])
    c.op("Softmax", ["fc"], ["prob"])
    t = ref_relu(ref_conv(x, w, b, kernel=(3, 3), pads=(1, 1, 1, 1)))
    # conv1 is rewritten in place by the Relu: the external output is its last value.
    c.output("conv1", t)
    t = ref_pool(t, "max", (2, 2), (2, 2))
    c.output("prob", ref_softmax(ref_fc(t, fw, fb)))

    # --- conv_kernels_list: kernels / strides / pads (asymmetric [t, l, b, r]) / dilations,
    # no bias.
    rng = np.random.default_rng(1002)
    c = new("conv_kernels_list")
    x, w = rand(rng, [1, 3, 9, 10]), rand(rng, [4, 3, 3, 2])
    c.input("X", x)
    c.weight("W", w)
    c.op("Conv", ["X", "W"], ["Y"], kernels=[3, 2], strides=[2, 1], pads=[1, 0, 2, 1],
         dilations=[2, 1])
    y = ref_conv(x, w, None, (3, 2), (2, 1), (1, 0, 2, 1), (2, 1))
    c.output("Y", y)

    # --- conv_hw_args: kernel_h/kernel_w, stride_h/stride_w, pad_t/pad_l/pad_b/pad_r,
    # `dilation`, bias.
    rng = np.random.default_rng(1003)
    c = new("conv_hw_args")
    x, w, b = rand(rng, [2, 2, 7, 8]), rand(rng, [3, 2, 2, 3]), rand(rng, [3])
    c.input("X", x)
    c.weight("W", w)
    c.weight("B", b)
    c.op("Conv", ["X", "W", "B"], ["Y"], kernel_h=2, kernel_w=3, stride_h=1, stride_w=2,
         pad_t=0, pad_l=2, pad_b=1, pad_r=0, dilation=2)
    c.output("Y", ref_conv(x, w, b, (2, 3), (1, 2), (0, 2, 1, 0), (2, 2)))

    # --- conv_group: group = 2, NCHW, bias.
    rng = np.random.default_rng(1004)
    c = new("conv_group")
    x, w, b = rand(rng, [1, 4, 6, 6]), rand(rng, [6, 2, 3, 3]), rand(rng, [6])
    c.input("X", x)
    c.weight("W", w)
    c.weight("B", b)
    c.op("Conv", ["X", "W", "B"], ["Y"], kernel=3, pad=1, group=2)
    c.output("Y", ref_conv(x, w, b, (3, 3), pads=(1, 1, 1, 1), group=2))

    # --- conv_nhwc: order NHWC (X NHWC, filter [M, kH, kW, C], Y NHWC), stride 2, pads, bias.
    rng = np.random.default_rng(1005)
    c = new("conv_nhwc")
    x, w, b = rand(rng, [2, 7, 6, 3]), rand(rng, [4, 3, 3, 3]), rand(rng, [4])
    c.input("X", x)
    c.weight("W", w)
    c.weight("B", b)
    c.op("Conv", ["X", "W", "B"], ["Y"], kernel=3, stride=2, pads=[1, 0, 1, 1], order="NHWC")
    c.output("Y", ref_conv(x, w, b, (3, 3), (2, 2), (1, 0, 1, 1), order="NHWC"))

    # --- conv_nhwc_group: NHWC with group = 2 (filter [M, kH, kW, C/group]), no bias.
    rng = np.random.default_rng(1006)
    c = new("conv_nhwc_group")
    x, w = rand(rng, [1, 5, 5, 4]), rand(rng, [6, 2, 2, 2])
    c.input("X", x)
    c.weight("W", w)
    c.op("Conv", ["X", "W"], ["Y"], kernel=2, group=2, order="NHWC")
    c.output("Y", ref_conv(x, w, None, (2, 2), group=2, order="NHWC"))

    # --- conv_legacy_pad: legacy_pad VALID (1) and SAME (2), stride 2, sizes where SAME's
    # odd total pad goes to the tail (H 6: pad 0/1) and an even one splits (W 7: 1/1).
    rng = np.random.default_rng(1007)
    c = new("conv_legacy_pad")
    x = rand(rng, [1, 2, 6, 7])
    w1, w2, b2 = rand(rng, [3, 2, 3, 3]), rand(rng, [3, 2, 3, 3]), rand(rng, [3])
    c.input("X", x)
    c.weight("W_valid", w1)
    c.weight("W_same", w2)
    c.weight("B_same", b2)
    c.op("Conv", ["X", "W_valid"], ["Y_valid"], kernel=3, stride=2, legacy_pad=VALID)
    c.op("Conv", ["X", "W_same", "B_same"], ["Y_same"], kernel=3, stride=2, legacy_pad=SAME)
    yv = ref_conv(x, w1, None, (3, 3), (2, 2), legacy_pad=VALID)
    ys = ref_conv(x, w2, b2, (3, 3), (2, 2), legacy_pad=SAME)
    assert yv.shape == (1, 3, 2, 3) and ys.shape == (1, 3, 3, 4)
    assert pool_geometry((6, 7), (3, 3), (2, 2), (0, 0, 0, 0), SAME)[1] == (0, 1, 1, 1)
    c.output("Y_valid", yv)
    c.output("Y_same", ys)

    # --- conv_transpose: NCHW, filter [C_in, M, kH, kW], stride 2, asymmetric pads, adj 1.
    rng = np.random.default_rng(1008)
    c = new("conv_transpose")
    x, w, b = rand(rng, [1, 3, 4, 5]), rand(rng, [3, 2, 3, 3]), rand(rng, [2])
    c.input("X", x)
    c.weight("W", w)
    c.weight("B", b)
    c.op("ConvTranspose", ["X", "W", "B"], ["Y"], kernel=3, stride=2, pads=[1, 0, 0, 1],
         adj=1)
    y = ref_conv_transpose(x, w, b, (2, 2), (1, 0, 0, 1), (1, 1))
    assert y.shape == (1, 2, 3 * 2 + 3 + 1 - 1, 4 * 2 + 3 + 1 - 1)
    c.output("Y", y)

    # --- conv_transpose_nhwc: order NHWC (X [N, H, W, C_in], filter [C_in, kH, kW, M],
    # Y NHWC) with kernel_h/_w, stride_h/_w, pad_t/_l/_b/_r and adj_h/adj_w, bias.
    rng = np.random.default_rng(1009)
    c = new("conv_transpose_nhwc")
    x, w, b = rand(rng, [2, 3, 4, 3]), rand(rng, [3, 3, 2, 4]), rand(rng, [4])
    c.input("X", x)
    c.weight("W", w)
    c.weight("B", b)
    c.op("ConvTranspose", ["X", "W", "B"], ["Y"], kernel_h=3, kernel_w=2, stride_h=2,
         stride_w=3, pad_t=1, pad_l=0, pad_b=2, pad_r=1, adj_h=1, adj_w=2, order="NHWC")
    y = ref_conv_transpose(x, w, b, (2, 3), (1, 0, 2, 1), (1, 2), order="NHWC")
    assert y.shape == (2, 2 * 2 + 3 + 1 - 3, 3 * 3 + 2 + 2 - 1, 4)
    c.output("Y", y)

    # --- conv_transpose_group: group = 2 in NCHW (filter [C_in, M/2, kH, kW], bias) and
    # group = 3 in NHWC (filter [C_in, kH, kW, M/3], no bias: the newest source makes the bias
    # input optional), both supported by conv_transpose_op_impl.h's CPU op.
    rng = np.random.default_rng(1010)
    c = new("conv_transpose_group")
    x, w, b = rand(rng, [1, 4, 3, 4]), rand(rng, [4, 3, 3, 3]), rand(rng, [6])
    xh, wh = rand(rng, [2, 3, 3, 6]), rand(rng, [6, 2, 2, 1])
    c.input("X", x)
    c.input("X_nhwc", xh)
    c.weight("W", w)
    c.weight("B", b)
    c.weight("W_nhwc", wh)
    c.op("ConvTranspose", ["X", "W", "B"], ["Y"], kernel=3, stride=2, pad=1, group=2)
    c.op("ConvTranspose", ["X_nhwc", "W_nhwc"], ["Y_nhwc"], kernels=[2, 2], strides=[1, 2],
         group=3, order="NHWC")
    y = ref_conv_transpose(x, w, b, (2, 2), (1, 1, 1, 1), group=2)
    assert y.shape == (1, 6, 5, 7)
    c.output("Y", y)
    y = ref_conv_transpose(xh, wh, None, (1, 2), group=3, order="NHWC")
    assert y.shape == (2, 4, 6, 3)
    c.output("Y_nhwc", y)

    # --- conv_transpose_legacy_pad: legacy_pad VALID and SAME. conv_transpose_unpool_op_base.h
    # handles both alike: pads 0 and out = (in - 1) * stride + kernel + adj (no SAME cropping).
    rng = np.random.default_rng(1011)
    c = new("conv_transpose_legacy_pad")
    x = rand(rng, [1, 2, 3, 4])
    w1, b1 = rand(rng, [2, 3, 3, 3]), rand(rng, [3])
    w2, b2 = rand(rng, [2, 2, 3, 2]), rand(rng, [2])
    c.input("X", x)
    c.weight("W_valid", w1)
    c.weight("B_valid", b1)
    c.weight("W_same", w2)
    c.weight("B_same", b2)
    c.op("ConvTranspose", ["X", "W_valid", "B_valid"], ["Y_valid"], kernel=3, stride=2, adj=1,
         legacy_pad=VALID)
    c.op("ConvTranspose", ["X", "W_same", "B_same"], ["Y_same"], kernels=[3, 2], strides=[2, 2],
         adjs=[0, 1], legacy_pad=SAME)
    yv = ref_conv_transpose(x, w1, b1, (2, 2), adj=(1, 1), legacy_pad=VALID)
    ys = ref_conv_transpose(x, w2, b2, (2, 2), adj=(0, 1), legacy_pad=SAME)
    assert yv.shape == (1, 3, 8, 10) and ys.shape == (1, 2, 7, 9)
    c.output("Y_valid", yv)
    c.output("Y_same", ys)

    # --- conv_transpose_adj_stride: adj equal to the stride (the constructor enforces only
    # 0 <= adj <= stride): the last `adj` rows / columns hold the bias alone.
    rng = np.random.default_rng(1012)
    c = new("conv_transpose_adj_stride")
    x, w, b = rand(rng, [1, 2, 3, 3]), rand(rng, [2, 2, 2, 2]), rand(rng, [2])
    c.input("X", x)
    c.weight("W", w)
    c.weight("B", b)
    c.op("ConvTranspose", ["X", "W", "B"], ["Y"], kernel=2, stride=2, adj=2, pads=[0, 1, 0, 0])
    y = ref_conv_transpose(x, w, b, (2, 2), (0, 1, 0, 0), (2, 2))
    assert y.shape == (1, 2, 8, 7)
    assert np.allclose(y[0, :, 6:, :], b.reshape(2, 1, 1))
    c.output("Y", y)


def pool_cases(new):
    # --- maxpool_args: `kernel` + `stride` (no pad), and kernel_h/_w, stride_h/_w,
    # pad_t/_l/_b/_r.
    rng = np.random.default_rng(2001)
    c = new("maxpool_args")
    x = rand(rng, [2, 3, 7, 8])
    c.input("X", x)
    c.op("MaxPool", ["X"], ["Y0"], kernel=3, stride=2)
    c.op("MaxPool", ["X"], ["Y1"], kernel_h=2, kernel_w=3, stride_h=1, stride_w=2,
         pad_t=1, pad_l=0, pad_b=0, pad_r=2)
    c.output("Y0", ref_pool(x, "max", (3, 3), (2, 2)))
    c.output("Y1", ref_pool(x, "max", (2, 3), (1, 2), (1, 0, 0, 2)))

    # --- avgpool_pads: kernels / strides / pads; count_include_pad unset (false: the divisor
    # is the clipped window) and count_include_pad=1 (divisor kernel_h * kernel_w).
    rng = np.random.default_rng(2002)
    c = new("avgpool_pads")
    x = rand(rng, [1, 2, 6, 7])
    c.input("X", x)
    c.op("AveragePool", ["X"], ["Y_excl"], kernels=[3, 3], strides=[2, 2], pads=[1, 1, 1, 2])
    c.op("AveragePool", ["X"], ["Y_incl"], kernels=[3, 3], strides=[2, 2], pads=[1, 1, 1, 2],
         count_include_pad=1)
    c.output("Y_excl", ref_pool(x, "avg", (3, 3), (2, 2), (1, 1, 1, 2)))
    c.output("Y_incl", ref_pool(x, "avg", (3, 3), (2, 2), (1, 1, 1, 2),
                                count_include_pad=True))

    # --- global_pool: global_pooling=1 for MaxPool and AveragePool (NCHW).
    rng = np.random.default_rng(2003)
    c = new("global_pool")
    x = rand(rng, [2, 3, 5, 4])
    c.input("X", x)
    c.op("MaxPool", ["X"], ["Y_max"], global_pooling=1)
    c.op("AveragePool", ["X"], ["Y_avg"], global_pooling=1)
    c.output("Y_max", ref_pool(x, "max", global_pooling=True))
    c.output("Y_avg", ref_pool(x, "avg", global_pooling=True))

    # --- pool_legacy_caffe: legacy_pad=3 (CAFFE_LEGACY_POOLING), kernel 3, stride 2, pad 1 on
    # H 6 (ceil size 4 > floor 3, pad_tail 3) and W 7 (4 either way, pad_tail 1); the last row
    # window is clipped to one input row. Max, average (default: clipped count) and average
    # with count_include_pad=1 (Caffe2 divides by the full 9 even there).
    rng = np.random.default_rng(2004)
    c = new("pool_legacy_caffe")
    x = rand(rng, [1, 2, 6, 7])
    c.input("X", x)
    kw = dict(kernel=3, stride=2, pad=1, legacy_pad=CAFFE_LEGACY_POOLING)
    c.op("MaxPool", ["X"], ["Y_max"], **kw)
    c.op("AveragePool", ["X"], ["Y_avg"], **kw)
    c.op("AveragePool", ["X"], ["Y_avg_incl"], count_include_pad=1, **kw)
    geo = pool_geometry((6, 7), (3, 3), (2, 2), (1, 1, 1, 1), CAFFE_LEGACY_POOLING)
    assert geo == ((4, 4), (1, 1, 3, 1)), geo
    lp = dict(pads=(1, 1, 1, 1), legacy_pad=CAFFE_LEGACY_POOLING)
    c.output("Y_max", ref_pool(x, "max", (3, 3), (2, 2), **lp))
    c.output("Y_avg", ref_pool(x, "avg", (3, 3), (2, 2), **lp))
    c.output("Y_avg_incl", ref_pool(x, "avg", (3, 3), (2, 2), count_include_pad=True, **lp))

    # --- pool_nhwc: MaxPool and AveragePool with order NHWC and padding.
    rng = np.random.default_rng(2005)
    c = new("pool_nhwc")
    x = rand(rng, [2, 6, 5, 3])
    c.input("X", x)
    c.op("MaxPool", ["X"], ["Y_max"], kernel=3, stride=2, pad=1, order="NHWC")
    c.op("AveragePool", ["X"], ["Y_avg"], kernel=2, stride=1, pads=[1, 0, 0, 1], order="NHWC")
    c.output("Y_max", ref_pool(x, "max", (3, 3), (2, 2), (1, 1, 1, 1), order="NHWC"))
    c.output("Y_avg", ref_pool(x, "avg", (2, 2), (1, 1), (1, 0, 0, 1), order="NHWC"))


def activation_cases(new):
    # --- activations: Relu, Sigmoid, Tanh, Clip (min, max), Copy, Alias.
    rng = np.random.default_rng(3001)
    c = new("activations")
    x = rand(rng, [2, 3, 4], -3.0, 3.0)
    c.input("X", x)
    c.op("Relu", ["X"], ["Y_relu"])
    c.op("Sigmoid", ["X"], ["Y_sigmoid"])
    c.op("Tanh", ["X"], ["Y_tanh"])
    c.op("Clip", ["X"], ["Y_clip"], min=-0.5, max=1.25)
    c.op("Copy", ["X"], ["X_copy"])
    c.op("Alias", ["X_copy"], ["X_alias"])
    c.op("Clip", ["X_alias"], ["Y_clip_min"], min=0.25)
    for n, v in (("Y_relu", ref_relu(x)), ("Y_sigmoid", ref_sigmoid(x)),
                 ("Y_tanh", ref_tanh(x)), ("Y_clip", ref_clip(x, -0.5, 1.25)),
                 ("Y_clip_min", ref_clip(x, 0.25))):
        c.output(n, v)

    # --- softmax: default axis 1 on a 4-D input (coerced to [N, C*H*W]) and axis=2.
    rng = np.random.default_rng(3002)
    c = new("softmax")
    x = rand(rng, [2, 3, 2, 4], -3.0, 3.0)
    c.input("X", x)
    c.op("Softmax", ["X"], ["Y_axis1"])
    c.op("Softmax", ["X"], ["Y_axis2"], axis=2)
    y1 = ref_softmax(x, 1)
    assert np.allclose(y1.reshape(2, -1).sum(axis=1), 1.0, atol=1e-5)
    c.output("Y_axis1", y1)
    c.output("Y_axis2", ref_softmax(x, 2))

    # --- spatial_bn: SpatialBN is_test=1, NCHW with epsilon, NHWC with the default epsilon.
    rng = np.random.default_rng(3003)
    c = new("spatial_bn")
    x = rand(rng, [2, 3, 4, 5])
    xh = rand(rng, [2, 4, 5, 3])
    s, b, m = rand(rng, [3], 0.5, 1.5), rand(rng, [3]), rand(rng, [3])
    v = rand(rng, [3], 0.2, 2.0)
    c.input("X", x)
    c.input("X_nhwc", xh)
    for n, a in (("scale", s), ("bias", b), ("mean", m), ("var", v)):
        c.weight(n, a)
    c.op("SpatialBN", ["X", "scale", "bias", "mean", "var"], ["Y"], is_test=1, epsilon=1e-3)
    c.op("SpatialBN", ["X_nhwc", "scale", "bias", "mean", "var"], ["Y_nhwc"], is_test=1,
         order="NHWC")
    c.output("Y", ref_spatial_bn(x, s, b, m, v, 1e-3))
    c.output("Y_nhwc", ref_spatial_bn(xh, s, b, m, v, 1e-5, order="NHWC"))

    # --- lrn: LRN NCHW size 5 with the zoo's second (scale) output left unused, and NHWC
    # size 3 with the default bias.
    rng = np.random.default_rng(3004)
    c = new("lrn")
    x = rand(rng, [2, 7, 3, 3], -2.0, 2.0)
    xh = rand(rng, [1, 3, 2, 6], -2.0, 2.0)
    c.input("X", x)
    c.input("X_nhwc", xh)
    c.op("LRN", ["X"], ["Y", "_Y_scale"], size=5, alpha=0.0004, beta=0.75, bias=2.0)
    c.op("LRN", ["X_nhwc"], ["Y_nhwc"], size=3, alpha=0.3, beta=0.5, order="NHWC")
    c.output("Y", ref_lrn(x, 5, 0.0004, 0.75, 2.0))
    c.output("Y_nhwc", ref_lrn(xh, 3, 0.3, 0.5, 1.0, order="NHWC"))


def matmul_cases(new):
    # --- fc (binary): FC default axis on a 4-D input (K = C*H*W), W [N, K]; the first
    # external_input entry is a weight, so run-time inputs are not simply a prefix.
    rng = np.random.default_rng(4001)
    c = new("fc", binary=True)
    x = rand(rng, [3, 2, 2, 3])
    w, b = rand(rng, [5, 12]), rand(rng, [5])
    c.weight("W", w)
    c.input("X", x)
    c.weight("B", b)
    c.op("FC", ["X", "W", "B"], ["Y"])
    c.output("Y", ref_fc(x, w, b))

    # --- fc_axis: FC with axis=2 and axis_w=2 (W [2, 3, K] -> N = 6), and FCTransposed with
    # W [K, 2, 3] and the default axis_w=1 (N = 6).
    rng = np.random.default_rng(4002)
    c = new("fc_axis")
    x = rand(rng, [2, 3, 2, 2])
    w1, b1 = rand(rng, [2, 3, 4]), rand(rng, [6])
    w2, b2 = rand(rng, [12, 2, 3]), rand(rng, [6])
    c.input("X", x)
    c.weight("W_fc", w1)
    c.weight("B_fc", b1)
    c.weight("W_fct", w2)
    c.weight("B_fct", b2)
    c.op("FC", ["X", "W_fc", "B_fc"], ["Y_fc"], axis=2, axis_w=2)
    c.op("FCTransposed", ["X", "W_fct", "B_fct"], ["Y_fct"])
    y1 = ref_fc(x, w1, b1, axis=2, axis_w=2)
    assert y1.shape == (2, 3, 6)
    c.output("Y_fc", y1)
    c.output("Y_fct", ref_fc(x, w2, b2, transposed=True))

    # --- matmul: MatMul trans_a + trans_b on 2-D inputs; axis_a / axis_b coercion of 3-D
    # inputs to 2-D.
    rng = np.random.default_rng(4003)
    c = new("matmul")
    a, b = rand(rng, [4, 3]), rand(rng, [5, 4])
    a3, b3 = rand(rng, [2, 3, 4]), rand(rng, [3, 4, 5])
    c.input("A", a)
    c.input("B", b)
    c.input("A3", a3)
    c.weight("B3", b3)
    c.op("MatMul", ["A", "B"], ["Y_trans"], trans_a=1, trans_b=1)
    c.op("MatMul", ["A3", "B3"], ["Y_axis"], axis_a=1, axis_b=2)
    c.output("Y_trans", ref_matmul(a, b, trans_a=True, trans_b=True))
    y = ref_matmul(a3, b3, axis_a=1, axis_b=2)
    assert y.shape == (2, 5)
    c.output("Y_axis", y)

    # --- batch_matmul: BatchMatMul with trans_a / trans_b on equal-rank inputs, and
    # broadcast=1 with a lower-rank B.
    rng = np.random.default_rng(4004)
    c = new("batch_matmul")
    a, b = rand(rng, [2, 4, 3]), rand(rng, [2, 5, 4])
    a4, b3 = rand(rng, [2, 3, 4, 5]), rand(rng, [3, 5, 2])
    c.input("A", a)
    c.input("B", b)
    c.input("A4", a4)
    c.input("B3", b3)
    c.op("BatchMatMul", ["A", "B"], ["Y_trans"], trans_a=1, trans_b=1)
    c.op("BatchMatMul", ["A4", "B3"], ["Y_bcast"], broadcast=1)
    c.output("Y_trans", ref_batch_matmul(a, b, True, True))
    c.output("Y_bcast", ref_batch_matmul(a4, b3, broadcast=True))

    # --- batch_matmul_vec: 1-D operands (broadcast=1 set, though the newest source does not
    # consult it for them): vector x batched matrix, with trans_b, and with a 2-D B (Gemv);
    # batched matrix x vector, and trans_a on square matrices; trans_a on a 1-D A is ignored.
    rng = np.random.default_rng(4005)
    c = new("batch_matmul_vec")
    v4, v3 = rand(rng, [4]), rand(rng, [3])
    b3, b3t, b2 = rand(rng, [2, 4, 3]), rand(rng, [2, 3, 4]), rand(rng, [4, 5])
    a3, a3sq = rand(rng, [2, 3, 4]), rand(rng, [2, 3, 3])
    for n, v in (("V4", v4), ("V3", v3), ("B3", b3), ("B3t", b3t), ("B2", b2), ("A3", a3),
                 ("A3sq", a3sq)):
        c.input(n, v)
    c.op("BatchMatMul", ["V4", "B3"], ["Y_vm"], broadcast=1)
    c.op("BatchMatMul", ["V4", "B3t"], ["Y_vm_tb"], trans_b=1, broadcast=1)
    c.op("BatchMatMul", ["V4", "B2"], ["Y_vm2"], trans_a=1, broadcast=1)
    c.op("BatchMatMul", ["A3", "V4"], ["Y_mv"], broadcast=1)
    c.op("BatchMatMul", ["A3sq", "V3"], ["Y_mv_ta"], trans_a=1, broadcast=1)
    for n, y, shape in (("Y_vm", ref_batch_matmul(v4, b3, broadcast=True), (2, 3)),
                        ("Y_vm_tb", ref_batch_matmul(v4, b3t, trans_b=True, broadcast=True),
                         (2, 3)),
                        ("Y_vm2", ref_batch_matmul(v4, b2, trans_a=True, broadcast=True), (5,)),
                        ("Y_mv", ref_batch_matmul(a3, v4, broadcast=True), (2, 3)),
                        ("Y_mv_ta", ref_batch_matmul(a3sq, v3, trans_a=True, broadcast=True),
                         (2, 3))):
        assert y.shape == shape, (n, y.shape)
        c.output(n, y)

    # --- batch_matmul_dot: two 1-D operands: a dot product whose output has shape [1].
    rng = np.random.default_rng(4006)
    c = new("batch_matmul_dot")
    a, b = rand(rng, [6]), rand(rng, [6])
    c.input("A", a)
    c.input("B", b)
    c.op("BatchMatMul", ["A", "B"], ["Y"], broadcast=1)
    y = ref_batch_matmul(a, b, broadcast=True)
    assert y.shape == (1,)
    c.output("Y", y)

    # --- batch_matmul_bcast1: broadcast=1 with size-1 batch dims on either side
    # (ComputeBroadcastBinaryOpDims: numpy rules), with trans_a / trans_b.
    rng = np.random.default_rng(4007)
    c = new("batch_matmul_bcast1")
    a4, b3 = rand(rng, [2, 1, 3, 4]), rand(rng, [3, 4, 2])
    p4, q4 = rand(rng, [1, 3, 4, 2]), rand(rng, [2, 1, 5, 4])
    c.input("A", a4)
    c.input("B", b3)
    c.input("P", p4)
    c.input("Q", q4)
    c.op("BatchMatMul", ["A", "B"], ["Y"], broadcast=1)
    c.op("BatchMatMul", ["P", "Q"], ["Y_trans"], trans_a=1, trans_b=1, broadcast=1)
    y = ref_batch_matmul(a4, b3, broadcast=True)
    assert y.shape == (2, 3, 3, 2)
    c.output("Y", y)
    y = ref_batch_matmul(p4, q4, True, True, broadcast=True)
    assert y.shape == (2, 3, 2, 5)
    c.output("Y_trans", y)

    # --- batch_matmul_nobcast: no `broadcast` argument where the newest source needs none: a
    # 1-D operand, and ranks 2 and 3 whose batch dims pad to the same [1].
    rng = np.random.default_rng(4008)
    c = new("batch_matmul_nobcast")
    a2, b3, v = rand(rng, [3, 4]), rand(rng, [1, 4, 5]), rand(rng, [5])
    c.input("A", a2)
    c.input("B", b3)
    c.input("V", v)
    c.op("BatchMatMul", ["A", "B"], ["Y_pad"])
    c.op("BatchMatMul", ["B", "V"], ["Y_vec"])
    y = ref_batch_matmul(a2, b3)
    assert y.shape == (1, 3, 5)
    c.output("Y_pad", y)
    y = ref_batch_matmul(b3, v)
    assert y.shape == (1, 4)
    c.output("Y_vec", y)


def elementwise_cases(new):
    # --- eltwise_legacy_broadcast: broadcast=1 with the default axis (trailing alignment),
    # with axis=1, a B with leading/trailing 1s, and a [1] scalar-like B.
    rng = np.random.default_rng(5001)
    c = new("eltwise_legacy_broadcast")
    a = rand(rng, [2, 3, 4, 5])
    b_tail, b_mid = rand(rng, [4, 5]), rand(rng, [3, 4])
    b_chan, b_ones = rand(rng, [3], 0.5, 2.0), rand(rng, [1, 4, 1])
    b_scalar = rand(rng, [1])
    c.input("A", a)
    c.weight("B_tail", b_tail)
    c.weight("B_mid", b_mid)
    c.weight("B_chan", b_chan)
    c.weight("B_ones", b_ones)
    c.weight("B_scalar", b_scalar)
    c.op("Add", ["A", "B_tail"], ["Y_add"], broadcast=1)
    c.op("Mul", ["A", "B_mid"], ["Y_mul"], broadcast=1, axis=1)
    c.op("Div", ["A", "B_chan"], ["Y_div"], broadcast=1, axis=1)
    c.op("Sub", ["A", "B_ones"], ["Y_sub"], broadcast=1, axis=1)
    c.op("Mul", ["A", "B_scalar"], ["Y_scalar"], broadcast=1)
    c.output("Y_add", ref_binary(np.add, a, b_tail, True))
    c.output("Y_mul", ref_binary(np.multiply, a, b_mid, True, 1))
    c.output("Y_div", ref_binary(np.divide, a, b_chan, True, 1))
    assert legacy_broadcast_sizes(a.shape, b_ones.shape, 1) == (6, 4, 5)
    c.output("Y_sub", ref_binary(np.subtract, a, b_ones, True, 1))
    c.output("Y_scalar", ref_binary(np.multiply, a, b_scalar, True))

    # --- eltwise_numpy_broadcast: no `broadcast` argument, shapes differ both ways.
    rng = np.random.default_rng(5002)
    c = new("eltwise_numpy_broadcast")
    x, y = rand(rng, [2, 3, 4]), rand(rng, [3, 1])
    p, q = rand(rng, [2, 1, 4]), rand(rng, [3, 1], 0.5, 2.0)
    c.input("X", x)
    c.input("Y", y)
    c.input("P", p)
    c.input("Q", q)
    c.op("Add", ["X", "Y"], ["Z_add"])
    c.op("Sub", ["Y", "P"], ["Z_sub"])
    c.op("Mul", ["P", "X"], ["Z_mul"])
    c.op("Div", ["P", "Q"], ["Z_div"])
    c.output("Z_add", ref_binary(np.add, x, y))
    c.output("Z_sub", ref_binary(np.subtract, y, p))
    c.output("Z_mul", ref_binary(np.multiply, p, x))
    c.output("Z_div", ref_binary(np.divide, p, q))

    # --- sum: Sum of three same-shape inputs (utility_ops.h SumOp: no broadcasting) and of one.
    rng = np.random.default_rng(5003)
    c = new("sum")
    xs = [rand(rng, [2, 3, 4]) for _ in range(3)]
    for i, xi in enumerate(xs):
        c.input("X%d" % i, xi)
    c.op("Sum", ["X0", "X1", "X2"], ["Y"])
    c.op("Sum", ["X1"], ["Y_one"])
    c.output("Y", (xs[0].astype(np.float64) + xs[1] + xs[2]).astype(F32))
    c.output("Y_one", xs[1])


def shape_cases(new):
    # --- concat: axis=1 with split_info, order=NHWC (axis 3), add_axis=1, negative axis, and
    # no axis/order at all (NCHW default: axis 1).
    rng = np.random.default_rng(6001)
    c = new("concat")
    a, b = rand(rng, [2, 1, 3]), rand(rng, [2, 3, 3])
    p, q = rand(rng, [1, 2, 2, 3]), rand(rng, [1, 2, 2, 1])
    s = [rand(rng, [2, 3]) for _ in range(3)]
    for n, v in (("A", a), ("B", b), ("P", p), ("Q", q), ("S0", s[0]), ("S1", s[1]),
                 ("S2", s[2])):
        c.input(n, v)
    c.op("Concat", ["A", "B"], ["Y_axis1", "Y_axis1_split_info"], axis=1)
    c.op("Concat", ["P", "Q"], ["Y_nhwc", "_Y_nhwc_split_info"], order="NHWC")
    c.op("Concat", ["S0", "S1", "S2"], ["Y_stack", "Y_stack_split_info"], axis=1, add_axis=1)
    c.op("Concat", ["S0", "S2"], ["Y_neg", "_Y_neg_split_info"], axis=-1)
    c.op("Concat", ["A", "B", "A"], ["Y_default", "_Y_default_split_info"])
    y, si = ref_concat([a, b], axis=1)
    c.output("Y_axis1", y)
    c.output("Y_axis1_split_info", si)
    c.output("Y_nhwc", ref_concat([p, q], order="NHWC")[0])
    y, si = ref_concat(s, axis=1, add_axis=True)
    assert y.shape == (2, 3, 3) and si.tolist() == [1, 1, 1]
    c.output("Y_stack", y)
    c.output("Y_stack_split_info", si)
    c.output("Y_neg", ref_concat([s[0], s[2]], axis=-1)[0])
    c.output("Y_default", ref_concat([a, b, a])[0])

    # --- split: `split` argument, sizes as a second int32 input (GivenTensorIntFill), and
    # equal parts with neither.
    rng = np.random.default_rng(6002)
    c = new("split")
    x = rand(rng, [2, 6, 4])
    c.input("X", x)
    c.weight("sizes", np.array([1, 2, 3], np.int32))
    c.op("Split", ["X"], ["A0", "A1"], axis=2, split=[3, 1])
    c.op("Split", ["X", "sizes"], ["B0", "B1", "B2"], axis=1)
    c.op("Split", ["X"], ["C0", "C1", "C2"])
    for n, v in zip(["A0", "A1"], ref_split(x, 2, 2, [3, 1])):
        c.output(n, v)
    for n, v in zip(["B0", "B1", "B2"], ref_split(x, 3, 1, [1, 2, 3])):
        c.output(n, v)
    for n, v in zip(["C0", "C1", "C2"], ref_split(x, 3, 1)):
        c.output(n, v)

    # --- reshape: `shape` argument with 0 and -1 (old_shape int64 second output), and the new
    # shape as an int64 second input (GivenTensorInt64Fill).
    rng = np.random.default_rng(6003)
    c = new("reshape")
    x = rand(rng, [2, 3, 4])
    c.input("X", x)
    c.weight("new_shape", np.array([4, 0, -1], np.int64))
    c.op("Reshape", ["X"], ["Y", "Y_old_shape"], shape=[0, -1, 2])
    c.op("Reshape", ["X", "new_shape"], ["Z", "_Z_old_shape"])
    y, old = ref_reshape(x, [0, -1, 2])
    assert y.shape == (2, 6, 2)
    c.output("Y", y)
    c.output("Y_old_shape", old)
    z, _ = ref_reshape(x, [4, 0, -1])
    assert z.shape == (4, 3, 2)
    c.output("Z", z)

    # --- flatten_transpose: Flatten default axis and axis=2; Transpose with axes and default.
    rng = np.random.default_rng(6004)
    c = new("flatten_transpose")
    x = rand(rng, [2, 3, 4, 2])
    c.input("X", x)
    c.op("Flatten", ["X"], ["F1"])
    c.op("Flatten", ["X"], ["F2"], axis=2)
    c.op("Transpose", ["X"], ["T"], axes=[2, 0, 3, 1])
    c.op("Transpose", ["X"], ["T_rev"])
    c.output("F1", ref_flatten(x))
    c.output("F2", ref_flatten(x, 2))
    c.output("T", np.transpose(x, (2, 0, 3, 1)))
    c.output("T_rev", np.transpose(x))

    # --- squeeze_expand: Squeeze dims [0, 2]; ExpandDims dims [3, 0] (sorted to [0, 3]).
    rng = np.random.default_rng(6005)
    c = new("squeeze_expand")
    x = rand(rng, [1, 3, 1, 4])
    c.input("X", x)
    c.op("Squeeze", ["X"], ["S"], dims=[0, 2])
    c.op("ExpandDims", ["S"], ["E"], dims=[3, 0])
    s = ref_squeeze(x, [0, 2])
    e = ref_expand_dims(s, [3, 0])
    assert s.shape == (3, 4) and e.shape == (1, 3, 4, 1)
    c.output("S", s)
    c.output("E", e)

    # --- tile: Tile tiles=3 axis=1, and tiles=2 axis=0.
    rng = np.random.default_rng(6006)
    c = new("tile")
    x = rand(rng, [2, 3, 2])
    c.input("X", x)
    c.op("Tile", ["X"], ["Y1"], tiles=3, axis=1)
    c.op("Tile", ["X"], ["Y0"], tiles=2, axis=0)
    c.output("Y1", ref_tile(x, 3, 1))
    c.output("Y0", ref_tile(x, 2, 0))

    # --- slice: starts/ends with -1 (= through the end) and -2 (= drop the last one), and
    # fewer starts than dims (the rest kept whole).
    rng = np.random.default_rng(6007)
    c = new("slice")
    x = rand(rng, [3, 5, 2])
    c.input("X", x)
    c.op("Slice", ["X"], ["Y_neg"], starts=[0, 1, 0], ends=[-1, -2, -1])
    c.op("Slice", ["X"], ["Y_end"], starts=[0, 2], ends=[-1, -1])
    c.op("Slice", ["X"], ["Y_first"], starts=[1], ends=[3])
    y = ref_slice(x, [0, 1, 0], [-1, -2, -1])
    assert y.shape == (3, 3, 2)
    c.output("Y_neg", y)
    c.output("Y_end", ref_slice(x, [0, 2], [-1, -1]))
    c.output("Y_first", ref_slice(x, [1], [3]))

    # --- gather: float data [5, 3] with run-time int32 indices [2, 2], and int64 indices from
    # GivenTensorInt64Fill including -1 (wrapped: axis 0 defaults wrap_indices to true).
    rng = np.random.default_rng(6008)
    c = new("gather")
    data = rand(rng, [5, 3])
    idx32 = np.array([[4, 0], [1, 1]], np.int32)
    idx64 = np.array([3, -1, 0, 2], np.int64)
    c.input("data", data)
    c.input("indices", idx32)
    c.weight("indices64", idx64)
    c.op("Gather", ["data", "indices"], ["Y32"])
    c.op("Gather", ["data", "indices64"], ["Y64"])
    c.output("Y32", ref_gather(data, idx32))
    c.output("Y64", ref_gather(data, idx64))

    # --- fill_cast: the remaining fill ops (GivenTensorBoolFill, GivenTensorByteStringToUInt8Fill,
    # ConstantFill with int32 / float / default dtype, GivenTensorInt64Fill) cast to float with
    # Cast `to` = 1 and summed with the input; and Cast of the float input to int32 (`to` = 2,
    # truncation toward zero).
    rng = np.random.default_rng(6009)
    c = new("fill_cast")
    x = (rand(rng, [2, 3], -4.0, 4.0) + F32(0.05)).astype(F32)
    x[0, 0], x[1, 2] = F32(-1.75), F32(2.75)
    mask = np.array([[True, False, True], [False, False, True]])
    bytes_ = np.array([[0, 7, 255], [128, 1, 40]], np.uint8)
    i64 = np.array([[-3, 0, 5], [1, 2, -9]], np.int64)
    c.input("X", x)
    c.weight("mask", mask)
    c.weight("bytes", bytes_)
    c.constant_fill("twos", [2, 3], 2, dtype=DT_INT32)
    c.weight("i64", i64)
    c.constant_fill("halves", [2, 3], 0.5, dtype=DT_FLOAT)
    c.constant_fill("quarters", [2, 3], 0.25)
    for n in ("mask", "bytes", "twos", "i64"):
        c.op("Cast", [n], [n + "_f"], to=DT_FLOAT)
    c.op("Sum", ["X", "mask_f", "bytes_f", "twos_f", "i64_f", "halves", "quarters"], ["Y"])
    c.op("Cast", ["X"], ["X_int"], to=DT_INT32)
    total = (x.astype(np.float64) + ref_cast(mask, DT_FLOAT) + ref_cast(bytes_, DT_FLOAT)
             + 2.0 + ref_cast(i64, DT_FLOAT) + 0.5 + 0.25)
    c.output("Y", total.astype(F32))
    xi = ref_cast(x, DT_INT32)
    assert xi[0, 0] == -1 and xi[1, 2] == 2
    c.output("X_int", xi)

    # --- slice_inputs: starts / ends as the second and third inputs, int32 (GivenTensorIntFill)
    # and int64 (GivenTensorInt64Fill) constant blobs; same rules as the arguments (negative
    # means dim + 1 + value, fewer entries than dims keep the rest whole).
    rng = np.random.default_rng(6010)
    c = new("slice_inputs")
    x = rand(rng, [3, 5, 4])
    c.input("X", x)
    c.weight("starts32", np.array([0, 1], np.int32))
    c.weight("ends32", np.array([-1, -2], np.int32))
    c.weight("starts64", np.array([0, 0, -3], np.int64))
    c.weight("ends64", np.array([-1, 5, -1], np.int64))
    c.op("Slice", ["X", "starts32", "ends32"], ["Y32"])
    c.op("Slice", ["X", "starts64", "ends64"], ["Y64"])
    y = ref_slice(x, [0, 1], [-1, -2])
    assert y.shape == (3, 3, 4)
    c.output("Y32", y)
    y = ref_slice(x, [0, 0, -3], [-1, 5, -1])
    assert y.shape == (3, 5, 2)
    c.output("Y64", y)

    # --- tile_inputs: tiles and axis as inputs 1 and 2 (int32, and int64 with a negative
    # axis), and an int32 tiles input with the `axis` argument.
    rng = np.random.default_rng(6011)
    c = new("tile_inputs")
    x = rand(rng, [2, 3, 2])
    t32, a32 = np.array([3], np.int32), np.array([1], np.int32)
    t64, a64 = np.array([2], np.int64), np.array([-1], np.int64)
    c.input("X", x)
    c.weight("tiles32", t32)
    c.weight("axis32", a32)
    c.weight("tiles64", t64)
    c.weight("axis64", a64)
    c.op("Tile", ["X", "tiles32", "axis32"], ["Y32"])
    c.op("Tile", ["X", "tiles64", "axis64"], ["Y64"])
    c.op("Tile", ["X", "tiles32"], ["Y_arg"], axis=2)
    c.output("Y32", ref_tile(x, *tile_params({}, t32, a32)))
    y = ref_tile(x, *tile_params({}, t64, a64))
    assert y.shape == (2, 3, 4)
    c.output("Y64", y)
    assert tile_params({"axis": 2}, t32) == (3, 2)
    c.output("Y_arg", ref_tile(x, *tile_params({"axis": 2}, t32)))

    # --- tile_int64_axis_arg: an int64 tiles input with the `axis` argument (no axis input):
    # tile_op.h resets axis to 0 for an int64 tiles input, so the argument axis=1 is not used.
    rng = np.random.default_rng(6012)
    c = new("tile_int64_axis_arg")
    x = rand(rng, [2, 3])
    t64 = np.array([2], np.int64)
    c.input("X", x)
    c.weight("tiles", t64)
    c.op("Tile", ["X", "tiles"], ["Y"], axis=1)
    assert tile_params({"axis": 1}, t64) == (2, 0)
    y = ref_tile(x, *tile_params({"axis": 1}, t64))
    assert y.shape == (4, 3)
    c.output("Y", y)

    # --- split_order: `order` instead of `axis` on a 4-D input: NHWC (axis 3) with the
    # `split` argument and with equal parts, NCHW (axis 1) with sizes as an int32 input.
    rng = np.random.default_rng(6013)
    c = new("split_order")
    x = rand(rng, [2, 3, 2, 5])
    c.input("X", x)
    c.weight("sizes", np.array([2, 1], np.int32))
    c.op("Split", ["X"], ["A0", "A1", "A2"], order="NHWC", split=[1, 3, 1])
    c.op("Split", ["X", "sizes"], ["B0", "B1"], order="NCHW")
    c.op("Split", ["X"], ["C0", "C1", "C2", "C3", "C4"], order="NHWC")
    for n, v in zip(["A0", "A1", "A2"], ref_split(x, 3, split=[1, 3, 1], order="NHWC")):
        c.output(n, v)
    for n, v in zip(["B0", "B1"], ref_split(x, 2, split=[2, 1], order="NCHW")):
        c.output(n, v)
    for n, v in zip(["C0", "C1", "C2", "C3", "C4"], ref_split(x, 5, order="NHWC")):
        assert v.shape == (2, 3, 2, 1)
        c.output(n, v)

    # --- split_order_5d: order NHWC on a 5-D input splits axis 3 (GetDimFromOrderString is
    # 3 for NHWC whatever the rank), not the last axis.
    rng = np.random.default_rng(6014)
    c = new("split_order_5d")
    x = rand(rng, [1, 2, 2, 4, 3])
    c.input("X", x)
    c.op("Split", ["X"], ["Y0", "Y1"], order="NHWC")
    parts = ref_split(x, 2, order="NHWC")
    assert parts[0].shape == (1, 2, 2, 2, 3)
    for n, v in zip(["Y0", "Y1"], parts):
        c.output(n, v)

    # --- gather_axis: axis=1 (wrap_indices defaults to false there; indices in range),
    # axis=1 with wrap_indices=1 and negative indices, axis=-1 with wrap_indices=1 and int64
    # indices, axis=2 with 2-D indices, and axis=0 with wrap_indices=0 (explicit).
    rng = np.random.default_rng(6015)
    c = new("gather_axis")
    data = rand(rng, [3, 4, 5])
    i1 = np.array([3, 0, 2], np.int32)
    i1n = np.array([[-1, 1], [-4, 2]], np.int32)
    ilast = np.array([-5, 4, -1], np.int64)
    i2 = np.array([[4, 0], [1, 1], [3, 2]], np.int32)
    i0 = np.array([2, 0], np.int64)
    c.input("data", data)
    for n, v in (("idx1", i1), ("idx1_neg", i1n), ("idx_last", ilast), ("idx2", i2),
                 ("idx0", i0)):
        c.weight(n, v)
    c.op("Gather", ["data", "idx1"], ["Y_axis1"], axis=1)
    c.op("Gather", ["data", "idx1_neg"], ["Y_wrap"], axis=1, wrap_indices=1)
    c.op("Gather", ["data", "idx_last"], ["Y_neg_axis"], axis=-1, wrap_indices=1)
    c.op("Gather", ["data", "idx2"], ["Y_axis2"], axis=2)
    c.op("Gather", ["data", "idx0"], ["Y_nowrap0"], axis=0, wrap_indices=0)
    c.output("Y_axis1", ref_gather(data, i1, 1))
    y = ref_gather(data, i1n, 1, wrap_indices=True)
    assert y.shape == (3, 2, 2, 5)
    c.output("Y_wrap", y)
    c.output("Y_neg_axis", ref_gather(data, ilast, -1, wrap_indices=True))
    y = ref_gather(data, i2, 2)
    assert y.shape == (3, 4, 3, 2)
    c.output("Y_axis2", y)
    c.output("Y_nowrap0", ref_gather(data, i0, 0, wrap_indices=False))

    # --- cast_bool_uint8: Cast of a float input to bool (to = 5: x != 0, -0.0 false) and to
    # uint8 (to = 6: truncation toward zero; inputs kept in (-1, 256) where it is defined).
    rng = np.random.default_rng(6016)
    c = new("cast_bool_uint8")
    x = rand(rng, [3, 4], -0.99, 255.99)
    x[0, :] = np.array([0.0, -0.0, -0.75, 0.4], F32)
    x[1, :2] = np.array([255.9, 1e-30], F32)
    c.input("X", x)
    c.op("Cast", ["X"], ["Y_bool"], to=DT_BOOL)
    c.op("Cast", ["X"], ["Y_uint8"], to=DT_UINT8)
    yb, yu = ref_cast(x, DT_BOOL), ref_cast(x, DT_UINT8)
    assert yb[0].tolist() == [False, False, True, True] and yb[1, 1]
    assert yu[0].tolist() == [0, 0, 0, 0] and yu[1, 0] == 255 and yu[1, 1] == 0
    c.output("Y_bool", yb)
    c.output("Y_uint8", yu)


def int8_cases(new):
    # --- int8_conv (binary): Int8Quantize -> Int8Conv (NHWC, pad 1, bias) -> Int8Dequantize.
    rng = np.random.default_rng(7001)
    x_s, x_zp, w_s, w_zp, y_s, y_zp = 0.02, 128, 0.01, 120, 0.05, 110
    c = new("int8_conv", binary=True, tolerance=y_s)
    x = rand_on_grid(rng, [1, 5, 5, 3], x_s, x_zp)
    wq = rng.integers(60, 190, size=[4, 3, 3, 3]).astype(np.uint8)
    bq = rng.integers(-600, 600, size=[4]).astype(np.int32)
    c.input("X", x)
    c.int8_weight("W", wq, w_s, w_zp)
    c.int8_bias("B", bq, x_s * w_s)
    c.op("Int8Quantize", ["X"], ["Xq"], Y_scale=x_s, Y_zero_point=x_zp)
    c.op("Int8Conv", ["Xq", "W", "B"], ["Yq"], kernel=3, pad=1, order="NHWC",
         Y_scale=y_s, Y_zero_point=y_zp)
    c.op("Int8Dequantize", ["Yq"], ["Y"])
    xq = q_quantize(x, x_s, x_zp)
    yq = q_conv(xq, x_s, x_zp, wq, w_s, w_zp, bq, y_s, y_zp, pads=(1, 1, 1, 1))
    y = q_dequantize(yq, y_s, y_zp)
    check_int8_against_float(y, y_s, ref_conv(
        q_dequantize(xq, x_s, x_zp), q_dequantize(wq, w_s, w_zp),
        (bq * F32(F32(x_s) * F32(w_s))).astype(F32), (3, 3), pads=(1, 1, 1, 1),
        order="NHWC"), "int8_conv")
    c.output("Y", y)

    # --- int8_conv_relu_maxpool: Int8ConvRelu (kernel_h/_w, stride 2, pads) -> Int8MaxPool
    # (Y_scale / Y_zero_point equal to its input's) -> Int8Dequantize.
    rng = np.random.default_rng(7002)
    x_s, x_zp, w_s, w_zp, y_s, y_zp = 0.05, 110, 0.02, 128, 0.15, 60
    c = new("int8_conv_relu_maxpool", tolerance=y_s)
    x = rand_on_grid(rng, [2, 7, 7, 4], x_s, x_zp)
    wq = rng.integers(70, 190, size=[5, 3, 2, 4]).astype(np.uint8)
    bq = rng.integers(-300, 300, size=[5]).astype(np.int32)
    c.input("X", x)
    c.int8_weight("W", wq, w_s, w_zp)
    c.int8_bias("B", bq, x_s * w_s)
    c.op("Int8Quantize", ["X"], ["Xq"], Y_scale=x_s, Y_zero_point=x_zp)
    c.op("Int8ConvRelu", ["Xq", "W", "B"], ["Cq"], kernel_h=3, kernel_w=2, stride=2,
         pads=[1, 0, 1, 1], order="NHWC", Y_scale=y_s, Y_zero_point=y_zp)
    c.op("Int8MaxPool", ["Cq"], ["Pq"], kernel=2, stride=1, order="NHWC",
         Y_scale=y_s, Y_zero_point=y_zp)
    c.op("Int8Dequantize", ["Pq"], ["Y"])
    xq = q_quantize(x, x_s, x_zp)
    cq = q_conv(xq, x_s, x_zp, wq, w_s, w_zp, bq, y_s, y_zp, (2, 2), (1, 0, 1, 1), relu=True)
    assert cq.min() == y_zp and (cq > y_zp).mean() > 0.3, "relu clamp should bite"
    pq = q_maxpool(cq, (2, 2))
    y = q_dequantize(pq, y_s, y_zp)
    assert y.min() >= 0
    c.output("Y", y)

    # --- int8_avgpool: Int8AveragePool NHWC with padding (divisor is the full kernel, padded
    # taps count as the zero point) and a different output scale, then Int8Dequantize.
    rng = np.random.default_rng(7003)
    x_s, x_zp, y_s, y_zp = 0.03, 128, 0.02, 120
    c = new("int8_avgpool", tolerance=y_s)
    x = rand_on_grid(rng, [1, 6, 5, 3], x_s, x_zp, 40, 215)
    c.input("X", x)
    c.op("Int8Quantize", ["X"], ["Xq"], Y_scale=x_s, Y_zero_point=x_zp)
    c.op("Int8AveragePool", ["Xq"], ["Yq"], kernel=3, stride=2, pad=1, order="NHWC",
         Y_scale=y_s, Y_zero_point=y_zp)
    c.op("Int8Dequantize", ["Yq"], ["Y"])
    xq = q_quantize(x, x_s, x_zp)
    y = q_dequantize(q_avgpool(xq, x_s, x_zp, y_s, y_zp, (3, 3), (2, 2), (1, 1, 1, 1)),
                     y_s, y_zp)
    check_int8_against_float(y, y_s, ref_pool(q_dequantize(xq, x_s, x_zp), "avg", (3, 3),
                                              (2, 2), (1, 1, 1, 1), count_include_pad=True,
                                              order="NHWC"), "int8_avgpool")
    c.output("Y", y)

    # --- int8_fc (binary): Int8Quantize -> Int8FC (X [M, K], W [N, K]) -> Int8Dequantize.
    rng = np.random.default_rng(7004)
    x_s, x_zp, w_s, w_zp, y_s, y_zp = 0.04, 128, 0.008, 128, 0.09, 105
    c = new("int8_fc", binary=True, tolerance=y_s)
    x = rand_on_grid(rng, [3, 16], x_s, x_zp)
    wq = rng.integers(40, 216, size=[6, 16]).astype(np.uint8)
    bq = rng.integers(-2000, 2000, size=[6]).astype(np.int32)
    c.input("X", x)
    c.int8_weight("W", wq, w_s, w_zp)
    c.int8_bias("B", bq, x_s * w_s)
    c.op("Int8Quantize", ["X"], ["Xq"], Y_scale=x_s, Y_zero_point=x_zp)
    c.op("Int8FC", ["Xq", "W", "B"], ["Yq"], Y_scale=y_s, Y_zero_point=y_zp)
    c.op("Int8Dequantize", ["Yq"], ["Y"])
    xq = q_quantize(x, x_s, x_zp)
    y = q_dequantize(q_fc(xq, x_s, x_zp, wq, w_s, w_zp, bq, y_s, y_zp), y_s, y_zp)
    check_int8_against_float(y, y_s, ref_fc(
        q_dequantize(xq, x_s, x_zp), q_dequantize(wq, w_s, w_zp),
        (bq * F32(F32(x_s) * F32(w_s))).astype(F32)), "int8_fc")
    c.output("Y", y)

    # --- int8_sum_relu: two inputs quantized with different scales and zero points ->
    # Int8SumRelu (output clamped at its zero point) -> Int8Dequantize.
    rng = np.random.default_rng(7005)
    a_s, a_zp, b_s, b_zp, y_s, y_zp = 0.02, 128, 0.035, 100, 0.05, 90
    c = new("int8_sum_relu", tolerance=y_s)
    a = rand_on_grid(rng, [2, 3, 4, 5], a_s, a_zp)
    b = rand_on_grid(rng, [2, 3, 4, 5], b_s, b_zp)
    c.input("A", a)
    c.input("B", b)
    c.op("Int8Quantize", ["A"], ["Aq"], Y_scale=a_s, Y_zero_point=a_zp)
    c.op("Int8Quantize", ["B"], ["Bq"], Y_scale=b_s, Y_zero_point=b_zp)
    c.op("Int8SumRelu", ["Aq", "Bq"], ["Yq"], Y_scale=y_s, Y_zero_point=y_zp)
    c.op("Int8Dequantize", ["Yq"], ["Y"])
    aq, bq_ = q_quantize(a, a_s, a_zp), q_quantize(b, b_s, b_zp)
    yq = q_add(aq, a_s, a_zp, bq_, b_s, b_zp, y_s, y_zp, relu=True)
    y = q_dequantize(yq, y_s, y_zp)
    assert y.min() == 0 and (y == 0).mean() > 0.2
    check_int8_against_float(y, y_s, ref_relu(q_dequantize(aq, a_s, a_zp)
                                              + q_dequantize(bq_, b_s, b_zp)), "int8_sum_relu")
    c.output("Y", y)

    # --- int8_dwconv: depthwise Int8Conv (group == C == M, filter [C, 3, 3, 1]), QNNPACK's
    # dwconv kernel: pad 1 stride 1, and Int8ConvRelu stride 2 with asymmetric pads.
    rng = np.random.default_rng(7006)
    x_s, x_zp, w_s, w_zp, y_s, y_zp = 0.03, 120, 0.015, 131, 0.12, 100
    y2_s, y2_zp = 0.06, 70
    c = new("int8_dwconv", tolerance=max(y_s, y2_s))
    x = rand_on_grid(rng, [2, 6, 5, 4], x_s, x_zp)
    wq = rng.integers(40, 220, size=[4, 3, 3, 1]).astype(np.uint8)
    bq = rng.integers(-800, 800, size=[4]).astype(np.int32)
    c.input("X", x)
    c.int8_weight("W", wq, w_s, w_zp)
    c.int8_bias("B", bq, x_s * w_s)
    c.op("Int8Quantize", ["X"], ["Xq"], Y_scale=x_s, Y_zero_point=x_zp)
    c.op("Int8Conv", ["Xq", "W", "B"], ["Yq"], kernel=3, pad=1, group=4, order="NHWC",
         Y_scale=y_s, Y_zero_point=y_zp)
    c.op("Int8ConvRelu", ["Xq", "W", "B"], ["Zq"], kernel=3, stride=2, pads=[0, 1, 1, 0],
         group=4, order="NHWC", Y_scale=y2_s, Y_zero_point=y2_zp)
    c.op("Int8Dequantize", ["Yq"], ["Y"])
    c.op("Int8Dequantize", ["Zq"], ["Z"])
    xq = q_quantize(x, x_s, x_zp)
    yq = q_dwconv(xq, x_s, x_zp, wq, w_s, w_zp, bq, y_s, y_zp, pads=(1, 1, 1, 1))
    assert np.array_equal(yq, q_conv(xq, x_s, x_zp, wq, w_s, w_zp, bq, y_s, y_zp,
                                     pads=(1, 1, 1, 1), group=4))
    zq = q_dwconv(xq, x_s, x_zp, wq, w_s, w_zp, bq, y2_s, y2_zp, (2, 2), (0, 1, 1, 0),
                  relu=True)
    assert zq.shape == (2, 3, 2, 4) and zq.min() == y2_zp
    real_w = q_dequantize(wq, w_s, w_zp)
    real_b = (bq * F32(F32(x_s) * F32(w_s))).astype(F32)
    y = q_dequantize(yq, y_s, y_zp)
    check_int8_against_float(y, y_s, ref_conv(q_dequantize(xq, x_s, x_zp), real_w, real_b,
                                              (3, 3), pads=(1, 1, 1, 1), group=4,
                                              order="NHWC"), "int8_dwconv")
    z = q_dequantize(zq, y2_s, y2_zp)
    check_int8_against_float(z, y2_s, ref_relu(ref_conv(
        q_dequantize(xq, x_s, x_zp), real_w, real_b, (3, 3), (2, 2), (0, 1, 1, 0), group=4,
        order="NHWC")), "int8_dwconv_relu")
    c.output("Y", y)
    c.output("Z", z)

    # --- int8_global_avgpool: Int8AveragePool with global_pooling=1 (QNNPACK's global
    # average pooling): 10 channels over a 3x4 image (multipass kernel, 12 rows) and 3 channels
    # over 2x3 (fewer than 8 channels, 6 rows), each with its own output scale.
    rng = np.random.default_rng(7007)
    x_s, x_zp, y_s, y_zp = 0.05, 128, 0.02, 110
    x2_s, x2_zp, y2_s, y2_zp = 0.02, 100, 0.03, 140
    c = new("int8_global_avgpool", tolerance=max(y_s, y2_s))
    x = rand_on_grid(rng, [2, 3, 4, 10], x_s, x_zp, 60, 200)
    x2 = rand_on_grid(rng, [3, 2, 3, 3], x2_s, x2_zp, 20, 240)
    c.input("X", x)
    c.input("X2", x2)
    c.op("Int8Quantize", ["X"], ["Xq"], Y_scale=x_s, Y_zero_point=x_zp)
    c.op("Int8Quantize", ["X2"], ["X2q"], Y_scale=x2_s, Y_zero_point=x2_zp)
    c.op("Int8AveragePool", ["Xq"], ["Yq"], global_pooling=1, order="NHWC",
         Y_scale=y_s, Y_zero_point=y_zp)
    c.op("Int8AveragePool", ["X2q"], ["Y2q"], global_pooling=1, order="NHWC",
         Y_scale=y2_s, Y_zero_point=y2_zp)
    c.op("Int8Dequantize", ["Yq"], ["Y"])
    c.op("Int8Dequantize", ["Y2q"], ["Y2"])
    for n, xx, xs, xzp, ys, yzp in (("Y", x, x_s, x_zp, y_s, y_zp),
                                     ("Y2", x2, x2_s, x2_zp, y2_s, y2_zp)):
        xq = q_quantize(xx, xs, xzp)
        yq = q_global_avgpool(xq, xs, xzp, ys, yzp)
        assert np.array_equal(yq, q_avgpool(xq, xs, xzp, ys, yzp, xx.shape[1:3]))
        y = q_dequantize(yq, ys, yzp)
        check_int8_against_float(y, ys, ref_pool(q_dequantize(xq, xs, xzp), "avg",
                                                 global_pooling=True, order="NHWC"),
                                 "int8_global_avgpool " + n)
        c.output(n, y)


def check_int8_against_float(y, step, want, what):
    """Plausibility: an int8 result is within a quantization step (plus float slack) of the
    float computation on the dequantized operands, where nothing saturates."""
    err = np.abs(y.astype(np.float64) - want.astype(np.float64))
    assert err.max() <= 0.51 * step + 1e-4, (what, err.max(), step)


def make_cases():
    cases = []

    def new(name, **kw):
        c = Case(name, **kw)
        cases.append(c)
        return c

    conv_cases(new)
    pool_cases(new)
    activation_cases(new)
    matmul_cases(new)
    elementwise_cases(new)
    shape_cases(new)
    int8_cases(new)
    math_cases(new)
    recommendation_cases(new)
    return cases


# ============================================================================
# Cross-check of the numpy references against torch (where the semantics coincide)
# ============================================================================

def cross_check_with_torch():
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("torch not importable: skipping cross-check")
        return
    torch.set_num_threads(1)
    rng = np.random.default_rng(12345)
    T = lambda a: torch.from_numpy(np.ascontiguousarray(a))

    def close(a, b, what):
        b = b.detach().numpy() if hasattr(b, "detach") else b
        assert a.shape == b.shape, (what, a.shape, b.shape)
        assert np.allclose(a, b, rtol=1e-5, atol=1e-5), (what, np.abs(a - b).max())

    # Conv: asymmetric pads via F.pad, strides, dilations, groups, NHWC, legacy SAME / VALID.
    x, w, b = rand(rng, [2, 3, 9, 10]), rand(rng, [4, 3, 3, 2]), rand(rng, [4])
    xp = F.pad(T(x), (0, 1, 1, 2))
    close(ref_conv(x, w, b, (3, 2), (2, 1), (1, 0, 2, 1), (2, 1)),
          F.conv2d(xp, T(w), T(b), stride=(2, 1), dilation=(2, 1)), "conv")
    x, w = rand(rng, [1, 4, 6, 6]), rand(rng, [6, 2, 3, 3])
    close(ref_conv(x, w, None, (3, 3), pads=(1, 1, 1, 1), group=2),
          F.conv2d(T(x), T(w), padding=1, groups=2), "conv group")
    x, w, b = rand(rng, [1, 5, 5, 4]), rand(rng, [6, 2, 2, 2]), rand(rng, [6])
    close(ref_conv(x, w, b, (2, 2), group=2, order="NHWC"),
          F.conv2d(T(x).permute(0, 3, 1, 2), T(w).permute(0, 3, 1, 2), T(b),
                   groups=2).permute(0, 2, 3, 1), "conv nhwc")
    x, w = rand(rng, [1, 2, 6, 7]), rand(rng, [3, 2, 3, 3])
    close(ref_conv(x, w, None, (3, 3), (2, 2), legacy_pad=SAME),
          F.conv2d(F.pad(T(x), (1, 1, 0, 1)), T(w), stride=2), "conv SAME")
    close(ref_conv(x, w, None, (3, 3), (2, 2), legacy_pad=VALID),
          F.conv2d(T(x), T(w), stride=2), "conv VALID")

    # ConvTranspose (symmetric pads, output_padding = adj).
    x, w, b = rand(rng, [2, 3, 4, 5]), rand(rng, [3, 2, 3, 3]), rand(rng, [2])
    close(ref_conv_transpose(x, w, b, (2, 2), (1, 1, 1, 1), (1, 1)),
          F.conv_transpose2d(T(x), T(w), T(b), stride=2, padding=1, output_padding=1),
          "conv transpose")
    close(ref_conv_transpose(x, w, b, (2, 1), (0, 0, 0, 0), (0, 0)),
          F.conv_transpose2d(T(x), T(w), T(b), stride=(2, 1)), "conv transpose s21")
    # ConvTranspose with groups, NCHW and NHWC (torch's weight [C_in, M/groups, kH, kW] is
    # Caffe2's NCHW filter), asymmetric pads as a crop of the unpadded result.
    x, w, b = rand(rng, [2, 4, 3, 4]), rand(rng, [4, 3, 3, 2]), rand(rng, [6])
    full = F.conv_transpose2d(T(x), T(w), T(b), stride=(2, 3), groups=2, output_padding=(1, 2))
    close(ref_conv_transpose(x, w, b, (2, 3), (1, 0, 2, 1), (1, 2), group=2),
          full[:, :, 1:full.shape[2] - 2, 0:full.shape[3] - 1], "conv transpose group")
    close(ref_conv_transpose(np.transpose(x, (0, 2, 3, 1)), np.transpose(w, (0, 2, 3, 1)), b,
                             (2, 3), (1, 0, 2, 1), (1, 2), group=2, order="NHWC"),
          full[:, :, 1:full.shape[2] - 2, 0:full.shape[3] - 1].permute(0, 2, 3, 1),
          "conv transpose group nhwc")
    close(ref_conv_transpose(x, w, None, (2, 2), adj=(1, 1), group=2, legacy_pad=SAME),
          F.conv_transpose2d(T(x), T(w), stride=2, groups=2, output_padding=1),
          "conv transpose legacy SAME (no cropping)")

    # BatchMatMul against torch.matmul (numpy semantics, 1-D operands, size-1 batch dims).
    for sa, sb, ta, tb in (([2, 1, 3, 4], [3, 4, 2], False, False),
                           ([1, 3, 4, 2], [2, 1, 5, 4], True, True),
                           ([4], [2, 4, 3], False, False), ([4], [2, 3, 4], False, True),
                           ([2, 3, 4], [4], False, False), ([2, 3, 3], [3], True, False)):
        a, bm = rand(rng, sa), rand(rng, sb)
        ta_ = T(a).transpose(-1, -2) if ta and a.ndim > 1 else T(a)
        tb_ = T(bm).transpose(-1, -2) if tb and bm.ndim > 1 else T(bm)
        close(ref_batch_matmul(a, bm, ta, tb, broadcast=True), torch.matmul(ta_, tb_),
              "batch matmul %s %s" % (sa, sb))

    # Pooling: max / avg with symmetric pads; count_include_pad both ways where windows stay
    # inside the padded image; ceil-mode (CAFFE_LEGACY_POOLING) max and exclude-pad avg.
    x = rand(rng, [2, 3, 7, 8])
    close(ref_pool(x, "max", (3, 3), (2, 2), (1, 1, 1, 1)),
          F.max_pool2d(T(x), 3, 2, padding=1), "maxpool")
    for cip in (False, True):
        close(ref_pool(x, "avg", (3, 3), (2, 2), (1, 1, 1, 1), count_include_pad=cip),
              F.avg_pool2d(T(x), 3, 2, padding=1, count_include_pad=cip), "avgpool %s" % cip)
    for size in (6, 7):
        x = rand(rng, [1, 2, size, size])
        lp = dict(pads=(1, 1, 1, 1), legacy_pad=CAFFE_LEGACY_POOLING)
        close(ref_pool(x, "max", (3, 3), (2, 2), **lp),
              F.max_pool2d(T(x), 3, 2, padding=1, ceil_mode=True), "legacy max %d" % size)
        close(ref_pool(x, "avg", (3, 3), (2, 2), **lp),
              F.avg_pool2d(T(x), 3, 2, padding=1, ceil_mode=True, count_include_pad=False),
              "legacy avg %d" % size)
    x = rand(rng, [2, 6, 5, 3])
    close(ref_pool(x, "max", (3, 3), (2, 2), (1, 1, 1, 1), order="NHWC"),
          F.max_pool2d(T(x).permute(0, 3, 1, 2), 3, 2, padding=1).permute(0, 2, 3, 1),
          "maxpool nhwc")

    # FC, BatchNorm, LRN, Softmax.
    x, w, b = rand(rng, [3, 2, 2, 3]), rand(rng, [5, 12]), rand(rng, [5])
    close(ref_fc(x, w, b), F.linear(T(x).reshape(3, 12), T(w), T(b)), "fc")
    x = rand(rng, [2, 3, 4, 5])
    s, bb, m, v = rand(rng, [3]), rand(rng, [3]), rand(rng, [3]), rand(rng, [3], 0.5, 2)
    close(ref_spatial_bn(x, s, bb, m, v, 1e-3),
          F.batch_norm(T(x), T(m), T(v), T(s), T(bb), training=False, eps=1e-3), "bn")
    x = rand(rng, [2, 7, 3, 3], -2, 2)
    close(ref_lrn(x, 5, 0.0004, 0.75, 2.0),
          F.local_response_norm(T(x), 5, alpha=0.0004, beta=0.75, k=2.0), "lrn")
    x = rand(rng, [2, 3, 2, 4])
    close(ref_softmax(x, 1), F.softmax(T(x).reshape(2, -1), dim=1).reshape(2, 3, 2, 4),
          "softmax")
    print("numpy references agree with torch.nn.functional")


def self_check_int8():
    """Spot checks of the integer helpers against values worked by hand from the kernels."""
    # scale 0.25: multiplier 2^30, shift 1. q31 = floor((acc + 1) / 2) (half up), then a
    # rounding shift by 1 (ties away from zero): 5 -> q31 3 -> 2 (QNNPACK's double rounding:
    # 1.25 becomes 2), -5 -> q31 -2 -> -1, 6 -> 3 -> 2, -6 -> -3 -> -2, 7 -> 4 -> 2,
    # -7 -> -3 -> -2; + zero point 100, clamp to [0, 255].
    acc = np.array([5, -5, 6, -6, 7, -7, 0, 1000], np.int64)
    assert qnnp_requantize(acc, 0.25, 100, 0, 255).tolist() == \
        [102, 99, 102, 98, 102, 98, 100, 255]
    assert rounding_divide_by_pot(np.array([3, -3, 5, -5, 6], np.int64), 1).tolist() == \
        [2, -2, 3, -3, 3]
    assert srdhm(np.array([3, -3], np.int64), 1 << 30).tolist() == [2, -1]
    # QuantizeUint8 rounds half to even and clamps.
    assert q_quantize(np.array([0.5, 1.5, 2.5, -0.5, 1e4], F32), 1.0, 10).tolist() == \
        [10, 12, 12, 10, 255]
    assert quantize_multiplier_smaller_than_one(0.75) == (3 << 29, 0)
    assert quantize_multiplier_smaller_than_one(0.1) == (int(np.rint(0.8 * 2 ** 31)), 3)
    # Average-pooling requantization with scale 0.25: multiplier 2^23, shift 25, rounding
    # 2^24, so out = (|acc| + 2) >> 2 with the sign restored: 6 -> 2 (1.5 away from zero),
    # -6 -> -2, 5 -> 1, -5 -> -1, 7 -> 2, 2 -> 1 (0.5 away from zero); + zero point 100.
    acc = np.array([6, -6, 5, -5, 7, 2, -2, 0], np.int64)
    assert qnnp_avgpool_requantize(acc, 0.25, 100, 0, 255).tolist() == \
        [102, 98, 101, 99, 102, 101, 99, 100]
    # Global pooling of one 2x2 channel: x - zp = [1, 2, 2, 1] sums to 6, scale
    # x_s / (y_s * 4) = 0.25 -> 1.5 -> 2.
    xq = np.array([11, 12, 12, 11], np.uint8).reshape(1, 2, 2, 1)
    assert q_global_avgpool(xq, 0.5, 10, 0.5, 100).tolist() == [[[[102]]]]
    # Depthwise: one channel, 3x3 of ones against weights w - w_zp = 1 everywhere, no padding,
    # bias 3 -> acc 12 (raw-input form: b' = 3 + 9*zp*wzp - zp*sum(w)); scale 0.5 -> 6.
    xq = np.full((1, 3, 3, 1), 6, np.uint8)
    wq = np.full((1, 3, 3, 1), 8, np.uint8)
    assert q_dwconv(xq, 0.5, 5, wq, 0.5, 7, np.array([3], np.int32), 0.5, 0).tolist() == \
        [[[[6]]]]


def main():
    global C2
    C2 = caffe2_pb2()
    cross_check_with_torch()
    self_check_int8()
    cases = make_cases()
    names = [c.name for c in cases]
    assert len(names) == len(set(names))
    if os.path.exists(OUT_DIR):
        shutil.rmtree(OUT_DIR)
    os.makedirs(OUT_DIR)
    for c in cases:
        c.save()
        print("wrote tests/models/caffe2/%s%s" % (c.name, " (binary)" if c.binary else ""))
    print("%d cases" % len(cases))


if __name__ == "__main__":
    main()
