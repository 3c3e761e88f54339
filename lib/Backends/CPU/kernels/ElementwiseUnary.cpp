// One-operand element-wise kernels on the kinds Elementwise.cpp's float32 vector kernels do not
// cover, with the semantics of the Interpreter's ElementwiseUnary.cpp (the scalar formulas of
// ember/Semantics/ScalarFormulas.inc are shared with it):
//  - Unary's float functions on float64 (computed in double, libm's double functions) and
//    float16/bfloat16 (computed in float, libm's float functions, rounded once), its integer
//    functions (abs, neg, sign, erf; the most negative value is its own negation) and bool not;
//  - IsNaN and IsInf on every float kind (float32 included);
//  - the float activations on float64/float16/bfloat16, Relu on every numeric kind but float32,
//    Shrink on every numeric kind (computed in double, converted back as Cast does).
// Every kernel is `ember_<name>_<kind>(out, in, n, pa, pb)` with two float parameters (the
// activation's attributes; unused ones 0), as the float32 kernels, so codegen calls them alike.
#include "ElementwiseUtils.h"
#include "Formulas.h"

namespace {

enum Fn {
  FnAbs,
  FnNeg,
  FnSign,
  FnReciprocal,
  FnFloor,
  FnCeil,
  FnRound,
  FnExp,
  FnLog,
  FnSqrt,
  FnSin,
  FnCos,
  FnTan,
  FnAsin,
  FnAcos,
  FnAtan,
  FnSinh,
  FnCosh,
  FnAsinh,
  FnAcosh,
  FnAtanh,
  FnErf,
  FnSoftsign,
  FnSoftplus,
  FnHardSwish,
  FnGelu,
  FnGeluTanh,
  FnMish,
};

EMBER_INLINE float m_fabs(float x) { return __builtin_fabsf(x); }
EMBER_INLINE double m_fabs(double x) { return __builtin_fabs(x); }
EMBER_INLINE float m_floor(float x) { return __builtin_floorf(x); }
EMBER_INLINE double m_floor(double x) { return __builtin_floor(x); }
EMBER_INLINE float m_ceil(float x) { return __builtin_ceilf(x); }
EMBER_INLINE double m_ceil(double x) { return __builtin_ceil(x); }
// nearbyint in the default rounding mode: halves to even.
EMBER_INLINE float m_round(float x) { return __builtin_roundevenf(x); }
EMBER_INLINE double m_round(double x) { return __builtin_roundeven(x); }
EMBER_INLINE float m_sqrt(float x) { return __builtin_sqrtf(x); }
EMBER_INLINE double m_sqrt(double x) { return __builtin_sqrt(x); }

/// Function F of a float element, computed in C (float for the 16-bit kinds, or double).
template <Fn F, typename C> EMBER_INLINE C floatFunction(C x) {
  switch (F) {
  case FnAbs: return m_fabs(x);
  case FnNeg: return -x;
  case FnSign: return ember_sign(x);
  case FnReciprocal: return C(1) / x;
  case FnFloor: return m_floor(x);
  case FnCeil: return m_ceil(x);
  case FnRound: return m_round(x);
  case FnExp: return m_exp(x);
  case FnLog: return m_log(x);
  case FnSqrt: return m_sqrt(x);
  case FnSin: return m_sin(x);
  case FnCos: return m_cos(x);
  case FnTan: return m_tan(x);
  case FnAsin: return m_asin(x);
  case FnAcos: return m_acos(x);
  case FnAtan: return m_atan(x);
  case FnSinh: return m_sinh(x);
  case FnCosh: return m_cosh(x);
  case FnAsinh: return m_asinh(x);
  case FnAcosh: return m_acosh(x);
  case FnAtanh: return m_atanh(x);
  case FnErf: return m_erf(x);
  case FnSoftsign: return ember_softsign(x);
  case FnSoftplus: return ember_softplus(x);
  case FnHardSwish: return ember_hard_swish(x);
  case FnGelu: return ember_gelu(x);
  case FnGeluTanh: return ember_gelu_tanh(x);
  case FnMish: return ember_mish(x);
  }
  return x;
}

/// Function F of an integer element (wrapping): abs, neg, sign, erf.
template <Fn F, typename T> EMBER_INLINE T integerFunction(T x) {
  T negated = T(WrapOf<T>(0) - WrapOf<T>(x));
  bool negative = false;
  if constexpr (kIsSigned<T>)
    negative = x < T(0);
  switch (F) {
  case FnAbs: return negative ? negated : x;
  case FnNeg: return negated;
  case FnSign: return negative ? T(-1) : T(x != T(0));
  case FnErf: return convert<T, double>(erf(double(x)));
  default: return x;
  }
}

} // namespace

