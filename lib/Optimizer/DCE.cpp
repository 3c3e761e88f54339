// Dead code elimination: removes every node whose results no Save (in a body: no BodyOutput)
// depends on, then the constants nothing uses any more.
#include "Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace ember {

bool runDCE(Function &F, const PassContext &) {
  DenseSet<Node *> live;
  SmallVector<Node *, 64> work;
  for (const auto &n : F.getNodes())
    if (categoryOf(n->getKind()) == NodeCategory::Output) { // Save, a body's BodyOutput
      live.insert(n.get());
      work.push_back(n.get());
    }
  while (!work.empty()) {
    Node *n = work.pop_back_val();
    for (const NodeValue &v : n->getOperands())
      if (!v.node->isStorage() && live.insert(v.node).second)
        work.push_back(v.node);
  }
  size_t erased = F.eraseNodesIf([&](Node *n) { return !live.count(n); });
  erased += F.getParent()->eraseUnusedConstants();
  return erased != 0;
}

} // namespace ember
