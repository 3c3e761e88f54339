// copy-elimination: a model output is a Copy from the activation holding the value into the
// output placeholder. When nothing else touches the placeholder, the activation can simply *be*
// the placeholder: every access to it goes to the placeholder (through a view when the types
// differ), the copy copies onto itself and is dropped, and the activation's buffer is gone.
// Conditions: the copied value is a whole activation (not a part of one) of the output's size,
// and it is not written after the copy (the placeholder must end holding the copied value).
// It runs after share-buffers, so a chain of in-place instructions ending in an output runs in
// the output placeholder itself.
#include "IRPasses.h"

using namespace llvm;

namespace ember {

bool copyElimination(IRFunction &IR) {
  bool changed = false;
  auto &instrs = IR.getInstrs();
  for (auto it = instrs.begin(); it != instrs.end();) {
    Instruction *I = it->get();
    auto *out = I->getKind() == InstrKind::Copy ? dyn_cast<WeightVar>(I->getOperand(0)) : nullptr;
    if (!out || out->isConstant()) {
      ++it;
      continue;
    }
    AccessMap acc(IR);
    ValueRoot src = rootOf(I->getOperand(1));
    bool onlyThisCopy = acc.of(out).size() == 1;
    if (!onlyThisCopy || !isAllocation(src.root) || src.offset != 0 ||
        src.root->sizeInBytes() != out->sizeInBytes() ||
        acc.writtenAfter(src.root, acc.position(I))) {
      ++it;
      continue;
    }
    IRValue *replacement = out;
    if (src.root->getType() != out->getType())
      replacement = IR.insert(instrs.begin(), makeView(src.root->getName().str() + ".in." +
                                                           out->getName().str(),
                                                       out, src.root->getType(), 0));
    IR.replaceAllUsesWith(src.root, replacement);
    it = instrs.erase(it); // now a copy of the placeholder onto itself
    changed = true;
  }
  if (changed)
    eraseUnusedAllocations(IR);
  return changed;
}

} // namespace ember
