// How the values given for a model's inputs (model-runner's -input files, a test case's
// input_K.pb) reach it, the same way in model-runner and the conformance tool: the inputs the
// model needs at compile time (a Reshape's shape given as a graph input) are bound to their
// values while loading, only those; every other input stays a run-time input and is set before
// running.
#ifndef EMBER_TOOLS_COMMON_INPUTBINDING_H
#define EMBER_TOOLS_COMMON_INPUTBINDING_H

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"

#include <string>
#include <vector>

namespace ember {
namespace tools {

/// A value given for a graph input.
struct GivenInput {
  std::string name;   ///< empty: the input at this value's index among the given ones
  std::string source; ///< the file, named in messages
  const Tensor *tensor = nullptr;
};

/// An input bound to its given value at compile time.
struct BoundInput {
  std::string name;
  std::string source;
  size_t position; ///< among the graph's inputs (SIZE_MAX: not known)
};

/// Loads \p paths with \p opts (withConstantEvaluation is applied). When the model needs graph
/// inputs at compile time (CompileTimeInputsError), binds exactly those to their values in
/// \p given and loads again, until it loads; \p bound receives them. A needed input without a
/// value in \p given fails the load with one error naming every such input, telling to give
/// it with \p flag (e.g. "-onnx-define-input"; empty: no advice).
llvm::Expected<std::unique_ptr<Module>>
loadBindingCompileTimeInputs(llvm::ArrayRef<std::string> paths, ImportOptions opts,
                             llvm::ArrayRef<GivenInput> given, llvm::StringRef flag,
                             std::vector<BoundInput> &bound);

/// Sets every value of \p given that was not bound at compile time (\p bound) as \p cm's input
/// of that name (an unnamed value: the input at its position; with one value, the model's only
/// input). A file of UINT16 for a bfloat16 input is read as bfloat16 bits (see below).
llvm::Error setRunTimeInputs(CompiledModel &cm, llvm::ArrayRef<GivenInput> given,
                             llvm::ArrayRef<BoundInput> bound);

/// ONNX 1.12 (its numpy_helper, hence its test data) stores bfloat16 tensors as UINT16, the raw
/// bits: \p t becomes those bits read as bfloat16 where \p expected says bfloat16.
void reinterpretBFloat16Bits(Tensor &t, const Type &expected);

} // namespace tools
} // namespace ember

#endif
