// Element-wise arithmetic on every numeric kind but float32 (whose vectorized kernels are in
// Elementwise.cpp): Add, Sub, Mul, Div, Max, Min, Mod, PRelu, ShiftLeft, ShiftRight, and Pow for
// every base and exponent kind pair. Semantics of the Interpreter's Elementwise.cpp:
//  - integers wrap (computed in WrapOf<T>); 16-bit floats compute in float, round once;
//  - integer Div and Mod by zero are run-time errors: those kernels return nonzero (codegen calls
//    them through callChecked) after checking every divisor, before writing anything;
//  - min / -1 is min (wrapped) and min % -1 is 0, where the hardware would trap;
//  - Mod on floats is fmod (the dividend's sign); on integers FMod 0 takes the divisor's sign;
//  - Pow on integer ^ integer is exact with wrapping, else computed in double and converted as
//    Cast does (ints truncate and saturate); integer 0 to a negative power is an error.
// Kernels are `ember_<op>_<kind>(out, lhs, rhs, n[, fmod])`, Pow `ember_pow_<base>_<exp>`.
#include "ElementwiseUtils.h"
#include "Formulas.h"
#include "ember/Semantics/Remainder.h"

namespace {

template <typename T> EMBER_INLINE ComputeOf<T> addOf(ComputeOf<T> a, ComputeOf<T> b) {
  if constexpr (kIsInt<T>)
    return ComputeOf<T>(WrapOf<T>(a) + WrapOf<T>(b));
  else
    return a + b;
}
template <typename T> EMBER_INLINE ComputeOf<T> subOf(ComputeOf<T> a, ComputeOf<T> b) {
  if constexpr (kIsInt<T>)
    return ComputeOf<T>(WrapOf<T>(a) - WrapOf<T>(b));
  else
    return a - b;
}
template <typename T> EMBER_INLINE ComputeOf<T> mulOf(ComputeOf<T> a, ComputeOf<T> b) {
  if constexpr (kIsInt<T>)
    return ComputeOf<T>(WrapOf<T>(a) * WrapOf<T>(b));
  else
    return a * b;
}

/// numpy's maximum/minimum (ScalarFormulas.inc: a NaN operand wins, the left one first),
/// selecting the stored element itself so that a 16-bit NaN keeps its bits.
template <typename T> EMBER_INLINE void maxLoop(T *out, const T *a, const T *b, i64 n) {
  for (i64 i = 0; i < n; ++i) {
    ComputeOf<T> x = ld(a, i), y = ld(b, i);
    if constexpr (kIsFloat<T>)
      out[i] = ember_max_takes_second(x, y) ? b[i] : a[i];
    else
      out[i] = x < y ? b[i] : a[i];
  }
}
template <typename T> EMBER_INLINE void minLoop(T *out, const T *a, const T *b, i64 n) {
  for (i64 i = 0; i < n; ++i) {
    ComputeOf<T> x = ld(a, i), y = ld(b, i);
    if constexpr (kIsFloat<T>)
      out[i] = ember_min_takes_second(x, y) ? b[i] : a[i];
    else
      out[i] = y < x ? b[i] : a[i];
  }
}

template <typename C> EMBER_INLINE bool isNegative(C v) {
  if constexpr (C(-1) < C(0))
    return v < C(0);
  else
    return false;
}

/// Input < 0 ? Slope * Input : Input.
template <typename T> EMBER_INLINE void preluLoop(T *out, const T *x, const T *slope, i64 n) {
  for (i64 i = 0; i < n; ++i) {
    ComputeOf<T> v = ld(x, i), s = ld(slope, i);
    if (isNegative(v))
      st(out, i, mulOf<T>(s, v));
    else
      out[i] = x[i];
  }
}

template <typename T> EMBER_INLINE i64 intDiv(T *out, const T *a, const T *b, i64 n) {
  if (anyZero(b, n))
    return 1;
  for (i64 i = 0; i < n; ++i) {
    T x = a[i], y = b[i];
    if constexpr (kIsSigned<T>)
      if (y == T(-1)) {
        out[i] = T(WrapOf<T>(0) - WrapOf<T>(x)); // min / -1 would trap; wraps to min
        continue;
      }
    out[i] = T(x / y); // truncates toward zero
  }
  return 0;
}

template <typename T>
EMBER_INLINE i64 intMod(T *out, const T *a, const T *b, i64 n, i64 fmod) {
  if (anyZero(b, n))
    return 1;
  for (i64 i = 0; i < n; ++i) {
    if constexpr (kIsSigned<T>)
      out[i] = T(ember_signed_remainder(a[i], b[i], fmod == 0));
    else
      out[i] = T(a[i] % b[i]); // unsigned remainders have no sign to fix
  }
  return 0;
}

template <typename T> EMBER_INLINE T shiftLeftOf(T a, T b) {
  return b >= T(sizeof(T) * 8) ? T(0) : T(WrapOf<T>(a) << b);
}
template <typename T> EMBER_INLINE T shiftRightOf(T a, T b) {
  return b >= T(sizeof(T) * 8) ? T(0) : T(a >> b);
}

/// Base ^ Exponent, element-wise; nonzero when an integer 0 is raised to a negative power.
template <typename B, typename E>
EMBER_INLINE i64 powLoop(B *out, const B *base, const E *expo, i64 n) {
  if constexpr (kIsInt<B> && kIsInt<E>) {
    for (i64 i = 0; i < n; ++i) {
      B b = base[i];
      E e = expo[i];
      if constexpr (kIsSigned<E>) {
        if (e < E(0)) {
          // 1/b^|e| truncated toward zero, as the double result converted back would be.
          if (b == B(0))
            return 1;
          out[i] = b == B(1) ? B(1) : b == B(-1) ? B(e % E(2) ? -1 : 1) : B(0);
          continue;
        }
      }
      WrapOf<B> acc = 1, square = WrapOf<B>(b);
      for (typename UnsignedOf<E>::type bits = e; bits; bits >>= 1) {
        if (bits & 1)
          acc = WrapOf<B>(acc * square);
        square = WrapOf<B>(square * square);
      }
      out[i] = B(acc);
    }
  } else {
    for (i64 i = 0; i < n; ++i) {
      double r = pow(double(ld(base, i)), double(ld(expo, i)));
      st(out, i, convert<B, double>(r));
    }
  }
  return 0;
}

} // namespace

