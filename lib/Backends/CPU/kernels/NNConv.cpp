// 2-D convolution on float32, NCHW (1-D convolutions come here with H = 1). Two algorithms:
//  - groups of one input channel (depthwise, with any channel multiplier): direct, one output
//    row at a time, each kernel tap a vectorizable multiply-add over the row's valid range;
//  - everything else: per image and group, the GEMM of NNGemm.h with A = the group's filters
//    [Cout/g, Cin/g * KH * KW] and B = the im2col view of the input, packed block by block
//    straight from the input (the im2col matrix itself never exists).
// The bias is added and the fused activation applied as each output element is finished.
#include "NNGemm.h"
#include "Variants.h"

using namespace gemm;

namespace {

/// Geometry of a convolution, as codegen lays it out in the constant parameter array.
struct ConvShape {
  i64 N, C, H, W, K /*out channels*/, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, G;
};

EMBER_INLINE ConvShape readShape(const i64 *p) {
  return ConvShape{p[0], p[1], p[2],  p[3],  p[4],  p[5],  p[6],  p[7],
                   p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15]};
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

/// Packs rows k0..k0+kb of the im2col matrix of channels [c0, c0 + Cg) of one image, columns
/// n0..n0+nb (output positions, row-major over OH x OW), into NR-wide panels.
struct Im2colPacker {
  const float *image; // the image's first channel of the group
  ConvShape s;

