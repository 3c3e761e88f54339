// The static memory plan: every WeightVar and activation gets a fixed, 64-byte aligned offset in
// one of three regions (constant weights, mutable inputs/outputs, activations).
#ifndef EMBER_IROPTIMIZER_MEMORYPLAN_H
#define EMBER_IROPTIMIZER_MEMORYPLAN_H

#include "ember/IR/IR.h"

namespace ember {

/// Lays out constants and placeholders one after another in their regions, and activations by
/// first fit over their live intervals (allocation to deallocation), so buffers whose lifetimes
/// do not overlap share memory. Sets each value's offset and the IRFunction's region sizes.
llvm::Error planMemory(IRFunction &IR);

/// Checks the plan: every value placed and aligned, inside its region, and no two activations
/// that are live at the same time overlap.
llvm::Error verifyMemoryPlan(const IRFunction &IR);

} // namespace ember

#endif
