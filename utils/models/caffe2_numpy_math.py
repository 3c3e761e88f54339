"""Numpy references of Caffe2's element-wise math, comparison, layout, reduction,
normalization, selection and row-product operators.

The companion of caffe2_numpy.py (which holds the conv / pool / matmul / shape references and
the int8 family), in the same style: each function states one operator's meaning as Caffe2's
own CPU source computes it (pytorch/pytorch caffe2/operators/), cites the file, and never
follows ember nor another loader. Float results are computed in float64 and rounded once to
float32 (rounded()), except where the source's float arithmetic decides an index (ResizeNearest)
or the value (Mean's float reciprocal), which is then done in float32 as the source does.
Imported by make_caffe2_test_models.py's caffe2_math_cases.py.
"""

import math

import numpy as np

from caffe2_numpy import F32, legacy_broadcast_sizes, rounded


def _f64(x):
    return x.astype(np.float64)


# ============================================================================
# One-operand functions (UnaryElementwiseOp functors)
# ============================================================================

def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


UNARY = {
    # abs_op.cc, ceil_op.cc, floor_op.cc, exp_op.cc, log_op.cc, sqrt_op.cc: Eigen's abs, ceil,
    # floor, exp, log, sqrt of each element.
    "Abs": np.abs, "Ceil": np.ceil, "Floor": np.floor, "Exp": np.exp, "Log": np.log,
    "Sqrt": np.sqrt,
    # negative_op.cc (NegativeFunctor): -x.
    "Negative": np.negative,
    # elementwise_ops.h SignFunctor -> math::Sign: 1 for x > 0, -1 for x < 0, 0 for 0.
    "Sign": np.sign,
    # reciprocal_op.cc: 1 / x.
    "Reciprocal": lambda x: 1.0 / x,
    # softplus_op.cc: (exp(x) + 1).log(), the plain formula (it overflows past x ~ 88).
    "Softplus": lambda x: np.log(np.exp(x) + 1.0),
    # log1p_op.cc: log1p(x).
    "Log1p": np.log1p,
    # sqr_op.cc: x * x.
    "Sqr": lambda x: x * x,
    # swish_op.cc: x / (1 + exp(-x)).
    "Swish": lambda x: x / (1.0 + np.exp(-x)),
}


def ref_unary(op, x):
    """One of UNARY on a float tensor (each cites its source above)."""
    return rounded(UNARY[op](_f64(x)), x)


def ref_gelu(x, fast_gelu=False):
    """Gelu, caffe2/operators/gelu_op.cc: x * Phi(x) (math::CdfNorm, 0.5 * erfc(-x / sqrt 2));
    with fast_gelu 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))."""
    v = _f64(x)
    if fast_gelu:
        y = 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)))
    else:
        y = v * 0.5 * (1.0 + _erf(v / math.sqrt(2.0)))
    return rounded(y, x)


def ref_logit(x, eps=1e-6):
    """Logit, caffe2/operators/logit_op.cc (LogitFunctor): y = min(x, 1 - eps) (the bound
    computed as the float 1.0f - eps), then max(y, eps), then log(y / (1 - y))."""
    hi = float(F32(1.0) - F32(eps))
    y = np.maximum(np.minimum(_f64(x), hi), float(F32(eps)))
    return rounded(np.log(y / (1.0 - y)), x)


def ref_scale(x, scale=1.0):
    """Scale, caffe2/operators/scale_op.h (math::Scale): x * `scale` (default 1)."""
    return rounded(_f64(x) * float(F32(scale)), x)


def ref_replace_nan(x, value=0.0):
    """ReplaceNaN, caffe2/operators/replace_nan_op.cc: std::isnan(x) ? value : x."""
    return np.where(np.isnan(x), F32(value), x).astype(x.dtype)


