// What the quantized kernels (kernels/Quantized*.cpp) and their codegen (CodeGenQuantized.cpp)
// agree on: the scratch layout of IntegerMatMul / IntegerConv and the parameter array of
// IntegerConv. Plain C++ with no includes: compiled into the freestanding kernel library and
// into the backend.
#ifndef EMBER_CPU_KERNELS_QUANTIZEDLAYOUT_H
#define EMBER_CPU_KERNELS_QUANTIZEDLAYOUT_H

namespace quantlayout {

typedef long long idx;

/// Bytes of the int16 copy of an n-element 8-bit operand minus its zero point (values in
/// [-255, 255]), rounded up so the next copy starts 64-byte aligned. IntegerMatMul and
/// IntegerConv shift both operands into scratch first (as the Interpreter does), so their
/// loops need no zero-point indexing and the padding of IntegerConv is simply skipped (it holds
/// the zero point, i.e. 0 after the shift).
constexpr idx shiftedBytes(idx n) { return (2 * n + 63) / 64 * 64; }

/// IntegerConv's parameter array: kConvHeader values, then six arrays of nsp values each.
enum ConvParam : idx {
  kConvNsp = 0, // spatial dims (>= 1)
  kConvN,
  kConvC,
  kConvCout,
  kConvGroup,
  kConvHeader
};
/// Where array \p which (0 input spatial dims, 1 kernel dims, 2 output spatial dims, 3 strides,
/// 4 begin pads, 5 dilations) starts in the parameter array.
constexpr idx convArray(idx nsp, idx which) { return kConvHeader + which * nsp; }
constexpr idx convParamCount(idx nsp) { return kConvHeader + 6 * nsp; }

// The int8 GEMM (QuantizedIntegerGemm.h): IntegerConv and IntegerMatMul as C = A x B with A the
// filter (or LHS) as int8 and B the im2col of the input (or RHS) as uint8, k taken four at a
// time. Codegen sizes the scratch for the largest register tile of any variant
// (QuantizedIntegerVariants.def), as it does not know which one the target runs.

constexpr idx kQGemmMaxMR = 8;    ///< the most rows of A a register tile has
/// Most quads of k per block. A block's partial sums go through C (int32) and the tiles' slower
/// general finish: with 192 quads (a panel of 48 columns staying in L1) resnet50's 3x3
/// convolutions of layers 2 and 3 took two and three blocks; with 576 its convolutions took
/// 0.3 ms less in all (Zen 5, profiles of alternating builds), a panel then coming from L2.
constexpr idx kQGemmKCQ = 576;
constexpr idx kQGemmNC = 480;     ///< columns per packed block of B (a multiple of every NR)
constexpr idx kQGemmSlack = 64;   ///< bytes a packer or a tile may touch past an array

/// The most rows of A IntegerMatMul multiplies without the GEMM (QuantizedIntegerGemv.h:
/// gemvColumns), needing no scratch.
constexpr idx kQGemvMaxRows = 4;

constexpr idx qgemmQuads(idx K) { return (K + 3) / 4; }
constexpr idx roundUp64(idx n) { return (n + 63) / 64 * 64; }
/// Bytes of A packed in panels of at most kQGemmMaxMR rows, or row after row with k padded to
/// a multiple of 16 quads (the AMX tile's step): \p G groups of \p Mg rows.
constexpr idx qgemmPackedABytes(idx G, idx Mg, idx K) {
  return roundUp64(G * (Mg + kQGemmMaxMR - 1) * ((qgemmQuads(K) + 15) / 16 * 16) * 4 +
                   kQGemmSlack);
}
/// Bytes of the per-row terms: the constant added to each row, each row's zero point, and a
/// requantized convolution's scale and result zero point.
constexpr idx qgemmRowBytes(idx M) { return roundUp64(4 * 4 * M + kQGemmSlack); }
/// The most columns past a block's last whole unit of a tile that a tile type multiplies as
/// dot products down k instead (QuantizedIntegerGemm.h: stripColumns).
constexpr idx kQGemmStripCols = 4;
/// Bytes of one such column of a block of k: its k, zero past the block to a whole vector.
constexpr idx qgemmStripBytes() { return roundUp64(kQGemmKCQ * 4); }
/// Bytes one part (thread) works in: a packed block of B, four rows of B being packed, the
/// sums of the block's columns and its strip columns.
constexpr idx qgemmPartBytes() {
  return roundUp64(kQGemmKCQ * 4 * kQGemmNC + kQGemmSlack) +
         roundUp64(4 * kQGemmNC + kQGemmSlack) + roundUp64(4 * kQGemmNC + kQGemmSlack) +
         kQGemmStripCols * qgemmStripBytes();
}
constexpr idx qgemmScratchBytes(idx G, idx Mg, idx K, idx threads) {
  return qgemmPackedABytes(G, Mg, K) + qgemmRowBytes(G * Mg) +
         (threads < 1 ? 1 : threads) * qgemmPartBytes();
}

/// The extent of the zero-padded input a 2-D convolution reads along one dim.
constexpr idx qconvPaddedExtent(idx out, idx k, idx stride, idx dilation) {
  return (out - 1) * stride + (k - 1) * dilation + 1;
}

/// The fast IntegerConv's parameter array (2-D; a 1-D convolution is given as H = KH = OH = 1).
enum QConvParam : idx {
  kQcN = 0,
  kQcC,
  kQcH,
  kQcW,
  kQcCout,
  kQcGroup,
  kQcKH,
  kQcKW,
  kQcOH,
  kQcOW,
  kQcSH,
  kQcSW,
  kQcPH, // begin pads
  kQcPW,
  kQcDH,
  kQcDW,
  kQcInputSigned,    // the input is int8 (flipped to uint8)
  kQcFilterUnsigned, // the filter is uint8 (flipped to int8)
  kQcFilterZpPerChannel,
  kQcRequantize,          // the result requantized (QConvRequantize) as the tiles finish
  kQcOutScalePerChannel,  // the requantization's scale is per output channel
  kQcOutZpPerChannel,     // and its zero point
  kQcFilterLayout,        // a flat one's filter layout (QConvFilterLayout)
  kQcCount
};
/// p[kQcFilterLayout]: a flat convolution's filter as imported ([Cout][Cg][taps], packed every
/// call), its int8 rows [Cout][taps][Cg] (one tap, or permuted when compiled: CPUConstants.h),
/// or, for a tile over pixels (QuantizedIntegerConv.h: convFlat), in panels of output channels:
/// per group, blocks of kQcPanelCout filters (the last may be narrower, a multiple of 16), each
/// block [quad of k][its filters][4 bytes], k as in the rows.
enum QConvFilterLayout : idx { kQcFilterAsImported = 0, kQcFilterTapMajor, kQcFilterCoutPanels };
constexpr idx kQcPanelCout = 32;
/// p[kQcRequantize]: the convolution's int32 result, or its Requantize to uint8 or int8.
enum QConvRequantize : idx { kQcNoRequantize = 0, kQcRequantizeUInt8, kQcRequantizeInt8 };
/// Whether a convolution reads its input in place (no zero-padded copy): 1x1, stride 1, no
/// padding.
constexpr bool qconvIsPointwise(idx H, idx W, idx OH, idx OW, idx KH, idx KW, idx SH, idx SW,
                                idx PH, idx PW) {
  return KH == 1 && KW == 1 && SH == 1 && SW == 1 && PH == 0 && PW == 0 && OH == H && OW == W;
}
/// Bytes of the zero-padded copy of one group's input channels (none for pointwise ones).
constexpr idx qconvPaddedBytes(idx Cg, idx OH, idx OW, idx KH, idx KW, idx SH, idx SW, idx DH,
                               idx DW) {
  return roundUp64(Cg * qconvPaddedExtent(OH, KH, SH, DH) * qconvPaddedExtent(OW, KW, SW, DW) +
                   kQGemmSlack);
}

// The flat convolution (QuantizedIntegerConv.h: convFlat): with stride 1, k taken as
// (kh, kw, four channels), row (kh, kw, c4) of the im2col matrix on the grid of the padded
// input's rows (output (oh, ow) at oh * Wp + ow, the Wp - OW columns past each row computed and
// dropped) is the channel-interleaved padded input ([C/4][Hp * Wp][4 channels]) shifted by
// kh * DH * Wp + kw * DW: the GEMM reads B in place, packing nothing. With stride 2 the padded
// input is split into its four phases, phase (a, b) holding cells (2 i + a, 2 j + b): tap
// (kh, kw) of output (oh, ow) reads cell (2 oh + kh, 2 ow + kw), which is phase (kh % 2,
// kw % 2) at (oh + kh / 2, ow + kw / 2), so each row of the im2col matrix is again one plane
// shifted, on a grid of the phases' rows ([C/4][phase][Hq * Wq][4 channels]).

/// Rows (or columns) of a flat convolution's planes, for \p out outputs of a \p k tap window
/// of dilation \p dilation at stride \p stride (1 or 2): the padded extent at stride 1, a
/// phase's at stride 2.
constexpr idx qconvFlatExtent(idx out, idx k, idx stride, idx dilation) {
  return out + (k - 1) * dilation / stride;
}
/// Bytes of each of the four padded input rows a stride-2 flat convolution builds its phase
/// rows from (QuantizedIntegerConv.h: flatPlanesStride2): 2 Wq, and 32 more for the last
/// vector's read.
constexpr idx qconvFlatStride2RowBytes(idx Wq) { return roundUp64(2 * Wq + 32); }
/// Grid columns of a flat convolution: every output's, up to the last one.
constexpr idx qconvFlatColumns(idx OH, idx OW, idx Wp) { return (OH - 1) * Wp + OW; }
/// Bytes from one interleaved plane of four channels to the next: a tile may read 16 columns
/// past the last grid column at the farthest tap.
constexpr idx qconvFlatPlaneBytes(idx Hp, idx Wp) { return roundUp64((Hp * Wp + 16) * 4); }

/// Whether a 2-D IntegerConv (parameters \p p) is flat: stride 1, or stride 2 of a window
/// wider than a tap each way with no dilation on input channels a multiple of four a group
/// (resnet's downsampling 3x3s; its first 7x7 on 3 channels is faster as packed panels); at
/// most a quarter of the grid's columns dropped, and, unless its filter is in panels for a
/// tile over pixels (which reads them all from the caches for every 8 pixels, however few the
/// pixels), at least twice as many grid columns as output channels a group (the row tiles
/// pass over every grid column, and the filter is reordered every call, in time proportional
/// to its size, where packing B would take time proportional to the columns').
template <typename Int> bool qconvIsFlat(const Int *p) {
  idx S = p[kQcSH];
  bool stride2 = S == 2 && p[kQcSW] == 2 && p[kQcDH] == 1 && p[kQcDW] == 1 && p[kQcKH] > 1 &&
                 p[kQcKW] > 1 && (p[kQcC] / p[kQcGroup]) % 4 == 0;
  if (!((S == 1 && p[kQcSW] == 1) || stride2))
    return false;
  idx Wq = qconvFlatExtent(p[kQcOW], p[kQcKW], S, p[kQcDW]), OW = p[kQcOW];
  return 4 * (Wq - OW) <= Wq &&
         ((S == 1 && p[kQcFilterLayout] == kQcFilterCoutPanels) ||
          qconvFlatColumns(p[kQcOH], OW, Wq) >= 2 * (p[kQcCout] / p[kQcGroup]));
}

/// The pieces of a flat convolution's scratch after A's panels and the row terms, in order.
struct QConvFlatBytes {
  idx padded;  ///< stride 1: a row for the channels past the last (rounding them up to
               ///< four); stride 2: four padded input rows
  idx planes;  ///< the interleaved planes
  idx offsets; ///< where each quad of k reads, from the grid's first column (i64 each)
  idx sums;    ///< per padded cell (of each phase), the sum over the channels (u32)
  idx colSum;  ///< per grid column, the sum of its column of B (u32)
  idx grid;    ///< the product on the grid (u32), copied out row by row
  idx grid8;   ///< requantized, the 8-bit result on the grid (the other holds partial sums)
};
template <typename Int> QConvFlatBytes qconvFlatBytes(const Int *p) {
  idx Cg = p[kQcC] / p[kQcGroup], C4 = (Cg + 3) / 4, Mg = p[kQcCout] / p[kQcGroup];
  idx S = p[kQcSH], phases = S * S;
  idx Hq = qconvFlatExtent(p[kQcOH], p[kQcKH], S, p[kQcDH]),
      Wq = qconvFlatExtent(p[kQcOW], p[kQcKW], S, p[kQcDW]);
  idx cols = qconvFlatColumns(p[kQcOH], p[kQcOW], Wq);
  return {roundUp64((S == 1 ? p[kQcW] : 4 * qconvFlatStride2RowBytes(Wq)) + kQGemmSlack),
          C4 * phases * qconvFlatPlaneBytes(Hq, Wq) + kQGemmSlack,
          roundUp64(8 * p[kQcKH] * p[kQcKW] * C4),
          roundUp64(4 * phases * Hq * Wq + kQGemmSlack),
          roundUp64(4 * (cols + kQGemmSlack)),
          roundUp64(4 * Mg * cols + kQGemmSlack),
          roundUp64(Mg * cols + kQGemmSlack)};
}

/// Bytes of the fast IntegerConv's scratch, for parameters \p p (QConvParam): A's panels, the
/// row terms, then for a flat convolution its pieces (QConvFlatBytes), for another the
/// zero-padded copy of one group of the input (none for a pointwise one) and each part's
/// blocks.
template <typename Int> idx qconvScratchBytes(const Int *p, idx threads) {
  idx G = p[kQcGroup], Cg = p[kQcC] / G, Mg = p[kQcCout] / G, taps = p[kQcKH] * p[kQcKW];
  if (qconvIsFlat(p)) {
    QConvFlatBytes f = qconvFlatBytes(p);
    return qgemmPackedABytes(G, Mg, 4 * taps * ((Cg + 3) / 4)) + qgemmRowBytes(G * Mg) +
           f.padded + f.planes + f.offsets + f.sums + f.colSum + f.grid + f.grid8;
  }
  bool pointwise = qconvIsPointwise(p[kQcH], p[kQcW], p[kQcOH], p[kQcOW], p[kQcKH], p[kQcKW],
                                    p[kQcSH], p[kQcSW], p[kQcPH], p[kQcPW]);
  return qgemmScratchBytes(G, Mg, Cg * taps, threads) +
         (pointwise ? 0
                    : qconvPaddedBytes(Cg, p[kQcOH], p[kQcOW], p[kQcKH], p[kQcKW], p[kQcSH],
                                       p[kQcSW], p[kQcDH], p[kQcDW]));
}

/// Cells of the row an 8-bit max pool (NNPool.cpp: maxPoolIntRows) takes its taps from: the
/// \p PW cells of begin padding, the input row, and past it up to the last output's last tap.
constexpr idx intMaxPoolRowCells(idx W, idx OW, idx KW, idx SW, idx PW, idx DW) {
  return PW + (W > (OW - 1) * SW - PW + (KW - 1) * DW + 1 ? W
                                                          : (OW - 1) * SW - PW + (KW - 1) * DW + 1);
}
/// Bytes of that row in each part's scratch.
constexpr idx intMaxPoolRowBytes(idx W, idx OW, idx KW, idx SW, idx PW, idx DW) {
  return roundUp64(intMaxPoolRowCells(W, OW, KW, SW, PW, DW) + kQGemmSlack);
}

/// The fast IntegerMatMul's parameter array.
enum QMatMulParam : idx {
  kQmM = 0,
  kQmN,
  kQmK,
  kQmBatches,
  kQmLhsUnsigned, // the LHS is uint8 (flipped to int8)
  kQmRhsSigned,   // the RHS is int8 (flipped to uint8)
  kQmLhsZpPerRow,
  kQmCount
};

} // namespace quantlayout

#endif
