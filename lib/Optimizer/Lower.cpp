// lower: every node the backend asks for (PassContext::shouldLower) whose kind has a row in
// Lowerings.def is replaced by the subgraph its lowering builds (lib/Optimizer/Lowerings/), as
// Glow's lowering does: a backend implements a small core of kinds and gets the rest from the
// table. A lowering may decline a node (an element kind its subgraph would round differently
// on); the node then stays, and what the lowering had built is erased here, so a decline never
// leaves half a subgraph behind. Without shouldLower (the Interpreter, and every test that does
// not set it) nothing changes. The driver runs this pass after the optimization pipeline and
// repeats it until nothing changes, since a subgraph may hold a kind the backend lowers too.
#include "Passes.h"
#include "Lowerings/Lowerings.h"
#include "PatternUtils.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace llvm;

namespace ember {

namespace {

using LoweringFn = bool (*)(Function &F, Node &n);

/// The row of Lowerings.def for \p kind, or null.
LoweringFn loweringFor(NodeKind kind) {
  switch (kind) {
#define LOWERING(KIND, FN, DOC)                                                                    \
  case NodeKind::KIND:                                                                             \
    return FN;
#include "ember/Optimizer/Lowerings.def"
  default: return nullptr;
  }
}

/// Runs \p lower on \p n; on a decline erases the nodes it created (they use only each other,
/// n's operands and constants; the scalar Constants it made stay unused until DCE, and IRGen
/// skips unused constants). True if n was replaced (and erased).
bool lowerNode(Function &F, Node &n, LoweringFn lower) {
  // Function::createNode appends: what the lowering built is everything past the old end.
  size_t oldSize = F.size();
  if (lower(F, n)) {
    F.eraseNode(&n);
    return true;
  }
  SmallPtrSet<Node *, 32> built;
  for (size_t i = oldSize; i < F.size(); ++i)
    built.insert(F.getNodes()[i].get());
  F.eraseNodesIf([&](Node *m) { return built.count(m); });
  return false;
}

} // namespace

bool runLower(Function &F, const PassContext &ctx) {
  if (!ctx.shouldLower)
    return false;
  return pattern::rewriteEach(F, [&](Node *n) {
    LoweringFn lower = loweringFor(n->getKind());
    return lower && ctx.shouldLower(*n) && lowerNode(F, *n, lower);
  });
}

} // namespace ember
