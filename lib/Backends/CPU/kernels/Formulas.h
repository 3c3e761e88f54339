// The scalar formulas of ember/Semantics/ScalarFormulas.inc for the kernel library: functions
// ember_<name>(x, ...) overloaded on float and double, over libm (Libm.h). Products are never
// contracted into fused multiply-adds here, so a kernel's scalar path rounds exactly as the
// Interpreter does whatever the target's FMA support.
#ifndef EMBER_CPU_KERNELS_FORMULAS_H
#define EMBER_CPU_KERNELS_FORMULAS_H

#include "Libm.h"

#define EMBER_LIBM_SHIM(NAME)                                                                      \
  EMBER_INLINE float fm_##NAME(float x) { return m_##NAME(x); }                                   \
  EMBER_INLINE double fm_##NAME(double x) { return m_##NAME(x); }
#define EMBER_BUILTIN_SHIM(NAME, BUILTIN)                                                          \
  EMBER_INLINE float fm_##NAME(float x) { return __builtin_##BUILTIN##f(x); }                     \
  EMBER_INLINE double fm_##NAME(double x) { return __builtin_##BUILTIN(x); }
EMBER_LIBM_SHIM(exp)
EMBER_LIBM_SHIM(expm1)
EMBER_LIBM_SHIM(log)
EMBER_LIBM_SHIM(log1p)
EMBER_LIBM_SHIM(tanh)
EMBER_LIBM_SHIM(erf)
EMBER_LIBM_SHIM(sin)
EMBER_LIBM_SHIM(cos)
EMBER_LIBM_SHIM(tan)
EMBER_LIBM_SHIM(asin)
EMBER_LIBM_SHIM(acos)
EMBER_LIBM_SHIM(atan)
EMBER_LIBM_SHIM(sinh)
EMBER_LIBM_SHIM(cosh)
EMBER_LIBM_SHIM(asinh)
EMBER_LIBM_SHIM(acosh)
EMBER_LIBM_SHIM(atanh)
// Inlined as instructions (no libm call): the bundle links no more of libm than before.
EMBER_BUILTIN_SHIM(fabs, fabs)
EMBER_BUILTIN_SHIM(floor, floor)
EMBER_BUILTIN_SHIM(ceil, ceil)
EMBER_BUILTIN_SHIM(roundeven, roundeven) // nearbyint in the default rounding mode
EMBER_BUILTIN_SHIM(sqrt, sqrt)
#undef EMBER_BUILTIN_SHIM
#undef EMBER_LIBM_SHIM

#define EMBER_FORMULA EMBER_INLINE
#define EMBER_NO_FMA _Pragma("clang fp contract(off)")
#include "ember/Semantics/ScalarFormulasFloatAndDouble.inc"
#undef EMBER_NO_FMA
#undef EMBER_FORMULA

#endif
