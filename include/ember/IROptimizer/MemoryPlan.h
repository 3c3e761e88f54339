// The static memory plan: every WeightVar and activation gets a fixed, 64-byte aligned offset in
// one of three regions (constant weights, mutable inputs/outputs, activations); views get their
// base's offset plus their own. Bundles and the JIT use exactly this plan.
#ifndef EMBER_IROPTIMIZER_MEMORYPLAN_H
#define EMBER_IROPTIMIZER_MEMORYPLAN_H

#include "ember/IR/IR.h"

namespace ember {

/// Lays out constants and placeholders one after another in their regions, and activations by
/// packing their live intervals (allocation to deallocation; IntervalPacking.h), so buffers
/// whose lifetimes do not overlap share memory. Sets each value's offset, the IRFunction's
/// region sizes and its activation statistics, then checks the result (verifyMemoryPlan).
llvm::Error planMemory(IRFunction &IR);

/// The memory verifier, on planned addresses: every value placed, aligned and inside its region,
/// every view inside its base; no two activations live at the same time overlap; within one
/// instruction, an output overlaps an input only as a legal in-place write (the same bytes,
/// @inout, an element-wise kind) and never another output; every byte an instruction reads was
/// written before (inputs and constants count as written; activations lose their bytes when
/// freed); and every output placeholder is written in full by the end.
llvm::Error verifyMemoryPlan(const IRFunction &IR);

} // namespace ember

#endif
