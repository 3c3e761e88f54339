// ONNX reductions, normalizations and selections (ReduceSum, ArgMax, TopK, LayerNormalization, ...).
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

Error loadBatchNormalization(OpContext &ctx) {
  if (ctx.getInt("training_mode", 0) != 0)
    return ctx.fail("training mode is not supported");
  if (ctx.getInt("spatial", 1) != 1)
    return ctx.fail("spatial=0 is not supported");
  for (unsigned i = 1; i < ctx.numOutputs(); ++i)
    if (ctx.hasOutput(i))
      return ctx.fail("training outputs (running mean/var) are not supported");
  SmallVector<NodeValue, 5> operands;
  for (unsigned i = 0; i < 5; ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(i));
    operands.push_back(v);
  }
  AttrList attrs;
  attrs.set<AttrKind::Epsilon>(ctx.getFloat("epsilon", 1e-5f));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::BatchNorm, operands, attrs));
  return ctx.setOutput(0, y);
}

/// Opset 13+: softmax along one axis (default -1).
Error loadSoftmax13(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", -1), x.getType().rank()));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Softmax, {x},
                                                 AttrList().set<AttrKind::Axis>(axis)));
  return ctx.setOutput(0, y);
}

/// Opsets 1-12: the input is coerced to 2-D at axis (default 1) and softmax runs over the
/// flattened trailing dims.
Error loadSoftmaxLegacy(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", 1), t.rank()));
  dim_t outer = 1, inner = 1;
  for (unsigned i = 0; i < t.rank(); ++i)
    (int64_t(i) < axis ? outer : inner) *= t.dims[i];
  EMBER_ASSIGN_OR_RETURN(NodeValue flat, ctx.reshape(x, {outer, inner}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Softmax, {flat},
                                                 AttrList().set<AttrKind::Axis>(1)));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, t.dims));
  return ctx.setOutput(0, y);
}

} // namespace

void registerReduceOps(OpRegistry &r) {
  r.add("BatchNormalization", 1, loadBatchNormalization);
  r.add("Softmax", 1, loadSoftmaxLegacy);
  r.add("Softmax", 13, loadSoftmax13);
}

} // namespace ember
