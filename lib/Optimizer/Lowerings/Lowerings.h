// The lowerings of Lowerings.def and the builder they share. A lowering writes its subgraph as a
// sequence of builder calls without checking each: after the first node that cannot be created
// every later call returns an empty value, and `replace` then declines. The `lower` pass erases
// whatever a declined lowering built, so a lowering may give up at any point.
#ifndef EMBER_LIB_OPTIMIZER_LOWERINGS_LOWERINGS_H
#define EMBER_LIB_OPTIMIZER_LOWERINGS_LOWERINGS_H

#include "ember/Graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace ember {

#define LOWERING(KIND, FN, DOC) bool FN(Function &F, Node &n);
#include "ember/Optimizer/Lowerings.def"

namespace lowering {

/// The element kinds on which the subgraphs of element-wise formulas and statistics stay within
/// the conformance tolerance of the node's kernel: the 16-bit kinds would round every
/// intermediate to 16 bits, which the node's kernel (computing in float or double) does not.
inline bool isWideFloat(ElemKind k) { return k == ElemKind::Float32 || k == ElemKind::Float64; }

/// Builds the nodes replacing one node, named after it.
class Builder {
  Function &F_;
  Node &orig_;
  bool failed_ = false;

public:
  Builder(Function &F, Node &orig) : F_(F), orig_(orig) {}

  /// A new node of \p kind; result \p resNo. Empty once anything failed.
  NodeValue create(NodeKind kind, llvm::ArrayRef<NodeValue> operands, AttrList attrs = {},
                   unsigned resNo = 0);
  /// A one-element Constant (rank 0) of kind \p k holding \p value.
  NodeValue scalar(ElemKind k, double value);
  /// \p value in every element of a \p k tensor of \p dims: a Broadcast of a scalar Constant
  /// (constant folding decides whether to materialize it).
  NodeValue splat(ElemKind k, llvm::ArrayRef<dim_t> dims, double value);
  /// \p value in every element of \p like's type.
  NodeValue splat(NodeValue like, double value);
  /// \p v broadcast (numpy, aligned right) to \p dims; \p v itself when it has them.
  NodeValue broadcast(NodeValue v, llvm::ArrayRef<dim_t> dims) {
    return toDims(NodeKind::Broadcast, v, dims);
  }
  NodeValue reshape(NodeValue v, llvm::ArrayRef<dim_t> dims) {
    return toDims(NodeKind::Reshape, v, dims);
  }
  /// A per-channel vector \p v ([C]) repeated along axis 1 of \p dims ([N, C, ...]).
  NodeValue perChannel(NodeValue v, llvm::ArrayRef<dim_t> dims);
  NodeValue unary(llvm::StringRef function, NodeValue v);
  NodeValue binary(NodeKind kind, NodeValue lhs, NodeValue rhs) {
    return create(kind, {lhs, rhs});
  }
  /// \p count elements of \p v from \p start along \p axis (all of every other axis).
  NodeValue slice(NodeValue v, size_t axis, dim_t start, dim_t count);
  /// Reduce \p v by \p reduction over \p axes (kept with size 1).
  NodeValue reduce(llvm::StringRef reduction, NodeValue v, llvm::ArrayRef<int64_t> axes);
  /// The node a fused activation (Nodes/FusedActivations.def) stands
  /// for, applied to \p v; \p v itself for none.
  NodeValue activation(llvm::StringRef name, llvm::ArrayRef<float> args, NodeValue v);

  /// Points the users of result i of the original node at \p results[i] (empty values for
  /// results nobody uses), provided every replacement has the result's type; otherwise, or
  /// after a failure, changes nothing and returns false.
  bool replace(llvm::ArrayRef<NodeValue> results);

private:
  NodeValue toDims(NodeKind kind, NodeValue v, llvm::ArrayRef<dim_t> dims);
};

} // namespace lowering
} // namespace ember

#endif
