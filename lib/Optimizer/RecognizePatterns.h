// Matching helpers shared by the recognize-* passes (RecognizeSoftmax, RecognizeLayerNorm,
// RecognizeGelu, RecognizeHardSwish, RecognizeSilu): use counts, scalar constants seen through
// the Broadcasts the importer inserts (or the splat Constants constant folding makes of them),
// commutative operands, and products of factors times a constant scale. Builds on PatternUtils.h
// (the optimizer's general helpers: exact splat constants).
#ifndef EMBER_LIB_OPTIMIZER_RECOGNIZEPATTERNS_H
#define EMBER_LIB_OPTIMIZER_RECOGNIZEPATTERNS_H

#include "PatternUtils.h"

#include "ember/Graph/Graph.h"

#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace ember {
namespace recognize {

/// The tolerance (relative) to which a pattern's known constants (0.5, sqrt(2), 1/6, ...) must
/// match.
constexpr double kConstantTolerance = 1e-6;

/// The element kinds the fused nodes reproduce the unfused graph on (to 1e-5 relative). The
/// 16-bit kinds are left alone: the unfused graph rounds every intermediate to 16 bits, which a
/// fused kernel computing in float or double does not.
inline bool isMatchableFloat(const Type &t) {
  return t.kind == ElemKind::Float32 || t.kind == ElemKind::Float64;
}

/// How many operand slots read \p v (a node using v twice counts twice).
inline unsigned numUses(NodeValue v) {
  unsigned n = 0;
  for (const NodeUse &u : v.node->getUsers())
    if (u.user->getOperand(u.operandIdx) == v)
      ++n;
  return n;
}

inline bool hasOneUse(NodeValue v) { return numUses(v) == 1; }

inline bool isKind(NodeValue v, NodeKind k) { return v.node && v.node->getKind() == k; }

/// A Unary node applying \p function.
inline bool isUnary(NodeValue v, llvm::StringRef function) {
  return isKind(v, NodeKind::Unary) && v.node->attr<AttrKind::Function>() == function;
}

/// \p v seen through Broadcasts that feed nothing else: what a pattern's intermediate value is
/// before the importer broadcast it (each Broadcast skipped has a single use).
inline NodeValue throughOwnedBroadcasts(NodeValue v) {
  while (isKind(v, NodeKind::Broadcast) && hasOneUse(v))
    v = v.node->getOperand(0);
  return v;
}

/// The value of every element of \p v when it is a Constant, possibly behind Broadcasts and
/// Reshapes, whose elements are all equal (a scalar constant, before or after constant folding).
inline std::optional<double> splatValue(NodeValue v) {
  NodeValue c = v;
  while (isKind(c, NodeKind::Broadcast) || isKind(c, NodeKind::Reshape))
    c = c.node->getOperand(0);
  const Constant *k = pattern::asConstant(c);
  if (!k || k->getPayload().numElements() == 0)
    return std::nullopt;
  double first = k->getPayload().elementAsDouble(0);
  if (!pattern::isSplatConstant(c, first)) // refuses NaN, bool and quantized kinds
    return std::nullopt;
  return first;
}

/// \p x is within kConstantTolerance (relative) of \p want (exactly \p want when it is 0).
inline bool isNear(double x, double want) {
  return std::fabs(x - want) <= kConstantTolerance * std::fabs(want);
}

/// \p v is a splat constant within kConstantTolerance of \p want.
inline bool isSplatNear(NodeValue v, double want) {
  std::optional<double> s = splatValue(v);
  return s && isNear(*s, want);
}

/// For a two-operand node \p n (Add, Mul): the operand \p pred accepts (the first operand if
/// both do) in \p matched and the other in \p other.
template <typename Pred>
bool matchCommutative(Node *n, Pred pred, NodeValue &matched, NodeValue &other) {
  for (unsigned i = 0; i < 2; ++i)
    if (pred(n->getOperand(i))) {
      matched = n->getOperand(i);
      other = n->getOperand(1 - i);
      return true;
    }
  return false;
}

/// A value written as a product: factors times a constant scale.
struct Product {
  llvm::SmallVector<NodeValue, 4> factors;
  double scale = 1;
};

namespace detail {
inline bool collectFactors(NodeValue v, bool isRoot, unsigned depth, unsigned maxFactors,
                           Product &p) {
  if (std::optional<double> c = splatValue(v)) {
    p.scale *= *c;
    return true;
  }
  bool owned = isRoot || hasOneUse(v);
  if (owned && depth < 4 && isKind(v, NodeKind::Mul))
    return collectFactors(v.node->getOperand(0), false, depth + 1, maxFactors, p) &&
           collectFactors(v.node->getOperand(1), false, depth + 1, maxFactors, p);
  if (owned && depth < 4 && isKind(v, NodeKind::Div)) {
    std::optional<double> divisor = splatValue(v.node->getOperand(1));
    if (divisor && *divisor != 0) {
      p.scale /= *divisor;
      return collectFactors(v.node->getOperand(0), false, depth + 1, maxFactors, p);
    }
  }
  if (p.factors.size() == maxFactors)
    return false;
  p.factors.push_back(v);
  return true;
}
} // namespace detail

/// Writes \p root (a float value) as a product: it descends into Mul nodes and Divs by a
/// constant that feed nothing else (the root itself may have any users), collecting splat
/// constants into the scale and everything else as factors. False when there would be more
/// than \p maxFactors factors.
inline bool asProduct(NodeValue root, unsigned maxFactors, Product &p) {
  p = Product();
  return detail::collectFactors(root, /*isRoot=*/true, 0, maxFactors, p);
}

/// Replaces the uses of \p old (result 0) by a new Unary node applying \p function to \p input;
/// false (and no change) if the node cannot be created.
inline bool replaceWithUnary(Function &F, Node *old, NodeValue input, llvm::StringRef function) {
  AttrList attrs;
  attrs.set<AttrKind::Function>(function.str());
  llvm::Expected<Node *> n =
      F.createNode(NodeKind::Unary, old->getName().str() + "." + function.str(), {input}, attrs);
  if (!n) {
    llvm::consumeError(n.takeError());
    return false;
  }
  if ((*n)->getType() != old->getType()) {
    F.eraseNode(*n);
    return false;
  }
  old->replaceAllUsesOfWith(0, (*n)->getResult());
  return true;
}

} // namespace recognize
} // namespace ember

#endif
