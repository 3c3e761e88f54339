// Linear and cubic Resize (nearest is a table gather: DataMovement.cpp). Codegen computes, with
// the Interpreter's formulas, the taps of every result coordinate on every axis (input offset
// and weight, in double); the kernel sums the tensor product of each result element's taps.
// The sum runs in exactly the Interpreter's order (taps lexicographic, last axis fastest; each
// weight the left-to-right product of the per-axis weights), so integer results, which round,
// match it bit for bit.
#include "DataMovementUtils.h"

// No fused multiply-adds: the Interpreter rounds every product and sum, and an integer result
// rounds to nearest from the sum, so one FMA can move it by one.
#pragma clang fp contract(off)

namespace {

/// \p v as T by the Interpreter's fromDouble: integers round half away from zero and saturate
/// (NaN gives 0); floats go through float (a float64 result too).
template <typename T> EMBER_INLINE T fromDouble(double v) {
  if constexpr (kIsInt<T>) {
    if (isNaN(v))
      return T(0);
    v = __builtin_round(v);
    if (v <= double(intMin<T>()))
      return intMin<T>();
    if (v >= double(intMax<T>()))
      return intMax<T>();
    return T(v);
  } else if constexpr (kSame<T, float> || kSame<T, double>) {
    return T(float(v));
  } else {
    return Elem<T>::store(float(v));
  }
}

/// Result (dims outDims[0..rank), rank >= 1). For axis k and result coordinate c, coordCount
/// and coordFirst (each axis' outDims[k] entries after the previous axes') give its taps in
/// tapOff (input offset along the axis, in elements) and tapW; a count of 0 marks a coordinate
/// tf_crop_and_resize maps outside the input: the result element is then the extrapolation
/// value. Per result row the tensor product of the outer axes' taps is built once into the
/// scratch (maxCombos offsets, then maxCombos weights).
template <typename T>
EMBER_INLINE void resizeInterp(T *dst, const T *src, i64 rank, const i64 *outDims,
                               const i64 *coordFirst, const i64 *coordCount, const i64 *tapOff,
                               const double *tapW, i64 extrapolationBits, u8 *scratch,
                               i64 maxCombos) {
  T extrapolation;
  __builtin_memcpy(&extrapolation, &extrapolationBits, sizeof(T));
  i64 *comboOff = (i64 *)scratch;
  double *comboW = (double *)(scratch + maxCombos * 8);
  i64 rows = 1, lastStart = 0;
  for (i64 k = 0; k + 1 < rank; ++k) {
    rows *= outDims[k];
    lastStart += outDims[k];
  }
  const i64 n = outDims[rank - 1];
  for (i64 r = 0; r < rows; ++r, dst += n) {
    // The row's coordinates from axis 0 on, expanding the combinations axis by axis: combo i
    // of the previous axes becomes combos i * c .. i * c + c - 1 (written from the back, so
    // the expansion runs in place).
    i64 combos = 1, below = rows, start = 0;
    comboOff[0] = 0;
    comboW[0] = 1;
    bool outside = false;
    for (i64 k = 0; k + 1 < rank && !outside; ++k) {
      below /= outDims[k];
      i64 at = start + (r / below) % outDims[k];
      start += outDims[k];
      i64 c = coordCount[at], f = coordFirst[at];
      outside = c == 0;
      for (i64 i = combos - 1; i >= 0 && !outside; --i) {
        i64 o = comboOff[i];
        double w = comboW[i];
        for (i64 t = c - 1; t >= 0; --t) {
          comboOff[i * c + t] = o + tapOff[f + t];
          comboW[i * c + t] = w * tapW[f + t];
        }
      }
      combos *= c;
    }
    for (i64 j = 0; j < n; ++j) {
      i64 c = coordCount[lastStart + j], f = coordFirst[lastStart + j];
      if (outside || c == 0) {
        dst[j] = extrapolation;
        continue;
      }
      double sum = 0;
      for (i64 i = 0; i < combos; ++i)
        for (i64 t = 0; t < c; ++t)
          sum += (comboW[i] * tapW[f + t]) *
                 double(Elem<T>::load(src[comboOff[i] + tapOff[f + t]]));
      dst[j] = fromDouble<T>(sum);
    }
  }
}

} // namespace

// Every numeric kind; linear and cubic resize of bool is not defined.
#define RESIZE_KERNEL(K, T)                                                                        \
  EMBER_KERNEL void ember_resize_interp_##K(T *dst, const T *src, i64 rank, const i64 *outDims,  \
                                            const i64 *coordFirst, const i64 *coordCount,         \
                                            const i64 *tapOff, const double *tapW,                \
                                            i64 extrapolationBits, u8 *scratch, i64 maxCombos) {  \
    resizeInterp<T>(dst, src, rank, outDims, coordFirst, coordCount, tapOff, tapW,                 \
                    extrapolationBits, scratch, maxCombos);                                        \
  }
EMBER_FOR_NUMERIC_KINDS(RESIZE_KERNEL)
#undef RESIZE_KERNEL
