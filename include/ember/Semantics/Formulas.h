// The scalar formulas of ember/Semantics/ScalarFormulas.inc for host code (the Interpreter and
// so constant folding): functions ember::formula::ember_<name>(x, ...) overloaded on float and
// double, over the C++ library's math functions.
#ifndef EMBER_SEMANTICS_FORMULAS_H
#define EMBER_SEMANTICS_FORMULAS_H

#include <cmath>

namespace ember {
namespace formula {

// The math shims: std:: picks the float or the double function by overload; round to even is
// nearbyint in the default rounding mode.
#define EMBER_HOST_SHIM(NAME, STD)                                                                 \
  inline float fm_##NAME(float x) { return std::STD(x); }                                          \
  inline double fm_##NAME(double x) { return std::STD(x); }
EMBER_HOST_SHIM(exp, exp)
EMBER_HOST_SHIM(expm1, expm1)
EMBER_HOST_SHIM(log, log)
EMBER_HOST_SHIM(log1p, log1p)
EMBER_HOST_SHIM(tanh, tanh)
EMBER_HOST_SHIM(erf, erf)
EMBER_HOST_SHIM(fabs, fabs)
EMBER_HOST_SHIM(floor, floor)
EMBER_HOST_SHIM(ceil, ceil)
EMBER_HOST_SHIM(roundeven, nearbyint)
EMBER_HOST_SHIM(sqrt, sqrt)
EMBER_HOST_SHIM(sin, sin)
EMBER_HOST_SHIM(cos, cos)
EMBER_HOST_SHIM(tan, tan)
EMBER_HOST_SHIM(asin, asin)
EMBER_HOST_SHIM(acos, acos)
EMBER_HOST_SHIM(atan, atan)
EMBER_HOST_SHIM(sinh, sinh)
EMBER_HOST_SHIM(cosh, cosh)
EMBER_HOST_SHIM(asinh, asinh)
EMBER_HOST_SHIM(acosh, acosh)
EMBER_HOST_SHIM(atanh, atanh)
#undef EMBER_HOST_SHIM

#define EMBER_FORMULA inline
// The host build targets baseline x86-64 or aarch64 with GCC's default, which contracts only
// where the target has FMA and -ffp-contract allows; ember's host code is not built for FMA.
#define EMBER_NO_FMA
#include "ember/Semantics/ScalarFormulasFloatAndDouble.inc"
#undef EMBER_NO_FMA
#undef EMBER_FORMULA

} // namespace formula
} // namespace ember

#endif
