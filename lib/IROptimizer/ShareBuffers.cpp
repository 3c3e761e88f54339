// share-buffers: an element-wise instruction may write its result over an input of the same
// type when that input's storage is read by nothing after it (canWriteInPlace says which
// instructions qualify). The result's activation is replaced by the input's, whose lifetime
// grows to cover it, and the output operand becomes @inout. A chain of activations (conv, add,
// relu) then runs in one buffer.
//
// Only whole activations on both sides: an input that is a view, or a part of a storage others
// still read, or a weight (a model input belongs to the caller) is never overwritten.
#include "IRPasses.h"

using namespace llvm;

namespace ember {

bool shareBuffers(IRFunction &IR) {
  bool changed = false;
  AccessMap acc(IR);
  // Storage merged away -> the storage now holding it, so last accesses stay exact without
  // rebuilding the map: a merged storage's accesses count for its new home.
  DenseMap<const IRValue *, unsigned> lastAccess;
  auto lastOf = [&](const IRValue *root) {
    auto it = lastAccess.find(root);
    return it != lastAccess.end() ? it->second : acc.lastAccess(root);
  };
  for (auto &P : IR.getInstrs()) {
    Instruction *I = P.get();
    if (I->getNumOutputs() != 1 || I->getOperands()[0].mode != OperandMode::Out)
      continue;
    IRValue *out = I->getOutput(0);
    if (!isAllocation(out) || acc.numWrites(out) != 1)
      continue;
    unsigned pos = acc.position(I);
    for (unsigned i = 0; i < I->getNumInputs(); ++i) {
      IRValue *in = I->getInput(i);
      if (!isAllocation(in) || !canWriteInPlace(*I, i) || lastOf(in) != pos)
        continue;
      absorbLifetime(IR, in, out);
      lastAccess[in] = std::max(pos, lastOf(out));
      IR.replaceAllUsesWith(out, in);
      I->setOperandMode(0, OperandMode::InOut);
      changed = true;
      break;
    }
  }
  if (changed)
    eraseUnusedAllocations(IR);
  return changed;
}

} // namespace ember
