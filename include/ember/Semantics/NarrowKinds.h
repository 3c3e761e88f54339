// The conversions of the narrow element kinds (ElemKinds.def: the four ONNX float8 kinds, int4,
// uint4, float4e2m1), written once for the Interpreter, the CPU kernels and the OpenCL kernels
// (ember/Semantics/Portable.h says how). Each kind is stored one element per byte: a float
// kind as its bit pattern, int4 sign-extended, uint4 as its value. Cast goes through two
// conversions only: a narrow value to float (exact: float32 holds every narrow value) and a
// double to a narrow kind; every other kind reaches or leaves float by its own Cast rule.
//
// To a float kind (ONNX Cast-19's table): round to nearest even on the value as float32 (a
// double is first rounded to float32, as ONNX 1.17's reference float32_to_float8e4m3 does);
// NaN gives the kind's NaN; a value beyond the largest finite one, infinities included, gives
// that largest value with its sign when saturating, otherwise infinity (float8e5m2) or NaN (the
// others). FNUZ kinds have no negative zero: a negative value rounding to 0 gives +0. float4e2m1
// has no infinity and no NaN: it always saturates (as ml_dtypes' float4_e2m1fn, the reference
// of later ONNX), and NaN, which ONNX leaves open, gives a zero of NaN's sign.
// To int4 and uint4: round half to even, then saturate to [-8, 7] or [0, 15] (ONNX's
// float32_to_4bit_unpacked, np.clip(np.rint(x))); NaN gives 0, as Cast's float to integer rule.
#ifndef EMBER_SEMANTICS_NARROWKINDS_H
#define EMBER_SEMANTICS_NARROWKINDS_H

#ifndef __OPENCL_C_VERSION__
#include "ember/Semantics/Portable.h"
#endif

// The narrow kinds' codes: their order in ElemKinds.def, from Float8E4M3FN.
#define EMBER_NARROW_F8E4M3FN 0
#define EMBER_NARROW_F8E4M3FNUZ 1
#define EMBER_NARROW_F8E5M2 2
#define EMBER_NARROW_F8E5M2FNUZ 3
#define EMBER_NARROW_INT4 4
#define EMBER_NARROW_UINT4 5
#define EMBER_NARROW_F4E2M1 6

#ifdef __OPENCL_C_VERSION__
#define EMBER_FLOAT_BITS(f) as_uint(f)
#define EMBER_BITS_FLOAT(u) as_float(u)
#else
#define EMBER_FLOAT_BITS(f) __builtin_bit_cast(unsigned int, (float)(f))
#define EMBER_BITS_FLOAT(u) __builtin_bit_cast(float, (unsigned int)(u))
#endif

/// The layout of narrow float kind \p code: exponent bias, mantissa bits, the sign bit's
/// position, and the largest finite magnitude's bits.
EMBER_PORTABLE int ember_narrow_bias(long code) {
  return code == EMBER_NARROW_F8E4M3FN      ? 7
         : code == EMBER_NARROW_F8E4M3FNUZ ? 8
         : code == EMBER_NARROW_F8E5M2     ? 15
         : code == EMBER_NARROW_F8E5M2FNUZ ? 16
                                           : 1;
}
EMBER_PORTABLE int ember_narrow_mantissa_bits(long code) {
  return code == EMBER_NARROW_F8E4M3FN || code == EMBER_NARROW_F8E4M3FNUZ ? 3
         : code == EMBER_NARROW_F4E2M1                                   ? 1
                                                                         : 2;
}
EMBER_PORTABLE int ember_narrow_sign_shift(long code) {
  return code == EMBER_NARROW_F4E2M1 ? 3 : 7;
}
EMBER_PORTABLE unsigned int ember_narrow_max_bits(long code) {
  return code == EMBER_NARROW_F8E4M3FN   ? 0x7Eu
         : code == EMBER_NARROW_F8E5M2   ? 0x7Bu
         : code == EMBER_NARROW_F4E2M1   ? 0x7u
                                         : 0x7Fu; // the FNUZ kinds: only 0x80 is special
}

