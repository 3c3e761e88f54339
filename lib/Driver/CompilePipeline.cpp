// The shared compile pipeline up to the memory plan: see CompilePipeline.h.
#include "CompilePipeline.h"

#include "ember/Driver/ConstantEvaluator.h"
#include "ember/Graph/ControlFlow.h"
#include "ember/IR/IRGen.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/IROptimizer/MemoryPlan.h"
#include "ember/Support/Error.h"
#include "ember/Support/PhaseClock.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ember {

Expected<Function *> mainFunction(Module &M) {
  Function *F = M.getFunction(kMainFunctionName);
  if (!F && M.getFunctions().size() == 1)
    F = M.getFunctions().front().get();
  if (!F)
    return makeError("the module has no function to compile");
  return F;
}

namespace {

/// Profiling and quantizing (CompileOptions) act on the graph as the default optimization leaves
/// it, before lowering, so that the profile's names are those the quantizing compile sees.
Error quantizationStep(Function &F, const CompileOptions &opts, const OptimizerOptions &oo,
                       CompileSummary &summary) {
  if (!opts.instrumentForProfiling && !opts.quantizationProfile)
    return Error::success();
  EMBER_TRY(optimize(F, opts.pipeline.empty() ? defaultPipeline() : opts.pipeline, oo));
  if (opts.instrumentForProfiling) {
    summary.profiledValues = instrumentForProfiling(F);
    return Error::success();
  }
  EMBER_ASSIGN_OR_RETURN(summary.quantization,
                         quantizeFunction(F, *opts.quantizationProfile, opts.quantization));
  return withContext(F.verify(), "after quantization");
}

/// How many integer products the optimized graph runs (what fold-qdq made of the quantized
/// nodes).
std::string integerKernelCount(const Function &F) {
  unsigned conv = 0, matmul = 0;
  for (const auto &n : F.getNodes()) {
    conv += n->getKind() == NodeKind::IntegerConv;
    matmul += n->getKind() == NodeKind::IntegerMatMul;
  }
  return "integer kernels after optimization: " + std::to_string(conv) + " IntegerConv, " +
         std::to_string(matmul) + " IntegerMatMul";
}

} // namespace

Expected<std::unique_ptr<IRFunction>> compileToPlannedIR(Function &F, const Backend &B,
                                                         const CompileOptions &opts,
                                                         CompileSummary &summary) {
  summary.nodesBefore = F.size();
  PhaseClock clock(&summary.phaseMillis);
  {
    OptimizerOptions oo;
    oo.verifyEach = opts.verifyEach;
    oo.stats = &summary.passStats;
    oo.context.evaluateConstant = evaluateConstant;
    oo.context.shouldLower = [&B](const Node &n) { return B.shouldLower(n); };
    oo.dumpAfter = opts.dumpGraphAfter;
    oo.dumpStream = &outs();
    // The bodies of If and Loop first: each is a function of its own, optimized on its own
    // (their interface, BodyInput and BodyOutput, keeps its types through every pass).
    for (Function *body : nestedBodies(F))
      EMBER_TRY(withContext(optimizeForBackend(*body, opts.pipeline, oo),
                            "body '" + body->getName() + "'"));
    EMBER_TRY(quantizationStep(F, opts, oo, summary));
    EMBER_TRY(optimizeForBackend(F, opts.pipeline, oo));
    EMBER_TRY(withContext(F.verify(), "after graph optimization"));
  }
  clock.lap("graph optimization");
  if (opts.quantizationProfile)
    summary.quantization.lines.push_back(integerKernelCount(F));
  summary.nodesAfter = F.size();

  // Refuse with the full list of what the backend cannot run, bodies included.
  std::string unsupported;
  unsigned count = 0;
  std::vector<const Function *> functions{&F};
  for (Function *body : nestedBodies(F))
    functions.push_back(body);
  for (const Function *fn : functions)
  for (const auto &n : fn->getNodes())
    if (!B.isOpSupported(*n)) {
      ++count;
      unsupported += "\n  node '" + n->getName().str() + "' (" + n->getKindName().str() + ") " +
                     (n->getNumResults() ? n->getType().str()
                                         : n->getOperand(0).getType().str());
    }
  if (count)
    return makeError("backend " + B.getName() + " does not support " + Twine(count) +
                     " node(s):" + unsupported);
  clock.restart();
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<IRFunction> IR, generateIR(F));
  if (opts.verifyEach)
    EMBER_TRY(withContext(IR->verify(), "after IRGen"));
  clock.lap("IRGen");
  {
    IROptimizerOptions io;
    io.verifyEach = opts.verifyEach;
    io.stats = &summary.irPassStats;
    io.dumpAfter = opts.dumpIRAfter;
    io.dumpStream = &outs();
    EMBER_TRY(optimizeIR(*IR, opts.irPipeline ? *opts.irPipeline : defaultIRPipeline(), io));
    EMBER_TRY(withContext(IR->verify(), "after IR optimization"));
  }
  clock.lap("IR optimization");
  // The plan is checked by the memory verifier every time: it is cheap next to compiling.
  // Constants' layouts first: a kernel's path, and so its scratch, may follow its filter's
  // (the CPU backend's Winograd filters).
  EMBER_TRY(B.reserveConstants(*IR));
  for (const auto &I : IR->getInstrs())
    I->scratchSize = B.getScratchBytes(*I);
  EMBER_TRY(planMemory(*IR));
  clock.lap("memory plan");
  return std::move(IR);
}

} // namespace ember
