// Caffe2's int8 operators (caffe2/operators/quantized/int8_*.h, which run QNNPACK): uint8 blobs
// with a scale and zero point each (QuantParams), NHWC layouts, every operator requantizing to
// its `Y_scale` and `Y_zero_point`. They map onto ember's quantized kinds: IntegerConv and
// IntegerMatMul accumulate in int32, Requantize rounds to the output's uint8; pools and sums go
// through float (exact for MaxPool, whose scale and zero point pass through unchanged).
// QNNPACK's fixed-point requantization rounds ties away from zero where Requantize rounds them
// to even, so results may differ by one step on exact ties.
#include "ConvPoolArgs.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

Expected<QuantParams> outputQuant(OpContext &ctx) {
  QuantParams q{ctx.getFloat("Y_scale", 1), int32_t(ctx.getInt("Y_zero_point", 0))};
  if (!(q.scale > 0) || q.zeroPoint < 0 || q.zeroPoint > 255)
    return ctx.fail("Y_scale " + std::to_string(q.scale) + " must be > 0 and Y_zero_point " +
                    Twine(q.zeroPoint) + " in [0, 255]");
  return q;
}

/// A scale or zero point as the parameter operand of a rank-\p rank tensor (all dims 1).
NodeValue scaleParam(OpContext &ctx, float scale, size_t rank, StringRef suffix) {
  Tensor t(Type(ElemKind::Float32, DimsVec(rank, 1)));
  t.dataAs<float>()[0] = scale;
  return ctx.createConstant(std::move(t), suffix)->getResult();
}

NodeValue zeroParam(OpContext &ctx, int32_t zeroPoint, size_t rank, StringRef suffix) {
  Tensor t(Type(ElemKind::UInt8, DimsVec(rank, 1)));
  t.dataAs<uint8_t>()[0] = uint8_t(zeroPoint);
  return ctx.createConstant(std::move(t), suffix)->getResult();
}

Expected<NodeValue> quantize(OpContext &ctx, NodeValue x, QuantParams q, StringRef suffix = "") {
  size_t r = x.getType().rank();
  return ctx.create(NodeKind::QuantizeLinear,
                    {x, scaleParam(ctx, q.scale, r, "y_scale"),
                     zeroParam(ctx, q.zeroPoint, r, "y_zero_point")},
                    {}, suffix);
}

Expected<NodeValue> dequantize(OpContext &ctx, NodeValue x, QuantParams q, StringRef suffix) {
  size_t r = x.getType().rank();
  return ctx.create(NodeKind::DequantizeLinear,
                    {x, scaleParam(ctx, q.scale, r, suffix.str() + "_scale"),
                     zeroParam(ctx, q.zeroPoint, r, suffix.str() + "_zero_point")},
                    {}, suffix);
}

/// Requantize of an int32 accumulator to \p y with multiplier xScale * wScale / yScale, as
/// Caffe2 computes it in float; \p relu clamps below at the zero point (the Relu variants).
Expected<NodeValue> requantize(OpContext &ctx, NodeValue acc, float multiplier, QuantParams y,
                               bool relu) {
  size_t r = acc.getType().rank();
  EMBER_ASSIGN_OR_RETURN(NodeValue out,
                         ctx.create(NodeKind::Requantize,
                                    {acc, scaleParam(ctx, multiplier, r, "multiplier"),
                                     zeroParam(ctx, y.zeroPoint, r, "y_zero_point")},
                                    {}, relu ? "requantize" : ""));
  if (!relu)
    return out;
  Tensor lo(Type(ElemKind::UInt8, {})), hi(Type(ElemKind::UInt8, {}));
  lo.dataAs<uint8_t>()[0] = uint8_t(y.zeroPoint);
  hi.dataAs<uint8_t>()[0] = 255;
  return ctx.create(NodeKind::Clip, {out, ctx.createConstant(std::move(lo), "relu_min")->getResult(),
                                     ctx.createConstant(std::move(hi), "relu_max")->getResult()});
}

