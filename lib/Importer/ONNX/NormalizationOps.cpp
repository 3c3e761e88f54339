// ONNX normalizations and softmaxes: BatchNormalization, InstanceNormalization,
// LayerNormalization, GroupNormalization, MeanVarianceNormalization, LRN,
// Softmax/LogSoftmax/Hardmax.
#include "ONNXTensor.h"
#include "OpContext.h"

#include "ember/Base/Dims.h"
#include "ember/Support/Error.h"

#include <algorithm>

using namespace llvm;

namespace ember {

void registerNormalizationRMSOps(OpRegistry &r); // NormalizationOpsRMS.cpp

namespace {

Error loadBatchNormalization(OpContext &ctx) {
  if (ctx.getInt("spatial", 1) != 1)
    return ctx.fail("spatial=0 is not supported");
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(5));
  float eps = ctx.getFloat("epsilon", 1e-5f);
  // Training mode (statistics of the batch itself) is the attribute training_mode from opset
  // 14, requested outputs beyond Y in opsets 7-13, and is_test=0 (the default) before 7.
  bool anyStatistics = false;
  for (unsigned i = 1; i < ctx.numOutputs(); ++i)
    anyStatistics |= ctx.hasOutput(i);
  bool training = ctx.opset() >= 14  ? ctx.getInt("training_mode", 0) != 0
                  : ctx.opset() >= 7 ? anyStatistics
                                     : ctx.getInt("is_test", 0) == 0;
  if (!training && anyStatistics)
    return ctx.fail("outputs beyond Y need training mode");
  if (training) {
    // Outputs 1 and 2 are the updated running mean and variance in every opset; the saved
    // statistics of opsets before 14 (outputs 3 and 4) are not supported.
    for (unsigned i = 3; i < ctx.numOutputs(); ++i)
      if (ctx.hasOutput(i))
        return ctx.fail("output " + Twine(i) + " (saved mean/variance) is not supported");
    AttrList attrs;
    attrs.set<AttrKind::Epsilon>(eps).set<AttrKind::Momentum>(ctx.getFloat("momentum", 0.9f));
    EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::BatchNormTraining, operands, attrs));
    EMBER_TRY(ctx.setOutput(0, y));
    EMBER_TRY(ctx.setOutput(1, y.node->getResult(ops::BatchNormTraining::RunningMean)));
    return ctx.setOutput(2, y.node->getResult(ops::BatchNormTraining::RunningVar));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::BatchNorm, operands,
                                                 AttrList().set<AttrKind::Epsilon>(eps)));
  return ctx.setOutput(0, y);
}

Error loadInstanceNormalization(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(3));
  EMBER_ASSIGN_OR_RETURN(
      NodeValue y, ctx.create(NodeKind::InstanceNorm, operands,
                              AttrList().set<AttrKind::Epsilon>(ctx.getFloat("epsilon", 1e-5f))));
  return ctx.setOutput(0, y);
}

/// Scale or bias of LayerNormalization broadcast to the normalized dims.
Expected<NodeValue> toNormalizedDims(OpContext &ctx, NodeValue v, ArrayRef<dim_t> normalized,
                                     StringRef what) {
  auto dims = broadcastShapes(v.getType().dims, normalized);
  if (!dims || ArrayRef<dim_t>(*dims) != normalized) {
    consumeError(dims.takeError());
    return ctx.fail(what + " " + v.getType().str() + " does not broadcast to the normalized dims " +
                    dimsToString(normalized));
  }
  return ctx.broadcastTo(v, normalized);
}