  void operator()(i64 k0, i64 kb, i64 n0, i64 nb, i64 NR, float *buf) const {
    i64 taps = s.KH * s.KW;
    for (i64 kk = 0; kk < kb; ++kk) {
      i64 k = k0 + kk, c = k / taps, t = k % taps, kh = t / s.KW, kw = t % s.KW;
      const float *plane = image + c * s.H * s.W;
      i64 colOff = kw * s.DW - s.PW;
      i64 owLo, owHi;
      validRange(colOff, s.SW, s.W, s.OW, owLo, owHi);
      i64 j = 0; // column within the block
      while (j < nb) {
        i64 n = n0 + j, oh = n / s.OW, ow = n % s.OW, seg = minI(s.OW - ow, nb - j);
        i64 ih = oh * s.SH - s.PH + kh * s.DH;
        bool rowValid = ih >= 0 && ih < s.H;
        const float *row = plane + ih * s.W;
        // Three runs along the output row: padding, real input, padding.
        for (i64 t0 = 0; t0 < seg;) {
          i64 o = ow + t0;
          i64 runEnd, kind; // kind 0: zeros, 1: input
          if (!rowValid) {
            runEnd = seg, kind = 0;
          } else if (o < owLo) {
            runEnd = minI(seg, owLo - ow), kind = 0;
          } else if (o < owHi) {
            runEnd = minI(seg, owHi - ow), kind = 1;
          } else {
            runEnd = seg, kind = 0;
          }
          // Write columns j + t0 .. j + runEnd, splitting at panel boundaries.
          for (i64 t = t0; t < runEnd;) {
            i64 col = j + t, lane = col % NR, chunk = minI(NR - lane, runEnd - t);
            float *dst = buf + (col / NR) * kb * NR + kk * NR + lane;
            if (kind == 0) {
              for (i64 q = 0; q < chunk; ++q)
                dst[q] = 0.f;
            } else {
              const float *src = row + (ow + t) * s.SW + colOff;
              if (s.SW == 1)
                for (i64 q = 0; q < chunk; ++q)
                  dst[q] = src[q];
              else
                for (i64 q = 0; q < chunk; ++q)
                  dst[q] = src[q * s.SW];
            }
            t += chunk;
          }
          t0 = runEnd;
        }
        j += seg;
      }
      // Zero the padding columns of the last panel.
      i64 padded = (nb + NR - 1) / NR * NR;
      for (i64 col = nb; col < padded; ++col)
        buf[(col / NR) * kb * NR + kk * NR + col % NR] = 0.f;
    }
  }
};

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

/// Im2col for a horizontal stride SW of 1 or 2 (any vertical one) from a zero-padded copy of the
/// input: each panel row is a few runs of the padded input (one per output row the panel's
/// columns touch), SW apart, copied a vector at a time with no bounds checks. A run's last vector
/// may spill past its end; the next run, the next row (rows are written in order) or the
/// buffer's slack absorbs it, and spilled lanes beyond the block's columns only feed C columns
/// that are never stored. Before it, stride 2 took an element at a time, which on a network's
/// stem (3 input channels, a 7x7 or 3x3 window) cost as much as the products.
template <int SW> struct PaddedPacker {
  const float *padded; // [Cg][Hp][Wp]
  ConvShape s;
  i64 Hp, Wp;

  void operator()(i64 k0, i64 kb, i64 n0, i64 nb, i64 NR, float *buf) const {
    i64 taps = s.KH * s.KW, plane = Hp * Wp;
    i64 segLane[64], segLen[64], segSrc[64];
    for (i64 p = 0; p * NR < nb; ++p) {
      i64 nseg = 0, j = p * NR, end = minI(nb, j + NR);
      while (j < end) {
        i64 n = n0 + j, oh = n / s.OW, ow = n % s.OW, len = minI(s.OW - ow, end - j);
        segLane[nseg] = j - p * NR, segLen[nseg] = len, segSrc[nseg] = oh * s.SH * Wp + ow * SW;
        ++nseg;
        j += len;
      }
      float *dst = buf + p * kb * NR;
      for (i64 kk = 0; kk < kb; ++kk) {
        i64 k = k0 + kk, c = k / taps, t = k % taps, kh = t / s.KW, kw = t % s.KW;
        const float *tap = padded + c * plane + kh * s.DH * Wp + kw * s.DW;
        float *row = dst + kk * NR;
        for (i64 g = 0; g < nseg; ++g) {
          const float *src = tap + segSrc[g];
          float *d = row + segLane[g];
          for (i64 q = 0; q < segLen[g]; q += EMBER_VW)
            storev(d + q, stridedVector<SW>(src + q * SW));
        }
      }
    }
  }
};

/// Copies channels [0, Cg) of \p image into \p padded ([Cg][Hp][Wp]) with the convolution's
/// padding, row by row: zeros, the input row's columns that land inside, zeros.
EMBER_INLINE void padImage(float *padded, const float *image, i64 Cg, const ConvShape &s, i64 Hp,
                           i64 Wp) {
  i64 first = minI(s.PW, Wp), count = maxI(0, minI(s.W, Wp - s.PW));
  for (i64 c = 0; c < Cg; ++c)
    for (i64 y = 0; y < Hp; ++y) {
      float *d = padded + (c * Hp + y) * Wp;
      i64 ih = y - s.PH;
      if (ih < 0 || ih >= s.H || count == 0) {
        __builtin_memset(d, 0, (unsigned long)(Wp) * sizeof(float));
        continue;
      }
      __builtin_memset(d, 0, (unsigned long)(first) * sizeof(float));
      __builtin_memcpy(d + first, image + (c * s.H + ih) * s.W,
                       (unsigned long)(count) * sizeof(float));
      __builtin_memset(d + first + count, 0,
                       (unsigned long)(Wp - first - count) * sizeof(float));
    }
}

/// Scratch: the GEMM's packed panels (one block per thread), then (horizontal stride 1 or 2, not
/// a plain 1x1) the padded input of one group, which every thread reads. PackedA: the backend packed the filter at
/// compile time (PackedPanels.h: each group's [K/G, C/G*KH*KW] matrix in panels of MR rows).
template <int MR, int NV, bool PackedA>
EMBER_INLINE void convGemm(float *out, const float *in, const float *filter, const float *bias,
                           const ConvShape &s, Activation act, float *scratchMem,
                           parallel::Team *team) {
  i64 Cg = s.C / s.G, Kg = s.K / s.G, kDepth = Cg * s.KH * s.KW, outPlane = s.OH * s.OW;
  float *packBuffer = scratchMem;
  float *padded =
      scratchMem + scratch::gemmScratchFloats(kDepth, outPlane, team ? team->size : 1);
  // The padded input the packer reads: every row and column some window reaches.
  i64 Hp = scratch::convPaddedExtent(s.OH, s.KH, s.SH, s.DH);
  i64 Wp = scratch::convPaddedExtent(s.OW, s.KW, s.SW, s.DW);
  for (i64 b = 0; b < s.N; ++b)
    for (i64 g = 0; g < s.G; ++g) {
      Epilogue ep{bias + g * Kg, 0, act};
      const float *image = in + (b * s.C + g * Cg) * s.H * s.W;
      const float *A = filter + g * Kg * kDepth;
      float *C = out + (b * s.K + g * Kg) * outPlane;
      // A 1x1 convolution with stride 1 and no padding multiplies by the input itself.
      if (scratch::convIsPointwise(s.H, s.W, s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.PH, s.PW))
        runGemm<MR, NV, PackedA>(Kg, outPlane, kDepth, A, kDepth, C, outPlane,
                                 packFn(DensePacker{image, outPlane}), ep, packBuffer, team);
      else if (scratch::convIsPadded(s.SW)) {
        padImage(padded, image, Cg, s, Hp, Wp);
        if (s.SW == 1)
          runGemm<MR, NV, PackedA>(Kg, outPlane, kDepth, A, kDepth, C, outPlane,
                                   packFn(PaddedPacker<1>{padded, s, Hp, Wp}), ep, packBuffer,
                                   team);
        else
          runGemm<MR, NV, PackedA>(Kg, outPlane, kDepth, A, kDepth, C, outPlane,
                                   packFn(PaddedPacker<2>{padded, s, Hp, Wp}), ep, packBuffer,
                                   team);
      } else
        runGemm<MR, NV, PackedA>(Kg, outPlane, kDepth, A, kDepth, C, outPlane,
                                 packFn(Im2colPacker{image, s}), ep, packBuffer, team);
    }
}

/// Output rows [oh, oh + R) of a depthwise plane with a KH x KW window, strides SH x SW and no
/// dilation, all known at compile time. The R windows overlap: each input vector they share is
/// loaded once and multiplied into every output row whose window covers it, so a 3 x 3 window
/// over 2 rows loads 4 rows of taps instead of 6. Each output sums its taps in the order the
/// one-row form does (row by row, then column by column).
template <int R, int KH, int KW, int SH, int SW>
EMBER_INLINE void depthwiseRows(float *o, const float *padded, i64 Wp, const float *w,
                                float bias, const ConvShape &s, Activation act, i64 oh) {
  constexpr int inputRows = (R - 1) * SH + KH;
  const float *top = padded + oh * SH * Wp;
  for (i64 ow = 0; ow < s.OW; ow += EMBER_VW) {
    Vec acc[R];
#pragma clang loop unroll(full)
    for (int r = 0; r < R; ++r)
      acc[r] = splat(bias);
#pragma clang loop unroll(full)
    for (int t = 0; t < inputRows; ++t)
#pragma clang loop unroll(full)
      for (int x = 0; x < KW; ++x) {
        Vec v = stridedVector<SW>(top + t * Wp + ow * SW + x);
#pragma clang loop unroll(full)
        for (int r = 0; r < R; ++r) {
          const int y = t - r * SH;
          if (y >= 0 && y < KH)
            acc[r] = __builtin_elementwise_fma(splat(w[y * KW + x]), v, acc[r]);
        }
      }
    i64 n = minI(EMBER_VW, s.OW - ow);
#pragma clang loop unroll(full)
    for (int r = 0; r < R; ++r) {
      Vec y = applyInlineActivation(acc[r], act);
      float *dst = o + (oh + r) * s.OW + ow;
      if (n == EMBER_VW)
        storev(dst, y);
      else
        storePartial(dst, y, n);
    }
  }
  if (isOutOfLine(act.kind))
    for (int r = 0; r < R; ++r)
      applyOutOfLineActivation(o + (oh + r) * s.OW, s.OW, act);
}

/// A depthwise plane whose window and strides are known at compile time: two rows at a time
/// (depthwiseRows), then the last one alone. On mobilenet_v2's depthwise shapes, timed alone:
/// 2.65 ms one row at a time, 2.40 two at a time; four at a time sped up the 112 x 112 planes
/// but slowed the 14 x 14 ones, for no gain in all.
template <int KH, int KW, int SH, int SW>
EMBER_INLINE void depthwisePlaneBlocked(float *o, const float *padded, i64 Wp, const float *w,
                                        float bias, const ConvShape &s, Activation act) {
  i64 oh = 0;
  for (; oh + 2 <= s.OH; oh += 2)
    depthwiseRows<2, KH, KW, SH, SW>(o, padded, Wp, w, bias, s, act, oh);
  for (; oh < s.OH; ++oh)
    depthwiseRows<1, KH, KW, SH, SW>(o, padded, Wp, w, bias, s, act, oh);
}

/// One output plane of a depthwise convolution from its zero-padded input plane (rows Wp
/// floats apart): KH x KW taps (0: s.KH x s.KW at run time), horizontal stride SW (1 or 2).
template <int KH, int KW, int SW>
EMBER_INLINE void depthwisePlane(float *o, const float *padded, i64 Wp, const float *w,
                                 float bias, const ConvShape &s, Activation act) {
  const i64 kh = KH ? KH : s.KH, kw = KW ? KW : s.KW;
  for (i64 oh = 0; oh < s.OH; ++oh) {
    const float *top = padded + oh * s.SH * Wp;
    for (i64 ow = 0; ow < s.OW; ow += EMBER_VW) {
      Vec acc = splat(bias);
      for (i64 y = 0; y < kh; ++y) {
        const float *row = top + y * s.DH * Wp + ow * SW;
        for (i64 x = 0; x < kw; ++x) {
          Vec v = stridedVector<SW>(row + x * s.DW);
          acc = __builtin_elementwise_fma(splat(w[y * kw + x]), v, acc);
        }
      }
      acc = applyInlineActivation(acc, act);
      i64 n = minI(EMBER_VW, s.OW - ow);
      if (n == EMBER_VW)
        storev(o + oh * s.OW + ow, acc);
      else
        storePartial(o + oh * s.OW + ow, acc, n);
    }
    if (isOutOfLine(act.kind))
      applyOutOfLineActivation(o + oh * s.OW, s.OW, act);
  }
}

/// Planes [begin, end) of the N x C input planes, through the padded plane \p padded.
EMBER_INLINE void depthwiseChannels(float *out, const float *in, const float *filter,
                                    const float *bias, const ConvShape &s, Activation act,
                                    float *padded, i64 Hp, i64 Wp, i64 begin, i64 end) {
  i64 perGroup = s.K / s.G, taps = s.KH * s.KW;
  for (i64 bc = begin; bc < end; ++bc) {
    i64 b = bc / s.C, c = bc % s.C;
    const float *plane = in + (b * s.C + c) * s.H * s.W;
    padImage(padded, plane, 1, s, Hp, Wp);
    for (i64 m = 0; m < perGroup; ++m) {
      i64 oc = c * perGroup + m;
      const float *w = filter + oc * taps;
      float *o = out + (b * s.K + oc) * s.OH * s.OW;
      // The common windows (3 x 3 and 5 x 5, equal strides of 1 or 2, no dilation) blocked
      // over rows with their loops unrolled; any other shape one row at a time, with its
      // window at run time if need be.
      bool plain = s.DH == 1 && s.DW == 1 && s.SH == s.SW;
      if (plain && s.KH == 3 && s.KW == 3 && s.SW == 1)
        depthwisePlaneBlocked<3, 3, 1, 1>(o, padded, Wp, w, bias[oc], s, act);
      else if (plain && s.KH == 3 && s.KW == 3 && s.SW == 2)
        depthwisePlaneBlocked<3, 3, 2, 2>(o, padded, Wp, w, bias[oc], s, act);
      else if (plain && s.KH == 5 && s.KW == 5 && s.SW == 1)
        depthwisePlaneBlocked<5, 5, 1, 1>(o, padded, Wp, w, bias[oc], s, act);
      else if (plain && s.KH == 5 && s.KW == 5 && s.SW == 2)
        depthwisePlaneBlocked<5, 5, 2, 2>(o, padded, Wp, w, bias[oc], s, act);
      else if (s.KH == 3 && s.KW == 3 && s.SW == 1)
        depthwisePlane<3, 3, 1>(o, padded, Wp, w, bias[oc], s, act);
      else if (s.KH == 3 && s.KW == 3 && s.SW == 2)
        depthwisePlane<3, 3, 2>(o, padded, Wp, w, bias[oc], s, act);
      else if (s.SW == 1)
        depthwisePlane<0, 0, 1>(o, padded, Wp, w, bias[oc], s, act);
      else
        depthwisePlane<0, 0, 2>(o, padded, Wp, w, bias[oc], s, act);
    }
  }
}

/// Groups with one input channel each (out channel oc reads input channel oc / (K / G)), with
/// a horizontal stride of 1 or 2: each input plane is copied once, zero-padded, into scratch, so
/// every tap of every output vector is one unaligned load (stride 1) or two loads whose even
/// lanes are kept (stride 2), with no bounds to check; the taps' weights stay in registers.
/// The channels are split over \p team (null: one thread), each part with its own padded plane
/// in scratch.
EMBER_INLINE void convDepthwisePadded(float *out, const float *in, const float *filter,
                                      const float *bias, const ConvShape &s, Activation act,
                                      float *scratchMem, parallel::Team *team) {
  static_assert(EMBER_VW == 16, "the stride-2 shuffle keeps the even lanes of two vectors");
  i64 Hp = scratch::depthwisePaddedHeight(s.OH, s.KH, s.SH, s.DH);
  i64 Wp = scratch::depthwisePaddedWidth(s.OW, s.KW, s.SW, s.DW);
  i64 parts = minI(parallel::partsFor(team, 2 * s.N * s.K * s.OH * s.OW * s.KH * s.KW),
                   s.N * s.C);
  parallel::forEachPart(team, parts, [&](i64 part) {
    i64 begin, end;
    parallel::partRange(s.N * s.C, parts, 1, part, begin, end);
    depthwiseChannels(out, in, filter, bias, s, act, scratchMem + part * Hp * Wp, Hp, Wp, begin,
                      end);
  });
}

/// Depthwise convolutions the padded path does not take: read in place, a row at a time.
EMBER_INLINE void convDepthwise(float *out, const float *in, const float *filter,
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
            if (s.SW == 1) {
              const float *src = row + off;
              for (i64 ow = lo; ow < hi; ++ow)
                orow[ow] += wv * src[ow];
            } else {
              for (i64 ow = lo; ow < hi; ++ow)
                orow[ow] += wv * row[ow * s.SW + off];
            }
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

// Three entries per row, so that a model links (and compiles) only the paths it takes: the GEMM
// with the filter read in place, the GEMM with the filter packed at compile time, and depthwise
// convolutions (groups of one input channel).
#define CONV_ENTRY(NAME, FEATURES, BODY)                                                           \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) void NAME(                            \
      float *out, const float *in, const float *filter, const float *bias, const i64 *params,     \
      i64 act, float actA, float actB, float *scratchMem, parallel::Team *team) {                  \
    ConvShape s = readShape(params);                                                               \
    Activation a{act, actA, actB};                                                                 \
    BODY;                                                                                          \
  }
#define CONV_ENTRIES(SUFFIX, FEATURES, MR, NV)                                                     \
  CONV_ENTRY(ember_conv2d_f32_##SUFFIX, FEATURES,                                                 \
             (convGemm<MR, NV, false>(out, in, filter, bias, s, a, scratchMem, team)))             \
  CONV_ENTRY(ember_conv2d_packed_f32_##SUFFIX, FEATURES,                                          \
             (convGemm<MR, NV, true>(out, in, filter, bias, s, a, scratchMem, team)))              \
  CONV_ENTRY(ember_depthwise_f32_##SUFFIX, FEATURES,                                              \
             (scratch::depthwiseIsPadded(s.KH, s.KW, s.SW)                                         \
                  ? convDepthwisePadded(out, in, filter, bias, s, a, scratchMem, team)             \
                  : convDepthwise(out, in, filter, bias, s, a)))

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(CONV_ENTRIES(NAME, FEATURES, MR, NV))
#include "Variants.def"
#undef CONV_ENTRIES
#undef CONV_ENTRY