Error checkUInt8(OpContext &ctx, NodeValue v, unsigned i) {
  if (v.getType().kind != ElemKind::UInt8)
    return ctx.fail("input " + Twine(i) + " must be uint8, got " + v.getType().str());
  return Error::success();
}

Error loadInt8Quantize(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (!isFloatKind(x.getType().kind))
    return ctx.fail("input must be float, got " + x.getType().str());
  EMBER_ASSIGN_OR_RETURN(QuantParams q, outputQuant(ctx));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, quantize(ctx, x, q));
  return ctx.setQuantOutput(0, y, q);
}

Error loadInt8Dequantize(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(QuantParams q, ctx.inputQuant(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, dequantize(ctx, x, q, ""));
  return ctx.setOutput(0, y);
}

/// Int8Conv / Int8ConvRelu (int8_conv_op.h): X NHWC, W [M, k.., C/group], optional int32 bias
/// [M] in the scale X_scale * W_scale; padded cells hold X's zero point.
template <bool Relu> Error loadInt8Conv(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue w, ctx.input(1));
  EMBER_TRY(checkUInt8(ctx, x, 0));
  EMBER_TRY(checkUInt8(ctx, w, 1));
  EMBER_ASSIGN_OR_RETURN(QuantParams qx, ctx.inputQuant(0));
  EMBER_ASSIGN_OR_RETURN(QuantParams qw, ctx.inputQuant(1));
  EMBER_ASSIGN_OR_RETURN(QuantParams qy, outputQuant(ctx));
  size_t rank = x.getType().rank();
  if (rank < 3 || w.getType().rank() != rank)
    return ctx.fail("input " + x.getType().str() + " and filter " + w.getType().str() +
                    " must have the same rank >= 3");
  bool nhwc = ctx.getString("order", "NHWC") == "NHWC";
  if (nhwc) {
    EMBER_ASSIGN_OR_RETURN(x, ctx.transpose(x, toChannelsFirst(rank), "nchw"));
    EMBER_ASSIGN_OR_RETURN(w, ctx.transpose(w, toChannelsFirst(rank), "filter_nchw"));
  }
  std::vector<int64_t> filterKernels(w.getType().dims.begin() + 2, w.getType().dims.end());
  EMBER_ASSIGN_OR_RETURN(ConvPoolArgs a, readConvPoolArgs(ctx, filterKernels));
  std::vector<dim_t> spatial(x.getType().dims.begin() + 2, x.getType().dims.end());
  EMBER_TRY(resolvePads(ctx, a, spatial));
  dim_t m = w.getType().dims[0];
  NodeValue bias;
  if (ctx.numInputs() > 2) {
    EMBER_ASSIGN_OR_RETURN(bias, ctx.input(2));
    if (bias.getType().kind != ElemKind::Int32 || bias.getType().numElements() != m)
      return ctx.fail("bias must be int32 with " + Twine(m) + " elements, got " +
                      bias.getType().str());
    EMBER_ASSIGN_OR_RETURN(bias, ctx.reshape(bias, {m}));
  } else {
    bias = ctx.createConstant(Tensor(Type(ElemKind::Int32, {m})), "bias")->getResult();
  }
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(a.kernels)
      .set<AttrKind::Strides>(a.strides)
      .set<AttrKind::Pads>(a.pads)
      .set<AttrKind::Dilations>(a.dilations)
      .set<AttrKind::Group>(a.group);
  EMBER_ASSIGN_OR_RETURN(NodeValue acc,
                         ctx.create(NodeKind::IntegerConv,
                                    {x, w, bias, zeroParam(ctx, qx.zeroPoint, rank, "x_zero"),
                                     zeroParam(ctx, qw.zeroPoint, rank, "w_zero")},
                                    attrs, "acc"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         requantize(ctx, acc, qx.scale * qw.scale / qy.scale, qy, Relu));
  if (nhwc) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.transpose(y, toChannelsLast(rank), "nhwc"));
  }
  return ctx.setQuantOutput(0, y, qy);
}

