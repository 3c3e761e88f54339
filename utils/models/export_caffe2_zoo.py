#!/usr/bin/python3
"""Export torchvision CNNs as Caffe2 predict_net/init_net pairs, the test data for ember's loader.

The models are utils/models/export_zoo.py's: RANDOM weights (nothing is ever downloaded), the same
seeds, BatchNorm calibration and eval mode (its functions are imported, not copied). Each torch
module graph is translated by hand, per architecture, into the operators Caffe2's model-zoo nets
are written in, with Caffe2's CPU semantics (pytorch/pytorch caffe2/operators/), and written as

    <out>/<name>/predict_net.pb    init_net.pb       binary NetDefs (schema: ember's own
    <out>/<name>/predict_net.pbtxt init_net.pbtxt    lib/Importer/Caffe2/caffe2.proto), and the same
                                                     nets in protobuf text format
    <out>/<name>/test_data_set_0/input_0.pb          ONNX TensorProto "data", float32 [1,3,224,224]
    <out>/<name>/test_data_set_0/output_0.pb         torch's output, named as the external_output
    <out>/<name>/stamp                               cache key (hash of the scripts, the schema and
                                                     the torch versions)

predict_net.external_input is "data" then every weight blob, external_output the final blob;
init_net holds one GivenTensorFill (args shape, values) per weight and lists them as its
external_output. In init_net.pbtxt each `values` list is written in the text format's list syntax
(`floats: [a, b, ...]`, 9 significant digits, which float32 round-trips through exactly).

Independent check (no ember involved), run on every fresh export before it is put in place, and on
cached ones with --check: both .pbtxt files are encoded with protoc (Google's C++ text parser) and
must give byte for byte the .pb files; then the written nets are executed by a small float64 numpy
interpreter of the operators emitted here, whose meaning is utils/models/caffe2_numpy.py's
references of Caffe2's CPU semantics (cited per operator; make_caffe2_test_models.py uses the
same ones), and its output must match torch's: |got - want| <= atol + 1e-4 |want|, atol =
max(1e-5, 1e-4 max|want|) (utils/zoo.sh's rule).

    /usr/bin/python3 utils/models/export_caffe2_zoo.py [--out build/zoo/caffe2] [--set ci|full]
                         [--only resnet18,alexnet] [--list] [--force] [--check] [--no-check]
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import caffe2_numpy  # noqa: E402  (the schema and the numpy references of the operators)
import export_zoo  # noqa: E402  (seeds, build, calibrate_batchnorm)
from caffe2_numpy import (  # noqa: E402
    CAFFE_LEGACY_POOLING, NOTSET, SAME, VALID, caffe2_pb2, compute_size_and_pad, ref_concat,
    ref_conv, ref_dropout, ref_fc, ref_flatten, ref_given_tensor_fill, ref_pool, ref_relu,
    ref_reshape, ref_spatial_bn, ref_sum)

ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA_DIR = os.path.join(ROOT, "lib", "Importer", "Caffe2")
SCHEMA = os.path.join(SCHEMA_DIR, "caffe2.proto")

SETS = {"ci": ["resnet18", "squeezenet1_1"]}
SETS["full"] = SETS["ci"] + ["resnet50", "densenet121", "googlenet", "alexnet"]

INPUT = "data"
IMAGE = (1, 3, 224, 224)
RTOL = 1e-4


def build(name):
    """(module, input shape): export_zoo's models, plus googlenet and alexnet built the same way."""
    import torchvision.models as tvm
    if name == "googlenet":
        m = tvm.googlenet(weights=None, aux_logits=False, init_weights=True)
        # transform_input (an affine re-normalization of the input channels) is only switched on
        # by torchvision for pretrained weights; the translation below assumes it is off.
        if m.transform_input:
            raise RuntimeError("googlenet: transform_input is on")
        return m, IMAGE
    if name == "alexnet":
        return tvm.alexnet(weights=None), IMAGE
    model, shape = export_zoo.build(name)
    if tuple(shape) != IMAGE:
        raise RuntimeError("%s: input %s, not %s" % (name, shape, IMAGE))
    return model, shape


def file_digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def script_stamp():
    import google.protobuf
    import torch
    import torchvision
    return "export_caffe2_zoo %s caffe2_numpy %s export_zoo %s caffe2.proto %s torch %s " \
           "torchvision %s protobuf %s\n" % (
               file_digest(os.path.abspath(__file__)),
               file_digest(os.path.abspath(caffe2_numpy.__file__)),
               file_digest(os.path.abspath(export_zoo.__file__)), file_digest(SCHEMA),
               torch.__version__, torchvision.__version__, google.protobuf.__version__)


NET_FILES = ["predict_net.pb", "init_net.pb", "predict_net.pbtxt", "init_net.pbtxt"]


def case_files(case_dir):
    data = os.path.join(case_dir, "test_data_set_0")
    return [os.path.join(case_dir, f) for f in NET_FILES] + [
        os.path.join(data, "input_0.pb"), os.path.join(data, "output_0.pb")]


def is_cached(case_dir, stamp):
    stamp_path = os.path.join(case_dir, "stamp")
    if not all(os.path.isfile(p) for p in case_files(case_dir) + [stamp_path]):
        return False
    with open(stamp_path) as f:
        return f.read() == stamp


