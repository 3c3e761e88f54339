// Small matching helpers shared by the graph passes: constants with one repeated value, single
// users, permutations, and transposing a constant's payload. Keep it small and general: a helper
// belongs here once two passes want it.
#ifndef EMBER_LIB_OPTIMIZER_PATTERNUTILS_H
#define EMBER_LIB_OPTIMIZER_PATTERNUTILS_H

#include "ember/Graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace ember {
namespace pattern {

/// Offers every node of \p F present now, in topological order (operands first), to
/// \p rewrite; nodes a rewrite creates are not offered. True if any rewrite returned true.
bool rewriteEach(Function &F, llvm::function_ref<bool(Node *)> rewrite);

/// The Constant \p v is, or null.
const Constant *asConstant(NodeValue v);

/// True if \p v is a Constant of a numeric kind (not bool, not quantized), or a chain of
/// Broadcast/Reshape nodes over one, whose every element equals \p value (compared as double,
/// so 0 matches -0 and nothing matches NaN). An empty constant does not match.
bool isSplatConstant(NodeValue v, double value);

/// The only node that uses \p v (maybe at several operand positions); null if none or several.
Node *getSingleUser(NodeValue v);

/// Permutations, as the Shuffle attribute holds them (result dim i is input dim p[i]).
bool isIdentityPermutation(llvm::ArrayRef<int64_t> p);
/// q with q[p[i]] = i: Transpose(Transpose(x, p), q) == x.
llvm::SmallVector<int64_t, 6> inversePermutation(llvm::ArrayRef<int64_t> p);
/// The single shuffle r with Transpose(Transpose(x, inner), outer) == Transpose(x, r).
llvm::SmallVector<int64_t, 6> composePermutations(llvm::ArrayRef<int64_t> inner,
                                                  llvm::ArrayRef<int64_t> outer);
/// \p dims permuted: result[i] = dims[p[i]].
DimsVec permuteDims(llvm::ArrayRef<dim_t> dims, llvm::ArrayRef<int64_t> p);

/// \p t transposed exactly as a Transpose node with Shuffle \p shuffle computes it (any element
/// kind; \p shuffle must be a permutation of t's rank).
Tensor transposeTensor(const Tensor &t, llvm::ArrayRef<int64_t> shuffle);

} // namespace pattern
} // namespace ember

#endif
