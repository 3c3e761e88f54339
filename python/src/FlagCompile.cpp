#include "FlagCompile.h"

#include "CommandLine.h"
#include "CompileFromFlags.h"
#include "ModelLoading.h"
#include "ToolFlags.h"
#include "ToolReports.h"

#include "ember/Driver/Bundle.h"
#include "ember/Support/Error.h"
#include "ember/Support/MemoryBudget.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace llvm;

namespace ember {
namespace python {

namespace {

/// Runs \p body with -model=\p modelPath and \p flags set, holding the process's flags alone;
/// every flag and the memory budget (-max-memory) are restored after.
Error withToolFlags(const std::string &modelPath, const FlagList &flags,
                    function_ref<Error()> body) {
  static std::mutex flagsInUse;
  std::lock_guard<std::mutex> lock(flagsInUse);
  gflags::FlagSaver restoreFlags;
  uint64_t budget = memoryBudget();
  auto run = [&]() -> Error {
    tools::ToolFlagAssigner assigner;
    EMBER_ASSIGN_OR_RETURN(gflags::CommandLineFlagInfo model, tools::findToolFlag("model", ""));
    EMBER_TRY(assigner.assign(model, modelPath, "model", "model"));
    for (const auto &[name, value] : flags) {
      EMBER_ASSIGN_OR_RETURN(gflags::CommandLineFlagInfo info, tools::findToolFlag(name, name));
      // The model and its inputs are the API's arguments, not flags.
      if (info.name == "model")
        return makeError("flag '" + name + "': the model is compile()'s first argument");
      if (info.name == "input")
        return makeError("flag '" + name + "': inputs are given to Model.run(), or fixed at "
                         "compile time with define_inputs");
      EMBER_TRY(assigner.assign(info, value, name, name));
    }
    EMBER_TRY(tools::applyMaxMemoryFlag());
    return body();
  };
  Error err = run();
  setMemoryBudget(budget);
  outs().flush(); // what the flags printed, before Python prints more
  return err;
}

} // namespace

Expected<FlagCompiled> compileWithFlags(const std::string &modelPath, const FlagList &flags,
                                        bool profile) {
  FlagCompiled out;
  EMBER_TRY(withToolFlags(modelPath, flags, [&]() -> Error {
    if (profile)
      FLAGS_profile = true;
    double loadMillis = 0;
    std::vector<GraphValue> outputs;
    EMBER_ASSIGN_OR_RETURN(std::unique_ptr<Module> M,
                           tools::loadModelFromFlags({}, loadMillis, nullptr, &outputs));
    EMBER_ASSIGN_OR_RETURN(CompileOptions co, tools::compileOptionsFromFlags());
    EMBER_ASSIGN_OR_RETURN(out.model, CompiledModel::compile(std::move(M), co));
    for (const GraphValue &v : tools::graphOutputsOf(*out.model, std::move(outputs)))
      for (std::string &name : v.placeholderNames())
        out.outputNames.push_back(std::move(name));
    const CompiledModel &cm = *out.model;
    return tools::printCompileReports(cm.getSummary(), loadMillis, cm.getFunction(),
                                      cm.getIR());
  }));
  return std::move(out);
}

Expected<std::vector<std::string>> emitBundleWithFlags(const std::string &modelPath,
                                                       const FlagList &flags,
                                                       const std::string &dir,
                                                       const std::string &networkName) {
  std::vector<std::string> files;
  EMBER_TRY(withToolFlags(modelPath, flags, [&]() -> Error {
    double loadMillis = 0;
    EMBER_ASSIGN_OR_RETURN(std::unique_ptr<Module> M, tools::loadModelFromFlags({}, loadMillis));
    BundleOptions b;
    b.outputDir = dir;
    EMBER_ASSIGN_OR_RETURN(b.networkName, tools::bundleNetworkName(networkName, "network name"));
    b.modelPath = modelPath;
    EMBER_ASSIGN_OR_RETURN(CompileOptions co, tools::compileOptionsFromFlags());
    EMBER_ASSIGN_OR_RETURN(BundleResult r, writeBundle(std::move(M), co, b));
    EMBER_TRY(tools::printCompileReports(r.summary, loadMillis, *r.function, *r.ir));
    files = r.files;
    return Error::success();
  }));
  return std::move(files);
}

} // namespace python
} // namespace ember
