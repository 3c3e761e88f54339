#include "IRPasses.h"

#include "llvm/ADT/DenseSet.h"

using namespace llvm;

namespace ember {

AccessMap::AccessMap(IRFunction &IR) {
  unsigned pos = 0;
  for (auto &I : IR.getInstrs()) {
    pos_[I.get()] = pos;
    if (!isMemoryMarker(I->getKind()))
      for (const InstrOperand &op : I->getOperands())
        byRoot_[rootOf(op.value).root].push_back({pos, I.get(), op.value, op.mode});
    ++pos;
  }
}

ArrayRef<Access> AccessMap::of(const IRValue *root) const {
  auto it = byRoot_.find(root);
  return it == byRoot_.end() ? ArrayRef<Access>() : ArrayRef<Access>(it->second);
}

unsigned AccessMap::numWrites(const IRValue *root) const {
  unsigned n = 0;
  for (const Access &a : of(root))
    n += a.writes();
  return n;
}

bool AccessMap::writtenAfter(const IRValue *root, unsigned pos) const {
  for (const Access &a : of(root))
    if (a.pos > pos && a.writes())
      return true;
  return false;
}

bool AccessMap::readAfter(const IRValue *root, unsigned pos) const {
  for (const Access &a : of(root))
    if (a.pos > pos && a.reads())
      return true;
  return false;
}

unsigned AccessMap::lastAccess(const IRValue *root) const {
  ArrayRef<Access> a = of(root);
  return a.empty() ? 0 : a.back().pos;
}

std::unique_ptr<Instruction> makeView(StringRef name, IRValue *base, const Type &ty,
                                      uint64_t offset) {
  auto view = std::make_unique<Instruction>(InstrKind::TensorView, name,
                                            InstrOperand{base, OperandMode::In}, AttrList(), 0, ty);
  view->viewOffset = offset;
  return view;
}

void absorbLifetime(IRFunction &IR, IRValue *keep, IRValue *gone) {
  if (!isAllocation(keep) || !isAllocation(gone) || keep == gone)
    return;
  auto &instrs = IR.getInstrs();
  using It = IRFunction::InstrList::iterator;
  It allocKeep = instrs.end(), allocGone = instrs.end(), freeKeep = instrs.end(),
     freeGone = instrs.end();
  DenseMap<const Instruction *, unsigned> pos;
  unsigned n = 0;
  for (It it = instrs.begin(); it != instrs.end(); ++it) {
    Instruction *I = it->get();
    pos[I] = n++;
    if (I == keep)
      allocKeep = it;
    else if (I == gone)
      allocGone = it;
    else if (I->getKind() == InstrKind::DeallocActivation) {
      if (I->getOperand(0) == keep)
        freeKeep = it;
      else if (I->getOperand(0) == gone)
        freeGone = it;
    }
  }
  assert(allocKeep != instrs.end() && allocGone != instrs.end() && "allocations not in the list");
  if (pos[allocGone->get()] < pos[allocKeep->get()])
    instrs.splice(allocGone, instrs, allocKeep);
  if (freeKeep != instrs.end() && freeGone != instrs.end() &&
      pos[freeGone->get()] > pos[freeKeep->get()])
    instrs.splice(std::next(freeGone), instrs, freeKeep);
}

bool eraseUnusedAllocations(IRFunction &IR) {
  auto &instrs = IR.getInstrs();
  bool changed = false, erased = true;
  // Views first, repeatedly: a view used only by an unused view is unused too.
  while (erased) {
    erased = false;
    DenseSet<const IRValue *> used;
    for (auto &I : instrs)
      if (I->getKind() != InstrKind::DeallocActivation)
        for (const InstrOperand &op : I->getOperands())
          used.insert(op.value);
    for (auto it = instrs.begin(); it != instrs.end();) {
      const Instruction *I = it->get();
      bool unused = !used.count(I) && (I->getKind() == InstrKind::TensorView ||
                                       I->getKind() == InstrKind::AllocActivation);
      bool deallocOfUnused =
          I->getKind() == InstrKind::DeallocActivation && !used.count(I->getOperand(0));
      if (unused || deallocOfUnused) {
        it = instrs.erase(it);
        erased = changed = true;
      } else {
        ++it;
      }
    }
  }
  return changed;
}

} // namespace ember
