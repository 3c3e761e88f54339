#include "ember/IROptimizer/IROptimizer.h"
#include "IRPasses.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ember {

namespace {

const PassRegistry<IRPass> &registry() {
  static const PassRegistry<IRPass> passes({
#define IR_PASS(FN, NAME, DEFAULT, DOC) {NAME, DOC, DEFAULT, FN},
#include "ember/IROptimizer/IRPasses.def"
  });
  return passes;
}

} // namespace

const std::vector<IRPass> &getIRPasses() { return registry().passes(); }

const IRPass *findIRPass(StringRef name) { return registry().find(name); }

std::vector<std::string> defaultIRPipeline() { return registry().defaultPipeline(); }

Error optimizeIR(IRFunction &IR, const std::vector<std::string> &pipeline,
                 const IROptimizerOptions &opts) {
  const PassRegistry<IRPass> &passes = registry();
  PassUnit unit{[&] { return IR.getInstrs().size(); }, [&](raw_ostream &os) { IR.dump(os); },
                [&] { return IR.verify(); }};
  // Once, in order: the IR passes are arranged so that each sets up the next (views before
  // in-place writes, lifetimes shrunk last), and none undoes another's work.
  return runPassPipeline(passes.names(), pipeline,
                         [&](size_t i) {
                           // The passes that move writes, lifetimes or buffers reason about
                           // straight-line code: in a function with control-flow regions an
                           // earlier instruction may run after a later one (a loop), or not at
                           // all (a branch). Until they learn regions, such functions keep
                           // IRGen's buffers, which are sound as they are (IR.h).
                           const IRPass &pass = passes.passes()[i];
                           if (IR.hasControlFlow() && pass.run != markReadOnly)
                             return false;
                           return pass.run(IR);
                         },
                         unit, opts,
                         PassManagerStyle{"IR pass", "-dump-ir-after", "IR pass", 1});
}

} // namespace ember
