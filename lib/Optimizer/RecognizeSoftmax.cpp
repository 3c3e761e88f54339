// recognize-softmax: a softmax written out by an exporter,
//   e = Exp(z);  y = e / Broadcast(ReduceSum(e, [a]))
// becomes Softmax(z, Axis a), and when z = x - Broadcast(ReduceMax(x, [a])) (the stable form,
// the same single axis) it becomes Softmax(x, a) directly. Safe because Softmax(z) is exactly
// that quotient along a in real arithmetic, and subtracting the max along a does not change it;
// the Softmax kernel subtracts the max itself and computes in double, so it agrees with the
// unfused float32 graph to rounding (and is finite where the form without the max overflows
// exp). It only matches float32/float64 values, a sum over one axis, an Exp used by exactly the
// sum and the division, and a sum (and max) used only there, so nothing else observes the
// intermediates it stops computing. Matching helpers: RecognizePatterns.h.
#include "Passes.h"
#include "RecognizePatterns.h"

using namespace llvm;

namespace ember {

using namespace recognize;

namespace {

/// The single axis of a Reduce node with \p reduction over exactly one axis, or -1.
int64_t singleReduceAxis(NodeValue v, StringRef reduction) {
  if (!isKind(v, NodeKind::Reduce) || v.node->attr<AttrKind::Reduction>() != reduction)
    return -1;
  const std::vector<int64_t> &axes = v.node->attr<AttrKind::Axes>();
  return axes.size() == 1 ? axes[0] : -1;
}

/// \p z with the max along \p axis subtracted from it removed: x when z = x -
/// Broadcast(ReduceMax(x, [axis])) and z's computation feeds nothing else; z otherwise.
NodeValue withoutMaxSubtraction(NodeValue z, int64_t axis) {
  if (!isKind(z, NodeKind::Sub) || !hasOneUse(z))
    return z;
  NodeValue x = z.node->getOperand(0);
  NodeValue max = throughOwnedBroadcasts(z.node->getOperand(1));
  if (singleReduceAxis(max, "max") != axis || !hasOneUse(max) || max.node->getOperand(0) != x ||
      x.getType() != z.getType())
    return z;
  return x;
}

/// Rewrites \p div if it is e / ReduceSum(e); true if it did.
bool rewriteAt(Function &F, Node *div) {
  if (div->getKind() != NodeKind::Div || !div->hasUsers() || !isMatchableFloat(div->getType()))
    return false;
  NodeValue e = div->getOperand(0);
  if (!isUnary(e, "exp") || numUses(e) != 2)
    return false;
  NodeValue sum = throughOwnedBroadcasts(div->getOperand(1));
  int64_t axis = singleReduceAxis(sum, "sum");
  if (axis < 0 || sum.node->getOperand(0) != e || !hasOneUse(sum))
    return false;
  NodeValue x = withoutMaxSubtraction(e.node->getOperand(0), axis);
  Expected<Node *> softmax = F.createNode(NodeKind::Softmax, div->getName().str() + ".softmax", {x},
                                          AttrList().set<AttrKind::Axis>(axis));
  if (!softmax) {
    consumeError(softmax.takeError());
    return false;
  }
  if ((*softmax)->getType() != div->getType()) {
    F.eraseNode(*softmax);
    return false;
  }
  div->replaceAllUsesOfWith(0, (*softmax)->getResult());
  return true;
}

} // namespace

bool runRecognizeSoftmax(Function &F, const PassContext &) {
  return pattern::rewriteEach(F, [&](Node *n) { return rewriteAt(F, n); });
}

} // namespace ember
