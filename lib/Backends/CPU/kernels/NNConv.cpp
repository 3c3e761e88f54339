// 2-D convolution on float32, NCHW (1-D convolutions come here with H = 1), but depthwise ones
// (NNDepthwise.cpp): per image and group, the GEMM of NNGemm.h with A = the group's filters
// [Cout/g, Cin/g * KH * KW] and B = the im2col view of the input, packed block by block straight
// from the input (the im2col matrix itself never exists).
// The bias is added and the fused activation applied as each output element is finished.
#include "NNGemm.h"
#include "PhasePlanes.h"
#include "Variants.h"

using namespace gemm;

namespace {

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

/// A convolution with strides of 1 or 2 (not a plain 1x1) as the GEMM of the filters with the
/// padded image read in place. Each input channel is split into its phase planes (PhasePlanes.h;
/// one plane, the padded image itself, for strides of 1). On the grid of a phase plane's rows
/// (output (oh, ow) at oh * Wq + ow; the columns ow >= OW computed and dropped), row
/// (c, kh, kw) of the im2col matrix is one of channel c's phase planes shifted by a constant, so
/// B needs no packing (gemmFlatB reads it through a table of row offsets). The product lands on
/// the [Kg][OH][Wq] grid in scratch and is copied out row by row. Before it, B was packed block
/// by block: with few output channels (densenet121's 3x3 convolutions have 32; a stem's 3 input
/// channels make few rows of B each packed float serves) that copy cost as much as a third of
/// the products.
template <int MR, int NV, bool PackedA, int SW>
EMBER_INLINE void convFlat(float *out, const float *in, const float *filter, const float *bias,
                           const ConvShape &s, Activation act, float *scratchMem,
                           parallel::Team *team) {
  using namespace phased;
  const i64 Cg = s.C / s.G, Kg = s.K / s.G, taps = s.KH * s.KW, kDepth = Cg * taps;
  const Window win{s.H, s.W, s.OH, s.OW, s.KH, s.KW, s.SH, SW, s.PH, s.PW, s.DH, s.DW};
  const Phases p = phasesFor(win);
  const i64 grid = s.OH * p.Wq;
  float *planes = scratchMem;
  i64 *bOff = reinterpret_cast<i64 *>(
      scratchMem +
      scratch::convFlatPlanesFloats(Cg, s.OH, s.OW, s.KH, s.KW, s.SH, SW, s.DH, s.DW));
  float *product = reinterpret_cast<float *>(bOff) + scratch::roundUp16(2 * kDepth);
  PhaseRuns runs[4];
  phaseRuns(runs, win, p);
  i64 tapOff[scratch::kPhasedMaxTaps];
  tapOffsets(tapOff, win, p);
  for (i64 c = 0; c < Cg; ++c)
    for (i64 t = 0; t < taps; ++t)
      bOff[c * taps + t] = c * p.set + tapOff[t];
  // The copies in and out split over the team by channels, as the product by tiles: a
  // memory-bound fraction the second thread would otherwise wait through.
  const i64 fillParts = minI(parallel::partsForMoving(team, 0, Cg * p.set), Cg);
  for (i64 b = 0; b < s.N; ++b)
    for (i64 g = 0; g < s.G; ++g) {
      const float *image = in + (b * s.C + g * Cg) * s.H * s.W;
      // The padding is zeroed once, for the first image and group, by the part that then fills
      // those planes' interiors (which every image and group rewrites at the same places).
      const bool first = b == 0 && g == 0;
      parallel::forEachRange(team, fillParts, Cg, 1, [&](i64, i64 begin, i64 end) {
        for (i64 c = begin; c < end; ++c) {
          if (first)
            padAroundRuns(planes + c * p.set, runs, s.SH * SW, p, 0.f);
          fillPhases<SW, false>(planes + c * p.set, image + c * s.H * s.W, runs, s.SH * SW,
                                s.SH * s.W, p.Wq, s.H * s.W, 0.f);
        }
      });
      Epilogue ep{bias + g * Kg, 0, act};
      const float *A = filter + g * Kg * kDepth;
      float *C = out + (b * s.K + g * Kg) * s.OH * s.OW;
      i64 chunkRows = scratch::convFlatChunkRows(Kg, s.OW, s.KW, SW, s.DW);
      if (chunkRows < s.OH) {
        // A product larger than the chunk goes a few output rows at a time, each chunk copied
        // out while it is still in cache: whole, a network's stem (64 x 111 x 112 floats in
        // squeezenet1_1) went to memory and back, and the copy cost as much as the products.
        // A part takes an even share of the rows in chunks of even size, with a chunk's buffer
        // of its own: whole chunks a part left 39 of 55 rows to one thread and 16 to the other,
        // and a map of fewer than two chunks' rows (inception_v3's 5x5 convolutions on 35x35)
        // did not split at all. The buffers fit in scratch::convFlatProductRows: parts of
        // bufferRows <= chunkRows, and parts * bufferRows <= OH + parts - 1.
        i64 parts = minI(parallel::partsFor(team, 2 * Kg * grid * kDepth), s.OH);
        i64 bufferRows = minI(chunkRows, (s.OH + parts - 1) / parts);
        parallel::forEachRange(team, parts, s.OH, 1, [&](i64 part, i64 begin, i64 end) {
          float *chunk = product + part * Kg * bufferRows * p.Wq;
          i64 chunks = (end - begin + bufferRows - 1) / bufferRows;
          i64 step = chunks > 0 ? (end - begin + chunks - 1) / chunks : 1;
          for (i64 r0 = begin; r0 < end; r0 += step) {
            i64 rows = minI(step, end - r0), cols = rows * p.Wq;
            gemmFlatB<MR, NV, PackedA>(Kg, 0, cols, kDepth, A, kDepth, planes + r0 * p.Wq, bOff,
                                       chunk, cols, ep);
            for (i64 k = 0; k < Kg; ++k)
              copyStrip(C + k * s.OH * s.OW, chunk + k * cols, s.OH, s.OW, p.Wq, r0, rows);
          }
        });
        continue;
      }
      runGemmFlatB<MR, NV, PackedA>(Kg, grid, kDepth, A, kDepth, planes, bOff, product, grid, ep,
                                    team);
      i64 copyParts = minI(parallel::partsForMoving(team, 0, Kg * grid), Kg);
      parallel::forEachRange(team, copyParts, Kg, 1, [&](i64, i64 begin, i64 end) {
        for (i64 k = begin; k < end; ++k)
          copyStrip(C + k * s.OH * s.OW, product + k * grid, s.OH, s.OW, p.Wq, 0, s.OH);
      });
    }
}

/// The positions a strided 1x1 convolution reads from one input plane (OH x OW of them, SH
/// rows and SW columns apart) into \p dst: a vector of 16 at a time for SW = 2 where its 32
/// floats lie within the plane.
EMBER_INLINE void takePositions(float *dst, const float *plane, const ConvShape &s) {
  const i64 planeFloats = s.H * s.W;
  for (i64 oh = 0; oh < s.OH; ++oh) {
    const i64 rowAt = oh * s.SH * s.W;
    const float *row = plane + rowAt;
    float *d = dst + oh * s.OW;
    i64 ow = 0;
    if (s.SW == 2)
      for (; ow + EMBER_VW <= s.OW && rowAt + 2 * ow + 2 * EMBER_VW <= planeFloats;
           ow += EMBER_VW)
        storev(d + ow, stridedVector<2>(row + 2 * ow));
    for (; ow < s.OW; ++ow)
      d[ow] = row[ow * s.SW];
  }
}

/// A plain 1x1 convolution C = A * B whose B, the input's [K][N] planes, is read in place
/// (gemmFlatB over the offsets \p inputRows) for its whole panels of NR columns, and packed
/// (DensePacker) only for the narrow last one, whose vectors would read past the planes. Before,
/// a plane of 55 x 55 or 7 x 7 (not whole panels) had all of B packed, for as few as 16 rows of
/// A (squeezenet1_1's squeeze layers), and the copy cost as much as the products.
template <int MR, int NV, bool PackedA>
EMBER_INLINE void pointwiseOnInput(i64 M, i64 N, i64 K, const float *A, const float *B,
                                   const i64 *inputRows, float *C, const Epilogue &ep,
                                   float *packBuffers, parallel::Team *team) {
  constexpr i64 NR = NV * EMBER_VW;
  const i64 whole = N / NR * NR;
  splitGemm<MR, NV, PackedA>(
      M, N, K, A, K, ep, team,
      [&](i64 p, i64 mBegin, i64 mEnd, i64 nBegin, i64 nEnd, const Epilogue &part,
          const float *a) {
        float *c = C + mBegin * N;
        if (nBegin < minI(nEnd, whole))
          gemmFlatB<MR, NV, PackedA>(mEnd - mBegin, nBegin, minI(nEnd, whole), K, a, K, B,
                                     inputRows, c, N, part);
        if (maxI(nBegin, whole) < nEnd)
          gemmTile<MR, NV, PackedA>(mEnd - mBegin, maxI(nBegin, whole), nEnd, K, a, K, c, N,
                                    packFn(DensePacker{B, N}), part,
                                    packBuffers + p * scratch::gemmPackFloats(K, N));
      });
}

/// Convolutions that pay for it go flat (convFlat). The others' scratch: the GEMM's
/// packed panels (one block per thread), then (horizontal stride 1 or 2, not a plain 1x1) the
/// padded input of one group, which every thread reads. PackedA: the backend packed the filter
/// at compile time (PackedPanels.h: each group's [K/G, C/G*KH*KW] matrix in panels of MR rows).
template <int MR, int NV, bool PackedA>
EMBER_INLINE void convGemm(float *out, const float *in, const float *filter, const float *bias,
                           const ConvShape &s, Activation act, float *scratchMem,
                           parallel::Team *team) {
  bool pointwise =
      scratch::convIsPointwise(s.H, s.W, s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.PH, s.PW);
  if (!pointwise && scratch::convIsFlat(s.SH, s.SW, s.K / s.G, s.OW, s.KW, s.DW))
    return s.SW == 1
               ? convFlat<MR, NV, PackedA, 1>(out, in, filter, bias, s, act, scratchMem, team)
               : convFlat<MR, NV, PackedA, 2>(out, in, filter, bias, s, act, scratchMem, team);
  // A strided 1x1 multiplies the copy of the positions it reads as a plain 1x1 does the input.
  const bool strided = scratch::convIsStridedPointwise(s.KH, s.KW, s.SH, s.SW, s.PH, s.PW);
  i64 Cg = s.C / s.G, Kg = s.K / s.G, kDepth = Cg * s.KH * s.KW, outPlane = s.OH * s.OW;
  float *packBuffer = scratchMem;
  // A plain 1x1 convolution whose packing few rows of A would share multiplies the input in
  // place (pointwiseInPlace); the offsets of B's rows follow the packed blocks in scratch.
  i64 packFloats = scratch::gemmScratchFloats(kDepth, outPlane, team ? team->size : 1);
  bool pointwiseInPlace =
      (pointwise || strided) && scratch::convPointwiseInPlace(Kg, outPlane, NV * EMBER_VW);
  i64 *inputRows = reinterpret_cast<i64 *>(scratchMem + packFloats);
  if (pointwiseInPlace)
    for (i64 k = 0; k < kDepth; ++k)
      inputRows[k] = k * outPlane;
  float *padded = scratchMem + packFloats;
  float *positions = scratchMem + packFloats + scratch::roundUp16(2 * Cg); // a strided 1x1's
  // The padded input the packer reads: every row and column some window reaches.
  i64 Hp = scratch::convPaddedExtent(s.OH, s.KH, s.SH, s.DH);
  i64 Wp = scratch::convPaddedExtent(s.OW, s.KW, s.SW, s.DW);
  // The copies split over the team by channels, as in convFlat.
  i64 copyFloats = Cg * (strided ? outPlane : Hp * Wp);
  i64 copyParts = minI(parallel::partsForMoving(team, 0, copyFloats), Cg);
  for (i64 b = 0; b < s.N; ++b)
    for (i64 g = 0; g < s.G; ++g) {
      Epilogue ep{bias + g * Kg, 0, act};
      const float *image = in + (b * s.C + g * Cg) * s.H * s.W;
      const float *A = filter + g * Kg * kDepth;
      float *C = out + (b * s.K + g * Kg) * outPlane;
      if (strided) {
        parallel::forEachRange(team, copyParts, Cg, 1, [&](i64, i64 begin, i64 end) {
          for (i64 c = begin; c < end; ++c)
            takePositions(positions + c * outPlane, image + c * s.H * s.W, s);
        });
        image = positions;
      }
      // A 1x1 convolution with stride 1 and no padding multiplies by the input itself.
      if (pointwiseInPlace)
        pointwiseOnInput<MR, NV, PackedA>(Kg, outPlane, kDepth, A, image, inputRows, C, ep,
                                          packBuffer, team);
      else if (pointwise || strided)
        runGemm<MR, NV, PackedA>(Kg, outPlane, kDepth, A, kDepth, C, outPlane,
                                 packFn(DensePacker{image, outPlane}), ep, packBuffer, team);
      else if (scratch::convIsPadded(s.SW)) {
        parallel::forEachRange(team, copyParts, Cg, 1, [&](i64, i64 begin, i64 end) {
          if (begin < end)
            padImage(padded + begin * Hp * Wp, image + begin * s.H * s.W, end - begin, s, Hp,
                     Wp);
        });
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

/// A plain 1x1 convolution by pixels (Scratch.h, convByPixels): per image, the product of the
/// input's transpose [pixels][C] with the filter's [C][K], which the backend packed at compile
/// time as a product's B in panels of NR columns (CPUConstants.h, kFilterPixelPanels), the bias
/// added per column; the result [pixels][K] is transposed back into the output's [K][pixels].
/// Both transposes go 16 x 16 blocks at a time, split over the team (the first by pixels, the
/// second by filters): on one thread, element by element, resnet50's 2048 x 49 input cost a
/// tenth of its 7 x 7 layers on two threads.
template <int MR, int NV>
EMBER_INLINE void convByPixels(float *out, const float *in, const float *filter,
                               const float *bias, const ConvShape &s, Activation act,
                               float *scratchMem, parallel::Team *team) {
  const i64 P = s.OH * s.OW, C = s.C, K = s.K;
  float *xt = scratchMem, *ct = xt + scratch::roundUp16(P * C);
  float *buffers = ct + scratch::roundUp16(P * K);
  Epilogue ep{bias, 1, act};
  const i64 inParts = minI(parallel::partsForMoving(team, 0, 2 * C * P), (P + 15) / 16);
  const i64 outParts = minI(parallel::partsForMoving(team, 0, 2 * K * P), K);
  for (i64 b = 0; b < s.N; ++b) {
    const float *x = in + b * C * P;
    parallel::forEachRange(team, inParts, P, 16, [&](i64, i64 begin, i64 end) {
      if (begin < end)
        transposeMatrix(xt + begin * C, C, x + begin, P, C, end - begin);
    });
    runGemmPackedB<MR, NV>(P, K, C, xt, C, filter, ct, K, ep, buffers, team);
    float *o = out + b * K * P;
    parallel::forEachRange(team, outParts, K, 16, [&](i64, i64 begin, i64 end) {
      if (begin < end)
        transposeMatrix(o + begin * P, P, ct + begin, K, P, end - begin);
    });
  }
}

} // namespace

// Three entries per row, so that a model links (and compiles) only the paths it takes: the GEMM
// with the filter read in place, the GEMM with the filter packed at compile time, and a 1x1
// convolution by pixels over its filter packed as a product's B.
#define CONV_ENTRIES(SUFFIX, FEATURES, MR, NV)                                                     \
  EMBER_CONV_ENTRY(ember_conv2d_f32_##SUFFIX, FEATURES,                                           \
                   (convGemm<MR, NV, false>(out, in, filter, bias, s, a, scratchMem, team)))       \
  EMBER_CONV_ENTRY(ember_conv2d_packed_f32_##SUFFIX, FEATURES,                                    \
                   (convGemm<MR, NV, true>(out, in, filter, bias, s, a, scratchMem, team)))        \
  EMBER_CONV_ENTRY(ember_conv2d_pixels_f32_##SUFFIX, FEATURES,                                    \
                   (convByPixels<MR, NV>(out, in, filter, bias, s, a, scratchMem, team)))

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(CONV_ENTRIES(NAME, FEATURES, MR, NV))
#include "Variants.def"
#undef CONV_ENTRIES
