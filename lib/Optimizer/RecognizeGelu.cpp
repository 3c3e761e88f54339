// recognize-gelu: the two GELU expansions exporters write (torch's nn.GELU() and
// nn.GELU(approximate='tanh') at opsets without a Gelu op),
//   0.5 * x * (1 + erf(x / sqrt(2)))                          -> Unary gelu
//   0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))   -> Unary gelu_tanh
// in any association and operand order of the products (x * 0.5 * (...), 0.5 * (x * (...)),
// (x * (...)) / 2; x / sqrt(2) or x * (1/sqrt(2)); x^3 as x * x * x or Pow(x, 3)). Safe because
// each constant is checked to be the function's (to 1e-6 relative), every x in the pattern is
// the same value, and every intermediate feeds only the next step (so nothing else observes
// what is no longer computed); the gelu kernels compute the same formula in double, which
// agrees with the unfused float32 graph to rounding. float32/float64 only. Matching helpers:
// RecognizePatterns.h.
#include "Passes.h"
#include "RecognizePatterns.h"

#include <cmath>

using namespace llvm;

namespace ember {

using namespace recognize;

namespace {

constexpr double kSqrtHalf = 0.7071067811865476;    // 1 / sqrt(2)
constexpr double kSqrt2OverPi = 0.7978845608028654; // sqrt(2 / pi)
constexpr double kCubicCoeff = 0.044715;

/// \p v feeds nothing else and is \p x times a constant within tolerance of \p scale.
bool isScaled(NodeValue v, NodeValue x, double scale) {
  Product p;
  return hasOneUse(v) && asProduct(v, 1, p) && p.factors[0] == x && isNear(p.scale, scale);
}

/// \p v feeds nothing else and is 0.044715 * x^3 (x * x * x in any grouping, or Pow(x, 3)).
bool isCubicTerm(NodeValue v, NodeValue x) {
  Product p;
  if (!hasOneUse(v) || !asProduct(v, 3, p) || !isNear(p.scale, kCubicCoeff))
    return false;
  if (p.factors.size() == 3)
    return llvm::all_of(p.factors, [&](NodeValue f) { return f == x; });
  if (p.factors.size() != 1)
    return false;
  NodeValue pow = p.factors[0];
  return isKind(pow, NodeKind::Pow) && hasOneUse(pow) && pow.node->getOperand(0) == x &&
         pattern::isSplatConstant(pow.node->getOperand(1), 3.0);
}

/// The argument of tanh in the tanh form: sqrt(2/pi) * (x + 0.044715 * x^3).
bool isTanhArgument(NodeValue u, NodeValue x) {
  Product p;
  if (!hasOneUse(u) || !asProduct(u, 1, p) || !isNear(p.scale, kSqrt2OverPi))
    return false;
  NodeValue w = p.factors[0], xInW, cubic;
  return isKind(w, NodeKind::Add) && hasOneUse(w) &&
         matchCommutative(
             w.node, [&](NodeValue v) { return v == x; }, xInW, cubic) &&
         isCubicTerm(cubic, x);
}

/// The Unary function \p p (a factor 1 + erf(...) or 1 + tanh(...)) makes of \p x, or "".
StringRef geluFunction(NodeValue p, NodeValue x) {
  NodeValue one, t;
  if (!isKind(p, NodeKind::Add) || !hasOneUse(p) ||
      !matchCommutative(
          p.node, [](NodeValue v) { return isSplatNear(v, 1.0); }, one, t) ||
      !hasOneUse(t))
    return "";
  if (isUnary(t, "erf") && isScaled(t.node->getOperand(0), x, kSqrtHalf))
    return "gelu";
  if (isKind(t, NodeKind::Tanh) && isTanhArgument(t.node->getOperand(0), x))
    return "gelu_tanh";
  return "";
}

bool rewriteAt(Function &F, Node *root) {
  NodeKind k = root->getKind();
  if ((k != NodeKind::Mul && k != NodeKind::Div) || !root->hasUsers() ||
      !isMatchableFloat(root->getType()))
    return false;
  Product p;
  if (!asProduct(root->getResult(), 2, p) || p.factors.size() != 2 || !isNear(p.scale, 0.5))
    return false;
  for (unsigned i = 0; i < 2; ++i) {
    NodeValue x = p.factors[1 - i];
    StringRef fn = geluFunction(p.factors[i], x);
    if (!fn.empty())
      return replaceWithUnary(F, root, x, fn);
  }
  return false;
}

} // namespace

bool runRecognizeGelu(Function &F, const PassContext &) {
  return pattern::rewriteEach(F, [&](Node *n) { return rewriteAt(F, n); });
}

} // namespace ember
