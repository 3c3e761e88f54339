// The scalar formulas of ember/Semantics/ScalarFormulas.inc for host code (the Interpreter and
// so constant folding): functions ember::formula::ember_<name>(x, ...) overloaded on float and
// double, over the C++ library's math functions.
#ifndef EMBER_SEMANTICS_FORMULAS_H
#define EMBER_SEMANTICS_FORMULAS_H

#include <cmath>

namespace ember {
namespace formula {

// The math shim: std:: picks the float or the double function by overload.
inline float fm_exp(float x) { return std::exp(x); }
inline double fm_exp(double x) { return std::exp(x); }
inline float fm_expm1(float x) { return std::expm1(x); }
inline double fm_expm1(double x) { return std::expm1(x); }
inline float fm_log1p(float x) { return std::log1p(x); }
inline double fm_log1p(double x) { return std::log1p(x); }
inline float fm_tanh(float x) { return std::tanh(x); }
inline double fm_tanh(double x) { return std::tanh(x); }
inline double fm_erf(double x) { return std::erf(x); }
inline float fm_fabs(float x) { return std::fabs(x); }
inline double fm_fabs(double x) { return std::fabs(x); }

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