/// Int8FC (int8_fc_op.h): X coerced to [M, K] at axis 1, W [N, K], int32 bias [N].
Error loadInt8FC(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(3));
  NodeValue x = in[0], w = in[1], b = in[2];
  EMBER_TRY(checkUInt8(ctx, x, 0));
  EMBER_TRY(checkUInt8(ctx, w, 1));
  EMBER_ASSIGN_OR_RETURN(QuantParams qx, ctx.inputQuant(0));
  EMBER_ASSIGN_OR_RETURN(QuantParams qw, ctx.inputQuant(1));
  EMBER_ASSIGN_OR_RETURN(QuantParams qy, outputQuant(ctx));
  ArrayRef<dim_t> xd = x.getType().dims, wd = w.getType().dims;
  if (xd.empty() || wd.size() < 2)
    return ctx.fail("input " + x.getType().str() + " and weights " + w.getType().str() +
                    " must be [M, K..] and [N, K..]");
  dim_t mRows = xd[0], k = x.getType().numElements() / std::max<dim_t>(xd[0], 1), n = wd[0];
  if (w.getType().numElements() != n * k)
    return ctx.fail("weights " + w.getType().str() + " do not have K = " + Twine(k) +
                    " columns for input " + x.getType().str());
  if (b.getType().kind != ElemKind::Int32 || b.getType().numElements() != n)
    return ctx.fail("bias must be int32 with " + Twine(n) + " elements, got " +
                    b.getType().str());
  EMBER_ASSIGN_OR_RETURN(NodeValue x2, ctx.reshape(x, {mRows, k}));
  EMBER_ASSIGN_OR_RETURN(NodeValue w2, ctx.reshape(w, {n, k}));
  EMBER_ASSIGN_OR_RETURN(w2, ctx.transpose(w2, {1, 0}, "weights_t"));
  EMBER_ASSIGN_OR_RETURN(NodeValue acc,
                         ctx.create(NodeKind::IntegerMatMul,
                                    {x2, w2, zeroParam(ctx, qx.zeroPoint, 2, "x_zero"),
                                     zeroParam(ctx, qw.zeroPoint, 2, "w_zero")},
                                    {}, "acc"));
  EMBER_ASSIGN_OR_RETURN(NodeValue b2, ctx.reshape(b, {1, n}));
  EMBER_ASSIGN_OR_RETURN(b2, ctx.broadcastTo(b2, {mRows, n}));
  EMBER_ASSIGN_OR_RETURN(acc, ctx.create(NodeKind::Add, {acc, b2}, {}, "acc_bias"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         requantize(ctx, acc, qx.scale * qw.scale / qy.scale, qy, false));
  return ctx.setQuantOutput(0, y, qy);
}

/// Int8Sum / Int8SumRelu / Int8Add / Int8AddRelu (int8_add_op.h): two inputs of one shape,
/// each with its own quantization, added in real numbers and requantized.
template <bool Relu> Error loadInt8Sum(OpContext &ctx) {
  if (ctx.numInputs() != 2)
    return ctx.fail("takes exactly 2 inputs, got " + Twine(ctx.numInputs()));
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  if (in[0].getType() != in[1].getType())
    return ctx.fail("inputs " + in[0].getType().str() + " and " + in[1].getType().str() +
                    " differ (Int8 addition does not broadcast)");
  EMBER_ASSIGN_OR_RETURN(QuantParams qa, ctx.inputQuant(0));
  EMBER_ASSIGN_OR_RETURN(QuantParams qb, ctx.inputQuant(1));
  EMBER_ASSIGN_OR_RETURN(QuantParams qy, outputQuant(ctx));
  EMBER_ASSIGN_OR_RETURN(NodeValue a, dequantize(ctx, in[0], qa, "a_real"));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, dequantize(ctx, in[1], qb, "b_real"));
  EMBER_ASSIGN_OR_RETURN(NodeValue s, ctx.create(NodeKind::Add, {a, b}, {}, "sum_real"));
  if (Relu) {
    EMBER_ASSIGN_OR_RETURN(s, ctx.create(NodeKind::Relu, {s}, {}, "relu_real"));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, quantize(ctx, s, qy));
  return ctx.setQuantOutput(0, y, qy);
}