def ref_mod(x, divisor, sign_follow_divisor=False):
    """Mod, caffe2/operators/mod_op.cc: int32 / int64 x % divisor with C++'s % (truncating:
    the dividend's sign); with sign_follow_divisor a nonzero result whose sign differs from the
    divisor's gets the divisor added. mod_op.h enforces divisor != 0."""
    assert divisor != 0 and x.dtype in (np.int32, np.int64)
    x64 = x.astype(np.int64)
    y = np.fmod(x64, divisor)  # C++ % on integers
    if sign_follow_divisor:
        y = np.where((y != 0) & ((y > 0) != (divisor > 0)), y + divisor, y)
    return y.astype(x.dtype)


def ref_pow(a, b=None, exponent=None, broadcast=False, axis=-1):
    """Pow, caffe2/operators/pow_op.h (PowOp, EigenPowFunctor): with one input and the
    `exponent` argument a ** exponent; with two inputs and broadcast=1 B is laid over A by the
    legacy rule (ComputeLegacyBroadcastSizes; a one-element B is a scalar), without broadcast
    the shapes must be equal ("Dimension mismatch - did you forget to set broadcast=1?")."""
    if b is None:
        return rounded(_f64(a) ** float(F32(exponent)), a)
    if not broadcast:
        assert a.shape == b.shape
        return rounded(_f64(a) ** _f64(b), a, b)
    if b.size == 1:
        return rounded(_f64(a) ** float(b.reshape(())), a, b)
    pre, n, post = legacy_broadcast_sizes(a.shape, b.shape, axis)
    y = _f64(a).reshape(pre, n, post) ** _f64(b).reshape(1, n, 1)
    return rounded(y.reshape(a.shape), a, b)


def ref_prelu(x, slope, order="NCHW"):
    """PRelu, caffe2/operators/prelu_op.cc: max(x, 0) + min(x, 0) * w, with one slope for all
    (W of one element) or one per channel (NCHW: dim 1, NHWC: the last), C == W.size()
    enforced."""
    c_axis = 1 if order == "NCHW" else x.ndim - 1
    if slope.size == 1:
        w = _f64(slope).reshape(())
    else:
        assert slope.size == x.shape[c_axis]
        shape = [1] * x.ndim
        shape[c_axis] = slope.size
        w = _f64(slope).reshape(shape)
    v = _f64(x)
    return rounded(np.maximum(v, 0) + np.minimum(v, 0) * w, x)


def ref_elementwise_linear(x, a, b, axis=1):
    """ElementwiseLinear, caffe2/operators/elementwise_linear_op.cc: X as [N, D] split at
    `axis` (default 1, canonical_axis_index), Y[n, d] = X[n, d] * a[d] + b[d]; a and b 1-D of D
    (enforced)."""
    axis = axis + x.ndim if axis < 0 else axis
    n, d = int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:]))
    assert a.shape == (d,) and b.shape == (d,)
    y = _f64(x).reshape(n, d) * _f64(a) + _f64(b)
    return rounded(y.reshape(x.shape), x)


# ============================================================================
# Binary comparisons and logic, Max / Min / Mean
# ============================================================================

def ref_compare(fn, a, b, broadcast=False, axis=-1):
    """EQ, NE, LT, LE, GT, GE, And, Or, Xor: caffe2/operators/elementwise_ops.h
    (BinaryElementwiseWithArgsOp with a bool output): with broadcast=1 B is laid over A by the
    legacy rule (a one-element B is a scalar; ComputeLegacyBroadcastSizes otherwise), else
    numpy's multidirectional broadcasting (ComputeBinaryBroadcastForwardDims). The comparison
    is exact in the operands' own type."""
    if not broadcast:
        return fn(a, b)
    if b.size == 1:
        return fn(a, b.reshape(()))
    pre, n, post = legacy_broadcast_sizes(a.shape, b.shape, axis)
    return fn(a.reshape(pre, n, post), b.reshape(1, n, 1)).reshape(a.shape)


def ref_max_min(fn, xs):
    """Max / Min, caffe2/operators/minmax_ops.h: inputs of one shape combined left to right
    with math::Max / math::Min."""
    assert all(x.shape == xs[0].shape for x in xs)
    y = xs[0]
    for x in xs[1:]:
        y = fn(y, x)
    return y


