#include "ember/IROptimizer/IROptimizer.h"
#include "IRPasses.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace llvm;

namespace ember {

const std::vector<IRPass> &getIRPasses() {
  static const std::vector<IRPass> passes = {
#define IR_PASS(FN, NAME, DEFAULT, DOC) {NAME, DOC, DEFAULT, FN},
#include "ember/IROptimizer/IRPasses.def"
  };
  return passes;
}

const IRPass *findIRPass(StringRef name) {
  for (const IRPass &p : getIRPasses())
    if (name == p.name)
      return &p;
  return nullptr;
}

std::vector<std::string> defaultIRPipeline() {
  std::vector<std::string> names;
  for (const IRPass &p : getIRPasses())
    if (p.inDefaultPipeline)
      names.push_back(p.name);
  return names;
}

Error optimizeIR(IRFunction &IR, const std::vector<std::string> &pipeline,
                 const IROptimizerOptions &opts) {
  std::vector<const IRPass *> passes;
  for (const std::string &name : pipeline) {
    const IRPass *p = findIRPass(name);
    if (!p)
      return makeError("unknown IR pass '" + name + "'");
    passes.push_back(p);
  }
  for (const std::string &name : opts.dumpAfter)
    if (name != "all" && !findIRPass(name))
      return makeError("-dump-ir-after: unknown IR pass '" + name + "'");
  for (const IRPass *p : passes) {
    size_t before = IR.getInstrs().size();
    auto start = std::chrono::steady_clock::now();
    bool changed = p->run(IR);
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count();
    if (opts.stats)
      opts.stats->push_back({p->name, before, IR.getInstrs().size(), changed, ms});
    if (opts.dumpStream && llvm::any_of(opts.dumpAfter, [&](const std::string &n) {
          return n == p->name || n == "all";
        })) {
      *opts.dumpStream << "=== after IR pass '" << p->name << "'"
                       << (changed ? " (changed)" : " (unchanged)") << "\n";
      IR.dump(*opts.dumpStream);
    }
    if (opts.verifyEach)
      EMBER_TRY(withContext(IR.verify(), Twine("after IR pass '") + p->name + "'"));
  }
  return Error::success();
}

} // namespace ember
