// Arithmetic identities: x + 0, 0 + x, x - 0, x * 1, 1 * x and x / 1 become x, where the 0 or 1
// is a Constant (possibly behind Broadcast/Reshape nodes, as the importer broadcasts it) whose
// every element has that value. Only identities that hold for every value of x are applied:
// x * 1, 1 * x, x / 1 and x - 0 are exact for integers (wrapping, truncating division) and
// floats, NaN and infinities included; x + 0 may differ only in the sign of a zero result
// (-0 + 0 is +0), which compares equal. x * 0, x - x, x / x and the like are never rewritten
// (NaN and infinity break them). The rewrite happens only when the result's type equals x's,
// so no value changes type.
#include "PatternUtils.h"
#include "Passes.h"

using namespace llvm;

namespace ember {

namespace {

/// The operand \p n computes unchanged, if any.
NodeValue identityOperand(const Node &n) {
  using pattern::isSplatConstant;
  switch (n.getKind()) {
  case NodeKind::Add:
    if (isSplatConstant(n.getOperand(ops::Add::RHS), 0.0))
      return n.getOperand(ops::Add::LHS);
    if (isSplatConstant(n.getOperand(ops::Add::LHS), 0.0))
      return n.getOperand(ops::Add::RHS);
    return {};
  case NodeKind::Sub:
    if (isSplatConstant(n.getOperand(ops::Sub::RHS), 0.0))
      return n.getOperand(ops::Sub::LHS);
    return {};
  case NodeKind::Mul:
    if (isSplatConstant(n.getOperand(ops::Mul::RHS), 1.0))
      return n.getOperand(ops::Mul::LHS);
    if (isSplatConstant(n.getOperand(ops::Mul::LHS), 1.0))
      return n.getOperand(ops::Mul::RHS);
    return {};
  case NodeKind::Div:
    if (isSplatConstant(n.getOperand(ops::Div::RHS), 1.0))
      return n.getOperand(ops::Div::LHS);
    return {};
  default:
    return {};
  }
}

} // namespace

bool runSimplifyArithmetic(Function &F, const PassContext &) {
  bool changed = false;
  for (Node *n : F.topologicalOrder()) {
    if (!n->hasUsers())
      continue;
    NodeValue x = identityOperand(*n);
    if (!x || x.getType() != n->getType())
      continue;
    n->replaceAllUsesOfWith(0, x);
    changed = true;
  }
  return changed;
}

} // namespace ember
