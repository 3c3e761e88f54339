// Small matching helpers shared by the fusion passes (FoldBatchNorm, MergePad, MergeConcats,
// MatMulAddToFC, FuseActivations).
#ifndef EMBER_LIB_OPTIMIZER_FUSIONUTILS_H
#define EMBER_LIB_OPTIMIZER_FUSIONUTILS_H

#include "ember/Graph/Graph.h"

#include <cmath>

namespace ember {
namespace fusion {

/// The Constant \p v is, or null.
inline Constant *asConstant(NodeValue v) {
  return v.node && v.node->getKind() == NodeKind::Constant ? static_cast<Constant *>(v.node)
                                                           : nullptr;
}

/// Whether \p n has users and every one of them is \p user (so a rewrite of \p user may absorb
/// \p n without computing it twice).
inline bool onlyUsedBy(const Node *n, const Node *user) {
  if (!n->hasUsers())
    return false;
  for (const NodeUse &u : n->getUsers())
    if (u.user != user)
      return false;
  return true;
}

/// Whether every element of \p t is finite.
inline bool allFinite(const Tensor &t) {
  for (size_t i = 0, e = t.numElements(); i < e; ++i)
    if (!std::isfinite(t.elementAsDouble(i)))
      return false;
  return true;
}

/// Creates \p kind from \p operands and \p attrs and points the users of \p old's result at it,
/// provided the new node types exactly as \p old; otherwise leaves the graph as it was (a node
/// created but not used is left for DCE). Returns whether it replaced \p old.
inline bool replaceWithNew(Function &F, Node *old, NodeKind kind, llvm::StringRef name,
                           llvm::ArrayRef<NodeValue> operands, AttrList attrs) {
  llvm::Expected<Node *> created = F.createNode(kind, name, operands, std::move(attrs));
  if (!created) {
    llvm::consumeError(created.takeError());
    return false;
  }
  Node *n = *created;
  if (n->getNumResults() != 1 || n->getType() != old->getType()) {
    F.eraseNode(n);
    return false;
  }
  old->replaceAllUsesOfWith(0, n->getResult());
  return true;
}

} // namespace fusion
} // namespace ember

#endif
