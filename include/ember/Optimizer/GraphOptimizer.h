// The graph optimizer: named passes run from a pipeline that is data.
#ifndef EMBER_OPTIMIZER_GRAPHOPTIMIZER_H
#define EMBER_OPTIMIZER_GRAPHOPTIMIZER_H

#include "ember/Graph/Graph.h"
#include "ember/Support/PassManager.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace ember {

/// What a pass may ask of the rest of the compiler, passed in so the optimizer depends on
/// neither the backends nor the Interpreter.
struct PassContext {
  /// Evaluates a value computed from Constants only (the driver runs it on the Interpreter).
  /// Constant folding does nothing without it.
  std::function<llvm::Expected<Tensor>(NodeValue)> evaluateConstant;
  /// The backend's wish to see a node expanded into simpler ones (lowering); none by default.
  std::function<bool(const Node &)> shouldLower;
};

/// A graph pass: rewrites \p F and returns whether it changed anything.
struct GraphPass {
  const char *name;
  const char *description;
  bool inDefaultPipeline;
  bool (*run)(Function &F, const PassContext &ctx);
};

/// All registered passes.
const std::vector<GraphPass> &getGraphPasses();
const GraphPass *findGraphPass(llvm::StringRef name);

/// The hooks around each pass (PassManager.h), and what passes may ask of the compiler.
struct OptimizerOptions : PassRunOptions {
  PassContext context;
};

/// The default pipeline's pass names, in order: the passes before lowering.
std::vector<std::string> defaultPipeline();

/// The passes run after `lower`, in order: the default ones that only simplify. See
/// Passes.def for why the passes that build compound kinds are not among them.
std::vector<std::string> postLoweringPipeline();

/// Runs \p pipeline over \p F until no pass changes anything (at most a few rounds).
llvm::Error optimize(Function &F, const std::vector<std::string> &pipeline,
                     const OptimizerOptions &opts = {});

/// What the driver runs for a backend, as Glow does: \p pipeline (the default one when empty),
/// then `lower` until nothing is left that the backend asked to lower (opts.context.shouldLower),
/// then, for the default pipeline only, the post-lowering pipeline to clean up what lowering
/// built. A pipeline that names `lower` itself runs exactly as given.
llvm::Error optimizeForBackend(Function &F, const std::vector<std::string> &pipeline,
                               const OptimizerOptions &opts);

} // namespace ember

#endif
