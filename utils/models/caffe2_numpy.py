"""Numpy references of Caffe2's CPU operators, shared by ember's Caffe2 test-data scripts.

Each function states one operator's meaning as Caffe2's own CPU source computes it (pytorch/pytorch
caffe2/operators/, and for the int8 family the QNNPACK kernels Caffe2 calls), never ember's nor
another loader's; its docstring cites the file and states the rule. ref_* are the float operators
(with the ConvPoolOpBase / ConvTransposeUnpoolBase geometry they share), q_* the int8 family and
its QNNPACK / gemmlowp integer arithmetic. They accumulate in float64 and round once to float32,
Caffe2's tensor type; given a float64 input they stay in float64. caffe2_pb2() compiles ember's
schema lib/Importer/Caffe2/caffe2.proto with protoc into a temporary folder (no generated code is
checked in). A library, imported from this folder by

    utils/models/make_caffe2_test_models.py  (expected outputs of tests/models/caffe2/; it also
                                              cross-checks these references against torch)
    utils/models/export_caffe2_zoo.py        (--check: a float64 numpy executor of the zoo nets)

and run through them, e.g. /usr/bin/python3 utils/models/make_caffe2_test_models.py.
"""

import atexit
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTO_DIR = os.path.join(REPO, "lib", "Importer", "Caffe2")

# caffe2.proto TensorProto.DataType numbers (the Cast op's `to`, ConstantFill's `dtype`).
DT_FLOAT, DT_INT32, DT_BOOL, DT_UINT8, DT_INT64 = 1, 2, 5, 6, 10

# caffe2_legacy.proto LegacyPadding.
NOTSET, VALID, SAME, CAFFE_LEGACY_POOLING = 0, 1, 2, 3

F32 = np.float32

_PB2 = None


def caffe2_pb2():
    """The caffe2_pb2 module of lib/Importer/Caffe2/caffe2.proto: compiled by protoc into a
    temporary folder on first use (removed at exit) and imported; later calls return it."""
    global _PB2
    if _PB2 is None:
        tmp = tempfile.mkdtemp(prefix="ember_caffe2_pb2_")
        atexit.register(shutil.rmtree, tmp, True)
        subprocess.check_call(["protoc", "--proto_path=" + PROTO_DIR, "--python_out=" + tmp,
                               "caffe2.proto"])
        sys.path.insert(0, tmp)
        import caffe2_pb2 as pb2  # noqa: E402  (generated just above)
        _PB2 = pb2
    return _PB2


def rounded(y, *inputs):
    """A float reference's result: float64 when one of `inputs` is float64, else rounded once
    to float32."""
    f64 = any(getattr(t, "dtype", None) == np.float64 for t in inputs)
    return y.astype(np.float64 if f64 else F32)


# ============================================================================
# Numpy references: float operators
# ============================================================================

def compute_size_and_pad(in_size, stride, kernel, dilation, legacy_pad, pad_head, pad_tail):
    """ConvPoolOpBase::ComputeSizeAndPad (caffe2/operators/conv_pool_op_base.h).

    Returns (out_size, pad_head, pad_tail):
      NOTSET (0):  out = int(float(in + head + tail - dkernel) / stride + 1), pads as given;
                   dkernel = dilation * (kernel - 1) + 1.
      VALID (1):   pads 0, out = (in - dkernel) / stride + 1 (integer division).
      SAME (2):    dilation must be 1; target = ceil(in / stride);
                   pad_needed = (target - 1) * stride + kernel - in;
                   head = pad_needed / 2 (CAFFE2_PAD_HEAD_MORE is false: the tail gets the odd
                   pad, like TensorFlow / SAME_UPPER), tail = pad_needed - head;
                   out = (in + pad_needed - dkernel) / stride + 1.
      CAFFE_LEGACY_POOLING (3): only the head pad is read; out = ceil(float(in + 2 * head -
                   kernel) / stride + 1) (Caffe rounds up); if head > 0 and the last window
                   would start at or past in + head, out -= 1; the standard (floor) size is
                   std = int(float(in + 2 * head - kernel) / stride + 1) and
                   tail = head + stride * (out - std).  The kernel is not dilated here.
    """
    dk = dilation * (kernel - 1) + 1
    if legacy_pad == NOTSET:
        assert in_size + pad_head + pad_tail >= dk
        out = int(F32(in_size + pad_head + pad_tail - dk) / F32(stride) + F32(1))
        return out, pad_head, pad_tail
    if legacy_pad == VALID:
        return (in_size - dk) // stride + 1, 0, 0
    if legacy_pad == SAME:
        assert dilation == 1
        target = (in_size + stride - 1) // stride
        needed = (target - 1) * stride + kernel - in_size
        assert needed >= 0, "C++ truncating division of a negative pad is not exercised"
        head = needed // 2
        return (in_size + needed - dk) // stride + 1, head, needed - head
    assert legacy_pad == CAFFE_LEGACY_POOLING
    assert pad_head >= 0
    out = int(math.ceil(F32(in_size + pad_head * 2 - kernel) / F32(stride) + F32(1)))
    if pad_head > 0 and (out - 1) * stride >= in_size + pad_head:
        out -= 1
    std = int(F32(in_size + pad_head * 2 - kernel) / F32(stride) + F32(1))
    assert out >= std
    return out, pad_head, pad_head + stride * (out - std)


def pool_geometry(hw, kernel, stride, pads, legacy_pad=NOTSET, dilation=(1, 1)):
    """Output size and final pads [t, l, b, r] of a 2-D conv/pool, per ConvPoolOpBase."""
    oh, pt, pb = compute_size_and_pad(hw[0], stride[0], kernel[0], dilation[0], legacy_pad,
                                      pads[0], pads[2])
    ow, pl, pr = compute_size_and_pad(hw[1], stride[1], kernel[1], dilation[1], legacy_pad,
                                      pads[1], pads[3])
    return (oh, ow), (pt, pl, pb, pr)