/// The value of narrow element \p bits (its storage byte) of kind \p code, exactly.
EMBER_PORTABLE float ember_narrow_to_float(long code, unsigned int bits) {
  bits &= 0xFFu;
  if (code == EMBER_NARROW_INT4)
    return (float)(int)(bits >= 0x80u ? (int)bits - 256 : (int)bits);
  if (code == EMBER_NARROW_UINT4)
    return (float)bits;
  int m = ember_narrow_mantissa_bits(code), s = ember_narrow_sign_shift(code);
  unsigned int sign = (bits >> s) & 1u, magnitude = bits & ((1u << s) - 1u);
  bool fnuz = code == EMBER_NARROW_F8E4M3FNUZ || code == EMBER_NARROW_F8E5M2FNUZ;
  if (fnuz && bits == 0x80u)
    return EMBER_BITS_FLOAT(0x7FC00000u);
  if (code == EMBER_NARROW_F8E4M3FN && magnitude == 0x7Fu)
    return EMBER_BITS_FLOAT(sign << 31 | 0x7FC00000u);
  if (code == EMBER_NARROW_F8E5M2 && magnitude >= 0x7Cu)
    return EMBER_BITS_FLOAT(sign << 31 | (magnitude == 0x7Cu ? 0x7F800000u : 0x7FC00000u));
  unsigned int e = magnitude >> m, mant = magnitude & ((1u << m) - 1u);
  int bias = ember_narrow_bias(code);
  float v;
  if (e == 0) // subnormal: mant * 2^(1 - bias - m), the power of two built from its bits
    v = (float)mant * EMBER_BITS_FLOAT((unsigned int)(127 + 1 - bias - m) << 23);
  else
    v = EMBER_BITS_FLOAT((unsigned int)((int)e - bias + 127) << 23 | mant << (23 - m));
  return sign ? -v : v;
}

/// \p d as narrow kind \p code's storage byte (the rules at the top); \p saturate is Cast's
/// attribute (ignored by the integer kinds and float4e2m1, which always saturate).
EMBER_PORTABLE unsigned int ember_narrow_from_double(long code, double d, long saturate) {
  if (code == EMBER_NARROW_INT4 || code == EMBER_NARROW_UINT4) {
    if (d != d)
      return 0u;
    double r = EMBER_RINT(d);
    double lo = code == EMBER_NARROW_INT4 ? -8.0 : 0.0, hi = code == EMBER_NARROW_INT4 ? 7.0 : 15.0;
    r = r < lo ? lo : r > hi ? hi : r;
    return (unsigned int)((int)r & 0xFF);
  }
  unsigned int x = EMBER_FLOAT_BITS((float)d);
  int s = ember_narrow_sign_shift(code);
  unsigned int sign = (x >> 31) << s, a = x & 0x7FFFFFFFu, maxBits = ember_narrow_max_bits(code);
  bool fnuz = code == EMBER_NARROW_F8E4M3FNUZ || code == EMBER_NARROW_F8E5M2FNUZ;
  bool f4 = code == EMBER_NARROW_F4E2M1;
  // What a value beyond the largest finite one becomes without saturation.
  unsigned int overflow = fnuz                          ? 0x80u
                          : code == EMBER_NARROW_F8E5M2 ? (sign | 0x7Cu)
                          : f4                          ? (sign | maxBits)
                                                        : (sign | 0x7Fu);
  if (a > 0x7F800000u) // NaN
    return fnuz ? 0x80u : f4 ? sign : (sign | 0x7Fu);
  if (a == 0x7F800000u) // infinity
    return saturate || f4 ? (sign | maxBits) : overflow;
  int exponent = (int)(a >> 23);
  if (exponent == 0) // zero or a float32 subnormal: far below every narrow kind's smallest value
    return fnuz ? 0u : sign;
  int m = ember_narrow_mantissa_bits(code), bias = ember_narrow_bias(code);
  int e = exponent - 127; // the unbiased exponent
  unsigned int significand = (a & 0x7FFFFFu) | 0x800000u; // 24 bits, the leading 1 included
  // Bits dropped to keep m fraction bits: more below the smallest normal exponent 1 - bias.
  int shift = 23 - m + (e < 1 - bias ? 1 - bias - e : 0);
  unsigned int q;
  if (shift > 25) {
    q = 0; // below half the smallest subnormal
  } else {
    unsigned int rest = significand & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    q = significand >> shift;
    if (rest > halfway || (rest == halfway && (q & 1u)))
      ++q; // round to nearest, ties to even
  }
  // A normal result's biased exponent above the leading bit; a subnormal's bits are q itself
  // (q reaching 1 << m is the smallest normal, whose bits are the same). A carry out of the
  // fraction moves into the exponent field by the addition.
  unsigned int magnitude;
  if (e < 1 - bias)
    magnitude = q;
  else if (e + bias > 64)
    magnitude = 0xFFu; // far beyond every kind's range
  else
    magnitude = ((unsigned int)(e + bias) << m) + (q - (1u << m));
  if (magnitude > maxBits)
    return saturate || f4 ? (sign | maxBits) : overflow;
  if (magnitude == 0 && fnuz)
    return 0u;
  return sign | magnitude;
}

#endif
