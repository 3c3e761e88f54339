// Helpers shared by the shape-rule families in this folder.
#ifndef EMBER_LIB_GRAPH_SHAPERULES_COMMON_H
#define EMBER_LIB_GRAPH_SHAPERULES_COMMON_H

#include "../ShapeRules.h"

#include "ember/Support/Error.h"

#include <string>

namespace ember {
namespace shape {


inline llvm::Error expectRank(const Type &t, unsigned rank, llvm::StringRef what) {
  if (t.rank() != rank)
    return makeError(what + " must have rank " + llvm::Twine(rank) + ", got " + t.str());
  return llvm::Error::success();
}

inline llvm::Error expectFloat(const Type &t, llvm::StringRef what) {
  if (!isFloatKind(t.kind))
    return makeError(what + " must be floating point, got " + t.str());
  return llvm::Error::success();
}

inline llvm::Expected<TypeList> sameAsInput(llvm::ArrayRef<Type> in) { return TypeList{in[0]}; }

inline llvm::Expected<TypeList> elementwiseBinary(llvm::ArrayRef<Type> in) {
  if (in[0] != in[1])
    return makeError("operand types differ: " + in[0].str() + " vs " + in[1].str());
  return TypeList{in[0]};
}

/// The result dims of a convolution of \p x ([N, C, D1..Dn]) with filter \p w and bias \p b
/// under the window attributes (Kernels, Strides, Pads, Dilations, Group): groups, channels,
/// kernel sizes and window bounds checked. Shared by Conv and the integer convolutions; the
/// element kinds are the caller's to check.
llvm::Expected<DimsVec> convResultDims(const Type &x, const Type &w, const Type &b,
                                       const AttrList &attrs);

} // namespace shape
} // namespace ember

#endif
