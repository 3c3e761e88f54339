// The IR optimizer: named passes over the instruction list, run from a pipeline that is data by
// the pass manager the graph optimizer uses too (Support/PassManager.h). Passes make buffers few
// (views, in-place writes, copy elimination) and lifetimes short; the memory plan
// (MemoryPlan.h) then places what is left.
#ifndef EMBER_IROPTIMIZER_IROPTIMIZER_H
#define EMBER_IROPTIMIZER_IROPTIMIZER_H

#include "ember/IR/IR.h"
#include "ember/Support/PassManager.h"

#include <string>
#include <vector>

namespace ember {

struct IRPass {
  const char *name;
  const char *description;
  bool inDefaultPipeline;
  bool (*run)(IRFunction &IR);
};

const std::vector<IRPass> &getIRPasses();
const IRPass *findIRPass(llvm::StringRef name);
std::vector<std::string> defaultIRPipeline();

/// One IR pass run (-print-pass-stats): instructions before and after.
using IRPassStats = PassStats;

/// -verify-each, -dump-ir-after and -print-pass-stats (PassManager.h).
using IROptimizerOptions = PassRunOptions;

/// Runs \p pipeline over \p IR once, in order.
llvm::Error optimizeIR(IRFunction &IR, const std::vector<std::string> &pipeline,
                       const IROptimizerOptions &opts = {});

} // namespace ember

#endif
