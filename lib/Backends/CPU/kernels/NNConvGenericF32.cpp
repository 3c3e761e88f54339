// Conv, FusedConv and ConvTranspose on float32 for the shapes the fast 2-D path (NNConv.cpp) does
// not take: 3 or more spatial dims, and every ConvTranspose. The semantics are those of
// NNConvGeneric.cpp (the Interpreter's): taps in padding (or, transposed, between strides) are
// skipped, and each output element sums its bias, then the group's input channels, then the
// kernel taps in row-major order; float32 may contract to fused multiply-adds and uses the
// vector activations of KernelCommon.h, as the fast path does.
//
// Output-stationary: 16 consecutive outputs of a row (one Vec) for up to 4 output channels stay
// in registers while every (input channel, tap) adds one vector of inputs times 4 broadcast
// weights. Along the last axis, output lane m reads input m*mul + off:
//  - Conv: outputs ow = m, mul = stride, off = kw*dilation - pad;
//  - ConvTranspose: the outputs split into `stride` phases ow = phase + m*stride; in a phase,
//    tap kw reaches every output or none (it does when (phase + pad - kw*dilation) divides by
//    the stride), and then reads input m + (phase + pad - kw*dilation) / stride: contiguous.
#include "NNConvGeneric.h"

using namespace nn;

namespace {

/// Output channels one register block holds.
constexpr int kMaxChannels = 4;

EMBER_INLINE i64 floorMod(i64 a, i64 b) { return a - floorDiv(a, b) * b; }

/// Lanes l = 0..15 of x = in[rowBase + (m0 + l)*mul + off] where (m0 + l)*mul + off lies in
/// [0, W), else 0; \p total bounds the whole input tensor, so that a row's edge may load whole
/// vectors across neighbouring rows and mask the lanes outside.
EMBER_INLINE Vec loadLanes(const float *in, i64 total, i64 rowBase, i64 W, i64 m0, i64 mul,
                           i64 off) {
  i64 first = m0 * mul + off, span = (EMBER_VW - 1) * mul + 1;
  const float *p = in + rowBase + first;
  bool inRow = first >= 0 && first + span <= W;
  if (mul == 1) {
    if (inRow)
      return loadv(p);
    i64 at = rowBase + first;
    // Lanes [lo, hi) lie in the row.
    i64 lo = first >= 0 ? 0 : minI(-first, EMBER_VW);
    i64 hi = maxI(lo, minI(W - first, EMBER_VW));
    if (at >= 0 && at + EMBER_VW <= total) {
      IVec lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
      IVec keep = (lane >= i32(lo)) & (lane < i32(hi));
      return keep ? loadv(p) : splat(0.f);
    }
    float t[EMBER_VW] = {};
    for (i64 l = lo; l < hi; ++l)
      t[l] = p[l];
    return loadv(t);
  }
  if (inRow && mul == 2 && rowBase + first + 2 * EMBER_VW <= total) {
    Vec a = loadv(p), b = loadv(p + EMBER_VW);
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                   30);
  }
  float t[EMBER_VW] = {};
  if (inRow) {
    for (i64 l = 0; l < EMBER_VW; ++l)
      t[l] = p[l * mul];
  } else {
    i64 lo = first >= 0 ? 0 : minI(ceilDiv(-first, mul), EMBER_VW);
    i64 hi = W - first <= 0 ? lo : maxI(lo, minI(ceilDiv(W - first, mul), EMBER_VW));
    for (i64 l = lo; l < hi; ++l)
      t[l] = p[l * mul];
  }
  return loadv(t);
}

/// What every register block of one instruction shares.
struct Conv32 {
  ConvNd s;
  float *out;
  const float *in, *filter, *bias;
  Activation act;
  i64 last, W, OW, KW, SW, PW, DW, inPlane, outPlane, kVolume, rows, kernelRows, Cg, Kg, total;
  i64 inStride[kMaxSpatial];

  Conv32(float *out, const float *in, const float *filter, const float *bias, const i64 *params,
         Activation act)
      : s(params), out(out), in(in), filter(filter), bias(bias), act(act) {
    last = s.n - 1;
    W = s.in[last], OW = s.out[last], KW = s.kernel[last];
    SW = s.stride[last], PW = s.pad[last], DW = s.dilation[last];
    inPlane = product(s.in, s.n), outPlane = product(s.out, s.n), kVolume = product(s.kernel, s.n);
    rows = OW ? outPlane / OW : 0, kernelRows = kVolume / KW;
    Cg = s.C / s.G, Kg = s.K / s.G;
    total = s.N * s.C * inPlane;
    rowStrides(s, inStride);
  }
};

