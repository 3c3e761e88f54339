// Shared by the type-generic element-wise kernel files (ElementwiseArith.cpp,
// ElementwiseLogic.cpp, ElementwiseUnary.cpp): plain loops over the flat element index and the
// kind lists they are instantiated for.
//
// Operands of an element-wise instruction have the result's dims (the importer inserts
// Broadcasts), so every kernel is one contiguous loop; reading element i before writing element
// i keeps it right when the output is exactly one of the inputs (in place). No restrict: LLVM
// checks the overlap at run time before it vectorizes.
//
// The float32 kernels of the hot paths (Elementwise.cpp) are vectorized by hand; the kinds
// here compute through Types.h's ld/st (16-bit floats as float, integers wrapping).
#ifndef EMBER_CPU_KERNELS_ELEMENTWISEUTILS_H
#define EMBER_CPU_KERNELS_ELEMENTWISEUTILS_H

#include "Libm.h"
#include "Types.h"

// Every numeric kind but float32 (whose kernels are in Elementwise.cpp), and every float kind
// but float32.
#define EW_FOR_OTHER_FLOAT_KINDS(X) X(f64, double) X(f16, f16) X(bf16, bf16)
#define EW_FOR_NON_F32_NUMERIC_KINDS(X) EW_FOR_OTHER_FLOAT_KINDS(X) EMBER_FOR_INT_KINDS(X)

namespace {

/// out[i] = f(x[i]) through the compute types: In and Out are storage types.
template <typename Out, typename In, typename F>
EMBER_INLINE void mapLoop(Out *out, const In *x, i64 n, F f) {
  for (i64 i = 0; i < n; ++i)
    st(out, i, f(ld(x, i)));
}

/// out[i] = f(x[i]) for every i, a vector at a time (the tail through a padded vector).
template <typename F> EMBER_INLINE void map1(float *out, const float *x, i64 n, F f) {
  i64 i = 0;
  for (; i + EMBER_VW <= n; i += EMBER_VW)
    storev(out + i, f(loadv(x + i)));
  if (i < n)
    storePartial(out + i, f(loadPartial(x + i, n - i)), n - i);
}

/// Scalar fallback for functions without a vector form (libm calls): plain loop, in-place safe.
template <typename F> EMBER_INLINE void mapScalar(float *out, const float *x, i64 n, F f) {
  for (i64 i = 0; i < n; ++i)
    out[i] = f(x[i]);
}

/// out[i] = f(a[i], b[i]) through the compute types.
template <typename Out, typename A, typename B, typename F>
EMBER_INLINE void zipLoop(Out *out, const A *a, const B *b, i64 n, F f) {
  for (i64 i = 0; i < n; ++i) {
    ComputeOf<A> x = ld(a, i);
    ComputeOf<B> y = ld(b, i);
    st(out, i, f(x, y));
  }
}

/// Whether any of b[0..n) is zero (integer divisors), without an early exit so it vectorizes.
template <typename T> EMBER_INLINE bool anyZero(const T *b, i64 n) {
  bool zero = false;
  for (i64 i = 0; i < n; ++i)
    zero |= b[i] == T(0);
  return zero;
}

/// Whether compute value \p x is NaN (never for integers and bool).
template <typename C> EMBER_INLINE bool isNaNOf(C x) {
  if constexpr (kSame<C, float> || kSame<C, double>)
    return x != x;
  else
    return false;
}

} // namespace

#endif
