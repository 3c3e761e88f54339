// concat-in-place: when every axis before the concat axis has size 1, each input is one
// contiguous run of the result. Then each input's producer can write straight into its run (a
// TensorView of the result) and the concat, which would only copy, goes away. Inception,
// DenseNet, SqueezeNet and ShuffleNet concatenate this way on the channel axis.
//
// All inputs or none: every input must be an activation of its own (not a view, not a weight,
// not repeated), whose every write comes before the concat, and the result an activation that
// only the concat writes. The result's storage then lives from the first input's write.
//
// Concats are taken last first. DenseNet's layer k concatenates all the features before it, so
// each concat repeats the one before plus one piece: the block's last concat claims the pieces,
// and every earlier concat then reads adjacent views of its storage, in order. Such a concat
// only copies a run of that storage onto itself and becomes a view of the run, provided nothing
// writes the run after it (the later pieces land beyond it).
#include "IRPasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>

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

/// The run of one activation that \p I's inputs cover, in order and without gaps, and that
/// nothing writes after \p I; nullopt when they do not.
std::optional<ValueRoot> adjacentRun(const Instruction &I, const AccessMap &acc) {
  IRValue *out = I.getOutput(0);
  if (!isAllocation(out) || acc.numWrites(out) != 1)
    return std::nullopt;
  ValueRoot run = rootOf(I.getInput(0));
  uint64_t end = run.offset;
  for (unsigned i = 0; i < I.getNumInputs(); ++i) {
    ValueRoot piece = rootOf(I.getInput(i));
    if (piece.root != run.root || piece.offset != end)
      return std::nullopt;
    end += I.getInput(i)->sizeInBytes();
  }
  if (!isAllocation(run.root))
    return std::nullopt;
  unsigned pos = acc.position(&I);
  for (const Access &a : acc.of(run.root)) {
    uint64_t begin = rootOf(a.value).offset;
    if (a.pos > pos && a.writes() && begin < end && run.offset < begin + a.value->sizeInBytes())
      return std::nullopt;
  }
  return run;
}

/// Each input's producer writes into its run of \p concat's result.
void writeInputsInPlace(IRFunction &IR, Instruction *concat) {
  auto &instrs = IR.getInstrs();
  auto *out = cast<Instruction>(concat->getOutput(0));
  uint64_t offset = 0;
  for (unsigned i = 0; i < concat->getNumInputs(); ++i) {
    IRValue *in = concat->getInput(i);
    absorbLifetime(IR, out, in);
    // Right after the result's allocation, which now precedes every write of the input.
    auto allocIt = std::find_if(instrs.begin(), instrs.end(),
                                [&](const auto &p) { return p.get() == out; });
    Instruction *view = IR.insert(
        std::next(allocIt),
        makeView(concat->getName().str() + ".in" + std::to_string(i), out, in->getType(), offset));
    IR.replaceAllUsesWith(in, view);
    offset += in->sizeInBytes();
  }
}

} // namespace

bool concatInPlace(IRFunction &IR) {
  auto &instrs = IR.getInstrs();
  std::vector<Instruction *> concats;
  for (auto &I : instrs)
    if (I->getKind() == InstrKind::Concat)
      concats.push_back(I.get());
  bool changed = false;
  for (Instruction *I : llvm::reverse(concats)) {
    // Rebuilt per candidate: each rewrite moves accesses between storages.
    AccessMap acc(IR);
    auto it = std::find_if(instrs.begin(), instrs.end(),
                           [&](const auto &p) { return p.get() == I; });
    if (canConcatInPlace(*I, acc)) {
      writeInputsInPlace(IR, I);
    } else if (std::optional<ValueRoot> run = adjacentRun(*I, acc)) {
      IRValue *out = I->getOutput(0);
      Instruction *view =
          IR.insert(it, makeView(I->getName(), run->root, out->getType(), run->offset));
      absorbLifetime(IR, run->root, out);
      IR.replaceAllUsesWith(out, view);
    } else {
      continue;
    }
    instrs.erase(it);
    changed = true;
  }
  if (changed)
    eraseUnusedAllocations(IR);
  return changed;
}

} // namespace ember