# ------------------------------------------------------------------------------------------------
# Building NetDefs

SAFE_NAME = re.compile(r"^[A-Za-z0-9_/.]+$")


def set_arg(arg, name, value):
    """One caffe2.Argument: int -> i, float -> f, str -> s, [int] -> ints, [float] -> floats."""
    arg.name = name
    if isinstance(value, bool):
        raise TypeError("%s: give ints, not bools" % name)
    if isinstance(value, int):
        arg.i = value
    elif isinstance(value, float):
        arg.f = value
    elif isinstance(value, str):
        arg.s = value.encode()
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        arg.ints.extend(value)
    else:
        arg.floats.extend(float(v) for v in value)


def pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


class Net:
    """A predict_net being written, and the weights its init_net will fill."""

    def __init__(self, name):
        self.pb2 = caffe2_pb2()
        self.name = name
        self.predict = self.pb2.NetDef(name=name)
        self.predict.external_input.append(INPUT)
        self.weights = []      # (blob, float32 array), in external_input order
        self.blobs = {INPUT}   # every blob name defined so far
        self.params = 0        # torch parameter + buffer elements consumed

    # -- plumbing
    def _name(self, blob):
        if not SAFE_NAME.match(blob):
            raise ValueError("blob name %r" % blob)
        return blob

    def weight(self, blob, tensor):
        import numpy as np
        blob = self._name(blob)
        if blob in self.blobs:
            raise ValueError("blob %s defined twice" % blob)
        arr = np.ascontiguousarray(tensor.detach().cpu().numpy(), dtype=np.float32)
        self.weights.append((blob, arr))
        self.predict.external_input.append(blob)
        self.blobs.add(blob)
        self.params += arr.size
        return blob

    def op(self, type_, inputs, outputs, **args):
        for b in inputs:
            if b not in self.blobs:
                raise ValueError("%s reads undefined blob %s" % (type_, b))
        op = self.predict.op.add()
        op.type = type_
        op.input.extend(inputs)
        op.output.extend(self._name(b) for b in outputs)
        for k, v in args.items():
            set_arg(op.arg.add(), k, v)
        self.blobs.update(outputs)
        return outputs[0]

    def finish(self, output):
        self.predict.external_output.append(output)

    # -- layers (`args` spell the module's hyper-parameters; see the *_args helpers)
    def conv(self, x, m, out, args):
        """Conv(X, W[, b]); W is torch's [M, C/group, kH, kW], the same layout as Caffe2's."""
        if m.padding_mode != "zeros" or isinstance(m.padding, str):
            raise ValueError("conv padding %s/%s" % (m.padding_mode, m.padding))
        inputs = [x, self.weight(out + "_w", m.weight)]
        if m.bias is not None:
            inputs.append(self.weight(out + "_b", m.bias))
        return self.op("Conv", inputs, [out], **args)

    def bn(self, x, m, out, **extra):
        """SpatialBN(X, scale, bias, mean, var), is_test: torch's eval-mode BatchNorm2d."""
        if not m.affine or not m.track_running_stats:
            raise ValueError("BatchNorm without affine or running stats")
        inputs = [x, self.weight(out + "_s", m.weight), self.weight(out + "_b", m.bias),
                  self.weight(out + "_rm", m.running_mean),
                  self.weight(out + "_riv", m.running_var)]
        return self.op("SpatialBN", inputs, [out], is_test=1, epsilon=float(m.eps), **extra)

    def relu(self, x, out):
        return self.op("Relu", [x], [out])

    def maxpool(self, x, m, out, args):
        return self.op("MaxPool", [x], [out], **args)

    def fc(self, x, m, out, **extra):
        """FC(X, W, b): Y = X W^T + b, W torch's [N, K]."""
        return self.op("FC", [x, self.weight(out + "_w", m.weight),
                              self.weight(out + "_b", m.bias)], [out], **extra)


def conv_args(m, style, **extra):
    """Caffe2 spellings of a torch Conv2d's / MaxPool2d's kernel, stride, pads (and dilation).

    scalar:   kernel, stride, pad (square only; stride/pad left out when they are the default)
    repeated: kernels, strides, pads [t, l, b, r], dilations
    hw:       kernel_h/kernel_w, stride_h/stride_w, pad_t/pad_l/pad_b/pad_r
    mixed:    kernel, stride, pads [t, l, b, r]
    (ConvPoolOpBase's constructor, caffe2/operators/conv_pool_op_base.h, reads all of them.)
    """
    kh, kw = pair(m.kernel_size)
    sh, sw = pair(m.stride if m.stride is not None else m.kernel_size)
    ph, pw = pair(m.padding)
    dh, dw = pair(getattr(m, "dilation", 1))
    if (dh, dw) != (1, 1) and style != "repeated":
        raise ValueError("dilation needs the repeated style")
    args = {}
    if style == "scalar":
        if kh != kw or sh != sw or ph != pw:
            raise ValueError("not square")
        args["kernel"] = kh
        if sh != 1:
            args["stride"] = sh
        if ph != 0:
            args["pad"] = ph
    elif style == "repeated":
        args.update(kernels=[kh, kw], strides=[sh, sw], pads=[ph, pw, ph, pw],
                    dilations=[dh, dw])
    elif style == "hw":
        args.update(kernel_h=kh, kernel_w=kw, stride_h=sh, stride_w=sw,
                    pad_t=ph, pad_l=pw, pad_b=ph, pad_r=pw)
    elif style == "mixed":
        if kh != kw or sh != sw:
            raise ValueError("not square")
        args.update(kernel=kh, stride=sh, pads=[ph, pw, ph, pw])
    else:
        raise KeyError(style)
    args.update(extra)
    return args


