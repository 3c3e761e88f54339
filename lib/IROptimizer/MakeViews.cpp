// make-views: instructions that only reinterpret bytes become TensorViews, which cost nothing at
// run time and need no buffer: Reshape; a Transpose that moves only axes of size 1; a Broadcast
// to the same number of elements; a Slice whose result is one contiguous run of its input (all
// steps 1 where the result has more than one element, every axis after the first partial one
// taken whole, every axis before it of size 1). The view is of the instruction's input, so it is
// valid only while that storage is not written again; the pass checks that on the access map.
#include "IRPasses.h"

#include <optional>

using namespace llvm;

namespace ember {

namespace {

/// The byte offset of the result inside the input when the instruction only reinterprets bytes.
std::optional<uint64_t> viewOffsetOf(const Instruction &I) {
  if (I.getNumOutputs() != 1 || I.getNumInputs() != 1)
    return std::nullopt;
  const Type &in = I.getInput(0)->getType(), &out = I.getOutput(0)->getType();
  if (in.numElements() != 0 && out.numElements() == 0)
    return std::nullopt;
  switch (I.getKind()) {
  case InstrKind::Reshape:
    return 0;
  case InstrKind::Broadcast:
    if (in.numElements() == out.numElements())
      return 0;
    return std::nullopt;
  case InstrKind::Transpose: {
    // The non-unit axes must keep their order.
    int64_t last = -1;
    for (int64_t axis : I.attr<AttrKind::Shuffle>()) {
      if (in.dims[axis] == 1)
        continue;
      if (axis < last)
        return std::nullopt;
      last = axis;
    }
    return 0;
  }
  case InstrKind::Slice: {
    const auto &starts = I.attr<AttrKind::Starts>();
    const auto &steps = I.attr<AttrKind::Steps>();
    unsigned rank = in.rank();
    // The last axis the result takes only part of; every later axis must be whole.
    int partial = -1;
    for (unsigned d = 0; d < rank; ++d) {
      if (out.dims[d] > 1 && steps[d] != 1)
        return std::nullopt;
      if (out.dims[d] != in.dims[d])
        partial = d;
    }
    for (int d = 0; d < partial; ++d)
      if (out.dims[d] != 1)
        return std::nullopt;
    uint64_t offset = 0, stride = 1;
    for (int d = int(rank) - 1; d >= 0; --d) {
      offset += uint64_t(starts[d]) * stride;
      stride *= in.dims[d];
    }
    return offset * in.elementSize();
  }
  default:
    return std::nullopt;
  }
}

} // namespace

bool makeViews(IRFunction &IR) {
  bool changed = false;
  AccessMap acc(IR);
  auto &instrs = IR.getInstrs();
  for (auto it = instrs.begin(); it != instrs.end();) {
    Instruction *I = it->get();
    std::optional<uint64_t> offset = viewOffsetOf(*I);
    IRValue *out = offset ? I->getOutput(0) : nullptr;
    if (!offset || !isAllocation(out) || acc.numWrites(out) != 1 ||
        acc.writtenAfter(rootOf(I->getInput(0)).root, acc.position(I))) {
      ++it;
      continue;
    }
    IRValue *in = I->getInput(0);
    Instruction *view = IR.insert(it, makeView(I->getName(), in, out->getType(), *offset));
    absorbLifetime(IR, rootOf(in).root, out);
    IR.replaceAllUsesWith(out, view);
    it = instrs.erase(it);
    changed = true;
  }
  if (changed)
    eraseUnusedAllocations(IR);
  return changed;
}

} // namespace ember
