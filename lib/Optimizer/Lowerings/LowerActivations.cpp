// Lowerings of the activations with attributes (Nodes/Elementwise.def) and of the Unary
// functions that are compositions (Nodes/ElementwiseFunctions.def) into arithmetic, Clip and
// Where. The nodes' kernels may compute in double; the subgraphs compute in the element kind, so
// they are offered for float32 and float64 only. NaN goes through each formula as through the
// node: Clip keeps it, a comparison with it is false so Where picks the Input branch.
#include "Lowerings.h"

#include <cmath>

using namespace llvm;

namespace ember {

using namespace lowering;

namespace {

/// \p cmp(x, threshold) ? \p then : \p otherwise, for the piecewise activations.
NodeValue whereCompared(Builder &b, NodeKind cmp, NodeValue x, double threshold,
                        NodeValue then, NodeValue otherwise) {
  return b.create(NodeKind::Where,
                  {b.binary(cmp, x, b.splat(x, threshold)), then, otherwise});
}

/// max(0, min(1, v)) as Clip, NaN kept.
NodeValue clampToUnit(Builder &b, NodeValue v) {
  if (!v)
    return {}; // something before failed; replace() declines
  ElemKind k = v.getType().kind;
  return b.create(NodeKind::Clip, {v, b.scalar(k, 0), b.scalar(k, 1)});
}

/// x * max(0, min(1, x / 6 + 1 / 2)).
NodeValue hardSwish(Builder &b, NodeValue x) {
  NodeValue gate = b.binary(NodeKind::Add, b.binary(NodeKind::Div, x, b.splat(x, 6)),
                            b.splat(x, 0.5));
  return b.binary(NodeKind::Mul, x, clampToUnit(b, gate));
}

/// x / 2 * (1 + erf(x / sqrt(2))).
NodeValue gelu(Builder &b, NodeValue x) {
  NodeValue erf = b.unary("erf", b.binary(NodeKind::Div, x, b.splat(x, std::sqrt(2.0))));
  NodeValue half = b.binary(NodeKind::Div, x, b.splat(x, 2));
  return b.binary(NodeKind::Mul, half, b.binary(NodeKind::Add, b.splat(x, 1), erf));
}

/// \p cmp(x, 0) ? alpha * (exp(x) - 1) : x, the negative side of Elu and Selu.
NodeValue exponentialBelowZero(Builder &b, NodeKind cmp, NodeValue x, float alpha) {
  NodeValue expm1 = b.binary(NodeKind::Sub, b.unary("exp", x), b.splat(x, 1));
  NodeValue negative = b.binary(NodeKind::Mul, expm1, b.splat(x, alpha));
  return whereCompared(b, cmp, x, 0, negative, x);
}

bool acceptsKind(const Node &n) { return isWideFloat(n.getType().kind); }

} // namespace

bool lowerHardSigmoid(Function &F, Node &n) {
  if (!acceptsKind(n))
    return false;
  Builder b(F, n);
  NodeValue x = n.getOperand(0);
  NodeValue affine =
      b.binary(NodeKind::Add, b.binary(NodeKind::Mul, x, b.splat(x, n.attr<AttrKind::Alpha>())),
               b.splat(x, n.attr<AttrKind::Beta>()));
  return b.replace({clampToUnit(b, affine)});
}

bool lowerLeakyRelu(Function &F, Node &n) {
  if (!acceptsKind(n))
    return false;
  Builder b(F, n);
  NodeValue x = n.getOperand(0);
  NodeValue scaled = b.binary(NodeKind::Mul, x, b.splat(x, n.attr<AttrKind::Alpha>()));
  return b.replace({whereCompared(b, NodeKind::Less, x, 0, scaled, x)});
}

bool lowerElu(Function &F, Node &n) {
  if (!acceptsKind(n))
    return false;
  Builder b(F, n);
  return b.replace(
      {exponentialBelowZero(b, NodeKind::Less, n.getOperand(0), n.attr<AttrKind::Alpha>())});
}

bool lowerSelu(Function &F, Node &n) {
  if (!acceptsKind(n))
    return false;
  Builder b(F, n);
  NodeValue x = n.getOperand(0);
  NodeValue inner = exponentialBelowZero(b, NodeKind::LessOrEqual, x, n.attr<AttrKind::Alpha>());
  return b.replace({b.binary(NodeKind::Mul, inner, b.splat(x, n.attr<AttrKind::Gamma>()))});
}

bool lowerUnary(Function &F, Node &n) {
  if (!acceptsKind(n))
    return false;
  const std::string &fn = n.attr<AttrKind::Function>();
  Builder b(F, n);
  NodeValue x = n.getOperand(0);
  if (fn == "hard_swish")
    return b.replace({hardSwish(b, x)});
  if (fn == "gelu")
    return b.replace({gelu(b, x)});
  return false;
}

} // namespace ember
