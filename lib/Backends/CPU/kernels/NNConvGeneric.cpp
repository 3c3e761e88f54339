// Conv, FusedConv and ConvTranspose on float64, float16 and bfloat16, any number of spatial dims
// (float32 beyond the fast 2-D path of NNConv.cpp: NNConvGenericF32.cpp).
// A direct convolution, channels first, grouped and dilated, with the Interpreter's semantics
// (lib/Backends/Interpreter/NNConv.cpp):
//  - Conv output o reads input i = o*stride - pad + k*dilation along each axis; ConvTranspose
//    scatters input i to o = i*stride - pad + k*dilation (pads may be negative), which the
//    Interpreter gathers backwards; both skip taps that land in padding (so an inf/NaN in the
//    filter never meets a padded zero);
//  - each output element sums, after its bias, over the group's input channels and then the
//    kernel taps in row-major order, in double, rounds once to the result
//    kind and then applies FusedConv's activation, as the reference does.
// The loops run over one output row (all coordinates but the last fixed) in blocks of
// nn::kBlock accumulators; every (channel, tap) then adds one input row segment times one
// filter value: contiguous along the row for stride 1, and the summation order of each element
// is still the reference's.
#include "NNConvGeneric.h"

// The reference multiplies and adds separately: no fused multiply-add, so results match bit
// for bit before the final rounding (which matters for 16-bit results).
#pragma clang fp contract(off)

using namespace nn;

namespace {

template <typename T, bool kTransposed>
EMBER_INLINE void convolveNd(T *out, const T *in, const T *filter, const T *bias, const i64 *params,
                             i64 act, float actA, float actB) {
  typedef Acc<T> A;
  ConvNd s(params);
  i64 last = s.n - 1;
  i64 W = s.in[last], OW = s.out[last], KW = s.kernel[last];
  i64 SW = s.stride[last], PW = s.pad[last], DW = s.dilation[last];
  i64 inPlane = product(s.in, s.n), outPlane = product(s.out, s.n);
  i64 kVolume = product(s.kernel, s.n);
  if (outPlane == 0)
    return;
  i64 rows = outPlane / OW, kernelRows = kVolume / KW;
  i64 Cg = s.C / s.G, Kg = s.K / s.G;
  i64 inStride[kMaxSpatial];
  rowStrides(s, inStride);

  for (i64 nb = 0; nb < s.N; ++nb)
    for (i64 oc = 0; oc < s.K; ++oc) {
      i64 g = oc / Kg, ocInGroup = oc % Kg;
      A biasValue = widen(bias, oc);
      T *outPlaneBase = out + (nb * s.K + oc) * outPlane;
      i64 o[kMaxSpatial] = {}; // output row: coordinates 0..last-1
      for (i64 r = 0; r < rows; ++r, nextIndex(o, s.out, last)) {
        for (i64 o0 = 0; o0 < OW; o0 += kBlock) {
          i64 len = minI(kBlock, OW - o0);
          A acc[kBlock];
          for (i64 j = 0; j < len; ++j)
            acc[j] = biasValue;
          for (i64 icInGroup = 0; icInGroup < Cg; ++icInGroup) {
            i64 ic = g * Cg + icInGroup;
            const T *plane = in + (nb * s.C + ic) * inPlane;
            const T *kern =
                filter + (kTransposed ? ic * Kg + ocInGroup : oc * Cg + icInGroup) * kVolume;
            i64 k[kMaxSpatial] = {}; // kernel row: tap coordinates 0..last-1
            for (i64 kr = 0; kr < kernelRows; ++kr, nextIndex(k, s.kernel, last)) {
              i64 rowOffset = inputRow<kTransposed>(s, o, k, inStride);
              if (rowOffset < 0)
                continue;
              const T *row = plane + rowOffset;
              const T *taps = kern + kr * KW;
              for (i64 kw = 0; kw < KW; ++kw) {
                A w = widen(taps, kw);
                i64 shift = kw * DW - PW;
                if (!kTransposed) {
                  // Outputs ow of the block with 0 <= ow*SW + shift < W.
                  i64 lo = maxI(o0, ceilDiv(-shift, SW));
                  i64 hi = minI(o0 + len, floorDiv(W - 1 - shift, SW) + 1);
                  for (i64 ow = lo; ow < hi; ++ow)
                    acc[ow - o0] += widen(row, ow * SW + shift) * w;
                } else {
                  // Inputs i in [0, W) scattering to ow = i*SW + shift inside the block.
                  i64 lo = maxI(0, ceilDiv(o0 - shift, SW));
                  i64 hi = minI(W, floorDiv(o0 + len - 1 - shift, SW) + 1);
                  for (i64 i = lo; i < hi; ++i)
                    acc[i * SW + shift - o0] += widen(row, i) * w;
                }
              }
            }
          }
          T *dst = outPlaneBase + r * OW + o0;
          for (i64 j = 0; j < len; ++j)
            st(dst, j, activate(narrow<T>(acc[j]), act, actA, actB));
        }
      }
    }
}

} // namespace

#define EMBER_CONV_ND(sfx, T)                                                                      \
  EMBER_KERNEL EMBER_NOINLINE void ember_conv_nd_##sfx(T *out, const T *in, const T *filter,      \
                                                       const T *bias, const i64 *params, i64 act, \
                                                       float a, float b) {                         \
    convolveNd<T, false>(out, in, filter, bias, params, act, a, b);                                \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE void ember_convtranspose_nd_##sfx(                                   \
      T *out, const T *in, const T *filter, const T *bias, const i64 *params) {                    \
    convolveNd<T, true>(out, in, filter, bias, params, ActNone, 0.f, 0.f);                         \
  }
// float32 has its own register-blocked kernels: NNConvGenericF32.cpp.
EMBER_CONV_ND(f64, double)
EMBER_CONV_ND(f16, f16)
EMBER_CONV_ND(bf16, bf16)
#undef EMBER_CONV_ND
