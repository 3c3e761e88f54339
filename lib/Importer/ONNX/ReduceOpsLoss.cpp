// ONNX losses: NegativeLogLikelihoodLoss, and SoftmaxCrossEntropyLoss as LogSoftmax + NLLLoss.
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// NLLLoss of \p logProb [N, C, ...] against input \p target (index 1) with the optional
/// weight input 2; the attributes reduction and ignore_index are the ONNX node's.
Expected<NodeValue> emitNLLLoss(OpContext &ctx, NodeValue logProb) {
  EMBER_ASSIGN_OR_RETURN(NodeValue target, ctx.input(1));
  const Type &t = logProb.getType();
  if (t.rank() < 2)
    return ctx.fail("input must have rank >= 2 (N x C x ...), got " + t.str());
  NodeValue weight;
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(weight, ctx.input(2));
  } else {
    // Unit weights: the weighted mean is then the plain mean over the counted targets.
    EMBER_ASSIGN_OR_RETURN(weight, ctx.createFilled(t.kind, {t.dims[1]}, 1.0, "weight"));
  }
  std::vector<int64_t> ignore;
  if (ctx.hasAttr("ignore_index"))
    ignore.push_back(ctx.getInt("ignore_index", 0));
  AttrList attrs;
  attrs.set<AttrKind::Reduction>(ctx.getString("reduction", "mean"))
      .set<AttrKind::IgnoreIndex>(ignore);
  return ctx.create(NodeKind::NLLLoss, {logProb, target, weight}, attrs, "loss");
}

Error loadNegativeLogLikelihoodLoss(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue loss, emitNLLLoss(ctx, x));
  return ctx.setOutput(0, loss);
}

/// SoftmaxCrossEntropyLoss = NLLLoss of LogSoftmax over the class axis 1.
Error loadSoftmaxCrossEntropyLoss(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (x.getType().rank() < 2)
    return ctx.fail("scores must have rank >= 2 (N x C x ...), got " + x.getType().str());
  EMBER_ASSIGN_OR_RETURN(
      NodeValue logProb,
      ctx.create(NodeKind::LogSoftmax, {x}, AttrList().set<AttrKind::Axis>(1), "log_prob"));
  EMBER_ASSIGN_OR_RETURN(NodeValue loss, emitNLLLoss(ctx, logProb));
  EMBER_TRY(ctx.setOutput(0, loss));
  return ctx.setOutput(1, logProb);
}

} // namespace

void registerReduceLossOps(OpRegistry &r) {
  r.add("NegativeLogLikelihoodLoss", 12, loadNegativeLogLikelihoodLoss);
  r.add("SoftmaxCrossEntropyLoss", 12, loadSoftmaxCrossEntropyLoss);
}

} // namespace ember