Error loadLayerNormalization(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue scale, ctx.input(1));
  const Type &t = x.getType();
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", -1), t.rank()));
  ArrayRef<dim_t> normalized = ArrayRef<dim_t>(t.dims).drop_front(axis);
  EMBER_ASSIGN_OR_RETURN(scale, toNormalizedDims(ctx, scale, normalized, "scale"));
  NodeValue bias;
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(bias, ctx.input(2));
    EMBER_ASSIGN_OR_RETURN(bias, toNormalizedDims(ctx, bias, normalized, "bias"));
  } else {
    EMBER_ASSIGN_OR_RETURN(bias, ctx.createFilled(t.kind, normalized, 0.0, "bias"));
  }
  EMBER_ASSIGN_OR_RETURN(ElemKind stash, elemKindFromONNX(int(ctx.getInt("stash_type", 1))));
  if (!isFloatKind(stash))
    return ctx.fail("stash_type must be a float type, got " + elemKindName(stash));
  AttrList attrs;
  attrs.set<AttrKind::Axis>(axis)
      .set<AttrKind::Epsilon>(ctx.getFloat("epsilon", 1e-5f))
      .set<AttrKind::StashKind>(elemKindName(stash).str());
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::LayerNorm, {x, scale, bias}, attrs));
  EMBER_TRY(ctx.setOutput(0, y));
  EMBER_TRY(ctx.setOutput(1, y.node->getResult(ops::LayerNorm::Mean)));
  return ctx.setOutput(2, y.node->getResult(ops::LayerNorm::InvStdDev));
}

/// GroupNormalization: the channels of X (N, C, D1, ...) split into num_groups groups, each
/// sample's group normalized over its channels and spatial dims. That is a LayerNorm of X seen
/// as (N, G, C/G * D1 * ...) over axis 2, with unit scale and zero bias; the scale and bias
/// (per group in version 18, per channel from 21) are then applied by a Mul and an Add the CPU
/// backend fuses into one pass.
Error loadGroupNormalization(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(3));
  NodeValue x = operands[0], scale = operands[1], bias = operands[2];
  const Type &t = x.getType();
  if (!isFloatKind(t.kind))
    return ctx.fail("X must be floating point, got " + t.str());
  if (t.rank() < 2)
    return ctx.fail("X must have a batch and a channel axis, got " + t.str());
  if (!ctx.hasAttr("num_groups"))
    return ctx.fail("attribute 'num_groups' is required");
  int64_t groups = ctx.getInt("num_groups", 0);
  dim_t n = t.dims[0], c = t.dims[1];
  if (groups <= 0 || c % groups != 0)
    return ctx.fail("num_groups " + Twine(groups) + " does not divide the " + Twine(c) +
                    " channels of " + t.str());
  bool perChannel = ctx.opset() >= 21;
  dim_t params = perChannel ? c : dim_t(groups);
  for (NodeValue v : {scale, bias})
    if (v.getType().kind != t.kind || v.getType().dims != DimsVec{params})
      return ctx.fail(Twine(v == scale ? "scale" : "bias") + " must be " +
                      Type(t.kind, {params}).str() + (perChannel ? " (one per channel)" :
                      " (one per group)") + ", got " + v.getType().str());
  ElemKind stash = ElemKind::Float32;
  if (perChannel) {
    EMBER_ASSIGN_OR_RETURN(stash, elemKindFromONNX(int(ctx.getInt("stash_type", 1))));
    if (!isFloatKind(stash))
      return ctx.fail("stash_type must be a float type, got " + elemKindName(stash));
  }
  dim_t group = t.numElements() / std::max<dim_t>(n * dim_t(groups), 1);
  EMBER_ASSIGN_OR_RETURN(NodeValue grouped, ctx.reshape(x, {n, dim_t(groups), group}));
  EMBER_ASSIGN_OR_RETURN(NodeValue ones, ctx.createFilled(t.kind, {group}, 1.0, "ones"));
  EMBER_ASSIGN_OR_RETURN(NodeValue zeros, ctx.createFilled(t.kind, {group}, 0.0, "zeros"));
  AttrList attrs;
  attrs.set<AttrKind::Axis>(2)
      .set<AttrKind::Epsilon>(ctx.getFloat("epsilon", 1e-5f))
      .set<AttrKind::StashKind>(elemKindName(stash).str());
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::LayerNorm, {grouped, ones, zeros}, attrs));
  // Scale and bias broadcast along axis 1 of the (N, G, group) view or of X's own dims.
  DimsVec dims = perChannel ? t.dims : DimsVec{n, dim_t(groups), group};
  if (perChannel) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, t.dims));
  }
  DimsVec paramDims(dims.size(), 1);
  paramDims[1] = params;
  EMBER_ASSIGN_OR_RETURN(scale, ctx.reshape(scale, paramDims));
  EMBER_ASSIGN_OR_RETURN(scale, ctx.broadcastTo(scale, dims));
  EMBER_ASSIGN_OR_RETURN(bias, ctx.reshape(bias, paramDims));
  EMBER_ASSIGN_OR_RETURN(bias, ctx.broadcastTo(bias, dims));
  EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Mul, {y, scale}, {}, "scale"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Add, {y, bias}, {}, "bias"));
  if (!perChannel) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, t.dims));
  }
  return ctx.setOutput(0, y);
}

