// The IR optimizer: named passes over the instruction list, run from a pipeline that is data,
// in the style of the graph optimizer. Passes make buffers few (views, in-place writes, copy
// elimination) and lifetimes short; the memory plan (MemoryPlan.h) then places what is left.
#ifndef EMBER_IROPTIMIZER_IROPTIMIZER_H
#define EMBER_IROPTIMIZER_IROPTIMIZER_H

#include "ember/IR/IR.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

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

struct IRPassStats {
  std::string pass;
  size_t instrsBefore = 0, instrsAfter = 0;
  bool changed = false;
  double millis = 0;
};

struct IROptimizerOptions {
  /// Verify the IR after every pass.
  bool verifyEach = false;
  std::vector<IRPassStats> *stats = nullptr;
  /// Print the IR after each pass named here ("all" for every pass) to dumpStream.
  std::vector<std::string> dumpAfter;
  llvm::raw_ostream *dumpStream = nullptr;
};

/// Runs \p pipeline over \p IR once, in order.
llvm::Error optimizeIR(IRFunction &IR, const std::vector<std::string> &pipeline,
                       const IROptimizerOptions &opts = {});

} // namespace ember

#endif
