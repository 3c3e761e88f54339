// Element-wise kernels that compare, combine truth values, clamp or convert, with the semantics
// of the Interpreter's ElementwiseLogic.cpp:
//  - Equal, Less, LessOrEqual, Greater, GreaterOrEqual on every numeric kind and bool, bool
//    result; floats compare as IEEE (NaN compares false), 16-bit floats as float;
//  - And, Or, Xor on bool and the integer kinds (bitwise);
//  - Clip on every numeric kind but float32 (Elementwise.cpp has its vector form);
//  - Cast between every pair of numeric and bool kinds (Types.h's convert, except to bfloat16),
//    and to and from the narrow kinds (ember/Semantics/NarrowKinds.h).
// (Where, which moves bytes, is in Elementwise.cpp.)
#include "ElementwiseUtils.h"

#include "ember/Semantics/NarrowKinds.h"

#define COMPARE_KERNELS(S, T)                                                                      \
  EMBER_KERNEL void ember_equal_##S(b8 *out, const T *a, const T *b, i64 n) {                     \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) -> bool { return x == y; });          \
  }                                                                                                \
  EMBER_KERNEL void ember_less_##S(b8 *out, const T *a, const T *b, i64 n) {                      \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) -> bool { return x < y; });           \
  }                                                                                                \
  EMBER_KERNEL void ember_less_equal_##S(b8 *out, const T *a, const T *b, i64 n) {                \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) -> bool { return x <= y; });          \
  }                                                                                                \
  EMBER_KERNEL void ember_greater_##S(b8 *out, const T *a, const T *b, i64 n) {                   \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) -> bool { return x > y; });           \
  }                                                                                                \
  EMBER_KERNEL void ember_greater_equal_##S(b8 *out, const T *a, const T *b, i64 n) {             \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) -> bool { return x >= y; });          \
  }
EMBER_FOR_ALL_KINDS(COMPARE_KERNELS)
#undef COMPARE_KERNELS

/// Bitwise on bool (whose values are 0 and 1: the logical operations) and the integer kinds.
#define BITWISE_KERNELS(S, T)                                                                      \
  EMBER_KERNEL void ember_and_##S(T *out, const T *a, const T *b, i64 n) {                        \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) -> ComputeOf<T> { return x & y; });  \
  }                                                                                                \
  EMBER_KERNEL void ember_or_##S(T *out, const T *a, const T *b, i64 n) {                         \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) -> ComputeOf<T> { return x | y; });  \
  }                                                                                                \
  EMBER_KERNEL void ember_xor_##S(T *out, const T *a, const T *b, i64 n) {                        \
    zipLoop(out, a, b, n, [](ComputeOf<T> x, ComputeOf<T> y) -> ComputeOf<T> { return x ^ y; });  \
  }
EMBER_FOR_INT_KINDS(BITWISE_KERNELS)
BITWISE_KERNELS(bool, b8)
#undef BITWISE_KERNELS

/// min(max(x, lo), hi) with lo and hi read from one-element tensors of the input's kind: a NaN
/// input fails both comparisons and stays NaN; lo > hi gives hi (numpy.clip).
#define CLIP_KERNEL(S, T)                                                                          \
  EMBER_KERNEL void ember_clip_##S(T *out, const T *in, i64 n, const T *lo, const T *hi) {        \
    ComputeOf<T> l = ld(lo, 0), h = ld(hi, 0);                                                     \
    mapLoop(out, in, n, [l, h](ComputeOf<T> x) {                                                   \
      x = x < l ? l : x;                                                                           \
      return h < x ? h : x;                                                                        \
    });                                                                                            \
  }
EW_FOR_NON_F32_NUMERIC_KINDS(CLIP_KERNEL)
#undef CLIP_KERNEL

namespace {

/// Cast's conversion: Types.h's convert, except that to bfloat16 the float value's low 16 bits
/// are dropped (NaN stays a quiet NaN): ONNX 1.12's reference and the onnxruntime of its time
/// cast that way and the suite's expected outputs come from them (the Interpreter's castElement).
template <typename To, typename From> EMBER_INLINE To castElement(From x) {
  if constexpr (kSame<To, bf16> && !kSame<From, bf16>) {
    float f = convert<float, From>(Elem<From>::load(x));
    u32 bits = ember::halfbits::bitsOf(f);
    return bf16{u16((bits >> 16) | (f != f ? 0x40 : 0))};
  } else if constexpr (kSame<To, From>) {
    return x;
  } else {
    return Elem<To>::store(convert<To, From>(Elem<From>::load(x)));
  }
}

} // namespace

#define CAST_KERNEL(FS, F, TS, T)                                                                  \
  EMBER_KERNEL void ember_cast_##FS##_##TS(T *out, const F *in, i64 n) {                          \
    for (i64 i = 0; i < n; ++i)                                                                    \
      out[i] = castElement<T, F>(in[i]);                                                           \
  }
#define CAST_KERNELS_FROM(FS, F)                                                                   \
  CAST_KERNEL(FS, F, f32, float)                                                                   \
  CAST_KERNEL(FS, F, f64, double)                                                                  \
  CAST_KERNEL(FS, F, f16, f16)                                                                     \
  CAST_KERNEL(FS, F, bf16, bf16)                                                                   \
  CAST_KERNEL(FS, F, i8, i8)                                                                       \
  CAST_KERNEL(FS, F, i16, i16)                                                                     \
  CAST_KERNEL(FS, F, i32, i32)                                                                     \
  CAST_KERNEL(FS, F, i64, i64)                                                                     \
  CAST_KERNEL(FS, F, u8, u8)                                                                       \
  CAST_KERNEL(FS, F, u16, u16)                                                                     \
  CAST_KERNEL(FS, F, u32, u32)                                                                     \
  CAST_KERNEL(FS, F, u64, u64)                                                                     \
  CAST_KERNEL(FS, F, bool, b8)
EMBER_FOR_ALL_KINDS(CAST_KERNELS_FROM)
#undef CAST_KERNELS_FROM
#undef CAST_KERNEL

// Cast to and from the narrow kinds, whose NarrowKinds.h code is an argument: to one from
// every other kind through double, from one to every other kind through float (the
// Interpreter's castNarrow).
#define NARROW_CAST_KERNELS(S, T)                                                                  \
  EMBER_KERNEL void ember_cast_##S##_narrow(u8 *out, const T *in, i64 n, i64 code,               \
                                            i64 saturate) {                                        \
    for (i64 i = 0; i < n; ++i)                                                                    \
      out[i] = u8(ember_narrow_from_double(code, convert<double, T>(Elem<T>::load(in[i])),       \
                                           saturate));                                             \
  }                                                                                                \
  EMBER_KERNEL void ember_cast_narrow_##S(T *out, const u8 *in, i64 n, i64 code) {               \
    for (i64 i = 0; i < n; ++i)                                                                    \
      out[i] = castElement<T, float>(ember_narrow_to_float(code, in[i]));                          \
  }
EMBER_FOR_ALL_KINDS(NARROW_CAST_KERNELS)
#undef NARROW_CAST_KERNELS

EMBER_KERNEL void ember_cast_narrow_narrow(u8 *out, const u8 *in, i64 n, i64 fromCode,
                                           i64 toCode, i64 saturate) {
  for (i64 i = 0; i < n; ++i)
    out[i] = u8(ember_narrow_from_double(toCode, ember_narrow_to_float(fromCode, in[i]), saturate));
}
