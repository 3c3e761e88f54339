// dead-store-elimination: an instruction whose every result lands in activations that nobody
// reads afterwards computes nothing anyone sees; it is dropped, and the buffers with it. Runs to
// a fixed point, since dropping a reader can make its producer dead. Model outputs are weights,
// never activations, so they always stay.
#include "IRPasses.h"

using namespace llvm;

namespace ember {

bool deadStoreElimination(IRFunction &IR) {
  bool changed = false, erased = true;
  auto &instrs = IR.getInstrs();
  while (erased) {
    erased = false;
    AccessMap acc(IR);
    for (auto it = instrs.begin(); it != instrs.end();) {
      Instruction *I = it->get();
      bool dead = !isMemoryMarker(I->getKind()) && I->getNumOutputs() > 0;
      for (unsigned r = 0; dead && r < I->getNumOutputs(); ++r) {
        const IRValue *root = rootOf(I->getOutput(r)).root;
        dead = isAllocation(root) && !acc.readAfter(root, acc.position(I));
      }
      if (dead) {
        it = instrs.erase(it);
        erased = changed = true;
      } else {
        ++it;
      }
    }
  }
  if (changed)
    eraseUnusedAllocations(IR);
  return changed;
}

} // namespace ember
