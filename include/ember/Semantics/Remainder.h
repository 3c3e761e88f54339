// ONNX Mod on signed integers, written once for the Interpreter, the CPU kernels and the OpenCL
// kernels (ember/Semantics/Portable.h says how). Unsigned remainders have no sign to fix (a % b
// on every backend); float Mod is fmod, the C library's.
#ifndef EMBER_SEMANTICS_REMAINDER_H
#define EMBER_SEMANTICS_REMAINDER_H

#ifndef __OPENCL_C_VERSION__
#include "ember/Semantics/Portable.h"
#endif

/// The remainder of \p a / \p b (b != 0: the backends refuse a zero divisor first) with the
/// dividend's sign (fmod 1, C's %) or, with \p divisorSign (fmod 0), the divisor's (Python's
/// %). Every remainder by -1 is 0: min % -1 would trap on x86. Computed in long, which holds
/// every signed kind; the result fits the operands' kind, its magnitude below |b|.
EMBER_PORTABLE long ember_signed_remainder(long a, long b, int divisorSign) {
  if (b == -1)
    return 0;
  long r = a % b;
  return divisorSign && r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

#endif
