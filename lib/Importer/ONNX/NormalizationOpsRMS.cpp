// ONNX RMSNormalization (opset 23), composed at import as its ONNX function body computes it:
// X cast to the stash type, X * X, a mean over the axes from 'axis' on, + epsilon, Sqrt, X / RMS,
// cast back to X's kind, times scale. No node kind of its own: the element-wise nodes and the
// Reduce fuse on the CPU backend and run on every backend.
#include "ONNXTensor.h"
#include "OpContext.h"

#include "ember/Support/Error.h"

#include <numeric>

using namespace llvm;

namespace ember {

namespace {

Error loadRMSNormalization(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue scale, ctx.input(1));
  const Type xt = x.getType();
  if (!isFloatKind(xt.kind))
    return ctx.fail("X must be floating point, got " + xt.str());
  if (scale.getType().kind != xt.kind)
    return ctx.fail("scale " + scale.getType().str() + " must have X's kind (" + xt.str() +
                    "): the function body multiplies them");
  if (xt.rank() == 0)
    return ctx.fail("X must have at least one axis, got " + xt.str());
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", -1), xt.rank()));
  auto dims = broadcastShapes(scale.getType().dims, xt.dims);
  if (!dims || ArrayRef<dim_t>(*dims) != ArrayRef<dim_t>(xt.dims)) {
    consumeError(dims.takeError());
    return ctx.fail("scale " + scale.getType().str() + " does not broadcast to X " + xt.str());
  }
  EMBER_ASSIGN_OR_RETURN(ElemKind stash, elemKindFromONNX(int(ctx.getInt("stash_type", 1))));
  if (!isFloatKind(stash))
    return ctx.fail("stash_type must be a float type, got " + elemKindName(stash));
  float eps = ctx.getFloat("epsilon", 1e-5f);

  EMBER_ASSIGN_OR_RETURN(NodeValue xu, ctx.castTo(x, stash, "stash"));
  EMBER_ASSIGN_OR_RETURN(NodeValue sq, ctx.create(NodeKind::Mul, {xu, xu}, {}, "square"));
  std::vector<int64_t> axes(xt.rank() - size_t(axis));
  std::iota(axes.begin(), axes.end(), axis);
  EMBER_ASSIGN_OR_RETURN(
      NodeValue mean,
      ctx.create(NodeKind::Reduce, {sq},
                 AttrList().set<AttrKind::Reduction>("mean").set<AttrKind::Axes>(axes), "mean"));
  const DimsVec reduced = mean.getType().dims;
  EMBER_ASSIGN_OR_RETURN(NodeValue e, ctx.createFilled(stash, {}, double(eps), "epsilon"));
  EMBER_ASSIGN_OR_RETURN(e, ctx.broadcastTo(e, reduced));
  EMBER_ASSIGN_OR_RETURN(NodeValue rms, ctx.create(NodeKind::Add, {mean, e}, {}, "plus_eps"));
  EMBER_ASSIGN_OR_RETURN(
      rms, ctx.create(NodeKind::Unary, {rms}, AttrList().set<AttrKind::Function>("sqrt"), "rms"));
  EMBER_ASSIGN_OR_RETURN(rms, ctx.broadcastTo(rms, xt.dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Div, {xu, rms}, {}, "normalized"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.castTo(y, xt.kind, "unstash"));
  EMBER_ASSIGN_OR_RETURN(scale, ctx.broadcastTo(scale, xt.dims));
  EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Mul, {y, scale}, {}, "scale"));
  return ctx.setOutput(0, y);
}

} // namespace

void registerNormalizationRMSOps(OpRegistry &r) {
  r.add("RMSNormalization", 23, loadRMSNormalization);
}

} // namespace ember
