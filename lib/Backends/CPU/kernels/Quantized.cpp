// Quantization kernels: QuantizeLinear, Requantize, DequantizeLinear, DynamicQuantizeLinear, and
// the zero-point shift IntegerMatMul / IntegerConv start with (QuantizedInteger.cpp does the
// products). Formulas are the Interpreter's (lib/Backends/Interpreter/Quantized.cpp):
//  - quantizing rounds half to even (nearbyint in the default rounding mode), adds the zero point
//    in the scaled value's type, saturates to the 8-bit range, and maps NaN to the lowest value;
//  - QuantizeLinear divides in float32 for float32/float16/bfloat16 inputs and in float64 for
//    float64 and int32 inputs (numpy's promotions in ONNX's reference); Requantize multiplies in
//    float32.
//
// Scale and ZeroPoint operands have the rank of the tensor they describe, each dim 1 or equal
// (per-tensor, per-axis, per-row alike). Codegen passes the tensor's dims and each parameter's
// strides with 0 along its size-1 dims, adjacent dims merged where every parameter allows (a
// per-channel [1, C, 1, 1] over [N, C, H, W] walks [N, C, H * W]); the kernels walk rows of the
// innermost dim, so the parameter offset is computed once per row, and a row with one scale and
// zero point is a vectorized loop.
#include "Types.h"

namespace {

/// Calls f(first, n, pa, sa, pb, sb) for each row of the innermost dim of a rank-\p rank tensor
/// of dims \p dims: elements [first, first + n) whose parameters are at pa + j * sa (strides
/// \p sa) and pb + j * sb (strides \p sb) for j in [0, n).
template <typename F>
EMBER_INLINE void forEachRow(i64 rank, const i64 *dims, const i64 *sa, const i64 *sb, F f) {
  i64 inner = dims[rank - 1], outer = 1;
  for (i64 d = 0; d + 1 < rank; ++d)
    outer *= dims[d];
  for (i64 o = 0; o < outer; ++o) {
    i64 rest = o, pa = 0, pb = 0;
    for (i64 d = rank - 1; d-- > 0;) {
      i64 at = rest % dims[d];
      rest /= dims[d];
      pa += at * sa[d];
      pb += at * sb[d];
    }
    f(o * inner, inner, pa, sa[rank - 1], pb, sb[rank - 1]);
  }
}

/// round-half-to-even(v) + zeroPoint saturated to Q's range, NaN giving Q's lowest value
/// (ember/Semantics/Conversions.h, shared with the Interpreter), in the scaled value's type F.
template <typename Q, typename F> EMBER_INLINE Q roundAndSaturate(F v, i32 zeroPoint) {
  return ember::conversions::roundAndSaturate(v, zeroPoint, intMin<Q>(), intMax<Q>());
}

/// 16 elements of \p p (float32 or int32) as float32, as the scalar code converts them.
template <typename T> EMBER_INLINE Vec loadAsFloats(const T *p) {
  if constexpr (kSame<T, float>) {
    return loadv(p);
  } else {
    static_assert(kSame<T, i32>, "float32 or int32");
    IVec v;
    __builtin_memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, Vec);
  }
}

/// roundAndSaturate lane by lane, stored as 16 of Q: NaN gives the lowest value.
template <typename Q> EMBER_INLINE void storeRoundedAndSaturated(Q *out, Vec v, i32 zeroPoint) {
  typedef Q QVec __attribute__((ext_vector_type(EMBER_VW)));
  const Vec lo = splat(float(intMin<Q>())), hi = splat(float(intMax<Q>()));
  Vec q = __builtin_elementwise_roundeven(v) + float(zeroPoint);
  q = q >= lo ? q : lo; // also NaN
  q = q > hi ? hi : q;
  QVec r = __builtin_convertvector(__builtin_convertvector(q, IVec), QVec);
  __builtin_memcpy(out, &r, sizeof r);
}

