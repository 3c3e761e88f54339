// Loading the model the flags name: -model's files, -input's files, and the import options
// the other flags ask for (symbols and inputs bound at compile time, declared Caffe2 inputs,
// the ONNX checker's strictness, the control-flow limits).
#ifndef EMBER_TOOLS_COMMON_MODELLOADING_H
#define EMBER_TOOLS_COMMON_MODELLOADING_H

#include "InputBinding.h"

#include "ember/Importer/ModelLoader.h"

#include <memory>
#include <string>
#include <vector>

namespace ember {
namespace tools {

/// The import options every tool takes from its flags: the ONNX checker's strictness and the
/// control-flow limits.
void applyImportFlags(ImportOptions &opts);

/// The files given with -model (repeatable: a Caffe2 model is a predict_net and an init_net).
std::vector<std::string> modelPaths();
/// The name a bundle of the -model gets by default: the file's stem; a Caffe2 model's folder.
std::string defaultNetworkName();
/// A bundle's network name: \p given, or when empty defaultNetworkName() made a C identifier;
/// a given name that is not a C identifier is an error naming it as \p what (the flag).
llvm::Expected<std::string> bundleNetworkName(const std::string &given, llvm::StringRef what);

/// Reads every file named by -input (NAME=FILE; a lone FILE has no name: the model's only
/// input), each as its input's value (InputBinding.h: a tensor, a sequence, an optional).
llvm::Expected<std::vector<InputFile>> readInputFiles();

/// Loads -model with -onnx-define-symbol/-onnx-define-input and the input files' shapes bound;
/// \p loadMillis gets the time it took. With \p bound (model-runner), the inputs the model
/// needs at compile time are bound to their files in \p inputs and listed in \p bound
/// (loadBindingCompileTimeInputs); without it (model-compiler) the error names them, to be
/// given with -onnx-define-input. \p outputs (when non-null) receives the graph's outputs
/// (ImportOptions::graphOutputs).
llvm::Expected<std::unique_ptr<Module>>
loadModelFromFlags(const std::vector<InputFile> &inputs, double &loadMillis,
                   std::vector<BoundInput> *bound = nullptr,
                   std::vector<GraphValue> *outputs = nullptr);

} // namespace tools
} // namespace ember

#endif
