#include "ember/IR/IRGen.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;

namespace ember {

Expected<std::unique_ptr<IRFunction>> generateIR(const Function &F) {
  auto IR = std::make_unique<IRFunction>(&F);
  const Module &M = *F.getParent();
  for (const auto &p : M.getPlaceholders())
    IR->createWeightVar(p.get());
  std::vector<Node *> order = F.topologicalOrder();

  // Values (node results) to the IR value holding them.
  DenseMap<std::pair<const Node *, unsigned>, IRValue *> valueOf;
  for (const auto &c : M.getConstants())
    if (c->hasUsers())
      valueOf[{c.get(), 0}] = IR->createWeightVar(c.get());
  for (const auto &p : M.getPlaceholders())
    valueOf[{p.get(), 0}] = IR->getWeightVar(p.get());

  // Position of each activation's last reader, so it can be freed right after.
  DenseMap<std::pair<const Node *, unsigned>, size_t> lastUse;
  for (size_t i = 0; i < order.size(); ++i)
    for (const NodeValue &v : order[i]->getOperands())
      lastUse[{v.node, v.resNo}] = i;

  auto deallocAfter = [&](size_t position, SmallVectorImpl<std::pair<Instruction *, size_t>> &allocs) {
    for (auto &[alloc, last] : allocs)
      if (alloc && last == position) {
        IR->append(std::make_unique<Instruction>(InstrKind::DeallocActivation,
                                                 alloc->getName().str() + ".dealloc",
                                                 InstrOperand{alloc, OperandMode::Out}, AttrList(), 0));
        alloc = nullptr;
      }
  };

  SmallVector<std::pair<Instruction *, size_t>, 64> liveAllocs;
  for (size_t i = 0; i < order.size(); ++i) {
    Node *n = order[i];
    SmallVector<InstrOperand, 4> operands;
    if (n->getKind() == NodeKind::Save) {
      auto *dest = IR->getWeightVar(n->getOperand(ops::Save::Output).node);
      IRValue *src = valueOf.lookup({n->getOperand(ops::Save::Input).node,
                                     n->getOperand(ops::Save::Input).resNo});
      if (!dest || !src)
        return makeError("node '" + n->getName() + "' (Save): operand has no IR value");
      IR->append(std::make_unique<Instruction>(
          InstrKind::Copy, n->getName(),
          ArrayRef<InstrOperand>{{dest, OperandMode::Out}, {src, OperandMode::In}}, AttrList(), 1));
    } else {
      for (unsigned r = 0; r < n->getNumResults(); ++r) {
        std::string allocName = n->getName().str() + (n->getNumResults() > 1 ? ".res" + std::to_string(r) : "") + ".alloc";
        Instruction *alloc = IR->append(std::make_unique<Instruction>(
            InstrKind::AllocActivation, allocName, ArrayRef<InstrOperand>{}, AttrList(), 0,
            n->getType(r)));
        valueOf[{n, r}] = alloc;
        auto it = lastUse.find({n, r});
        // A result nobody reads is freed right after it is written.
        liveAllocs.push_back({alloc, it == lastUse.end() ? i : it->second});
        operands.push_back({alloc, OperandMode::Out});
      }
      for (const NodeValue &v : n->getOperands()) {
        IRValue *src = valueOf.lookup({v.node, v.resNo});
        if (!src)
          return makeError("node '" + n->getName() + "' (" + n->getKindName() + "): operand '" +
                           v.node->getName() + "' has no IR value");
        operands.push_back({src, OperandMode::In});
      }
      IR->append(std::make_unique<Instruction>(instrKindFor(n->getKind()), n->getName(), operands,
                                               n->getAttrs(), n->getNumResults()));
    }
    deallocAfter(i, liveAllocs);
  }
  return std::move(IR);
}

} // namespace ember
