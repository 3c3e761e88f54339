// Small helpers shared by several Interpreter kernel files.
#ifndef EMBER_LIB_BACKENDS_INTERPRETER_KERNELUTILS_H
#define EMBER_LIB_BACKENDS_INTERPRETER_KERNELUTILS_H

#include "Kernels.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstddef>

namespace ember {
namespace interp {

/// Product of dims[begin, end): the element count of that block of axes (1 when empty).
inline size_t dimsProduct(llvm::ArrayRef<dim_t> dims, size_t begin, size_t end) {
  size_t p = 1;
  for (size_t i = begin; i < end; ++i)
    p *= dims[i];
  return p;
}

/// Row-major strides of \p dims, in elements.
inline DimsVec rowMajorStrides(llvm::ArrayRef<dim_t> dims) {
  DimsVec strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    strides[i - 1] = strides[i] * dims[i];
  return strides;
}

/// The error for kernels that exist only for float32: hasKernel() keeps other kinds away from
/// them, but an IR built by hand must still get an error rather than garbage.
inline llvm::Error expectFloat32(const KernelContext &ctx) {
  ElemKind k = ctx.out().type.kind;
  if (k == ElemKind::Float32)
    return llvm::Error::success();
  return ctx.unsupported("no kernel for element kind " + elemKindName(k) + " (float32 only)");
}

} // namespace interp
} // namespace ember

#endif
