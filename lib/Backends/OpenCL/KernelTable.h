// The OpenCL backend's dispatch: a row per node kind, registered by the family file that plans
// it (Launches<Family>.cpp), with the shape of the CPU backend's KernelTable (CPU/CodeGen.h):
// whether the kernels run a node, how an instruction of the kind becomes launches, and the
// scratch memory those need.
#ifndef EMBER_LIB_BACKENDS_OPENCL_KERNELTABLE_H
#define EMBER_LIB_BACKENDS_OPENCL_KERNELTABLE_H

#include "LaunchBuilder.h"

#include <vector>

namespace ember {
namespace opencl {

/// Whether the kernels run \p n (its element kinds and attributes); the row says its kind.
using SupportsFn = bool (*)(const Node &);
/// Plans \p I's launches; false when none fits it (the caller's "no OpenCL kernel").
using PlanFn = llvm::Expected<bool> (*)(LaunchBuilder &, const Instruction &);
/// Bytes of scratch memory \p I's launches need (Backend::getScratchBytes).
using ScratchFn = uint64_t (*)(const Instruction &);
struct KernelEntry {
  SupportsFn supports = nullptr;
  PlanFn plan = nullptr;
  ScratchFn scratch = nullptr;
};

/// The table of every node kind's entry, indexed by NodeKind.
class KernelTable {
  std::vector<KernelEntry> entries_;

public:
  KernelTable();
  void add(NodeKind k, SupportsFn s, PlanFn p, ScratchFn scratch = nullptr);
  /// Null when the backend has no kernel for \p k.
  const KernelEntry *lookup(NodeKind k) const;
  /// The entry of \p I's node kind (a Copy: Save's); null for the instructions of no node kind
  /// and the kinds without a kernel.
  const KernelEntry *lookup(const Instruction &I) const;
};
const KernelTable &kernelTable();

// The families' registrations (Launches<Family>.cpp); each registers its parts' rows too.
void addElementwiseKernels(KernelTable &t);
void addDataMovementKernels(KernelTable &t);
void addNNKernels(KernelTable &t);
void addNormalizationKernels(KernelTable &t);
void addReduceKernels(KernelTable &t);
void addQuantizedKernels(KernelTable &t);
void addIndexedKernels(KernelTable &t);
void addSelectionKernels(KernelTable &t);
void addRecurrentKernels(KernelTable &t);
void addLossKernels(KernelTable &t);

} // namespace opencl
} // namespace ember

#endif