def ref_conv(x, w, b=None, kernel=None, stride=(1, 1), pads=(0, 0, 0, 0), dilation=(1, 1),
             group=1, legacy_pad=NOTSET, order="NCHW"):
    """Conv, caffe2/operators/conv_op_impl.h (ConvOp::RunOnDeviceWithOrderNCHW/NHWC) with the
    geometry of conv_pool_op_base.h.

    Cross-correlation; NCHW: X [N, C, H, W], filter [M, C/group, kH, kW]; NHWC: X [N, H, W, C],
    filter [M, kH, kW, C/group], Y [N, oH, oW, M]. Group g uses input channels
    [g*C/G, (g+1)*C/G) and output channels [g*M/G, (g+1)*M/G) in both orders. Padding is zeros;
    pads are [t, l, b, r] after ComputeSizeAndPad (legacy_pad VALID/SAME replace them). The
    optional bias [M] is added to every output pixel. Float64 accumulation, one rounding.
    """
    if order == "NHWC":
        x = np.transpose(x, (0, 3, 1, 2))
        w = np.transpose(w, (0, 3, 1, 2))
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    if kernel is not None:
        assert tuple(kernel) == (kh, kw)
    assert c == cg * group and m % group == 0
    (oh, ow), (pt, pl, pb, pr) = pool_geometry((h, wd), (kh, kw), stride, pads, legacy_pad,
                                               dilation)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    sh, sw = stride
    dh, dw = dilation
    ekh, ekw = (kh - 1) * dh + 1, (kw - 1) * dw + 1
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
    y = rounded(y, x, w, b)
    return np.ascontiguousarray(np.transpose(y, (0, 2, 3, 1))) if order == "NHWC" else y


def conv_transpose_size_and_pad(in_size, stride, kernel, adj, legacy_pad, pad_head, pad_tail):
    """ConvTransposeUnpoolBase::ComputeSizeAndPad
    (caffe2/operators/conv_transpose_unpool_op_base.h).

    Returns (out_size, pad_head, pad_tail):
      NOTSET (0):       out = (in - 1) * stride + kernel + adj - pad_head - pad_tail, pads as given
                        (each must be >= 0).
      VALID (1) and SAME (2), handled "the same way" by the source: both pads are set to 0 and
                        out = (in - 1) * stride + kernel + adj -- SAME does NOT crop the output to
                        in * stride here, unlike ConvPoolOpBase's SAME for Conv. The constructor
                        rejects `pads` / `pad` / `pad_t..pad_r` together with VALID or SAME.
      CAFFE_LEGACY_POOLING (3): LOG(FATAL) "no longer supported".
    The constructor also enforces kernel > 0, stride > 0 and 0 <= adj <= stride (adj may equal the
    stride). The kernel is never dilated (the op passes dilation 1 to Col2Im).
    """
    assert 0 <= adj <= stride
    if legacy_pad == NOTSET:
        assert pad_head >= 0 and pad_tail >= 0
        return (in_size - 1) * stride + kernel + adj - pad_head - pad_tail, pad_head, pad_tail
    assert legacy_pad in (VALID, SAME)
    return (in_size - 1) * stride + kernel + adj, 0, 0


def ref_conv_transpose(x, w, b, stride=(1, 1), pads=(0, 0, 0, 0), adj=(0, 0), group=1,
                       order="NCHW", legacy_pad=NOTSET):
    """ConvTranspose, caffe2/operators/conv_transpose_op_impl.h (RunOnDeviceWithOrderNCHW /
    RunOnDeviceWithOrderNHWC of the newest source, which take `group` in both orders and an
    optional bias) with the geometry of conv_transpose_unpool_op_base.h
    (conv_transpose_size_and_pad).

    NCHW: X [N, C_in, H, W], filter [C_in, M/group, kH, kW], Y [N, M, oH, oW].
    NHWC: X [N, H, W, C_in], filter [C_in, kH, kW, M/group], Y [N, oH, oW, M].
    Group g takes input channels [g*C_in/G, (g+1)*C_in/G) (filter rows alike) and writes output
    channels [g*M/G, (g+1)*M/G) (NCHW: GemmStridedBatched over the groups; NHWC: one GemmEx per
    group into a [H*W, G, kH, kW, M/G] column buffer, then Col2Im with G groups). Col2Im places
    x[n, c, i, j] * w[c, m, p, q] at output row i * stride_h - pad_t + p and column
    j * stride_w - pad_l + q (positions outside the output are dropped); adj only adds rows and
    columns at the end, which receive the bias alone. The bias [M] (third input, optional) is
    added to every output pixel.
    """
    if order == "NHWC":
        x = np.transpose(x, (0, 3, 1, 2))
        w = np.transpose(w, (0, 3, 1, 2))
    n, cin, h, wd = x.shape
    cin2, mg, kh, kw = w.shape
    assert cin == cin2 and cin % group == 0
    m = mg * group
    sh, sw = stride
    oh, pt, pb = conv_transpose_size_and_pad(h, sh, kh, adj[0], legacy_pad, pads[0], pads[2])
    ow, pl, pr = conv_transpose_size_and_pad(wd, sw, kw, adj[1], legacy_pad, pads[1], pads[3])
    fh, fw = (h - 1) * sh + kh + adj[0], (wd - 1) * sw + kw + adj[1]
    full = np.zeros((n, m, fh, fw), np.float64)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    cg = cin // group
    for g in range(group):
        xg, wg = x64[:, g * cg:(g + 1) * cg], w64[g * cg:(g + 1) * cg]
        for i in range(h):
            for j in range(wd):
                full[:, g * mg:(g + 1) * mg, i * sh:i * sh + kh, j * sw:j * sw + kw] += \
                    np.einsum("nc,cmpq->nmpq", xg[:, :, i, j], wg)
    assert (oh, ow) == (fh - pt - pb, fw - pl - pr)
    y = full[:, :, pt:pt + oh, pl:pl + ow]
    if b is not None:
        y = y + b.astype(np.float64).reshape(1, -1, 1, 1)
    y = rounded(y, x, w, b)
    return np.ascontiguousarray(np.transpose(y, (0, 2, 3, 1))) if order == "NHWC" else y


