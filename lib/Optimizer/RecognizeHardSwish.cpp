// recognize-hardswish: the hard swish exporters write out (torch's nn.Hardswish at opsets
// without HardSwish, and hand-written x * relu6(x + 3) / 6),
//   x * HardSigmoid(x; alpha 1/6, beta 1/2)
//   x * Clip([Relu](x + 3), 0, 6) / 6      (or * (1/6), in any association and operand order)
// becomes the Unary hard_swish, x * max(0, min(1, x / 6 + 1 / 2)). Safe because both are that
// function: the constants are checked (Clip's lower bound exactly 0, the others to 1e-6
// relative; a Relu before a Clip at 0 changes nothing), both x's are the same value, and the
// HardSigmoid, Clip, Relu and Add feed nothing else. float32/float64 only; the results agree
// with the unfused graph to float rounding. Matching helpers: RecognizePatterns.h.
#include "Passes.h"
#include "RecognizePatterns.h"

using namespace llvm;

namespace ember {

using namespace recognize;

namespace {

/// \p h is HardSigmoid(x; 1/6, 1/2), used only here.
bool isHardSigmoidOf(NodeValue h, NodeValue x) {
  return isKind(h, NodeKind::HardSigmoid) && hasOneUse(h) && h.node->getOperand(0) == x &&
         isNear(h.node->attr<AttrKind::Alpha>(), 1.0 / 6.0) &&
         isNear(h.node->attr<AttrKind::Beta>(), 0.5);
}

/// \p c is Clip([Relu](x + 3), 0, 6), each step used only by the next.
bool isRelu6Of(NodeValue c, NodeValue x) {
  if (!isKind(c, NodeKind::Clip) || !hasOneUse(c) ||
      !pattern::isSplatConstant(c.node->getOperand(ops::Clip::Min), 0.0) ||
      !isSplatNear(c.node->getOperand(ops::Clip::Max), 6.0))
    return false;
  NodeValue in = c.node->getOperand(ops::Clip::Input);
  if (isKind(in, NodeKind::Relu) && hasOneUse(in))
    in = in.node->getOperand(0);
  NodeValue xInAdd, three;
  return isKind(in, NodeKind::Add) && hasOneUse(in) &&
         matchCommutative(
             in.node, [&](NodeValue v) { return v == x; }, xInAdd, three) &&
         isSplatNear(three, 3.0);
}

bool rewriteAt(Function &F, Node *root) {
  NodeKind k = root->getKind();
  if ((k != NodeKind::Mul && k != NodeKind::Div) || !root->hasUsers() ||
      !isMatchableFloat(root->getType()))
    return false;
  Product p;
  if (!asProduct(root->getResult(), 2, p) || p.factors.size() != 2)
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    NodeValue x = p.factors[1 - i], f = p.factors[i];
    if ((p.scale == 1.0 && isHardSigmoidOf(f, x)) ||
        (isNear(p.scale, 1.0 / 6.0) && isRelu6Of(f, x)))
      return replaceWithUnary(F, root, x, "hard_swish");
  }
  return false;
}

} // namespace

bool runRecognizeHardSwish(Function &F, const PassContext &) {
  return pattern::rewriteEach(F, [&](Node *n) { return rewriteAt(F, n); });
}

} // namespace ember
