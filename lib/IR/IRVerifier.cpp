// The IR verifier (IRFunction::verify): liveness, views, operand modes, bytes read before
// written, in-place writes, control-flow regions, and types through the node kinds' shape rules.
#include "ember/IR/IR.h"
#include "ember/IR/ByteRanges.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/DenseSet.h"

using namespace llvm;

namespace ember {

/// The operands of a control-flow instruction, and its place: \p open is the marker that opened
/// the innermost region around it (IfBegin, IfElse or LoopBegin), null outside every region.
static Error verifyControlInstr(const Instruction &I, const Instruction *open) {
  auto is = [](const IRValue *v, const Type &t) { return v->getType() == t; };
  const Type i64(ElemKind::Int64, {}), boolean(ElemKind::Bool, {});
  InstrKind openKind = open ? open->getKind() : InstrKind::Copy;
  switch (I.getKind()) {
  case InstrKind::IfBegin:
    if (I.getNumOperands() != 1 || I.getNumOutputs() != 0 ||
        I.getOperand(0)->getType().kind != ElemKind::Bool ||
        I.getOperand(0)->getType().numElements() != 1)
      return makeError("takes one @in operand, a bool condition of one element");
    return Error::success();
  case InstrKind::IfElse:
    if (I.getNumOperands())
      return makeError("takes no operands");
    if (openKind != InstrKind::IfBegin)
      return makeError("is not the else of an open if");
    return Error::success();
  case InstrKind::IfEnd:
    if (I.getNumOperands())
      return makeError("takes no operands");
    if (openKind != InstrKind::IfElse)
      return makeError("does not end an if whose else came");
    return Error::success();
  case InstrKind::LoopBegin:
    if (I.getNumOperands() != 3 || I.getNumOutputs() != 1 || !is(I.getOperand(0), i64) ||
        !is(I.getOperand(1), i64) || !is(I.getOperand(2), boolean) ||
        !I.getAttrs().has(AttrKind::MaxTripCount))
      return makeError("takes @out iter (int64 scalar), @in tripCount (int64 scalar), @in cond "
                       "(bool scalar) and MaxTripCount");
    return Error::success();
  case InstrKind::LoopEnd:
    if (I.getNumOperands() != 1 || I.getNumOutputs() != 1)
      return makeError("takes @inout iter");
    if (openKind != InstrKind::LoopBegin || open->getOperand(0) != I.getOperand(0))
      return makeError("does not end the innermost loop with its iteration number");
    return Error::success();
  case InstrKind::StoreIteration: {
    if (I.getNumOperands() != 3 || I.getNumOutputs() != 1 || !is(I.getOperand(2), i64))
      return makeError("takes @inout dest, @in value, @in iter (int64 scalar)");
    if (openKind != InstrKind::LoopBegin || open->getOperand(0) != I.getOperand(2))
      return makeError("stores by the iteration number of a loop it is not directly in");
    const Type &dest = I.getOperand(0)->getType(), &value = I.getOperand(1)->getType();
    if (dest.kind != value.kind || dest.rank() != value.rank() + 1 ||
        ArrayRef<dim_t>(dest.dims).drop_front() != ArrayRef<dim_t>(value.dims))
      return makeError("stores " + value.str() + " as a slice of " + dest.str());
    if (int64_t(dest.dims[0]) < open->attr<AttrKind::MaxTripCount>())
      return makeError("its loop may run more iterations than " + dest.str() + " holds");
    return Error::success();
  }
  default:
    return makeError("is not a control-flow instruction");
  }
}

Error IRFunction::verify() const {
  Error errs = Error::success();
  DenseSet<const IRValue *> live, dead, known;
  // Which bytes of each storage (WeightVar or allocation) hold data written before.
  DenseMap<const IRValue *, ByteRanges> written;
  for (const auto &w : weights_) {
    known.insert(w.get());
    // Inputs and constants hold data before the first instruction runs.
    written[w.get()].add(0, w->sizeInBytes());
  }
  // Open control-flow regions, innermost last: the marker that opened each and the region's
  // id, and where each live allocation was made (0: outside every region).
  struct OpenRegion {
    const Instruction *opener;
    unsigned id;
  };
  SmallVector<OpenRegion, 4> regions;
  unsigned nextRegionId = 1;
  DenseMap<const IRValue *, unsigned> allocRegion;
  auto currentRegion = [&] { return regions.empty() ? 0u : regions.back().id; };
  unsigned index = 0;
  for (const auto &I : instrs_) {
    auto fail = [&](const Twine &why) {
      errs = joinErrors(std::move(errs), makeError("instruction " + Twine(index) + " '" +
                                                   I->getName() + "' (" + I->getKindName() +
                                                   "): " + why));
    };
    // A value is usable while its storage is: known, and not deallocated.
    auto usable = [&](IRValue *v) {
      return known.count(v) && !dead.count(rootOf(v).root);
    };
    switch (I->getKind()) {
    case InstrKind::AllocActivation:
      if (I->getNumOperands() != 0)
        fail("takes no operands");
      live.insert(I.get());
      known.insert(I.get());
      allocRegion[I.get()] = currentRegion();
      break;
    case InstrKind::DeallocActivation: {
      const auto *alloc = dyn_cast<Instruction>(I->getOperand(0));
      if (!alloc || alloc->getKind() != InstrKind::AllocActivation)
        fail("deallocates something that is not an allocation");
      else if (!live.erase(alloc))
        fail("deallocates '" + alloc->getName() + "', which is not live");
      else if (allocRegion.lookup(alloc) != currentRegion())
        fail("deallocates '" + alloc->getName() +
             "' in another control-flow region than the one that allocates it");
      else {
        dead.insert(alloc);
        written.erase(alloc);
      }
      break;
    }
    case InstrKind::TensorView: {
      if (I->getNumOperands() != 1 || I->getOperands()[0].mode != OperandMode::In) {
        fail("takes one @in operand, its base");
        break;
      }
      IRValue *base = I->getOperand(0);
      if (!usable(base))
        fail("base '" + base->getName() + "' is not live here");
      else if (I->viewOffset + I->sizeInBytes() > base->sizeInBytes())
        fail("bytes [" + Twine(I->viewOffset) + ", " + Twine(I->viewOffset + I->sizeInBytes()) +
             ") lie outside base '" + base->getName() + "' of " + Twine(base->sizeInBytes()) +
             " bytes");
      known.insert(I.get());
      break;
    }
    default: {
      bool operandsOk = true;
      for (unsigned i = 0; i < I->getNumOperands(); ++i) {
        const InstrOperand &op = I->getOperands()[i];
        if (!usable(op.value)) {
          fail("operand '" + op.value->getName() + "' is not live here");
          operandsOk = false;
          continue;
        }
        bool isOutput = i < I->getNumOutputs();
        if (isOutput == (op.mode == OperandMode::In))
          fail("operand " + Twine(i) + " '" + op.value->getName() + "' is " +
               operandModeName(op.mode) + " but is an " + (isOutput ? "output" : "input"));
        ValueRoot r = rootOf(op.value);
        if (auto *w = dyn_cast<WeightVar>(r.root))
          if ((w->isConstant() || w->readOnly) && op.mode != OperandMode::In)
            fail("writes read-only weight '" + w->getName() + "'");
        // A scan output is written one iteration's slice at a time.
        bool partialWrite = I->getKind() == InstrKind::StoreIteration && i == 0;
        if (op.mode != OperandMode::Out && !partialWrite &&
            !written[r.root].contains(r.offset, r.offset + op.value->sizeInBytes()))
          fail("reads '" + op.value->getName() + "' before anything writes it");
        if (op.mode == OperandMode::InOut && !partialWrite &&
            I->getKind() != InstrKind::LoopEnd) {
          bool legal = false;
          for (unsigned j = 0; j < I->getNumInputs(); ++j)
            legal |= I->getInput(j) == op.value && canWriteInPlace(*I, j);
          if (!legal)
            fail("overwrites '" + op.value->getName() +
                 "' in place, which only an element-wise result may do over an input of its type");
        }
      }
      if (!operandsOk)
        break;
      for (const InstrOperand &op : I->getOperands())
        if (op.mode != OperandMode::In) {
          ValueRoot r = rootOf(op.value);
          written[r.root].add(r.offset, r.offset + op.value->sizeInBytes());
        }
      if (I->getKind() == InstrKind::Copy) {
        if (I->getNumOperands() != 2 || I->getOperand(0)->getType() != I->getOperand(1)->getType())
          fail("copies between different types");
        break;
      }
      if (isControlMarker(I->getKind()) || I->getKind() == InstrKind::StoreIteration) {
        if (Error e = verifyControlInstr(*I, regions.empty() ? nullptr : regions.back().opener))
          fail(errorToString(std::move(e)));
        switch (I->getKind()) {
        case InstrKind::IfBegin:
        case InstrKind::LoopBegin:
          regions.push_back({I.get(), nextRegionId++});
          break;
        case InstrKind::IfElse:
          if (!regions.empty()) {
            regions.back() = {I.get(), nextRegionId++};
            break;
          }
          break;
        case InstrKind::IfEnd:
        case InstrKind::LoopEnd:
          if (!regions.empty())
            regions.pop_back();
          break;
        default:
          break;
        }
        break;
      }
      NodeKind nk;
      if (!nodeKindFor(I->getKind(), nk)) {
        fail("unknown instruction kind");
        break;
      }
      // Type-check through the node kind's shape rule: one rule for graph and IR.
      const NodeInfo &info = getNodeInfo(nk);
      if (I->getNumOutputs() != info.resultNames.size()) {
        fail("has " + Twine(I->getNumOutputs()) + " outputs, " + info.name + " has " +
             Twine(info.resultNames.size()));
        break;
      }
      SmallVector<std::unique_ptr<Placeholder>, 4> stand;
      SmallVector<NodeValue, 4> operands;
      for (unsigned i = 0; i < I->getNumInputs(); ++i) {
        stand.push_back(std::make_unique<Placeholder>("in", I->getInput(i)->getType()));
        operands.push_back(NodeValue(stand.back().get()));
      }
      auto types = inferResultTypes(nk, operands, I->getAttrs());
      if (!types) {
        fail(errorToString(types.takeError()));
        break;
      }
      for (unsigned r = 0; r < I->getNumOutputs(); ++r)
        if ((*types)[r] != I->getOutput(r)->getType())
          fail("output " + Twine(r) + " has type " + I->getOutput(r)->getType().str() +
               ", the operands imply " + (*types)[r].str());
    }
    }
    ++index;
  }
  for (const IRValue *v : live)
    errs = joinErrors(std::move(errs),
                      makeError("activation '" + v->getName() + "' is never deallocated"));
  if (!regions.empty())
    errs = joinErrors(std::move(errs), makeError("control-flow region opened by '" +
                                                 regions.back().opener->getName() +
                                                 "' is never closed"));
  return errs;
}

} // namespace ember
