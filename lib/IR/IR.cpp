// The IR's values and functions: storage roots and regions through views, the in-place rule,
// and editing a function's instruction list.
#include "ember/IR/IR.h"

using namespace llvm;

namespace ember {

MemRegion regionOf(const IRValue *v) {
  while (isTensorView(v))
    v = cast<Instruction>(v)->getOperand(0);
  if (auto *w = dyn_cast<WeightVar>(v))
    return w->getRegion();
  return MemRegion::Activations;
}

ValueRoot rootOf(IRValue *v) {
  uint64_t offset = 0;
  while (isTensorView(v)) {
    offset += cast<Instruction>(v)->viewOffset;
    v = cast<Instruction>(v)->getOperand(0);
  }
  return {v, offset};
}

bool isMemoryMarker(InstrKind k) {
  return k == InstrKind::AllocActivation || k == InstrKind::DeallocActivation ||
         k == InstrKind::TensorView;
}

bool canWriteInPlace(const Instruction &I, unsigned input) {
  NodeKind nk;
  // Element-wise (Nodes.def's category): result element i reads element i of each operand
  // (operands have the result's dims), so the result may overwrite an operand.
  return nodeKindFor(I.getKind(), nk) && isElementwise(nk) && I.getNumOutputs() == 1 &&
         input < I.getNumInputs() && I.getInput(input)->getType() == I.getOutput(0)->getType();
}

WeightVar *IRFunction::createWeightVar(const Node *storage) {
  weights_.push_back(std::make_unique<WeightVar>(storage));
  weightOf_[storage] = weights_.back().get();
  return weights_.back().get();
}

Instruction *IRFunction::append(std::unique_ptr<Instruction> instr) {
  instrs_.push_back(std::move(instr));
  return instrs_.back().get();
}

Instruction *IRFunction::insert(InstrList::iterator before, std::unique_ptr<Instruction> instr) {
  return instrs_.insert(before, std::move(instr))->get();
}

bool IRFunction::hasControlFlow() const {
  for (const auto &I : instrs_)
    if (I->getKind() == InstrKind::IfBegin || I->getKind() == InstrKind::LoopBegin)
      return true;
  return false;
}

void IRFunction::replaceAllUsesWith(IRValue *from, IRValue *to) {
  for (auto &I : instrs_) {
    if (I->getKind() == InstrKind::DeallocActivation)
      continue;
    for (unsigned i = 0; i < I->getNumOperands(); ++i)
      if (I->getOperand(i) == from)
        I->setOperand(i, to);
  }
}

} // namespace ember
