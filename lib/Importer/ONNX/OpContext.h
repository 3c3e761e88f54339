// What an ONNX operator loader sees: the node's inputs as graph values (tensors, or sequences
// as lists of them), its attributes, and helpers to create ember nodes named after it. Loaders
// are registered by op type and the first opset they handle (OpRegistry), one family per file
// (ElementwiseOps.cpp, NNOps.cpp, DataMovementOps.cpp, ReduceOps.cpp, QuantizedOps.cpp, ...).
#ifndef EMBER_LIB_IMPORTER_ONNX_OPCONTEXT_H
#define EMBER_LIB_IMPORTER_ONNX_OPCONTEXT_H

#include "../NodeBuilder.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ember {

class OpContext;
using OpLoader = llvm::Error (*)(OpContext &ctx);

/// op type -> loaders by first opset; the loader for a model is the one with the largest
/// first opset not above the model's. From opset 18 on (what the linked libonnx 1.12 does not
/// know), every version ONNX gave an operator (ONNXOpVersions.inc) must be registered too: a
/// loader written for an older version never reads a newer one unseen. A version that only
/// widened the element kinds is registered by registerWidenedVersions (ONNXOpsetChanges.cpp).
class OpRegistry {
  struct Entry {
    int64_t sinceOpset;
    OpLoader load;
  };
  llvm::StringMap<std::vector<Entry>> loaders_;

  /// The entry with the largest first opset not above \p opset, or null.
  const Entry *latest(llvm::StringRef opType, int64_t opset) const;

public:
  void add(llvm::StringRef opType, int64_t sinceOpset, OpLoader load);
  /// \p opType's version \p version only widened its element kinds: the loader of the version
  /// before reads it (and refuses the kinds ember does not have).
  void widen(llvm::StringRef opType, int64_t version);
  OpLoader find(llvm::StringRef opType, int64_t opset) const;
  /// Why find() gives no loader for \p opType at \p opset ("" when it gives one).
  std::string whyNot(llvm::StringRef opType, int64_t opset) const;
  /// Every operator with the first opsets of the versions its loaders read, sorted by name.
  std::vector<std::pair<std::string, std::vector<int64_t>>> versions() const;
  static const OpRegistry &get();
};

/// The newest version ONNX gave \p opType at or below \p opset, counting only versions from
/// opset 18 on; 0 when it has none there.
int64_t newestONNXVersion(llvm::StringRef opType, int64_t opset);
/// Whether \p opType changed its attributes, inputs or outputs in a version in (\p from,
/// \p opset] (libonnx 1.12's schema, which knows opsets up to 17, would misjudge its nodes).
bool signatureChangedSince(llvm::StringRef opType, int64_t from, int64_t opset);

// Each family's loaders, registered by <Family>Ops.cpp (which registers its parts,
// <Family>Ops<Part>.cpp). The families are those of include/ember/Graph/Nodes/.
void registerElementwiseOps(OpRegistry &r);
void registerNNOps(OpRegistry &r);
void registerDataMovementOps(OpRegistry &r);
void registerReduceOps(OpRegistry &r);
void registerNormalizationOps(OpRegistry &r);
void registerQuantizedOps(OpRegistry &r);
void registerRecurrentOps(OpRegistry &r);
void registerControlFlowOps(OpRegistry &r);
// Importer-only families (no node kind of their own): signal processing, sequences, training,
// text, random draws.
void registerSignalOps(OpRegistry &r);
void registerSequenceOps(OpRegistry &r);
void registerTrainingOps(OpRegistry &r);
void registerTextOps(OpRegistry &r);
void registerRandomOps(OpRegistry &r);
// ONNX-ML (domain ai.onnx.ml, MLOps*.cpp): scikit-learn's preprocessing, linear models and tree
// ensembles, composed from existing node kinds. A registry of their own (findLoader), so that a
// default-domain node never finds them.
void registerMLOps(OpRegistry &r);
// The versions from opset 18 on that only widened element kinds; called after the families.
void registerWidenedVersions(OpRegistry &r);

struct ImportOptions;

/// What an ONNX name is bound to: a tensor (a graph value), a sequence of tensors, or an
/// optional holding either or nothing. ember has no sequence or optional node kind: a
/// sequence's length and an optional's presence are known at compile time, so a sequence is
/// the list of its elements' graph values and an optional what it holds, kept by the importer
/// only.
struct ONNXValue {
  bool isSequence = false;         ///< a sequence (held by the optional, for an optional)
  NodeValue tensor;                ///< a tensor's value
  std::vector<NodeValue> elements; ///< a sequence's elements, in order
  bool isOptional = false;         ///< an optional (Optional's output, an optional input)
  bool present = true;             ///< an optional holds the tensor or sequence above

