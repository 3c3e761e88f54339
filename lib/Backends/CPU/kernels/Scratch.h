// Working memory of the kernels that need it, in one place for both sides: codegen asks the
// memory plan for these many bytes (Backend::getScratchBytes) and passes the kernel a pointer
// to them; the kernel carves them up with the same functions. No kernel has global state, so a
// compiled model is reentrant and a bundle has no mutable globals. Plain C++ with no includes:
// compiled into the freestanding kernel library and into the backend.
#ifndef EMBER_CPU_KERNELS_SCRATCH_H
#define EMBER_CPU_KERNELS_SCRATCH_H

namespace scratch {

typedef long long idx;

constexpr idx kGemmKC = 256; ///< k per block: a KC x NR panel of B stays in L1
constexpr idx kGemmNC = 512; ///< columns per packed block of B (KC x NC floats in L2)
constexpr idx kMaxNR = 32;   ///< the widest register tile's columns
constexpr idx kSlack = 16;   ///< floats a packer may write past the last panel

constexpr idx minOf(idx a, idx b) { return a < b ? a : b; }
constexpr idx maxOf(idx a, idx b) { return a > b ? a : b; }

/// [begin, end) of part p of n items split in `parts` ranges of whole `unit`s, as even as units
/// allow; later parts may be empty. The kernels split their work so (Parallel.h) and codegen the
/// steps it splits (CodeGenTeam.cpp).
struct Range {
  idx begin, end;
};
constexpr Range partRange(idx n, idx parts, idx unit, idx p) {
  idx units = (n + unit - 1) / unit, per = (units + parts - 1) / parts;
  return Range{minOf(n, p * per * unit), minOf(n, (p + 1) * per * unit)};
}

/// The most threads a model is compiled for (-threads), and the bytes of the entry function's
/// stack that hold their team (Parallel.h).
constexpr idx kMaxThreads = 64;
constexpr idx kTeamBytes = 2048;
/// The least work a kernel gives each thread it splits over: far more than waking a worker and
/// waiting for it (a few microseconds).
constexpr idx kMinFlopsPerPart = idx(1) << 20;
/// A float that a memory-bound step (a copy, a transform, a pool, a depthwise convolution, a
/// normalization, a concatenation) reads or writes weighs this many flops when it decides its
/// parts: such a step splits from 64K floats moved a part, some tens of microseconds.
constexpr idx kFloatMoveFlops = 16;

/// A product with at most this many rows of A reads B in place, row by row, for all of them
/// at once (NNGemm.h: gemv): it is bound by reading B, and packing B would only add a copy.
constexpr idx kGemvRows = 4;

/// Floats of the packed block of B for a GEMM with K rows and N columns in B.
constexpr idx gemmPackFloats(idx K, idx N) {
  idx kb = minOf(K, kGemmKC), nb = minOf(N, kGemmNC);
  return (kb < 1 ? 1 : kb) * ((nb + kMaxNR - 1) / kMaxNR * kMaxNR) + kSlack;
}

/// Fused attention (NNAttention.cpp): query rows a block; what one part of the team works in,
/// a block's scores ([rows][T]), a head's K^T and V packed in column panels, and a narrow
/// panel's block; and the longest key sequence it takes (a block's scores stay in L2).
constexpr idx kAttentionRows = 96;
constexpr idx kAttentionMaxKeys = 4096;
constexpr idx attentionPartFloats(idx D, idx T, idx Dv) {
  return kAttentionRows * T + D * T + T * Dv + kGemmKC * kMaxNR + 2 * kSlack;
}

/// Rows (or columns) of a zero-padded input that windows of \p k taps, \p stride and
/// \p dilation apart, reach for \p out outputs.
constexpr idx convPaddedExtent(idx out, idx k, idx stride, idx dilation) {
  return (out - 1) * stride + (k - 1) * dilation + 1;
}

/// Whether a GEMM convolution (not a plain 1x1) packs from a zero-padded copy of its input:
/// horizontal strides of 1 and 2 (NNConv.cpp, PaddedPacker); others gather in place.
constexpr bool convIsPadded(idx SW) { return SW == 1 || SW == 2; }

/// Floats of a convolution's zero-padded copy of one group of input channels, with slack for the
/// packer's vector spill (a stride-2 vector reads 32 floats).
constexpr idx convPaddedFloats(idx channelsPerGroup, idx OH, idx OW, idx KH, idx KW, idx SH,
                               idx SW, idx DH, idx DW) {
  return channelsPerGroup * convPaddedExtent(OH, KH, SH, DH) * convPaddedExtent(OW, KW, SW, DW) +
         2 * kSlack;
}

/// Floats of scratch a GEMM split over \p threads parts needs: a packed block of B each.
constexpr idx gemmScratchFloats(idx K, idx N, idx threads) {
  return gemmPackFloats(K, N) * (threads < 1 ? 1 : threads);
}

/// A convolution that is a plain matrix product with its input: 1x1, stride 1, and no padding
/// (the output plane is the input plane).
constexpr bool convIsPointwise(idx H, idx W, idx OH, idx OW, idx KH, idx KW, idx SH, idx SW,
                               idx PH, idx PW) {
  return KH == 1 && KW == 1 && SH == 1 && SW == 1 && PH == 0 && PW == 0 && OH == H && OW == W;
}

/// A 1x1 convolution with a stride above 1 and no padding (resnet50's downsampling layers): it
/// reads one input position in SH x SW, so it takes those positions into a [C/G][OH][OW] copy
/// and multiplies that as a plain 1x1 (NNConv.cpp). Before, it padded a copy of the whole input,
/// four times the floats, on one thread.
constexpr bool convIsStridedPointwise(idx KH, idx KW, idx SH, idx SW, idx PH, idx PW) {
  return KH == 1 && KW == 1 && (SH > 1 || SW > 1) && PH == 0 && PW == 0;
}

// Window kernels over phase planes (PhasePlanes.h: depthwise convolutions, max and average
// pooling): each input plane split into its SH x SW phase planes, zero- or -inf-padded.

/// Windows of strides 1 or 2 and at most this many taps take the phase planes.
constexpr idx kPhasedMaxTaps = 49;
constexpr bool windowIsPhased(idx KH, idx KW, idx SH, idx SW) {
  return SH >= 1 && SH <= 2 && SW >= 1 && SW <= 2 && KH * KW <= kPhasedMaxTaps;
}
/// A phase plane's rows and columns: every one a window reaches.
constexpr idx phasedRows(idx OH, idx KH, idx SH, idx DH) { return OH + (KH - 1) * DH / SH; }
constexpr idx phasedCols(idx OW, idx KW, idx SW, idx DW) { return OW + (KW - 1) * DW / SW; }
/// Floats from one phase plane to the next: its rows and columns, a row more and some vectors of
/// slack (the flat loop reads whole vectors past the last row, four at a time).
constexpr idx phasedStride(idx OH, idx OW, idx KH, idx KW, idx SH, idx SW, idx DH, idx DW) {
  return (phasedRows(OH, KH, SH, DH) + 1) * phasedCols(OW, KW, SW, DW) + 8 * kSlack;
}
/// Output rows one strip of the flat loop computes before copying them out: about 1024 floats.
constexpr idx phasedStripRows(idx OH, idx OW, idx KW, idx SW, idx DW) {
  return minOf(OH, 1024 / phasedCols(OW, KW, SW, DW) + 1);
}
/// Floats of one plane's phase planes, and of one strip.
constexpr idx phasedSetFloats(idx OH, idx OW, idx KH, idx KW, idx SH, idx SW, idx DH, idx DW) {
  return SH * SW * phasedStride(OH, OW, KH, KW, SH, SW, DH, DW);
}
constexpr idx phasedStripFloats(idx OH, idx OW, idx KW, idx SW, idx DW) {
  return phasedStripRows(OH, OW, KW, SW, DW) * phasedCols(OW, KW, SW, DW) + 8 * kSlack;
}
/// Floats of one part's working memory: a phase set, then a strip.
constexpr idx phasedFloats(idx OH, idx OW, idx KH, idx KW, idx SH, idx SW, idx DH, idx DW) {
  return phasedSetFloats(OH, OW, KH, KW, SH, SW, DH, DW) + phasedStripFloats(OH, OW, KW, SW, DW);
}
/// Floats of a phased max or average pool's scratch: a phase set, a strip, and the count of
/// each output's cells on the [OH][Wq] grid of the strips.
constexpr idx poolScratchFloats(idx OH, idx OW, idx KH, idx KW, idx SH, idx SW, idx DH, idx DW) {
  return windowIsPhased(KH, KW, SH, SW) ? phasedFloats(OH, OW, KH, KW, SH, SW, DH, DW) +
                                              OH * phasedCols(OW, KW, SW, DW) + 8 * kSlack
                                        : 0;
}
constexpr idx roundUp16(idx n) { return (n + 15) / 16 * 16; }

/// A float32 max pool without indices goes by rows (NNPool.cpp, maxPoolFloatRows) on inputs at
/// least this wide, where the phase planes' copy costs most; on narrower ones the rows' fixed
/// cost per output row outweighs it (squeezenet1_1 in the model, by rows against phase planes:
/// 111 wide 0.37 -> 0.27 ms, 55 wide 0.146 -> 0.163, 27 wide 0.084 -> 0.117).
constexpr idx kMaxPoolRowsMinWidth = 64;
constexpr bool maxPoolTakesRows(idx W) { return W >= kMaxPoolRowsMinWidth; }

/// One past the input column of the last output's last tap, in a pool row's input coordinates.
constexpr idx maxPoolRowReach(idx OW, idx KW, idx SW, idx PW, idx DW) {
  return (OW - 1) * SW - PW + (KW - 1) * DW + 1;
}
/// Floats of the row a float32 max pool without indices takes its maxima along (NNPool.cpp,
/// maxPoolFloatRows): PW cells of padding, the input row, padding to the farthest tap, then
/// room for the strided loads of the last vector of outputs.
constexpr idx maxPoolRowFloats(idx W, idx OW, idx KW, idx SW, idx PW, idx DW) {
  return roundUp16(PW + maxOf(W, maxPoolRowReach(OW, KW, SW, PW, DW))) + 16 * (SW + 1);
}
/// One part's scratch of a float32 max pool without indices, by rows or by phase planes.
constexpr idx maxPoolScratchFloats(idx W, idx OH, idx OW, idx KH, idx KW, idx SH, idx SW, idx PW,
                                   idx DH, idx DW) {
  return maxOf(poolScratchFloats(OH, OW, KH, KW, SH, SW, DH, DW),
               maxPoolRowFloats(W, OW, KW, SW, PW, DW));
}

/// Convolutions with strides of 1 or 2 (but plain 1x1s) can multiply the zero-padded image in
/// place, on the flat grid of its phase planes' rows (NNConv.cpp, convFlat): no packing of B,
/// but Wq - OW columns of each row computed and dropped. It pays where the packing was shared by
/// few rows of A and the dropped columns are few: up to 128 output channels a group and at most
/// a quarter of the grid dropped. Timed alone on one Zen 4 core (flat vs packed B, GFLOP/s): 32
/// channels on 56x56 104 vs 55, on 7x7 75 vs 51; 64 on 7x7 76 vs 66; 96 on 35x35 102 vs 98; 128
/// on 14x14 98 vs 97; but 256 on 14x14 98 vs 104, 512 on 7x7 82 vs 88, and 192 with a 7x7
/// window on 17x17 (a quarter of the grid dropped) 77 vs 101. Working memory: each input
/// channel's phase set, the offset of each of the K rows of B, and the product on the
/// [K/G][OH][Wq] grid, copied out row by row (split over \p threads parts, a part's chunk of
/// rows may reach one row past its share: threads - 1 rows more).
constexpr bool convIsFlat(idx SH, idx SW, idx Kg, idx OW, idx KW, idx DW) {
  return SH >= 1 && SH <= 2 && SW >= 1 && SW <= 2 && Kg <= 128 &&
         4 * (phasedCols(OW, KW, SW, DW) - OW) <= phasedCols(OW, KW, SW, DW);
}
constexpr idx convFlatPlanesFloats(idx Cg, idx OH, idx OW, idx KH, idx KW, idx SH, idx SW,
                                   idx DH, idx DW) {
  return roundUp16(Cg * phasedSetFloats(OH, OW, KH, KW, SH, SW, DH, DW));
}
/// A flat convolution's product at most this many floats at a time a part (192 KB), so that
/// each chunk is copied out of L2 rather than memory; and the rows of a chunk.
constexpr idx kFlatChunkFloats = 48 * 1024;
constexpr idx convFlatChunkRows(idx Kg, idx OW, idx KW, idx SW, idx DW) {
  return maxOf(1, kFlatChunkFloats / (Kg * phasedCols(OW, KW, SW, DW)));
}
/// Rows of the product's grid in scratch: the whole grid when it fits one chunk, else a chunk
/// a part (parts of at most ceil(OH / parts) rows: never more than OH + parts - 1 in all).
/// Before, the grid was always whole: 5.6 MB beside inception_v3's Conv2d_2b_3x3, where the
/// chunks use 0.38 MB.
constexpr idx convFlatProductRows(idx Kg, idx OH, idx OW, idx KW, idx SW, idx DW, idx threads) {
  idx parts = threads < 1 ? 1 : threads, chunk = convFlatChunkRows(Kg, OW, KW, SW, DW);
  return chunk < OH ? minOf(parts * chunk, OH + parts - 1) : OH + parts - 1;
}
constexpr idx convFlatFloats(idx Cg, idx Kg, idx OH, idx OW, idx KH, idx KW, idx SH, idx SW,
                             idx DH, idx DW, idx threads) {
  return convFlatPlanesFloats(Cg, OH, OW, KH, KW, SH, SW, DH, DW) + roundUp16(2 * Cg * KH * KW) +
         Kg * convFlatProductRows(Kg, OH, OW, KW, SW, DW, threads) *
             phasedCols(OW, KW, SW, DW) +
         4 * kMaxNR;
}

/// A plain 1x1 convolution (convIsPointwise) with at most 128 output channels a group and at
/// least a whole panel of NR columns multiplies the input in place (NNConv.cpp,
/// pointwiseOnInput): its B, the input planes, is packed only for the narrow last panel, so no
/// vector reads past a plane. The offsets of B's rows (one i64 a row) follow the packed blocks.
constexpr bool convPointwiseInPlace(idx Kg, idx outPlane, idx NR) {
  return Kg <= 128 && outPlane >= NR;
}

/// A plain 1x1 convolution of one group on a map of fewer than 64 positions that are not whole
/// vectors (7x7: 49) goes by pixels (NNConv.cpp, convByPixels): the product of the input's
/// transpose [pixels][C] with the filter's transpose, whose K columns are whole panels of the
/// tile, so that no narrow panel of columns (a 49-column map's last one holds 17 columns, or 1
/// past two of 8) leaves the tile's products waiting on one another. The filter is packed at
/// compile time as a product's B (its rows as B's columns, CPUConstants.h kFilterPixelPanels).
constexpr bool convByPixels(idx G, idx K, idx outPlane) {
  return G == 1 && outPlane < 64 && outPlane % 16 != 0 && K >= 32;
}
/// Its working memory: the input's and the result's transposes, then the GEMM's narrow-panel
/// buffer per part.
constexpr idx convByPixelsFloats(idx C, idx K, idx outPlane, idx threads) {
  return roundUp16(outPlane * C) + roundUp16(outPlane * K) + gemmScratchFloats(C, K, threads);
}

/// Whether a convolution of \p C input channels in \p G groups runs the depthwise kernel
/// (NNDepthwise.cpp): one input channel a group, but not a single channel whose window the
/// phase planes do not take (an audio front-end's STFT as a Conv1d: 400 taps at stride 160, 201
/// filters), which is a plain GEMM of the filters with the input's windows: 4 -> 150 GFLOP/s.
constexpr bool convIsDepthwise(idx C, idx G, idx KH, idx KW, idx SH, idx SW) {
  return C == G && (G > 1 || windowIsPhased(KH, KW, SH, SW));
}

/// The channel-lanes depthwise kernels (NNDepthwiseLanes.h on float32, QuantizedDepthwise.cpp
/// on int8): 16 channels at a time, a vector lane each. Their ring holds the last padded input
/// rows a window reaches (lanesRingRows) of lanesRingCols positions, 16 floats each.
constexpr idx kLanes = 16;
constexpr idx lanesRingRows(idx KH, idx DH) { return (KH - 1) * DH + 1; }
constexpr idx lanesRingCols(idx OW, idx KW, idx SW, idx DW) {
  return (OW - 1) * SW + (KW - 1) * DW + 1;
}
/// Floats of one part's working memory on float32: the ring, and the outputs of up to a row
/// plus the 15 left from the row before, staged 16 floats a position.
constexpr idx depthwiseLanesFloats(idx OW, idx KH, idx KW, idx SW, idx DH, idx DW) {
  return roundUp16(lanesRingRows(KH, DH) * lanesRingCols(OW, KW, SW, DW) * kLanes) +
         (OW + kLanes) * kLanes;
}
/// Whether a float32 depthwise convolution (convIsDepthwise) runs in channel lanes: one output
/// channel per input channel, a window the phase planes would take.
constexpr bool depthwiseInLanes(idx C, idx K, idx G, idx KH, idx KW, idx SH, idx SW) {
  return C == G && K == C && windowIsPhased(KH, KW, SH, SW);
}

/// Winograd F(m x m, 3x3) (NNWinograd.cpp), m = 4 or 2: a 3x3 convolution of stride and
/// dilation 1 computed on m x m tiles of its output, each from an (m + 2) x (m + 2) tile of the
/// input, as (m + 2)^2 matrix products (one per point of the transformed tile) of the
/// transformed filters [K][C] with the transformed input tiles [C][tiles]: 36 multiplies per
/// 4x4 outputs instead of 144 (F(4x4)), 16 per 2x2 instead of 36 (F(2x2)). The filters are
/// transformed at compile time (CPUConstants.cpp), (m + 2)^2 / 9 times the original's size.
constexpr idx winogradPoints(idx m) { return (m + 2) * (m + 2); }
constexpr idx winogradTiles(idx out, idx m) { return (out + m - 1) / m; }
/// Tiles of one block (whole rows of tiles): the transformed input and the products of a block,
/// points x (C + K) floats a tile, stay within kWinogradBlockFloats (2 MB) or, if larger, the
/// transformed filters (points x C x K floats), which every block reads again.
constexpr idx kWinogradBlockFloats = idx(1) << 19;
constexpr idx winogradBlockRows(idx C, idx K, idx OW, idx m) {
  idx floats = winogradPoints(m) * C * K > kWinogradBlockFloats ? winogradPoints(m) * C * K
                                                                : kWinogradBlockFloats;
  idx budget = floats / (winogradPoints(m) * (C + K)), tw = winogradTiles(OW, m);
  return budget / tw < 1 ? 1 : budget / tw;
}
/// Which Winograd a convolution takes (its m), or 0. Both need one group, a 3x3 window of
/// stride and dilation 1, and at least 16 tiles in an image.
///
/// F(4x4): at least 16 channels in and 64 out, and at least 7 tiles in each direction unless
/// the products are large enough (C x K of 96 x 96 or more). Winograd adds transforms of every
/// input tile per channel and output tile per filter, so with few filters or channels they
/// outweigh the products saved; with a narrow map, a vector of 16 tiles of a row holds few of
/// them. Timed alone on this rule's machine (2-core Xeon, AVX-512; model-runner, one conv, ms
/// direct vs Winograd): 64 -> 64 on 56x56 1.59 vs 0.92; 128 -> 128 on 28x28 1.62 vs 0.93;
/// 96 -> 96 on 35x35 1.46 vs 0.76; 32 -> 128 on 27x27 0.39 vs 0.30; 80 -> 192 on 71x71 9.1 vs
/// 4.3; 256 -> 256 on 14x14 1.66 vs 1.01; 96 -> 96 on 14x14 0.24 vs 0.21; 48 -> 192 on 13x13
/// 0.213 vs 0.200; but 128 -> 32 (densenet121) on 56x56 1.69 vs 1.88, on 14x14 0.11 vs 0.24;
/// 64 -> 64 on 14x14 0.108 vs 0.129; 16 -> 16 on 56x56 0.117 vs 0.121.
///
/// F(2x2), for the maps too small for 16 tiles of 4x4 (a 7x7 map has 4: their products would
/// fill a quarter of a 16-column register tile; of 2x2 it has 16), with C x K of 256 x 256 or
/// more: resnet50's last stage, 512 -> 512 on 7x7, which the direct GEMM runs at half the peak
/// (49 columns in panels of 32).
constexpr idx winogradTile(idx C, idx K, idx OH, idx OW, idx KH, idx KW, idx SH, idx SW, idx DH,
                           idx DW, idx G) {
  if (G != 1 || KH != 3 || KW != 3 || SH != 1 || SW != 1 || DH != 1 || DW != 1 || C < 16 ||
      K < 64)
    return 0;
  idx th = winogradTiles(OH, 4), tw = winogradTiles(OW, 4);
  if (th * tw >= 16 && ((th >= 7 && tw >= 7) || C * K >= 96 * 96))
    return 4;
  if (winogradTiles(OH, 2) * winogradTiles(OW, 2) >= 16 && C * K >= 256 * 256)
    return 2;
  return 0;
}
/// The columns of the padded input rows a Winograd convolution reads: every input tile, whole.
constexpr idx winogradPaddedCols(idx OW, idx m) { return m * winogradTiles(OW, m) + 2; }
/// Columns of a block's transformed input and products: its tiles, rounded up to whole
/// register tiles (the GEMM reads them in place, kMaxNR at a time); 16 when the block has at
/// most 16 tiles, which a 16-column tile then computes (NNWinograd.cpp: a 14x14 map's 16 tiles
/// in a 32-column tile did twice the products).
constexpr idx winogradBlockColumns(idx C, idx K, idx OH, idx OW, idx m) {
  idx tiles =
      minOf(winogradBlockRows(C, K, OW, m), winogradTiles(OH, m)) * winogradTiles(OW, m);
  return tiles <= 16 ? 16 : (tiles + kMaxNR - 1) / kMaxNR * kMaxNR;
}
/// Floats from one row of a block's transformed input to the next: its columns and a vector
/// more, which the transform's whole vectors may write past the last tile.
constexpr idx winogradInputRowFloats(idx C, idx K, idx OH, idx OW, idx m) {
  return winogradBlockColumns(C, K, OH, OW, m) + 16;
}
/// Floats of one part's rows of the transforms' intermediate sums: points a tile of a row, its
/// tiles in whole vectors.
constexpr idx winogradRowFloats(idx OW, idx m) {
  return winogradPoints(m) * roundUp16(winogradTiles(OW, m));
}
/// Floats the input transform reads past a tile row's last padded row (NNWinograd.cpp: whole
/// vectors of 16 tiles m columns apart, plus the two columns of the next tile).
constexpr idx kWinogradPadSlack = 80;
/// Whether a team splits a Winograd convolution by filters (NNWinograd.cpp), each part with a
/// transformed input of its own: when the map is one block and that input, points x C x
/// columns floats, stays within 1.25 MB (timed on 2 threads against the split by steps, ms:
/// 16 -> 64 on 55x55, 0.52 MB, 0.21 vs 0.26; 128 -> 128 on 28x28, 1.2 MB, 0.66 vs 0.85; 256 ->
/// 256 on 14x14 0.66 vs 0.76; 512 -> 512 on 7x7 (F(2x2)) 0.88 vs 0.95; but 96 -> 96 on 35x35,
/// 1.3 MB, 0.52 vs 0.49; 64 -> 64 on 56x56, 2 MB, 0.65 vs 0.56).
constexpr bool winogradByFilters(idx C, idx K, idx OH, idx OW, idx m) {
  idx tiles = winogradTiles(OH, m) * winogradTiles(OW, m);
  idx cols = tiles <= 16 ? 16 : (tiles + kMaxNR - 1) / kMaxNR * kMaxNR;
  return winogradPoints(m) * (C + K) * tiles <= (idx(1) << 20) &&
         winogradPoints(m) * C * cols <= 5 * (idx(1) << 16);
}
/// Floats of a part's padded input rows: the m + 2 rows of one tile row, and what the
/// transform reads past them.
constexpr idx winogradPadFloats(idx OW, idx m) {
  return roundUp16((m + 2) * winogradPaddedCols(OW, m) + kWinogradPadSlack);
}
/// Floats of a Winograd convolution's scratch: each part's padded rows; the transformed input
/// of a block [points][C][winogradInputRowFloats], one per part when split by filters; the
/// block's products [points][K][columns] (the last row of products read up to 15 floats past
/// its end, into what follows); the offsets of the transformed input's rows (C i64s); and each
/// part's intermediate sums.
constexpr idx winogradScratchFloats(idx C, idx K, idx OH, idx OW, idx m, idx threads) {
  idx cols = winogradBlockColumns(C, K, OH, OW, m), parts = threads < 1 ? 1 : threads;
  idx inputs = winogradByFilters(C, K, OH, OW, m) ? parts : 1;
  return winogradPadFloats(OW, m) * parts +
         winogradPoints(m) * (inputs * C * winogradInputRowFloats(C, K, OH, OW, m) + K * cols) +
         roundUp16(2 * C) + winogradRowFloats(OW, m) * parts;
}

/// Floats of scratch a 2-D convolution split over \p threads parts needs: for depthwise ones
/// phase planes per part (when they take that path); for flat ones (convIsFlat),
/// convFlatFloats; else the GEMM's packed panels per part and (not a plain 1x1) with a
/// horizontal stride of 2 the padded copy of one group, shared (a strided 1x1: its positions'
/// copy, after the in-place product's row offsets).
constexpr idx convScratchFloats(idx C, idx H, idx W, idx K, idx OH, idx OW, idx KH, idx KW,
                                idx SH, idx SW, idx PH, idx PW, idx DH, idx DW, idx G,
                                idx threads) {
  if (convIsDepthwise(C, G, KH, KW, SH, SW)) {
    idx part = depthwiseInLanes(C, K, G, KH, KW, SH, SW)
                   ? depthwiseLanesFloats(OW, KH, KW, SW, DH, DW)
               : windowIsPhased(KH, KW, SH, SW) ? phasedFloats(OH, OW, KH, KW, SH, SW, DH, DW)
                                                : 0;
    return part * (threads < 1 ? 1 : threads);
  }
  idx Cg = C / G, pack = gemmScratchFloats(Cg * KH * KW, OH * OW, threads);
  if (convIsPointwise(H, W, OH, OW, KH, KW, SH, SW, PH, PW))
    return pack + 2 * Cg;
  if (convIsFlat(SH, SW, K / G, OW, KW, DW))
    return convFlatFloats(Cg, K / G, OH, OW, KH, KW, SH, SW, DH, DW, threads);
  if (convIsStridedPointwise(KH, KW, SH, SW, PH, PW))
    return pack + roundUp16(2 * Cg) + roundUp16(Cg * OH * OW);
  if (!convIsPadded(SW))
    return pack;
  return pack + convPaddedFloats(Cg, OH, OW, KH, KW, SH, SW, DH, DW);
}

} // namespace scratch

#endif
