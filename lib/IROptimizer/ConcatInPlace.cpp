// concat-in-place: when every axis before the concat axis has size 1, each input is one
// contiguous run of the result. Then each input's producer can write straight into its run (a
// TensorView of the result) and the concat, which would only copy, goes away. Inception,
// DenseNet, SqueezeNet and ShuffleNet concatenate this way on the channel axis.
//
// All inputs or none: every input must be an activation of its own (not a view, not a weight,
// not repeated), whose every write comes before the concat, and the result an activation that
// only the concat writes. The result's storage then lives from the first input's write.
#include "IRPasses.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace llvm;

namespace ember {

namespace {

bool canConcatInPlace(const Instruction &I, const AccessMap &acc) {
  IRValue *out = I.getOutput(0);
  const Type &t = out->getType();
  int64_t axis = I.attr<AttrKind::Axis>();
  for (int64_t d = 0; d < axis; ++d)
    if (t.dims[d] != 1)
      return false;
  if (!isAllocation(out) || acc.numWrites(out) != 1)
    return false;
  unsigned pos = acc.position(&I);
  SmallPtrSet<const IRValue *, 8> seen;
  for (unsigned i = 0; i < I.getNumInputs(); ++i) {
    IRValue *in = I.getInput(i);
    if (!isAllocation(in) || !seen.insert(in).second || acc.writtenAfter(in, pos))
      return false;
  }
  return true;
}

} // namespace

bool concatInPlace(IRFunction &IR) {
  bool changed = false;
  auto &instrs = IR.getInstrs();
  for (auto it = instrs.begin(); it != instrs.end();) {
    Instruction *I = it->get();
    // Rebuilt per candidate: each rewrite moves accesses between storages.
    if (I->getKind() != InstrKind::Concat || !canConcatInPlace(*I, AccessMap(IR))) {
      ++it;
      continue;
    }
    auto *out = cast<Instruction>(I->getOutput(0));
    uint64_t offset = 0;
    for (unsigned i = 0; i < I->getNumInputs(); ++i) {
      IRValue *in = I->getInput(i);
      absorbLifetime(IR, out, in);
      // Right after the result's allocation, which now precedes every write of the input.
      auto allocIt = std::find_if(instrs.begin(), instrs.end(),
                                  [&](const auto &p) { return p.get() == out; });
      Instruction *view = IR.insert(
          std::next(allocIt),
          makeView(I->getName().str() + ".in" + std::to_string(i), out, in->getType(), offset));
      IR.replaceAllUsesWith(in, view);
      offset += in->sizeInBytes();
    }
    it = instrs.erase(it);
    changed = true;
  }
  if (changed)
    eraseUnusedAllocations(IR);
  return changed;
}

} // namespace ember