#define BINARY_KERNELS(S, T)                                                                       \
  EMBER_KERNEL void ember_add_##S(T *out, const T *a, const T *b, i64 n) {                        \
    zipLoop(out, a, b, n, addOf<T>);                                                               \
  }                                                                                                \
  EMBER_KERNEL void ember_sub_##S(T *out, const T *a, const T *b, i64 n) {                        \
    zipLoop(out, a, b, n, subOf<T>);                                                               \
  }                                                                                                \
  EMBER_KERNEL void ember_mul_##S(T *out, const T *a, const T *b, i64 n) {                        \
    zipLoop(out, a, b, n, mulOf<T>);                                                               \
  }                                                                                                \
  EMBER_KERNEL void ember_max_##S(T *out, const T *a, const T *b, i64 n) {                         \
    maxLoop(out, a, b, n);                                                                         \
  }                                                                                                \
  EMBER_KERNEL void ember_min_##S(T *out, const T *a, const T *b, i64 n) {                         \
    minLoop(out, a, b, n);                                                                         \
  }                                                                                                \
  EMBER_KERNEL void ember_prelu_##S(T *out, const T *x, const T *s, i64 n) {                      \
    preluLoop(out, x, s, n);                                                                       \
  }
EW_FOR_NON_F32_NUMERIC_KINDS(BINARY_KERNELS)
#undef BINARY_KERNELS

