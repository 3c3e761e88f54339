// Depthwise 2-D convolutions on float32, NCHW: groups of one input channel, with any channel
// multiplier (output channel oc reads input channel oc / (K / C)).
//
// Horizontal strides of 1 and 2 (any vertical stride, padding and dilation, up to 49 taps) take
// the flat path. Each input plane is first split into its SH x SW phase planes: phase (py, px)
// holds the zero-padded input's rows py, py + SH, ... and columns px, px + SW, ... Output
// (oy, ox)'s tap (ky, kx) then reads phase ((ky DH) % SH, (kx DW) % SW) at row oy + ky DH / SH and
// column ox + kx DW / SW: the same place for every output, shifted by a constant. So the phase
// planes, rows Wq floats apart, are read as flat arrays: output vector f (16 consecutive
// positions of the [OH][Wq] grid) is the sum over the taps of weight * (the 16 floats at f plus
// the tap's offset), one unaligned load and one multiply-add each, with no bounds to check. The
// Wq - OW columns past each output row are computed and dropped when the strip is copied out.
// Before it, each plane was padded row by row (a memcpy and two memsets a row) and computed a
// row at a time, which on 7 x 7 and 14 x 14 planes filled half a vector per row: mobilenet_v2's
// depthwise convolutions ran at 4-15 GFLOP/s on those planes.
//
// Other depthwise convolutions (horizontal stride 3 and up, bigger windows) read in place.
#include "ConvShape.h"

