// Constant folding: every node whose operands are all Constants (or nodes foldable in turn) is
// replaced by Constants holding its results. Maximal constant subgraphs are folded at their
// frontier only (foldable nodes with a user that is not foldable, a Save for instance): one
// evaluation computes the whole subgraph behind a frontier node, so a model with hundreds of
// constant nodes does not compile hundreds of scratch modules. Values come from
// ctx.evaluateConstant (the Interpreter, the reference backend), except Reshape and Transpose of
// a Constant, which are pure data movement and are done here directly. It is safe because a
// node's result depends only on its operands and attributes (no kind has side effects or
// randomness besides Save, which is never folded), the new Constants have exactly the folded
// results' types, and a multi-result node is folded whole or not at all. A node whose results
// would be much larger than its inputs (more than 4x their bytes and over 64 KiB: a Broadcast of
// a scalar, a ConstantOfShape) is left alone so the module's weights stay small, and so is the
// DequantizeLinear of a quantized weight (isQuantizedWeight).
#include "PatternUtils.h"
#include "Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace ember {

namespace {

constexpr size_t kSmallResultBytes = 64 * 1024;
constexpr size_t kMaxGrowth = 4;

size_t resultBytes(const Node &n) {
  size_t bytes = 0;
  for (const Type &t : n.getResultTypes())
    bytes += t.sizeInBytes();
  return bytes;
}

/// Whether folding \p n keeps memory small: its results are small, or not much larger than
/// its (distinct) operands.
bool withinGrowthLimit(const Node &n) {
  size_t out = resultBytes(n);
  if (out <= kSmallResultBytes)
    return true;
  size_t in = 0;
  SmallVector<NodeValue, 4> seen;
  for (const NodeValue &v : n.getOperands()) {
    if (llvm::is_contained(seen, v))
      continue;
    seen.push_back(v);
    in += v.getType().sizeInBytes();
  }
  return out <= in * kMaxGrowth;
}

/// A DequantizeLinear of 8-bit values: how a quantized model stores its weights. Folding it would
/// make them float32 (4x the bytes) and hide them from fold-qdq, which turns the product that
/// reads them into an integer kernel (FoldQDQ.cpp).
bool isQuantizedWeight(const Node &n) {
  if (n.getKind() != NodeKind::DequantizeLinear)
    return false;
  ElemKind k = n.getOperand(ops::DequantizeLinear::Input).getType().kind;
  return k == ElemKind::Int8 || k == ElemKind::UInt8 || k == ElemKind::Int32;
}

class ConstantFolder {
  Function &F_;
  const PassContext &ctx_;
  DenseSet<const Node *> foldable_;

public:
  ConstantFolder(Function &F, const PassContext &ctx) : F_(F), ctx_(ctx) {}

  bool isConstantValue(NodeValue v) const {
    return v.node->getKind() == NodeKind::Constant || foldable_.count(v.node);
  }

  bool run() {
    std::vector<Node *> order = F_.topologicalOrder();
    for (Node *n : order) {
      // Control flow runs bodies the evaluator does not copy; a body's input has no operands
      // but is no constant.
      if (n->isStorage() || n->getKind() == NodeKind::Save || n->getNumResults() == 0 ||
          categoryOf(n->getKind()) == NodeCategory::ControlFlow || isQuantizedWeight(*n))
        continue;
      if (llvm::all_of(n->getOperands(), [&](NodeValue v) { return isConstantValue(v); }) &&
          withinGrowthLimit(*n))
        foldable_.insert(n);
    }
    bool changed = false;
    // In topological order, so a frontier node's subgraph already reads the Constants that
    // replaced the frontier nodes above it.
    for (Node *n : order)
      if (foldable_.count(n) && isFrontier(*n))
        changed |= foldFrontier(n);
    return changed;
  }

private:
  bool isFrontier(const Node &n) const {
    return llvm::any_of(n.getUsers(), [&](const NodeUse &u) { return !foldable_.count(u.user); });
  }

  /// Folds \p n; if it cannot be evaluated, folds the foldable nodes feeding it instead.
  bool foldFrontier(Node *root) {
    bool changed = false;
    SmallVector<Node *, 8> work{root};
    DenseSet<Node *> tried;
    while (!work.empty()) {
      Node *n = work.pop_back_val();
      if (!tried.insert(n).second)
        continue;
      if (fold(n)) {
        changed = true;
        continue;
      }
      // The subgraph stays; what feeds n may still fold on its own.
      foldable_.erase(n);
      for (const NodeValue &v : n->getOperands())
        if (foldable_.count(v.node))
          work.push_back(v.node);
    }
    return changed;
  }

  /// The value of \p v, which depends on Constants only.
  Expected<Tensor> evaluate(NodeValue v) {
    Node *n = v.node;
    const Constant *in = n->getNumOperands() == 1 ? pattern::asConstant(n->getOperand(0)) : nullptr;
    if (in && n->getKind() == NodeKind::Reshape) {
      Tensor t = in->getPayload().clone();
      t.reshape(v.getType().dims);
      return std::move(t);
    }
    if (in && n->getKind() == NodeKind::Transpose)
      return pattern::transposeTensor(in->getPayload(), n->attr<AttrKind::Shuffle>());
    return ctx_.evaluateConstant(v);
  }

  /// Replaces every used result of \p n by a Constant, or changes nothing.
  bool fold(Node *n) {
    SmallVector<std::pair<unsigned, Tensor>, 2> values;
    for (unsigned r = 0; r < n->getNumResults(); ++r) {
      NodeValue v = n->getResult(r);
      if (!hasAnyUser(v))
        continue;
      Expected<Tensor> t = evaluate(v);
      if (!t) {
        consumeError(t.takeError());
        return false;
      }
      if (t->getType() != n->getType(r))
        return false;
      values.push_back({r, std::move(*t)});
    }
    if (values.empty())
      return false;
    Module *M = F_.getParent();
    for (auto &[r, t] : values) {
      Constant *c = M->createConstant(std::move(t), n->getName());
      n->replaceAllUsesOfWith(r, c->getResult());
    }
    return true;
  }

  static bool hasAnyUser(NodeValue v) {
    return llvm::any_of(v.node->getUsers(), [&](const NodeUse &u) {
      return u.user->getOperand(u.operandIdx).resNo == v.resNo;
    });
  }
};

} // namespace

bool runConstantFold(Function &F, const PassContext &ctx) {
  if (!ctx.evaluateConstant)
    return false;
  return ConstantFolder(F, ctx).run();
}

} // namespace ember