/// The type QuantizeLinear divides in: float64 for float64 and int32 inputs, else float32.
template <typename T> struct DivisionOf {
  typedef float type;
};
template <> struct DivisionOf<double> {
  typedef double type;
};
template <> struct DivisionOf<i32> {
  typedef double type;
};

/// out = saturate(round(x / scale or x * scale) + zp); F is the type the scaling is done in.
template <typename T, typename Q, typename F, bool Divide>
EMBER_INLINE void quantize(Q *out, const T *in, const float *scale, const Q *zp, i64 rank,
                           const i64 *dims, const i64 *scaleStrides, const i64 *zpStrides) {
  forEachRow(rank, dims, scaleStrides, zpStrides,
             [&](i64 first, i64 n, i64 ps, i64 ss, i64 pz, i64 sz) {
               if (ss == 0 && sz == 0) {
                 // One scale and zero point for the row (per-tensor, per-channel): a loop
                 // LLVM vectorizes.
                 // Explicit vectors, not left to the loop vectorizer: inside a fused loop
                 // (CodeGenFusion.cpp) n is a 16-element chunk, which LLVM unrolls fully
                 // before it would vectorize, into scalar code.
                 F sc = F(scale[ps]);
                 i32 z = i32(zp[pz]);
                 i64 j = 0;
                 if constexpr (kSame<F, float> && (kSame<T, float> || kSame<T, i32>))
                   for (; j + EMBER_VW <= n; j += EMBER_VW) {
                     Vec v = loadAsFloats(in + first + j);
                     storeRoundedAndSaturated(out + first + j, Divide ? v / sc : v * sc, z);
                   }
                 for (; j < n; ++j) {
                   F v = F(ld(in, first + j));
                   out[first + j] = roundAndSaturate<Q, F>(Divide ? F(v / sc) : F(v * sc), z);
                 }
                 return;
               }
               for (i64 j = 0; j < n; ++j) {
                 F v = F(ld(in, first + j)), sc = F(scale[ps + j * ss]);
                 out[first + j] =
                     roundAndSaturate<Q, F>(Divide ? F(v / sc) : F(v * sc), i32(zp[pz + j * sz]));
               }
             });
}

} // namespace

#define QUANTIZE_KERNEL(SIN, TIN, SQ, TQ)                                                          \
  EMBER_KERNEL void ember_quantize_linear_##SIN##_##SQ(TQ *out, const TIN *in, const float *scale, \
                                                       const TQ *zp, i64 rank, const i64 *dims,   \
                                                       const i64 *scaleStrides,                   \
                                                       const i64 *zpStrides) {                    \
    quantize<TIN, TQ, typename DivisionOf<TIN>::type, true>(out, in, scale, zp, rank, dims,        \
                                                            scaleStrides, zpStrides);             \
  }
#define QUANTIZE_TO_BYTES(SIN, TIN) QUANTIZE_KERNEL(SIN, TIN, i8, i8) QUANTIZE_KERNEL(SIN, TIN, u8, u8)
EMBER_FOR_FLOAT_KINDS(QUANTIZE_TO_BYTES)
QUANTIZE_TO_BYTES(i32, i32)
#undef QUANTIZE_TO_BYTES
#undef QUANTIZE_KERNEL

#define REQUANTIZE_KERNEL(SQ, TQ)                                                                  \
  EMBER_KERNEL void ember_requantize_i32_##SQ(TQ *out, const i32 *in, const float *scale,         \
                                              const TQ *zp, i64 rank, const i64 *dims,            \
                                              const i64 *scaleStrides, const i64 *zpStrides) {    \
    quantize<i32, TQ, float, false>(out, in, scale, zp, rank, dims, scaleStrides, zpStrides);      \
  }
REQUANTIZE_KERNEL(i8, i8)
REQUANTIZE_KERNEL(u8, u8)
#undef REQUANTIZE_KERNEL