/// Int8MaxPool (int8_max_pool_op.h, the output keeps the input's quantization) and
/// Int8AveragePool (int8_average_pool_op.h, whose divisor counts padded cells, which hold the
/// zero point): NHWC windows as the float pools read them.
template <NodeKind K> Error loadInt8Pool(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_TRY(checkUInt8(ctx, x, 0));
  EMBER_ASSIGN_OR_RETURN(QuantParams qx, ctx.inputQuant(0));
  EMBER_ASSIGN_OR_RETURN(QuantParams qy, outputQuant(ctx));
  if (K == NodeKind::MaxPool && (qy.scale != qx.scale || qy.zeroPoint != qx.zeroPoint))
    return ctx.fail("Int8MaxPool's Y_scale and Y_zero_point must equal its input's");
  size_t rank = x.getType().rank();
  if (rank < 3)
    return ctx.fail("input must have rank >= 3, got " + x.getType().str());
  bool nhwc = ctx.getString("order", "NHWC") == "NHWC";
  EMBER_ASSIGN_OR_RETURN(NodeValue real, dequantize(ctx, x, qx, "real"));
  if (nhwc) {
    EMBER_ASSIGN_OR_RETURN(real, ctx.transpose(real, toChannelsFirst(rank), "nchw"));
  }
  EMBER_ASSIGN_OR_RETURN(ConvPoolArgs a, readConvPoolArgs(ctx));
  std::vector<dim_t> spatial(real.getType().dims.begin() + 2, real.getType().dims.end());
  EMBER_TRY(resolvePads(ctx, a, spatial));
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(a.kernels)
      .set<AttrKind::Strides>(a.strides)
      .set<AttrKind::Pads>(a.pads)
      .set<AttrKind::Dilations>(a.dilations)
      .set<AttrKind::CeilMode>(0);
  if (K == NodeKind::MaxPool)
    attrs.set<AttrKind::StorageOrder>(0);
  else
    attrs.set<AttrKind::CountIncludePad>(1);
  EMBER_ASSIGN_OR_RETURN(NodeValue p, ctx.create(K, {real}, attrs, "pool_real"));
  if (nhwc) {
    EMBER_ASSIGN_OR_RETURN(p, ctx.transpose(p, toChannelsLast(rank), "nhwc"));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, quantize(ctx, p, qy));
  return ctx.setQuantOutput(0, y, qy);
}

/// Int8Relu: max(X, zero point), quantization unchanged.
Error loadInt8Relu(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_TRY(checkUInt8(ctx, x, 0));
  EMBER_ASSIGN_OR_RETURN(QuantParams q, ctx.inputQuant(0));
  Tensor lo(Type(ElemKind::UInt8, {})), hi(Type(ElemKind::UInt8, {}));
  lo.dataAs<uint8_t>()[0] = uint8_t(q.zeroPoint);
  hi.dataAs<uint8_t>()[0] = 255;
  EMBER_ASSIGN_OR_RETURN(
      NodeValue y, ctx.create(NodeKind::Clip, {x, ctx.createConstant(std::move(lo), "min")->getResult(),
                                               ctx.createConstant(std::move(hi), "max")->getResult()}));
  return ctx.setQuantOutput(0, y, q);
}

} // namespace

void registerQuantizedOps(OpRegistry &r) {
  r.add("Int8Quantize", loadInt8Quantize);
  r.add("Int8Dequantize", loadInt8Dequantize);
  r.add("Int8Conv", loadInt8Conv<false>);
  r.add("Int8ConvRelu", loadInt8Conv<true>);
  r.add("Int8FC", loadInt8FC);
  r.add("Int8Sum", loadInt8Sum<false>);
  r.add("Int8Add", loadInt8Sum<false>);
  r.add("Int8SumRelu", loadInt8Sum<true>);
  r.add("Int8AddRelu", loadInt8Sum<true>);
  r.add("Int8MaxPool", loadInt8Pool<NodeKind::MaxPool>);
  r.add("Int8AveragePool", loadInt8Pool<NodeKind::AvgPool>);
  r.add("Int8Relu", loadInt8Relu);
}

} // namespace c2
} // namespace ember