  static ONNXValue ofTensor(NodeValue v) { return {false, v, {}}; }
  static ONNXValue ofSequence(std::vector<NodeValue> elements) {
    return {true, NodeValue(), std::move(elements)};
  }
  /// An optional holding \p v (a tensor or a sequence).
  static ONNXValue optionalOf(ONNXValue v) {
    v.isOptional = true;
    v.present = true;
    return v;
  }
  /// An optional holding nothing; \p ofSequence says whether its type holds a sequence.
  static ONNXValue absentOptional(bool ofSequence) {
    ONNXValue v;
    v.isSequence = ofSequence;
    v.isOptional = true;
    v.present = false;
    return v;
  }
  bool isPlainTensor() const { return !isSequence && !isOptional; }
  /// How errors name what a value is (GraphValue::describeValue).
  std::string describe() const;
};

/// The ONNX names visible where a node loads (ONNX lexical scoping): a graph's own names over
/// those of the graphs around it. A subgraph (an If branch, one iteration of an unrolled Loop
/// body) loads in a scope of its own, so what it defines neither leaks out nor clashes with
/// another iteration's, and the nodes it creates are named with the scope's prefix.
class ValueScope {
public:
  /// A body's own value for a value of the function around it (BodyCaptures).
  using Capture = std::function<NodeValue(NodeValue)>;

private:
  const ValueScope *outer_;
  std::string namePrefix_;
  llvm::StringMap<NodeValue> tensors_;
  llvm::StringMap<ONNXValue> structured_; ///< sequences and optionals
  Capture capture_;                       ///< set on the scope of a body of its own

public:
  /// \p capture makes this the scope of a body imported as a function of its own (a run-time
  /// If's branch, a Loop's body): what lookups find outside it reaches the body through it.
  explicit ValueScope(const ValueScope *outer = nullptr, std::string namePrefix = "",
                      Capture capture = {})
      : outer_(outer), namePrefix_(std::move(namePrefix)), capture_(std::move(capture)) {}
  ValueScope(const ValueScope &) = delete;
  ValueScope &operator=(const ValueScope &) = delete;

  /// What \p name is bound to here or in an enclosing scope; nullopt when nothing.
  std::optional<ONNXValue> lookup(llvm::StringRef name) const;
  bool defines(llvm::StringRef name) const { return lookup(name).has_value(); }
  /// Binds \p name in this scope; false when this scope binds it already.
  bool bind(llvm::StringRef name, ONNXValue v);
  /// This scope's own tensors (a folded operand is rebound here, shadowing an outer binding).
  llvm::StringMap<NodeValue> &tensors() { return tensors_; }
  /// Prefixed to the names of the nodes and constants created in this scope.
  const std::string &namePrefix() const { return namePrefix_; }
};

class OpContext : public NodeBuilder {
  const onnx::NodeProto &node_;
  int64_t opset_;
  const onnx::ModelProto *model_ = nullptr; ///< its opset imports choose a body's loaders
  ValueScope &scope_;
  llvm::Error attrError_ = llvm::Error::success();

  const onnx::AttributeProto *findAttr(llvm::StringRef name,
                                       onnx::AttributeProto::AttributeType type);

  std::string inputName(unsigned i) const override { return node_.input(int(i)); }
  llvm::StringMap<NodeValue> &values() override { return scope_.tensors(); }

public:
  OpContext(const onnx::NodeProto &node, const ImportOptions &opts, int64_t opset, Module &m,
            Function &f, ValueScope &scope)
      : NodeBuilder(opts, m, f), node_(node), opset_(opset), scope_(scope) {}
  ~OpContext() override { llvm::consumeError(std::move(attrError_)); }

  const onnx::NodeProto &proto() const { return node_; }
  /// The model being loaded: its opset imports say which loader a subgraph's node gets.
  void setModel(const onnx::ModelProto *model) { model_ = model; }
  int64_t opset() const { return opset_; }
  /// The node's name, or its first output's when it has none (with its scope's prefix).
  std::string baseName() const override;

