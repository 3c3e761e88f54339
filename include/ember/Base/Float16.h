// Storage types for 16-bit floats that compute as float: arithmetic on them converts to float and
// assigning a float rounds back (to nearest even), so kernels templated on the element type work
// for float16 and bfloat16 unchanged.
#ifndef EMBER_BASE_FLOAT16_H
#define EMBER_BASE_FLOAT16_H

#include "ember/Base/HalfBits.h"
#include "ember/Base/Tensor.h"

#include <cstdint>

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
  bfloat16_t(float f) : bits(halfbits::floatToBfloat(f)) {}
  operator float() const { return halfbits::bfloatToFloat(bits); }
};

static_assert(sizeof(float16_t) == 2 && sizeof(bfloat16_t) == 2, "16-bit storage");

} // namespace ember

#endif
