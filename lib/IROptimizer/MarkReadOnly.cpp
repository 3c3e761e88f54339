// mark-read-only: a weight that no instruction writes is read-only: constants always, and model
// inputs (placeholders only read). The verifier then rejects any later write to them, and a
// backend may tell its code generator the memory is never stored to. Glow calls the same step
// "make weights const"; in ember constants are const from IRGen on, so what this adds is the
// inputs.
#include "IRPasses.h"

using namespace llvm;

namespace ember {

bool markReadOnly(IRFunction &IR) {
  AccessMap acc(IR);
  bool changed = false;
  for (const auto &w : IR.getWeights()) {
    bool readOnly = w->isConstant() || acc.numWrites(w.get()) == 0;
    changed |= w->readOnly != readOnly;
    w->readOnly = readOnly;
  }
  return changed;
}

} // namespace ember
