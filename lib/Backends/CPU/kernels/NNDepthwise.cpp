// Depthwise 2-D convolutions on float32, NCHW: groups of one input channel, with any channel
// multiplier (output channel oc reads input channel oc / (K / C)).
//
// Strides of 1 and 2 (any padding and dilation, up to 49 taps) read phase planes
// (PhasePlanes.h): output vector f is the sum over the taps of weight * (the 16 floats at f plus
// the tap's offset), one unaligned load and one multiply-add each. Before it, each plane was
// padded row by row (a memcpy and two memsets a row) and computed a row at a time, which on
// 7 x 7 and 14 x 14 planes filled half a vector per row: mobilenet_v2's depthwise convolutions
// ran at 4-15 GFLOP/s on those planes.
//
// Other depthwise convolutions (strides of 3 and up, bigger windows) read in place.
#include "NNDepthwiseLanes.h"
#include "PhasePlanes.h"

namespace {

using namespace phased;

EMBER_INLINE Window windowOf(const ConvShape &s) {
  return Window{s.H, s.W, s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.PH, s.PW, s.DH, s.DW};
}

/// U consecutive output vectors from flat position f of a phase set, for a K x K window with
/// strides S and no dilation, all known at compile time (windowSums), then activated.
template <int U, int K, int S>
EMBER_INLINE void windowVectors(float *dst, const float *set, const Phases &p, const Vec *wv,
                                float bias, i64 f, Activation act) {
  Vec acc[U];
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    acc[u] = splat(bias);
  windowSums<U, K, S>(acc, set, p, wv, f);
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
  tapSums<U>(acc, set, tapOff, taps, w, f);
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

/// Output planes [begin, end) of the N x K: each one's input split into the phase set, then
/// its rows computed and copied out a strip at a time.
template <int K, int S, int SW>
EMBER_INLINE void phasedPlanes(float *out, const float *in, const float *filter,
                               const float *bias, const ConvShape &s, Activation act, float *mem,
                               i64 begin, i64 end) {
  const Window win = windowOf(s);
  const Phases p = phasesFor(win);
  const i64 R = scratch::phasedStripRows(s.OH, s.OW, s.KW, s.SW, s.DW);
  float *set = mem, *strip = mem + p.set;
  padPhases(set, p, 0.f);
  PhaseRuns runs[4];
  phaseRuns(runs, win, p);
  i64 tapOff[scratch::kPhasedMaxTaps];
  tapOffsets(tapOff, win, p);
  const i64 perGroup = s.K / s.G, taps = s.KH * s.KW, outPlane = s.OH * s.OW;
  // Plane bk is output channel bk % K of image bk / K, counted without dividing.
  for (i64 bk = begin, b = begin / s.K, oc = begin % s.K; bk < end;
       ++bk, oc = oc + 1 == s.K ? (++b, 0) : oc + 1) {
    // The phases of the previous plane serve again when both read the same input channel.
    if (bk == begin || oc % perGroup == 0)
      fillPhases<SW, false>(set, in + (b * s.C + oc / perGroup) * s.H * s.W, runs, s.SH * SW,
                            s.SH * s.W, p.Wq, s.H * s.W, 0.f);
    float *o = out + bk * outPlane; // = out + (b * K + oc) * OH * OW
    for (i64 r0 = 0; r0 < s.OH; r0 += R) {
      i64 rows = minI(R, s.OH - r0);
      computeStrip<K, S>(strip, set, p, tapOff, filter + oc * taps, bias[oc], s, act, r0, rows);
      copyStrip(o, strip, s.OH, s.OW, p.Wq, r0, rows);
    }
    applyOutOfLineActivation(o, outPlane, act);
  }
}

/// The flat path, the output planes split over \p team (null: one thread), each part with its
/// own phase sets and strips in scratch.
EMBER_INLINE void convDepthwisePhased(float *out, const float *in, const float *filter,
                                      const float *bias, const ConvShape &s, Activation act,
                                      float *scratchMem, parallel::Team *team) {
  i64 perPart = scratch::phasedFloats(s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.DH, s.DW);
  i64 parts = depthwiseParts(team, s, s.N * s.K);
  bool plain = s.SH == s.SW && s.DH == 1 && s.DW == 1;
  parallel::forEachPart(team, parts, [&](i64 part) {
    i64 begin, end;
    parallel::partRange(s.N * s.K, parts, 1, part, begin, end);
    float *mem = scratchMem + part * perPart;
    // The common windows unrolled, any other from the taps' offsets.
#define EMBER_PHASED(K, S, SW)                                                                     \
  phasedPlanes<K, S, SW>(out, in, filter, bias, s, act, mem, begin, end)
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
        if (act.kind != ActNone)
          applyActivationInPlace(orow, s.OW, act);
      }
    }
}

/// Whether every weight is finite. The phased path reads padding as zeros, and 0 * inf is NaN
/// where the Interpreter, which skips padding, has a number: with an infinite or NaN weight
/// the convolution reads in place, skipping padding too.
EMBER_INLINE bool allFinite(const float *w, i64 n) {
  bool finite = true;
  for (i64 i = 0; i < n; ++i)
    finite &= __builtin_isfinite(w[i]);
  return finite;
}

/// The channel lanes (NNDepthwiseLanes.h) or the phase planes when a window takes them and
/// every weight is finite, else in place.
EMBER_INLINE void convDepthwise(float *out, const float *in, const float *filter,
                                const float *bias, const ConvShape &s, Activation act,
                                float *scratchMem, parallel::Team *team) {
  if (!scratch::windowIsPhased(s.KH, s.KW, s.SH, s.SW) || !allFinite(filter, s.K * s.KH * s.KW))
    convDepthwiseInPlace(out, in, filter, bias, s, act);
  else if (scratch::depthwiseInLanes(s.C, s.K, s.G, s.KH, s.KW, s.SH, s.SW))
    lanes::convDepthwiseLanes(out, in, filter, bias, s, act, scratchMem, team);
  else
    convDepthwisePhased(out, in, filter, bias, s, act, scratchMem, team);
}

} // namespace

#define DEPTHWISE_ENTRY(SUFFIX, FEATURES)                                                          \
  EMBER_CONV_ENTRY(ember_depthwise_f32_##SUFFIX, FEATURES,                                        \
                   convDepthwise(out, in, filter, bias, s, a, scratchMem, team))

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(DEPTHWISE_ENTRY(NAME, FEATURES))
#include "Variants.def"
#undef DEPTHWISE_ENTRY
