// Element-wise float32 kernels, vectorized by hand (the paths real models use): the activations,
// two-operand arithmetic, Clip; and Where on any element kind (the Unary functions' kernels are
// generated from their table in UnaryFunctions.cpp). The other kinds, Mod, Pow, comparisons
// and Cast are in Elementwise{Arith,Logic,Unary}.cpp, with the same signature per operation. Every kernel is `ember_<op>_f32(out, inputs..., n[, params])`;
// `out` may be exactly one of the inputs (in-place), never a partial overlap. Formulas follow the
// Interpreter's (ElementwiseUnary.cpp, Elementwise.cpp, ElementwiseLogic.cpp), including NaN
// behaviour; transcendental functions use the vector approximations of KernelCommon.h (within
// a few ulp, far inside the 1e-4 relative tolerance the tests hold every backend to).
#include "ElementwiseUtils.h"

namespace {

template <typename F>
EMBER_INLINE void map2(float *out, const float *a, const float *b, i64 n, F f) {
  i64 i = 0;
  for (; i + EMBER_VW <= n; i += EMBER_VW)
    storev(out + i, f(loadv(a + i), loadv(b + i)));
  if (i < n)
    storePartial(out + i, f(loadPartial(a + i, n - i), loadPartial(b + i, n - i)), n - i);
}

EMBER_INLINE Vec expm1Approx(Vec x) {
  // e^x - 1; near 0 the subtraction loses relative precision but keeps ~1e-7 absolute.
  return vexp(x) - 1.f;
}

} // namespace

#define UNARY_KERNEL(NAME, EXPR)                                                                   \
  EMBER_KERNEL void ember_##NAME##_f32(float *out, const float *in, i64 n, float pa, float pb) { \
    (void)pa;                                                                                      \
    (void)pb;                                                                                      \
    map1(out, in, n, [&](Vec x) -> Vec { return EXPR; });                                          \
  }

UNARY_KERNEL(relu, x < 0 ? splat(0.f) : x)
UNARY_KERNEL(sigmoid, vsigmoid(x))
UNARY_KERNEL(tanh, vtanh(x))
UNARY_KERNEL(leaky_relu, x < 0 ? pa * x : x)
UNARY_KERNEL(hard_sigmoid, vhardSigmoid(x, pa, pb))
UNARY_KERNEL(elu, x < 0 ? pa * expm1Approx(x) : x)
UNARY_KERNEL(selu, pb * (x <= 0 ? pa * expm1Approx(x) : x))
UNARY_KERNEL(celu, x < 0 ? pa * expm1Approx(x / pa) : x)
UNARY_KERNEL(thresholded_relu, x <= pa ? splat(0.f) : x)
#undef UNARY_KERNEL

#define BINARY_KERNEL(NAME, EXPR)                                                                  \
  EMBER_KERNEL void ember_##NAME##_f32(float *out, const float *lhs, const float *rhs, i64 n) {  \
    map2(out, lhs, rhs, n, [](Vec a, Vec b) -> Vec { return EXPR; });                              \
  }

BINARY_KERNEL(add, a + b)
BINARY_KERNEL(sub, a - b)
BINARY_KERNEL(mul, a *b)
BINARY_KERNEL(div, a / b)
// numpy's maximum/minimum: a NaN operand wins (the left one first).
BINARY_KERNEL(max, isnan(a) ? a : isnan(b) ? b : (a < b ? b : a))
BINARY_KERNEL(min, isnan(a) ? a : isnan(b) ? b : (b < a ? b : a))
BINARY_KERNEL(prelu, a < 0 ? b * a : a)

#undef BINARY_KERNEL

/// min(max(x, lo), hi) with lo and hi read from one-element tensors; NaN stays NaN, lo > hi
/// gives hi (numpy.clip).
EMBER_KERNEL void ember_clip_f32(float *out, const float *in, i64 n, const float *lo,
                                 const float *hi) {
  Vec l = splat(*lo), h = splat(*hi);
  map1(out, in, n, [&](Vec x) -> Vec { return clampKeepNaN(x, l, h); });
}

/// out[i] = cond[i] ? a[i] : b[i] for elements of any 1, 2, 4 or 8 byte kind.
#define WHERE_KERNEL(BITS, T)                                                                      \
  EMBER_KERNEL void ember_where_b##BITS(T *out, const u8 *cond, const T *a, const T *b, i64 n) { \
    for (i64 i = 0; i < n; ++i)                                                                    \
      out[i] = cond[i] ? a[i] : b[i];                                                              \
  }
WHERE_KERNEL(8, u8)
WHERE_KERNEL(16, u16)
WHERE_KERNEL(32, u32)
WHERE_KERNEL(64, u64)
#undef WHERE_KERNEL
