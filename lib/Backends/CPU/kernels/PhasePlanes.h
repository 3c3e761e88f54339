// Phase planes: how the window kernels over NCHW planes (depthwise convolutions, NNDepthwise.cpp;
// max and average pooling, NNPool.cpp) read their input with strides of 1 or 2.
//
// Each input plane is first split into its SH x SW phase planes: phase (py, px) holds the
// padded input's rows py, py + SH, ... and columns px, px + SW, ..., with the padding (and what
// ceil-mode windows reach past the input) set to a pad value: 0 for sums, -inf for maxima.
// Output (oy, ox)'s tap (ky, kx) then reads phase ((ky DH) % SH, (kx DW) % SW) at row
// oy + ky DH / SH and column ox + kx DW / SW: the same place for every output, shifted by a
// constant. So the phase planes, rows Wq floats apart, are read as flat arrays: output vector f
// (16 consecutive positions of the [OH][Wq] grid) combines, over the taps, the 16 floats at f
// plus the tap's offset, one unaligned load each, with no bounds to check. The Wq - OW columns
// past each output row are computed and dropped when a strip of rows is copied out.
#ifndef EMBER_CPU_KERNELS_PHASEPLANES_H
#define EMBER_CPU_KERNELS_PHASEPLANES_H

#include "ConvShape.h"
#include "Scratch.h"

