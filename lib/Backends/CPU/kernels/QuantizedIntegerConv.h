// IntegerConv on the int8 GEMM (QuantizedIntegerGemm.h): B is the im2col of the input, packed
// block by block, or read in place when the convolution is pointwise; a flat convolution
// (QuantizedLayout.h: qconvIsFlat) packs no B: the tiles read its channel-interleaved padded
// input (its planes, built here in one pass) in place, a table giving where each quad of k
// starts (convFlat); on a row whose tile has a form over pixels (VNNI's), one whose filter is
// compiled in panels of output channels runs that instead (PixelArgs), its rows the result's
// pixels. A convolution requantized as it finishes writes its 8-bit result from the tiles.
#ifndef EMBER_CPU_KERNELS_QUANTIZEDINTEGERCONV_H
#define EMBER_CPU_KERNELS_QUANTIZEDINTEGERCONV_H

#include "QuantizedIntegerGemm.h"

namespace qgemm {

/// The view of a flat convolution's filter packed by packAFlat (Kq quads a row): in panels of
/// the tile's rows, or row after row for a tile that reads A's rows whole (kRowMajorA, the AMX
/// tile: its panels are packAFlat's of one row).
template <typename Tile> EMBER_INLINE AView flatView(const u8 *Ap, i64 Kq) {
  return Tile::kRowMajorA ? inPlaceView(Ap, 4 * Kq) : packedView<Tile::MR>(Ap, 4 * Kq);
}

/// \p n cells of the quad \p pad from \p d: a convolution's padding is mostly one cell a side,
/// which a loop would make a call of memset for.
EMBER_INLINE void fillQuads(u8 *d, i64 n, u32 pad) {
  if (n == 1) {
    __builtin_memcpy(d, &pad, 4);
    return;
  }
  for (i64 k = 0; k < n; ++k)
    __builtin_memcpy(d + 4 * k, &pad, 4);
}

/// A stride-1 flat convolution's planes (QuantizedLayout.h) from its Cg input planes \p x (H x
/// W), Hq x Wq cells each, in one pass: each padded row of four channels interleaved straight
/// from the input's rows, its padding cells zx, the channels past Cg (rounding them up to four)
/// 0, \p plane bytes from one plane to the next; with \p colTerm, each cell's sum over the
/// channels in \p sums. \p work: W bytes. (A padded copy first, then the interleave, took two
/// passes over the input and a call of memset for every row's padding.)
EMBER_INLINE void flatPlanesStride1(const u8 *x, i64 Cg, i64 H, i64 W, i64 Hq, i64 Wq, i64 PH,
                                    i64 PW, u8 xFlip, u8 zxq, bool colTerm, u8 *work,
                                    u8 *planes, i64 plane, u32 *sums) {
  i64 C4 = (Cg + 3) / 4, cells = Hq * Wq;
  // Columns [lo, hi) of a padded row are the input's.
  i64 lo = minI(PW, Wq), hi = maxI(lo, minI(Wq, PW + W));
  // The rows of the channels past Cg: xFlip, which the interleave flips to 0.
  u8 *pastCg = work;
  if (Cg % 4)
    for (i64 i = 0; i < W; ++i)
      pastCg[i] = xFlip;
  bool unpadded = PH == 0 && PW == 0 && Hq == H && Wq == W;
  for (i64 c4 = 0; c4 < C4; ++c4) {
    if (unpadded && 4 * c4 + 3 < Cg) {
      // Four channels' planes as they are, interleaved whole (a 1x1 convolution's: row by row,
      // a 7 x 7 map's rows were each too short for a vector).
      const u8 *xc = x + 4 * c4 * cells;
      interleave4(xc, xc + cells, xc + 2 * cells, xc + 3 * cells, cells, xFlip,
                  planes + c4 * plane);
      continue;
    }
    u32 pad = 0;
    for (i64 l = 0; l < 4; ++l)
      pad |= u32(4 * c4 + l < Cg ? zxq : 0) << (8 * l);
    for (i64 r = 0; r < Hq; ++r) {
      u8 *d = planes + c4 * plane + r * Wq * 4;
      i64 ih = r - PH;
      bool inside = ih >= 0 && ih < H && hi > lo;
      i64 from = inside ? lo : Wq, to = inside ? hi : Wq;
      fillQuads(d, from, pad);
      if (inside) {
        const u8 *rows[4];
        for (i64 l = 0; l < 4; ++l) {
          i64 c = 4 * c4 + l;
          rows[l] = c < Cg ? x + (c * H + ih) * W + (from - PW) : pastCg;
        }
        interleave4(rows[0], rows[1], rows[2], rows[3], to - from, xFlip, d + 4 * from);
      }
      fillQuads(d + 4 * to, Wq - to, pad);
    }
  }
  if (!colTerm)
    return;
  for (i64 i = 0; i < cells; ++i)
    sums[i] = 0;
  for (i64 c4 = 0; c4 < C4; ++c4) {
    const u8 *q = planes + c4 * plane;
    for (i64 i = 0; i < cells; ++i)
      sums[i] += u32(q[4 * i]) + q[4 * i + 1] + q[4 * i + 2] + q[4 * i + 3];
  }
}

typedef u8 U8x32 __attribute__((ext_vector_type(32)));
typedef u16 U16x32 __attribute__((ext_vector_type(32)));

/// Bytes B (0: the even ones, 1: the odd) of 32 bytes of each of four rows \p v, interleaved:
/// 16 cells of four channels, byte 4 j + l being row l's byte 2 j + B.
template <int B> EMBER_INLINE U16x32 interleavePhase(const U8x32 (&v)[4]) {
  // Rows 0 and 1, and rows 2 and 3, as pairs of bytes (a u16 a cell), then the pairs in turn.
  auto pairs = [](U8x32 x, U8x32 y) {
    U8x32 p = __builtin_shufflevector(x, y, 0 + B, 32 + B, 2 + B, 34 + B, 4 + B, 36 + B, 6 + B,
                                      38 + B, 8 + B, 40 + B, 10 + B, 42 + B, 12 + B, 44 + B,
                                      14 + B, 46 + B, 16 + B, 48 + B, 18 + B, 50 + B, 20 + B,
                                      52 + B, 22 + B, 54 + B, 24 + B, 56 + B, 26 + B, 58 + B,
                                      28 + B, 60 + B, 30 + B, 62 + B);
    return __builtin_bit_cast(U16x16, p);
  };
  U16x16 p01 = pairs(v[0], v[1]), p23 = pairs(v[2], v[3]);
  return __builtin_shufflevector(p01, p23, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7,
                                 23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
}

/// flatPlanesStride1 at stride 2: the zero-padded input's phases (\p read says which a tap
/// reads), phase (a, b) holding cells (2 i + a, 2 j + b). For each phase row i of four
/// channels, their padded input rows 2 i + a go to \p rowBuf (qconvFlatStride2RowBytes each),
/// and each 32 bytes of those, four channels at a time, give 16 cells of phase (a, 0) (the even
/// bytes) and of (a, 1) (the odd ones) interleaved, written whole: past a row's Wq cells they
/// land on the next row (written after) or the plane's slack. The sums per phase (Hq x Wq each).
EMBER_INLINE void flatPlanesStride2(const u8 *x, i64 Cg, i64 H, i64 W, i64 Hq, i64 Wq, i64 PH,
                                    i64 PW, u8 xFlip, u8 zxq, bool colTerm, const bool *read,
                                    u8 *rowBuf, u8 *planes, i64 plane, u32 *sums) {
  constexpr i64 S = 2, phases = 4;
  i64 C4 = (Cg + 3) / 4, cells = Hq * Wq, rowBytes = qconvFlatStride2RowBytes(Wq);
  // Columns [lo, hi) of a padded row are the input's.
  i64 lo = minI(PW, S * Wq), hi = minI(S * Wq, PW + W);
  for (i64 ph = 0; ph < phases && colTerm; ++ph)
    for (i64 i = 0; read[ph] && i < cells; ++i)
      sums[ph * cells + i] = 0;
  for (i64 c4 = 0; c4 < C4; ++c4)
    for (i64 a = 0; a < S; ++a) {
      if (!read[a * S] && !read[a * S + 1])
        continue;
      for (i64 i = 0; i < Hq; ++i) {
        i64 ih = S * i + a - PH;
        bool inside = ih >= 0 && ih < H;
        for (i64 l = 0; l < 4; ++l) {
          i64 c = 4 * c4 + l;
          u8 *r = rowBuf + l * rowBytes;
          u8 fill = c < Cg ? zxq : 0;
          i64 from = c < Cg && inside ? lo : S * Wq, to = c < Cg && inside ? hi : S * Wq;
          fillBytes(r, from, fill);
          if (to > from)
            copyFlipped(x + (c * H + ih) * W + from - PW, to - from, xFlip, r + from);
          fillBytes(r + to, S * Wq - to, fill);
          if (colTerm)
            for (i64 b = 0; b < S; ++b)
              for (i64 j = 0; read[a * S + b] && j < Wq; ++j)
                sums[(a * S + b) * cells + i * Wq + j] += r[S * j + b];
        }
        u8 *even = planes + (c4 * phases + a * S) * plane + i * Wq * 4, *odd = even + plane;
        for (i64 j = 0; j < Wq; j += 16) {
          U8x32 v[4];
          for (int l = 0; l < 4; ++l)
            __builtin_memcpy(&v[l], rowBuf + l * rowBytes + S * j, 32);
          U16x32 ce = interleavePhase<0>(v), co = interleavePhase<1>(v);
          if (read[a * S])
            __builtin_memcpy(even + 4 * j, &ce, 64);
          if (read[a * S + 1])
            __builtin_memcpy(odd + 4 * j, &co, 64);
        }
      }
    }
}

/// One image and group of a flat convolution (QuantizedLayout.h): \p x its Cg input planes
/// (H x W), the result's Mg planes at \p out (or, requantized, at f.Q), at stride \p S (1 or
/// 2, both ways). \p A views the group's filter (packAFlat's, or permuted when compiled), or
/// \p panels, if not null, is it in panels of output channels, for Tile::pixels; \p f its row
/// terms; \p work is the pieces of QConvFlatBytes.
template <typename Tile>
EMBER_INLINE void convFlat(const u8 *x, u32 *out, const AView &A, const u8 *panels,
                           const Finish &f, bool colTerm, i64 Cg, i64 Mg, i64 H, i64 W, i64 OH,
                           i64 OW, i64 KH, i64 KW, i64 S, i64 PH, i64 PW, i64 DH, i64 DW, u8 xFlip,
                           u8 zxq, const QConvFlatBytes &bytes, u8 *work, parallel::Team *team) {
  const TileShape s{Tile::MR, Tile::NR, Tile::U};
  i64 Hq = qconvFlatExtent(OH, KH, S, DH), Wq = qconvFlatExtent(OW, KW, S, DW);
  i64 C4 = (Cg + 3) / 4, taps = KH * KW, Kq = taps * C4, cells = Hq * Wq, phases = S * S;
  i64 N = qconvFlatColumns(OH, OW, Wq), plane = qconvFlatPlaneBytes(Hq, Wq);
  u8 *padded = work, *planes = padded + bytes.padded;
  i64 *offsets = (i64 *)(planes + bytes.planes);
  u32 *sums = (u32 *)((u8 *)offsets + bytes.offsets), *colSum = (u32 *)((u8 *)sums + bytes.sums);
  // Without dropped columns the grid is the result itself (requantized: its 8-bit one).
  u32 *grid = Wq == OW ? out : (u32 *)((u8 *)colSum + bytes.colSum);
  Finish fg = f;
  if (f.rowScale && Wq != OW)
    fg.Q = (u8 *)grid + bytes.grid;

  // Tap (kh, kw) reads phase tapPhase at tapShift cells from an output's own.
  auto tapPhase = [&](i64 kh, i64 kw) { return (kh * DH % S) * S + kw * DW % S; };
  auto tapShift = [&](i64 kh, i64 kw) { return kh * DH / S * Wq + kw * DW / S; };
  bool read[4] = {false, false, false, false}; // the phases some tap reads
  for (i64 kh = 0; kh < KH; ++kh)
    for (i64 kw = 0; kw < KW; ++kw)
      read[tapPhase(kh, kw)] = true;

  if (S == 1)
    flatPlanesStride1(x, Cg, H, W, Hq, Wq, PH, PW, xFlip, zxq, colTerm, padded, planes, plane,
                      sums);
  else
    flatPlanesStride2(x, Cg, H, W, Hq, Wq, PH, PW, xFlip, zxq, colTerm, read, padded, planes,
                      plane, sums);
  for (i64 kh = 0, q = 0; kh < KH; ++kh)
    for (i64 kw = 0; kw < KW; ++kw)
      for (i64 c4 = 0; c4 < C4; ++c4, ++q)
        offsets[q] = (c4 * phases + tapPhase(kh, kw)) * plane + tapShift(kh, kw) * 4;
  // Column sums of B: each window's sum of its cells' sums over the channels.
  if (colTerm) {
    for (i64 f = 0; f < N; ++f)
      colSum[f] = 0;
    for (i64 kh = 0; kh < KH; ++kh)
      for (i64 kw = 0; kw < KW; ++kw) {
        const u32 *shifted = sums + tapPhase(kh, kw) * cells + tapShift(kh, kw);
        for (i64 f = 0; f < N; ++f)
          colSum[f] += shifted[f];
      }
  }

  if constexpr (Tile::kPixelTile) {
    if (panels) {
      // The filter in panels: tiles over the result's pixels, none on dropped grid columns.
      i64 P = OH * OW, parts = minI(parallel::partsFor(team, 8 * Mg * P * Kq), (P + 7) / 8);
      parallel::forEachPart(team, parts, [&](i64 part) {
        i64 begin, end;
        parallel::partRange(P, parts, 8, part, begin, end);
        Tile::pixels(PixelArgs{planes, offsets, Kq, panels, Mg, OW, Wq, P, begin, end,
                               f.at(0, P, 0), out, colTerm ? colSum : nullptr});
      });
      return;
    }
  }

  i64 blocks = (Kq + kQGemmKCQ - 1) / kQGemmKCQ, kc = (Kq + blocks - 1) / blocks;
  kc = (kc + Tile::KQ - 1) / Tile::KQ * Tile::KQ; // whole steps of the tile's k
  i64 parts = minI(parallel::partsFor(team, 8 * Mg * N * Kq), (N + s.NR - 1) / s.NR);
  parallel::forEachPart(team, parts, [&](i64 part) {
    Tile::begin();
    i64 begin, end;
    parallel::partRange(N, parts, s.NR, part, begin, end);
    for (i64 q0 = 0; q0 < Kq; q0 += kc) {
      i64 kq = minI(kc, Kq - q0);
      i64 mode = (q0 > 0 ? kTileLoad : 0) | (q0 + kq == Kq ? kTileFinish : 0);
      for (i64 j = begin; j < end; j += panelColumns(s, end, j))
        runRowTiles<Tile>(Mg, q0, kq, A, planes + j * 4, grid + j,
                          N, panelColumns(s, end, j),
                          panelWidth(s, end, j) / s.U, mode, fg.at(0, N, j),
                          colTerm ? colSum + j : nullptr, offsets + q0);
    }
    Tile::end();
  });
  // The grid's rows, less their dropped columns.
  if (Wq == OW)
    return;
  if (f.rowScale) {
    for (i64 m = 0; m < Mg; ++m)
      for (i64 oh = 0; oh < OH; ++oh)
        __builtin_memcpy(f.Q + (m * OH + oh) * OW, fg.Q + m * N + oh * Wq, OW);
    return;
  }
  for (i64 m = 0; m < Mg; ++m)
    for (i64 oh = 0; oh < OH; ++oh) {
      const u32 *src = grid + m * N + oh * Wq;
      u32 *dst = out + (m * OH + oh) * OW;
      for (i64 ow = 0; ow < OW; ++ow)
        dst[ow] = src[ow];
    }
}

/// The requantization terms of \p M rows: rowScale[m] = scale[m * scaleStride], rowOutZp[m]
/// = zp[m * zpStride] (int8 when \p outSigned) as float; strides 0 or 1.
EMBER_INLINE void requantTerms(i64 M, const float *scale, i64 scaleStride, const u8 *zp,
                               i64 zpStride, bool outSigned, float *rowScale, float *rowOutZp) {
  // Strides 0 and 1 apart: a loop of unknown stride became gathers, slower than the rest of
  // a small convolution's setup.
  for (i64 m = 0; m < M; ++m)
    rowScale[m] = scaleStride ? scale[m] : scale[0];
  for (i64 m = 0; m < M; ++m) {
    u8 z = zpStride ? zp[m] : zp[0];
    rowOutZp[m] = outSigned ? float(i8(z)) : float(z);
  }
}

/// IntegerConv, 2-D (parameters: QuantizedLayout.h, QConvParam; scratch: qconvScratchBytes),
/// and with p[kQcRequantize] the Requantize of its result by \p qScale and \p qZp (per tensor
/// or per output channel) to \p q instead, as its tiles finish (\p out is then only where
/// they keep the partial sums of k). \p wSums: each filter's sum of weights (as int8), or null
/// to sum them now (filterSums).
template <typename Tile>
EMBER_INLINE void integerConv2d(i32 *out, const u8 *in, const u8 *w, const i32 *bias,
                                const u8 *zx, const u8 *zw, const i64 *p, u8 *scratch,
                                parallel::Team *team, u8 *q, const float *qScale,
                                const u8 *qZp, const i32 *wSums) {
  i64 N = p[kQcN], C = p[kQcC], H = p[kQcH], W = p[kQcW], Cout = p[kQcCout], G = p[kQcGroup];
  i64 KH = p[kQcKH], KW = p[kQcKW], OH = p[kQcOH], OW = p[kQcOW], SH = p[kQcSH], SW = p[kQcSW];
  i64 PH = p[kQcPH], PW = p[kQcPW], DH = p[kQcDH], DW = p[kQcDW];
  u8 xFlip = p[kQcInputSigned] ? 0x80 : 0, wFlip = p[kQcFilterUnsigned] ? 0x80 : 0;
  i64 Cg = C / G, Mg = Cout / G, K = Cg * KH * KW, P = OH * OW;
  bool pointwise = qconvIsPointwise(H, W, OH, OW, KH, KW, SH, SW, PH, PW);
  i64 Hp = qconvPaddedExtent(OH, KH, SH, DH), Wp = qconvPaddedExtent(OW, KW, SW, DW);

  u8 zxq = zx[0] ^ xFlip;
  const u8 *zwg = zw;
  i64 zwStride = p[kQcFilterZpPerChannel] ? 1 : 0;
  bool colTerm = false;
  u8 *Ap = scratch;
  // The row terms (after A's panels): rowConst, rowZp, rowScale, rowOutZp, Cout each.
  bool flat = qconvIsFlat(p);
  u8 *rowMemory = Ap + (flat ? qgemmPackedABytes(G, Mg, 4 * KH * KW * ((Cg + 3) / 4))
                             : qgemmPackedABytes(G, Mg, K));
  u32 *rowConst = (u32 *)rowMemory, *rowZp = rowConst + Cout;
  float *rowScale = (float *)(rowZp + Cout), *rowOutZp = rowScale + Cout;
  i64 requant = p[kQcRequantize];
  bool outSigned = requant == kQcRequantizeInt8;
  if (requant)
    requantTerms(Cout, qScale, p[kQcOutScalePerChannel] ? 1 : 0, qZp,
                 p[kQcOutZpPerChannel] ? 1 : 0, outSigned, rowScale, rowOutZp);
  // Group g of image n: its rows' terms and results.
  auto finishOf = [&](i64 n, i64 g) {
    return Finish{rowConst + g * Mg,
                  rowZp + g * Mg,
                  requant ? rowScale + g * Mg : nullptr,
                  rowOutZp + g * Mg,
                  outSigned ? -128.f : 0.f,
                  outSigned ? 127.f : 255.f,
                  requant ? q + (n * Cout + g * Mg) * P : nullptr};
  };
  if (flat) {
    // A filter that is [Cout][taps][Cg] (int8, Cg a multiple of 4, one tap or permuted when
    // compiled) is read in place, as are panels of output channels (compiled for a tile over
    // pixels: codegen asks for them only of a row whose tile has one); another is packed every
    // call.
    i64 Kq = KH * KW * ((Cg + 3) / 4), groupA = (Mg + Tile::MR - 1) / Tile::MR * Kq * Tile::MR * 4;
    i64 layout = p[kQcFilterLayout];
    bool tapMajor = layout == kQcFilterTapMajor, panels = layout == kQcFilterCoutPanels;
    auto viewOf = [&](i64 g) {
      return tapMajor || panels ? inPlaceView(w + g * Mg * K, K)
                                : flatView<Tile>(Ap + g * groupA, Kq);
    };
    u8 *work = rowMemory + qgemmRowBytes(Cout);
    for (i64 g = 0; g < G; ++g) {
      if (!tapMajor && !panels)
        packAFlat<Tile::kRowMajorA ? 1 : Tile::MR>(w + g * Mg * K, Mg, Cg, KH * KW, wFlip,
                                                   Ap + g * groupA);
      filterSums(w + g * Mg * K, K, Mg, K, wFlip, wSums ? wSums + g * Mg : nullptr,
                 rowConst + g * Mg);
      colTerm |= rowTerms(Mg, K, zxq, Tile::kBShift, zwg + g * Mg * zwStride, zwStride, wFlip,
                          bias + g * Mg,
                          rowConst + g * Mg, rowZp + g * Mg);
    }
    QConvFlatBytes bytes = qconvFlatBytes(p);
    for (i64 n = 0; n < N; ++n)
      for (i64 g = 0; g < G; ++g)
        convFlat<Tile>(in + (n * C + g * Cg) * H * W, (u32 *)out + (n * Cout + g * Mg) * P,
                       viewOf(g), panels ? w + g * Mg * K : nullptr, finishOf(n, g), colTerm,
                       Cg, Mg, H, W, OH, OW, KH, KW, SH, PH, PW, DH, DW, xFlip, zxq, bytes, work,
                       team);
    return;
  }
  u8 *padded = rowMemory + qgemmRowBytes(Cout);
  u8 *parts = padded + (pointwise ? 0 : qconvPaddedBytes(Cg, OH, OW, KH, KW, SH, SW, DH, DW));

  // A tile that reads A's rows whole (AMX) reads them in steps of KQ quads: in place when K
  // is a multiple of that, else copied into rows padded with zeros.
  i64 rowBytes = (qgemmQuads(K) + Tile::KQ - 1) / Tile::KQ * Tile::KQ * 4;
  bool inPlace = readsAInPlace(wFlip, K) && (!Tile::kRowMajorA || rowBytes == K);
  i64 groupA = Tile::kRowMajorA ? Mg * rowBytes : packedABytes(Mg, K, Tile::MR);
  auto viewOf = [&](i64 g) {
    return inPlace            ? inPlaceView(w + g * Mg * K, K)
           : Tile::kRowMajorA ? inPlaceView(Ap + g * groupA, rowBytes)
                              : packedView<Tile::MR>(Ap + g * groupA, K);
  };
  for (i64 g = 0; g < G; ++g) {
    if (!inPlace && Tile::kRowMajorA)
      packARows(w + g * Mg * K, K, Mg, K, wFlip, rowBytes, Ap + g * groupA);
    else if (!inPlace)
      packA<Tile::MR>(w + g * Mg * K, K, Mg, K, wFlip, Ap + g * groupA);
    filterSums(w + g * Mg * K, K, Mg, K, wFlip, wSums ? wSums + g * Mg : nullptr,
               rowConst + g * Mg);
    colTerm |= rowTerms(Mg, K, zxq, Tile::kBShift, zwg + g * Mg * zwStride, zwStride, wFlip,
                        bias + g * Mg,
                        rowConst + g * Mg, rowZp + g * Mg);
  }
  for (i64 n = 0; n < N; ++n)
    for (i64 g = 0; g < G; ++g) {
      const u8 *x = in + (n * C + g * Cg) * H * W;
      BSource src{};
      if (pointwise) {
        src.dense = x;
        src.ld = H * W;
        src.flip = xFlip;
      } else if (KH == 1 && KW == 1 && PH == 0 && PW == 0) {
        subsample(x, Cg, H, W, OH, OW, SH, SW, xFlip, padded);
        src.dense = padded;
        src.ld = P;
      } else {
        // The zero-padded copy: every cell zx, then the input's cells a window reaches.
        for (i64 i = 0, e = Cg * Hp * Wp; i < e; ++i)
          padded[i] = zxq;
        i64 rows = minI(H, Hp - PH), cols = minI(W, Wp - PW);
        for (i64 c = 0; c < Cg; ++c)
          for (i64 ih = 0; ih < rows; ++ih) {
            const u8 *s = x + (c * H + ih) * W;
            copyFlipped(s, cols, xFlip, padded + (c * Hp + ih + PH) * Wp + PW);
          }
        src = BSource{nullptr, 0, 0, padded, Hp, Wp, OW, KH, KW, SH, SW, DH, DW};
      }
      gemm<Tile>(Mg, P, K, viewOf(g), src, (u32 *)out + (n * Cout + g * Mg) * P, P,
                 finishOf(n, g), colTerm, parts, team);
    }
}

} // namespace qgemm

#endif
