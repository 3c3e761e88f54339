// The math library functions the kernel library calls (a bundle then links -lm; ObjectWriter.cpp
// lists them), declared once, and overloads m_<name>(float | double) that pick the float or
// double one as the Interpreter's std:: calls do.
#ifndef EMBER_CPU_KERNELS_LIBM_H
#define EMBER_CPU_KERNELS_LIBM_H

#include "KernelCommon.h"

#define EMBER_LIBM_1(NAME)                                                                         \
  extern "C" float NAME##f(float);                                                                 \
  extern "C" double NAME(double);                                                                  \
  EMBER_INLINE float m_##NAME(float x) { return NAME##f(x); }                                     \
  EMBER_INLINE double m_##NAME(double x) { return NAME(x); }
#define EMBER_LIBM_2(NAME)                                                                         \
  extern "C" float NAME##f(float, float);                                                          \
  extern "C" double NAME(double, double);                                                          \
  EMBER_INLINE float m_##NAME(float x, float y) { return NAME##f(x, y); }                         \
  EMBER_INLINE double m_##NAME(double x, double y) { return NAME(x, y); }

EMBER_LIBM_1(exp)
EMBER_LIBM_1(expm1)
EMBER_LIBM_1(log)
EMBER_LIBM_1(log1p)
EMBER_LIBM_1(sqrt)
EMBER_LIBM_1(sin)
EMBER_LIBM_1(cos)
EMBER_LIBM_1(tan)
EMBER_LIBM_1(asin)
EMBER_LIBM_1(acos)
EMBER_LIBM_1(atan)
EMBER_LIBM_1(sinh)
EMBER_LIBM_1(cosh)
EMBER_LIBM_1(tanh)
EMBER_LIBM_1(asinh)
EMBER_LIBM_1(acosh)
EMBER_LIBM_1(atanh)
EMBER_LIBM_1(erf)
EMBER_LIBM_2(fmod)
EMBER_LIBM_2(pow)

#undef EMBER_LIBM_1
#undef EMBER_LIBM_2

#endif
