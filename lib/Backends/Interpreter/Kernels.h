// The Interpreter's kernels: one function per instruction kind, `run<Kind>`, grouped by family
// in this folder (Elementwise.cpp, NNConv.cpp, NNMatMul.cpp, NNPool.cpp, Normalization.cpp,
// DataMovement.cpp). Kernels are the reference: plain loops, written to be obviously right.
#ifndef EMBER_LIB_BACKENDS_INTERPRETER_KERNELS_H
#define EMBER_LIB_BACKENDS_INTERPRETER_KERNELS_H

#include "ember/IR/IR.h"

#include "llvm/Support/Casting.h"
#include "llvm/Support/Error.h"

namespace ember {
namespace interp {

/// A tensor operand: its address in the planned memory and its type.
struct TensorArg {
  uint8_t *data;
  const Type &type;
  template <typename T> T *as() const { return reinterpret_cast<T *>(data); }
  size_t numElements() const { return type.numElements(); }
  size_t sizeInBytes() const { return type.sizeInBytes(); }
  const DimsVec &dims() const { return type.dims; }
};

/// What a kernel sees: the instruction and where its operands live.
class KernelContext {
  const Instruction &instr_;
  uint8_t *const *regions_; // indexed by MemRegion

  TensorArg arg(const IRValue *v) const {
    return TensorArg{regions_[unsigned(regionOf(v))] + v->offset, v->getType()};
  }

public:
  KernelContext(const Instruction &I, uint8_t *const *regions) : instr_(I), regions_(regions) {}
  const Instruction &instr() const { return instr_; }
  /// Result \p r of the node kind the instruction came from.
  TensorArg out(unsigned r = 0) const { return arg(instr_.getOutput(r)); }
  /// Operand \p i of the node kind (e.g. ops::Conv::Filter).
  TensorArg in(unsigned i) const { return arg(instr_.getInput(i)); }
  unsigned numInputs() const { return instr_.getNumInputs(); }
  template <AttrKind K> const typename AttrTraits<K>::type &attr() const {
    return instr_.attr<K>();
  }
  /// An error naming this instruction.
  llvm::Error unsupported(const llvm::Twine &why) const;
};

/// Per node kind K: `run<K>` executes an instruction of kind K, and `supports<K>` says whether
/// run<K> handles a node's element kinds. Both sit in the family's file.
llvm::Error runCopy(const KernelContext &ctx);
llvm::Error runStoreIteration(const KernelContext &ctx);
#define NODE(K, OPS, RES, ATTRS, ARITY, CAT, DOC)                                                  \
  llvm::Error run##K(const KernelContext &ctx);                                                    \
  bool supports##K(const Node &n);
#include "ember/Graph/Nodes.def"

/// Whether a kernel exists for this node kind and these element kinds.
bool hasKernel(const Node &n);

} // namespace interp
} // namespace ember

#endif