def ref_pool(x, kind, kernel=None, stride=(1, 1), pads=(0, 0, 0, 0), legacy_pad=NOTSET,
             count_include_pad=False, global_pooling=False, order="NCHW"):
    """MaxPool / AveragePool, caffe2/operators/pool_op.cc (RunMaxPool2D, RunAveragePool2D,
    GlobalPoolingForward) and pool_op.h (AveragePoolFunctor) with conv_pool_op_base.h geometry.

    For output (h, w): t = max(h*stride_h - pad_t, 0), b = min(h*stride_h - pad_t + kernel_h, H),
    likewise l, r; the window is X[t:b, l:r] (padding never enters a max). AveragePool divides
    the window sum by (b - t) * (r - l) when count_include_pad is false (its default,
    AveragePoolFunctor reads GetSingleArgument<bool>("count_include_pad", false)) and by
    kernel_h * kernel_w when it is true -- always the full kernel area, even where the window
    is clipped by the image end beyond the pads (legacy_pad=3 can do that). global_pooling=1
    sets the kernel to the whole image, output 1x1 (mean / max over H*W).
    """
    if order == "NHWC":
        x = np.transpose(x, (0, 3, 1, 2))
    n, c, h, wd = x.shape
    x64 = x.astype(np.float64)
    if global_pooling:
        y = x64.max(axis=(2, 3), keepdims=True) if kind == "max" else \
            x64.mean(axis=(2, 3), keepdims=True)
    else:
        kh, kw = kernel
        assert all(p < k for p, k in zip(pads, (kh, kw, kh, kw))), \
            "Pad should be smaller than kernel."  # PoolOp's constructor, on the pads as given
        (oh, ow), (pt, pl, pb, pr) = pool_geometry((h, wd), kernel, stride, pads, legacy_pad)
        y = np.zeros((n, c, oh, ow), np.float64)
        for i in range(oh):
            t = max(i * stride[0] - pt, 0)
            bt = min(i * stride[0] - pt + kh, h)
            for j in range(ow):
                left = max(j * stride[1] - pl, 0)
                r = min(j * stride[1] - pl + kw, wd)
                assert bt > t and r > left, "empty pooling window"
                win = x64[:, :, t:bt, left:r]
                if kind == "max":
                    y[:, :, i, j] = win.max(axis=(2, 3))
                else:
                    cnt = kh * kw if count_include_pad else (bt - t) * (r - left)
                    y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    y = rounded(y, x)
    return np.ascontiguousarray(np.transpose(y, (0, 2, 3, 1))) if order == "NHWC" else y


def ref_spatial_bn(x, scale, bias, mean, var, eps=1e-5, order="NCHW"):
    """SpatialBN with is_test=1, caffe2/operators/spatial_batch_norm_op.h/.cc.

    y = (x - mean) / sqrt(var + epsilon) * scale + bias per channel (axis 1 for NCHW, the last
    axis for NHWC); epsilon defaults to 1e-5. Inputs X, scale, bias, mean, var; one output.
    (The source fuses it as alpha = scale / sqrt(var + epsilon), beta = bias - alpha * mean,
    Y = alpha X + beta: the same value up to the float64 rounding here.)
    """
    axis = 1 if order == "NCHW" else x.ndim - 1
    shp = [1] * x.ndim
    shp[axis] = -1
    r = lambda a: a.astype(np.float64).reshape(shp)
    y = (x.astype(np.float64) - r(mean)) / np.sqrt(r(var) + eps) * r(scale) + r(bias)
    return rounded(y, x, scale, bias, mean, var)


def ref_lrn(x, size, alpha, beta, bias=1.0, order="NCHW"):
    """LRN, caffe2/operators/local_response_normalization_op.cc/.h (LRNOp).

    Across channels: scale_c = bias + (alpha / size) * sum of x_c'^2 over
    c' in [c - pre_pad, c - pre_pad + size - 1] (clipped to the channels), pre_pad =
    (size - 1) / 2; y = x * scale^(-beta). Caffe2 divides alpha by size (alpha_over_size);
    bias defaults to 1, size must be odd. An optional second output is the scale tensor.
    """
    if order == "NHWC":
        x = np.transpose(x, (0, 3, 1, 2))
    c = x.shape[1]
    pre = (size - 1) // 2
    sq = x.astype(np.float64) ** 2
    s = np.zeros_like(sq)
    for ch in range(c):
        lo, hi = max(ch - pre, 0), min(ch - pre + size, c)
        s[:, ch] = sq[:, lo:hi].sum(axis=1)
    scale = bias + (alpha / size) * s
    y = rounded(x.astype(np.float64) * scale ** (-beta), x)
    return np.ascontiguousarray(np.transpose(y, (0, 2, 3, 1))) if order == "NHWC" else y


def ref_softmax(x, axis=1):
    """Softmax, caffe2/operators/softmax_op.cc: X is coerced to 2-D [prod(dims[:axis]),
    prod(dims[axis:])] (axis default 1, canonical_axis_index for negatives) and each row is
    normalised: exp(x - rowmax) / sum."""
    axis = axis % x.ndim
    rows = int(np.prod(x.shape[:axis]))
    x2 = x.astype(np.float64).reshape(rows, -1)
    e = np.exp(x2 - x2.max(axis=1, keepdims=True))
    return rounded((e / e.sum(axis=1, keepdims=True)).reshape(x.shape), x)


def ref_fc(x, w, b, axis=1, axis_w=1, transposed=False):
    """FC / FCTransposed, caffe2/operators/fully_connected_op.h (FullyConnectedOp).

    X is coerced to 2-D at `axis`: M = prod(X.dims[:axis]), K = prod(X.dims[axis:]).
    FC (TransposeWeight=true): N = prod(W.dims[:axis_w]), W viewed [N, K], Y = X W^T + b.
    FCTransposed: N = prod(W.dims[axis_w:]), W viewed [K, N], Y = X W + b.
    Y's shape is X.dims[:axis] + [N]; b is 1-D [N].
    """
    axis = axis % x.ndim
    axis_w = axis_w % w.ndim
    m, k = int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:]))
    if transposed:
        nn = int(np.prod(w.shape[axis_w:]))
        w2 = w.astype(np.float64).reshape(-1, nn)
    else:
        nn = int(np.prod(w.shape[:axis_w]))
        w2 = w.astype(np.float64).reshape(nn, -1).T
    assert w2.shape == (k, nn) and b.shape == (nn,)
    y = x.astype(np.float64).reshape(m, k) @ w2 + b.astype(np.float64)
    return rounded(y.reshape(tuple(x.shape[:axis]) + (nn,)), x, w, b)


def ref_matmul(a, b, axis_a=1, axis_b=1, trans_a=False, trans_b=False):
    """MatMul, caffe2/operators/matmul_op.h: A is coerced to 2-D at axis_a ([prod(dims[:axis_a]),
    prod(dims[axis_a:])]), B likewise at axis_b; then optionally transposed; Y = A' B' is
    always 2-D (this is not numpy matmul: no batch dimensions)."""
    a2 = a.astype(np.float64).reshape(int(np.prod(a.shape[:axis_a])), -1)
    b2 = b.astype(np.float64).reshape(int(np.prod(b.shape[:axis_b])), -1)
    a2 = a2.T if trans_a else a2
    b2 = b2.T if trans_b else b2
    return rounded(a2 @ b2, a, b)


