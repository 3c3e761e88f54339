// Transpose sinking. A Transpose feeding an element-wise op moves below it: op(T(x)) becomes
// T(op(x)) for the kinds of category ElementwiseUnary (Nodes.def: Relu, Unary, Clip's input, Cast,
// ...), and op(T(x), T(y)) or op(T(x), C) becomes T(op(x, y)) or T(op(x, C')) for those of category
// ElementwiseNary (Add, Mul, Where, comparisons, ...), where C' is the Constant C transposed by the
// inverse permutation (computed here), or a Broadcast of one element redone with the permuted dims.
// Transposes so meet and cancel in remove-noops. A Transpose of a Constant becomes a transposed
// Constant. It is safe because an element-wise op computes each element from the elements at the
// same index alone, so permuting the indices before or after gives the same values. It terminates
// because transposes only ever move down, and a move happens only when every transpose moved is
// used by that op alone (so it dies and no work is duplicated).
#include "PatternUtils.h"
#include "Passes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace ember {

namespace {

/// Kinds computing each result element from the Input element at the same index alone; their
/// other operands (Clip's Min/Max) are single elements that do not depend on the index.
bool isElementwiseUnary(NodeKind k) { return categoryOf(k) == NodeCategory::ElementwiseUnary; }

/// Kinds whose operands all have the result's dims and whose result element at an index depends
/// on the operands' elements at that index alone.
bool isElementwiseNary(NodeKind k) { return categoryOf(k) == NodeCategory::ElementwiseNary; }

class Sinker {
  Function &F_;

public:
  explicit Sinker(Function &F) : F_(F) {}

  bool run() {
    bool changed = false;
    // Operands first: a transpose moved below one op is seen again at that op's users.
    for (Node *n : F_.topologicalOrder()) {
      if (!n->hasUsers())
        continue;
      if (n->getKind() == NodeKind::Transpose)
        changed |= foldIntoConstant(n);
      else if (isElementwiseUnary(n->getKind()))
        changed |= sinkBelow(n, /*movable=*/1);
      else if (isElementwiseNary(n->getKind()))
        changed |= sinkBelow(n, n->getNumOperands());
    }
    return changed;
  }

private:
  static const std::vector<int64_t> &shuffleOf(const Node *t) {
    return t->attr<AttrKind::Shuffle>();
  }

  /// Transpose(Constant) becomes the transposed Constant.
  bool foldIntoConstant(Node *t) {
    const Constant *c = pattern::asConstant(t->getOperand(ops::Transpose::Input));
    if (!c)
      return false;
    Tensor v = pattern::transposeTensor(c->getPayload(), shuffleOf(t));
    Constant *nc = F_.getParent()->createConstant(std::move(v), c->getName());
    t->replaceAllUsesOfWith(0, nc->getResult());
    return true;
  }

  /// Rewrites n(.., T(x), ..) to T(n(.., x, ..)) where the first \p movable operands are each a
  /// Transpose with one permutation used by n alone, or (when n has several) something that is
  /// cheap to transpose back; other operands stay.
  bool sinkBelow(Node *n, unsigned movable) {
    // The permutation: that of the first transposed operand.
    const Node *first = nullptr;
    for (unsigned i = 0; i < movable && !first; ++i)
      if (n->getOperand(i).node->getKind() == NodeKind::Transpose)
        first = n->getOperand(i).node;
    if (!first)
      return false;
    const std::vector<int64_t> &shuffle = shuffleOf(first);
    SmallVector<int64_t, 6> inverse = pattern::inversePermutation(shuffle);
    // Check every operand before creating anything.
    for (unsigned i = 0; i < movable; ++i) {
      NodeValue v = n->getOperand(i);
      if (v.node->getKind() == NodeKind::Transpose) {
        if (shuffleOf(v.node) != shuffle || pattern::getSingleUser(v) != n ||
            llvm::any_of(v.node->getUsers(), [&](const NodeUse &u) { return u.operandIdx >= movable; }))
          return false;
      } else if (!canTransposeBack(v)) {
        return false;
      }
    }
    SmallVector<NodeValue, 4> operands;
    for (unsigned i = 0; i < n->getNumOperands(); ++i) {
      NodeValue v = n->getOperand(i);
      if (i >= movable)
        operands.push_back(v);
      else if (v.node->getKind() == NodeKind::Transpose)
        operands.push_back(v.node->getOperand(ops::Transpose::Input));
      else if (NodeValue back = transposeBack(v, inverse))
        operands.push_back(back);
      else
        return false;
    }
    Expected<Node *> m = F_.createNode(n->getKind(), n->getName(), operands, n->getAttrs());
    if (!m) {
      consumeError(m.takeError());
      return false;
    }
    Expected<Node *> t = F_.createNode(NodeKind::Transpose, first->getName(), {(*m)->getResult()},
                                       AttrList().set<AttrKind::Shuffle>(shuffle));
    if (!t) {
      consumeError(t.takeError());
      return false;
    }
    if ((*t)->getType() != n->getType())
      return false; // cannot happen; the new nodes die in DCE
    n->replaceAllUsesOfWith(0, (*t)->getResult());
    return true;
  }

  /// A Constant, or a Broadcast of a single element: values whose inverse transpose costs
  /// nothing at run time.
  static bool canTransposeBack(NodeValue v) {
    if (pattern::asConstant(v))
      return true;
    return v.node->getKind() == NodeKind::Broadcast &&
           v.node->getOperand(ops::Broadcast::Input).getType().numElements() == 1;
  }

  /// \p v (accepted by canTransposeBack) transposed by \p inverse.
  NodeValue transposeBack(NodeValue v, ArrayRef<int64_t> inverse) {
    if (const Constant *c = pattern::asConstant(v)) {
      Tensor t = pattern::transposeTensor(c->getPayload(), inverse);
      return F_.getParent()->createConstant(std::move(t), c->getName())->getResult();
    }
    DimsVec dims = pattern::permuteDims(v.getType().dims, inverse);
    Expected<Node *> b =
        F_.createNode(NodeKind::Broadcast, v.node->getName(),
                      {v.node->getOperand(ops::Broadcast::Input)},
                      AttrList().set<AttrKind::Dims>(std::vector<int64_t>(dims.begin(), dims.end())));
    if (!b) {
      consumeError(b.takeError());
      return {};
    }
    return (*b)->getResult();
  }
};

} // namespace

bool runSinkTransposes(Function &F, const PassContext &) { return Sinker(F).run(); }

} // namespace ember
