// Det for the float kinds, with the Interpreter's semantics: each matrix is copied to double in
// scratch and factorized by ember/Semantics/Determinant.h, shared with the Interpreter and the
// OpenCL kernels.
#include "ReduceCommon.h"

#include "ember/Semantics/Determinant.h"

namespace {

/// \p count matrices of \p m x \p m; \p scratch holds m * m doubles.
template <typename T>
EMBER_INLINE void det(T *out, const T *in, double *scratch, i64 count, i64 m) {
  for (i64 b = 0; b < count; ++b) {
    for (i64 i = 0; i < m * m; ++i)
      scratch[i] = loadD(in, b * m * m + i);
    out[b] = fromDouble<T>(ember_determinant(scratch, m));
  }
}

} // namespace

#define EMBER_DET(sfx, T)                                                                          \
  EMBER_KERNEL EMBER_NOINLINE void ember_det_##sfx(T *out, const T *in, double *scratch,          \
                                                   i64 count, i64 m) {                             \
    det<T>(out, in, scratch, count, m);                                                            \
  }
EMBER_FOR_FLOAT_KINDS(EMBER_DET)
#undef EMBER_DET