def pool_args(m, style):
    """A torch MaxPool2d's Caffe2 arguments. ceil_mode=True becomes legacy_pad 3
    (CAFFE_LEGACY_POOLING): out = ceil((in + 2 pad - k) / s + 1), minus one when pad > 0 and the
    last window would start at or past in + pad, which is torch's ceil-mode size; the extra tail
    pad it implies is never read (Caffe2 clips every window to the input). See check_pool_sizes."""
    if pair(m.dilation) != (1, 1):
        raise ValueError("pool dilation")
    args = conv_args(m, style)
    if m.ceil_mode:
        args["legacy_pad"] = CAFFE_LEGACY_POOLING
    return args


# ------------------------------------------------------------------------------------------------
# Per-architecture translations

def translate_resnet(net, m, zoo_style):
    """torchvision ResNet (BasicBlock or Bottleneck).

    resnet18 (zoo_style False): scalar conv args, a new blob per op, Flatten then FC.
    resnet50 (zoo_style True), as Caffe2's model-zoo resnet50 is written: repeated conv args
    (kernels, strides, pads, dilations) with order NCHW, Relu and Sum in place, FC straight on the
    4-D pooled blob (FC flattens X from axis 1)."""
    import torchvision.models.resnet as R
    style = "repeated" if zoo_style else "scalar"
    extra = {"order": "NCHW"} if zoo_style else {}

    def relu(x, out):
        return net.relu(x, x if zoo_style else out)

    x = net.conv(INPUT, m.conv1, "conv1", conv_args(m.conv1, style, **extra))
    x = net.bn(x, m.bn1, "conv1_bn", **extra)
    x = relu(x, "conv1_relu")
    x = net.maxpool(x, m.maxpool, "pool1", pool_args(m.maxpool, style))
    for li, layer in enumerate([m.layer1, m.layer2, m.layer3, m.layer4], 1):
        for bi, blk in enumerate(layer):
            p = "res%d_%d" % (li + 1, bi)
            convs = [(blk.conv1, blk.bn1), (blk.conv2, blk.bn2)]
            if isinstance(blk, R.Bottleneck):
                convs.append((blk.conv3, blk.bn3))
            y = x
            for i, (c, b) in enumerate(convs):
                tag = "%s_branch2%s" % (p, "abc"[i])
                y = net.conv(y, c, tag, conv_args(c, style, **extra))
                y = net.bn(y, b, tag + "_bn", **extra)
                if i + 1 < len(convs):
                    y = relu(y, tag + "_relu")
            short = x
            if blk.downsample is not None:
                c, b = blk.downsample
                short = net.conv(x, c, p + "_branch1", conv_args(c, style, **extra))
                short = net.bn(short, b, p + "_branch1_bn", **extra)
            s = net.op("Sum", [y, short], [y if zoo_style else p + "_sum"])
            x = relu(s, p + "_relu")
    x = net.op("AveragePool", [x], ["pool5"], global_pooling=1, **extra)
    if zoo_style:
        return net.fc(x, m.fc, "pred")
    x = net.op("Flatten", [x], ["pool5_flat"])
    return net.fc(x, m.fc, "fc1000")


def translate_squeezenet(net, m, final_hw):
    """torchvision SqueezeNet 1.1, named as Caffe2's model-zoo squeezenet (fire2/squeeze1x1 ...):
    scalar conv args with biases, Relu and Dropout in place, MaxPool legacy_pad 3 (torch's
    ceil_mode), Concat with its split_info output, and a fixed-size AveragePool (kernel 13) and
    Flatten at the end."""
    import torch.nn as nn
    import torchvision.models.squeezenet as S
    x = INPUT
    fire, pool = 2, 1
    for mod in m.features:
        if isinstance(mod, nn.Conv2d):
            x = net.conv(x, mod, "conv1", conv_args(mod, "scalar"))
        elif isinstance(mod, nn.ReLU):
            x = net.relu(x, x)
        elif isinstance(mod, nn.MaxPool2d):
            x = net.maxpool(x, mod, "pool%d" % pool, pool_args(mod, "scalar"))
            pool += 2
        elif isinstance(mod, S.Fire):
            p = "fire%d/" % fire
            s = net.conv(x, mod.squeeze, p + "squeeze1x1", conv_args(mod.squeeze, "scalar"))
            s = net.relu(s, s)
            e1 = net.conv(s, mod.expand1x1, p + "expand1x1", conv_args(mod.expand1x1, "scalar"))
            e1 = net.relu(e1, e1)
            e3 = net.conv(s, mod.expand3x3, p + "expand3x3", conv_args(mod.expand3x3, "scalar"))
            e3 = net.relu(e3, e3)
            x = net.op("Concat", [e1, e3], [p + "concat", p + "concat_dims"], axis=1)
            fire += 1
        else:
            raise TypeError(type(mod))
    drop, conv, relu, avg = m.classifier
    assert isinstance(drop, nn.Dropout) and isinstance(conv, nn.Conv2d)
    assert isinstance(relu, nn.ReLU) and isinstance(avg, nn.AdaptiveAvgPool2d)
    assert pair(avg.output_size) == (1, 1)
    x = net.op("Dropout", [x], [x], ratio=float(drop.p), is_test=1)
    x = net.conv(x, conv, "conv10", conv_args(conv, "scalar"))
    x = net.relu(x, x)
    kh, kw = final_hw
    assert kh == kw
    x = net.op("AveragePool", [x], ["pool10"], kernel=kh, stride=1)
    return net.op("Flatten", [x], ["softmaxout_logits"], axis=1)


