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

/// A graph input's value read from its file: a tensor, or the tensors of a sequence or an
/// optional (ONNX), as the model declares the input.
struct InputFile {
  std::string name; ///< the graph input; empty: the input at this file's position
  std::string path;
  GraphValue value;            ///< what the file holds: a tensor, a sequence, an optional
  std::vector<Tensor> tensors; ///< its tensors (value.types)
  /// An image input's files (ImageInputs.h), one per batch item; path then names them all.
  std::vector<std::string> images;
};

/// Reads each file of \p files (name and path set) as its graph input's value for the model
/// \p modelPaths. A tensor file is read as one; a `.pb` that is not a TensorProto is read as
/// what the model declares that input (readGraphInputKinds, looked at only then): a
/// SequenceProto or an OptionalProto, and then every unnamed file is named after the input at
/// its position. With \p storedNames, a file given without a name takes the name its `.pb`
/// stores (the test suite's input_K.pb).
llvm::Error readInputValues(std::vector<InputFile> &files, llvm::ArrayRef<std::string> modelPaths,
                           bool storedNames);

/// The sequences and optionals among \p files, into opts.structuredInputs (the tensors' shapes
/// are the caller's: by name or by position).
void addStructuredInputs(llvm::ArrayRef<InputFile> files, ImportOptions &opts);

/// A value given for one tensor of a graph input.
struct GivenInput {
  std::string name;   ///< empty: the input at this value's index among the given ones
  std::string source; ///< the file, named in messages
  const Tensor *tensor = nullptr;
};

/// One GivenInput per tensor of \p files, in order: a sequence's elements (and an optional's
/// tensor) under their placeholders' names (GraphValue::placeholderNames).
std::vector<GivenInput> givenTensors(llvm::ArrayRef<InputFile> files);

/// \p reported, the graph outputs a load gave through ImportOptions::graphOutputs, or when it
/// gave none (a Caffe2 net), \p cm's output placeholders as tensors.
std::vector<GraphValue> graphOutputsOf(const CompiledModel &cm,
                                       std::vector<GraphValue> reported);

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
