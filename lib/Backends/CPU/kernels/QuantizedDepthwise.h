// Depthwise IntegerConv (QuantizedDepthwise.cpp): the layout of its constant parameter array and
// the size of its scratch, for the kernel and for codegen (CodeGenQuantizedDepthwise.cpp). Plain
// C++ over Scratch.h, so the backend compiles it too.
#ifndef EMBER_CPU_KERNELS_QUANTIZEDDEPTHWISE_H
#define EMBER_CPU_KERNELS_QUANTIZEDDEPTHWISE_H

#include "QuantizedLayout.h"
#include "Scratch.h"

namespace qdepthwise {

using scratch::idx;

/// The parameters: first the 2-D geometry in ConvShape's order (ConvShape.h: readShape; a 1-D
/// convolution is one of height 1), then the operands' kinds and the filter zero point's shape,
/// then the Requantize of the result fused in, as the int8 GEMM's (QuantizedLayout.h).
enum : idx {
  kQdwShape = 0,           ///< N C H W K OH OW KH KW SH SW PH PW DH DW G
  kQdwInputSigned = 16,    ///< the input (and its zero point) is int8, else uint8
  kQdwFilterSigned,        ///< the filter (and its zero point) is int8, else uint8
  kQdwFilterZpPerChannel,  ///< one filter zero point per output channel, else one in all
  kQdwRequantize,          ///< the int32 result, or its Requantize (quantlayout::QConvRequantize)
  kQdwOutScalePerChannel,  ///< the requantization's scale is per output channel
  kQdwOutZpPerChannel,     ///< and its zero point
  kQdwCount
};

/// Whether the depthwise kernel takes a window: strides of 1 or 2 and at most
/// scratch::kPhasedMaxTaps taps, read from phase planes. Its float sums are then exact: a tap
/// is at most 255 * 255 in magnitude, and 49 of them stay below 2^24.
constexpr bool takes(idx KH, idx KW, idx SH, idx SW) {
  return scratch::windowIsPhased(KH, KW, SH, SW);
}
static_assert(scratch::kPhasedMaxTaps * 255 * 255 < (idx(1) << 24),
              "every partial sum of a window is a float32 integer");

/// Output rows of a strip: bands of about 2048 phase values (8 KB), of SH x SW phase planes
/// with Wq columns.
constexpr idx stripRows(idx OH, idx SH, idx SW, idx Wq) {
  return scratch::minOf(OH, 2048 / (SH * SW * Wq) + 1);
}
/// Phase rows a window of KH rows, DH apart, reaches past an output row's.
constexpr idx reach(idx KH, idx SH, idx DH) { return (KH - 1) * DH / SH; }
/// Floats from one phase plane of a band to the next: a strip's rows, the rows its windows
/// reach past them, a row and the slack that vectors past the strip read.
constexpr idx bandStride(idx OH, idx KH, idx SH, idx SW, idx DH, idx Wq) {
  return (stripRows(OH, SH, SW, Wq) + reach(KH, SH, DH) + 1) * Wq + 8 * scratch::kSlack;
}

/// Floats of a band of \p set floats, and of a strip of \p rows rows of \p Wq: with the slack
/// the last vectors of a strip write.
constexpr idx bandFloats(idx set) { return scratch::roundUp16(set); }
constexpr idx stripFloats(idx rows, idx Wq) {
  return scratch::roundUp16(rows * Wq + 8 * scratch::kSlack);
}

/// The channel-lanes kernel (QuantizedDepthwise.cpp: lanesBlock), which takes requantized
/// convolutions of one output channel per input channel: its ring as the float32 kernel's
/// (Scratch.h: lanesRingRows); its staging, the requantized bytes of up to a row of outputs
/// and the 15 left from the previous row, 16 bytes a position.
using scratch::kLanes;
using scratch::lanesRingCols;
using scratch::lanesRingRows;
constexpr idx lanesFloats(idx OW, idx KH, idx KW, idx SW, idx DH, idx DW) {
  return scratch::roundUp16(lanesRingRows(KH, DH) * lanesRingCols(OW, KW, SW, DW) * kLanes) +
         scratch::roundUp16((OW + kLanes) * kLanes / idx(sizeof(float)));
}

/// Floats of one thread's working memory, for whichever kernel runs: two bands of the SH x SW
/// phase planes and two strips of int32 sums (or of their requantized bytes), or the channel
/// lanes' ring and staging. (\p p: the parameters, as i64 in the kernel and int64_t in codegen.)
template <typename Int> constexpr idx partFloats(const Int *p) {
  idx OH = p[5], OW = p[6], KH = p[7], KW = p[8], SH = p[9], SW = p[10], DH = p[13], DW = p[14];
  idx Wq = scratch::phasedCols(OW, KW, SW, DW);
  idx phased = 2 * bandFloats(SH * SW * bandStride(OH, KH, SH, SW, DH, Wq)) +
               2 * stripFloats(stripRows(OH, SH, SW, Wq), Wq);
  idx lanes = lanesFloats(OW, KH, KW, SW, DH, DW);
  return phased > lanes ? phased : lanes;
}

/// Bytes of scratch for \p threads threads.
template <typename Int> constexpr idx scratchBytes(const Int *p, idx threads) {
  return partFloats(p) * (threads < 1 ? 1 : threads) * idx(sizeof(float));
}

} // namespace qdepthwise

#endif
