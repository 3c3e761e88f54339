// Loading a model file into a Module: the Importer library's entry point.
#ifndef EMBER_IMPORTER_MODELLOADER_H
#define EMBER_IMPORTER_MODELLOADER_H

#include "ember/Graph/Graph.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ember {

/// What an ONNX graph input or output holds: a tensor, a sequence of tensors, or an optional
/// holding either or nothing. ember's graph holds tensors only, so a sequence's length and an
/// optional's presence are fixed when the model is compiled (from an input's file), and the
/// value is its tensors, each a placeholder of its own (placeholderNames).
struct GraphValue {
  std::string name;
  bool sequence = false; ///< a sequence of tensors (what the optional holds, for an optional)
  bool optional = false; ///< an optional
  bool present = true;   ///< an optional holds a value
  /// Its tensors, one per placeholder: a tensor's type, a sequence's elements' types, none for
  /// an empty optional.
  std::vector<Type> types;
  std::string source; ///< an input's file, named in errors

  bool isTensor() const { return !sequence && !optional; }
  /// The placeholders holding its tensors: a sequence's elements are `name[0]`..`name[N-1]`,
  /// a tensor (or the one an optional holds) is `name`.
  std::vector<std::string> placeholderNames() const {
    if (!sequence)
      return {name};
    std::vector<std::string> names;
    for (size_t i = 0; i < types.size(); ++i)
      names.push_back(name + "[" + std::to_string(i) + "]");
    return names;
  }
  std::string describe() const { return describeValue(sequence, optional, present, types.size()); }

  /// "a tensor", "a sequence of 3 tensors", "an optional sequence of 1 tensor", "an empty
  /// optional": how messages name a value (the importer's as well).
  static std::string describeValue(bool sequence, bool optional, bool present, size_t tensors) {
    if (optional && !present)
      return "an empty optional";
    std::string what = sequence ? "sequence of " + std::to_string(tensors) +
                                      (tensors == 1 ? " tensor" : " tensors")
                                : "tensor";
    return (optional ? "an optional " : "a ") + what;
  }
};

struct ImportOptions {
  /// Values for symbolic dims (dim_param), from -onnx-define-symbol=NAME,VALUE.
  llvm::StringMap<int64_t> symbols;
  /// The shape of an input's data and where it comes from (named in errors).
  struct InputShape {
    std::vector<int64_t> dims;
    std::string source;
    /// The file's element kind: it types the inputs of formats that declare none (Caffe2).
    std::optional<ElemKind> kind;
  };
  /// Shapes of the input files by graph input name; they bind the inputs' symbolic dims.
  /// The key "" stands for the model's only input.
  llvm::StringMap<InputShape> inputShapes;
  /// Shapes of unnamed input files, by position among the graph's inputs.
  std::vector<InputShape> positionalInputShapes;

  /// Graph inputs bound to a value at compile time (-onnx-define-input): the input becomes a
  /// Constant, so everything computed from it alone can fold away.
  struct ConstantInput {
    std::shared_ptr<const Tensor> tensor; ///< the value; else `scalar` fills the declared type
    double scalar = 0;
    std::string source; ///< named in errors
  };
  llvm::StringMap<ConstantInput> constantInputs;

  /// The sequence and optional graph inputs (ONNX), by name, as their files give them
  /// (GraphValue::types, present): each fixes at compile time a sequence's length and element
  /// types, and whether an optional holds a value. Their tensors become placeholders
  /// (GraphValue::placeholderNames) set at run time, unless bound in constantInputs by those
  /// names. A sequence or optional input without an entry is refused.
  llvm::StringMap<GraphValue> structuredInputs;
  /// Receives, when a load succeeds, every graph output in order with its tensors' types (an
  /// output of a format without sequences: a tensor), so that a tool writes a sequence or an
  /// optional output from its placeholders. Unset: not called.
  std::function<void(const std::vector<GraphValue> &)> graphOutputs;

  /// Input types for formats whose inputs declare none (Caffe2), from
  /// -model-input=NAME,TYPE,[DIMS]; an input without one takes its input file's type.
  llvm::StringMap<Type> declaredInputs;

  /// Evaluates a value computed only from Constants (set by the driver to run it on the
  /// Interpreter). Loaders that need an operand at compile time (a Reshape's shape computed by
  /// Shape -> Gather -> Concat) get it folded through this; without it such operands must be
  /// Constants already.
  std::function<llvm::Expected<Tensor>(NodeValue)> evaluateConstant;

