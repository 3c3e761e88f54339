// The Unary node's functions on every element kind of each one's domain, generated from their
// rows in ember/Graph/Nodes/ElementwiseFunctions.def: a function added there has its kernels
// here without another line. Every kernel is `ember_<name>_<kind>(out, in, n, pa, pb)` (the two
// float parameters unused, so codegen calls them as the activations' kernels). float32 runs the
// row's vector form (or a scalar loop over its float form); float64 computes in double and the
// 16-bit floats in float, rounded once, through the shared scalar formulas; integers and bool
// through the row's integer form, wrapping.
#include "ElementwiseUtils.h"
#include "Formulas.h"

namespace {

/// The unsigned type an integer form wraps through (U in the table's expressions).
template <typename T> struct WrapFor {
  typedef WrapOf<T> type;
};
template <> struct WrapFor<bool> {
  typedef unsigned type;
};

// Each row's forms as a struct of static functions.
#define FLOAT(...)                                                                                 \
  template <typename T> EMBER_INLINE T floatForm(T x) { return __VA_ARGS__; }
#define NO_FLOAT
#define INTEGER(...)                                                                               \
  template <typename T> EMBER_INLINE T integerForm(T x) {                                   \
    typedef typename WrapFor<T>::type U;                                                           \
    (void)sizeof(U);                                                                               \
    return __VA_ARGS__;                                                                            \
  }
#define NO_INTEGER
#define VECTOR(...)                                                                                \
  static constexpr bool kVector = true;                                                            \
  EMBER_INLINE Vec vectorForm(Vec x) { return __VA_ARGS__; }
#define SCALAR_ONLY static constexpr bool kVector = false;
#define UNARY_FUNCTION(E, NAME, DOMAIN, FLOAT_FORM, INTEGER_FORM, VECTOR_FORM, FUSE, DOC)     \
  struct E##Forms {                                                                                \
    FLOAT_FORM INTEGER_FORM VECTOR_FORM                                                            \
  };
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
#undef FLOAT
#undef NO_FLOAT
#undef INTEGER
#undef NO_INTEGER
#undef VECTOR
#undef SCALAR_ONLY

/// float32: the vector form a vector at a time, or a scalar loop (libm's functions).
template <typename F> EMBER_INLINE void float32Kernel(float *out, const float *in, i64 n) {
  if constexpr (F::kVector)
    map1(out, in, n, [](Vec x) -> Vec { return F::vectorForm(x); });
  else
    mapScalar(out, in, n, [](float x) { return F::floatForm(x); });
}

} // namespace

#define OTHER_FLOAT_KERNEL(NAME, E, S, T)                                                          \
  EMBER_KERNEL void ember_##NAME##_##S(T *out, const T *in, i64 n, float pa, float pb) {         \
    mapLoop(out, in, n, [](ComputeOf<T> x) { return E##Forms::floatForm(x); });                    \
  }
#define FLOAT_KERNELS(NAME, E)                                                                     \
  EMBER_KERNEL void ember_##NAME##_f32(float *out, const float *in, i64 n, float pa, float pb) { \
    float32Kernel<E##Forms>(out, in, n);                                                           \
  }                                                                                                \
  OTHER_FLOAT_KERNEL(NAME, E, f64, double)                                                         \
  OTHER_FLOAT_KERNEL(NAME, E, f16, f16)                                                            \
  OTHER_FLOAT_KERNEL(NAME, E, bf16, bf16)
#define INTEGER_KERNEL(S, T, NAME, E)                                                              \
  EMBER_KERNEL void ember_##NAME##_##S(T *out, const T *in, i64 n, float pa, float pb) {         \
    mapLoop(out, in, n, [](ComputeOf<T> x) { return E##Forms::integerForm(x); });                  \
  }
#define KERNELS_Float(NAME, E) FLOAT_KERNELS(NAME, E)
#define KERNELS_Signed(NAME, E)                                                                    \
  FLOAT_KERNELS(NAME, E) EMBER_FOR_SIGNED_INT_KINDS_WITH(INTEGER_KERNEL, NAME, E)
#define KERNELS_Numeric(NAME, E)                                                                   \
  FLOAT_KERNELS(NAME, E) EMBER_FOR_INT_KINDS_WITH(INTEGER_KERNEL, NAME, E)
#define KERNELS_Bool(NAME, E) INTEGER_KERNEL(bool, b8, NAME, E)
#define UNARY_FUNCTION(E, NAME, DOMAIN, FLOAT_FORM, INTEGER_FORM, VECTOR_FORM, FUSE, DOC)     \
  KERNELS_##DOMAIN(NAME, E)
#include "ember/Graph/Nodes/ElementwiseFunctions.def"