namespace phased {

/// A window's geometry: input and output plane sizes, window, strides, begin pads, dilations.
struct Window {
  i64 H, W, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW;
};

/// Geometry of the phase planes: each has Hq rows of Wq floats, \p stride floats from one to the
/// next; the SH x SW planes of one input plane make a set, \p set floats long.
struct Phases {
  i64 Hq, Wq, stride, set;
};

EMBER_INLINE Phases phasesFor(const Window &w) {
  return Phases{scratch::phasedRows(w.OH, w.KH, w.SH, w.DH),
                scratch::phasedCols(w.OW, w.KW, w.SW, w.DW),
                scratch::phasedStride(w.OH, w.OW, w.KH, w.KW, w.SH, w.SW, w.DH, w.DW),
                scratch::phasedSetFloats(w.OH, w.OW, w.KH, w.KW, w.SH, w.SW, w.DH, w.DW)};
}

/// What of an input plane one phase plane holds: \p rows runs of \p n input elements, SW apart,
/// the first at \p src (rows SH * W apart), written to the phase plane at \p dst (rows Wq apart).
struct PhaseRuns {
  i64 src, dst, rows, n;
};

/// The runs of each of the SH x SW phase planes (at most 4), worked out once per call.
EMBER_INLINE void phaseRuns(PhaseRuns *runs, const Window &w, const Phases &p) {
  for (i64 py = 0; py < w.SH; ++py)
    for (i64 px = 0; px < w.SW; ++px) {
      PhaseRuns &r = runs[py * w.SW + px];
      // Phase rows i hold padded rows i SH + py, input rows i SH + py - PH; likewise columns.
      i64 i0 = w.PH > py ? (w.PH - py + w.SH - 1) / w.SH : 0;
      i64 j0 = w.PW > px ? (w.PW - px + w.SW - 1) / w.SW : 0;
      i64 ih0 = i0 * w.SH + py - w.PH, iw0 = j0 * w.SW + px - w.PW;
      i64 rows = ih0 < w.H ? (w.H - ih0 + w.SH - 1) / w.SH : 0;
      i64 n = iw0 < w.W ? (w.W - iw0 + w.SW - 1) / w.SW : 0;
      r.rows = maxI(0, minI(rows, p.Hq - i0));
      r.n = maxI(0, minI(n, p.Wq - j0));
      r.src = ih0 * w.W + iw0;
      r.dst = (py * w.SW + px) * p.stride + i0 * p.Wq + j0;
    }
}

/// Where each tap reads in a phase set, relative to the output's flat position.
EMBER_INLINE void tapOffsets(i64 *tapOff, const Window &w, const Phases &p) {
  for (i64 ky = 0; ky < w.KH; ++ky)
    for (i64 kx = 0; kx < w.KW; ++kx) {
      i64 dy = ky * w.DH, dx = kx * w.DW;
      tapOff[ky * w.KW + kx] =
          ((dy % w.SH) * w.SW + dx % w.SW) * p.stride + dy / w.SH * p.Wq + dx / w.SW;
    }
}

/// Sets \p n floats from \p d to \p pad.
EMBER_INLINE void setFloats(float *d, i64 n, float pad) {
  if (n <= 0)
    return;
  if (pad == 0.f && !__builtin_signbit(pad)) {
    __builtin_memset(d, 0, (unsigned long)n * sizeof(float));
    return;
  }
  i64 i = 0;
  for (; i + EMBER_VW <= n; i += EMBER_VW)
    storev(d + i, splat(pad));
  for (; i < n; ++i)
    d[i] = pad;
}

/// Sets a whole phase set to \p pad, before the first plane is copied in.
EMBER_INLINE void padPhases(float *set, const Phases &p, float pad) { setFloats(set, p.set, pad); }

/// Sets to \p pad what of a phase set of \p phases planes fillPhases does not write from the
/// input: the rows and columns of padding, what lies past the input, each plane's slack. Only
/// the gaps between the runs: a set filled plane after plane (a convolution's input channels)
/// was written twice over, the memset alone 3% of densenet121's 3x3 convolutions.
EMBER_INLINE void padAroundRuns(float *set, const PhaseRuns *runs, i64 phases, const Phases &p,
                                float pad) {
  for (i64 k = 0; k < phases; ++k) {
    const PhaseRuns &r = runs[k];
    float *plane = set + k * p.stride;
    if (r.rows == 0 || r.n == 0) {
      setFloats(plane, p.stride, pad);
      continue;
    }
    i64 start = r.dst - k * p.stride; // the first run's place in its plane
    setFloats(plane, start, pad);
    for (i64 row = 0; row + 1 < r.rows; ++row) // from one run's end to the next's start
      setFloats(plane + start + row * p.Wq + r.n, p.Wq - r.n, pad);
    i64 end = start + (r.rows - 1) * p.Wq + r.n;
    setFloats(plane + end, p.stride - end, pad);
  }
}

/// Copies one input plane into its phase set, whose padding holds \p pad. Each run is written
/// a vector at a time: the lanes past the run are stored as \p pad, on the run's padding, on
/// rows written later (a plane's rows are written in order) or on the plane's slack. A vector
/// may read past its run into the next input rows; where it would read past the plane, the run
/// is copied an element at a time. With CheckNaN, returns whether the plane holds a NaN.
template <int SW, bool CheckNaN>
EMBER_INLINE bool fillPhases(float *set, const float *plane, const PhaseRuns *runs, i64 phases,
                             i64 srcRowStep, i64 Wq, i64 planeFloats, float pad) {
  static_assert(EMBER_VW == 16, "lane holds one index per float of a vector");
  const IVec lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  IVec nan = (IVec)(0);
  for (i64 k = 0; k < phases; ++k) {
    const PhaseRuns &r = runs[k];
    for (i64 row = 0; row < r.rows; ++row) {
      i64 from = r.src + row * srcRowStep;
      float *d = set + r.dst + row * Wq;
      i64 q = 0;
      for (; q < r.n && from + (q + EMBER_VW) * SW <= planeFloats; q += EMBER_VW) {
        Vec v = lane < i32(r.n - q) ? stridedVector<SW>(plane + from + q * SW) : splat(pad);
        if constexpr (CheckNaN)
          nan |= v != v;
        storev(d + q, v);
      }
      for (; q < r.n; ++q) {
        float x = plane[from + q * SW];
        if constexpr (CheckNaN)
          nan[0] |= x != x ? -1 : 0;
        d[q] = x;
      }
    }
  }
  if constexpr (CheckNaN) {
    i32 any = 0;
    for (int l = 0; l < EMBER_VW; ++l)
      any |= nan[l];
    return any != 0;
  }
  return false;
}

/// The first OW columns of a strip's rows (Wq floats apart) to output rows [r0, r0 + rows) of an
/// OH x OW plane, a vector at a time: a vector past a row's end lands on the strip's next rows,
/// written later; one that would reach past the strip's last row is stored in part, so that
/// strips of one plane may be copied by different threads.
EMBER_INLINE void copyStrip(float *o, const float *strip, i64 OH, i64 OW, i64 Wq, i64 r0,
                            i64 rows) {
  const i64 planeEnd = minI(OH, r0 + rows) * OW;
  for (i64 r = 0; r < rows; ++r) {
    const float *src = strip + r * Wq;
    i64 at = (r0 + r) * OW;
    for (i64 ox = 0; ox < OW; ox += EMBER_VW) {
      if (at + ox + EMBER_VW > planeEnd)
        storePartial(o + at + ox, loadv(src + ox), minI(EMBER_VW, OW - ox));
      else
        storev(o + at + ox, loadv(src + ox));
    }
  }
}

/// The tap loops of the depthwise kernels (NNDepthwise.cpp, QuantizedDepthwise.cpp), which
/// start and finish the sums their own way.
///
/// Adds to \p acc the U consecutive output vectors from flat position f of a phase set, for a
/// K x K window with strides S and no dilation, all known at compile time: tap (ky, kx) reads
/// phase (ky % S, kx % S) at a constant offset.
template <int U, int K, int S>
EMBER_INLINE void windowSums(Vec *acc, const float *set, const Phases &p, const Vec *wv, i64 f) {
#pragma clang loop unroll(full)
  for (int ky = 0; ky < K; ++ky)
#pragma clang loop unroll(full)
    for (int kx = 0; kx < K; ++kx) {
      const float *src =
          set + ((ky % S) * S + kx % S) * p.stride + (ky / S) * p.Wq + kx / S + f;
#pragma clang loop unroll(full)
      for (int u = 0; u < U; ++u)
        acc[u] = __builtin_elementwise_fma(wv[ky * K + kx], loadv(src + u * EMBER_VW), acc[u]);
    }
}

/// The same for any window, strides and dilations, the taps' offsets in the set at run time.
template <int U>
EMBER_INLINE void tapSums(Vec *acc, const float *set, const i64 *tapOff, i64 taps,
                          const float *w, i64 f) {
  for (i64 t = 0; t < taps; ++t) {
    Vec wt = splat(w[t]);
    const float *src = set + tapOff[t] + f;
#pragma clang loop unroll(full)
    for (int u = 0; u < U; ++u)
      acc[u] = __builtin_elementwise_fma(wt, loadv(src + u * EMBER_VW), acc[u]);
  }
}

} // namespace phased

#endif
