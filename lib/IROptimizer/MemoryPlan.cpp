#include "ember/IROptimizer/MemoryPlan.h"
#include "ember/Base/Tensor.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Casting.h"

#include <map>

using namespace llvm;

namespace ember {

namespace {

uint64_t alignUp(uint64_t v) {
  return (v + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
}

/// First fit over live blocks kept sorted by offset.
class FirstFitAllocator {
  std::map<uint64_t, uint64_t> live_; // offset -> size
  uint64_t peak_ = 0;

public:
  uint64_t allocate(uint64_t size) {
    size = alignUp(size ? size : 1);
    uint64_t candidate = 0;
    for (const auto &[off, sz] : live_) {
      if (off >= candidate + size)
        break;
      candidate = std::max(candidate, alignUp(off + sz));
    }
    live_[candidate] = size;
    peak_ = std::max(peak_, candidate + size);
    return candidate;
  }
  void release(uint64_t offset) { live_.erase(offset); }
  uint64_t peak() const { return peak_; }
};

} // namespace

Error planMemory(IRFunction &IR) {
  uint64_t constant = 0, mut = 0;
  for (const auto &w : IR.getWeights()) {
    uint64_t &cursor = w->isConstant() ? constant : mut;
    w->offset = cursor;
    cursor = alignUp(cursor + w->sizeInBytes());
  }
  FirstFitAllocator acts;
  for (const auto &I : IR.getInstrs()) {
    if (I->getKind() == InstrKind::AllocActivation)
      I->offset = acts.allocate(I->sizeInBytes());
    else if (I->getKind() == InstrKind::DeallocActivation)
      acts.release(I->getOperand(0)->offset);
  }
  IR.constantSize = constant;
  IR.mutableSize = mut;
  IR.activationsSize = acts.peak();
  return verifyMemoryPlan(IR);
}

Error verifyMemoryPlan(const IRFunction &IR) {
  auto check = [&](const IRValue *v, uint64_t regionSize) -> Error {
    if (v->offset == kUnplanned)
      return makeError("memory plan: '" + v->getName() + "' has no offset");
    if (v->offset % kTensorAlignment)
      return makeError("memory plan: '" + v->getName() + "' is not aligned");
    if (v->offset + v->sizeInBytes() > regionSize)
      return makeError("memory plan: '" + v->getName() + "' ends past its region");
    return Error::success();
  };
  for (const auto &w : IR.getWeights())
    EMBER_TRY(check(w.get(), w->isConstant() ? IR.constantSize : IR.mutableSize));
  std::vector<const Instruction *> live;
  for (const auto &I : IR.getInstrs()) {
    if (I->getKind() == InstrKind::AllocActivation) {
      EMBER_TRY(check(I.get(), IR.activationsSize));
      uint64_t b = I->offset, e = b + std::max<uint64_t>(I->sizeInBytes(), 1);
      for (const Instruction *o : live) {
        uint64_t ob = o->offset, oe = ob + std::max<uint64_t>(o->sizeInBytes(), 1);
        if (b < oe && ob < e)
          return makeError("memory plan: live activations '" + I->getName() + "' and '" +
                           o->getName() + "' overlap");
      }
      live.push_back(I.get());
    } else if (I->getKind() == InstrKind::DeallocActivation) {
      live.erase(std::remove(live.begin(), live.end(), I->getOperand(0)), live.end());
    }
  }
  return Error::success();
}

} // namespace ember