def ref_mean(xs):
    """Mean, caffe2/operators/mean_op.h: float inputs broadcast together (ComputeBroadcastDims,
    numpy's rules), added left to right in float (math::Add), then scaled by the float 1.0f / n
    (math::Scale)."""
    shape = np.broadcast_shapes(*[x.shape for x in xs])
    y = np.broadcast_to(xs[0], shape).astype(F32)
    for x in xs[1:]:
        y = (y + x).astype(F32)
    return (y * (F32(1.0) / F32(len(xs)))).astype(F32)


# ============================================================================
# Layout, shape and indexing
# ============================================================================

def ref_nchw2nhwc(x):
    """NCHW2NHWC, caffe2/operators/order_switch_ops.cc: N C H1..Hk -> N H1..Hk C (>= 3 dims)."""
    assert x.ndim >= 3
    return np.ascontiguousarray(np.moveaxis(x, 1, -1))


def ref_nhwc2nchw(x):
    """NHWC2NCHW, caffe2/operators/order_switch_ops.cc: N H1..Hk C -> N C H1..Hk (>= 3 dims)."""
    assert x.ndim >= 3
    return np.ascontiguousarray(np.moveaxis(x, -1, 1))


def ref_shape(x, axes=None):
    """Shape, caffe2/operators/shape_op.h: the dims as int64, or those of `axes` (each in
    [0, ndim), enforced) in that order."""
    dims = list(x.shape) if not axes else [x.shape[a] for a in axes]
    return np.array(dims, np.int64)


