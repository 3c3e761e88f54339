// Shared by the type-generic element-wise kernel files (ElementwiseArith.cpp,
// ElementwiseLogic.cpp, ElementwiseUnary.cpp): plain loops over the flat element index, the
// kind lists they are instantiated for, and the libm functions they call.
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

#include "Types.h"

// Every numeric kind but float32 (whose kernels are in Elementwise.cpp), and every float kind
// but float32.
#define EW_FOR_OTHER_FLOAT_KINDS(X) X(f64, double) X(f16, f16) X(bf16, bf16)
#define EW_FOR_NON_F32_NUMERIC_KINDS(X) EW_FOR_OTHER_FLOAT_KINDS(X) EMBER_FOR_INT_KINDS(X)

extern "C" {
float expf(float);
double exp(double);
float expm1f(float);
double expm1(double);
float logf(float);
double log(double);
float log1pf(float);
double log1p(double);
float sinf(float);
double sin(double);
float cosf(float);
double cos(double);
float tanf(float);
double tan(double);
float asinf(float);
double asin(double);
float acosf(float);
double acos(double);
float atanf(float);
double atan(double);
float sinhf(float);
double sinh(double);
float coshf(float);
double cosh(double);
float tanhf(float);
double tanh(double);
float asinhf(float);
double asinh(double);
float acoshf(float);
double acosh(double);
float atanhf(float);
double atanh(double);
float erff(float);
double erf(double);
float fmodf(float, float);
double fmod(double, double);
double pow(double, double);
}

namespace {

/// The libm function for float or double, as the Interpreter's std:: overloads pick it.
#define EW_LIBM(NAME)                                                                              \
  EMBER_INLINE float m_##NAME(float x) { return NAME##f(x); }                                     \
  EMBER_INLINE double m_##NAME(double x) { return NAME(x); }
EW_LIBM(exp)
EW_LIBM(expm1)
EW_LIBM(log)
EW_LIBM(log1p)
EW_LIBM(sin)
EW_LIBM(cos)
EW_LIBM(tan)
EW_LIBM(asin)
EW_LIBM(acos)
EW_LIBM(atan)
EW_LIBM(sinh)
EW_LIBM(cosh)
EW_LIBM(tanh)
EW_LIBM(asinh)
EW_LIBM(acosh)
EW_LIBM(atanh)
EW_LIBM(erf)
#undef EW_LIBM
EMBER_INLINE float m_fmod(float a, float b) { return fmodf(a, b); }
EMBER_INLINE double m_fmod(double a, double b) { return fmod(a, b); }

/// out[i] = f(x[i]) through the compute types: In and Out are storage types.
template <typename Out, typename In, typename F>
EMBER_INLINE void mapLoop(Out *out, const In *x, i64 n, F f) {
  for (i64 i = 0; i < n; ++i)
    st(out, i, f(ld(x, i)));
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
