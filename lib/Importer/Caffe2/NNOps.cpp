// Caffe2's convolutions and pools (caffe2/operators/conv_op.h, conv_relu_op.cc,
// pool_op.cc; arguments from conv_pool_op_base.h, see ConvPoolArgs.h). NHWC operators run as
// the NCHW node between transposes, which the graph optimizer sinks or folds into weights.
// The matrix products (FC, MatMul, BatchMatMul) are in NNOpsMatMul.cpp.
#include "ConvPoolArgs.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

void registerNNMatMulOps(OpRegistry &r);

namespace {

/// Input \p v in channels-first order (transposed when the operator is NHWC).
Expected<NodeValue> channelsFirst(OpContext &ctx, NodeValue v, bool nhwc, StringRef suffix) {
  if (!nhwc)
    return v;
  if (v.getType().rank() < 3)
    return ctx.fail("an NHWC input must have rank >= 3, got " + v.getType().str());
  return ctx.transpose(v, toChannelsFirst(v.getType().rank()), suffix);
}

Expected<NodeValue> backToOrder(OpContext &ctx, NodeValue v, bool nhwc) {
  if (!nhwc)
    return v;
  return ctx.transpose(v, toChannelsLast(v.getType().rank()), "nhwc");
}

AttrList windowAttrs(const ConvPoolArgs &a) {
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(a.kernels)
      .set<AttrKind::Strides>(a.strides)
      .set<AttrKind::Pads>(a.pads);
  return attrs;
}

std::vector<dim_t> spatialDims(const Type &channelsFirst) {
  return std::vector<dim_t>(channelsFirst.dims.begin() + 2, channelsFirst.dims.end());
}

/// What Conv and ConvTranspose read alike: input and filter in channels-first order (transposed
/// from NHWC), and the window arguments, a missing kernel taken from the filter.
struct ConvOperands {
  NodeValue x, w;
  bool nhwc;
  ConvPoolArgs args;
};

Expected<ConvOperands> readConvOperands(OpContext &ctx) {
  ConvOperands c;
  EMBER_ASSIGN_OR_RETURN(c.x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(c.w, ctx.input(1));
  if (c.x.getType().rank() < 3 || c.w.getType().rank() != c.x.getType().rank())
    return ctx.fail("input " + c.x.getType().str() + " and filter " + c.w.getType().str() +
                    " must have the same rank >= 3");
  c.nhwc = ctx.getString("order", "NCHW") == "NHWC";
  EMBER_ASSIGN_OR_RETURN(c.x, channelsFirst(ctx, c.x, c.nhwc, "nchw"));
  EMBER_ASSIGN_OR_RETURN(c.w, channelsFirst(ctx, c.w, c.nhwc, "filter_nchw"));
  std::vector<int64_t> filterKernels(c.w.getType().dims.begin() + 2, c.w.getType().dims.end());
  EMBER_ASSIGN_OR_RETURN(c.args, readConvPoolArgs(ctx, filterKernels));
  return c;
}

/// The bias, input 2, or zeros of \p channels when the operator has none.
Expected<NodeValue> biasOrZeros(OpContext &ctx, const Type &filter, dim_t channels) {
  if (ctx.numInputs() > 2)
    return ctx.input(2);
  return ctx.createConstant(Tensor(filter.withDims({channels})), "bias")->getResult();
}

/// Conv (conv_op_impl.h): Y = X * W + b; X [N, C, spatial..] or NHWC, W [M, C/group, k..]
/// (NHWC: [M, k.., C/group]), optional b [M].
Expected<NodeValue> conv(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(ConvOperands c, readConvOperands(ctx));
  NodeValue x = c.x, w = c.w;
  bool nhwc = c.nhwc;
  ConvPoolArgs &a = c.args;
  if (a.global)
    return ctx.fail("global_pooling does not apply to a convolution");
  EMBER_TRY(resolvePads(ctx, a, spatialDims(x.getType())));
  EMBER_ASSIGN_OR_RETURN(NodeValue bias, biasOrZeros(ctx, w.getType(), w.getType().dims[0]));
  AttrList attrs = windowAttrs(a);
  attrs.set<AttrKind::Dilations>(a.dilations).set<AttrKind::Group>(a.group);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Conv, {x, w, bias}, attrs));
  return backToOrder(ctx, y, nhwc);
}

Error loadConv(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue y, conv(ctx));
  return ctx.setOutput(0, y);
}

/// ConvRelu (conv_relu_op.cc): Conv's output clamped at 0 (max(0, y)).
Error loadConvRelu(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue y, conv(ctx));
  EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Relu, {y}, {}, "relu"));
  return ctx.setOutput(0, y);
}

