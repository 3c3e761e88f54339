// Arithmetic on dims that the importers and the backends share.
#ifndef EMBER_BASE_DIMS_H
#define EMBER_BASE_DIMS_H

#include "ember/Base/Type.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstddef>
#include <cstdint>

namespace ember {

/// The product of dims[begin, end): the element count of that block of axes (1 when empty).
inline dim_t dimsProduct(llvm::ArrayRef<dim_t> dims, size_t begin, size_t end) {
  dim_t p = 1;
  for (size_t i = begin; i < end; ++i)
    p *= dims[i];
  return p;
}

/// The product of every dim of \p dims (1 for none).
inline dim_t dimsProduct(llvm::ArrayRef<dim_t> dims) { return dimsProduct(dims, 0, dims.size()); }

/// dimsProduct as the int64 that kernels' parameters and the backends' arithmetic on them take.
inline int64_t dimsProductAsInt64(llvm::ArrayRef<dim_t> dims, size_t begin, size_t end) {
  return int64_t(dimsProduct(dims, begin, end));
}

} // namespace ember

#endif