def translate_densenet(net, m):
    """torchvision DenseNet-121: conv0 spelled kernel_h/kernel_w, stride_h/stride_w,
    pad_t/pad_l/pad_b/pad_r; every dense layer's output is concatenated onto the block's running
    blob (incrementally, as the Caffe2 zoo densenet does: the same channel order as torch's
    cat of all previous features); transitions end in AveragePool kernel 2 stride 2; the head is
    Relu, global AveragePool, Reshape [1, -1] and FC."""
    import torchvision.models.densenet as D
    f = m.features
    x = net.conv(INPUT, f.conv0, "conv0", conv_args(f.conv0, "hw"))
    x = net.bn(x, f.norm0, "norm0")
    x = net.relu(x, "relu0")
    x = net.maxpool(x, f.pool0, "pool0", pool_args(f.pool0, "scalar"))
    for name, mod in list(f.named_children())[4:]:
        if isinstance(mod, D._DenseBlock):
            for lname, layer in mod.items():
                if layer.drop_rate > 0:
                    raise ValueError("dropout in a dense layer")
                p = "%s_%s" % (name, lname)
                y = net.bn(x, layer.norm1, p + "_norm1")
                y = net.relu(y, p + "_relu1")
                y = net.conv(y, layer.conv1, p + "_conv1", conv_args(layer.conv1, "scalar"))
                y = net.bn(y, layer.norm2, p + "_norm2")
                y = net.relu(y, p + "_relu2")
                y = net.conv(y, layer.conv2, p + "_conv2", conv_args(layer.conv2, "scalar"))
                x = net.op("Concat", [x, y], [p + "_concat", p + "_concat_split_info"], axis=1)
        elif isinstance(mod, D._Transition):
            x = net.bn(x, mod.norm, name + "_norm")
            x = net.relu(x, name + "_relu")
            x = net.conv(x, mod.conv, name + "_conv", conv_args(mod.conv, "scalar"))
            pl = mod.pool
            if pl.ceil_mode or pair(pl.padding) != (0, 0):
                raise ValueError("transition pool")  # count_include_pad would matter
            x = net.op("AveragePool", [x], [name + "_pool"], kernel=pair(pl.kernel_size)[0],
                       stride=pair(pl.stride)[0])
        elif name == "norm5":
            x = net.bn(x, mod, "norm5")
        else:
            raise TypeError(name)
    x = net.relu(x, "relu5")
    x = net.op("AveragePool", [x], ["pool5"], global_pooling=1)
    x = net.op("Reshape", [x], ["pool5_flat", "pool5_old_shape"], shape=[1, -1])
    return net.fc(x, m.classifier, "classifier")


def translate_googlenet(net, m):
    """torchvision GoogLeNet without aux heads (transform_input off): conv args kernel, stride,
    pads [t, l, b, r]; BatchNorm epsilon 0.001; every MaxPool is torch ceil_mode, i.e. legacy_pad
    3 (the inception pool branch with pad 1); Concat of the 4 branches; head global AveragePool,
    Reshape [0, -1] (0 copies the input's dim), Dropout, FC."""
    def basic(x, bc, out):
        x = net.conv(x, bc.conv, out, conv_args(bc.conv, "mixed"))
        x = net.bn(x, bc.bn, out + "_bn")
        return net.relu(x, out + "_relu")

    x = basic(INPUT, m.conv1, "conv1")
    x = net.maxpool(x, m.maxpool1, "pool1", pool_args(m.maxpool1, "mixed"))
    x = basic(x, m.conv2, "conv2")
    x = basic(x, m.conv3, "conv3")
    x = net.maxpool(x, m.maxpool2, "pool2", pool_args(m.maxpool2, "mixed"))
    for name in ["3a", "3b", "pool3", "4a", "4b", "4c", "4d", "4e", "pool4", "5a", "5b"]:
        if name.startswith("pool"):
            mp = getattr(m, "maxpool" + name[-1])
            x = net.maxpool(x, mp, name, pool_args(mp, "mixed"))
            continue
        inc = getattr(m, "inception" + name)
        p = "inception_" + name
        b1 = basic(x, inc.branch1, p + "_1x1")
        b2 = basic(basic(x, inc.branch2[0], p + "_3x3_reduce"), inc.branch2[1], p + "_3x3")
        b3 = basic(basic(x, inc.branch3[0], p + "_5x5_reduce"), inc.branch3[1], p + "_5x5")
        b4 = net.maxpool(x, inc.branch4[0], p + "_pool", pool_args(inc.branch4[0], "mixed"))
        b4 = basic(b4, inc.branch4[1], p + "_pool_proj")
        x = net.op("Concat", [b1, b2, b3, b4], [p + "_output", p + "_output_split_info"], axis=1)
    assert pair(m.avgpool.output_size) == (1, 1)
    x = net.op("AveragePool", [x], ["pool5"], global_pooling=1)
    x = net.op("Reshape", [x], ["pool5_flat", "pool5_old_shape"], shape=[0, -1])
    x = net.op("Dropout", [x], ["pool5_drop"], ratio=float(m.dropout.p), is_test=1)
    return net.fc(x, m.fc, "loss3_classifier")


