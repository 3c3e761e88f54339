#include "ember/IROptimizer/MemoryPlan.h"
#include "ember/Base/Tensor.h"
#include "ember/IROptimizer/IntervalPacking.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;

namespace ember {

namespace {

uint64_t alignUp(uint64_t v) {
  return (v + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
}

} // namespace

Error planMemory(IRFunction &IR) {
  uint64_t constant = 0, mut = 0;
  for (const auto &w : IR.getWeights()) {
    uint64_t &cursor = w->isConstant() ? constant : mut;
    w->offset = cursor;
    cursor = alignUp(cursor + std::max(w->sizeInBytes(), w->reservedBytes));
  }

  // Live interval of each allocation: from its AllocActivation to its DeallocActivation; an
  // instruction's scratch is live at that instruction only.
  std::vector<Instruction *> allocs, scratchUsers;
  std::vector<LiveBuffer> scratch;
  std::vector<LiveBuffer> buffers;
  DenseMap<const IRValue *, unsigned> index;
  uint64_t pos = 0;
  for (const auto &I : IR.getInstrs()) {
    if (I->getKind() == InstrKind::AllocActivation) {
      index[I.get()] = allocs.size();
      allocs.push_back(I.get());
      buffers.push_back({pos, pos, I->sizeInBytes()});
    } else if (I->getKind() == InstrKind::DeallocActivation) {
      auto it = index.find(I->getOperand(0));
      if (it == index.end())
        return makeError("memory plan: '" + I->getName() + "' frees an unknown allocation");
      buffers[it->second].end = pos;
    } else if (I->scratchSize) {
      scratchUsers.push_back(I.get());
      scratch.push_back({pos, pos, I->scratchSize});
    }
    ++pos;
  }
  size_t numAllocs = buffers.size();
  buffers.insert(buffers.end(), scratch.begin(), scratch.end());
  Packing packing = packBuffers(buffers, kTensorAlignment);
  for (size_t i = 0; i < scratchUsers.size(); ++i)
    scratchUsers[i]->scratchOffset = packing.offsets[numAllocs + i];
  IR.activationsValuesSize =
      packBuffers(ArrayRef<LiveBuffer>(buffers).take_front(numAllocs), kTensorAlignment).peak;
  IR.scratchLargest = 0;
  IR.scratchLargestAt.clear();
  for (Instruction *I : scratchUsers)
    if (I->scratchSize > IR.scratchLargest) {
      IR.scratchLargest = I->scratchSize;
      IR.scratchLargestAt = I->getName();
    }
  uint64_t sum = 0;
  for (size_t i = 0; i < allocs.size(); ++i) {
    allocs[i]->offset = packing.offsets[i];
    sum += alignUp(std::max<uint64_t>(buffers[i].size, 1));
  }
  for (const LiveBuffer &b : scratch)
    sum += alignUp(b.size);
  for (const auto &I : IR.getInstrs())
    if (I->getKind() == InstrKind::TensorView) {
      ValueRoot r = rootOf(I.get());
      I->offset = r.root->offset == kUnplanned ? kUnplanned : r.root->offset + r.offset;
    }
  IR.constantSize = constant;
  IR.mutableSize = mut;
  IR.activationsSize = packing.peak;
  IR.activationsSum = sum;
  IR.activationsPeakLive = peakLiveBytes(buffers, kTensorAlignment);
  return verifyMemoryPlan(IR);
}

} // namespace ember
