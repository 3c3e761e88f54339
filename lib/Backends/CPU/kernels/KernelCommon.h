// Shared by every file of the CPU backend's kernel library. The library is compiled by clang to
// LLVM bitcode (one per target architecture) and linked into each model's module, so it is
// freestanding: no C or C++ library headers, only clang builtins. memcpy/memset calls the
// compiler emits resolve against the process (JIT) or libc (bundles).
//
// Kernels take plain pointers and 64-bit sizes; codegen passes constants, so after inlining the
// loop bounds are known. Element-wise kernels work on fixed-width vectors (Vec) and process the
// ragged tail through a zero-padded temporary, so one code path computes every element and an
// output that is exactly one of the inputs (in-place, @inout) is safe: each vector of inputs is
// read before the same vector of the output is written.
#ifndef EMBER_CPU_KERNELS_KERNELCOMMON_H
#define EMBER_CPU_KERNELS_KERNELCOMMON_H

typedef __INT64_TYPE__ i64;
typedef __INT32_TYPE__ i32;
typedef __UINT64_TYPE__ u64;
typedef __UINT32_TYPE__ u32;
typedef __UINT16_TYPE__ u16;
typedef unsigned char u8;

#define EMBER_KERNEL extern "C" __attribute__((visibility("default")))
// Big kernels (GEMM, convolution drivers) stay calls: inlining them at every site would only
// multiply compile time, their loops are blocked around fixed-size micro-kernels anyway.
#define EMBER_NOINLINE __attribute__((noinline))
#define EMBER_INLINE static inline __attribute__((always_inline))

// Vector width in floats: one AVX-512 register, four NEON registers. Clang splits wider-than-
// native vectors into native ones, so the same source serves both ISAs.
#define EMBER_VW 16
typedef float Vec __attribute__((ext_vector_type(EMBER_VW)));
typedef i32 IVec __attribute__((ext_vector_type(EMBER_VW)));

EMBER_INLINE Vec loadv(const float *p) {
  Vec v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
EMBER_INLINE void storev(float *p, Vec v) { __builtin_memcpy(p, &v, sizeof v); }
EMBER_INLINE Vec splat(float x) { return (Vec)(x); }

/// Loads n < EMBER_VW floats into a zeroed vector / stores the first n lanes.
EMBER_INLINE Vec loadPartial(const float *p, i64 n) {
  float tmp[EMBER_VW] = {};
  for (i64 i = 0; i < n; ++i)
    tmp[i] = p[i];
  return loadv(tmp);
}
EMBER_INLINE void storePartial(float *p, Vec v, i64 n) {
  float tmp[EMBER_VW];
  storev(tmp, v);
  for (i64 i = 0; i < n; ++i)
    p[i] = tmp[i];
}

/// 16 vectors of 16 lanes (floats or bytes), a 16 x 16 matrix, transposed in place: four rounds
/// of interleaving row i with row i + 8. The depthwise kernels' channel lanes (NNDepthwiseLanes.h,
/// QuantizedDepthwise.cpp) turn 16 planes' rows into positions of 16 channels with it, and back.
template <typename V16> EMBER_INLINE void transpose16x16(V16 *r) {
#pragma clang loop unroll(full)
  for (int round = 0; round < 4; ++round) {
    V16 t[16];
#pragma clang loop unroll(full)
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = __builtin_shufflevector(r[i], r[i + 8], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21,
                                         6, 22, 7, 23);
      t[2 * i + 1] = __builtin_shufflevector(r[i], r[i + 8], 8, 24, 9, 25, 10, 26, 11, 27, 12,
                                             28, 13, 29, 14, 30, 15, 31);
    }
#pragma clang loop unroll(full)
    for (int i = 0; i < 16; ++i)
      r[i] = t[i];
  }
}

/// dst[j * ldd + i] = src[i * lds + j] for i in [0, rows), j in [0, cols): 16 x 16 blocks at a
/// time through transpose16x16 (16-float vectors on any target), the edges element by element.
EMBER_INLINE void transposeMatrix(float *dst, i64 ldd, const float *src, i64 lds, i64 rows,
                                  i64 cols) {
  typedef float F16 __attribute__((ext_vector_type(16)));
  i64 i = 0;
  for (; i + 16 <= rows; i += 16) {
    i64 j = 0;
    for (; j + 16 <= cols; j += 16) {
      F16 r[16];
#pragma clang loop unroll(full)
      for (int a = 0; a < 16; ++a)
        __builtin_memcpy(&r[a], src + (i + a) * lds + j, sizeof(F16));
      transpose16x16(r);
#pragma clang loop unroll(full)
      for (int a = 0; a < 16; ++a)
        __builtin_memcpy(dst + (j + a) * ldd + i, &r[a], sizeof(F16));
    }
    for (; j < cols; ++j)
      for (i64 a = 0; a < 16; ++a)
        dst[j * ldd + i + a] = src[(i + a) * lds + j];
  }
  for (; i < rows; ++i)
    for (i64 j = 0; j < cols; ++j)
      dst[j * ldd + i] = src[i * lds + j];
}

