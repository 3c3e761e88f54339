// The scalar formulas of ember/Semantics/ScalarFormulas.inc for the kernel library: functions
// ember_<name>(x, ...) overloaded on float and double, over libm (Libm.h). Products are never
// contracted into fused multiply-adds here, so a kernel's scalar path rounds exactly as the
// Interpreter does whatever the target's FMA support.
#ifndef EMBER_CPU_KERNELS_FORMULAS_H
#define EMBER_CPU_KERNELS_FORMULAS_H

#include "Libm.h"

EMBER_INLINE float fm_exp(float x) { return m_exp(x); }
EMBER_INLINE double fm_exp(double x) { return m_exp(x); }
EMBER_INLINE float fm_expm1(float x) { return m_expm1(x); }
EMBER_INLINE double fm_expm1(double x) { return m_expm1(x); }
EMBER_INLINE float fm_log1p(float x) { return m_log1p(x); }
EMBER_INLINE double fm_log1p(double x) { return m_log1p(x); }
EMBER_INLINE float fm_tanh(float x) { return m_tanh(x); }
EMBER_INLINE double fm_tanh(double x) { return m_tanh(x); }
EMBER_INLINE double fm_erf(double x) { return m_erf(x); }
EMBER_INLINE float fm_fabs(float x) { return __builtin_fabsf(x); }
EMBER_INLINE double fm_fabs(double x) { return __builtin_fabs(x); }

#define EMBER_FORMULA EMBER_INLINE
#define EMBER_NO_FMA _Pragma("clang fp contract(off)")
#include "ember/Semantics/ScalarFormulasFloatAndDouble.inc"
#undef EMBER_NO_FMA
#undef EMBER_FORMULA

#endif
