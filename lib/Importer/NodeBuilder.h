// What every operator loader builds the graph with, whatever the model format: nodes and
// constants named after the operator being loaded, the reshapes, broadcasts and transposes
// loaders insert, and operands folded to constants when they must be known at compile time.
// The ONNX and Caffe2 OpContexts derive from it and add what their format's operators carry.
#ifndef EMBER_LIB_IMPORTER_NODEBUILDER_H
#define EMBER_LIB_IMPORTER_NODEBUILDER_H

#include "ember/Graph/Graph.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ember {

struct ImportOptions;

class NodeBuilder {
protected:
  const ImportOptions &opts_;
  Module &module_;
  Function &fn_;

  /// Input \p i's name in the model, and the map from names to the values bound so far (a
  /// folded operand is rebound in it).
  virtual std::string inputName(unsigned i) const = 0;
  virtual llvm::StringMap<NodeValue> &values() = 0;

public:
  NodeBuilder(const ImportOptions &opts, Module &m, Function &f)
      : opts_(opts), module_(m), fn_(f) {}
  virtual ~NodeBuilder() = default;

  Module &module() { return module_; }
  /// The name of what is being loaded (the operator's, else its first output's): the nodes
  /// created for it are named after it.
  virtual std::string baseName() const = 0;

  /// Input \p i as a graph value; an error naming it when it is missing or not yet defined.
  virtual llvm::Expected<NodeValue> input(unsigned i) = 0;
  /// Inputs 0 .. count-1, all required.
  llvm::Expected<llvm::SmallVector<NodeValue, 4>> inputs(unsigned count);
  /// Input \p i's value when it is a Constant (weights, shape tensors) or computed from
  /// Constants only (then evaluated once through ImportOptions::evaluateConstant, and the input
  /// rebound to the result), else an error.
  llvm::Expected<const Tensor *> constantInput(unsigned i);
  /// The values of inputs \p indices, all needed at compile time (\p why, when given, says why).
  /// Every input that is not known is reported at once (the errors joined), so that a tool binds
  /// all the graph inputs they need in one go rather than loading once per input.
  llvm::Expected<llvm::SmallVector<const Tensor *, 5>>
  constantInputs(llvm::ArrayRef<unsigned> indices, const llvm::Twine &why = "");
  /// A constant input read as int64 values (shapes, axes).
  llvm::Expected<std::vector<int64_t>> constantInts(unsigned i);

  /// Creates \p kind on \p operands, named after this operator (plus \p suffix).
  llvm::Expected<NodeValue> create(NodeKind kind, llvm::ArrayRef<NodeValue> operands,
                                   AttrList attrs = {}, llvm::StringRef suffix = "");
  Constant *createConstant(Tensor t, llvm::StringRef suffix);
  /// A zero-filled tensor of \p t for the constant \p what, refused when it exceeds the memory
  /// budget (-max-memory): a model's shapes may claim any size, and a loader allocating what
  /// they claim would be killed, not refuse the model.
  llvm::Expected<Tensor> newTensor(const Type &t, const llvm::Twine &what);
  /// A constant of \p kind and \p dims with every element \p value (an omitted operand's
  /// default: a zero bias, unit weights).
  llvm::Expected<NodeValue> createFilled(ElemKind kind, llvm::ArrayRef<dim_t> dims, double value,
                                         llvm::StringRef suffix);
  llvm::Expected<NodeValue> reshape(NodeValue v, llvm::ArrayRef<dim_t> dims);
  /// \p v converted to \p kind (a saturating Cast); \p v itself when it has that kind.
  llvm::Expected<NodeValue> castTo(NodeValue v, ElemKind kind, llvm::StringRef suffix = "cast");
  /// \p v broadcast (numpy rules) to \p dims; \p v itself when the dims already match.
  llvm::Expected<NodeValue> broadcastTo(NodeValue v, llvm::ArrayRef<dim_t> dims);
  /// Result dim i is \p v's dim perm[i].
  llvm::Expected<NodeValue> transpose(NodeValue v, llvm::ArrayRef<int64_t> perm,
                                      llvm::StringRef suffix = "transpose");
};

/// An integer tensor's values as int64 (shapes, axes); \p what names it in the error when the
/// tensor is not integer.
llvm::Expected<std::vector<int64_t>> tensorInts(const Tensor &t, const llvm::Twine &what);

} // namespace ember

#endif