def ref_channel_shuffle(x, group, order="NCHW"):
    """ChannelShuffle, caffe2/operators/channel_shuffle_op.cc: C = G * K channels (NCHW: dim 1,
    NHWC: the last; C % G == 0 enforced); output channel k * G + g is input channel g * K + k
    (RunChannelShuffleNCHW / the [G, K] -> [K, G] transpose of RunChannelShuffleNHWC)."""
    axis = 1 if order == "NCHW" else x.ndim - 1
    c = x.shape[axis]
    assert c % group == 0
    k = c // group
    src = np.array([(j % group) * k + j // group for j in range(c)])
    return np.ascontiguousarray(np.take(x, src, axis=axis))


def ref_resize_nearest(x, height_scale=1.0, width_scale=1.0, order="NCHW"):
    """ResizeNearest, caffe2/operators/resize_op.cc: output size int(in * scale) (int times
    float, in float), output row y reads input row min(int(y / height_scale), H - 1), computed
    in float, and likewise for columns; 4-D X in `order`. The 2x fast path reads row y / 2,
    the same rows."""
    hs, ws = F32(height_scale), F32(width_scale)
    h_axis = 2 if order == "NCHW" else 1
    h, w = x.shape[h_axis], x.shape[h_axis + 1]
    oh, ow = int(F32(h) * hs), int(F32(w) * ws)
    rows = [min(int(F32(y) / hs), h - 1) for y in range(oh)]
    cols = [min(int(F32(c) / ws), w - 1) for c in range(ow)]
    y = np.take(np.take(x, rows, axis=h_axis), cols, axis=h_axis + 1)
    return np.ascontiguousarray(y)


def ref_batch_gather(data, indices):
    """BatchGather, caffe2/operators/batch_gather_ops.h: DATA (>= 2-D) gathered along dim 1:
    out[b, idx..., rest] = data[b, indices[idx...], rest]; every index in [0, dim 1)."""
    assert data.ndim >= 2 and np.all((indices >= 0) & (indices < data.shape[1]))
    return np.ascontiguousarray(np.take(data, indices.astype(np.int64), axis=1))


def ref_scatter_assign(data, indices, slices):
    """ScatterAssign, caffe2/operators/utility_ops.h (ScatterAssignOp, in place): DATA seen as
    [N, M / N], row indices[k] replaced by row k of SLICES seen as [K, M / N]. With repeated
    indices "arbitrary one will win", so the references use distinct ones."""
    assert len(set(indices.flatten().tolist())) == indices.size
    n = data.shape[0]
    y = data.reshape(n, -1).copy()
    y[indices.flatten()] = slices.reshape(indices.size, -1)
    return y.reshape(data.shape)


def ref_lengths_to_ranges(lengths):
    """LengthsToRanges, caffe2/operators/utility_ops.h: int32 [N, 2] rows (offset, length), the
    offset the sum of the lengths before."""
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int32)
    return np.stack([offsets, lengths.astype(np.int32)], axis=1)


def ref_fp16_fill(shape, values):
    """GivenTensorFp16Fill, caffe2/operators/given_tensor_fill_op.cc: the float `values` stored
    as at::Half (round to nearest even); HalfToFloat (half_float_ops.cc) widens them exactly."""
    return np.array(values, F32).astype(np.float16).reshape(shape)


# ============================================================================
# Reductions
# ============================================================================

REDUCERS = {
    # reduce_ops.h: math::ReduceMin / ReduceMax / ReduceSum / ReduceMean, and ReduceL1 (sum of
    # |x|), ReduceL2 (sqrt of the sum of squares).
    "min": np.min, "max": np.max, "sum": np.sum, "mean": np.mean,
    "l1": lambda v, axis, keepdims: np.sum(np.abs(v), axis=axis, keepdims=keepdims),
    "l2": lambda v, axis, keepdims: np.sqrt(np.sum(v * v, axis=axis, keepdims=keepdims)),
    # ReduceProd and ReduceSumSquare are not Caffe2 operators: Glow's CommonOperatorLoader reads
    # them as ONNX defines them (the product, the sum of squares), with the same axes/keepdims.
    "prod": np.prod,
    "sum_square": lambda v, axis, keepdims: np.sum(v * v, axis=axis, keepdims=keepdims),
}


def ref_reduce(x, kind, axes=None, keepdims=True):
    """ReduceMin/Max/Sum/Mean/L1/L2, caffe2/operators/reduce_ops.h (ReduceOp): `axes` default
    all (each canonical_axis_index'ed, then sorted), `keepdims` default true."""
    axes = tuple(range(x.ndim)) if not axes else tuple(sorted(a % x.ndim for a in axes))
    return rounded(np.asarray(REDUCERS[kind](_f64(x), axis=axes, keepdims=keepdims)), x)


def ref_reduce_front_back(x, kind, front, num_reduce_dim=1):
    """ReduceFront/Back Sum, Mean (reduce_front_back_sum_mean_ops.h, SumReduceDimsOp) and Max
    (reduce_front_back_max_ops.h): the first (Front) or last (Back) `num_reduce_dim` dims
    (default 1, in [0, ndim]) reduced and dropped; no lengths input."""
    axes = tuple(range(num_reduce_dim)) if front else \
        tuple(range(x.ndim - num_reduce_dim, x.ndim))
    if not axes:
        return x.copy()
    return rounded(np.asarray(REDUCERS[kind](_f64(x), axis=axes, keepdims=False)), x)


def ref_arg(x, largest, axis=-1, keepdims=True):
    """ArgMax / ArgMin, caffe2/operators/arg_ops.cc (ComputeArgImpl): int64 index along `axis`
    (default -1) of the first element strictly greater (less) than every earlier one, i.e. the
    first maximum (minimum); the axis kept as 1 unless `keepdims` is 0."""
    y = (np.argmax if largest else np.argmin)(x, axis=axis)
    if keepdims:
        y = np.expand_dims(y, axis)
    return y.astype(np.int64)


def ref_sum_elements(x, average=False, squares=False):
    """SumElements / SumSqrElements (caffe2/operators/reduction_ops.h) and AveragedLoss
    (loss_op.h: SumElements with average): the sum of all elements (of their squares) as a
    scalar (dims []), times the float 1 / size when averaging."""
    v = _f64(x)
    s = F32(np.sum(v * v) if squares else np.sum(v))
    if average:
        s = F32(s * (F32(1.0) / F32(x.size)))
    return np.array(s, F32)


def ref_lp_norm(x, p=2, average=False):
    """LpNorm, caffe2/operators/lpnorm_op.cc: [1] holding sum(|x|) (p = 1) or sum(x^2) (p = 2,
    the default; no root), divided by the float size with `average`."""
    v = _f64(x)
    s = F32(np.sum(np.abs(v)) if p == 1 else np.sum(v * v))
    if average:
        s = F32(s / F32(x.size))
    return np.array([s], F32)


# ============================================================================
# Normalization, selection, lookups and row-wise products
# ============================================================================

def ref_layer_norm(x, axis=1, epsilon=1e-5, gamma=None, beta=None):
    """LayerNorm, caffe2/operators/layer_norm_op.h/.cc: X seen as [M, N] at `axis`
    (canonical_axis_index), math::Moments' mean and population variance per row, sigma =
    sqrt(var + epsilon), Y = (X - mean) / sigma, then * gamma + beta (N each) with
    elementwise_affine. Returns Y, mean and sigma (dims X[:axis] + [1])."""
    axis = axis % x.ndim
    m = int(np.prod(x.shape[:axis]))
    v = _f64(x).reshape(m, -1)
    mean = v.mean(axis=1, keepdims=True)
    sigma = np.sqrt(((v - mean) ** 2).mean(axis=1, keepdims=True) + float(F32(epsilon)))
    y = (v - mean) / sigma
    if gamma is not None:
        y = y * _f64(gamma).reshape(1, -1) + _f64(beta).reshape(1, -1)
    moments = list(x.shape[:axis]) + [1]
    return (rounded(y.reshape(x.shape), x), rounded(mean.reshape(moments), x),
            rounded(sigma.reshape(moments), x))


def ref_rms_norm(x, gamma, beta, axis=1, eps=0.0):
    """RMSNorm, caffe2/operators/rms_norm_op.cc: X seen as [M, N] at `axis`, rrms = 1 /
    sqrt(mean(x^2) + eps) per row (`eps` default 0), Y = rrms * x * gamma + beta. Returns Y and
    rrms (dims X[:axis])."""
    axis = axis % x.ndim
    v = _f64(x).reshape(int(np.prod(x.shape[:axis])), -1)
    rrms = 1.0 / np.sqrt((v * v).mean(axis=1, keepdims=True) + float(F32(eps)))
    y = rrms * v * _f64(gamma).reshape(1, -1) + _f64(beta).reshape(1, -1)
    return rounded(y.reshape(x.shape), x), rounded(rrms.reshape(x.shape[:axis]), x)


def ref_batch_box_cox(data, lambda1, lambda2):
    """BatchBoxCox, caffe2/operators/batch_box_cox_op.cc (BoxCoxNaive): DATA seen as [N, D],
    t = max(x + lambda2[j], 1e-6), log(t) where lambda1[j] == 0, else (t^lambda1[j] - 1) /
    lambda1[j]."""
    x = _f64(data).reshape(data.shape[0], -1)
    l1, l2 = _f64(lambda1).reshape(1, -1), _f64(lambda2).reshape(1, -1)
    t = np.maximum(x + l2, float(F32(1e-6)))
    safe = np.where(l1 == 0, 1.0, l1)
    y = np.where(l1 == 0, np.log(t), (t ** safe - 1) / safe)
    return rounded(y.reshape(data.shape), data)


def ref_top_k(x, k, axis=-1):
    """TopK, caffe2/operators/top_k.cc (GetTopK): along `axis` the k largest values, largest
    first, equal values by lower index (ValueComp); int64 indices. Positions past the axis's
    size hold value 0 and index -1 (the outputs' initial math::Set)."""
    axis = axis % x.ndim
    xm = np.moveaxis(x, axis, -1)
    n = xm.shape[-1]
    values = np.zeros(xm.shape[:-1] + (k,), x.dtype)
    indices = np.full(xm.shape[:-1] + (k,), -1, np.int64)
    for pos in np.ndindex(*xm.shape[:-1]):
        row = xm[pos]
        order = sorted(range(n), key=lambda i: (-float(row[i]), i))[:k]
        values[pos][:len(order)] = row[order]
        indices[pos][:len(order)] = order
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def ref_bucketize(x, boundaries):
    """Bucketize, caffe2/operators/bucketize_op.cc: std::lower_bound over the sorted float
    `boundaries`, i.e. the int32 count of boundaries strictly below each element."""
    b = np.array(boundaries, F32)
    return np.searchsorted(b, x, side="left").astype(np.int32)


def ref_batch_one_hot(x, lens, vals):
    """BatchOneHot, caffe2/operators/one_hot_ops.cc: X seen as [N, D]; column j gives lens[j]
    output columns, column k (in vals' segment of j) X[i, j] == vals[k] in X's type."""
    n = x.shape[0]
    x2 = x.reshape(n, -1)
    cols = np.repeat(np.arange(x2.shape[1]), lens)
    return (x2[:, cols] == vals.reshape(1, -1)).astype(x.dtype)


def ref_sparse_to_dense(indices, values, first_dim=None):
    """SparseToDense, caffe2/operators/sparse_to_dense_op.h: zeros of VALUES' dims with dim 0
    the given first dim (else 1 + max(indices)), row indices[i] += values[i] (math::Add, so
    repeated indices accumulate)."""
    n = int(indices.max()) + 1 if first_dim is None else first_dim
    out = np.zeros((n,) + values.shape[1:], np.float64 if values.dtype == F32 else values.dtype)
    for i, idx in enumerate(indices.tolist()):
        out[idx] += values[i]
    return out.astype(values.dtype)


def ref_batch_sparse_to_dense(lengths, indices, values, last_dim, default_value=0.0):
    """BatchSparseToDense, caffe2/operators/batch_sparse_to_dense_op.cc: [len(lengths),
    last_dim] of default_value; the k-th entry of row i's segment writes values[k] at column
    indices[k] (a later write to one cell wins)."""
    out = np.full((len(lengths), last_dim), F32(default_value), F32)
    k = 0
    for i, n in enumerate(lengths.tolist()):
        for _ in range(n):
            assert indices[k] < last_dim
            out[i, indices[k]] = values[k]
            k += 1
    return out


def ref_dot_product(x, y):
    """DotProduct, caffe2/operators/distance_op.cc: X and Y of one shape seen as [N, D] (N the
    first dim); [N] of math::Dot per row."""
    n = x.shape[0] if x.ndim else 1
    return rounded((_f64(x) * _f64(y)).reshape(n, -1).sum(axis=1), x)


def ref_sigmoid_xent(logits, targets, log_d_trick=False, unjoined_lr_loss=False):
    """SigmoidCrossEntropyWithLogits, caffe2/operators/cross_entropy_op.cc: per row of the last
    dim, -sum(f(l, t)) / inner_size with sigmoid_xent_forward (l (t - [l >= 0]) -
    log(1 + exp(l - 2 l [l >= 0]))), sigmoid_xent_forward_with_log_d_trick ((2t - 1)
    (l - sigmoid_partition(l))) or unjoined_sigmoid_xent_forward (l t + (t - 1) l [l >= 0]
    - (1 - t) log(1 + exp(l - 2 l [l >= 0]))); the output drops the last dim."""
    l, t = _f64(logits), _f64(targets)
    pos = (l >= 0).astype(np.float64)
    tail = np.log(1 + np.exp(l - 2 * l * pos))
    if unjoined_lr_loss:
        f = l * t + (t - 1) * l * pos - (1 - t) * tail
    elif log_d_trick:
        f = (2 * t - 1) * (l - (l * pos + tail))
    else:
        f = l * (t - pos) - tail
    inner = l.shape[-1] if l.ndim else 1
    return rounded(-f.sum(axis=-1) / inner, logits)
