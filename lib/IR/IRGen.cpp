#include "ember/IR/IRGen.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;

namespace ember {

namespace {

using ValueKey = std::pair<const Node *, unsigned>;

std::unique_ptr<Instruction> makeDealloc(Instruction *alloc) {
  return std::make_unique<Instruction>(InstrKind::DeallocActivation,
                                       alloc->getName().str() + ".dealloc",
                                       InstrOperand{alloc, OperandMode::Out}, AttrList(), 0);
}

} // namespace

Expected<std::unique_ptr<IRFunction>> generateIR(const Function &F) {
  auto IR = std::make_unique<IRFunction>(&F);
  const Module &M = *F.getParent();
  std::vector<Node *> order = F.topologicalOrder();

  // Node results to the IR value holding them.
  DenseMap<ValueKey, IRValue *> valueOf;
  for (const auto &p : M.getPlaceholders())
    valueOf[{p.get(), 0}] = IR->createWeightVar(p.get());
  for (const auto &c : M.getConstants())
    if (c->hasUsers())
      valueOf[{c.get(), 0}] = IR->createWeightVar(c.get());

  // Each activation is freed right after the position of its last reader.
  DenseMap<ValueKey, size_t> lastUse;
  for (size_t i = 0; i < order.size(); ++i)
    for (const NodeValue &v : order[i]->getOperands())
      lastUse[{v.node, v.resNo}] = i;
  std::vector<SmallVector<Instruction *, 2>> deallocAfter(order.size());

  auto operandValue = [&](const Node *n, const NodeValue &v) -> Expected<IRValue *> {
    if (IRValue *src = valueOf.lookup({v.node, v.resNo}))
      return src;
    return makeError("node '" + n->getName() + "' (" + n->getKindName() + "): operand '" +
                     v.node->getName() + "' has no IR value");
  };

  for (size_t i = 0; i < order.size(); ++i) {
    Node *n = order[i];
    if (n->getKind() == NodeKind::Save) {
      IRValue *dest = IR->getWeightVar(n->getOperand(ops::Save::Output).node);
      EMBER_ASSIGN_OR_RETURN(IRValue * src, operandValue(n, n->getOperand(ops::Save::Input)));
      IR->append(std::make_unique<Instruction>(
          InstrKind::Copy, n->getName(),
          ArrayRef<InstrOperand>{{dest, OperandMode::Out}, {src, OperandMode::In}}, AttrList(), 1));
    } else {
      SmallVector<InstrOperand, 4> operands;
      for (unsigned r = 0; r < n->getNumResults(); ++r) {
        std::string name = n->getName().str();
        if (n->getNumResults() > 1)
          name += ".res" + std::to_string(r);
        Instruction *alloc = IR->append(std::make_unique<Instruction>(
            InstrKind::AllocActivation, name + ".alloc", ArrayRef<InstrOperand>{}, AttrList(), 0,
            n->getType(r)));
        valueOf[{n, r}] = alloc;
        auto last = lastUse.find({n, r});
        // A result nobody reads is freed right after it is written.
        deallocAfter[last == lastUse.end() ? i : last->second].push_back(alloc);
        operands.push_back({alloc, OperandMode::Out});
      }
      for (const NodeValue &v : n->getOperands()) {
        EMBER_ASSIGN_OR_RETURN(IRValue * src, operandValue(n, v));
        operands.push_back({src, OperandMode::In});
      }
      IR->append(std::make_unique<Instruction>(instrKindFor(n->getKind()), n->getName(), operands,
                                               n->getAttrs(), n->getNumResults()));
    }
    for (Instruction *alloc : deallocAfter[i])
      IR->append(makeDealloc(alloc));
  }
  return std::move(IR);
}

} // namespace ember