  /// ONNX: refuse a model on any finding of the onnx package's checker (-strict-onnx). Without
  /// it, the findings that leave the model unambiguous (an unnamed graph, an output without a
  /// type, an initializer missing from an IR-3 graph's inputs, ...; README, "ONNX checker
  /// findings") are tolerated and reported through `warn`; the checker still refuses the rest.
  bool strictONNX = false;
  /// Control flow. A Loop or Scan whose iterations are known at compile time and at most this
  /// many is unrolled (its body imported once per iteration, so that it folds and fuses);
  /// others become a loop in the IR (-unroll-loops-up-to).
  int64_t unrollLoopsUpTo = 16;
  /// A loop in the IR whose trip count is known only at run time stops with an error after
  /// this many iterations (-max-loop-iterations).
  int64_t maxLoopIterations = 1000000;
  /// Receives each warning of a load that succeeds (one line, naming the file). Library code
  /// prints nothing itself; the tools print these as "warning: ..." on stderr. Unset: dropped.
  std::function<void(const std::string &)> warn;
};

/// The name of the function a loader creates in the module.
constexpr const char *kMainFunctionName = "main";

/// Loads a model into a new Module with one Function named "main": graph inputs become
/// Placeholders, weights Constants, and each graph output a Placeholder written by a Save node.
/// \p paths is one ONNX file (`.onnx` binary or `.onnxtxt` protobuf text), or a Caffe2 model:
/// its predict_net and init_net files in that order (`.pb` binary, `.pbtxt` text), or one
/// directory holding predict_net.pb(txt) and init_net.pb(txt). Errors name the file, node,
/// operator and reason; unsupported operators are all listed in one error.
llvm::Expected<std::unique_ptr<Module>> loadModelFiles(llvm::ArrayRef<std::string> paths,
                                                  const ImportOptions &opts = {});
/// The one-file (or one-directory) form of loadModelFiles.
llvm::Expected<std::unique_ptr<Module>> loadModel(llvm::StringRef path,
                                                  const ImportOptions &opts = {});

/// The ONNX loader (lib/Importer/ONNX) and the Caffe2 loader (lib/Importer/Caffe2), which
/// loadModel chooses between.
llvm::Expected<std::unique_ptr<Module>> loadONNXModel(llvm::StringRef path,
                                                      const ImportOptions &opts);
llvm::Expected<std::unique_ptr<Module>> loadCaffe2Model(llvm::StringRef predictNet,
                                                        llvm::StringRef initNet,
                                                        const ImportOptions &opts);

/// The graph inputs (not initializers) of the ONNX model \p path in order, each a tensor, a
/// sequence or an optional (name and kind only), so that a tool reads each input's file as what
/// the model declares: the three .pb messages cannot be told apart by their bytes. Empty for a
/// model that is not ONNX (a Caffe2 net's inputs are tensors).
llvm::Expected<std::vector<GraphValue>> readGraphInputKinds(llvm::ArrayRef<std::string> paths);

/// A tensor graph input as the model declares it, for a tool that builds its value from
/// something other than a tensor file (an image): its element kind and dims, -1 for a dim that
/// is symbolic or unknown.
struct DeclaredTensorInput {
  std::string name;
  std::optional<ElemKind> kind; ///< none: not declared
  std::optional<std::vector<int64_t>> dims; ///< none: no shape declared
};

/// The tensor graph inputs (not initializers) of the ONNX model \p paths in order, as declared.
/// Empty for a model that is not ONNX (a Caffe2 net declares no input types).
llvm::Expected<std::vector<DeclaredTensorInput>>
readDeclaredTensorInputs(llvm::ArrayRef<std::string> paths);

/// The operator types the Caffe2 loader knows, sorted (for docs and -help).
std::vector<std::string> caffe2OperatorNames();

/// One line per ONNX operator the importer reads, sorted by domain then name:
/// "DOMAIN OP V1 V2 ..." with the operator versions (first opsets) it reads, the default domain
/// spelled "ai.onnx" (for docs and -list-operators=onnx).
std::vector<std::string> onnxOperatorVersions();

/// Highest ONNX opset of the default domain the importer knows.
constexpr int64_t kMaxONNXOpset = 26;

} // namespace ember

#endif
