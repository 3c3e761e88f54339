// Common subexpression elimination. First, Constants of equal type and bytes are merged (users
// of a duplicate read the first copy), so repeated weights and shape tensors collapse; then, in
// topological order, a node structurally equal to an earlier one (Node::isEqual: kind, operands
// by identity, result types, attributes) has all its results replaced by the earlier node's.
// Visiting operands first makes whole equal chains merge in one sweep. It is safe because every
// compute kind is a pure function of its operands and attributes; Save, the only node with an
// effect, is never merged, and placeholders (inputs) are never touched. Constants compare
// bitwise, so 0.0 and -0.0 or different NaNs stay apart.
#include "Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/xxhash.h"

#include <unordered_map>

using namespace llvm;

namespace ember {

namespace {

/// Merges used Constants with equal type and payload; returns whether any was merged.
bool mergeConstants(Module &M) {
  // Bucket by type first: most weights have a shape of their own, and only constants that share
  // a type need their bytes hashed.
  std::unordered_map<size_t, SmallVector<Constant *, 2>> byType;
  for (const auto &c : M.getConstants())
    if (c->hasUsers())
      byType[c->getType().hash()].push_back(c.get());
  bool changed = false;
  // Deterministic: walk the constants in creation order, keep the first of each content.
  std::unordered_map<uint64_t, SmallVector<Constant *, 1>> byContent;
  for (const auto &cp : M.getConstants()) {
    Constant *c = cp.get();
    if (!c->hasUsers())
      continue;
    auto it = byType.find(c->getType().hash());
    if (it->second.size() < 2)
      continue;
    const Tensor &t = c->getPayload();
    uint64_t h = hash_combine(t.getType().hash(),
                              xxh3_64bits(ArrayRef<uint8_t>(t.data(), t.sizeInBytes())));
    auto &same = byContent[h];
    Constant *keep = nullptr;
    for (Constant *k : same)
      if (k->getPayload().bitwiseEqual(t)) {
        keep = k;
        break;
      }
    if (!keep) {
      same.push_back(c);
      continue;
    }
    c->replaceAllUsesOfWith(0, keep->getResult());
    changed = true;
  }
  return changed;
}

struct NodeHash {
  size_t operator()(const Node *n) const { return n->hash(); }
};
struct NodeEq {
  bool operator()(const Node *a, const Node *b) const { return a->isEqual(*b); }
};

} // namespace

bool runCSE(Function &F, const PassContext &) {
  bool changed = mergeConstants(*F.getParent());
  std::unordered_map<Node *, Node *, NodeHash, NodeEq> seen;
  for (Node *n : F.topologicalOrder()) {
    if (n->getKind() == NodeKind::Save || n->isStorage() || n->getNumResults() == 0)
      continue;
    auto [it, inserted] = seen.insert({n, n});
    if (inserted)
      continue;
    Node *keep = it->second;
    changed |= n->hasUsers();
    for (unsigned r = 0; r < n->getNumResults(); ++r)
      n->replaceAllUsesOfWith(r, keep->getResult(r));
  }
  return changed;
}

} // namespace ember
