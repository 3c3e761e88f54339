#include "ember/Optimizer/GraphOptimizer.h"
#include "Passes.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

const std::vector<GraphPass> &getGraphPasses() {
  static const std::vector<GraphPass> passes = {
      {"dce", "remove nodes no output depends on, and unused constants", runDCE},
  };
  return passes;
}

const GraphPass *findGraphPass(StringRef name) {
  for (const GraphPass &p : getGraphPasses())
    if (name == p.name)
      return &p;
  return nullptr;
}

std::vector<std::string> defaultPipeline() { return {"dce"}; }

Error optimize(Function &F, const std::vector<std::string> &pipeline,
               const OptimizerOptions &opts) {
  std::vector<const GraphPass *> passes;
  for (const std::string &name : pipeline) {
    const GraphPass *p = findGraphPass(name);
    if (!p)
      return makeError("unknown graph pass '" + name + "'");
    passes.push_back(p);
  }
  constexpr unsigned kMaxRounds = 8;
  for (unsigned round = 0; round < kMaxRounds; ++round) {
    bool changed = false;
    for (const GraphPass *p : passes) {
      size_t before = F.size();
      bool c = p->run(F);
      changed |= c;
      if (opts.stats)
        opts.stats->push_back({p->name, before, F.size(), c});
      if (opts.verifyEach)
        EMBER_TRY(withContext(F.verify(), Twine("after pass '") + p->name + "'"));
    }
    if (!changed)
      break;
  }
  return Error::success();
}

} // namespace ember
