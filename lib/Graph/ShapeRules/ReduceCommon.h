// Checks shared by the shape rules of the reduction, normalization and selection family.
#ifndef EMBER_LIB_GRAPH_SHAPERULES_REDUCECOMMON_H
#define EMBER_LIB_GRAPH_SHAPERULES_REDUCECOMMON_H

#include "Common.h"

namespace ember {
namespace shape {

/// Numbers: every element kind but bool and the quantized ones.
inline llvm::Error expectNumeric(const Type &t, llvm::StringRef what) {
  if (t.kind == ElemKind::Bool || t.isQuantized())
    return makeError(what + " must be a number, got " + t.str());
  return llvm::Error::success();
}

inline llvm::Error expectAxis(int64_t axis, const Type &t) {
  if (axis < 0 || axis >= int64_t(t.rank()))
    return makeError("axis " + llvm::Twine(axis) + " out of range for " + t.str());
  return llvm::Error::success();
}

/// Axes in [0, rank), strictly increasing (so each appears once).
inline llvm::Error expectSortedAxes(llvm::ArrayRef<int64_t> axes, const Type &t) {
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] < 0 || axes[i] >= int64_t(t.rank()) || (i && axes[i] <= axes[i - 1]))
      return makeError("axes " + intsToString(axes) + " must be increasing and within rank " +
                       llvm::Twine(t.rank()) + " of " + t.str());
  return llvm::Error::success();
}

/// A per-channel parameter: a float vector of \p channels elements.
inline llvm::Error expectChannelVector(const Type &t, dim_t channels, llvm::StringRef what) {
  if (!isFloatKind(t.kind) || t.rank() != 1 || t.dims[0] != channels)
    return makeError(what + " must be a float vector of " + llvm::Twine(channels) +
                     " elements, got " + t.str());
  return llvm::Error::success();
}

} // namespace shape
} // namespace ember

#endif
