// peephole: local clean-ups of copies.
//  - A copy whose source and destination are the same bytes (same storage, offset and size)
//    does nothing; it is dropped. Other passes leave these behind when they retarget buffers.
//  - A copy into an activation that nothing else writes, from a source nobody writes afterwards,
//    is forwarded: readers of the activation read the source instead, and the copy goes.
#include "IRPasses.h"

using namespace llvm;

namespace ember {

bool peephole(IRFunction &IR) {
  bool changed = false;
  AccessMap acc(IR);
  auto &instrs = IR.getInstrs();
  for (auto it = instrs.begin(); it != instrs.end();) {
    Instruction *I = it->get();
    if (I->getKind() != InstrKind::Copy) {
      ++it;
      continue;
    }
    IRValue *dst = I->getOperand(0), *src = I->getOperand(1);
    ValueRoot d = rootOf(dst), s = rootOf(src);
    if (d.root == s.root && d.offset == s.offset) {
      it = instrs.erase(it);
      changed = true;
      continue;
    }
    unsigned pos = acc.position(I);
    if (isAllocation(dst) && acc.numWrites(dst) == 1 && !acc.writtenAfter(s.root, pos)) {
      // The source's storage is not written again, so its value at the copy is its value for
      // as long as the activation would have lived.
      absorbLifetime(IR, s.root, dst);
      IR.replaceAllUsesWith(dst, src);
      it = instrs.erase(it);
      changed = true;
      acc = AccessMap(IR);
      continue;
    }
    ++it;
  }
  if (changed)
    eraseUnusedAllocations(IR);
  return changed;
}

} // namespace ember
