// Compiling through the tools' own flags (tools/common): the Python module sets the flags
// ember.compile was given, as model-runner and model-compiler take them from their command
// line, and runs the tools' code on them. The flags are one process-wide set, so each use
// holds them alone and restores them after.
#ifndef EMBER_PYTHON_FLAGCOMPILE_H
#define EMBER_PYTHON_FLAGCOMPILE_H

#include "ember/Driver/CompiledModel.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ember {
namespace python {

/// (flag name in any spelling the command line takes, value as text), in order; a repeatable
/// flag may appear several times.
using FlagList = std::vector<std::pair<std::string, std::string>>;

struct FlagCompiled {
  std::unique_ptr<CompiledModel> model;
  /// Its outputs' placeholders, in the graph's order of outputs.
  std::vector<std::string> outputNames;
};

/// Loads and compiles \p modelPath as model-runner does with -model=\p modelPath and \p flags
/// (and -profile when \p profile); prints what the flags ask for (-dump-graph, ...).
llvm::Expected<FlagCompiled> compileWithFlags(const std::string &modelPath,
                                              const FlagList &flags, bool profile);

/// Writes a bundle of \p modelPath into \p dir as model-compiler does with -model=\p modelPath
/// -emit-bundle=\p dir and \p flags; \p networkName empty: the model file's stem. Returns the
/// files written.
llvm::Expected<std::vector<std::string>> emitBundleWithFlags(const std::string &modelPath,
                                                             const FlagList &flags,
                                                             const std::string &dir,
                                                             const std::string &networkName);

} // namespace python
} // namespace ember

#endif