namespace {

/// Geometry of the phase planes: each has Hq rows of Wq floats, \p stride floats from one to the
/// next; the SH x SW planes of one input plane make a set, \p set floats long.
struct Phases {
  i64 Hq, Wq, stride, set;
};

EMBER_INLINE Phases phasesFor(const ConvShape &s) {
  return Phases{scratch::depthwisePhaseRows(s.OH, s.KH, s.SH, s.DH),
                scratch::depthwisePhaseCols(s.OW, s.KW, s.SW, s.DW),
                scratch::depthwisePhaseStride(s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.DH, s.DW),
                scratch::depthwisePhaseSetFloats(s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.DH, s.DW)};
}

/// What of an input plane one phase plane holds: \p rows runs of \p n input elements, SW apart,
/// the first at \p src (rows SH * W apart), written to the phase plane at \p dst (rows Wq apart).
struct PhaseRuns {
  i64 src, dst, rows, n;
};

/// The runs of each of the SH x SW phase planes (at most 4), worked out once per call.
EMBER_INLINE void phaseRuns(PhaseRuns *runs, const ConvShape &s, const Phases &p) {
  for (i64 py = 0; py < s.SH; ++py)
    for (i64 px = 0; px < s.SW; ++px) {
      PhaseRuns &r = runs[py * s.SW + px];
      // Phase rows i hold padded rows i SH + py, input rows i SH + py - PH; likewise columns.
      i64 i0 = s.PH > py ? (s.PH - py + s.SH - 1) / s.SH : 0;
      i64 j0 = s.PW > px ? (s.PW - px + s.SW - 1) / s.SW : 0;
      i64 ih0 = i0 * s.SH + py - s.PH, iw0 = j0 * s.SW + px - s.PW;
      i64 rows = ih0 < s.H ? (s.H - ih0 + s.SH - 1) / s.SH : 0;
      i64 n = iw0 < s.W ? (s.W - iw0 + s.SW - 1) / s.SW : 0;
      r.rows = maxI(0, minI(rows, p.Hq - i0));
      r.n = maxI(0, minI(n, p.Wq - j0));
      r.src = ih0 * s.W + iw0;
      r.dst = (py * s.SW + px) * p.stride + i0 * p.Wq + j0;
    }
}

/// Copies one input plane into its phase set, whose padding was zeroed before the first plane.
/// Each run is written a vector at a time: the lanes past the run are stored as zeros, on the
/// run's padding, on rows written later (a plane's rows are written in order) or on the plane's
/// slack. A vector may read past its run into the next input rows; where it would read past the
/// plane, the run is copied an element at a time.
template <int SW>
EMBER_INLINE void fillPhases(float *set, const float *plane, const PhaseRuns *runs, i64 phases,
                             i64 srcRowStep, i64 Wq, i64 planeFloats) {
  static_assert(EMBER_VW == 16, "lane holds one index per float of a vector");
  const IVec lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  for (i64 k = 0; k < phases; ++k) {
    const PhaseRuns &r = runs[k];
    for (i64 row = 0; row < r.rows; ++row) {
      i64 from = r.src + row * srcRowStep;
      float *d = set + r.dst + row * Wq;
      i64 q = 0;
      for (; q < r.n && from + (q + EMBER_VW) * SW <= planeFloats; q += EMBER_VW)
        storev(d + q, lane < i32(r.n - q) ? stridedVector<SW>(plane + from + q * SW) : 0.f);
      for (; q < r.n; ++q)
        d[q] = plane[from + q * SW];
    }
  }
}

/// U consecutive output vectors from flat position f of a phase set, for a K x K window with
/// strides S and no dilation, all known at compile time: tap (ky, kx) reads phase
/// (ky % S, kx % S) at a constant offset. Taps are summed row by row, then column by column.
template <int U, int K, int S>
EMBER_INLINE void windowVectors(float *dst, const float *set, const Phases &p, const Vec *wv,
                                float bias, i64 f, Activation act) {
  Vec acc[U];
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    acc[u] = splat(bias);
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
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    storev(dst + u * EMBER_VW, applyInlineActivation(acc[u], act));
}

/// The same for any window, strides and dilations, the taps' offsets in the set at run time.
template <int U>
EMBER_INLINE void tapVectors(float *dst, const float *set, const i64 *tapOff, i64 taps,
                             const float *w, float bias, i64 f, Activation act) {
  Vec acc[U];
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    acc[u] = splat(bias);
  for (i64 t = 0; t < taps; ++t) {
    Vec wt = splat(w[t]);
    const float *src = set + tapOff[t] + f;
#pragma clang loop unroll(full)
    for (int u = 0; u < U; ++u)
      acc[u] = __builtin_elementwise_fma(wt, loadv(src + u * EMBER_VW), acc[u]);
  }
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    storev(dst + u * EMBER_VW, applyInlineActivation(acc[u], act));
}

/// Output rows [r0, r0 + rows) of one plane, its [rows][Wq] grid computed flat into \p strip
/// from the phase set: K x K windows with equal strides S and no dilation unrolled (K > 0),
/// any other window from the taps' offsets.
template <int K, int S>
EMBER_INLINE void computeStrip(float *strip, const float *set, const Phases &p, const i64 *tapOff,
                               const float *w, float bias, const ConvShape &s, Activation act,
                               i64 r0, i64 rows) {
  i64 begin = r0 * p.Wq, end = begin + rows * p.Wq, f = begin;
  if constexpr (K > 0) {
    Vec wv[K * K];
#pragma clang loop unroll(full)
    for (int t = 0; t < K * K; ++t)
      wv[t] = splat(w[t]);
    for (; f + 4 * EMBER_VW <= end; f += 4 * EMBER_VW)
      windowVectors<4, K, S>(strip + (f - begin), set, p, wv, bias, f, act);
    for (; f < end; f += EMBER_VW)
      windowVectors<1, K, S>(strip + (f - begin), set, p, wv, bias, f, act);
  } else {
    i64 taps = s.KH * s.KW;
    for (; f + 4 * EMBER_VW <= end; f += 4 * EMBER_VW)
      tapVectors<4>(strip + (f - begin), set, tapOff, taps, w, bias, f, act);
    for (; f < end; f += EMBER_VW)
      tapVectors<1>(strip + (f - begin), set, tapOff, taps, w, bias, f, act);
  }
}

/// The first OW columns of the strip's rows to output rows [r0, r0 + rows), a vector at a time:
/// a vector past a row's end lands on the next row, written after it; the plane's last vector
/// is stored in part.
EMBER_INLINE void copyStrip(float *o, const float *strip, const ConvShape &s, i64 Wq, i64 r0,
                            i64 rows) {
  for (i64 r = 0; r < rows; ++r) {
    const float *src = strip + r * Wq;
    float *dst = o + (r0 + r) * s.OW;
    bool lastRow = r0 + r == s.OH - 1;
    for (i64 ox = 0; ox < s.OW; ox += EMBER_VW) {
      if (lastRow && ox + EMBER_VW > s.OW)
        storePartial(dst + ox, loadv(src + ox), s.OW - ox);
      else
        storev(dst + ox, loadv(src + ox));
    }
  }
}

/// Output planes [begin, end) of the N x K: each one's input split into the phase set, then
/// its rows computed and copied out a strip at a time.
template <int K, int S, int SW>
EMBER_INLINE void phasedPlanes(float *out, const float *in, const float *filter,
                               const float *bias, const ConvShape &s, Activation act, float *mem,
                               i64 begin, i64 end) {
  const Phases p = phasesFor(s);
  const i64 R = scratch::depthwiseStripRows(s.OH, s.OW, s.KW, s.SW, s.DW);
  float *set = mem, *strip = mem + p.set;
  __builtin_memset(set, 0, (unsigned long)(p.set) * sizeof(float));
  PhaseRuns runs[4];
  phaseRuns(runs, s, p);
  i64 tapOff[scratch::kDepthwiseMaxTaps];
  for (i64 ky = 0; ky < s.KH; ++ky)
    for (i64 kx = 0; kx < s.KW; ++kx) {
      i64 dy = ky * s.DH, dx = kx * s.DW;
      tapOff[ky * s.KW + kx] =
          ((dy % s.SH) * SW + dx % SW) * p.stride + dy / s.SH * p.Wq + dx / SW;
    }
  const i64 perGroup = s.K / s.G, taps = s.KH * s.KW, outPlane = s.OH * s.OW;
  // Plane bk is output channel bk % K of image bk / K, counted without dividing.
  for (i64 bk = begin, b = begin / s.K, oc = begin % s.K; bk < end;
       ++bk, oc = oc + 1 == s.K ? (++b, 0) : oc + 1) {
    // The phases of the previous plane serve again when both read the same input channel.
    if (bk == begin || oc % perGroup == 0)
      fillPhases<SW>(set, in + (b * s.C + oc / perGroup) * s.H * s.W, runs, s.SH * SW,
                     s.SH * s.W, p.Wq, s.H * s.W);
    float *o = out + bk * outPlane; // = out + (b * K + oc) * OH * OW
    for (i64 r0 = 0; r0 < s.OH; r0 += R) {
      i64 rows = minI(R, s.OH - r0);
      computeStrip<K, S>(strip, set, p, tapOff, filter + oc * taps, bias[oc], s, act, r0, rows);
      copyStrip(o, strip, s, p.Wq, r0, rows);
    }
    applyOutOfLineActivation(o, outPlane, act);
  }
}

/// The flat path, the output planes split over \p team (null: one thread), each part with its
/// own phase sets and strips in scratch.
EMBER_INLINE void convDepthwisePhased(float *out, const float *in, const float *filter,
                                      const float *bias, const ConvShape &s, Activation act,
                                      float *scratchMem, parallel::Team *team) {
  i64 perPart = scratch::depthwiseFloats(s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.DH, s.DW);
  i64 parts = minI(parallel::partsFor(team, 2 * s.N * s.K * s.OH * s.OW * s.KH * s.KW),
                   s.N * s.K);
  bool plain = s.SH == s.SW && s.DH == 1 && s.DW == 1;
  parallel::forEachPart(team, parts, [&](i64 part) {
    i64 begin, end;
    parallel::partRange(s.N * s.K, parts, 1, part, begin, end);
    float *mem = scratchMem + part * perPart;
    // The common windows unrolled, any other from the taps' offsets.
#define EMBER_PHASED(K, S, SW) phasedPlanes<K, S, SW>(out, in, filter, bias, s, act, mem, begin, end)
    if (plain && s.KH == 3 && s.KW == 3 && s.SW == 1)
      EMBER_PHASED(3, 1, 1);
    else if (plain && s.KH == 3 && s.KW == 3 && s.SW == 2)
      EMBER_PHASED(3, 2, 2);
    else if (plain && s.KH == 5 && s.KW == 5 && s.SW == 1)
      EMBER_PHASED(5, 1, 1);
    else if (plain && s.KH == 5 && s.KW == 5 && s.SW == 2)
      EMBER_PHASED(5, 2, 2);
    else if (s.SW == 1)
      EMBER_PHASED(0, 0, 1);
    else
      EMBER_PHASED(0, 0, 2);
#undef EMBER_PHASED
  });
}

/// Depthwise convolutions the flat path does not take: read in place, a row at a time.
EMBER_INLINE void convDepthwiseInPlace(float *out, const float *in, const float *filter,
                                       const float *bias, const ConvShape &s, Activation act) {
  i64 perGroup = s.K / s.G;
  for (i64 b = 0; b < s.N; ++b)
    for (i64 oc = 0; oc < s.K; ++oc) {
      const float *plane = in + (b * s.C + oc / perGroup) * s.H * s.W;
      const float *w = filter + oc * s.KH * s.KW;
      float *o = out + (b * s.K + oc) * s.OH * s.OW;
      float b0 = bias[oc];
      for (i64 oh = 0; oh < s.OH; ++oh) {
        float *orow = o + oh * s.OW;
        for (i64 ow = 0; ow < s.OW; ++ow)
          orow[ow] = b0;
        for (i64 kh = 0; kh < s.KH; ++kh) {
          i64 ih = oh * s.SH - s.PH + kh * s.DH;
          if (ih < 0 || ih >= s.H)
            continue;
          const float *row = plane + ih * s.W;
          for (i64 kw = 0; kw < s.KW; ++kw) {
            float wv = w[kh * s.KW + kw];
            i64 off = kw * s.DW - s.PW, lo, hi;
            validRange(off, s.SW, s.W, s.OW, lo, hi);
            for (i64 ow = lo; ow < hi; ++ow)
              orow[ow] += wv * row[ow * s.SW + off];
          }
        }
        if (act.kind != ActNone) {
          i64 ow = 0;
          for (; ow + EMBER_VW <= s.OW; ow += EMBER_VW)
            storev(orow + ow, applyActivation(loadv(orow + ow), act));
          if (ow < s.OW)
            storePartial(orow + ow, applyActivation(loadPartial(orow + ow, s.OW - ow), act),
                         s.OW - ow);
        }
      }
    }
}

} // namespace

#define DEPTHWISE_ENTRY(SUFFIX, FEATURES)                                                          \
  EMBER_CONV_ENTRY(ember_depthwise_f32_##SUFFIX, FEATURES,                                        \
                   (scratch::depthwiseIsPhased(s.KH, s.KW, s.SH, s.SW)                                   \
                        ? convDepthwisePhased(out, in, filter, bias, s, a, scratchMem, team)       \
                        : convDepthwiseInPlace(out, in, filter, bias, s, a)))

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(DEPTHWISE_ENTRY(NAME, FEATURES))
#include "Variants.def"
#undef DEPTHWISE_ENTRY
