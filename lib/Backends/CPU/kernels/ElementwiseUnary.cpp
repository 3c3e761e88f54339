// One-operand element-wise kernels on the kinds Elementwise.cpp's float32 vector kernels do not
// cover, with the semantics of the Interpreter's ElementwiseUnary.cpp (the scalar formulas of
// ember/Semantics/ScalarFormulas.inc are shared with it; the Unary functions' kernels are
// generated from their table in UnaryFunctions.cpp):
//  - IsNaN and IsInf on every float kind (float32 included);
//  - the float activations on float64/float16/bfloat16, Relu on every numeric kind but float32,
//    Shrink on every numeric kind (computed in double, converted back as Cast does).
// Every kernel is `ember_<name>_<kind>(out, in, n, pa, pb)` with two float parameters (the
// activation's attributes; unused ones 0), as the float32 kernels, so codegen calls them alike.
#include "ElementwiseUtils.h"
#include "Formulas.h"

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
