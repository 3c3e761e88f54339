#include "ember/Optimizer/GraphOptimizer.h"
#include "Passes.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ember {

namespace {

const PassRegistry<GraphPass> &registry() {
  static const PassRegistry<GraphPass> passes({
#define PASS(NAME, FN, DEFAULT, DOC) {NAME, DOC, DEFAULT, FN},
#include "ember/Optimizer/Passes.def"
  });
  return passes;
}

/// Rounds of the pipeline at most: enough for the rewrites that enable one another (a fold
/// exposing a fusion) to settle, few enough that a pair undoing each other cannot hang.
constexpr unsigned kMaxRounds = 8;

} // namespace

const std::vector<GraphPass> &getGraphPasses() { return registry().passes(); }

const GraphPass *findGraphPass(StringRef name) { return registry().find(name); }

std::vector<std::string> defaultPipeline() { return registry().defaultPipeline(); }

std::vector<std::string> postLoweringPipeline() {
  return {
#define PASS(NAME, FN, DEFAULT, DOC)
#define POST_LOWERING(NAME) NAME,
#include "ember/Optimizer/Passes.def"
  };
}

Error optimize(Function &F, const std::vector<std::string> &pipeline,
               const OptimizerOptions &opts) {
  const PassRegistry<GraphPass> &passes = registry();
  PassUnit unit{[&] { return F.size(); }, [&](raw_ostream &os) { F.dump(os); },
                [&] { return F.verify(); }};
  return runPassPipeline(
      passes.names(), pipeline,
      [&](size_t i) { return passes.passes()[i].run(F, opts.context); }, unit, opts,
      PassManagerStyle{"graph pass", "-dump-graph-after", "pass", kMaxRounds});
}

Error optimizeForBackend(Function &F, const std::vector<std::string> &pipeline,
                         const OptimizerOptions &opts) {
  if (llvm::is_contained(pipeline, "lower"))
    return optimize(F, pipeline, opts);
  EMBER_TRY(optimize(F, pipeline.empty() ? defaultPipeline() : pipeline, opts));
  // Lowering is not optional: a backend may run only the kinds it lowers to. A lowering may
  // produce a kind the backend lowers too, hence the repetition until nothing changes.
  EMBER_TRY(optimize(F, {"lower"}, opts));
  // An explicit pipeline is what its caller asked for (tests keep constant folding away this
  // way); only the default one is followed by the clean-up.
  if (pipeline.empty())
    return optimize(F, postLoweringPipeline(), opts);
  return Error::success();
}

} // namespace ember