def ref_batch_matmul(a, b, trans_a=False, trans_b=False, broadcast=False):
    """BatchMatMul, caffe2/operators/batch_matmul_op.h (newest source: the OP_SINGLE_ARG
    version using ComputeBroadcastBinaryOpDims). Matrices are the last two dims, transposed by
    trans_a / trans_b. The cases, in the source's order:
      both 1-D:  dot product (sizes must match); Y has shape [1] (not a 0-d scalar).
      A 1-D [K]: trans_a is ignored; trans_b: B [..., N, K] (B.dims[-1] == K), Y = B.dims[:-1],
                 Y[..., n] = sum_k B[..., n, k] A[k]; else B [..., K, N], Y = B.dims[:-2] + [N].
                 I.e. numpy.matmul(A, op(B)) -- the vector's 1 is dropped. `broadcast` is not
                 consulted.
      B 1-D [K]: not trans_a: A [..., M, K], Y = A.dims[:-1] = numpy.matmul(A, B). trans_a:
                 A [..., K, M]; the data is numpy.matmul(A^T, B) (M values per batch) but the
                 source sizes Y as A.dims[:-1], whose last dim is K -- well defined only when
                 M == K, so only square matrices are used with it here.
      otherwise: the batch dims (all but the last two) broadcast numpy-style, 1s included
                 (ComputeBroadcastBinaryOpDims, the shorter one padded with leading 1s);
                 Y = broadcast batch dims + [M, N]. `broadcast` must be set only when the
                 padded batch dims of A and B differ (so A [3, 4] times B [1, 4, 5] needs no
                 flag: both pad to batch [1]).
    """
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if a.ndim == 1 and b.ndim == 1:
        assert a.shape == b.shape
        return rounded(np.array([a64 @ b64]), a, b)
    if a.ndim == 1:
        y = np.matmul(a64, np.swapaxes(b64, -1, -2) if trans_b else b64)
        return rounded(y, a, b)
    if b.ndim == 1:
        if trans_a:
            assert a.shape[-1] == a.shape[-2], "trans_a with a 1-D B: Y is sized A.dims[:-1]"
            a64 = np.swapaxes(a64, -1, -2)
        return rounded(np.matmul(a64, b64), a, b)
    if trans_a:
        a64 = np.swapaxes(a64, -1, -2)
    if trans_b:
        b64 = np.swapaxes(b64, -1, -2)
    nd = max(a.ndim, b.ndim)
    pa = (1,) * (nd - a.ndim) + a.shape[:-2]
    pb = (1,) * (nd - b.ndim) + b.shape[:-2]
    for da, db in zip(pa, pb):
        assert da == db or da == 1 or db == 1
    if pa != pb:
        assert broadcast, "batch dims differ: Caffe2 enforces broadcast=1"
    return rounded(np.matmul(a64, b64), a, b)


def legacy_broadcast_sizes(a_shape, b_shape, axis=-1):
    """elementwise_ops_utils.cc ComputeLegacyBroadcastSizes: (pre, n, post).

    axis = -1 means A.ndim - B.ndim (B aligned with A's trailing dims). Leading and trailing
    size-1 dims of B are dropped first; the remaining dims of B must equal A's dims starting at
    axis + (number of dropped leading 1s)."""
    if axis == -1:
        axis = len(a_shape) - len(b_shape)
    assert 0 <= axis <= len(a_shape) - len(b_shape)
    start = 0
    while start < len(b_shape) and b_shape[start] == 1:
        start += 1
    end = len(b_shape) - 1
    while end >= start and b_shape[end] == 1:
        end -= 1
    pre = int(np.prod(a_shape[:axis + start]))
    for i in range(start, end + 1):
        assert a_shape[i + axis] == b_shape[i], "Broadcast dimension mismatch."
    n = int(np.prod(b_shape[start:end + 1]))
    post = int(np.prod(a_shape[axis + end + 1:]))
    return pre, n, post


