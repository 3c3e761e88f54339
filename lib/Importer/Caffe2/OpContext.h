// What a Caffe2 operator loader sees: the operator's input blobs as graph values, its
// arguments, and helpers to create ember nodes named after it. Loaders are registered by
// operator type (OpRegistry), one family per file as in lib/Importer/ONNX. Semantics follow
// Caffe2's own CPU operators (pytorch/pytorch caffe2/operators); each loader cites its source.
#ifndef EMBER_LIB_IMPORTER_CAFFE2_OPCONTEXT_H
#define EMBER_LIB_IMPORTER_CAFFE2_OPCONTEXT_H

#include "../NodeBuilder.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include "caffe2.pb.h" // generated from Caffe2/caffe2.proto

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace ember {
struct ImportOptions;

namespace c2 {

/// A Caffe2 int8 blob's quantization (uint8 values q mean scale * (q - zeroPoint)). ember's
/// quantized node kinds take these as operands, so the loader keeps them beside the blob.
struct QuantParams {
  float scale = 1;
  int32_t zeroPoint = 0;
};

class OpContext;
using OpLoader = llvm::Error (*)(OpContext &ctx);

/// Operator type -> loader.
class OpRegistry {
  llvm::StringMap<OpLoader> loaders_;

public:
  void add(llvm::StringRef type, OpLoader load) { loaders_[type] = load; }
  OpLoader find(llvm::StringRef type) const {
    auto it = loaders_.find(type);
    return it == loaders_.end() ? nullptr : it->second;
  }
  std::vector<std::string> names() const;
  static const OpRegistry &get();
};

void registerFillOps(OpRegistry &r);
void registerElementwiseOps(OpRegistry &r);
void registerElementwiseMathOps(OpRegistry &r);
void registerNNOps(OpRegistry &r);
void registerNormalizationOps(OpRegistry &r);
void registerDataMovementOps(OpRegistry &r);
void registerLayoutOps(OpRegistry &r);
void registerReductionOps(OpRegistry &r);
void registerQuantizedOps(OpRegistry &r);
void registerSelectionOps(OpRegistry &r);
void registerPairwiseOps(OpRegistry &r);

class OpContext : public NodeBuilder {
  const caffe2::OperatorDef &op_;
  llvm::StringMap<NodeValue> &blobs_;
  llvm::StringMap<QuantParams> &quant_;
  llvm::Error argError_ = llvm::Error::success();
  llvm::SmallVector<unsigned, 2> undefined_;

  const caffe2::Argument *findArg(llvm::StringRef name) const;
  void argError(llvm::StringRef name, llvm::StringRef expected);

  std::string inputName(unsigned i) const override { return op_.input(int(i)); }
  llvm::StringMap<NodeValue> &values() override { return blobs_; }

public:
  OpContext(const caffe2::OperatorDef &op, const ImportOptions &opts, Module &m, Function &f,
            llvm::StringMap<NodeValue> &blobs, llvm::StringMap<QuantParams> &quant)
      : NodeBuilder(opts, m, f), op_(op), blobs_(blobs), quant_(quant) {}
  ~OpContext() override { llvm::consumeError(std::move(argError_)); }

  const caffe2::OperatorDef &proto() const { return op_; }
  /// The operator's name, or its first output's when it has none.
  std::string baseName() const override;

  unsigned numInputs() const { return unsigned(op_.input_size()); }
  llvm::Expected<NodeValue> input(unsigned i) override;

  unsigned numOutputs() const { return unsigned(op_.output_size()); }
  /// Binds output \p i's blob name to \p v. Caffe2 nets rebind names (in-place operators
  /// write their input's blob); readers after this operator see the new value.
  llvm::Error setOutput(unsigned i, NodeValue v);
  /// An int8 input's quantization; an error when input \p i is not an int8 blob.
  llvm::Expected<QuantParams> inputQuant(unsigned i) const;
  /// Binds output \p i to the uint8 value \p v quantized with \p q.
  llvm::Error setQuantOutput(unsigned i, NodeValue v, QuantParams q);

  /// Output \p i has no defined value in inference (Dropout's mask in test mode, LRN's scale
  /// buffer): its blob becomes unbound, so a later reader is refused by name.
  void leaveUndefined(unsigned i);
  bool isLeftUndefined(unsigned i) const {
    return std::find(undefined_.begin(), undefined_.end(), i) != undefined_.end();
  }

  /// Argument readers, as Caffe2's ArgumentHelper reads them: a missing argument gives \p def;
  /// one holding the wrong field (a float where an int is expected) records an error that the
  /// importer reports after the loader returns.
  bool hasArg(llvm::StringRef name) const { return findArg(name) != nullptr; }
  int64_t getInt(llvm::StringRef name, int64_t def);
  float getFloat(llvm::StringRef name, float def);
  std::string getString(llvm::StringRef name, llvm::StringRef def);
  std::vector<int64_t> getInts(llvm::StringRef name, std::vector<int64_t> def = {});
  std::vector<float> getFloats(llvm::StringRef name);
  const caffe2::Argument *arg(llvm::StringRef name) const { return findArg(name); }
  llvm::Error takeArgError() { return std::move(argError_); }

  /// An error about this operator's inputs or arguments (the importer adds op and file).
  llvm::Error fail(const llvm::Twine &why) const;

  /// \p value in \p like's element kind, broadcast to its dims (one element in memory).
  llvm::Expected<NodeValue> splat(NodeValue like, double value, llvm::StringRef suffix);
};

/// The operands of a binary operator of elementwise_ops.h (BinaryElementwiseWithArgsOp): with
/// `broadcast = 1`, B laid into A's shape by the legacy rule (a one-element B is a scalar);
/// otherwise both broadcast by numpy's rules. Both must have one element kind.
llvm::Error broadcastOperands(OpContext &ctx, NodeValue &a, NodeValue &b);

/// A `Unary` node applying \p function ("reciprocal", "softplus", ...) to \p x.
llvm::Expected<NodeValue> unaryFunction(OpContext &ctx, NodeValue x, llvm::StringRef function,
                                        llvm::StringRef suffix = "");

/// A `Reduce` node combining \p x along \p axes by \p reduction ("sum", "mean", ...); the
/// reduced dims stay, of size 1.
llvm::Expected<NodeValue> reduceAlong(OpContext &ctx, NodeValue x, llvm::StringRef reduction,
                                      std::vector<int64_t> axes, llvm::StringRef suffix);

/// "operator 'conv1' (Conv)": how errors name a Caffe2 operator (its name, else its first
/// output blob).
std::string caffe2OpLabel(const caffe2::OperatorDef &op);

/// Caffe2's DataType number -> ember's element kind.
llvm::Expected<ElemKind> elemKindFromCaffe2(int dataType);

} // namespace c2
} // namespace ember

#endif