/// Sum of the lanes, pairwise.
EMBER_INLINE float hsum(Vec v) {
  float t[EMBER_VW];
  storev(t, v);
  for (int w = EMBER_VW / 2; w > 0; w /= 2)
    for (int i = 0; i < w; ++i)
      t[i] += t[i + w];
  return t[0];
}
EMBER_INLINE float hmax(Vec v) {
  float t[EMBER_VW];
  storev(t, v);
  float m = t[0];
  for (int i = 1; i < EMBER_VW; ++i)
    m = t[i] > m ? t[i] : m;
  return m;
}

EMBER_INLINE Vec vmax(Vec a, Vec b) { return __builtin_elementwise_max(a, b); }
EMBER_INLINE Vec vmin(Vec a, Vec b) { return __builtin_elementwise_min(a, b); }
EMBER_INLINE Vec vabs(Vec a) { return __builtin_elementwise_abs(a); }
EMBER_INLINE Vec vselect(IVec m, Vec a, Vec b) { return m ? a : b; }
EMBER_INLINE IVec isnan(Vec x) { return x != x; }

/// Quantization's rule, ember::conversions::roundAndSaturate, on the lanes of float vectors FV:
/// round half to even, plus the zero point, clamped to [lo, hi] (the result kind's range), NaN
/// giving lo (the first compare fails). The selects are x86's vector max and min (where q equals
/// lo, taking lo changes at most a zero's sign, which converting to an integer loses); the
/// helper lane by lane became compares and blends on mask registers, all on one port.
template <typename FV> EMBER_INLINE FV roundAndSaturateLanes(FV v, FV zp, FV lo, FV hi) {
  FV q = __builtin_elementwise_roundeven(v) + zp;
  q = q > lo ? q : lo;
  return q < hi ? q : hi;
}

/// min(max(x, lo), hi) with NaN staying NaN (the comparisons fail for NaN), as the Interpreter.
EMBER_INLINE Vec clampKeepNaN(Vec x, Vec lo, Vec hi) {
  Vec y = x < lo ? lo : x;
  return hi < y ? hi : y;
}

/// e^r by its Taylor series to r^N, in Horner form: 1/N!, then times r plus 1/(N-1)!, ... 1.
template <int N> EMBER_INLINE Vec expSeries(Vec r) {
  float factorial = 1.f; // N!, exact in float for N <= 10
  for (int i = 2; i <= N; ++i)
    factorial *= float(i);
  Vec p = splat(1.f / factorial);
#pragma clang loop unroll(full)
  for (int i = N; i >= 1; --i) {
    factorial /= float(i); // (i - 1)!
    p = __builtin_elementwise_fma(p, r, splat(1.f / factorial));
  }
  return p;
}

/// e^x to about 1 ulp: x = n ln2 + r with |r| <= ln2/2, e^r by its Taylor series to r^7 (the
/// first omitted term is < 2^-28), times 2^n built in the exponent bits. Overflow gives inf,
/// underflow flushes to 0 below -87.3 (where float would go subnormal), NaN stays NaN.
EMBER_INLINE Vec vexp(Vec x) {
  const float kLog2e = 1.44269504088896341f;
  const float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  Vec xc = vmin(vmax(x, splat(-87.3365478515625f)), splat(88.72283172607421875f));
  Vec n = __builtin_elementwise_roundeven(xc * kLog2e);
  Vec r = __builtin_elementwise_fma(n, splat(-kLn2Hi), xc);
  r = __builtin_elementwise_fma(n, splat(-kLn2Lo), r);
  Vec p = expSeries<7>(r);
  // 2^n in two halves so that n = 128 (x just below the overflow bound) does not overflow the
  // exponent field: 2^(n/2) * 2^(n - n/2).
  IVec ni = __builtin_convertvector(n, IVec);
  IVec h = ni >> 1;
  Vec s1 = __builtin_bit_cast(Vec, (h + 127) << 23);
  Vec s2 = __builtin_bit_cast(Vec, (ni - h + 127) << 23);
  Vec y = p * s1 * s2;
  y = x > 88.72283935546875f ? splat(__builtin_inff()) : y;
  y = x < -87.3365478515625f ? splat(0.f) : y;
  return x != x ? x : y;
}

