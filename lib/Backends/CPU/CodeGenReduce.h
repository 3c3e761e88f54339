// Shared by the reduce and normalization codegen (CodeGenReduce.cpp, CodeGenNormalization.cpp):
// the grouped view of a tensor that the generic reduction kernels walk (kernels/ReduceCommon.h:
// forEachRun) and the codes of run-time float kinds.
#ifndef EMBER_LIB_BACKENDS_CPU_CODEGENREDUCE_H
#define EMBER_LIB_BACKENDS_CPU_CODEGENREDUCE_H

#include "CodeGenUtils.h"

namespace ember {
namespace cpu {

/// The most axes the generic kernels walk (forEachRun's odometer).
constexpr size_t kMaxReduceRank = 16;

/// A tensor with some axes reduced, for the kernels: axes of size 1 dropped, neighbours of the
/// same class (reduced or kept) merged; per merged axis its size and its group stride (0 when
/// reduced, else the row-major stride over the kept axes).
struct ReduceView {
  llvm::SmallVector<int64_t, 8> dims, groupStrides;
  llvm::SmallVector<bool, 8> reduced;
  int64_t groups = 1; ///< product of the kept dims
  int64_t count = 1;  ///< product of the reduced dims: elements per group
  /// How many runs of reduced axes the merged view has (0 or 1: a [outer, len, inner] view).
  unsigned reducedRuns() const {
    unsigned n = 0;
    for (bool r : reduced)
      n += r;
    return n;
  }
};

inline ReduceView makeReduceView(llvm::ArrayRef<dim_t> dims, llvm::ArrayRef<int64_t> axes) {
  llvm::SmallVector<bool, 8> mask(dims.size(), false);
  for (int64_t a : axes)
    mask[size_t(a)] = true;
  ReduceView v;
  for (size_t a = 0; a < dims.size(); ++a) {
    (mask[a] ? v.count : v.groups) *= int64_t(dims[a]);
    if (dims[a] == 1)
      continue;
    if (!v.dims.empty() && v.reduced.back() == mask[a]) {
      v.dims.back() *= int64_t(dims[a]);
    } else {
      v.dims.push_back(int64_t(dims[a]));
      v.reduced.push_back(mask[a]);
    }
  }
  if (v.dims.empty()) { // a single element
    v.dims.push_back(1);
    v.reduced.push_back(false);
  }
  v.groupStrides.assign(v.dims.size(), 0);
  int64_t stride = 1;
  for (size_t a = v.dims.size(); a-- > 0;)
    if (!v.reduced[a]) {
      v.groupStrides[a] = stride;
      stride *= v.dims[a];
    }
  return v;
}

/// Numbers: every kind but bool, the quantized and the narrow ones (the Interpreter's
/// isNumericKind).
inline bool isNumber(ElemKind k) {
  return k != ElemKind::Bool && !isQuantizedKind(k) && !isNarrowKind(k);
}

} // namespace cpu
} // namespace ember

#endif