#define FLOAT_UNARY_KERNEL(NAME, F, S, T)                                                          \
  EMBER_KERNEL void ember_##NAME##_##S(T *out, const T *in, i64 n, float pa, float pb) {         \
    mapLoop(out, in, n, [](ComputeOf<T> x) { return floatFunction<F>(x); });                       \
  }
#define FLOAT_UNARY(NAME, F)                                                                       \
  FLOAT_UNARY_KERNEL(NAME, F, f64, double)                                                         \
  FLOAT_UNARY_KERNEL(NAME, F, f16, f16)                                                            \
  FLOAT_UNARY_KERNEL(NAME, F, bf16, bf16)
FLOAT_UNARY(abs, FnAbs)
FLOAT_UNARY(neg, FnNeg)
FLOAT_UNARY(sign, FnSign)
FLOAT_UNARY(reciprocal, FnReciprocal)
FLOAT_UNARY(floor, FnFloor)
FLOAT_UNARY(ceil, FnCeil)
FLOAT_UNARY(round, FnRound)
FLOAT_UNARY(exp, FnExp)
FLOAT_UNARY(log, FnLog)
FLOAT_UNARY(sqrt, FnSqrt)
FLOAT_UNARY(sin, FnSin)
FLOAT_UNARY(cos, FnCos)
FLOAT_UNARY(tan, FnTan)
FLOAT_UNARY(asin, FnAsin)
FLOAT_UNARY(acos, FnAcos)
FLOAT_UNARY(atan, FnAtan)
FLOAT_UNARY(sinh, FnSinh)
FLOAT_UNARY(cosh, FnCosh)
FLOAT_UNARY(asinh, FnAsinh)
FLOAT_UNARY(acosh, FnAcosh)
FLOAT_UNARY(atanh, FnAtanh)
FLOAT_UNARY(erf, FnErf)
FLOAT_UNARY(softsign, FnSoftsign)
FLOAT_UNARY(softplus, FnSoftplus)
FLOAT_UNARY(hard_swish, FnHardSwish)
FLOAT_UNARY(gelu, FnGelu)
FLOAT_UNARY(gelu_tanh, FnGeluTanh)
FLOAT_UNARY(mish, FnMish)
#undef FLOAT_UNARY
#undef FLOAT_UNARY_KERNEL

#define INT_UNARY_KERNEL(NAME, F, S, T)                                                            \
  EMBER_KERNEL void ember_##NAME##_##S(T *out, const T *in, i64 n, float pa, float pb) {         \
    mapLoop(out, in, n, [](T x) { return integerFunction<F>(x); });                                \
  }
#define INT_NUMERIC_UNARY(S, T)                                                                    \
  INT_UNARY_KERNEL(abs, FnAbs, S, T) INT_UNARY_KERNEL(sign, FnSign, S, T)                          \
      INT_UNARY_KERNEL(erf, FnErf, S, T)
#define INT_SIGNED_UNARY(S, T) INT_UNARY_KERNEL(neg, FnNeg, S, T)
EMBER_FOR_INT_KINDS(INT_NUMERIC_UNARY)
EMBER_FOR_SIGNED_INT_KINDS(INT_SIGNED_UNARY)
#undef INT_SIGNED_UNARY
#undef INT_NUMERIC_UNARY
#undef INT_UNARY_KERNEL

EMBER_KERNEL void ember_not_bool(b8 *out, const b8 *in, i64 n, float pa, float pb) {
  mapLoop(out, in, n, [](bool x) { return !x; });
}

