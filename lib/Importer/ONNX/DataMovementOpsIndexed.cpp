// ONNX indexed data movement: Gather, GatherElements, GatherND, ScatterElements, Scatter,
// ScatterND, OneHot, ReverseSequence; Compress (with a constant condition, a Gather). The other
// ops whose result shape depends on input values (NonZero, Unique, NonMaxSuppression) are in
// DataMovementOpsDataDependent.cpp.
#include "DataMovementOps.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// The 'axis' attribute (default \p def) normalized for \p rank.
Expected<int64_t> axisAttr(OpContext &ctx, int64_t def, unsigned rank) {
  auto axis = normalizeAxis(ctx.getInt("axis", def), rank);
  if (!axis)
    return ctx.fail(errorToString(axis.takeError()));
  return *axis;
}

/// Binds output 0 to node \p kind on the ONNX inputs \p inputs with \p attrs.
Error loadIndexed(OpContext &ctx, NodeKind kind, ArrayRef<unsigned> inputs, AttrList attrs) {
  SmallVector<NodeValue, 3> operands;
  for (unsigned i : inputs) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(i));
    operands.push_back(v);
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(kind, operands, std::move(attrs)));
  return setFoldedOutput(ctx, 0, y);
}

Error loadGather(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue data, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, axisAttr(ctx, 0, data.getType().rank()));
  return loadIndexed(ctx, NodeKind::Gather, {0, 1}, AttrList().set<AttrKind::Axis>(axis));
}

Error loadGatherElements(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue data, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, axisAttr(ctx, 0, data.getType().rank()));
  return loadIndexed(ctx, NodeKind::GatherElements, {0, 1}, AttrList().set<AttrKind::Axis>(axis));
}

Error loadGatherND(OpContext &ctx) {
  return loadIndexed(ctx, NodeKind::GatherND, {0, 1},
                     AttrList().set<AttrKind::BatchDims>(ctx.getInt("batch_dims", 0)));
}

/// The 'reduction' attribute of ScatterElements and ScatterND: max and min came in opset 18.
Expected<std::string> scatterReduction(OpContext &ctx) {
  std::string how = ctx.getString("reduction", "none");
  if ((how == "max" || how == "min") && ctx.opset() < 18)
    return ctx.fail("reduction '" + how + "' needs opset 18, the model has " +
                    Twine(ctx.opset()));
  return how;
}

/// ScatterElements; also Scatter (opset 9-10, deprecated in 11), which is it without reduction.
Error loadScatterElements(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue data, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, axisAttr(ctx, 0, data.getType().rank()));
  EMBER_ASSIGN_OR_RETURN(std::string how, scatterReduction(ctx));
  return loadIndexed(ctx, NodeKind::ScatterElements, {0, 1, 2},
                     AttrList().set<AttrKind::Axis>(axis).set<AttrKind::Reduction>(how));
}

Error loadScatterND(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::string how, scatterReduction(ctx));
  return loadIndexed(ctx, NodeKind::ScatterND, {0, 1, 2},
                     AttrList().set<AttrKind::Reduction>(how));
}

/// OneHot(indices, depth, values): depth sizes the new axis, so it must be known.
Error loadOneHot(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue indices, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(const Tensor *depthTensor, ctx.constantInput(1));
  if (depthTensor->numElements() != 1 || depthTensor->getType().rank() > 1)
    return ctx.fail("depth must be a scalar, got " + depthTensor->getType().str());
  double depth = depthTensor->elementAsDouble(0);
  // A fractional depth is cast to int64, as the spec says.
  if (!(depth >= 1 && depth < 9.0e18))
    return ctx.fail("depth must be at least 1, got " + numberToString(depth));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, axisAttr(ctx, -1, indices.getType().rank() + 1));
  return loadIndexed(ctx, NodeKind::OneHot, {0, 2},
                     AttrList().set<AttrKind::Axis>(axis).set<AttrKind::Depth>(int64_t(depth)));
}

Error loadReverseSequence(OpContext &ctx) {
  return loadIndexed(ctx, NodeKind::ReverseSequence, {0, 1},
                     AttrList()
                         .set<AttrKind::BatchAxis>(ctx.getInt("batch_axis", 1))
                         .set<AttrKind::TimeAxis>(ctx.getInt("time_axis", 0)));
}

/// Compress keeps the positions where the condition is true, so its result shape depends on
/// the condition's values: with a constant condition it is a Gather of those positions (of the
/// flattened input when there is no axis).
Error loadCompress(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  auto condition = ctx.constantInput(1);
  if (!condition)
    return withContext(condition.takeError(), "Compress's result shape depends on its condition");
  const Tensor &cond = **condition;
  if (cond.getType().rank() != 1)
    return ctx.fail("condition must have rank 1, got " + cond.getType().str());
  int64_t axis = 0;
  if (ctx.hasAttr("axis")) {
    EMBER_ASSIGN_OR_RETURN(axis, axisAttr(ctx, 0, x.getType().rank()));
  } else {
    EMBER_ASSIGN_OR_RETURN(x, ctx.reshape(x, {x.getType().numElements()}));
  }
  dim_t length = x.getType().dims[axis];
  std::vector<int64_t> keep;
  for (size_t i = 0; i < cond.numElements(); ++i) {
    if (cond.elementAsDouble(i) == 0)
      continue;
    if (i >= length)
      return ctx.fail("condition selects position " + Twine(i) + " beyond axis " + Twine(axis) +
                      " of " + x.getType().str());
    keep.push_back(int64_t(i));
  }
  NodeValue indices =
      ctx.createConstant(Tensor::fromValues<int64_t>({keep.size()}, keep), "indices")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Gather, {x, indices},
                                                 AttrList().set<AttrKind::Axis>(axis)));
  return setFoldedOutput(ctx, 0, y);
}

} // namespace

void registerDataMovementIndexedOps(OpRegistry &r) {
  r.add("Gather", 1, loadGather);
  r.add("GatherElements", 11, loadGatherElements);
  r.add("GatherND", 11, loadGatherND);
  r.add("Scatter", 9, loadScatterElements);
  r.add("ScatterElements", 11, loadScatterElements);
  r.add("ScatterElements", 18, loadScatterElements); // reductions max and min
  r.add("ScatterND", 11, loadScatterND);
  r.add("ScatterND", 18, loadScatterND);
  r.add("OneHot", 9, loadOneHot);
  r.add("ReverseSequence", 10, loadReverseSequence);
  r.add("Compress", 9, loadCompress);
  registerDataMovementDataDependentOps(r);
}

} // namespace ember