def translate_alexnet(net, m, features_hw):
    """torchvision AlexNet: conv args kernel, stride, pad plus explicit group 1, dilation 1 and
    order NCHW, biases; MaxPool kernel 3 stride 2 (floor mode, no legacy_pad); the adaptive 6x6
    average pool is the identity on the 6x6 features of a 224 image and is left out; Flatten,
    then Dropout / FC / Relu as torch's classifier."""
    import torch.nn as nn
    if tuple(features_hw) != pair(m.avgpool.output_size):
        raise ValueError("alexnet: features are %s, the adaptive pool would not be the identity"
                         % (features_hw,))
    x = INPUT
    n = {"conv": 0, "pool": 0}
    for mod in m.features:
        if isinstance(mod, nn.Conv2d):
            n["conv"] += 1
            x = net.conv(x, mod, "conv%d" % n["conv"],
                         conv_args(mod, "scalar", group=1, dilation=1, order="NCHW"))
        elif isinstance(mod, nn.ReLU):
            x = net.relu(x, "relu%d" % n["conv"])
        elif isinstance(mod, nn.MaxPool2d):
            n["pool"] += 1
            x = net.maxpool(x, mod, "pool%d" % n["pool"], pool_args(mod, "scalar"))
        else:
            raise TypeError(type(mod))
    x = net.op("Flatten", [x], ["pool5_flat"])
    fcs = 5
    for mod in m.classifier:
        if isinstance(mod, nn.Dropout):
            x = net.op("Dropout", [x], ["drop%d" % fcs], ratio=float(mod.p), is_test=1)
        elif isinstance(mod, nn.Linear):
            fcs += 1
            x = net.fc(x, mod, "fc%d" % fcs)
        elif isinstance(mod, nn.ReLU):
            x = net.relu(x, "relu%d" % fcs)
        else:
            raise TypeError(type(mod))
    return x


def translate(name, model, x):
    import torch
    net = Net(name)
    with torch.no_grad():
        if name in ("resnet18", "resnet50"):
            out = translate_resnet(net, model, zoo_style=(name == "resnet50"))
        elif name == "squeezenet1_1":
            out = translate_squeezenet(net, model, model.features(x).shape[-2:])
        elif name == "densenet121":
            out = translate_densenet(net, model)
        elif name == "googlenet":
            out = translate_googlenet(net, model)
        elif name == "alexnet":
            out = translate_alexnet(net, model, model.features(x).shape[-2:])
        else:
            raise KeyError(name)
    net.finish(out)
    # every parameter and running statistic must have become a weight, once
    want = sum(p.numel() for p in model.parameters()) + sum(
        b.numel() for n, b in model.named_buffers() if not n.endswith("num_batches_tracked"))
    if net.params != want:
        raise RuntimeError("%s: %d weight elements written, the model has %d"
                           % (name, net.params, want))
    return net


# ------------------------------------------------------------------------------------------------
# Writing

def init_netdef(net):
    pb2 = net.pb2
    init = pb2.NetDef(name=net.name + "_init")
    for blob, arr in net.weights:
        op = init.op.add()
        op.type = "GivenTensorFill"
        op.output.append(blob)
        set_arg(op.arg.add(), "shape", [int(d) for d in arr.shape])
        a = op.arg.add()
        a.name = "values"
        a.floats.extend(arr.ravel().tolist())
        init.external_output.append(blob)
    return init


def write_init_pbtxt(net, path):
    """init_net in text format, laid out as protobuf's printer does, except each `values` list
    in list syntax, 8 to a line ('%.9g' round-trips float32 exactly)."""
    per_line, chunk = 8, 1 << 20
    sep = ",\n      "
    with open(path, "w") as f:
        f.write('name: "%s_init"\n' % net.name)
        for blob, arr in net.weights:
            f.write('op {\n  output: "%s"\n  type: "GivenTensorFill"\n' % blob)
            f.write('  arg {\n    name: "shape"\n')
            for d in arr.shape:
                f.write("    ints: %d\n" % d)
            f.write('  }\n  arg {\n    name: "values"\n    floats: [\n      ')
            flat = arr.ravel()
            for start in range(0, flat.size, chunk):
                s = list(map("%.9g".__mod__, flat[start:start + chunk].tolist()))
                if start:
                    f.write(sep)
                f.write(sep.join(", ".join(s[i:i + per_line])
                                 for i in range(0, len(s), per_line)))
            f.write("\n    ]\n  }\n}\n")
        for blob, _ in net.weights:
            f.write('external_output: "%s"\n' % blob)