// IsNaN and IsInf: bool results, every float kind.
#define PREDICATE_KERNELS(S, T)                                                                    \
  EMBER_KERNEL void ember_isnan_##S(b8 *out, const T *in, i64 n) {                                \
    mapLoop(out, in, n, [](ComputeOf<T> x) -> bool { return x != x; });                            \
  }                                                                                                \
  EMBER_KERNEL void ember_isinf_##S(b8 *out, const T *in, i64 n, i64 negative, i64 positive) {    \
    typedef ComputeOf<T> C;                                                                        \
    C inf = C(__builtin_inf());                                                                    \
    mapLoop(out, in, n, [=](C x) -> bool {                                                         \
      return x == -inf ? negative != 0 : x == inf ? positive != 0 : false;                         \
    });                                                                                            \
  }
EMBER_FOR_FLOAT_KINDS(PREDICATE_KERNELS)
#undef PREDICATE_KERNELS

// The float activations (alpha = pa, beta or gamma = pb), computed in C as the Interpreter.
#define ACTIVATION_KERNEL(NAME, S, T, EXPR)                                                        \
  EMBER_KERNEL void ember_##NAME##_##S(T *out, const T *in, i64 n, float pa, float pb) {         \
    typedef ComputeOf<T> C;                                                                        \
    C a = C(pa), b = C(pb);                                                                        \
    (void)a;                                                                                       \
    (void)b;                                                                                       \
    mapLoop(out, in, n, [=](C x) -> C { return EXPR; });                                           \
  }
#define FLOAT_ACTIVATIONS(S, T)                                                                    \
  ACTIVATION_KERNEL(sigmoid, S, T, ember_sigmoid(x))                                               \
  ACTIVATION_KERNEL(tanh, S, T, ember_tanh(x))                                                     \
  ACTIVATION_KERNEL(elu, S, T, ember_elu(x, a))                                                    \
  ACTIVATION_KERNEL(celu, S, T, ember_celu(x, a))                                                  \
  ACTIVATION_KERNEL(selu, S, T, ember_selu(x, a, b))                                               \
  ACTIVATION_KERNEL(hard_sigmoid, S, T, ember_hard_sigmoid(x, a, b))                               \
  ACTIVATION_KERNEL(leaky_relu, S, T, ember_leaky_relu(x, a))                                      \
  ACTIVATION_KERNEL(thresholded_relu, S, T, ember_thresholded_relu(x, a))
EW_FOR_OTHER_FLOAT_KINDS(FLOAT_ACTIVATIONS)
#undef FLOAT_ACTIVATIONS
#undef ACTIVATION_KERNEL

/// max(x, 0), the stored element itself when kept (NaN fails the test and stays).
#define RELU_KERNEL(S, T)                                                                          \
  EMBER_KERNEL void ember_relu_##S(T *out, const T *in, i64 n, float pa, float pb) {             \
    for (i64 i = 0; i < n; ++i) {                                                                  \
      ComputeOf<T> x = ld(in, i);                                                                  \
      if (x < ComputeOf<T>(0))                                                                     \
        st(out, i, ComputeOf<T>(0));                                                               \
      else                                                                                         \
        out[i] = in[i];                                                                            \
    }                                                                                              \
  }
EW_FOR_OTHER_FLOAT_KINDS(RELU_KERNEL)
EMBER_FOR_SIGNED_INT_KINDS(RELU_KERNEL)
#undef RELU_KERNEL
// Unsigned values are never negative: Relu copies.
#define RELU_UNSIGNED_KERNEL(S, T)                                                                 \
  EMBER_KERNEL void ember_relu_##S(T *out, const T *in, i64 n, float pa, float pb) {             \
    for (i64 i = 0; i < n; ++i)                                                                    \
      out[i] = in[i];                                                                              \
  }
EMBER_FOR_UNSIGNED_INT_KINDS(RELU_UNSIGNED_KERNEL)
#undef RELU_UNSIGNED_KERNEL

/// ember_shrink in double (bias = pa, lambd = pb, widened exactly from the float attributes),
/// converted back as Cast does.
#define SHRINK_KERNEL(S, T)                                                                        \
  EMBER_KERNEL void ember_shrink_##S(T *out, const T *in, i64 n, float pa, float pb) {           \
    double bias = pa, lambd = pb;                                                                  \
    mapLoop(out, in, n, [=](ComputeOf<T> v) {                                                      \
      return convert<T, double>(ember_shrink(double(v), bias, lambd));                             \
    });                                                                                            \
  }
EMBER_FOR_NUMERIC_KINDS(SHRINK_KERNEL)
#undef SHRINK_KERNEL
