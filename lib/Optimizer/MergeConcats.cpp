// merge-concats: a Concat input that is itself a Concat along the same axis, used by nothing
// else, is replaced by that Concat's inputs, in place. Safe because concatenation along one axis
// is associative: the result's elements, their order and type are the same, and no value is
// computed twice since the inner Concat has no other user.
#include "FusionUtils.h"
#include "Passes.h"
#include "PatternUtils.h"

using namespace llvm;

namespace ember {

using namespace fusion;

namespace {

bool flatten(Function &F, Node *concat) {
  int64_t axis = concat->attr<AttrKind::Axis>();
  SmallVector<NodeValue, 8> inputs;
  bool spliced = false;
  for (NodeValue v : concat->getOperands()) {
    Node *inner = v.node;
    if (inner->getKind() == NodeKind::Concat && inner != concat &&
        inner->attr<AttrKind::Axis>() == axis && onlyUsedBy(inner, concat)) {
      inputs.append(inner->getOperands().begin(), inner->getOperands().end());
      spliced = true;
    } else {
      inputs.push_back(v);
    }
  }
  return spliced &&
         replaceWithNew(F, concat, NodeKind::Concat, concat->getName(), inputs, concat->getAttrs());
}

} // namespace

bool runMergeConcats(Function &F, const PassContext &) {
  // Operands come first in this order, so an inner Concat is already flat when its user is seen.
  return pattern::rewriteEach(
      F, [&](Node *n) { return n->getKind() == NodeKind::Concat && flatten(F, n); });
}

} // namespace ember