def write_case(net, case_dir, x, y):
    import numpy as np
    from google.protobuf import text_format
    from onnx import numpy_helper
    with open(os.path.join(case_dir, "predict_net.pb"), "wb") as f:
        f.write(net.predict.SerializeToString())
    with open(os.path.join(case_dir, "predict_net.pbtxt"), "w") as f:
        f.write(text_format.MessageToString(net.predict))
    init = init_netdef(net)
    with open(os.path.join(case_dir, "init_net.pb"), "wb") as f:
        f.write(init.SerializeToString())
    del init
    write_init_pbtxt(net, os.path.join(case_dir, "init_net.pbtxt"))
    data = os.path.join(case_dir, "test_data_set_0")
    os.makedirs(data)
    for fname, arr, tname in (("input_0.pb", x, INPUT),
                              ("output_0.pb", y, net.predict.external_output[0])):
        with open(os.path.join(data, fname), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(arr, np.float32), name=tname)
                    .SerializeToString())


# ------------------------------------------------------------------------------------------------
# The independent check: a float64 numpy interpreter of the emitted Caffe2 operators. Each op_*
# reads the OperatorDef's arguments as Caffe2's op does and calls caffe2_numpy's reference, where
# the operator's meaning (Caffe2's CPU source, cited there) is written.

class Args:
    """An OperatorDef's arguments, read as Caffe2's ArgumentHelper does."""

    def __init__(self, op):
        self.a = {a.name: a for a in op.arg}

    def has(self, name):
        return name in self.a

    def int(self, name, default):
        return int(self.a[name].i) if name in self.a else default

    def float(self, name, default):
        return float(self.a[name].f) if name in self.a else default

    def str(self, name, default):
        return self.a[name].s.decode() if name in self.a else default

    def ints(self, name):
        return [int(v) for v in self.a[name].ints] if name in self.a else []


class ConvPoolParams:
    """The arguments ConvPoolOpBase's constructor reads (conv_pool_op_base.h): kernels/kernel/
    kernel_h+kernel_w, strides/stride/stride_h+stride_w, dilations/dilation/dilation_h+dilation_w,
    pads/pad/pad_t+pad_l+pad_b+pad_r (pads are [head dims..., tail dims...]), legacy_pad,
    global_pooling, group, order (2-D kernels only)."""

    def __init__(self, a):
        self.legacy = a.int("legacy_pad", NOTSET)
        self.global_pooling = a.int("global_pooling", 0)
        self.group = a.int("group", 1)
        self.order = a.str("order", "NCHW")
        kernel, dilation = a.ints("kernels"), a.ints("dilations")
        stride, pads = a.ints("strides"), a.ints("pads")
        if self.legacy in (VALID, SAME) and (a.has("pads") or a.has("pad")):
            raise ValueError("legacy VALID/SAME with explicit pads")
        if a.has("kernel"):
            kernel = [a.int("kernel", 0)] * 2
        elif a.has("kernel_h") and a.has("kernel_w"):
            kernel = [a.int("kernel_h", 0), a.int("kernel_w", 0)]
        if a.has("stride"):
            stride = [a.int("stride", 0)] * 2
        elif a.has("stride_h") and a.has("stride_w"):
            stride = [a.int("stride_h", 0), a.int("stride_w", 0)]
        if a.has("dilation"):
            dilation = [a.int("dilation", 0)] * 2
        elif a.has("dilation_h") and a.has("dilation_w"):
            dilation = [a.int("dilation_h", 0), a.int("dilation_w", 0)]
        if a.has("pad"):
            pads = [a.int("pad", 0)] * 4
        elif all(a.has(p) for p in ("pad_t", "pad_l", "pad_b", "pad_r")):
            pads = [a.int(p, 0) for p in ("pad_t", "pad_l", "pad_b", "pad_r")]
        kernel = kernel or [0, 0]
        stride = stride or [1] * len(kernel)
        pads = pads or [0] * (2 * len(kernel))
        dilation = dilation or [1] * len(kernel)
        if not (len(kernel) == len(stride) == len(dilation) == 2 and len(pads) == 4):
            raise ValueError("expected 2-D kernel, stride, dilation and 4 pads")
        if self.global_pooling and (any(pads) or stride != [1, 1] or dilation != [1, 1]):
            raise ValueError("global_pooling with pad, stride or dilation")
        if self.group != 1 and dilation != [1, 1]:
            raise ValueError("group with dilation")
        self.kernel, self.stride, self.pads, self.dilation = kernel, stride, pads, dilation


def op_conv(op, a, x, w, b=None):
    """Conv (optional bias): ref_conv."""
    p = ConvPoolParams(a)
    if p.global_pooling:
        raise ValueError("Conv with global_pooling")
    return [ref_conv(x, w, b, p.kernel, p.stride, p.pads, p.dilation, p.group, p.legacy,
                     p.order)]


def op_pool(kind):
    def run(op, a, x):
        """MaxPool / AveragePool: ref_pool (PoolOp rejects dilation)."""
        p = ConvPoolParams(a)
        if p.dilation != [1, 1]:
            raise ValueError("Pooling op does not support dilation")
        return [ref_pool(x, kind, p.kernel, p.stride, p.pads, p.legacy,
                         bool(a.int("count_include_pad", 0)), bool(p.global_pooling), p.order)]
    return run