// Division: IEEE for floats (x/0 is inf or NaN), checked for integers.
#define FLOAT_DIV_KERNEL(S, T)                                                                     \
  EMBER_KERNEL void ember_div_##S(T *out, const T *a, const T *b, i64 n) {                        \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) { return x / y; });                   \
  }
EW_FOR_OTHER_FLOAT_KINDS(FLOAT_DIV_KERNEL)
#undef FLOAT_DIV_KERNEL

#define INT_DIV_KERNEL(S, T)                                                                       \
  EMBER_KERNEL i64 ember_div_##S(T *out, const T *a, const T *b, i64 n) {                         \
    return intDiv(out, a, b, n);                                                                   \
  }
EMBER_FOR_INT_KINDS(INT_DIV_KERNEL)
#undef INT_DIV_KERNEL

// Mod: fmod for every float kind (float32 included: it has no vector form), FMod 1 only (the
// shape rule refuses FMod 0 on floats); checked for integers.
#define FLOAT_MOD_KERNEL(S, T)                                                                     \
  EMBER_KERNEL void ember_mod_##S(T *out, const T *a, const T *b, i64 n, i64 fmod) {              \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) { return m_fmod(x, y); });            \
  }
EMBER_FOR_FLOAT_KINDS(FLOAT_MOD_KERNEL)
#undef FLOAT_MOD_KERNEL

#define INT_MOD_KERNEL(S, T)                                                                       \
  EMBER_KERNEL i64 ember_mod_##S(T *out, const T *a, const T *b, i64 n, i64 fmod) {               \
    return intMod(out, a, b, n, fmod);                                                             \
  }
EMBER_FOR_INT_KINDS(INT_MOD_KERNEL)
#undef INT_MOD_KERNEL

#define SHIFT_KERNELS(S, T)                                                                        \
  EMBER_KERNEL void ember_shift_left_##S(T *out, const T *a, const T *b, i64 n) {                 \
    zipLoop(out, a, b, n, shiftLeftOf<T>);                                                         \
  }                                                                                                \
  EMBER_KERNEL void ember_shift_right_##S(T *out, const T *a, const T *b, i64 n) {                \
    zipLoop(out, a, b, n, shiftRightOf<T>);                                                        \
  }
EMBER_FOR_UNSIGNED_INT_KINDS(SHIFT_KERNELS)
#undef SHIFT_KERNELS

// Pow: every base kind the Interpreter takes (floats, int32, int64) with every numeric exponent.
#define POW_KERNEL(BS, B, ES, E)                                                                   \
  EMBER_KERNEL i64 ember_pow_##BS##_##ES(B *out, const B *base, const E *expo, i64 n) {           \
    return powLoop(out, base, expo, n);                                                            \
  }
#define POW_KERNELS_FOR_BASE(BS, B)                                                                \
  POW_KERNEL(BS, B, f32, float)                                                                    \
  POW_KERNEL(BS, B, f64, double)                                                                   \
  POW_KERNEL(BS, B, f16, f16)                                                                      \
  POW_KERNEL(BS, B, bf16, bf16)                                                                    \
  POW_KERNEL(BS, B, i8, i8)                                                                        \
  POW_KERNEL(BS, B, i16, i16)                                                                      \
  POW_KERNEL(BS, B, i32, i32)                                                                      \
  POW_KERNEL(BS, B, i64, i64)                                                                      \
  POW_KERNEL(BS, B, u8, u8)                                                                        \
  POW_KERNEL(BS, B, u16, u16)                                                                      \
  POW_KERNEL(BS, B, u32, u32)                                                                      \
  POW_KERNEL(BS, B, u64, u64)
EMBER_FOR_FLOAT_KINDS(POW_KERNELS_FOR_BASE)
POW_KERNELS_FOR_BASE(i32, i32)
POW_KERNELS_FOR_BASE(i64, i64)
#undef POW_KERNELS_FOR_BASE
#undef POW_KERNEL