/// ConvTranspose (conv_transpose_op_impl.h, conv_transpose_unpool_op_base.h): W [C, M/group,
/// k..] (NHWC: [C, k.., M/group]); output (in - 1) * stride + kernel - pad_head - pad_tail + adj;
/// `adj`/`adjs` extend the output; legacy VALID and SAME both mean no padding.
Error loadConvTranspose(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(ConvOperands c, readConvOperands(ctx));
  NodeValue x = c.x, w = c.w;
  bool nhwc = c.nhwc;
  ConvPoolArgs &a = c.args;
  size_t n = a.kernels.size();
  if (n != x.getType().rank() - 2)
    return ctx.fail("kernels " + intsToString(a.kernels) + " do not match input " +
                    x.getType().str());
  std::vector<int64_t> adj = ctx.getInts("adjs");
  if (ctx.hasArg("adj"))
    adj.assign(n, ctx.getInt("adj", 0));
  else if (ctx.hasArg("adj_h") && ctx.hasArg("adj_w"))
    adj = {ctx.getInt("adj_h", 0), ctx.getInt("adj_w", 0)};
  if (adj.empty())
    adj.assign(n, 0);
  if (adj.size() != n)
    return ctx.fail("adjs " + intsToString(adj) + " do not describe " + Twine(n) +
                    " spatial dims");
  if (a.legacyPad == LegacyPad::CaffeLegacyPooling)
    return ctx.fail("legacy_pad CAFFE_LEGACY_POOLING does not apply to ConvTranspose");
  for (size_t i = 0; i < n; ++i) {
    if (adj[i] < 0 || adj[i] > a.strides[i])
      return ctx.fail("adj " + intsToString(adj) + " must be in [0, stride]");
    if (a.dilations[i] != 1)
      return ctx.fail("ConvTranspose takes no dilation");
    // ConvTransposeUnpoolBase::ComputeSizeAndPad treats VALID and SAME alike: no padding,
    // output (in - 1) * stride + kernel + adj.
    if (a.legacyPad != LegacyPad::NotSet)
      a.pads[i] = a.pads[n + i] = 0;
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue bias,
                         biasOrZeros(ctx, w.getType(), w.getType().dims[1] * dim_t(a.group)));
  AttrList attrs = windowAttrs(a);
  attrs.set<AttrKind::Dilations>(a.dilations)
      .set<AttrKind::Group>(a.group)
      .set<AttrKind::OutputPadding>(adj);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::ConvTranspose, {x, w, bias}, attrs));
  EMBER_ASSIGN_OR_RETURN(y, backToOrder(ctx, y, nhwc));
  return ctx.setOutput(0, y);
}

/// MaxPool and AveragePool (pool_op.cc): windows clipped to the image; MaxPool's padding never
/// wins, AveragePool divides by the cells inside the image unless `count_include_pad`.
template <NodeKind K> Error loadPool(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  bool nhwc = ctx.getString("order", "NCHW") == "NHWC";
  EMBER_ASSIGN_OR_RETURN(x, channelsFirst(ctx, x, nhwc, "nchw"));
  if (x.getType().rank() < 3)
    return ctx.fail("input must have rank >= 3, got " + x.getType().str());
  EMBER_ASSIGN_OR_RETURN(ConvPoolArgs a, readConvPoolArgs(ctx));
  EMBER_TRY(resolvePads(ctx, a, spatialDims(x.getType())));
  for (int64_t d : a.dilations)
    if (d != 1)
      return ctx.fail("pooling takes no dilation");
  AttrList attrs = windowAttrs(a);
  attrs.set<AttrKind::CeilMode>(0).set<AttrKind::Dilations>(a.dilations);
  if (K == NodeKind::MaxPool)
    attrs.set<AttrKind::StorageOrder>(0);
  else
    attrs.set<AttrKind::CountIncludePad>(ctx.getInt("count_include_pad", 0) != 0);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {x}, attrs));
  EMBER_ASSIGN_OR_RETURN(y, backToOrder(ctx, y, nhwc));
  if (ctx.numOutputs() > 1)
    return ctx.fail("the mask/index output of " + ctx.proto().type() + " is not supported");
  return ctx.setOutput(0, y);
}

} // namespace

void registerNNOps(OpRegistry &r) {
  for (const char *name : {"Conv", "Conv1D", "Conv2D", "Conv3D"})
    r.add(name, loadConv);
  r.add("ConvRelu", loadConvRelu);
  r.add("ConvTranspose", loadConvTranspose);
  for (const char *name : {"MaxPool", "MaxPool1D", "MaxPool2D", "MaxPool3D"})
    r.add(name, loadPool<NodeKind::MaxPool>);
  for (const char *name : {"AveragePool", "AveragePool1D", "AveragePool2D", "AveragePool3D"})
    r.add(name, loadPool<NodeKind::AvgPool>);
  registerNNMatMulOps(r);
}

} // namespace c2
} // namespace ember
