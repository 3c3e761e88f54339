// The loop the channel-lanes depthwise kernels share (NNDepthwiseLanes.h on float32,
// QuantizedDepthwise.cpp on int8): a block of 16 channels, its padded input rows transposed into
// a ring of positions (16 floats each, a lane a channel) as the windows reach them, each output
// row computed into a staging area, and the staged positions transposed out to the 16 output
// planes 16 at a time. The kernels supply how 16 planes' columns become positions, how a row of
// outputs is computed and staged, and how staged positions go out.
#ifndef EMBER_CPU_KERNELS_DEPTHWISELANES_H
#define EMBER_CPU_KERNELS_DEPTHWISELANES_H

#include "ConvShape.h"
#include "Scratch.h"

namespace lanes {

using scratch::kLanes;

/// Padded input row \p pr into ring slot pr % R (rows of \p cols positions): zeros in the
/// padding, and the input row's columns through load(dst, at, m), which writes the m <= 16
/// positions of input elements [at, at + m) of the planes (at counted from a plane's start).
template <typename Load>
EMBER_INLINE void fillRingRow(float *ring, i64 R, i64 cols, const ConvShape &s, i64 pr,
                              const Load &load) {
  const i64 rowFloats = cols * kLanes;
  float *row = ring + (pr % R) * rowFloats;
  const i64 y = pr - s.PH, x1 = minI(cols, s.PW + s.W);
  if (y < 0 || y >= s.H || x1 <= s.PW) {
    __builtin_memset(row, 0, (unsigned long)(rowFloats) * sizeof(float));
    return;
  }
  for (i64 col = 0; col < minI(s.PW, cols); ++col)
    storev(row + col * kLanes, splat(0.f));
  for (i64 col = x1; col < cols; ++col)
    storev(row + col * kLanes, splat(0.f));
  for (i64 x = 0; x < x1 - s.PW; x += kLanes)
    load(row + (s.PW + x) * kLanes, y * s.W + x, minI(kLanes, x1 - s.PW - x));
}

/// Adds to \p acc the taps of U consecutive output positions from \p ox on of an output row
/// (its window's rows in the ring at \p rowOff, a ky each; \p w a vector of weights a tap):
/// K x K windows with equal strides S and no dilation unrolled (K > 0), any other from \p s.
template <int U, int K, int S>
EMBER_INLINE void tapSums(Vec *acc, const float *ring, const i64 *rowOff, const Vec *w,
                          const ConvShape &s, i64 ox) {
  if constexpr (K > 0) {
#pragma clang loop unroll(full)
    for (int ky = 0; ky < K; ++ky) {
      const float *row = ring + rowOff[ky] + ox * S * kLanes;
#pragma clang loop unroll(full)
      for (int kx = 0; kx < K; ++kx)
#pragma clang loop unroll(full)
        for (int u = 0; u < U; ++u)
          acc[u] = __builtin_elementwise_fma(w[ky * K + kx], loadv(row + (u * S + kx) * kLanes),
                                             acc[u]);
    }
  } else {
    for (i64 ky = 0; ky < s.KH; ++ky) {
      const float *row = ring + rowOff[ky] + ox * s.SW * kLanes;
      for (i64 kx = 0; kx < s.KW; ++kx)
#pragma clang loop unroll(full)
        for (int u = 0; u < U; ++u)
          acc[u] = __builtin_elementwise_fma(
              w[ky * s.KW + kx], loadv(row + (u * s.SW + kx * s.DW) * kLanes), acc[u]);
    }
  }
}

/// Every output row of a block: the ring rows its windows reach filled (fill(pr)), the row
/// computed into the staging after the positions left from the rows before
/// (computeRow(rowStage, rowOff), rowOff the ring offset of each window row), and the staged
/// positions flushed 16 at a time (flush(from, m), the last m < 16 at the end). A staged
/// position is 16 elements of type T.
template <typename T, typename Fill, typename Row, typename Flush>
EMBER_INLINE void blockRows(const ConvShape &s, i64 R, i64 rowFloats, T *stage, const Fill &fill,
                            const Row &computeRow, const Flush &flush) {
  i64 filled = 0, staged = 0;
  i64 rowOff[scratch::kPhasedMaxTaps];
  for (i64 oy = 0; oy < s.OH; ++oy) {
    for (; filled <= oy * s.SH + (s.KH - 1) * s.DH; ++filled)
      fill(filled);
    for (i64 ky = 0; ky < s.KH; ++ky)
      rowOff[ky] = ((oy * s.SH + ky * s.DH) % R) * rowFloats;
    computeRow(stage + staged * kLanes, rowOff);
    staged += s.OW;
    i64 f = 0;
    for (; f + kLanes <= staged; f += kLanes)
      flush(stage + f * kLanes, kLanes);
    __builtin_memmove(stage, stage + f * kLanes,
                      (unsigned long)((staged - f) * kLanes) * sizeof(T));
    staged -= f;
  }
  if (staged > 0)
    flush(stage, staged);
}

} // namespace lanes

#endif