def ref_binary(fn, a, b, broadcast=False, axis=-1):
    """Add / Sub / Mul / Div, caffe2/operators/elementwise_ops.h (BinaryElementwiseWithArgsOp).

    With the legacy argument broadcast=1: Y has A's shape and B is laid over A as
    [pre, n, post] per ComputeLegacyBroadcastSizes (elementwise_ops_utils.cc), `axis` giving
    where B starts in A (default -1: trailing alignment). Without it: numpy-style
    multidirectional broadcasting (ComputeBinaryBroadcastForwardDims)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if broadcast:
        pre, n, post = legacy_broadcast_sizes(a.shape, b.shape, axis)
        y = fn(a64.reshape(pre, n, post), b64.reshape(1, n, 1)).reshape(a.shape)
    else:
        y = fn(a64, b64)
    return rounded(y, a, b)


def ref_sum(xs):
    """Sum, caffe2/operators/utility_ops.h (SumOp): the elementwise sum of one or more inputs of
    one shape (no broadcasting), added in input order."""
    assert all(t.shape == xs[0].shape for t in xs), "Sum of different shapes"
    y = xs[0].astype(np.float64)
    for t in xs[1:]:
        y = y + t
    return rounded(y, *xs)


def ref_slice(x, starts, ends):
    """Slice with `starts` / `ends` arguments, caffe2/operators/slice_op.h (SliceImpl).

    Dims past len(starts) are kept whole. A negative start or end becomes dim + 1 + value, so
    -1 means the end of the dim (inclusive of the last element) and -2 drops one element --
    unlike numpy/ONNX, where -1 drops one. Values past dim clip to dim. Only one dimension may
    be partially sliced."""
    idx, partial = [], 0
    for i, d in enumerate(x.shape):
        if i >= len(starts):
            idx.append(slice(0, d))
            continue
        s, e = starts[i], ends[i]
        s = d + 1 + s if s < 0 else s
        e = d + 1 + e if e < 0 else e
        s, e = min(s, d), min(e, d)
        assert 0 <= s <= e
        partial += (s > 0 or e < d)
        idx.append(slice(s, e))
    assert partial <= 1, "Currently only possible to slice in 1 dimension."
    return np.ascontiguousarray(x[tuple(idx)])


def ref_gather(data, indices, axis=0, wrap_indices=None):
    """Gather, caffe2/operators/gather_op.h (newest source: GatherOp with gather_helper::
    gather_impl): Y = data indexed along `axis` (default 0; a negative axis counts from the
    back, axis + data.ndim); shape data.dims[:axis] + indices.dims + data.dims[axis+1:].
    Indices are int32 or int64. A negative index is wrapped (idx + dim) only when wrap_indices
    is set; the constructor defaults it to (axis_ == 0) on the argument as written, so it is
    true for axis 0 and false for every other value, -ndim included. An index outside
    [0, dim) after that is an error (check_indexarray_range)."""
    if wrap_indices is None:
        wrap_indices = axis == 0
    axis = axis + data.ndim if axis < 0 else axis
    idx = indices.astype(np.int64)
    if wrap_indices:
        idx = np.where(idx < 0, idx + data.shape[axis], idx)
    assert np.all((idx >= 0) & (idx < data.shape[axis]))
    return np.ascontiguousarray(np.take(data, idx, axis=axis))


def ref_tile(x, tiles, axis):
    """Tile, caffe2/operators/tile_op.h: the block x[i0..i_{axis-1}, ...] (everything from axis
    on) is copied `tiles` times for each outer index -- numpy.tile with reps only at axis.
    Both `tiles` and `axis` must be given (as arguments or inputs); a negative axis counts from
    the back (canonical_axis_index). For where they come from see tile_params."""
    axis = axis + x.ndim if axis < 0 else axis
    reps = [1] * x.ndim
    reps[axis] = tiles
    return np.tile(x, reps)


def tile_params(args, tiles_input=None, axis_input=None):
    """(tiles, axis) as TileOp::DoRunWithType reads them (caffe2/operators/tile_op.h, newest):
    the arguments `tiles` / `axis` first; with a second input (1-D, one element, int32 or int64,
    GetArgFromTensor narrows int64 to int32) tiles comes from it -- and when that input is int64
    the source resets axis to 0 ("Because of a bug in original code, temporarily adds this part
    to keep backward compatibility"); a third input then sets axis, else the `axis` argument must
    be present but is NOT used (axis stays 0). With an int32 tiles input and no third input the
    `axis` argument is used."""
    tiles, axis = args.get("tiles"), args.get("axis")
    if tiles_input is not None:
        assert tiles_input.shape == (1,) and tiles_input.dtype in (np.int32, np.int64)
        tiles = int(tiles_input[0])
        if tiles_input.dtype == np.int64:
            axis = 0
        if axis_input is not None:
            assert axis_input.shape == (1,) and axis_input.dtype in (np.int32, np.int64)
            axis = int(axis_input[0])
        else:
            assert "axis" in args
    else:
        assert "tiles" in args and "axis" in args
    return tiles, axis


def ref_reshape(x, shape):
    """Reshape, caffe2/operators/reshape_op.h: a 0 in the new shape copies the input's dim at
    the same index; one -1 is inferred. Second output old_shape: the input dims as a 1-D int64
    tensor (int32 when the new shape came as an int32 input)."""
    new = [x.shape[i] if d == 0 else d for i, d in enumerate(shape)]
    return x.reshape(new), np.array(x.shape, np.int64)


def ref_concat(xs, axis=None, order=None, add_axis=False):
    """Concat, caffe2/operators/concat_split_op.h (ConcatOp): axis from `axis` (default -1,
    canonicalised over ndim + add_axis) or else from `order` (NCHW -> 1, NHWC -> 3, default
    NCHW). add_axis=1 stacks on a new axis. Second output split_info: int32 [n_inputs], each
    input's size along axis (1 each with add_axis)."""
    if axis is None:
        axis = 3 if order == "NHWC" else 1
    nd = xs[0].ndim + (1 if add_axis else 0)
    axis = axis % nd
    if add_axis:
        return np.stack(xs, axis=axis), np.ones(len(xs), np.int32)
    return np.concatenate(xs, axis=axis), np.array([a.shape[axis] for a in xs], np.int32)


def dim_from_order(order):
    """GetDimFromOrderString (caffe2/core/types.h): "NHWC" / "nhwc" -> 3, "NCHW" / "nchw" -> 1,
    whatever the input's rank (so NHWC is the last axis only of a 4-D input)."""
    return {"NHWC": 3, "nhwc": 3, "NCHW": 1, "nchw": 1}[order]


def ref_split(x, n_out, axis=1, split=None, order=None):
    """Split, caffe2/operators/concat_split_op.h (SplitOp): sizes from the second input (int32)
    or the `split` argument, else n_out equal parts. The axis is `axis` when that argument is
    present, else dim_from_order(`order`, default NCHW -> 1); giving both is an error. The axis
    is then canonicalised (canonical_axis_index)."""
    if order is not None:
        axis = dim_from_order(order)
    axis = axis + x.ndim if axis < 0 else axis
    assert 0 <= axis < x.ndim
    if split is None:
        assert x.shape[axis] % n_out == 0
        split = [x.shape[axis] // n_out] * n_out
    assert sum(split) == x.shape[axis]
    return [np.ascontiguousarray(p) for p in np.split(x, np.cumsum(split)[:-1], axis=axis)]


def ref_expand_dims(x, dims):
    """ExpandDims, caffe2/operators/expand_squeeze_dims_op.h: dims are sorted and deduplicated,
    then a 1 is inserted at each, in ascending order."""
    shape = list(x.shape)
    for d in sorted(set(dims)):
        shape.insert(d, 1)
    return x.reshape(shape)


def ref_squeeze(x, dims):
    """Squeeze, caffe2/operators/expand_squeeze_dims_op.h: removes the listed dims, which must
    be 1."""
    assert all(x.shape[d] == 1 for d in dims)
    return x.reshape([s for i, s in enumerate(x.shape) if i not in set(dims)])


def ref_flatten(x, axis=1):
    """Flatten, caffe2/operators/flatten_op.h: 2-D [prod(dims[:axis]), prod(dims[axis:])],
    axis default 1."""
    return x.reshape(int(np.prod(x.shape[:axis])), -1)


def ref_cast(x, to):
    """Cast, caffe2/operators/cast_op.cc (CastOp<CPUContext>::DoRunWithType: out[i] =
    CastHelper<DstType, SrcType>::call(data[i]), i.e. static_cast): float -> int truncates
    toward zero; float -> bool (to = 5, BOOL) is x != 0 (so -0.0 is false and every other
    value, negative ones included, true); float -> uint8 (to = 6, UINT8) truncates toward zero
    and is defined only when the truncated value is in [0, 255] (C++ [conv.fpint]), so inputs
    must lie in (-1, 256); bool / uint8 -> float give 0/1 and 0..255."""
    dt = {DT_FLOAT: np.float32, DT_INT32: np.int32, DT_INT64: np.int64, DT_BOOL: np.bool_,
          DT_UINT8: np.uint8}[to]
    if np.issubdtype(x.dtype, np.floating) and dt == np.bool_:
        return x != 0
    if np.issubdtype(x.dtype, np.floating) and dt != np.float32:
        t = np.trunc(x.astype(np.float64))
        assert np.all((t >= np.iinfo(dt).min) & (t <= np.iinfo(dt).max)), "undefined cast"
        return t.astype(dt)
    return x.astype(dt)


def ref_clip(x, lo=None, hi=None):
    """Clip, caffe2/operators/clip_op.cc: y = min(max(x, min), max); min defaults to the lowest
    float, max to the largest."""
    lo = -np.finfo(F32).max if lo is None else lo
    hi = np.finfo(F32).max if hi is None else hi
    return rounded(np.minimum(np.maximum(x, F32(lo)), F32(hi)), x)


def ref_sigmoid(x):
    """Sigmoid, caffe2/operators/sigmoid_op.cc: 1 / (1 + exp(-x))."""
    return rounded(1.0 / (1.0 + np.exp(-x.astype(np.float64))), x)


def ref_tanh(x):
    """Tanh, caffe2/operators/tanh_op.cc: tanh(x)."""
    return rounded(np.tanh(x.astype(np.float64)), x)


def ref_relu(x):
    """Relu, caffe2/operators/relu_op.cc: max(x, 0)."""
    return rounded(np.maximum(x, 0), x)


def ref_dropout(x, is_test):
    """Dropout, caffe2/operators/dropout_op.cc, with is_test: Y = X (the mask output, when
    named, is not written). Training-time dropout is random and has no reference."""
    assert is_test, "Dropout without is_test is random"
    return x.copy()


def ref_given_tensor_fill(shape, values):
    """GivenTensorFill, caffe2/operators/given_tensor_fill_op.h: a float tensor of `shape` from
    the float `values` (as many as the shape holds)."""
    vals = np.asarray(values, dtype=F32)
    assert vals.size == int(np.prod(shape)), "%d values for shape %s" % (vals.size, shape)
    return vals.reshape(shape)


# ============================================================================
# Numpy references: the int8 family (caffe2/operators/quantized/ and QNNPACK)
# ============================================================================
#
# Caffe2's Int8TensorCPU is a uint8 tensor with a float scale and an int32 zero point:
# real = (q - zero_point) * scale. Y_scale / Y_zero_point arguments are read as float / int.

def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", float(v)))[0]


def q_quantize(x, scale, zero_point):
    """Int8Quantize, quantized/int8_quantize_op.h + int8_utils.h QuantizeUint8 (the x86 path):
    q = clamp(zero_point + (int32) nearbyint(x / scale), 0, 255), float division, nearbyint in
    the default rounding mode (ties to even)."""
    r = np.rint(x.astype(F32) / F32(scale)).astype(np.int64) + zero_point
    return np.clip(r, 0, 255).astype(np.uint8)


def q_dequantize(q, scale, zero_point):
    """Int8Dequantize, quantized/int8_dequantize_op.h: y = (float)(q - zero_point) * scale."""
    return ((q.astype(np.int32) - zero_point).astype(F32) * F32(scale)).astype(F32)


def q_relu_min(scale, zero_point):
    """activationLimits(.., RELU) in int8_utils.h: [QuantizeUint8(scale, zp, 0.0), 255] =
    [zero_point, 255]; NONE gives [0, 255]."""
    return int(q_quantize(np.zeros(1, F32), scale, zero_point)[0])


def qnnp_requantize(acc, scale, zero_point, qmin, qmax):
    """QNNPACK q31 requantization of int32 accumulators (QNNPACK src/qnnpack/requantization.h
    qnnp_compute_conv_quantization_params and the q8gemm / q8conv kernels, e.g.
    src/q8gemm/4x4c2-sse2.c), as used by Int8Conv / Int8ConvRelu / Int8FC.

    scale (float32, must be < 1) = M * 2^(e-150), M its 24-bit mantissa, e its biased exponent:
    multiplier = M << 7, shift = 126 - e. q31 = floor((acc * multiplier + 2^30) / 2^31)
    (64-bit product, rounding half up); then the rounding right shift by `shift` with
    remainder_mask = 2^shift - 1 and threshold = mask >> 1:
    out = (q31 >> shift) + ((q31 & mask) - (q31 < 0) > threshold), i.e. ties away from zero
    (gemmlowp RoundingDivideByPOT). Then saturate to int16, add the output zero point with
    int16 saturation, saturate to uint8 and clamp to [qmin, qmax].
    """
    s = F32(scale)
    assert F32(2.0 ** -32) <= s < F32(1.0)
    bits = f32_bits(s)
    multiplier = ((bits & 0x007FFFFF) | 0x00800000) << 7
    shift = 127 + 31 - 32 - (bits >> 23)
    assert 0 <= shift < 32
    acc = acc.astype(np.int64)
    q31 = (acc * multiplier + (1 << 30)) >> 31          # numpy >> is arithmetic: floor
    mask = (1 << shift) - 1
    thr = mask >> 1
    rem = (q31 & mask) - (q31 < 0).astype(np.int64)
    out = (q31 >> shift) + (rem > thr).astype(np.int64)
    out = np.clip(out, -32768, 32767)
    out = np.clip(out + zero_point, -32768, 32767)
    out = np.clip(out, 0, 255)
    return np.clip(out, qmin, qmax).astype(np.uint8)


def q_conv(xq, x_s, x_zp, wq, w_s, w_zp, bias, y_s, y_zp, stride=(1, 1), pads=(0, 0, 0, 0),
           relu=False, group=1):
    """Int8Conv / Int8ConvRelu, quantized/int8_conv_op.h (QNNPACK qnnp_create_convolution2d_
    nhwc_q8; src/convolution.c, src/q8gemm, src/q8conv). NHWC only: X [N, H, W, C] uint8,
    filter [M, kH, kW, C/group] uint8 (its own scale / zero point), bias int32 [M] (real scale
    x_scale * w_scale, zero point 0). acc = bias + sum (x - x_zp) * (w - w_zp); padded pixels
    read a buffer filled with x_zp, so they add 0. Requantized with scale
    float(x_scale * w_scale / y_scale) (float32 arithmetic, must be < 1) by qnnp_requantize,
    clamped to [0, 255] or, for Int8ConvRelu, [y_zp, 255]. Geometry from ConvPoolOpBase.
    `group` splits channels as the float Conv does (group g: input channels [g*C/G, (g+1)*C/G),
    output channels [g*M/G, (g+1)*M/G)); the depthwise 3x3 special case is q_dwconv.
    """
    x = np.transpose(xq.astype(np.int64) - x_zp, (0, 3, 1, 2))
    w = np.transpose(wq.astype(np.int64) - w_zp, (0, 3, 1, 2))
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    assert c == cg * group and m % group == 0
    mg = m // group
    (oh, ow), (pt, pl, pb, pr) = pool_geometry((h, wd), (kh, kw), stride, pads)
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    acc = np.zeros((n, m, oh, ow), np.int64)
    for g in range(group):
        xg, wg = xp[:, g * cg:(g + 1) * cg], w[g * mg:(g + 1) * mg]
        for i in range(oh):
            for j in range(ow):
                patch = xg[:, :, i * stride[0]:i * stride[0] + kh,
                           j * stride[1]:j * stride[1] + kw]
                acc[:, g * mg:(g + 1) * mg, i, j] = np.einsum("nckl,mckl->nm", patch, wg)
    acc += bias.astype(np.int64).reshape(1, -1, 1, 1)
    scale = F32(F32(x_s) * F32(w_s)) / F32(y_s)
    lo = q_relu_min(y_s, y_zp) if relu else 0
    y = qnnp_requantize(acc, scale, y_zp, lo, 255)
    return np.ascontiguousarray(np.transpose(y, (0, 2, 3, 1)))


def q_dwconv(xq, x_s, x_zp, wq, w_s, w_zp, bias, y_s, y_zp, stride=(1, 1), pads=(0, 0, 0, 0),
             relu=False):
    """Int8Conv's depthwise path, written the way QNNPACK computes it.

    quantized/int8_conv_op.h: isDepthwise = group > 1 && group == M && group == C && KC == 1 &&
    KH * KW == 9 && dilation_w == 1; QNNPACK's qnnp_create_convolution2d_nhwc_q8
    (src/convolution.c) then picks the dwconv micro-kernel (group_input_channels == 1,
    group_output_channels == 1, 3x3: q8dwconv/up8x9-sse2.c) instead of q8conv. Weights
    [C, 3, 3, 1] are packed by pack_q8dw_w (src/qnnpack/pack.h) with the bias per channel
    b' = b + kH*kW*x_zp*w_zp - x_zp * sum_taps(w), and the kernel accumulates the raw input:
    acc = b' + sum_taps x * (w - w_zp) (int16 products widened to int32). Padded taps point at
    a buffer filled with x_zp (src/indirection.c). In exact int32 arithmetic this equals
    b + sum_taps (x - x_zp)(w - w_zp), q_conv's accumulator with group = C. The requantization
    after the 9 taps is the same q31 code as q8gemm (multiplier and shift from
    qnnp_compute_conv_quantization_params, src/qnnpack/requantization.h, scale
    float(x_scale * w_scale / y_scale) < 1): |acc| * multiplier, sign restored, + 2^30, >> 31,
    then the rounding shift with remainder mask and threshold -- qnnp_requantize.
    """
    n, h, wd, c = xq.shape
    m, kh, kw, kc = wq.shape
    assert m == c and kc == 1 and kh * kw == 9
    (oh, ow), (pt, pl, pb, pr) = pool_geometry((h, wd), (kh, kw), stride, pads)
    xp = np.pad(xq.astype(np.int64), ((0, 0), (pt, pb), (pl, pr), (0, 0)),
                constant_values=x_zp)
    w = wq.astype(np.int64)[..., 0]                        # [C, kh, kw]
    packed_b = (bias.astype(np.int64) + kh * kw * x_zp * w_zp
                - x_zp * w.reshape(c, -1).sum(axis=1))
    acc = np.zeros((n, oh, ow, c), np.int64)
    for i in range(oh):
        for j in range(ow):
            win = xp[:, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw, :]
            acc[:, i, j, :] = packed_b + np.einsum("npqc,cpq->nc", win, w - w_zp)
    assert np.all(np.abs(acc) < 2 ** 31)
    scale = F32(F32(x_s) * F32(w_s)) / F32(y_s)
    lo = q_relu_min(y_s, y_zp) if relu else 0
    return qnnp_requantize(acc, scale, y_zp, lo, 255)


def q_fc(xq, x_s, x_zp, wq, w_s, w_zp, bias, y_s, y_zp):
    """Int8FC, quantized/int8_fc_op.h (QNNPACK qnnp_create_fully_connected_nc_q8,
    src/fully-connected.c): K = prod(X.dims[1:]), W [N, K] uint8, bias int32 [N], Y [M, N].
    acc = bias + sum_k (x - x_zp)(w - w_zp), requantized like Int8Conv with scale
    float(x_scale * w_scale / y_scale) and clamped to [0, 255] (no activation)."""
    m = xq.shape[0]
    x = xq.astype(np.int64).reshape(m, -1) - x_zp
    w = wq.astype(np.int64) - w_zp
    acc = x @ w.T + bias.astype(np.int64)
    scale = F32(F32(x_s) * F32(w_s)) / F32(y_s)
    return qnnp_requantize(acc, scale, y_zp, 0, 255)


def q_maxpool(xq, kernel, stride=(1, 1), pads=(0, 0, 0, 0), relu_min=0):
    """Int8MaxPool, quantized/int8_max_pool_op.h (QNNPACK qnnp_create_max_pooling2d_nhwc_u8):
    NHWC; Y_scale / Y_zero_point must equal X's; the max of the uint8 window (the indirection
    buffer clamps padded taps onto valid pixels, so padding never wins), clamped to
    [output_min, 255] (output_min is y_zp for the Relu variant, else 0)."""
    x = np.transpose(xq, (0, 3, 1, 2)).astype(np.int64)
    y = ref_pool(x.astype(np.float64), "max", kernel, stride, pads)
    y = np.clip(np.rint(y), relu_min, 255).astype(np.uint8)
    return np.ascontiguousarray(np.transpose(y, (0, 2, 3, 1)))


def q_avgpool(xq, x_s, x_zp, y_s, y_zp, kernel, stride=(1, 1), pads=(0, 0, 0, 0)):
    """Int8AveragePool (non-global), quantized/int8_average_pool_op.h (QNNPACK
    qnnp_create_average_pooling2d_nhwc_q8, src/average-pooling.c, src/q8avgpool/up8x9-sse2.c).

    NHWC. Padded taps read a buffer filled with x_zp, and the divisor is always
    pooling_size = kernel_h * kernel_w (padding counts, unlike float AveragePool's default):
    acc = sum over the window of (x - x_zp) (int32). scale = x_scale / (y_scale * (float)
    pooling_size) in float32, split as multiplier = 24-bit mantissa (| 0x800000) and
    shift = 150 - biased exponent; out = sign(acc) * ((|acc| * multiplier + 2^(shift-1)) >>
    shift) (ties away from zero), + y_zp with int16 saturation, clamped to [0, 255].
    (Caffe2 takes QNNPACK's separate global-average-pooling path when there is no padding, no
    stride and the kernel covers the whole image: q_global_avgpool.)
    """
    x = np.transpose(xq.astype(np.int64) - x_zp, (0, 3, 1, 2))
    n, c, h, wd = x.shape
    kh, kw = kernel
    (oh, ow), (pt, pl, pb, pr) = pool_geometry((h, wd), kernel, stride, pads)
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    acc = np.zeros((n, c, oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            acc[:, :, i, j] = xp[:, :, i * stride[0]:i * stride[0] + kh,
                                 j * stride[1]:j * stride[1] + kw].sum(axis=(2, 3))
    scale = F32(x_s) / (F32(y_s) * F32(kh * kw))
    y = qnnp_avgpool_requantize(acc, scale, y_zp, 0, 255)
    return np.ascontiguousarray(np.transpose(y, (0, 2, 3, 1)))


def qnnp_avgpool_requantize(acc, scale, zero_point, qmin, qmax):
    """QNNPACK's average-pooling requantization (qnnp_compute_avgpool_quantization_params in
    src/qnnpack/requantization.h and the q8avgpool / q8gavgpool SSE2 kernels): scale (float32,
    in [2^-32, 256)) = M * 2^(e-150), multiplier = M | 0x800000 (24 bits), shift =
    150 - e (>= 16), rounding = 2^(shift-1); out = sign(acc) * ((|acc| * multiplier + rounding)
    >> shift) (64-bit, ties away from zero), saturated to int16, + zero point with int16
    saturation, saturated to uint8, clamped to [qmin, qmax]."""
    scale = F32(scale)
    assert F32(2.0 ** -32) <= scale < F32(256.0)
    bits = f32_bits(scale)
    multiplier = (bits & 0x007FFFFF) | 0x00800000
    shift = 127 + 23 - (bits >> 23)
    assert 16 <= shift < 64
    acc = acc.astype(np.int64)
    mag = (np.abs(acc) * multiplier + (1 << (shift - 1))) >> shift
    out = np.where(acc < 0, -mag, mag)
    out = np.clip(np.clip(out, -32768, 32767) + zero_point, -32768, 32767)
    return np.clip(np.clip(out, 0, 255), qmin, qmax).astype(np.uint8)


def q_global_avgpool(xq, x_s, x_zp, y_s, y_zp):
    """Int8AveragePool with global_pooling=1 (quantized/int8_average_pool_op.h): the op takes
    QNNPACK's global path whenever there is no padding, no stride > 1 and the kernel is the
    whole H x W image, which global_pooling guarantees. qnnp_create_global_average_pooling_nwc_q8
    and qnnp_setup_global_average_pooling_nwc_q8 (src/global-average-pooling.c) treat the image
    as width = H * W rows: x_scale / y_scale must be in [2^-8, 2^8); bias = -width * x_zp (int32);
    scale = x_scale / (y_scale * (float) width) (float32). The q8gavgpool kernels (up8x7 for
    width <= 7, mp8x7p7q beyond, up8xm for fewer than 8 channels; all SSE2) sum the raw uint8
    rows onto the bias (missing rows of a 7-row group read a zero buffer, adding 0):
    acc = sum (x - x_zp), then qnnp_avgpool_requantize with output limits [0, 255]. NHWC in,
    [N, 1, 1, C] out.
    """
    n, h, wd, c = xq.shape
    width = h * wd
    assert F32(2.0 ** -8) <= F32(x_s) / F32(y_s) < F32(2.0 ** 8)
    acc = -width * x_zp + xq.astype(np.int64).reshape(n, width, c).sum(axis=1)
    scale = F32(x_s) / (F32(y_s) * F32(width))
    return qnnp_avgpool_requantize(acc, scale, y_zp, 0, 255).reshape(n, 1, 1, c)


def quantize_multiplier_smaller_than_one(m):
    """int8_utils.h QuantizeMultiplierSmallerThanOne: m = q * 2^-right_shift, q in [0.5, 1);
    q_fixed = nearbyint(q * 2^31) (ties to even), 2^31 -> 2^30 with right_shift - 1."""
    assert 0.0 < m < 1.0
    q, e = math.frexp(m)
    right_shift = -e
    q_fixed = int(np.rint(q * (1 << 31)))
    if q_fixed == (1 << 31):
        q_fixed //= 2
        right_shift -= 1
    assert right_shift >= 0
    return q_fixed, right_shift


def srdhm(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul on int32 (numpy int64 arrays): nudge
    2^30 for a non-negative product and 1 - 2^30 otherwise, then C++ division by 2^31
    (truncation toward zero)."""
    ab = a.astype(np.int64) * int(b)
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    s = ab + nudge
    q = np.where(s >= 0, s // (1 << 31), -((-s) // (1 << 31)))
    return q


def rounding_divide_by_pot(x, exponent):
    """gemmlowp RoundingDivideByPOT: arithmetic shift right with ties away from zero."""
    mask = (1 << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0).astype(np.int64)
    return (x >> exponent) + (remainder > threshold).astype(np.int64)


def q_add(aq, a_s, a_zp, bq, b_s, b_zp, y_s, y_zp, relu=False):
    """Int8Add / Int8AddRelu / Int8Sum / Int8SumRelu (two same-shape inputs, no broadcast),
    quantized/int8_add_op.h (TFLite/gemmlowp style; the x86 path is its scalar loop).

    twice_max = 2 * max(a_scale, b_scale) (float); real multipliers (double) a_scale / twice_max,
    b_scale / twice_max and twice_max / (2^20 * y_scale), each made an int32 q31 multiplier and
    right shift by QuantizeMultiplierSmallerThanOne. For each element:
    a' = MulByQuantMul((a - a_zp) << 20), b' likewise, raw = MulByQuantMul(a' + b', Y) + y_zp,
    where MulByQuantMul(x) = RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x, mult),
    shift); clamped to [0, 255], or [y_zp, 255] for the Relu variants.
    """
    twice_max = float(F32(2) * max(F32(a_s), F32(b_s)))
    ma, sa = quantize_multiplier_smaller_than_one(float(F32(a_s)) / twice_max)
    mb, sb = quantize_multiplier_smaller_than_one(float(F32(b_s)) / twice_max)
    my, sy = quantize_multiplier_smaller_than_one(twice_max / float(F32(1 << 20) * F32(y_s)))
    a = (aq.astype(np.int64) - a_zp) * (1 << 20)
    b = (bq.astype(np.int64) - b_zp) * (1 << 20)
    sa_ = rounding_divide_by_pot(srdhm(a, ma), sa)
    sb_ = rounding_divide_by_pot(srdhm(b, mb), sb)
    raw = rounding_divide_by_pot(srdhm(sa_ + sb_, my), sy) + y_zp
    lo = q_relu_min(y_s, y_zp) if relu else 0
    return np.clip(raw, lo, 255).astype(np.uint8)

