// The rounding and saturation rules of conversions to integers, written once for ember itself
// (the Interpreter's Cast and quantization, hence constant folding) and for the CPU backend's
// freestanding kernel library: so this header includes nothing and uses only builtins. OpenCL C
// has them as builtins: convert_<int>_sat_rtz (Cast) and convert_<int>_sat_rte (quantization)
// follow the same rules, NaN giving 0.
#ifndef EMBER_SEMANTICS_CONVERSIONS_H
#define EMBER_SEMANTICS_CONVERSIONS_H

namespace ember {
namespace conversions {

/// Cast's float -> integer rule: NaN gives 0; otherwise truncation toward zero, saturated to
/// [lo, hi] (the integer type's range).
template <typename Int> inline Int truncateAndSaturate(double d, Int lo, Int hi) {
  if (d != d)
    return Int(0);
  d = __builtin_trunc(d);
  // lo and hi as doubles are exact or round up (2^63, 2^64), so the comparisons are safe.
  if (d <= double(lo))
    return lo;
  if (d >= double(hi))
    return hi;
  return Int(d);
}

inline float roundHalfToEven(float x) { return __builtin_roundevenf(x); }
inline double roundHalfToEven(double x) { return __builtin_roundeven(x); }

/// Quantization's rule: round-half-to-even(v) + zeroPoint, saturated to [lo, hi] (the quantized
/// type's range), computed in v's type F (float or double); NaN gives lo.
template <typename Q, typename F> inline Q roundAndSaturate(F v, int zeroPoint, Q lo, Q hi) {
  F q = roundHalfToEven(v) + F(zeroPoint);
  if (!(q >= F(lo)))
    return lo;
  return q > F(hi) ? hi : Q(q);
}

} // namespace conversions
} // namespace ember

#endif
