// Float32 depthwise convolutions of one output channel per input channel in channel lanes
// (Scratch.h: depthwiseInLanes): 16 channels at a time, each output position one vector of 16
// lanes, a channel each, as the int8 kernel's lanesBlock (QuantizedDepthwise.cpp).
//
// The phase planes (NNDepthwise.cpp) pay a setup per plane: its phase set filled, its strips
// computed and copied out, its weights splat. On the 7 x 7 and 14 x 14 planes of mobilenet_v2
// and efficientnet_b0 that setup outweighed the taps (1152 channels of 7 x 7 with a 5 x 5
// window ran at 17 GFLOP/s), and a 7-wide row filled half a vector. With channels in lanes a
// tap's weights are one vector for every position and every lane does work: output (oy, ox)
// reads the vector at position (oy SH + ky DH, ox SW + kx DW) of the padded input. The price is
// two transposes, 16 x 16 floats at a time: each input row of 16 planes into a ring of padded
// rows of positions, and the computed positions back into the 16 output planes.
#ifndef EMBER_CPU_KERNELS_NNDEPTHWISELANES_H
#define EMBER_CPU_KERNELS_NNDEPTHWISELANES_H

#include "DepthwiseLanes.h"

namespace lanes {

/// One block of channels: a vector of weights a tap and the biases, lane l for channel c0 + l
/// (lanes past the channels repeat the last one, and are not stored).
struct Block {
  Vec w[scratch::kPhasedMaxTaps];
  Vec bias;
};

/// U output positions from \p ox on of an output row (its window's rows in the ring at
/// \p rowOff, a ky each), staged at \p stage, 16 floats a position, with the inlined
/// activations applied (the out-of-line ones follow over the whole row). K x K windows
/// with equal strides S and no dilation unrolled (K > 0), any other from the shape.
template <int U, int K, int S>
EMBER_INLINE void positions(float *stage, const float *ring, const i64 *rowOff, const Block &blk,
                            const ConvShape &s, Activation act, i64 ox) {
  Vec acc[U];
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    acc[u] = blk.bias;
  tapSums<U, K, S>(acc, ring, rowOff, blk.w, s, ox);
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    storev(stage + (ox + u) * kLanes, applyInlineActivation(acc[u], act));
}

/// Output planes of channels [c0, c0 + 16) of image \p b (or up to the last channel): padded
/// input rows transposed into \p ring as the windows reach them, each output row computed into
/// \p stage, and the staged positions transposed out to the planes 16 at a time.
template <int K, int S>
EMBER_INLINE void block(float *out, const float *in, const float *filter, const float *bias,
                        const ConvShape &s, Activation act, float *ring, float *stage, i64 b,
                        i64 c0) {
  const i64 n = minI(kLanes, s.C - c0), taps = s.KH * s.KW, HW = s.H * s.W, OHW = s.OH * s.OW;
  const i64 R = scratch::lanesRingRows(s.KH, s.DH);
  const i64 cols = scratch::lanesRingCols(s.OW, s.KW, s.SW, s.DW), rowFloats = cols * kLanes;
  Block blk;
  const float *planes[kLanes];
  for (i64 l = 0; l < kLanes; ++l) {
    const i64 c = c0 + minI(l, n - 1);
    planes[l] = in + (b * s.C + c) * HW;
    blk.bias[l] = bias[c];
  }
  // The filters' [channel][tap] floats, 16 taps of 16 channels at a time, transposed to a
  // vector a tap. A row may read the next channel's taps, which are dropped.
  const i64 filterFloats = s.K * taps;
  for (i64 t0 = 0; t0 < taps; t0 += kLanes) {
    Vec r[kLanes];
    for (i64 l = 0; l < kLanes; ++l) {
      const i64 at = (c0 + minI(l, n - 1)) * taps + t0;
      r[l] = at + kLanes <= filterFloats ? loadv(filter + at)
                                         : loadPartial(filter + at, filterFloats - at);
    }
    transpose16x16(r);
    for (i64 t = t0; t < minI(taps, t0 + kLanes); ++t)
      blk.w[t] = r[t - t0];
  }
  // Floats that 16-float loads may read from the last lane's plane on: up to the input's end.
  const i64 readable = (s.N * s.C - (b * s.C + c0 + n - 1)) * HW;
  auto fill = [&](i64 pr) {
    fillRingRow(ring, R, cols, s, pr, [&](float *dst, i64 at, i64 m) {
      Vec r[kLanes];
      if (at + kLanes <= readable) {
#pragma clang loop unroll(full)
        for (int l = 0; l < kLanes; ++l)
          r[l] = loadv(planes[l] + at);
      } else {
        for (int l = 0; l < kLanes; ++l)
          r[l] = loadPartial(planes[l] + at, m);
      }
      transpose16x16(r);
      for (i64 j = 0; j < m; ++j)
        storev(dst + j * kLanes, r[j]);
    });
  };
  auto computeRow = [&](float *rowStage, const i64 *rowOff) {
    i64 ox = 0;
    for (; ox + 4 <= s.OW; ox += 4)
      positions<4, K, S>(rowStage, ring, rowOff, blk, s, act, ox);
    for (; ox < s.OW; ++ox)
      positions<1, K, S>(rowStage, ring, rowOff, blk, s, act, ox);
    applyOutOfLineActivation(rowStage, s.OW * kLanes, act);
  };
  // The first \p m staged positions (at most 16) out to output positions [done, done + m).
  i64 done = 0;
  auto flush = [&](const float *from, i64 m) {
    Vec r[kLanes];
#pragma clang loop unroll(full)
    for (int j = 0; j < kLanes; ++j)
      r[j] = loadv(from + j * kLanes);
    transpose16x16(r);
    for (i64 l = 0; l < n; ++l) {
      float *dst = out + (b * s.K + c0 + l) * OHW + done;
      if (m == kLanes)
        storev(dst, r[l]);
      else
        storePartial(dst, r[l], m);
    }
    done += m;
  };
  blockRows(s, R, rowFloats, stage, fill, computeRow, flush);
}

/// block over the blocks [begin, end) of 16 channels of the N images, with the working memory
/// at \p mem (Scratch.h: depthwiseLanesFloats).
template <int K, int S>
EMBER_INLINE void blocks(float *out, const float *in, const float *filter, const float *bias,
                         const ConvShape &s, Activation act, float *mem, i64 begin, i64 end) {
  const i64 perImage = (s.C + kLanes - 1) / kLanes;
  float *ring = mem;
  float *stage = mem + scratch::roundUp16(scratch::lanesRingRows(s.KH, s.DH) *
                                          scratch::lanesRingCols(s.OW, s.KW, s.SW, s.DW) * kLanes);
  for (i64 i = begin; i < end; ++i)
    block<K, S>(out, in, filter, bias, s, act, ring, stage, i / perImage,
                i % perImage * kLanes);
}

/// The blocks split over \p team (null: one thread), each part with its own ring and staging.
EMBER_INLINE void convDepthwiseLanes(float *out, const float *in, const float *filter,
                                     const float *bias, const ConvShape &s, Activation act,
                                     float *scratchMem, parallel::Team *team) {
  const i64 total = s.N * ((s.C + kLanes - 1) / kLanes);
  const i64 perPart = scratch::depthwiseLanesFloats(s.OW, s.KH, s.KW, s.SW, s.DH, s.DW);
  const i64 parts = depthwiseParts(team, s, total);
  const bool plain = s.SH == s.SW && s.DH == 1 && s.DW == 1;
  parallel::forEachRange(team, parts, total, 1, [&](i64 part, i64 begin, i64 end) {
    float *mem = scratchMem + part * perPart;
    if (plain && s.KH == 3 && s.KW == 3 && s.SW == 1)
      blocks<3, 1>(out, in, filter, bias, s, act, mem, begin, end);
    else if (plain && s.KH == 3 && s.KW == 3 && s.SW == 2)
      blocks<3, 2>(out, in, filter, bias, s, act, mem, begin, end);
    else if (plain && s.KH == 5 && s.KW == 5 && s.SW == 1)
      blocks<5, 1>(out, in, filter, bias, s, act, mem, begin, end);
    else if (plain && s.KH == 5 && s.KW == 5 && s.SW == 2)
      blocks<5, 2>(out, in, filter, bias, s, act, mem, begin, end);
    else
      blocks<0, 0>(out, in, filter, bias, s, act, mem, begin, end);
  });
}

} // namespace lanes

#endif
