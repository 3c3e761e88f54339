#include "ember/Optimizer/GraphOptimizer.h"
#include "Passes.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace llvm;

namespace ember {

const std::vector<GraphPass> &getGraphPasses() {
  static const std::vector<GraphPass> passes = {
#define PASS(NAME, FN, DEFAULT, DOC) {NAME, DOC, DEFAULT, FN},
#include "ember/Optimizer/Passes.def"
  };
  return passes;
}

const GraphPass *findGraphPass(StringRef name) {
  for (const GraphPass &p : getGraphPasses())
    if (name == p.name)
      return &p;
  return nullptr;
}

std::vector<std::string> defaultPipeline() {
  std::vector<std::string> names;
  for (const GraphPass &p : getGraphPasses())
    if (p.inDefaultPipeline)
      names.push_back(p.name);
  return names;
}

Error optimize(Function &F, const std::vector<std::string> &pipeline,
               const OptimizerOptions &opts) {
  std::vector<const GraphPass *> passes;
  for (const std::string &name : pipeline) {
    const GraphPass *p = findGraphPass(name);
    if (!p)
      return makeError("unknown graph pass '" + name + "'");
    passes.push_back(p);
  }
  for (const std::string &name : opts.dumpAfter)
    if (name != "all" && !findGraphPass(name))
      return makeError("-dump-graph-after: unknown graph pass '" + name + "'");
  constexpr unsigned kMaxRounds = 8;
  for (unsigned round = 0; round < kMaxRounds; ++round) {
    bool changed = false;
    for (const GraphPass *p : passes) {
      size_t before = F.size();
      auto start = std::chrono::steady_clock::now();
      bool c = p->run(F, opts.context);
      double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                            start)
                      .count();
      changed |= c;
      if (opts.stats)
        opts.stats->push_back({p->name, before, F.size(), c, ms});
      if (opts.dumpStream &&
          llvm::any_of(opts.dumpAfter, [&](const std::string &n) { return n == p->name || n == "all"; })) {
        *opts.dumpStream << "=== after pass '" << p->name << "' (round " << round + 1
                         << (c ? ", changed" : ", unchanged") << ")\n";
        F.dump(*opts.dumpStream);
      }
      if (opts.verifyEach)
        EMBER_TRY(withContext(F.verify(), Twine("after pass '") + p->name + "'"));
    }
    if (!changed)
      break;
  }
  return Error::success();
}

} // namespace ember
