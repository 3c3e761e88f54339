"""The Caffe2 test nets of the element-wise math, comparison, logic, identity, layout and
reduction operators, the unlisted inputs and the zoo-shaped folder; written by make_caffe2_test_models.py (which holds the
Case class these functions fill through `new`). Expected outputs come from caffe2_numpy_math.py,
whose references are written from Caffe2's operator source (each cites its file)."""

import numpy as np

from caffe2_numpy import DT_FLOAT, F32, ref_conv, ref_relu
from caffe2_numpy_math import (
    ref_batch_box_cox, ref_batch_one_hot, ref_batch_sparse_to_dense, ref_bucketize,
    ref_dot_product, ref_layer_norm,
    ref_rms_norm, ref_sigmoid_xent, ref_sparse_to_dense, ref_top_k,
    ref_batch_gather, ref_channel_shuffle, ref_compare, ref_elementwise_linear, ref_fp16_fill,
    ref_arg, ref_gelu, ref_logit, ref_max_min, ref_mean, ref_mod, ref_nchw2nhwc, ref_nhwc2nchw,
    ref_pow, ref_prelu, ref_reduce, ref_reduce_front_back, ref_replace_nan, ref_resize_nearest,
    ref_lengths_to_ranges, ref_lp_norm, ref_scale, ref_sum_elements, ref_scatter_assign, ref_shape, ref_unary)


