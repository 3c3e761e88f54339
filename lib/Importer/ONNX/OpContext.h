// What an ONNX operator loader sees: the node's inputs as graph values, its attributes, and
// helpers to create ember nodes named after it. Loaders are registered by op type and the first
// opset they handle (OpRegistry), one family per file (ElementwiseOps.cpp, NNOps.cpp, DataMovementOps.cpp,
// ReduceOps.cpp, QuantizedOps.cpp).
#ifndef EMBER_LIB_IMPORTER_ONNX_OPCONTEXT_H
#define EMBER_LIB_IMPORTER_ONNX_OPCONTEXT_H

#include "../NodeBuilder.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <vector>

namespace ember {

class OpContext;
using OpLoader = llvm::Error (*)(OpContext &ctx);

/// op type -> loaders by first opset; the loader for a model is the one with the largest
/// first opset not above the model's.
class OpRegistry {
  struct Entry {
    int64_t sinceOpset;
    OpLoader load;
  };
  llvm::StringMap<std::vector<Entry>> loaders_;

public:
  void add(llvm::StringRef opType, int64_t sinceOpset, OpLoader load);
  OpLoader find(llvm::StringRef opType, int64_t opset) const;
  static const OpRegistry &get();
};

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

struct ImportOptions;

class OpContext : public NodeBuilder {
  const onnx::NodeProto &node_;
  int64_t opset_;
  llvm::StringMap<NodeValue> &values_;
  llvm::Error attrError_ = llvm::Error::success();

  const onnx::AttributeProto *findAttr(llvm::StringRef name,
                                       onnx::AttributeProto::AttributeType type);

  std::string inputName(unsigned i) const override { return node_.input(int(i)); }
  llvm::StringMap<NodeValue> &values() override { return values_; }

public:
  OpContext(const onnx::NodeProto &node, const ImportOptions &opts, int64_t opset, Module &m,
            Function &f, llvm::StringMap<NodeValue> &values)
      : NodeBuilder(opts, m, f), node_(node), opset_(opset), values_(values) {}
  ~OpContext() override { llvm::consumeError(std::move(attrError_)); }

  const onnx::NodeProto &proto() const { return node_; }
  int64_t opset() const { return opset_; }
  /// The node's name, or its first output's when it has none.
  std::string baseName() const override;

  /// Inputs: an empty name means an omitted optional input.
  unsigned numInputs() const { return node_.input_size(); }
  bool hasInput(unsigned i) const { return int(i) < node_.input_size() && !node_.input(i).empty(); }
  llvm::Expected<NodeValue> input(unsigned i) override;

  unsigned numOutputs() const { return node_.output_size(); }
  bool hasOutput(unsigned i) const {
    return int(i) < node_.output_size() && !node_.output(i).empty();
  }
  /// Binds output \p i's name to \p v; a name defined twice is an error.
  llvm::Error setOutput(unsigned i, NodeValue v);

  /// Attribute readers: a missing attribute gives \p def; one of the wrong type records an error
  /// that the importer reports after the loader returns.
  bool hasAttr(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t def);
  float getFloat(llvm::StringRef name, float def);
  std::string getString(llvm::StringRef name, llvm::StringRef def);
  std::vector<int64_t> getInts(llvm::StringRef name, std::vector<int64_t> def = {});
  const onnx::TensorProto *getTensorAttr(llvm::StringRef name);
  llvm::Error takeAttrError() { return std::move(attrError_); }

  /// An error about this node's inputs or attributes (the importer adds the node and file).
  llvm::Error fail(const llvm::Twine &why) const;

  /// Imports the initializers and nodes of \p graph (an If branch, say) into the current
  /// function; they see every value defined so far. Afterwards value(name) finds its outputs.
  llvm::Error importSubgraph(const onnx::GraphProto &graph);
  /// The graph value an ONNX name is bound to.
  llvm::Expected<NodeValue> value(llvm::StringRef name) const;
};

/// "node 'conv3' (Conv)": how errors name an ONNX node.
std::string onnxNodeLabel(const onnx::NodeProto &n);

/// Normalizes \p axis (may be negative) for \p rank; error if out of range.
llvm::Expected<int64_t> normalizeAxis(int64_t axis, unsigned rank);
/// numpy's multidirectional broadcast of two shapes.
llvm::Expected<DimsVec> broadcastShapes(llvm::ArrayRef<dim_t> a, llvm::ArrayRef<dim_t> b);

} // namespace ember

#endif
