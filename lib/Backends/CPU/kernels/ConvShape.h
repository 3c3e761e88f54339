// The geometry of a 2-D float32 convolution as codegen lays it out in the constant parameter
// array (CodeGenNN.cpp, convParams), and the index arithmetic the convolution files share
// (NNConv.cpp: GEMM convolutions; NNWinograd.cpp: Winograd ones; NNDepthwise.cpp: depthwise
// ones).
#ifndef EMBER_CPU_KERNELS_CONVSHAPE_H
#define EMBER_CPU_KERNELS_CONVSHAPE_H

#include "Activation.h"
#include "KernelCommon.h"
#include "Parallel.h"
#include "Variants.h"

struct ConvShape {
  i64 N, C, H, W, K /*out channels*/, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, G;
};

EMBER_INLINE ConvShape readShape(const i64 *p) {
  return ConvShape{p[0], p[1], p[2],  p[3],  p[4],  p[5],  p[6],  p[7],
                   p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15]};
}

/// The parts a depthwise convolution splits into on \p team, at most \p units: its taps or the
/// floats it reads and writes, whichever weighs more (Parallel.h, partsForMoving). By taps
/// alone, mobilenet_v2's 384 channels of 14 x 14 ran on one thread, which read what the other
/// core had written: 0.05 ms on one thread, 0.09 on two.
EMBER_INLINE i64 depthwiseParts(const parallel::Team *team, const ConvShape &s, i64 units) {
  return minI(parallel::partsForMoving(team, 2 * s.N * s.K * s.OH * s.OW * s.KH * s.KW,
                                       s.N * (s.C * s.H * s.W + s.K * s.OH * s.OW)),
              units);
}

/// First output coordinate o in [0, outLen) whose input coordinate o*s + off is >= 0, and one
/// past the last whose input coordinate is < inLen.
EMBER_INLINE void validRange(i64 off, i64 s, i64 inLen, i64 outLen, i64 &lo, i64 &hi) {
  // o*s + off >= 0  <=>  o >= ceil(-off / s)
  lo = off >= 0 ? 0 : (-off + s - 1) / s;
  // o*s + off <= inLen - 1  <=>  o <= floor((inLen - 1 - off) / s)
  i64 last = inLen - 1 - off;
  hi = last < 0 ? 0 : last / s + 1;
  lo = minI(lo, outLen);
  hi = minI(maxI(hi, lo), outLen);
}

/// Row \p y of the convolution's zero-padded input plane (\p plane, H x W) into \p d (Wp
/// floats): zeros, the input row's columns that land inside, zeros.
EMBER_INLINE void padRow(float *d, const float *plane, const ConvShape &s, i64 y, i64 Wp) {
  i64 first = minI(s.PW, Wp), count = maxI(0, minI(s.W, Wp - s.PW)), ih = y - s.PH;
  if (ih < 0 || ih >= s.H || count == 0) {
    __builtin_memset(d, 0, (unsigned long)(Wp) * sizeof(float));
    return;
  }
  __builtin_memset(d, 0, (unsigned long)(first) * sizeof(float));
  __builtin_memcpy(d + first, plane + ih * s.W, (unsigned long)(count) * sizeof(float));
  __builtin_memset(d + first + count, 0, (unsigned long)(Wp - first - count) * sizeof(float));
}

/// Copies channels [0, Cg) of \p image into \p padded ([Cg][Hp][Wp]) with the convolution's
/// padding, row by row.
EMBER_INLINE void padImage(float *padded, const float *image, i64 Cg, const ConvShape &s, i64 Hp,
                           i64 Wp) {
  for (i64 c = 0; c < Cg; ++c)
    for (i64 y = 0; y < Hp; ++y)
      padRow(padded + (c * Hp + y) * Wp, image + c * s.H * s.W, s, y, Wp);
}

/// The 16 floats from \p p on, a horizontal stride of SW apart: one load (stride 1), or the even
/// lanes of two (stride 2; it reads 32 floats).
template <int SW> EMBER_INLINE Vec stridedVector(const float *p) {
  static_assert(SW == 1 || (SW == 2 && EMBER_VW == 16), "the shuffle keeps the even lanes");
  if constexpr (SW == 1) {
    return loadv(p);
  } else {
    Vec lo = loadv(p), hi = loadv(p + EMBER_VW);
    return __builtin_shufflevector(lo, hi, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                   30);
  }
}

/// Defines one entry point of the 2-D float32 convolutions, compiled for a variant row's
/// FEATURES (Variants.h); BODY sees the shape s, the activation a and the arguments.
#define EMBER_CONV_ENTRY(NAME, FEATURES, BODY)                                                     \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) void NAME(                            \
      float *out, const float *in, const float *filter, const float *bias, const i64 *params,     \
      i64 act, float actA, float actB, float *scratchMem, parallel::Team *team) {                  \
    ConvShape s = readShape(params);                                                               \
    Activation a{act, actA, actB};                                                                 \
    BODY;                                                                                          \
  }

#endif