def rand(rng, shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(F32)


def unary_cases(new):
    # --- math_unary: every one-operand function on values inside each one's domain (Log,
    # Sqrt, Log1p on positives), Gelu both ways, Logit with the default and a wide eps
    # (clamping both ends), Scale, and ReplaceNaN of the NaNs Sqrt makes of negatives.
    rng = np.random.default_rng(8001)
    c = new("math_unary")
    x = rand(rng, [2, 3, 4], -3.0, 3.0)
    p = rand(rng, [2, 3, 4], 0.05, 4.0)
    q = rand(rng, [3, 5], -0.2, 1.2)
    c.input("X", x)
    c.input("P", p)
    c.input("Q", q)
    for op in ("Abs", "Ceil", "Floor", "Exp", "Negative", "Sign", "Reciprocal", "Softplus",
               "Sqr", "Swish"):
        c.op(op, ["X"], ["Y_" + op.lower()])
        c.output("Y_" + op.lower(), ref_unary(op, x))
    for op in ("Log", "Sqrt", "Log1p"):
        c.op(op, ["P"], ["Y_" + op.lower()])
        c.output("Y_" + op.lower(), ref_unary(op, p))
    c.op("Gelu", ["X"], ["Y_gelu"])
    c.op("Gelu", ["X"], ["Y_gelu_fast"], fast_gelu=1)
    c.output("Y_gelu", ref_gelu(x))
    c.output("Y_gelu_fast", ref_gelu(x, fast_gelu=True))
    c.op("Logit", ["Q"], ["Y_logit"])
    c.op("Logit", ["Q"], ["Y_logit_eps"], eps=0.1)
    c.output("Y_logit", ref_logit(q))
    c.output("Y_logit_eps", ref_logit(q, 0.1))
    c.op("Scale", ["X"], ["Y_scale"], scale=-0.75)
    c.output("Y_scale", ref_scale(x, -0.75))
    c.op("Sqrt", ["X"], ["X_sqrt"])  # NaN where X < 0
    c.op("ReplaceNaN", ["X_sqrt"], ["Y_replace_nan"], value=-1.5)
    c.op("ReplaceNaN", ["X_sqrt"], ["Y_replace_nan0"])
    with np.errstate(invalid="ignore"):
        sq = ref_unary("Sqrt", x)
    assert np.isnan(sq).any()
    c.output("Y_replace_nan", ref_replace_nan(sq, -1.5))
    c.output("Y_replace_nan0", ref_replace_nan(sq))

    # --- math_binary: Pow with `exponent`, with two inputs of one shape, and broadcast=1 with
    # axis=1 and with a one-element exponent; Mod with both sign rules on int32 and int64;
    # PRelu per channel NCHW and NHWC and shared; ElementwiseLinear at the default axis 1 and
    # at axis 2.
    rng = np.random.default_rng(8002)
    c = new("math_binary")
    base = rand(rng, [2, 3, 4], 0.2, 2.0)
    e_full, e_mid = rand(rng, [2, 3, 4], -2.0, 2.0), rand(rng, [3], -2.0, 2.0)
    e_one = np.array([1.5], F32)
    c.input("Base", base)
    c.input("E_full", e_full)
    c.weight("E_mid", e_mid)
    c.weight("E_one", e_one)
    c.op("Pow", ["Base"], ["Y_pow_arg"], exponent=2.5)
    c.op("Pow", ["Base", "E_full"], ["Y_pow_same"])
    c.op("Pow", ["Base", "E_mid"], ["Y_pow_axis"], broadcast=1, axis=1)
    c.op("Pow", ["Base", "E_one"], ["Y_pow_one"], broadcast=1)
    c.output("Y_pow_arg", ref_pow(base, exponent=2.5))
    c.output("Y_pow_same", ref_pow(base, e_full))
    c.output("Y_pow_axis", ref_pow(base, e_mid, broadcast=True, axis=1))
    c.output("Y_pow_one", ref_pow(base, e_one, broadcast=True))
    i32 = rng.integers(-20, 21, size=[3, 5]).astype(np.int32)
    i64 = rng.integers(-(1 << 40), 1 << 40, size=[4]).astype(np.int64)
    c.input("I32", i32)
    c.input("I64", i64)
    c.op("Mod", ["I32"], ["Y_mod"], divisor=7)
    c.op("Mod", ["I32"], ["Y_mod_neg_div"], divisor=-4, sign_follow_divisor=1)
    c.op("Mod", ["I32"], ["Y_mod_follow"], divisor=6, sign_follow_divisor=1)
    c.op("Mod", ["I64"], ["Y_mod64"], divisor=1000003)
    c.output("Y_mod", ref_mod(i32, 7))
    c.output("Y_mod_neg_div", ref_mod(i32, -4, True))
    c.output("Y_mod_follow", ref_mod(i32, 6, True))
    c.output("Y_mod64", ref_mod(i64, 1000003))
    x, xh = rand(rng, [2, 3, 2, 2]), rand(rng, [2, 2, 2, 3])
    w, w1 = rand(rng, [3], 0.05, 0.5), np.array([0.2], F32)
    c.input("X", x)
    c.input("XH", xh)
    c.weight("W", w)
    c.weight("W1", w1)
    c.op("PRelu", ["X", "W"], ["Y_prelu"])
    c.op("PRelu", ["XH", "W"], ["Y_prelu_nhwc"], order="NHWC")
    c.op("PRelu", ["X", "W1"], ["Y_prelu_shared"])
    c.output("Y_prelu", ref_prelu(x, w))
    c.output("Y_prelu_nhwc", ref_prelu(xh, w, "NHWC"))
    c.output("Y_prelu_shared", ref_prelu(x, w1))
    a12, b12, a4, b4 = rand(rng, [12]), rand(rng, [12]), rand(rng, [4]), rand(rng, [4])
    for n, v in (("A12", a12), ("B12", b12), ("A4", a4), ("B4", b4)):
        c.weight(n, v)
    c.op("ElementwiseLinear", ["Base", "A12", "B12"], ["Y_linear"])
    c.op("ElementwiseLinear", ["Base", "A4", "B4"], ["Y_linear_axis2"], axis=2)
    c.output("Y_linear", ref_elementwise_linear(base, a12, b12))
    c.output("Y_linear_axis2", ref_elementwise_linear(base, a4, b4, 2))


def compare_cases(new):
    # --- compare_logic: EQ, NE, LT (and Glow's spelling Less), LE, GT, GE on float values
    # with ties (multiples of 0.5), numpy broadcasting and broadcast=1 with axis; int32
    # comparisons; And, Or, Xor (numpy and legacy broadcasting), Not on bool inputs.
    rng = np.random.default_rng(8003)
    c = new("compare_logic")
    a = (rng.integers(-3, 4, size=[2, 3, 4]) * 0.5).astype(F32)
    b = (rng.integers(-3, 4, size=[3, 1]) * 0.5).astype(F32)
    m = (rng.integers(-3, 4, size=[3]) * 0.5).astype(F32)
    ia, ib = rng.integers(-3, 4, size=[4, 5]).astype(np.int32), \
        rng.integers(-3, 4, size=[5]).astype(np.int32)
    c.input("A", a)
    c.input("B", b)
    c.weight("M", m)
    c.input("IA", ia)
    c.input("IB", ib)
    for op, fn in (("EQ", np.equal), ("NE", np.not_equal), ("LT", np.less), ("Less", np.less),
                   ("LE", np.less_equal), ("GT", np.greater), ("GE", np.greater_equal)):
        c.op(op, ["A", "B"], ["Y_" + op.lower()])
        c.output("Y_" + op.lower(), ref_compare(fn, a, b))
    c.op("EQ", ["A", "M"], ["Y_eq_axis"], broadcast=1, axis=1)
    c.op("GT", ["A", "M"], ["Y_gt_axis"], broadcast=1, axis=1)
    c.op("LE", ["IA", "IB"], ["Y_le_int"], broadcast=1)
    c.output("Y_eq_axis", ref_compare(np.equal, a, m, True, 1))
    c.output("Y_gt_axis", ref_compare(np.greater, a, m, True, 1))
    c.output("Y_le_int", ref_compare(np.less_equal, ia, ib, True))
    assert c.outputs[0][1].any() and not c.outputs[0][1].all()
    p, q = rng.random([2, 3, 4]) > 0.5, rng.random([3, 4]) > 0.5
    r = rng.random([3]) > 0.5
    c.input("P", p)
    c.input("Q", q)
    c.input("R", r)
    for op, fn in (("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)):
        c.op(op, ["P", "Q"], ["Y_" + op.lower()])
        c.output("Y_" + op.lower(), ref_compare(fn, p, q))
    c.op("Xor", ["P", "R"], ["Y_xor_axis"], broadcast=1, axis=1)
    c.output("Y_xor_axis", ref_compare(np.logical_xor, p, r, True, 1))
    c.op("Not", ["P"], ["Y_not"])
    c.output("Y_not", np.logical_not(p))

    # --- max_min_mean: Max and Min of three inputs of one shape (and of one), Mean of inputs
    # broadcast together and of one.
    rng = np.random.default_rng(8004)
    c = new("max_min_mean")
    xs = [rand(rng, [2, 3, 4]) for _ in range(3)]
    for i, xi in enumerate(xs):
        c.input("X%d" % i, xi)
    bc = rand(rng, [3, 1])
    c.input("Bc", bc)
    c.op("Max", ["X0", "X1", "X2"], ["Y_max"])
    c.op("Min", ["X0", "X1", "X2"], ["Y_min"])
    c.op("Max", ["X1"], ["Y_max_one"])
    c.op("Mean", ["X0", "Bc", "X2"], ["Y_mean"])
    c.op("Mean", ["X2"], ["Y_mean_one"])
    c.output("Y_max", ref_max_min(np.maximum, xs))
    c.output("Y_min", ref_max_min(np.minimum, xs))
    c.output("Y_max_one", xs[1])
    c.output("Y_mean", ref_mean([xs[0], bc, xs[2]]))
    c.output("Y_mean_one", ref_mean([xs[2]]))

    # --- identities: Identity, the device copies, EnsureDense and the gradient markers pass
    # the value through (chained, in place too); Free of a blob no later operator reads.
    rng = np.random.default_rng(8005)
    c = new("identities")
    x = rand(rng, [2, 5])
    c.input("X", x)
    c.op("Identity", ["X"], ["T0"])
    c.op("StopGradient", ["T0"], ["T1"])
    c.op("ScaleGradient", ["T1"], ["T1"], scale=0.5)
    c.op("EnsureDense", ["T1"], ["T2"])
    c.op("EnsureCPUOutput", ["T2"], ["T3"])
    c.op("CopyCPUToMKL", ["T3"], ["T4"])
    c.op("CopyMKLToCPU", ["T4"], ["T5"])
    c.op("Relu", ["T0"], ["R"])
    c.op("Free", ["T0"], ["T0"])
    c.op("Sqr", ["T5"], ["Y"])
    c.output("Y", ref_unary("Sqr", x))
    c.output("R", np.maximum(x, 0))


def layout_cases(new):
    # --- layout: NCHW2NHWC on 3-, 4- and 5-D inputs and NHWC2NCHW back; Shape whole and of
    # `axes`; ChannelShuffle NCHW and NHWC; ResizeNearest by 2 (the fast path), by 1.5 / 0.6,
    # NHWC, and with scales as a second input; BatchGather with 2-D int32 indices.
    rng = np.random.default_rng(8006)
    c = new("layout")
    x3, x4, x5 = rand(rng, [2, 3, 4]), rand(rng, [2, 6, 3, 4]), rand(rng, [1, 2, 3, 2, 2])
    for n, v in (("X3", x3), ("X4", x4), ("X5", x5)):
        c.input(n, v)
    c.op("NCHW2NHWC", ["X3"], ["Y_nhwc3"])
    c.op("NCHW2NHWC", ["X4"], ["Y_nhwc4"])
    c.op("NCHW2NHWC", ["X5"], ["Y_nhwc5"])
    c.op("NHWC2NCHW", ["Y_nhwc4"], ["Y_back4"])
    c.output("Y_nhwc3", ref_nchw2nhwc(x3))
    c.output("Y_nhwc5", ref_nchw2nhwc(x5))
    c.output("Y_nhwc4", ref_nchw2nhwc(x4))
    c.output("Y_back4", ref_nhwc2nchw(ref_nchw2nhwc(x4)))
    c.op("Shape", ["X4"], ["Y_shape"])
    c.op("Shape", ["X4"], ["Y_shape_axes"], axes=[3, 1])
    c.output("Y_shape", ref_shape(x4))
    c.output("Y_shape_axes", ref_shape(x4, [3, 1]))
    c.op("ChannelShuffle", ["X4"], ["Y_shuffle"], group=3)
    c.op("ChannelShuffle", ["Y_nhwc4"], ["Y_shuffle_nhwc"], group=2, order="NHWC")
    c.output("Y_shuffle", ref_channel_shuffle(x4, 3))
    c.output("Y_shuffle_nhwc", ref_channel_shuffle(ref_nchw2nhwc(x4), 2, "NHWC"))
    c.weight("scales", np.array([0.6, 2.5], F32))
    c.op("ResizeNearest", ["X4"], ["Y_up2"], height_scale=2.0, width_scale=2.0)
    c.op("ResizeNearest", ["X4"], ["Y_up"], height_scale=1.5, width_scale=0.6)
    c.op("ResizeNearest", ["Y_nhwc4"], ["Y_up_nhwc"], height_scale=3.0, width_scale=1.25,
         order="NHWC")
    c.op("ResizeNearest", ["X4", "scales"], ["Y_up_input"])
    c.output("Y_up2", ref_resize_nearest(x4, 2.0, 2.0))
    y = ref_resize_nearest(x4, 1.5, 0.6)
    assert y.shape == (2, 6, 4, 2)
    c.output("Y_up", y)
    c.output("Y_up_nhwc", ref_resize_nearest(ref_nchw2nhwc(x4), 3.0, 1.25, "NHWC"))
    c.output("Y_up_input", ref_resize_nearest(x4, 0.6, 2.5))
    idx = rng.integers(0, 6, size=[2, 3]).astype(np.int32)
    c.input("Idx", idx)
    c.op("BatchGather", ["X4", "Idx"], ["Y_batch_gather"])
    c.output("Y_batch_gather", ref_batch_gather(x4, idx))

    # --- scatter_ranges: ScatterAssign in place of rows of a [5, 2, 3] DATA (int64 indices)
    # and of an int32 [6] vector; LengthsToRanges of int32 lengths (zeros among them).
    rng = np.random.default_rng(8011)
    c = new("scatter_ranges")
    data, slices = rand(rng, [5, 2, 3]), rand(rng, [2, 2, 3])
    sidx = np.array([3, 0], np.int64)
    vec, vidx = rng.integers(-9, 9, size=[6]).astype(np.int32), np.array([5, 1, 2], np.int32)
    vslices = rng.integers(100, 200, size=[3]).astype(np.int32)
    lengths = np.array([2, 0, 3, 1, 0], np.int32)
    for n, v in (("D", data), ("S", slices), ("V", vec), ("VS", vslices), ("L", lengths)):
        c.input(n, v)
    c.weight("Sidx", sidx)
    c.weight("Vidx", vidx)
    c.op("ScatterAssign", ["D", "Sidx", "S"], ["D"])
    c.op("Copy", ["D"], ["Y_scatter"])
    c.op("ScatterAssign", ["V", "Vidx", "VS"], ["V"])
    c.op("Copy", ["V"], ["Y_scatter_int"])
    c.op("LengthsToRanges", ["L"], ["Y_ranges"])
    c.output("Y_scatter", ref_scatter_assign(data, sidx, slices))
    c.output("Y_scatter_int", ref_scatter_assign(vec, vidx, vslices))
    c.output("Y_ranges", ref_lengths_to_ranges(lengths))

    # --- fp16_fill: GivenTensorFp16Fill (values that float16 rounds) read by HalfToFloat.
    rng = np.random.default_rng(8007)
    c = new("fp16_fill")
    vals = rand(rng, [2, 3], -3.0, 3.0)
    x = rand(rng, [2, 3])
    c.input("X", x)
    c.fill("H", "GivenTensorFp16Fill", shape=[2, 3], values=vals.flatten().tolist())
    c.op("HalfToFloat", ["H"], ["Hf"])
    c.op("Add", ["X", "Hf"], ["Y"])
    h = ref_fp16_fill([2, 3], vals)
    assert not np.array_equal(h.astype(F32), vals)
    c.output("Hf", h.astype(F32))
    c.output("Y", (x + h.astype(F32)).astype(F32))


def reduction_cases(new):
    # --- reductions: ReduceMin/Max/Sum/Mean/L1/L2 over all axes, negative and unsorted axes,
    # keepdims 0; ReduceFront/Back Sum/Mean/Max with num_reduce_dim 1 and 2; ArgMax / ArgMin
    # with ties (multiples of 0.25) at the default axis and keepdims 0 elsewhere; int32 sums;
    # SumElements, SumSqrElements, AveragedLoss and LpNorm (p 2 and p 1, averaged).
    rng = np.random.default_rng(8010)
    c = new("reductions")
    x = rand(rng, [2, 3, 4], -2.0, 2.0)
    t = (rng.integers(-2, 3, size=[3, 4, 2]) * 0.25).astype(F32)
    i = rng.integers(-50, 50, size=[3, 4]).astype(np.int32)
    c.input("X", x)
    c.input("T", t)
    c.input("I", i)
    for op, kind in (("ReduceMin", "min"), ("ReduceMax", "max"), ("ReduceSum", "sum"),
                     ("ReduceMean", "mean"), ("ReduceL1", "l1"), ("ReduceL2", "l2")):
        c.op(op, ["X"], ["Y_all_" + kind])
        c.output("Y_all_" + kind, ref_reduce(x, kind))
        c.op(op, ["X"], ["Y_" + kind], axes=[-1, 0], keepdims=0)
        c.output("Y_" + kind, ref_reduce(x, kind, [-1, 0], False))
    c.op("ReduceSum", ["I"], ["Y_int_sum"], axes=[1])
    c.output("Y_int_sum", i.sum(axis=1, keepdims=True).astype(np.int32))
    for op, kind, front, n in (("ReduceFrontSum", "sum", True, 1),
                               ("ReduceFrontMean", "mean", True, 2),
                               ("ReduceFrontMax", "max", True, 1),
                               ("ReduceBackSum", "sum", False, 2),
                               ("ReduceBackMean", "mean", False, 1),
                               ("ReduceBackMax", "max", False, 1)):
        name = "Y_%s%d" % (op[6:].lower(), n)
        c.op(op, ["X"], [name], num_reduce_dim=n)
        c.output(name, ref_reduce_front_back(x, kind, front, n))
    c.op("ArgMax", ["T"], ["Y_argmax"])
    c.op("ArgMin", ["T"], ["Y_argmin"])
    c.op("ArgMax", ["T"], ["Y_argmax1"], axis=1, keepdims=0)
    c.op("ArgMin", ["T"], ["Y_argmin0"], axis=0, keepdims=0)
    c.output("Y_argmax", ref_arg(t, True))
    c.output("Y_argmin", ref_arg(t, False))
    c.output("Y_argmax1", ref_arg(t, True, 1, False))
    c.output("Y_argmin0", ref_arg(t, False, 0, False))
    c.op("SumElements", ["X"], ["Y_sum_elements"])
    c.op("SumElements", ["X"], ["Y_sum_elements_avg"], average=1)
    c.op("SumSqrElements", ["X"], ["Y_sum_sqr_avg"], average=1)
    c.op("AveragedLoss", ["X"], ["Y_averaged_loss"])
    c.op("LpNorm", ["X"], ["Y_l2_norm"])
    c.op("LpNorm", ["X"], ["Y_l1_norm_avg"], p=1, average=1)
    c.output("Y_sum_elements", ref_sum_elements(x))
    c.output("Y_sum_elements_avg", ref_sum_elements(x, True))
    c.output("Y_sum_sqr_avg", ref_sum_elements(x, True, True))
    c.output("Y_averaged_loss", ref_sum_elements(x, True))
    c.output("Y_l2_norm", ref_lp_norm(x))
    c.output("Y_l1_norm_avg", ref_lp_norm(x, 1, True))


def norm_select_cases(new):
    # --- layer_norm: the default axis 1, axis -1 with another epsilon, and elementwise_affine
    # with gamma and beta at axis 2; the mean and sigma outputs too.
    rng = np.random.default_rng(8010)
    c = new("layer_norm")
    x = rand(rng, [2, 3, 4], -2.0, 2.0)
    g, b = rand(rng, [4], 0.5, 1.5), rand(rng, [4])
    c.input("X", x)
    c.weight("G", g)
    c.weight("B", b)
    c.op("LayerNorm", ["X"], ["Y", "Y_mean", "Y_sigma"])
    c.op("LayerNorm", ["X"], ["Y_last"], axis=-1, epsilon=1e-3)
    c.op("LayerNorm", ["X", "G", "B"], ["Y_affine"], axis=2, elementwise_affine=1)
    y, mean, sigma = ref_layer_norm(x)
    for name, v in (("Y", y), ("Y_mean", mean), ("Y_sigma", sigma),
                    ("Y_last", ref_layer_norm(x, -1, 1e-3)[0]),
                    ("Y_affine", ref_layer_norm(x, 2, gamma=g, beta=b)[0])):
        c.output(name, v)
    # RMSNorm at axis 2 with the default eps 0 and at axis -1 with eps; its rrms output.
    c.op("RMSNorm", ["X", "G", "B"], ["Y_rms", "Y_rrms"], axis=2)
    c.op("RMSNorm", ["X", "G", "B"], ["Y_rms_eps"], axis=-1, eps=0.5)
    y_rms, rrms = ref_rms_norm(x, g, b, 2)
    c.output("Y_rms", y_rms)
    c.output("Y_rrms", rrms)
    c.output("Y_rms_eps", ref_rms_norm(x, g, b, -1, 0.5)[0])

    # --- batch_box_cox: columns with lambda1 zero (log) and not, x + lambda2 below 1e-6
    # (clamped) in some rows; 3-D DATA seen as [N, D].
    rng = np.random.default_rng(8014)
    c = new("batch_box_cox")
    x = rand(rng, [4, 3, 2], -1.2, 3.0)
    l1 = np.array([0.0, 0.5, -1.0, 0.0, 2.0, 1.5], F32)
    l2 = np.array([1.0, 0.0, 0.6, 0.2, 0.5, 0.1], F32)
    c.input("X", x)
    c.weight("L1", l1)
    c.weight("L2", l2)
    c.op("BatchBoxCox", ["X", "L1", "L2"], ["Y"])
    assert (x.reshape(4, -1) + l2 < 1e-6).any()
    c.output("Y", ref_batch_box_cox(x, l1, l2))

    # --- top_k: k along the last axis on values with ties (lower index first), along axis 0,
    # and k beyond the axis (values padded with 0, indices with -1).
    rng = np.random.default_rng(8011)
    c = new("top_k")
    x = (rng.integers(-4, 5, size=[3, 5]) * 0.5).astype(F32)
    z = rand(rng, [3, 4, 2])
    c.input("X", x)
    c.input("Z", z)
    c.op("TopK", ["X"], ["V", "I"], k=3)
    c.op("TopK", ["Z"], ["V0", "I0"], k=2, axis=0)
    c.op("TopK", ["X"], ["V_pad", "I_pad"], k=7)
    for names, ref in ((("V", "I"), ref_top_k(x, 3)), (("V0", "I0"), ref_top_k(z, 2, 0)),
                       (("V_pad", "I_pad"), ref_top_k(x, 7))):
        for name, v in zip(names, ref):
            c.output(name, v)

    # --- bucketize: elements equal to a boundary (lower_bound puts them in its bucket), below
    # the first and above the last, with a repeated boundary.
    c = new("bucketize")
    x = np.array([[-1.0, -0.5, 0.0, 0.1, 0.25], [0.3, 1.0, 2.0, -0.25, 0.25]], F32)
    bounds = [-0.5, 0.0, 0.25, 0.25, 1.0]
    c.input("X", x)
    c.op("Bucketize", ["X"], ["Y"], boundaries=np.array(bounds, F32))
    c.output("Y", ref_bucketize(x, bounds))

    # --- batch_one_hot: float X [3, 2] expanded into 2 + 3 columns.
    c = new("batch_one_hot")
    x = np.array([[1, 7], [2, 5], [1, 6]], F32)
    lens, vals = np.array([2, 3], np.int32), np.array([1, 2, 5, 6, 9], F32)
    c.input("X", x)
    c.weight("LENS", lens)
    c.weight("VALS", vals)
    c.op("BatchOneHot", ["X", "LENS", "VALS"], ["Y"])
    c.output("Y", ref_batch_one_hot(x, lens, vals))

    # --- sparse_to_dense: repeated indices (accumulated) and an untouched row, the first dim
    # from output_first_dim, from DATA_TO_INFER_DIM, and from constant INDICES (1 + max);
    # int32 values.
    rng = np.random.default_rng(8015)
    c = new("sparse_to_dense")
    idx = np.array([3, 0, 3, 1], np.int32)
    v, vi = rand(rng, [4, 2, 3]), rng.integers(-9, 10, size=[4]).astype(np.int32)
    like = rand(rng, [6, 1])
    c.input("I", idx)
    c.input("V", v)
    c.input("VI", vi)
    c.input("LIKE", like)
    c.weight("IC", idx)
    c.op("SparseToDense", ["I", "V"], ["Y_arg"], output_first_dim=5)
    c.op("SparseToDense", ["I", "V", "LIKE"], ["Y_like"])
    c.op("SparseToDense", ["IC", "VI"], ["Y_max"])
    c.output("Y_arg", ref_sparse_to_dense(idx, v, 5))
    c.output("Y_like", ref_sparse_to_dense(idx, v, 6))
    c.output("Y_max", ref_sparse_to_dense(idx, vi))

    # --- batch_sparse_to_dense: run-time lengths with an empty segment, the last dim from
    # dense_last_dim with a default value, and from a shape input.
    rng = np.random.default_rng(8016)
    c = new("batch_sparse_to_dense")
    lens = np.array([2, 0, 3, 1], np.int64)
    cols = np.array([0, 4, 1, 2, 4, 3], np.int64)
    vals = rand(rng, [6])
    shaper = rand(rng, [4, 6])
    c.input("LENS", lens)
    c.input("COLS", cols)
    c.input("VALS", vals)
    c.input("SHAPER", shaper)
    c.op("BatchSparseToDense", ["LENS", "COLS", "VALS"], ["Y"], dense_last_dim=5,
         default_value=-1.5)
    c.op("BatchSparseToDense", ["LENS", "COLS", "VALS", "SHAPER"], ["Y_shaped"])
    c.output("Y", ref_batch_sparse_to_dense(lens, cols, vals, 5, -1.5))
    c.output("Y_shaped", ref_batch_sparse_to_dense(lens, cols, vals, 6))

    # --- row_products: DotProduct of matrices and of 3-D tensors (rows of 6), and
    # SigmoidCrossEntropyWithLogits in its three forms on logits of both signs; ReduceProd and
    # ReduceSumSquare (Glow's common-loader operators) over all and over chosen axes.
    rng = np.random.default_rng(8012)
    c = new("row_products")
    a, b = rand(rng, [3, 4]), rand(rng, [3, 4])
    a3, b3 = rand(rng, [2, 3, 2]), rand(rng, [2, 3, 2])
    lg, tg = rand(rng, [2, 3, 4], -6.0, 6.0), rand(rng, [2, 3, 4], 0.0, 1.0)
    for n, v in (("A", a), ("B", b), ("A3", a3), ("B3", b3), ("L", lg), ("T", tg)):
        c.input(n, v)
    c.op("DotProduct", ["A", "B"], ["Y_dot"])
    c.op("DotProduct", ["A3", "B3"], ["Y_dot3"])
    c.op("SigmoidCrossEntropyWithLogits", ["L", "T"], ["Y_xent"])
    c.op("SigmoidCrossEntropyWithLogits", ["L", "T"], ["Y_xent_logd"], log_D_trick=1)
    c.op("SigmoidCrossEntropyWithLogits", ["L", "T"], ["Y_xent_unjoined"], unjoined_lr_loss=1)
    c.op("ReduceProd", ["A3"], ["Y_prod"])
    c.op("ReduceProd", ["A"], ["Y_prod1"], axes=[1], keepdims=0)
    c.op("ReduceSumSquare", ["A3"], ["Y_sumsq"], axes=[0, 2])
    for name, v in (("Y_dot", ref_dot_product(a, b)), ("Y_dot3", ref_dot_product(a3, b3)),
                    ("Y_xent", ref_sigmoid_xent(lg, tg)),
                    ("Y_xent_logd", ref_sigmoid_xent(lg, tg, log_d_trick=True)),
                    ("Y_xent_unjoined", ref_sigmoid_xent(lg, tg, unjoined_lr_loss=True)),
                    ("Y_prod", ref_reduce(a3, "prod")),
                    ("Y_prod1", ref_reduce(a, "prod", [1], False)),
                    ("Y_sumsq", ref_reduce(a3, "sum_square", [0, 2]))):
        c.output(name, v)

    # --- conv_relu: ConvRelu (conv_relu_op.cc: Conv, then max(0, y)) in NCHW with pads and
    # in NHWC.
    rng = np.random.default_rng(8013)
    c = new("conv_relu")
    x, w, b = rand(rng, [1, 2, 5, 5]), rand(rng, [3, 2, 3, 3]), rand(rng, [3])
    xh, wh = rand(rng, [1, 4, 4, 2]), rand(rng, [3, 2, 2, 2])
    c.input("X", x)
    c.input("XH", xh)
    c.weight("W", w)
    c.weight("WH", wh)
    c.weight("b", b)
    c.op("ConvRelu", ["X", "W", "b"], ["Y"], kernel=3, pad=1)
    c.op("ConvRelu", ["XH", "WH", "b"], ["Y_nhwc"], kernel=2, order="NHWC")
    c.output("Y", ref_relu(ref_conv(x, w, b, (3, 3), pads=(1, 1, 1, 1))))
    c.output("Y_nhwc", ref_relu(ref_conv(xh, wh, b, (2, 2), order="NHWC")))


def input_cases(new):
    # --- unlisted_inputs: a net whose external_input lists only one of the blobs it reads
    # (hand-written nets often list none): the others are inputs all the same.
    rng = np.random.default_rng(8008)
    c = new("unlisted_inputs")
    x, y = rand(rng, [2, 3]), rand(rng, [2, 3])
    c.input("X", x)
    c.input("Y", y, listed=False)
    c.op("Mul", ["X", "Y"], ["Z"])
    c.op("Add", ["Z", "Y"], ["W"])
    c.output("W", (x.astype(np.float64) * y + y).astype(F32))

    # --- zoo_folder: the model zoo's layout: predict_net and init_net both as .pb and .pbtxt,
    # and value_info.json typing the input (the loader reads the binary pair).
    rng = np.random.default_rng(8009)
    c = new("zoo_folder", binary=True, also_text=True,
            value_info={"data": [DT_FLOAT, [1, 3, 4]]})
    x, w = rand(rng, [1, 3, 4]), rand(rng, [3, 1])
    c.input("data", x)
    c.weight("w", w)
    c.op("Mul", ["data", "w"], ["scaled"])
    c.op("Relu", ["scaled"], ["prob"])
    c.output("prob", np.maximum((x.astype(np.float64) * w), 0).astype(F32))


def math_cases(new):
    unary_cases(new)
    compare_cases(new)
    layout_cases(new)
    reduction_cases(new)
    norm_select_cases(new)
    input_cases(new)
