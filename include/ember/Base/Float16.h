// Storage types for 16-bit floats that compute as float: arithmetic on them converts to float and
// assigning a float rounds back (to nearest even), so kernels templated on the element type work
// for float16 and bfloat16 unchanged.
#ifndef EMBER_BASE_FLOAT16_H
#define EMBER_BASE_FLOAT16_H

#include "ember/Base/Tensor.h"

#include <cstdint>
#include <cstring>

namespace ember {

struct float16_t {
  uint16_t bits = 0;
  float16_t() = default;
  float16_t(float f) : bits(floatToHalf(f)) {}
  operator float() const { return halfToFloat(bits); }
};

struct bfloat16_t {
  uint16_t bits = 0;
  bfloat16_t() = default;
  bfloat16_t(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000) { // NaN stays NaN (quiet)
      bits = uint16_t((x >> 16) | 0x40);
      return;
    }
    x += 0x7fff + ((x >> 16) & 1); // round to nearest even
    bits = uint16_t(x >> 16);
  }
  operator float() const {
    uint32_t x = uint32_t(bits) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
  }
};

static_assert(sizeof(float16_t) == 2 && sizeof(bfloat16_t) == 2, "16-bit storage");

} // namespace ember

#endif
