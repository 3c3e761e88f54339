// The int8 GEMM's operands as its register tiles read them (QuantizedIntegerGemm.h drives the
// tiles): A, the filter or IntegerMatMul's LHS, read in place when an int8 matrix of K a
// multiple of 4 (AView), else packed once a call in panels of MR rows, k in quads
// ([panel][quad][MR rows][4 k] bytes, zero past K and past the last row); B, the im2col of a
// convolution's input or IntegerMatMul's RHS, packed block by block into panels of up to NR
// columns ([panel][quad][columns][4 k] bytes, a panel's columns rounded up to the tile's unit),
// the few columns past a block's last whole unit written down k as strip columns instead; and
// the sums of A's rows and of B's columns that the zero points' terms need.
#ifndef EMBER_CPU_KERNELS_QUANTIZEDGEMMPACKING_H
#define EMBER_CPU_KERNELS_QUANTIZEDGEMMPACKING_H

#include "KernelCommon.h"
#include "QuantizedLayout.h"
#include "Types.h"

namespace qgemm {

using namespace quantlayout;

typedef u8 U8x8 __attribute__((ext_vector_type(8)));
typedef u8 U8x16 __attribute__((ext_vector_type(16)));
typedef u8 U8x32 __attribute__((ext_vector_type(32)));
typedef u16 U16x8 __attribute__((ext_vector_type(8)));
typedef u16 U16x16 __attribute__((ext_vector_type(16)));
typedef i32 I32x16 __attribute__((ext_vector_type(16)));
typedef u32 U32x16 __attribute__((ext_vector_type(16)));

/// Where B's rows come from, k by k: a dense matrix (IntegerMatMul's RHS, a pointwise
/// convolution's input) or the im2col of a zero-padded copy of a convolution's input.
struct BSource {
  const u8 *dense; ///< row k at dense + k * ld; null for im2col
  i64 ld;
  u8 flip; ///< xor'ed into dense bytes (0x80 for int8)
  const u8 *padded; ///< [Cg][Hp][Wp], already flipped
  i64 Hp, Wp, OW, KH, KW, SH, SW, DH, DW;
};

/// \p n bytes from \p src, each xor \p flip, to \p dst, reading and writing nothing outside them
/// (a dense B or a convolution's input is the caller's tensor, with no slack after it). Whole
/// vectors, the last one overlapping the one before: resnet50's last convolutions have rows of
/// 7, 14 and 49 bytes, which a byte loop copied at one a cycle.
EMBER_INLINE void copyFlipped(const u8 *src, i64 n, u8 flip, u8 *dst) {
  auto copy = [&](auto v, i64 j) {
    __builtin_memcpy(&v, src + j, sizeof v);
    v ^= flip;
    __builtin_memcpy(dst + j, &v, sizeof v);
  };
  if (n >= 16) {
    for (i64 j = 0; j + 16 <= n; j += 16)
      copy(U8x16{}, j);
    if (n % 16)
      copy(U8x16{}, n - 16);
  } else if (n >= 8) {
    copy(U8x8{}, 0);
    copy(U8x8{}, n - 8);
  } else {
    for (i64 j = 0; j < n; ++j)
      dst[j] = src[j] ^ flip;
  }
}

/// Sets \p n bytes at \p d to \p v (none when \p n <= 0): up to 64 as two overlapping
/// stores, more by memset. The loops this replaces, over a row's few bytes of padding or past
/// its last column, each became a call of memset: about 35,000 an int8 resnet50 inference.
EMBER_INLINE void fillBytes(u8 *d, i64 n, u8 v) {
  auto two = [&](auto z) {
    __builtin_memcpy(d, &z, sizeof z);
    __builtin_memcpy(d + n - i64(sizeof z), &z, sizeof z);
  };
  if (n > 64)
    __builtin_memset(d, v, static_cast<__SIZE_TYPE__>(n));
  else if (n >= 32)
    two(U8x32(v));
  else if (n >= 16)
    two(U8x16(v));
  else if (n >= 8)
    two(U8x8(v));
  else if (n >= 4)
    two(u32(v) * 0x01010101u);
  else if (n >= 2)
    two(u16(v * 0x0101u));
  else if (n == 1)
    d[0] = v;
}

/// The even bytes of the 32 from \p src on: 16 columns taken every second one.
EMBER_INLINE U8x16 evenBytes16(const u8 *src) {
  U8x16 a, b;
  __builtin_memcpy(&a, src, 16);
  __builtin_memcpy(&b, src + 16, 16);
  return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
}

/// One output row's segment of an im2col row: \p len <= 16 bytes of a padded input row (every
/// \p SW-th from \p src; SW 1 or 2) to \p dst as one vector, over-reading and over-writing as
/// fillRow allows.
template <int SW> EMBER_INLINE void copySegment16(const u8 *src, u8 *dst) {
  U8x16 v;
  if constexpr (SW == 1)
    __builtin_memcpy(&v, src, 16);
  else
    v = evenBytes16(src);
  __builtin_memcpy(dst, &v, 16);
}

/// Every \p SH-th row and \p SW-th column, OH x OW of them, of \p C planes of H x W bytes (each
/// xor \p flip) into dense planes at \p dst: the input a strided 1x1 convolution without
/// padding reads, which B then takes as a pointwise one's (its padded copy and strided im2col
/// rows moved four times the bytes). Reads nothing past a row.
EMBER_INLINE void subsample(const u8 *x, i64 C, i64 H, i64 W, i64 OH, i64 OW, i64 SH, i64 SW,
                            u8 flip, u8 *dst) {
  for (i64 c = 0; c < C; ++c)
    for (i64 oh = 0; oh < OH; ++oh) {
      const u8 *s = x + (c * H + oh * SH) * W;
      u8 *d = dst + (c * OH + oh) * OW;
      if (SW == 1) {
        copyFlipped(s, OW, flip, d);
        continue;
      }
      i64 ow = 0;
      for (; SW == 2 && 2 * ow + 32 <= W && ow + 16 <= OW; ow += 16) {
        U8x16 v = evenBytes16(s + 2 * ow) ^ flip;
        __builtin_memcpy(d + ow, &v, 16);
      }
      for (; ow < OW; ++ow)
        d[ow] = s[ow * SW] ^ flip;
    }
}

/// fillRow for output rows of at most 16 columns taken every \p SW-th: one segment a row.
template <int SW>
EMBER_INLINE void fillShortRows(const BSource &s, const u8 *base, i64 oh0, i64 ow0, i64 n,
                                u8 *row) {
  i64 step = s.SH * s.Wp;
  copySegment16<SW>(base + oh0 * step + ow0 * SW, row); // the first may start mid-row
  const u8 *src = base + (oh0 + 1) * step;
  for (i64 j = s.OW - ow0; j < n; j += s.OW, src += step)
    copySegment16<SW>(src, row + j);
}

/// A row of B, n columns from output position (oh0, ow0) of \p base, into \p row: \p base is
/// the dense row's first column, or the plane of the padded input that an im2col row reads (at
/// its kernel offset). An im2col row is copied in whole vectors of 16 bytes: up to 15 bytes past
/// a segment are read (the padded copy has slack after it) and written (the next segment
/// overwrites them; \p row has slack after it).
///
/// Output rows of at most 16 columns (the 14x14 and 7x7 maps of a network's last stages) are one
/// vector each, stepped along without the general loop's per-segment bounds and stride cases,
/// which cost more than the copy: about a tenth of int8 resnet50 went to those segments.
EMBER_INLINE void fillRow(const BSource &s, const u8 *base, i64 oh0, i64 ow0, i64 n, u8 *row) {
  if (s.dense) {
    copyFlipped(base, n, s.flip, row);
    return;
  }
  if (s.OW <= 16 && s.SW == 1)
    return fillShortRows<1>(s, base, oh0, ow0, n, row);
  if (s.OW <= 16 && s.SW == 2)
    return fillShortRows<2>(s, base, oh0, ow0, n, row);
  i64 oh = oh0, ow = ow0;
  for (i64 j = 0; j < n; ow = 0, ++oh) {
    i64 len = minI(n - j, s.OW - ow);
    const u8 *src = base + oh * s.SH * s.Wp + ow * s.SW;
    u8 *dst = row + j;
    if (s.SW == 1) {
      for (i64 i = 0; i < len; i += 16)
        copySegment16<1>(src + i, dst + i);
    } else if (s.SW == 2) {
      for (i64 i = 0; i < len; i += 16)
        copySegment16<2>(src + 2 * i, dst + i);
    } else {
      for (i64 i = 0; i < len; ++i)
        dst[i] = src[i * s.SW];
    }
    j += len;
  }
}

/// Interleaves four rows of \p w columns, each byte xor \p flip, into [w][4] bytes at \p dst
/// (reading no byte past a row's w): 16 columns a step (64 bytes out; 8 a step took a fifth
/// of int8 resnet50's time outside the tiles), a row's last columns as one more step ending at
/// its end (overlapping the one before: short rows, a 14 x 14 map's, are most of the work on
/// the last layers), one at a time below 8.
EMBER_INLINE void interleave4(const u8 *r0, const u8 *r1, const u8 *r2, const u8 *r3, i64 w,
                              u8 flip, u8 *dst) {
  // Row r's bytes from column j on, one vector of v's type, each xor flip.
  auto load = [&](auto v, const u8 *r, i64 j) {
    __builtin_memcpy(&v, r + j, sizeof v);
    return v ^ flip;
  };
  auto step16 = [&](i64 j) {
    U8x16 a = load(U8x16{}, r0, j), b = load(U8x16{}, r1, j), c = load(U8x16{}, r2, j),
          d = load(U8x16{}, r3, j);
    // Pairs of rows 0-1 and 2-3, a u16 a column, then the pairs' u16s in turn.
    U16x8 ab0 = __builtin_bit_cast(U16x8, __builtin_shufflevector(a, b, 0, 16, 1, 17, 2, 18, 3,
                                                                   19, 4, 20, 5, 21, 6, 22, 7, 23)),
          ab1 = __builtin_bit_cast(U16x8, __builtin_shufflevector(a, b, 8, 24, 9, 25, 10, 26, 11,
                                                                   27, 12, 28, 13, 29, 14, 30, 15,
                                                                   31)),
          cd0 = __builtin_bit_cast(U16x8, __builtin_shufflevector(c, d, 0, 16, 1, 17, 2, 18, 3,
                                                                   19, 4, 20, 5, 21, 6, 22, 7, 23)),
          cd1 = __builtin_bit_cast(U16x8, __builtin_shufflevector(c, d, 8, 24, 9, 25, 10, 26, 11,
                                                                   27, 12, 28, 13, 29, 14, 30, 15,
                                                                   31));
    U16x16 lo = __builtin_shufflevector(ab0, cd0, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14,
                                        7, 15),
           hi = __builtin_shufflevector(ab1, cd1, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14,
                                        7, 15);
    __builtin_memcpy(dst + 4 * j, &lo, 32);
    __builtin_memcpy(dst + 4 * j + 32, &hi, 32);
  };
  auto step8 = [&](i64 j) {
    U8x8 a = load(U8x8{}, r0, j), b = load(U8x8{}, r1, j), c = load(U8x8{}, r2, j),
         d = load(U8x8{}, r3, j);
    U8x16 ab = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    U8x16 cd = __builtin_shufflevector(c, d, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    U16x8 ab2 = __builtin_bit_cast(U16x8, ab), cd2 = __builtin_bit_cast(U16x8, cd);
    U16x16 abcd =
        __builtin_shufflevector(ab2, cd2, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    __builtin_memcpy(dst + 4 * j, &abcd, 32);
  };
  if (w >= 16) {
    for (i64 j = 0; j + 16 <= w; j += 16)
      step16(j);
    if (w % 16)
      step16(w - 16);
    return;
  }
  if (w >= 8) {
    step8(0);
    step8(w - 8);
    return;
  }
  for (i64 j = 0; j < w; ++j) {
    dst[4 * j] = r0[j] ^ flip;
    dst[4 * j + 1] = r1[j] ^ flip;
    dst[4 * j + 2] = r2[j] ^ flip;
    dst[4 * j + 3] = r3[j] ^ flip;
  }
}

/// A variant's register tile: MR rows; panels of B up to NR columns, in units of U columns. (A
/// tile type also says KQ: blocks of k are whole multiples of KQ quads, for the AMX tile 16;
/// kRowMajorA: a flat convolution's filter is packed row after row, not in panels; kStripCols
/// and strip(args): how many columns past a block's last unit it multiplies as dot products
/// down k (stripColumns), and how; and begin() and end(), called by each part around its
/// tiles: the AMX tile's configuration.)
struct TileShape {
  i64 MR, NR, U;
};

/// Where the tiles read A, quad q (four k) of row m being 4 bytes at base + (m - m % MR) *
/// mStride + (m % MR) * rowStride + q * quadStride: packed panels of MR rows (packA: mStride
/// Kq * 4, rowStride 4, quadStride MR * 4) or an int8 matrix of K a multiple of 4 read in place
/// (mStride = rowStride = K, quadStride 4), which saves repacking the filter every call.
struct AView {
  const u8 *base;
  i64 mStride, rowStride, quadStride;
};
template <int MR> EMBER_INLINE AView packedView(const u8 *Ap, i64 K) {
  return AView{Ap, qgemmQuads(K) * 4, 4, MR * 4};
}
EMBER_INLINE AView inPlaceView(const u8 *a, i64 K) { return AView{a, K, K, 4}; }

/// Whether an int8 matrix (after its flip \p flip) of \p K columns is read in place.
EMBER_INLINE bool readsAInPlace(u8 flip, i64 K) { return flip == 0 && K % 4 == 0; }

/// The columns of the panel of B starting at column \p j of a block of \p nb: NR, the rest for
/// the last panel; but when what would be left after a panel of NR fills only one unit, and a
/// tile holds three units or more, the last two panels share their units evenly (VNNI's 3 + 1
/// vectors become 2 + 2: a tile of one vector loads a weight for every product it sums, and
/// ran the tails of resnet50's 7 x 7 and 14 x 14 maps at half speed). Every panel but the last
/// is whole units, so panel j's packed bytes start at j * kq * 4.
EMBER_INLINE i64 panelColumns(const TileShape &s, i64 nb, i64 j) {
  i64 rest = nb - j;
  if (rest <= s.NR)
    return rest;
  if (s.NR >= 3 * s.U && rest - s.NR <= s.U)
    return (rest + s.U - 1) / s.U / 2 * s.U;
  return s.NR;
}
/// panelColumns rounded up to the unit: the columns the panel's tile computes.
EMBER_INLINE i64 panelWidth(const TileShape &s, i64 nb, i64 j) {
  i64 cols = panelColumns(s, nb, j);
  return (cols + s.U - 1) / s.U * s.U;
}

/// Packs quads [q0, q0 + kq) of k (K real rows) and columns [n0, n0 + nb) of B: the first
/// \p whole of them into panels at \p Bp, each of the rest down k at \p strip (its k,
/// qgemmStripBytes apart, zero past 4 * kq); adds each column's sum of B to \p colSum (when not
/// null). \p rows holds four rows of kQGemmNC bytes.
EMBER_INLINE void packB(const BSource &src, const TileShape &s, i64 K, i64 q0, i64 kq, i64 n0,
                        i64 nb, i64 whole, u8 *Bp, u8 *strip, u8 *rows, u32 *colSum) {
  i64 padded = (nb + s.U - 1) / s.U * s.U;
  // Row k's kernel offset (c, kh, kw) and the first column's output position, stepped along
  // rather than divided out row by row.
  i64 taps = src.KH * src.KW, k0 = 4 * q0;
  i64 c = 0, kh = 0, kw = 0, oh0 = 0, ow0 = 0;
  if (!src.dense) {
    c = k0 / taps;
    kh = k0 % taps / src.KW;
    kw = k0 % src.KW;
    oh0 = n0 / src.OW;
    ow0 = n0 % src.OW;
  }
  for (i64 q = q0; q < q0 + kq; ++q) {
    // A dense B's four rows of a quad are read where they are (flipped as they are
    // interleaved), not copied to \p rows first: that copy was a second pass over B.
    bool direct = src.dense && 4 * q + 3 < K;
    const u8 *r[4];
    for (i64 t = 0; t < 4; ++t) {
      u8 *row = rows + t * kQGemmNC;
      i64 k = 4 * q + t;
      r[t] = direct ? src.dense + k * src.ld + n0 : row;
      if (direct)
        continue;
      if (k >= K) {
        fillBytes(row, nb, 0);
      } else if (src.dense) {
        fillRow(src, src.dense + k * src.ld + n0, 0, 0, nb, row);
      } else {
        fillRow(src, src.padded + (c * src.Hp + kh * src.DH) * src.Wp + kw * src.DW, oh0, ow0, nb,
                row);
        if (++kw == src.KW) {
          kw = 0;
          if (++kh == src.KH) {
            kh = 0;
            ++c;
          }
        }
      }
      fillBytes(row + nb, padded - nb, 0);
    }
    u8 flip = direct ? src.flip : 0;
    if (colSum)
      for (i64 j = 0; j < nb; ++j)
        colSum[j] += u32(u8(r[0][j] ^ flip)) + u8(r[1][j] ^ flip) + u8(r[2][j] ^ flip) +
                     u8(r[3][j] ^ flip);
    for (i64 j = 0; j < whole; j += panelColumns(s, whole, j)) {
      i64 w = panelWidth(s, whole, j);
      u8 *dst = Bp + j * kq * 4 + (q - q0) * w * 4;
      if (!direct || j + w <= nb) {
        interleave4(r[0] + j, r[1] + j, r[2] + j, r[3] + j, w, flip, dst);
        continue;
      }
      // A panel past the block's last column: its rows copied, zero past it (reading B no
      // further than its last column).
      for (i64 t = 0; t < 4; ++t) {
        u8 *row = rows + t * kQGemmNC;
        copyFlipped(r[t] + j, nb - j, flip, row + j);
        fillBytes(row + nb, j + w - nb, 0);
      }
      interleave4(rows + j, rows + kQGemmNC + j, rows + 2 * kQGemmNC + j,
                  rows + 3 * kQGemmNC + j, w, 0, dst);
    }
    for (i64 j = whole; j < nb; ++j)
      for (i64 t = 0; t < 4; ++t)
        strip[(j - whole) * qgemmStripBytes() + 4 * (q - q0) + t] = r[t][j] ^ flip;
  }
  for (i64 j = whole; j < nb; ++j)
    fillBytes(strip + (j - whole) * qgemmStripBytes() + 4 * kq, qgemmStripBytes() - 4 * kq, 0);
}

/// rowSum[m] = the sum of row m of A (at a + m * lda, K bytes, each xor \p flip) as int8.
EMBER_INLINE void rowSums(const u8 *a, i64 lda, i64 M, i64 K, u8 flip, u32 *rowSum) {
  typedef i8 I8x16 __attribute__((ext_vector_type(16)));
  for (i64 m = 0; m < M; ++m) {
    const u8 *row = a + m * lda;
    U32x16 acc = (U32x16)0;
    i64 k = 0;
    for (; k + 16 <= K; k += 16) {
      U8x16 v;
      __builtin_memcpy(&v, row + k, 16);
      I32x16 wide = __builtin_convertvector(__builtin_bit_cast(I8x16, U8x16(v ^ flip)), I32x16);
      acc += __builtin_bit_cast(U32x16, wide);
    }
    u32 sum = __builtin_reduce_add(acc);
    for (; k < K; ++k)
      sum += u32(i32(i8(row[k] ^ flip)));
    rowSum[m] = sum;
  }
}

/// The sums of A's rows [0, M) (rowSums' arguments): \p given, summed when the filter was
/// compiled (a constant's), or summed now when null.
EMBER_INLINE void filterSums(const u8 *a, i64 lda, i64 M, i64 K, u8 flip, const i32 *given,
                             u32 *rowSum) {
  if (!given) {
    rowSums(a, lda, M, K, flip, rowSum);
    return;
  }
  for (i64 m = 0; m < M; ++m)
    rowSum[m] = u32(given[m]);
}

/// Packs rows [0, M) of A (row m at a + m * lda, K bytes, each xor \p flip) into panels of MR
/// rows at \p Ap.
template <int MR> EMBER_INLINE void packA(const u8 *a, i64 lda, i64 M, i64 K, u8 flip, u8 *Ap) {
  i64 Kq = qgemmQuads(K), whole = K / 4;
  u32 flip4 = u32(flip) * 0x01010101u;
  for (i64 m0 = 0; m0 < M; m0 += MR) {
    u32 *dst = (u32 *)(Ap + m0 * Kq * 4);
    const u8 *rows[MR];
    for (int r = 0; r < MR; ++r)
      rows[r] = a + minI(m0 + r, M - 1) * lda;
    i64 mr = minI(MR, M - m0);
    if (mr == MR)
      for (i64 q = 0; q < whole; ++q)
        for (int r = 0; r < MR; ++r) {
          u32 v;
          __builtin_memcpy(&v, rows[r] + 4 * q, 4);
          dst[q * MR + r] = v ^ flip4;
        }
    else
      for (i64 q = 0; q < whole; ++q)
        for (int r = 0; r < MR; ++r) {
          u32 v;
          __builtin_memcpy(&v, rows[r] + 4 * q, 4);
          dst[q * MR + r] = r < mr ? v ^ flip4 : 0;
        }
    for (i64 q = whole; q < Kq; ++q)
      for (int r = 0; r < MR; ++r) {
        u8 v[4] = {0, 0, 0, 0};
        for (i64 k = 4 * q; k < K && r < mr; ++k)
          v[k - 4 * q] = rows[r][k] ^ flip;
        __builtin_memcpy(dst + q * MR + r, v, 4);
      }
  }
}

/// Copies rows [0, M) of A (row m at a + m * lda, K bytes, each xor \p flip) row after row,
/// \p rowBytes apart, zero past K: for a tile that reads A's rows whole (kRowMajorA) in steps
/// of more k than K holds, the steps past K multiplying zeros.
EMBER_INLINE void packARows(const u8 *a, i64 lda, i64 M, i64 K, u8 flip, i64 rowBytes, u8 *Ap) {
  for (i64 m = 0; m < M; ++m) {
    const u8 *src = a + m * lda;
    u8 *dst = Ap + m * rowBytes;
    for (i64 k = 0; k < K; ++k)
      dst[k] = src[k] ^ flip;
    fillBytes(dst + K, rowBytes - K, 0);
  }
}

/// Bytes of A's packed panels of \p M rows.
EMBER_INLINE i64 packedABytes(i64 M, i64 K, i64 MR) {
  return (M + MR - 1) / MR * qgemmQuads(K) * MR * 4;
}

/// Packs a flat convolution's filter rows [0, M) (row m at w + m * Cg * taps, [Cg][taps]) into
/// panels of MR rows, k taken as (tap, four channels), channels past Cg 0.
template <int MR>
EMBER_INLINE void packAFlat(const u8 *w, i64 M, i64 Cg, i64 taps, u8 flip, u8 *Ap) {
  i64 C4 = (Cg + 3) / 4, Kq = taps * C4, K = Cg * taps;
  for (i64 m0 = 0; m0 < M; m0 += MR) {
    u8 *dst = Ap + m0 * Kq * 4;
    for (i64 tap = 0; tap < taps; ++tap)
      for (i64 c4 = 0; c4 < C4; ++c4, dst += MR * 4)
        for (int r = 0; r < MR; ++r)
          for (i64 t = 0; t < 4; ++t) {
            i64 c = 4 * c4 + t;
            dst[4 * r + t] = m0 + r < M && c < Cg ? w[(m0 + r) * K + c * taps + tap] ^ flip : 0;
          }
  }
}

} // namespace qgemm

#endif