/// 1 / (1 + e^-x) in one expression, without vexp's special cases, for its cost: it is the
/// SiLU of efficientnet's every block, a fifth of the model's time. -x is clamped to
/// [-87.34, 87.34], where e^-x is a normal float, so the quotient never sees an inf; below
/// x = -87.34 the result is flushed to 0 (the Interpreter's e^x / (1 + e^x) would be subnormal
/// there; flushing makes -inf * sigmoid(-inf) NaN as it does). e^t = 2^n e^r with r = t - n ln2
/// in one step (|n| <= 126: r is off by at most 2.4e-7 absolute) and e^r by its Taylor series to
/// r^6 (the first omitted term is < 1.2e-7 relative). Relative error about 2.5e-7; NaN stays NaN.
/// 35% faster than the form over vexp on one Zen 4 core.
EMBER_INLINE Vec vsigmoid(Vec x) {
  const float kLog2e = 1.44269504088896341f, kLn2 = 0.693147180559945309f;
  const float kBound = 87.3365478515625f;
  Vec t = vmin(vmax(-x, splat(-kBound)), splat(kBound));
  Vec n = __builtin_elementwise_roundeven(t * kLog2e);
  Vec r = __builtin_elementwise_fma(n, splat(-kLn2), t);
  Vec p = expSeries<6>(r);
  IVec ni = __builtin_convertvector(n, IVec);
  Vec e = p * __builtin_bit_cast(Vec, (ni + 127) << 23);
  Vec y = 1.f / (1.f + e);
  y = x < -kBound ? splat(0.f) : y;
  return x != x ? x : y;
}

/// tanh: an odd Taylor polynomial near 0 (where 1 - 2/(e^2x + 1) would cancel), else the
/// exponential form on |x|, sign restored.
EMBER_INLINE Vec vtanh(Vec x) {
  Vec a = vabs(x);
  Vec big = 1.f - 2.f / (vexp(2.f * a) + 1.f);
  Vec x2 = x * x;
  Vec p = splat(21844.f / 6081075);
  p = __builtin_elementwise_fma(p, x2, splat(-1382.f / 155925));
  p = __builtin_elementwise_fma(p, x2, splat(62.f / 2835));
  p = __builtin_elementwise_fma(p, x2, splat(-17.f / 315));
  p = __builtin_elementwise_fma(p, x2, splat(2.f / 15));
  p = __builtin_elementwise_fma(p, x2, splat(-1.f / 3));
  Vec small = __builtin_elementwise_fma(p * x2, a, a);
  Vec t = a < 0.3f ? small : big;
  t = x < 0 ? -t : t;
  return x != x ? x : t;
}

/// erf by Abramowitz & Stegun 7.1.26 (absolute error <= 1.5e-7), odd symmetry.
EMBER_INLINE Vec verf(Vec x) {
  Vec a = vabs(x);
  Vec t = 1.f / __builtin_elementwise_fma(splat(0.3275911f), a, splat(1.f));
  Vec p = splat(1.061405429f);
  p = __builtin_elementwise_fma(p, t, splat(-1.453152027f));
  p = __builtin_elementwise_fma(p, t, splat(1.421413741f));
  p = __builtin_elementwise_fma(p, t, splat(-0.284496736f));
  p = __builtin_elementwise_fma(p, t, splat(0.254829592f));
  Vec y = 1.f - p * t * vexp(-a * a);
  y = x < 0 ? -y : y;
  return x != x ? x : y;
}

// The vector forms of the activations both the element-wise kernels (Elementwise.cpp) and the
// fused epilogues (Activation.h) apply: ember/Semantics/ScalarFormulas.inc's formulas with the
// approximations above.
EMBER_INLINE Vec vhardSigmoid(Vec x, float alpha, float beta) {
  return clampKeepNaN(alpha * x + beta, splat(0.f), splat(1.f));
}
EMBER_INLINE Vec vhardSwish(Vec x) {
  return x * clampKeepNaN(x / 6.f + 0.5f, splat(0.f), splat(1.f));
}
EMBER_INLINE Vec vgelu(Vec x) { return 0.5f * x * (1.f + verf(x * 0.70710678118654752f)); }
EMBER_INLINE Vec vgeluTanh(Vec x) {
  return 0.5f * x * (1.f + vtanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
}
/// Mish without a logarithm: with n = e^x, tanh(log(1 + n)) = (n^2 + 2n) / (n^2 + 2n + 2), which
/// does not cancel for negative x; past x = 20 it is 1 in float (and n^2 would overflow).
EMBER_INLINE Vec vmish(Vec x) {
  Vec n = vexp(x);
  Vec p = n * (n + 2.f);
  Vec t = p / (p + 2.f);
  return x * (x > 20.f ? splat(1.f) : t);
}

EMBER_INLINE i64 minI(i64 a, i64 b) { return a < b ? a : b; }
EMBER_INLINE i64 maxI(i64 a, i64 b) { return a > b ? a : b; }

#endif