  /// Inputs: an empty name means an omitted optional input.
  unsigned numInputs() const { return node_.input_size(); }
  bool hasInput(unsigned i) const { return int(i) < node_.input_size() && !node_.input(i).empty(); }
  /// Input \p i as a tensor; a sequence or an optional there is an error.
  llvm::Expected<NodeValue> input(unsigned i) override;
  /// Input \p i as a sequence's elements; anything else there is an error.
  llvm::Expected<std::vector<NodeValue>> inputSequence(unsigned i);
  /// Input \p i, a tensor, a sequence or an optional (operators that take any: Identity,
  /// Loop's carried values, the optional operators).
  llvm::Expected<ONNXValue> inputValue(unsigned i);

  unsigned numOutputs() const { return node_.output_size(); }
  bool hasOutput(unsigned i) const {
    return int(i) < node_.output_size() && !node_.output(i).empty();
  }
  /// Binds output \p i's name to \p v; a name defined twice is an error.
  llvm::Error setOutput(unsigned i, NodeValue v);
  llvm::Error setOutputSequence(unsigned i, std::vector<NodeValue> elements);
  llvm::Error setOutputValue(unsigned i, ONNXValue v);

  /// Attribute readers: a missing attribute gives \p def; one of the wrong type records an error
  /// that the importer reports after the loader returns.
  bool hasAttr(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t def);
  float getFloat(llvm::StringRef name, float def);
  std::string getString(llvm::StringRef name, llvm::StringRef def);
  std::vector<int64_t> getInts(llvm::StringRef name, std::vector<int64_t> def = {});
  std::vector<float> getFloats(llvm::StringRef name, std::vector<float> def = {});
  const onnx::TensorProto *getTensorAttr(llvm::StringRef name);
  /// A graph attribute (If's branches, a Loop's body); an error when it is missing.
  llvm::Expected<const onnx::GraphProto *> getGraphAttr(llvm::StringRef name);
  llvm::Error takeAttrError() { return std::move(attrError_); }

  /// An error about this node's inputs or attributes (the importer adds the node and file).
  llvm::Error fail(const llvm::Twine &why) const;

  /// Imports \p graph (an If branch, one iteration of a Loop, Scan or SequenceMap body) into the
  /// current function, in a scope of its own over this node's: its inputs are bound to
  /// \p inputs, it sees every value defined around it, and what it defines stays in it. What it
  /// creates is named after this node and \p instance ("iter3"). Returns its outputs' values.
  /// With \p body, the subgraph is imported into that function instead, and \p capture gives
  /// its own value for every value from outside that it reads (ValueScope).
  llvm::Expected<std::vector<ONNXValue>>
  importSubgraph(const onnx::GraphProto &graph, llvm::ArrayRef<ONNXValue> inputs,
                 llvm::StringRef instance, Function *body = nullptr,
                 ValueScope::Capture capture = {});
  /// The options of this import (control-flow limits, the evaluator).
  const ImportOptions &options() const { return opts_; }
  Function &function() { return fn_; }
  /// \p v's value when it is a Constant or folds to one, as constantInput does for an input
  /// (a value computed from graph inputs gives a CompileTimeInputsError naming them); \p what
  /// names it in errors.
  llvm::Expected<const Tensor *> constantValue(NodeValue v, llvm::StringRef what);
  /// How many nodes the current function has (a bound on what unrolling creates).
  size_t functionSize() const { return fn_.size(); }
};

/// The default ONNX domain ("" or "ai.onnx").
bool isDefaultDomain(llvm::StringRef domain);
/// The opset \p n's operator is looked up at: the model's import of the node's domain (the
/// default domain's is \p defaultOpset), 0 if it imports none.
int64_t nodeOpset(const onnx::ModelProto &model, int64_t defaultOpset, const onnx::NodeProto &n);
/// \p n's loader at \p opset, or null: the default domain's operators, and besides them the
/// optimizers of ONNX's training domain (TrainingOps.cpp) and the ONNX-ML operators (MLOps*.cpp).
OpLoader findLoader(const onnx::NodeProto &n, int64_t opset);

/// "node 'conv3' (Conv)": how errors name an ONNX node.
std::string onnxNodeLabel(const onnx::NodeProto &n);

/// Normalizes \p axis (may be negative) for \p rank; error if out of range.
llvm::Expected<int64_t> normalizeAxis(int64_t axis, unsigned rank);
/// numpy's multidirectional broadcast of two shapes.
llvm::Expected<DimsVec> broadcastShapes(llvm::ArrayRef<dim_t> a, llvm::ArrayRef<dim_t> b);

} // namespace ember

#endif
