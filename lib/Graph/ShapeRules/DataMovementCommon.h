// Helpers shared by the data movement shape rules (DataMovement*.cpp).
#ifndef EMBER_LIB_GRAPH_SHAPERULES_DATAMOVEMENTCOMMON_H
#define EMBER_LIB_GRAPH_SHAPERULES_DATAMOVEMENTCOMMON_H

#include "Common.h"

namespace ember {
namespace shape {

/// Index operands (Gather, Scatter, ...) hold int32 or int64.
inline llvm::Error expectIndexKind(const Type &t, llvm::StringRef what) {
  if (t.kind != ElemKind::Int32 && t.kind != ElemKind::Int64)
    return makeError(what + " must be int32 or int64, got " + t.str());
  return llvm::Error::success();
}

/// \p axis must be a valid (already normalized) axis of \p t.
inline llvm::Error expectAxisOf(int64_t axis, const Type &t) {
  if (axis < 0 || axis >= int64_t(t.rank()))
    return makeError("axis " + llvm::Twine(axis) + " out of range for " + t.str());
  return llvm::Error::success();
}

/// Two operands whose element kinds (and quantization) must agree, dims aside.
inline llvm::Error expectSameElement(const Type &a, const Type &b, llvm::StringRef what) {
  if (a.withDims({}) != b.withDims({}))
    return makeError(what + " " + b.str() + " must have the element kind of " + a.str());
  return llvm::Error::success();
}

/// \p t with \p dims (size-checked).
inline llvm::Expected<TypeList> resultWithDims(const Type &t, llvm::ArrayRef<dim_t> dims) {
  EMBER_ASSIGN_OR_RETURN(Type checked, Type::checkedDims(t.kind, dims));
  return TypeList{t.withDims(checked.dims)};
}

} // namespace shape
} // namespace ember

#endif