/// Output channels g*Kg + ocInGroup0 .. + Q - 1 of image nb, every row.
template <int Q, bool kTransposed>
EMBER_INLINE void convChannels(const Conv32 &c, i64 nb, i64 g, i64 ocInGroup0) {
  const ConvNd &s = c.s;
  i64 oc0 = g * c.Kg + ocInGroup0;
  i64 phases = kTransposed ? c.SW : 1, outStep = kTransposed ? c.SW : 1;
  i64 o[kMaxSpatial] = {};
  for (i64 r = 0; r < c.rows; ++r, nextIndex(o, s.out, c.last)) {
    for (i64 phase = 0; phase < phases && phase < c.OW; ++phase) {
      i64 count = kTransposed ? (c.OW - phase + c.SW - 1) / c.SW : c.OW;
      for (i64 m0 = 0; m0 < count; m0 += EMBER_VW) {
        Vec acc[Q];
        for (int q = 0; q < Q; ++q)
          acc[q] = splat(c.bias[oc0 + q]);
        for (i64 icInGroup = 0; icInGroup < c.Cg; ++icInGroup) {
          i64 ic = g * c.Cg + icInGroup;
          i64 planeBase = (nb * s.C + ic) * c.inPlane;
          const float *kern[Q];
          for (int q = 0; q < Q; ++q)
            kern[q] = c.filter + (kTransposed ? ic * c.Kg + ocInGroup0 + q
                                              : (oc0 + q) * c.Cg + icInGroup) *
                                     c.kVolume;
          i64 k[kMaxSpatial] = {};
          for (i64 kr = 0; kr < c.kernelRows; ++kr, nextIndex(k, s.kernel, c.last)) {
            i64 rowOffset = inputRow<kTransposed>(s, o, k, c.inStride);
            if (rowOffset < 0)
              continue;
            i64 rowBase = planeBase + rowOffset;
            for (i64 kw = 0; kw < c.KW; ++kw) {
              i64 mul, off;
              if (!kTransposed) {
                mul = c.SW, off = kw * c.DW - c.PW;
              } else {
                i64 t = phase + c.PW - kw * c.DW;
                if (floorMod(t, c.SW) != 0)
                  continue;
                mul = 1, off = floorDiv(t, c.SW);
              }
              Vec x = loadLanes(c.in, c.total, rowBase, c.W, m0, mul, off);
              i64 tap = kr * c.KW + kw;
              for (int q = 0; q < Q; ++q)
                acc[q] += x * kern[q][tap];
            }
          }
        }
        i64 lanes = minI(EMBER_VW, count - m0);
        for (int q = 0; q < Q; ++q) {
          Vec y = applyActivation(acc[q], c.act);
          float *dst = c.out + (nb * s.K + oc0 + q) * c.outPlane + r * c.OW + phase;
          if (outStep == 1 && lanes == EMBER_VW) {
            storev(dst + m0, y);
          } else {
            float t[EMBER_VW];
            storev(t, y);
            for (i64 l = 0; l < lanes; ++l)
              dst[(m0 + l) * outStep] = t[l];
          }
        }
      }
    }
  }
}

template <bool kTransposed>
EMBER_INLINE void convolveF32(float *out, const float *in, const float *filter, const float *bias,
                              const i64 *params, Activation act) {
  Conv32 c(out, in, filter, bias, params, act);
  for (i64 nb = 0; nb < c.s.N; ++nb)
    for (i64 g = 0; g < c.s.G; ++g)
      for (i64 oc = 0; oc < c.Kg; oc += kMaxChannels) {
        switch (minI(kMaxChannels, c.Kg - oc)) {
        case 4:
          convChannels<4, kTransposed>(c, nb, g, oc);
          break;
        case 3:
          convChannels<3, kTransposed>(c, nb, g, oc);
          break;
        case 2:
          convChannels<2, kTransposed>(c, nb, g, oc);
          break;
        default:
          convChannels<1, kTransposed>(c, nb, g, oc);
          break;
        }
      }
}

} // namespace

EMBER_KERNEL EMBER_NOINLINE void ember_conv_nd_f32(float *out, const float *in,
                                                   const float *filter, const float *bias,
                                                   const i64 *params, i64 act, float a, float b) {
  convolveF32<false>(out, in, filter, bias, params, Activation{act, a, b});
}

EMBER_KERNEL EMBER_NOINLINE void ember_convtranspose_nd_f32(float *out, const float *in,
                                                            const float *filter,
                                                            const float *bias,
                                                            const i64 *params) {
  convolveF32<true>(out, in, filter, bias, params, Activation{ActNone, 0.f, 0.f});
}