Error loadMeanVarianceNormalization(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  std::vector<int64_t> axes = ctx.getInts("axes", {0, 2, 3});
  for (int64_t &a : axes) {
    EMBER_ASSIGN_OR_RETURN(a, normalizeAxis(a, x.getType().rank()));
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  // The operator's definition adds 1e-9 to the standard deviation.
  AttrList attrs;
  attrs.set<AttrKind::Axes>(axes).set<AttrKind::Epsilon>(1e-9f);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MeanVarNorm, {x}, attrs));
  return ctx.setOutput(0, y);
}

Error loadLRN(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (!ctx.hasAttr("size"))
    return ctx.fail("attribute 'size' is required");
  AttrList attrs;
  attrs.set<AttrKind::Alpha>(ctx.getFloat("alpha", 1e-4f))
      .set<AttrKind::Beta>(ctx.getFloat("beta", 0.75f))
      .set<AttrKind::Bias>(ctx.getFloat("bias", 1.0f))
      .set<AttrKind::Size>(ctx.getInt("size", 0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::LRN, {x}, attrs));
  return ctx.setOutput(0, y);
}

/// Softmax, LogSoftmax and Hardmax from opset 13: along one axis (default -1).
template <NodeKind K> Error loadAlongAxis13(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", -1), x.getType().rank()));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {x}, AttrList().set<AttrKind::Axis>(axis)));
  return ctx.setOutput(0, y);
}

/// Opsets 1-12: the input is coerced to 2-D at axis (default 1) and the op runs over the
/// flattened trailing dims.
template <NodeKind K> Error loadAlongAxisLegacy(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  // axis == rank is allowed: everything is outer and the inner dim is 1.
  int64_t axis = ctx.getInt("axis", 1);
  if (axis != int64_t(t.rank())) {
    EMBER_ASSIGN_OR_RETURN(axis, normalizeAxis(axis, t.rank()));
  }
  dim_t outer = dimsProduct(t.dims, 0, size_t(axis));
  dim_t inner = dimsProduct(t.dims, size_t(axis), t.rank());
  EMBER_ASSIGN_OR_RETURN(NodeValue flat, ctx.reshape(x, {outer, inner}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {flat}, AttrList().set<AttrKind::Axis>(1)));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, t.dims));
  return ctx.setOutput(0, y);
}

} // namespace

void registerNormalizationOps(OpRegistry &r) {
  r.add("BatchNormalization", 1, loadBatchNormalization);
  r.add("InstanceNormalization", 1, loadInstanceNormalization);
  r.add("LayerNormalization", 17, loadLayerNormalization);
  r.add("MeanVarianceNormalization", 9, loadMeanVarianceNormalization);
  // Version 21 takes scale and bias per channel rather than per group, and adds stash_type.
  r.add("GroupNormalization", 18, loadGroupNormalization);
  r.add("GroupNormalization", 21, loadGroupNormalization);
  r.add("LRN", 1, loadLRN);
  r.add("Softmax", 1, loadAlongAxisLegacy<NodeKind::Softmax>);
  r.add("Softmax", 13, loadAlongAxis13<NodeKind::Softmax>);
  r.add("LogSoftmax", 1, loadAlongAxisLegacy<NodeKind::LogSoftmax>);
  r.add("LogSoftmax", 13, loadAlongAxis13<NodeKind::LogSoftmax>);
  r.add("Hardmax", 1, loadAlongAxisLegacy<NodeKind::Hardmax>);
  r.add("Hardmax", 13, loadAlongAxis13<NodeKind::Hardmax>);
  registerNormalizationRMSOps(r);
}

} // namespace ember
