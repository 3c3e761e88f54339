// No-op removal. Nodes that return their input unchanged are bypassed: a Reshape, Broadcast or
// Cast whose result type equals its input's, a Transpose with the identity permutation, a Slice
// reading every element in order (starts 0, steps 1, same dims), a Pad adding nothing, a Concat
// of one input. Chains merge: Reshape of Reshape is one Reshape (or none when the dims come back),
// Transpose of Transpose is one Transpose with the composed permutation (or none when they
// cancel), Broadcast of Broadcast is one Broadcast (numpy broadcasting composes: every dim the
// inner one kept aligns with the same dim of the outer result). Each rewrite is exact data
// movement (or none), and the value that replaces a result always has that result's type.
// Identity and Dropout never reach the graph (the importer drops them).
#include "PatternUtils.h"
#include "Passes.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace ember {

namespace {

bool sameDims(const Type &a, const Type &b) { return a.dims == b.dims; }

/// What replaces \p n's only result: one of its operands, a new simpler node, or nothing.
NodeValue simplify(Function &F, Node &n) {
  NodeValue in = n.getNumOperands() ? n.getOperand(0) : NodeValue();
  const Type &ty = n.getNumResults() == 1 ? n.getType() : Type();
  auto create = [&](NodeKind kind, NodeValue operand, AttrList attrs) -> NodeValue {
    Expected<Node *> m = F.createNode(kind, n.getName(), {operand}, std::move(attrs));
    if (!m) {
      consumeError(m.takeError());
      return {};
    }
    return (*m)->getResult();
  };
  switch (n.getKind()) {
  case NodeKind::Reshape:
    if (in.getType() == ty)
      return in;
    if (in.node->getKind() == NodeKind::Reshape) {
      NodeValue x = in.node->getOperand(ops::Reshape::Input);
      if (x.getType() == ty)
        return x;
      return create(NodeKind::Reshape, x, n.getAttrs());
    }
    return {};
  case NodeKind::Transpose: {
    const auto &shuffle = n.attr<AttrKind::Shuffle>();
    if (pattern::isIdentityPermutation(shuffle))
      return in;
    if (in.node->getKind() != NodeKind::Transpose)
      return {};
    auto composed = pattern::composePermutations(in.node->attr<AttrKind::Shuffle>(), shuffle);
    NodeValue x = in.node->getOperand(ops::Transpose::Input);
    if (pattern::isIdentityPermutation(composed))
      return x;
    return create(NodeKind::Transpose, x,
                  AttrList().set<AttrKind::Shuffle>({composed.begin(), composed.end()}));
  }
  case NodeKind::Broadcast:
    if (in.getType() == ty)
      return in;
    if (in.node->getKind() == NodeKind::Broadcast)
      return create(NodeKind::Broadcast, in.node->getOperand(ops::Broadcast::Input),
                    n.getAttrs());
    return {};
  case NodeKind::Cast:
    return in.getType() == ty ? in : NodeValue();
  case NodeKind::Slice: {
    bool all = sameDims(in.getType(), ty) &&
               llvm::all_of(n.attr<AttrKind::Starts>(), [](int64_t s) { return s == 0; }) &&
               llvm::all_of(n.attr<AttrKind::Steps>(), [](int64_t s) { return s == 1; });
    return all ? in : NodeValue();
  }
  case NodeKind::Pad:
    return llvm::all_of(n.attr<AttrKind::Pads>(), [](int64_t p) { return p == 0; })
               ? in
               : NodeValue();
  case NodeKind::Concat:
    return n.getNumOperands() == 1 ? in : NodeValue();
  default:
    return {};
  }
}

} // namespace

bool runRemoveNoOps(Function &F, const PassContext &) {
  bool changed = false;
  // Operands first, so a chain of reshapes or transposes collapses in one sweep.
  for (Node *n : F.topologicalOrder()) {
    if (!n->hasUsers() || n->getNumResults() != 1)
      continue;
    NodeValue v = simplify(F, *n);
    if (!v)
      continue;
    if (v.getType() != n->getType()) // cannot happen; never retype a used value
      continue;
    n->replaceAllUsesOfWith(0, v);
    changed = true;
  }
  return changed;
}

} // namespace ember