def op_spatial_bn(op, a, x, scale, bias, mean, var):
    """SpatialBN, only is_test with one output: ref_spatial_bn."""
    if not a.int("is_test", 0) or len(op.output) != 1:
        raise ValueError("SpatialBN: only is_test with one output is emitted")
    return [ref_spatial_bn(x, scale, bias, mean, var, a.float("epsilon", 1e-5),
                           a.str("order", "NCHW"))]


def op_concat(op, a, *xs):
    """Concat (and its split_info output): ref_concat."""
    axis = a.int("axis", -1) if a.has("axis") else None
    return list(ref_concat(xs, axis, a.str("order", "NCHW"), bool(a.int("add_axis", 0))))


OPS = {"Conv": op_conv, "MaxPool": op_pool("max"), "AveragePool": op_pool("avg"),
       "SpatialBN": op_spatial_bn, "Concat": op_concat,
       "Relu": lambda op, a, x: [ref_relu(x)],
       "Sum": lambda op, a, *xs: [ref_sum(xs)],
       "FC": lambda op, a, x, w, b: [ref_fc(x, w, b, a.int("axis", 1), a.int("axis_w", 1))],
       "Flatten": lambda op, a, x: [ref_flatten(x, a.int("axis", 1))],
       "Reshape": lambda op, a, x: list(ref_reshape(x, a.ints("shape"))),
       "Dropout": lambda op, a, x: [ref_dropout(x, a.int("is_test", 0))],
       "GivenTensorFill": lambda op, a: [ref_given_tensor_fill(
           a.ints("shape"), a.a["values"].floats).astype("float64")]}


def run_net(net, ws):
    for op in net.op:
        if op.type not in OPS:
            raise ValueError("no numpy implementation of %s" % op.type)
        missing = [b for b in op.input if b not in ws]
        if missing:
            raise ValueError("%s reads undefined %s" % (op.type, missing))
        outs = OPS[op.type](op, Args(op), *[ws[b] for b in op.input])
        if len(outs) < len(op.output):
            raise ValueError("%s: %d outputs named, %d computed" % (op.type, len(op.output),
                                                                     len(outs)))
        for b, v in zip(op.output, outs):
            ws[b] = v


def execute(case_dir):
    """Runs case_dir's predict_net on its input with weights from its init_net, in float64."""
    import numpy as np
    from onnx import load_tensor, numpy_helper
    pb2 = caffe2_pb2()
    init, pred = pb2.NetDef(), pb2.NetDef()
    with open(os.path.join(case_dir, "init_net.pb"), "rb") as f:
        init.ParseFromString(f.read())
    with open(os.path.join(case_dir, "predict_net.pb"), "rb") as f:
        pred.ParseFromString(f.read())
    ws = {}
    run_net(init, ws)
    if sorted(init.external_output) != sorted(ws):
        raise ValueError("init_net external_output does not list its blobs")
    inp = load_tensor(os.path.join(case_dir, "test_data_set_0", "input_0.pb"))
    if inp.name != INPUT or pred.external_input[0] != INPUT:
        raise ValueError("the input is not %r" % INPUT)
    ws[INPUT] = numpy_helper.to_array(inp).astype(np.float64)
    if sorted(pred.external_input) != sorted(ws):
        raise ValueError("predict_net external_input is not data + the init_net's blobs")
    run_net(pred, ws)
    if len(pred.external_output) != 1:
        raise ValueError("expected one external_output")
    return pred.external_output[0], ws[pred.external_output[0]]


def check_text(case_dir):
    """Each .pbtxt, encoded by protoc (Google's C++ text parser), must equal its .pb."""
    for stem in ("predict_net", "init_net"):
        with open(os.path.join(case_dir, stem + ".pbtxt"), "rb") as src:
            enc = subprocess.run(["protoc", "--proto_path=" + SCHEMA_DIR,
                                  "--encode=ember.caffe2.NetDef", "caffe2.proto"], stdin=src,
                                 stdout=subprocess.PIPE, check=True).stdout
        with open(os.path.join(case_dir, stem + ".pb"), "rb") as f:
            if f.read() != enc:
                raise RuntimeError("%s.pbtxt does not encode to %s.pb" % (stem, stem))


def check(case_dir):
    """Returns (max abs error, atol) of the numpy execution against torch's output_0.pb."""
    import numpy as np
    from onnx import load_tensor, numpy_helper
    check_text(case_dir)
    out_name, got = execute(case_dir)
    t = load_tensor(os.path.join(case_dir, "test_data_set_0", "output_0.pb"))
    want = numpy_helper.to_array(t).astype(np.float64)
    if t.name != out_name:
        raise RuntimeError("output_0.pb is named %r, the net's output %r" % (t.name, out_name))
    if got.shape != want.shape:
        raise RuntimeError("numpy output %s, torch's %s" % (got.shape, want.shape))
    err = np.abs(got - want)
    atol = max(1e-5, 1e-4 * float(np.abs(want).max()))
    if not np.all(err <= atol + RTOL * np.abs(want)):
        raise RuntimeError("numpy execution differs from torch: max abs error %.3g (atol %.3g)"
                           % (float(err.max()), atol))
    return float(err.max()), atol


