// Pad's index map (ONNX Pad, modes constant, edge and reflect), written once for the
// Interpreter's kernel, the CPU backend's codegen (which tabulates it) and the OpenCL kernel
// (ember/Semantics/Portable.h says how): where each result index of a padded axis reads the
// input.
#ifndef EMBER_SEMANTICS_PADSOURCE_H
#define EMBER_SEMANTICS_PADSOURCE_H

#ifndef __OPENCL_C_VERSION__
#include "ember/Semantics/Portable.h"
#endif

// The Mode attribute as a code, in the order of the names.
#define EMBER_PAD_CONSTANT 0 // "constant"
#define EMBER_PAD_EDGE 1     // "edge"
#define EMBER_PAD_REFLECT 2  // "reflect"

#ifndef __OPENCL_C_VERSION__
/// The code of a Mode attribute ("constant", "edge", "reflect"), or -1.
EMBER_PORTABLE int ember_pad_mode_code(const char *mode) {
  static const char *const names[] = {"constant", "edge", "reflect"};
  return ember_name_code(mode, names, 3);
}
#endif

/// Where result index \p o of a padded axis (input length \p n, \p begin cells added in front)
/// reads the input in mode \p mode (a code above), or -1 for the pad value. The shape rule gives
/// n > 0 outside constant mode.
EMBER_PORTABLE long ember_pad_source(long o, long n, long begin, int mode) {
  long i = o - begin;
  if (i >= 0 && i < n)
    return i;
  if (mode == EMBER_PAD_CONSTANT)
    return -1;
  if (mode == EMBER_PAD_EDGE || n == 1)
    return i < 0 ? 0 : n - 1;
  // reflect: mirror at both borders without repeating them, i.e. period 2(n-1).
  long period = 2 * (n - 1);
  long m = ((i % period) + period) % period;
  return m < n ? m : period - m;
}

#endif
