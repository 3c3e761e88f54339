// shrink-lifetimes: every activation is allocated right before the first instruction that
// touches it (through any view) and freed right after the last one; views are defined right
// after their base. IRGen already frees at the last use, but the other passes move accesses
// between storages (views, in-place writes, concat inputs) and only ever stretch lifetimes;
// this pass makes them tight again, so the memory plan sees the true live intervals. Storages
// nothing touches are dropped.
#include "IRPasses.h"

#include "llvm/ADT/MapVector.h"

using namespace llvm;

namespace ember {

bool shrinkLifetimes(IRFunction &IR) {
  auto &instrs = IR.getInstrs();
  // What the list looked like, to tell whether anything moved (deallocations are made anew, so
  // they are compared by what they free).
  auto signature = [&] {
    std::vector<const IRValue *> sig;
    for (auto &I : instrs)
      sig.push_back(I->getKind() == InstrKind::DeallocActivation ? I->getOperand(0) : I.get());
    return sig;
  };
  std::vector<const IRValue *> before = signature();
  IRFunction::InstrList old;
  old.splice(old.end(), instrs);

  // Pull the markers out; keep the computing instructions in order.
  IRFunction::InstrList computing;
  MapVector<Instruction *, std::unique_ptr<Instruction>> allocs; // in their old order
  std::vector<std::unique_ptr<Instruction>> views;
  for (auto &I : old) {
    switch (I->getKind()) {
    case InstrKind::AllocActivation: {
      Instruction *key = I.get();
      allocs.insert({key, std::move(I)});
      break;
    }
    case InstrKind::TensorView:
      views.push_back(std::move(I));
      break;
    case InstrKind::DeallocActivation:
      break; // made anew
    default:
      computing.push_back(std::move(I));
    }
  }

  // First and last computing instruction per storage.
  DenseMap<const IRValue *, std::pair<unsigned, unsigned>> span;
  unsigned pos = 0;
  for (auto &I : computing) {
    for (const InstrOperand &op : I->getOperands()) {
      const IRValue *root = rootOf(op.value).root;
      auto [it, fresh] = span.try_emplace(root, pos, pos);
      if (!fresh)
        it->second.second = pos;
    }
    ++pos;
  }

  // Views in dependency order after their base: repeatedly place the views whose base is placed.
  DenseMap<const IRValue *, SmallVector<std::unique_ptr<Instruction>, 2>> viewsOf;
  for (auto &V : views)
    viewsOf[V->getOperand(0)].push_back(std::move(V));
  auto emitWithViews = [&](auto &self, std::unique_ptr<Instruction> V) -> void {
    Instruction *v = V.get();
    instrs.push_back(std::move(V));
    auto it = viewsOf.find(v);
    if (it == viewsOf.end())
      return;
    auto children = std::move(it->second);
    viewsOf.erase(it);
    for (auto &C : children)
      self(self, std::move(C));
  };
  // Views of weights first: weights live throughout.
  for (const auto &w : IR.getWeights()) {
    auto it = viewsOf.find(w.get());
    if (it == viewsOf.end())
      continue;
    auto children = std::move(it->second);
    viewsOf.erase(it);
    for (auto &C : children)
      emitWithViews(emitWithViews, std::move(C));
  }

  std::vector<SmallVector<Instruction *, 2>> allocBefore(pos), freeAfter(pos);
  bool dropped = false;
  for (auto &[key, A] : allocs) {
    auto it = span.find(key);
    if (it == span.end()) {
      dropped = true;
      continue;
    }
    allocBefore[it->second.first].push_back(key);
    freeAfter[it->second.second].push_back(key);
  }
  pos = 0;
  for (auto &I : computing) {
    for (Instruction *a : allocBefore[pos])
      emitWithViews(emitWithViews, std::move(allocs[a]));
    instrs.push_back(std::move(I));
    for (Instruction *a : freeAfter[pos])
      instrs.push_back(std::make_unique<Instruction>(InstrKind::DeallocActivation,
                                                     a->getName().str() + ".dealloc",
                                                     InstrOperand{a, OperandMode::Out},
                                                     AttrList(), 0));
    ++pos;
  }
  // Whatever is left are views of dropped storages and the dropped allocations; they die here
  // with `allocs`, `viewsOf` and `old`. Unused views of kept storages go too.
  eraseUnusedAllocations(IR);
  return dropped || signature() != before;
}

} // namespace ember