def check_pool_sizes():
    """Caffe2's legacy_pad 3 output size equals torch's ceil_mode size for the pools emitted
    (and a few more), and NOTSET's equals floor mode's."""
    for n in range(5, 120):
        for k, s, p in ((3, 2, 0), (3, 2, 1), (2, 2, 0), (3, 1, 1), (3, 3, 1), (2, 1, 0)):
            if n + 2 * p < k:
                continue
            t = -(-(n + 2 * p - k) // s) + 1
            if (t - 1) * s >= n + p:
                t -= 1
            c, _, _ = compute_size_and_pad(n, s, k, 1, CAFFE_LEGACY_POOLING, p, p)
            if c != t:
                raise AssertionError("legacy pooling size %d != torch ceil %d (n=%d k=%d s=%d "
                                     "p=%d)" % (c, t, n, k, s, p))
            c, _, _ = compute_size_and_pad(n, s, k, 1, NOTSET, p, p)
            if c != (n + 2 * p - k) // s + 1:
                raise AssertionError("NOTSET size")


# ------------------------------------------------------------------------------------------------

def export(name, case_dir, stamp, do_check):
    """Builds, calibrates, runs, translates and writes one model; checks it before putting it in
    place. Returns (torch output, check result or None)."""
    import numpy as np
    import torch
    torch.manual_seed(export_zoo.SEED)
    model, shape = build(name)
    export_zoo.calibrate_batchnorm(model, shape)
    model.eval()
    x = torch.randn(shape, generator=torch.Generator().manual_seed(export_zoo.INPUT_SEED))
    with torch.no_grad():
        y = model(x)
    y_np = y.numpy().astype(np.float32)
    if not np.all(np.isfinite(y_np)):
        raise RuntimeError("%s: torch output is not finite" % name)
    scale = float(np.max(np.abs(y_np)))
    if not 1e-2 <= scale <= 1e3:
        raise RuntimeError("%s: torch output max |y| = %g, not O(1)" % (name, scale))
    net = translate(name, model, x)

    tmp = "%s.tmp%d" % (case_dir, os.getpid())
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        write_case(net, tmp, x.numpy(), y_np)
        del net
        result = check(tmp) if do_check else None
        with open(os.path.join(tmp, "stamp"), "w") as f:
            f.write(stamp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    shutil.rmtree(case_dir, ignore_errors=True)
    try:
        os.rename(tmp, case_dir)
    except OSError:
        if not is_cached(case_dir, stamp):  # else a concurrent run just wrote the same files
            raise
        shutil.rmtree(tmp, ignore_errors=True)
    return y_np, result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "zoo", "caffe2"),
                    help="folder to write <name>/ cases into (default: %(default)s)")
    ap.add_argument("--set", choices=sorted(SETS), default="ci",
                    help="ci: %s; full: also %s" % (", ".join(SETS["ci"]),
                                                    ", ".join(SETS["full"][len(SETS["ci"]):])))
    ap.add_argument("--only", help="comma-separated model names (instead of --set)")
    ap.add_argument("--list", action="store_true", help="print the selected names and exit")
    ap.add_argument("--force", action="store_true", help="re-export even when cached")
    ap.add_argument("--check", action="store_true",
                    help="also run the check on cached models (fresh exports always are)")
    ap.add_argument("--no-check", action="store_true", help="skip the check of fresh exports")
    args = ap.parse_args()

    names = args.only.split(",") if args.only else SETS[args.set]
    unknown = [n for n in names if n not in SETS["full"]]
    if unknown:
        ap.error("unknown model(s): %s (known: %s)" % (", ".join(unknown),
                                                       ", ".join(SETS["full"])))
    if args.list:
        print("\n".join(names))
        return 0
    if args.check and args.no_check:
        ap.error("--check and --no-check")

    import numpy as np
    import torch
    torch.set_num_threads(2)
    check_pool_sizes()
    stamp = script_stamp()
    os.makedirs(args.out, exist_ok=True)
    failed = 0
    for name in names:
        case_dir = os.path.join(args.out, name)
        start = time.time()
        try:
            if not args.force and is_cached(case_dir, stamp):
                from onnx import load_tensor, numpy_helper
                y = numpy_helper.to_array(load_tensor(case_files(case_dir)[-1]))
                result = check(case_dir) if args.check else None
                what = "cached"
            else:
                y, result = export(name, case_dir, stamp, not args.no_check)
                what = "exported"
        except Exception as e:  # report every model, fail at the end
            print("FAILED   %-14s %s: %s" % (name, type(e).__name__, e), flush=True)
            failed += 1
            continue
        mb = [os.path.getsize(os.path.join(case_dir, f)) / 1e6 for f in NET_FILES]
        checked = ("numpy max_abs_err %-9.3g" % result[0]) if result else "not checked" + " " * 11
        print("%-8s %-14s output %-10s max|y| %-7.3g %s pb %6.1f MB pbtxt %7.1f MB %6.1f s" % (
            what, name, list(y.shape), float(np.max(np.abs(y))), checked, mb[0] + mb[1],
            mb[2] + mb[3], time.time() - start), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
