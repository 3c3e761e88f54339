// float <-> the bit patterns of IEEE half and bfloat16, rounding to nearest even, NaN kept NaN.
// Shared by ember itself (Tensor, float16_t, bfloat16_t) and the CPU backend's kernel library,
// which is compiled freestanding: so this header includes nothing and uses only builtins.
#ifndef EMBER_BASE_HALFBITS_H
#define EMBER_BASE_HALFBITS_H

namespace ember {
namespace halfbits {

typedef unsigned short u16;
typedef unsigned int u32;
static_assert(sizeof(u16) == 2 && sizeof(u32) == 4 && sizeof(float) == 4, "bit widths");

inline u32 bitsOf(float f) { return __builtin_bit_cast(u32, f); }
inline float floatOf(u32 b) { return __builtin_bit_cast(float, b); }

inline float halfToFloat(u16 h) {
  u32 sign = u32(h & 0x8000) << 16;
  u32 exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { // subnormal: normalize
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000 | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  return floatOf(bits);
}

inline u16 floatToHalf(float f) {
  u32 x = bitsOf(f);
  u32 sign = (x >> 16) & 0x8000;
  int exp = int((x >> 23) & 0xff) - 127 + 15;
  u32 mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) // inf or nan
    return u16(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31)
    return u16(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10)
      return u16(sign);
    mant |= 0x800000;
    u32 shift = u32(14 - exp);
    u32 half = mant >> shift;
    u32 rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return u16(sign | half);
  }
  u32 half = sign | (u32(exp) << 10) | (mant >> 13);
  u32 rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is the correct rounding
  return u16(half);
}

inline float bfloatToFloat(u16 b) { return floatOf(u32(b) << 16); }

inline u16 floatToBfloat(float f) {
  u32 x = bitsOf(f);
  if ((x & 0x7fffffff) > 0x7f800000) // NaN stays NaN (quiet)
    return u16((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1); // round to nearest even
  return u16(x >> 16);
}

} // namespace halfbits
} // namespace ember

#endif