namespace {

/// float32 (x - zp) * scale, the difference taken exactly (in 64 bits) before the conversion.
template <typename T>
EMBER_INLINE void dequantize(float *out, const T *in, const float *scale, const T *zp, i64 rank,
                             const i64 *dims, const i64 *scaleStrides, const i64 *zpStrides) {
  forEachRow(rank, dims, scaleStrides, zpStrides,
             [&](i64 first, i64 n, i64 ps, i64 ss, i64 pz, i64 sz) {
               if (ss == 0 && sz == 0) { // one scale and zero point: vectorized
                 float sc = scale[ps];
                 i64 z = i64(zp[pz]);
                 i64 j = 0;
                 // Explicit vectors for 8 bits (as quantize's: a fused chunk is unrolled
                 // before the vectorizer runs); the difference of two bytes is exact in int32.
                 if constexpr (sizeof(T) == 1)
                   for (; j + EMBER_VW <= n; j += EMBER_VW) {
                     typedef T TVec __attribute__((ext_vector_type(EMBER_VW)));
                     TVec b;
                     __builtin_memcpy(&b, in + first + j, sizeof b);
                     IVec d = __builtin_convertvector(b, IVec) - i32(z);
                     storev(out + first + j, __builtin_convertvector(d, Vec) * sc);
                   }
                 for (; j < n; ++j)
                   out[first + j] = float(i64(in[first + j]) - z) * sc;
                 return;
               }
               for (i64 j = 0; j < n; ++j)
                 out[first + j] =
                     float(i64(in[first + j]) - i64(zp[pz + j * sz])) * scale[ps + j * ss];
             });
}

} // namespace

#define DEQUANTIZE_KERNEL(S, T)                                                                    \
  EMBER_KERNEL void ember_dequantize_linear_##S(float *out, const T *in, const float *scale,      \
                                                const T *zp, i64 rank, const i64 *dims,           \
                                                const i64 *scaleStrides, const i64 *zpStrides) {  \
    dequantize(out, in, scale, zp, rank, dims, scaleStrides, zpStrides);                           \
  }
DEQUANTIZE_KERNEL(i8, i8)
DEQUANTIZE_KERNEL(u8, u8)
DEQUANTIZE_KERNEL(i32, i32)
#undef DEQUANTIZE_KERNEL

/// uint8 quantization over [min(0, min x), max(0, max x)] (NaN ignored by the comparisons, as
/// std::min/std::max in the Interpreter): scale = range / 255, zero point round(-lo / scale); a
/// zero range gives scale 0, zero point 0 and all zeros.
EMBER_KERNEL void ember_dynamic_quantize_linear_f32(u8 *out, float *scaleOut, u8 *zpOut,
                                                    const float *in, i64 n) {
  float lo = 0, hi = 0;
  for (i64 i = 0; i < n; ++i) {
    lo = in[i] < lo ? in[i] : lo;
    hi = hi < in[i] ? in[i] : hi;
  }
  float scale = (hi - lo) / 255.0f;
  u8 zeroPoint = scale == 0 ? 0 : roundAndSaturate<u8, float>(-lo / scale, 0);
  for (i64 i = 0; i < n; ++i)
    out[i] = scale == 0 ? 0 : roundAndSaturate<u8, float>(in[i] / scale, zeroPoint);
  *scaleOut = scale;
  *zpOut = zeroPoint;
}

/// out = x - zp as int16 (x and zp of one 8-bit kind): the operands of IntegerMatMul and
/// IntegerConv, written to their scratch.
#define SHIFT_KERNEL(S, T)                                                                         \
  EMBER_KERNEL void ember_shift_zero_point_##S(i16 *out, const T *in, const T *zp, i64 rank,      \
                                               const i64 *dims, const i64 *zpStrides) {           \
    forEachRow(rank, dims, zpStrides, zpStrides,                                                   \
               [&](i64 first, i64 n, i64 pz, i64 sz, i64, i64) {                                   \
                 for (i64 j = 0; j < n; ++j)                                                       \
                   out[first + j] = i16(i16(in[first + j]) - i16(zp[pz + j * sz]));                \
               });                                                                                 \
  }
SHIFT_KERNEL(i8, i8)
SHIFT_KERNEL(u8, u8)
#undef SHIFT_KERNEL
