#include "ember/Driver/ConstantEvaluator.h"
#include "ember/Driver/CompiledModel.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;

namespace ember {

namespace {

/// Copies the subgraph computing \p v into \p M's function \p F; fails on a Placeholder.
class SubgraphCopier {
  Module &M_;
  Function &F_;
  DenseMap<const Node *, Node *> copies_;

public:
  SubgraphCopier(Module &M, Function &F) : M_(M), F_(F) {}

  Expected<Node *> copy(const Node *root) {
    // Iterative post-order: exporter-made shape chains can be long.
    SmallVector<std::pair<const Node *, unsigned>, 32> stack{{root, 0}};
    while (!stack.empty()) {
      auto &[n, next] = stack.back();
      if (copies_.count(n)) {
        stack.pop_back();
        continue;
      }
      if (n->getKind() == NodeKind::Placeholder)
        return makeError("it depends on input '" + n->getName() + "'");
      if (categoryOf(n->getKind()) == NodeCategory::ControlFlow) // If, Loop, a body's input
        return makeError("it depends on '" + n->getName() + "' (" + n->getKindName() +
                         "), which is known only at run time");
      if (n->getKind() == NodeKind::Constant) {
        copies_[n] = M_.createConstant(static_cast<const Constant *>(n)->getPayload().clone(),
                                       n->getName());
        stack.pop_back();
        continue;
      }
      if (next < n->getNumOperands()) {
        const Node *op = n->getOperand(next++).node;
        if (!copies_.count(op))
          stack.push_back({op, 0});
        continue;
      }
      SmallVector<NodeValue, 4> operands;
      for (const NodeValue &o : n->getOperands())
        operands.push_back(NodeValue(copies_[o.node], o.resNo));
      copies_[n] = F_.createNodeWithTypes(n->getKind(), n->getName(), operands,
                                          n->getResultTypes(), n->getAttrs());
      stack.pop_back();
    }
    return copies_[root];
  }
};

} // namespace

Expected<Tensor> evaluateConstant(NodeValue v) {
  auto M = std::make_unique<Module>();
  Function *F = M->createFunction(kMainFunctionName);
  EMBER_ASSIGN_OR_RETURN(Node * copy, SubgraphCopier(*M, *F).copy(v.node));
  Placeholder *out = M->createPlaceholder(v.getType(), "value");
  EMBER_TRY(F->createNode(NodeKind::Save, "save", {NodeValue(copy, v.resNo), out}).takeError());
  CompileOptions opts;
  opts.backend = "Interpreter";
  // Only DCE: constant folding here would evaluate this very subgraph again, without end.
  opts.pipeline = {"dce"};
  EMBER_ASSIGN_OR_RETURN(auto cm, CompiledModel::compile(std::move(M), opts));
  EMBER_TRY(cm->run());
  return cm->getOutput("value");
}

ImportOptions withConstantEvaluation(ImportOptions opts) {
  opts.evaluateConstant = evaluateConstant;
  return opts;
}

} // namespace ember
