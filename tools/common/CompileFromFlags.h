// Compiling a model the way the flags ask: the compile options they give, and model-runner's
// whole path from the flags to a compiled model.
#ifndef EMBER_TOOLS_COMMON_COMPILEFROMFLAGS_H
#define EMBER_TOOLS_COMMON_COMPILEFROMFLAGS_H

#include "InputBinding.h"

#include "ember/Driver/CompiledModel.h"

#include <memory>
#include <vector>

namespace ember {
namespace tools {

/// The compile options the flags ask for (backend and its options, passes, dumps, quantizing
/// from -load-profile); fails on a profile that cannot be read.
llvm::Expected<CompileOptions> compileOptionsFromFlags();
/// loadModelFromFlags (binding the inputs needed at compile time: \p bound), CompiledModel::compile
/// with compileOptionsFromFlags, then the reports; \p outputs gets the graph's outputs. With
/// \p instrumentForProfiling, every float value is saved for a profile (CompileOptions). With
/// \p timeInstructions, every instruction is timed as -profile times it (for -trace).
/// \p importMillis, if given, gets the import's time.
llvm::Expected<std::unique_ptr<CompiledModel>>
loadAndCompile(const std::vector<InputFile> &inputs, std::vector<BoundInput> &bound,
               std::vector<GraphValue> &outputs, bool instrumentForProfiling = false,
               bool timeInstructions = false, double *importMillis = nullptr);

} // namespace tools
} // namespace ember

#endif
