#include "KernelTable.h"

#include "ember/Graph/ControlFlow.h"

#include <cassert>

namespace ember {
namespace opencl {

KernelTable::KernelTable() {
  addElementwiseKernels(*this);
  addDataMovementKernels(*this);
  addNNKernels(*this);
  addNormalizationKernels(*this);
  addReduceKernels(*this);
  addQuantizedKernels(*this);
  addIndexedKernels(*this);
  addSelectionKernels(*this);
  addRecurrentKernels(*this);
  addLossKernels(*this);
}

void KernelTable::add(NodeKind k, SupportsFn s, PlanFn p, ScratchFn scratch) {
  size_t i = size_t(k);
  if (i >= entries_.size())
    entries_.resize(i + 1);
  assert(!entries_[i].plan && "a node kind registered by two families");
  entries_[i] = KernelEntry{s, p, scratch};
}

const KernelEntry *KernelTable::lookup(NodeKind k) const {
  size_t i = size_t(k);
  if (i >= entries_.size() || !entries_[i].plan)
    return nullptr;
  return &entries_[i];
}

const KernelEntry *KernelTable::lookup(const Instruction &I) const {
  // A graph's Save becomes a Copy (IRGen), which no node kind names.
  if (I.getKind() == InstrKind::Copy)
    return lookup(NodeKind::Save);
  NodeKind nk;
  return nodeKindFor(I.getKind(), nk) ? lookup(nk) : nullptr;
}

const KernelTable &kernelTable() {
  static const KernelTable table;
  return table;
}

bool hasKernel(const Node &n) {
  if (n.getKind() == NodeKind::Placeholder || n.getKind() == NodeKind::Constant)
    return true;
  // Control flow becomes the host's control steps (ControlFlow.cpp); the driver checks the
  // bodies' nodes one by one.
  if (isControlFlowNode(n.getKind()))
    return true;
  const KernelEntry *e = kernelTable().lookup(n.getKind());
  return e && e->supports(n);
}

uint64_t scratchBytes(const Instruction &I) {
  const KernelEntry *e = kernelTable().lookup(I);
  return e && e->scratch ? e->scratch(I) : 0;
}

} // namespace opencl
} // namespace ember
