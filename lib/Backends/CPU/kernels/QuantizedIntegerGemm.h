// The int8 GEMM behind IntegerConv and IntegerMatMul (QuantizedIntegerGemm.cpp has the register
// tiles and the entry points), and IntegerMatMul on it: C[m][n] = sum_k (A[m][k] - za[m]) * (B[k][n] - zb), wrapped to
// 32 bits, with A int8 (the filter, or IntegerMatMul's LHS) and B uint8 (the im2col of the
// input, or the RHS), the layout of x86's vpdpbusd (uint8 x int8, four products summed into an
// int32 lane).
//
// Kinds: an int8 B and a uint8 A are flipped by their sign bit (x ^ 0x80 is x + 128 as uint8,
// w ^ 0x80 is w - 128 as int8), their zero points with them; differences, hence the result, do
// not change. Zero points: sum (b - zb)(a - za) = sum a*b - zb*sum_k a[m] - za[m]*sum_k b[n]
// + K*za[m]*zb, every term taken modulo 2^32 (unsigned arithmetic), which is exactly the
// Interpreter's wrapped sum. The register tiles sum plain products; the packers sum the rows of
// A and the columns of B; the last block of k adds the row terms (with the bias) and the column
// term. A convolution's padding holds zb (its input's zero point), as the operator defines.
//
// Blocking, as NNGemm.h (the operands' layouts: QuantizedGemmPacking.h): an int8 A of K a
// multiple of 4 is read in place, another packed once a call in panels of MR rows. B is packed
// block by block, kQGemmNC columns by kQGemmKCQ quads of k, in panels of up to NR columns, a
// panel staying in the cache while every tile of rows of A passes over it; a few columns past
// the last whole unit go down k instead (stripColumns), multiplied with A's rows in place as
// dot products. The sums of a block of k are added to C's partial ones (C is the int32 result),
// the last block finishing them, or, for a convolution requantized as it finishes (Finish),
// requantizing them to its 8-bit result. Threads split the columns, by whole panels.
// IntegerConv, on this GEMM: QuantizedIntegerConv.h.
#ifndef EMBER_CPU_KERNELS_QUANTIZEDINTEGERGEMM_H
#define EMBER_CPU_KERNELS_QUANTIZEDINTEGERGEMM_H

#include "Parallel.h"
#include "QuantizedGemmPacking.h"
#include "QuantizedIntegerGemv.h"
#include "QuantizedLayout.h"
#include "Types.h"

namespace qgemm {

using namespace quantlayout;

/// What a register tile does with its sums.
enum TileMode : i64 {
  kTileLoad = 1,   ///< add the partial sums C holds (a block of k after the first)
  kTileFinish = 2, ///< add the row and column terms (the last block of k)
};

/// What the last block of k adds to the rows of C, and where the finished rows go: C's int32
/// sums, or (a convolution requantized as it finishes, rowScale not null) their Requantize to
/// Q, an 8-bit matrix indexed as C, exactly as kernels/Quantized.cpp requantizes.
struct Finish {
  const u32 *rowConst;   ///< per row: bias - zb * sum_k a + K * za * zb
  const u32 *rowZp;      ///< per row: za
  const float *rowScale; ///< per row: the requantization's scale; null: no requantization
  const float *rowOutZp; ///< per row: the result's zero point
  float lo, hi;          ///< the result kind's range
  u8 *Q;                 ///< the 8-bit result at C's row 0, column 0

  /// The terms of rows from \p m and the results from (m, \p col), C's rows \p ldc apart.
  Finish at(i64 m, i64 ldc, i64 col) const {
    return Finish{rowConst + m,
                  rowZp + m,
                  rowScale ? rowScale + m : nullptr,
                  rowScale ? rowOutZp + m : nullptr,
                  lo,
                  hi,
                  rowScale ? Q + m * ldc + col : nullptr};
  }
};

/// One register tile's work: rows [0, mr) and columns [0, ncols) of C, over kq quads of k.
struct TileArgs {
  i64 kq;
  /// The tile's first row of A at the block's first quad; row r's quad q at A + r * aRow +
  /// q * aQuad (AView). Rows past mr are not read.
  const u8 *A;
  i64 aRow, aQuad;
  const u8 *aNext; ///< the next tile's A (past the last one: not read, only prefetched)
  const u8 *B;     ///< the panel of B ([quad][width][4])
  u32 *C;
  i64 ldc, mr, ncols, mode;
  Finish f;          ///< the tile's rows' terms, its results' place
  const u32 *colSum; ///< per column: sum_k b; null when every za is 0
  /// Where each quad of the block reads B, from t.B ([width][4] bytes there); null when B is a
  /// packed panel (quad after quad).
  const i64 *bOffsets;
};

/// A part of a flat convolution's work for a tile over pixels (Tile::pixels, where
/// Tile::kPixelTile; the filter in panels of output channels, QuantizedLayout.h): output pixels
/// [begin, end) of one image and group, against all its filters. The tile's rows are pixels,
/// each reading its quads of k from the planes as the grid's column does (pixel (oh, ow) is
/// grid column oh * Wq + ow), its vectors output channels; its products are the same as the
/// row tiles', transposed.
struct PixelArgs {
  const u8 *planes;   ///< the flat planes; quad q of grid column j at planes + offsets[q] + 4 * j
  const i64 *offsets;
  i64 kq;             ///< quads of k (all of k: the sums stay in registers)
  const u8 *filter;   ///< the group's panels
  i64 Mg, OW, Wq, P;  ///< filters, the result's width, the grid's, the result's pixels
  i64 begin, end;     ///< the part's pixels
  Finish f;           ///< the group's rows' terms; requantized: f.Q the 8-bit result [Mg][P]
  u32 *out;           ///< else the int32 result [Mg][P]
  const u32 *colSum;  ///< per grid column, its sum of B; null when every za is 0
};

/// Requantize's rule (kernels/Quantized.cpp, the Interpreter's): float(sum) * scale rounded
/// half to even, plus the zero point, saturated (NaN to lo), as the result's byte.
EMBER_INLINE u8 requantized(u32 sum, float scale, float zp, float lo, float hi) {
  float q = __builtin_roundevenf(float(i32(sum)) * scale) + zp;
  q = q >= lo ? q : lo;
  q = q > hi ? hi : q;
  return u8(i32(q));
}

/// requantized for the L lanes of \p x (u32 lanes), to \p dst; \p scale and \p zp a float
/// for every lane, or one each (S: a vector of L floats).
template <int L, typename V, typename S>
EMBER_INLINE void storeRequantized(V x, S scale, S zp, float lo, float hi, u8 *dst) {
  typedef float FV __attribute__((ext_vector_type(L)));
  typedef i32 IV __attribute__((ext_vector_type(L)));
  typedef u8 BV __attribute__((ext_vector_type(L)));
  static_assert(sizeof(V) == sizeof(IV), "L lanes of 32 bits");
  IV xi;
  __builtin_memcpy(&xi, &x, sizeof xi);
  FV q = roundAndSaturateLanes<FV>(__builtin_convertvector(xi, FV) * scale, zp, lo, hi);
  BV b = __builtin_convertvector(__builtin_convertvector(q, IV), BV);
  __builtin_memcpy(dst, &b, L);
}

/// Rows [0, t.mr) of a tile's sums \p acc, \p n columns a row, to C (or Q) as \p t says.
template <int MR, int W>
EMBER_INLINE void finishRows(const u32 (&acc)[MR][W], const TileArgs &t, i64 n) {
  for (i64 r = 0; r < t.mr; ++r) {
    u32 *c = t.C + r * t.ldc;
    u32 sums[W];
    for (i64 j = 0; j < W; ++j)
      sums[j] = acc[r][j];
    if (t.mode & kTileLoad)
      for (i64 j = 0; j < n; ++j)
        sums[j] += c[j];
    if (t.mode & kTileFinish) {
      u32 rc = t.f.rowConst[r], rz = t.f.rowZp[r];
      if (t.colSum)
        for (i64 j = 0; j < n; ++j)
          sums[j] += rc - rz * t.colSum[j];
      else
        for (i64 j = 0; j < n; ++j)
          sums[j] += rc;
      if (t.f.rowScale) {
        u8 *q = t.f.Q + r * t.ldc;
        for (i64 j = 0; j < n; ++j)
          q[j] = requantized(sums[j], t.f.rowScale[r], t.f.rowOutZp[r], t.f.lo, t.f.hi);
        continue;
      }
    }
    for (i64 j = 0; j < n; ++j)
      c[j] = sums[j];
  }
}

/// Writes a tile's sums \p acc (W columns a row) to C as \p t says; a whole tile's loops have
/// constant trip counts, so they become vector code.
template <int MR, int W> EMBER_INLINE void finishTile(const u32 (&acc)[MR][W], const TileArgs &t) {
  if (t.ncols == W)
    finishRows<MR, W>(acc, t, W);
  else
    finishRows<MR, W>(acc, t, t.ncols);
}

/// finishTile for sums held in vectors \p acc of L lanes (V: a vector of L u32), NV a row: whole
/// vectors as vectors, the last partial one lane by lane.
template <int L, typename V, int MR, int NV>
EMBER_INLINE void finishVectors(const V (&acc)[MR][NV], const TileArgs &t) {
  bool requantize = (t.mode & kTileFinish) && t.f.rowScale;
  if (t.mode == kTileFinish && requantize && !t.colSum && t.ncols >= NV * L) {
    // The common case, a requantized tile of whole vectors in one block of k with no column
    // terms, in straight-line code: the loop below spent three times the instructions of the
    // sums themselves on a K = 16 tile (mobilenet's expansions) testing the mode and the
    // bounds for every vector, and kept the sums on the stack to index them.
    const Finish f = t.f;
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r) {
      if (r >= t.mr)
        break;
      u8 *q = f.Q + r * t.ldc;
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v)
        storeRequantized<L>(acc[r][v] + f.rowConst[r], f.rowScale[r], f.rowOutZp[r], f.lo, f.hi,
                            q + v * L);
    }
    return;
  }
  for (i64 r = 0; r < t.mr; ++r) {
    u32 *c = t.C + r * t.ldc;
    u32 rc = t.f.rowConst[r], rz = t.f.rowZp[r];
    float scale = requantize ? t.f.rowScale[r] : 0.f, zp = requantize ? t.f.rowOutZp[r] : 0.f;
    u8 *q = requantize ? t.f.Q + r * t.ldc : nullptr;
    for (int v = 0; v < NV; ++v) {
      i64 j0 = v * L;
      if (j0 >= t.ncols)
        break;
      V x = acc[r][v];
      if (j0 + L <= t.ncols) {
        if (t.mode & kTileLoad) {
          V y;
          __builtin_memcpy(&y, c + j0, sizeof y);
          x += y;
        }
        if (t.mode & kTileFinish) {
          x += rc;
          if (t.colSum) {
            V cs;
            __builtin_memcpy(&cs, t.colSum + j0, sizeof cs);
            x -= rz * cs;
          }
        }
        if (requantize)
          storeRequantized<L>(x, scale, zp, t.f.lo, t.f.hi, q + j0);
        else
          __builtin_memcpy(c + j0, &x, sizeof x);
        continue;
      }
      u32 lanes[L];
      __builtin_memcpy(lanes, &x, sizeof x);
      for (i64 j = j0; j < t.ncols; ++j) {
        u32 y = lanes[j - j0];
        if (t.mode & kTileLoad)
          y += c[j];
        if (t.mode & kTileFinish)
          y += rc - (t.colSum ? rz * t.colSum[j] : 0u);
        if (requantize)
          q[j] = requantized(y, scale, zp, t.f.lo, t.f.hi);
        else
          c[j] = y;
      }
    }
  }
}

/// The TileArgs of the tile of rows [m, m + Tile::MR) of A's rows [0, M), over quads
/// [q0, q0 + kq) of k; the other arguments as in TileArgs.
template <typename Tile>
EMBER_INLINE TileArgs rowTileArgs(i64 M, i64 m, i64 q0, i64 kq, const AView &A, const u8 *B,
                                  u32 *C, i64 ldc, i64 ncols, i64 mode, const Finish &f,
                                  const u32 *colSum, const i64 *bOffsets) {
  return TileArgs{kq, A.base + m * A.mStride + q0 * A.quadStride, A.rowStride, A.quadStride,
                  A.base + (m + Tile::MR) * A.mStride + q0 * A.quadStride, B, C + m * ldc, ldc,
                  minI(Tile::MR, M - m), ncols, mode, f.at(m, ldc, 0), colSum, bOffsets};
}

/// The tiles of rows [0, M) of A over one panel of B (\p ncols columns, \p nv units of them) for
/// quads [q0, q0 + kq) of k; the other arguments as in TileArgs.
template <typename Tile>
EMBER_INLINE void runRowTiles(i64 M, i64 q0, i64 kq, const AView &A, const u8 *B, u32 *C,
                              i64 ldc, i64 ncols, i64 nv, i64 mode, const Finish &f,
                              const u32 *colSum, const i64 *bOffsets) {
  for (i64 m = 0; m < M; m += Tile::MR)
    Tile::run(nv, rowTileArgs<Tile>(M, m, q0, kq, A, B, C, ldc, ncols, mode, f, colSum,
                                    bOffsets));
}

/// Calls f(Flag<true>()) when \p t reads B in place (bOffsets), else f(Flag<false>()): a tile's
/// two instantiations.
template <bool B> struct Flag {
  static constexpr bool value = B;
};
template <typename F> EMBER_INLINE void byLayout(const TileArgs &t, F f) {
  if (t.bOffsets)
    f(Flag<true>());
  else
    f(Flag<false>());
}

/// Of a block of \p nb columns, how many past its last whole unit a tile type multiplies as
/// dot products down k (Tile::strip) rather than in a tile of one unit mostly empty: the rest
/// of a unit when at most Tile::kStripCols, A read in place (a row's quads one after another)
/// and no AMX tile; else 0. A 7 x 7 map's 49 columns were four units of 16 (3 + 1, or 2 + 2):
/// now three and one strip column, whose dot products cost a sixteenth of a unit's each.
template <typename Tile> EMBER_INLINE i64 stripColumns(const AView &A, i64 nb) {
  i64 rest = nb % Tile::U;
  bool rowsInPlace = A.quadStride == 4 && A.rowStride == A.mStride;
  return Tile::kStripCols > 0 && rowsInPlace && rest <= Tile::kStripCols ? rest : 0;
}

/// The strips of \p ncols columns (at \p strip, qgemmStripBytes apart) against rows [0, M)
/// of A for quads [q0, q0 + kq) of k; the other arguments as in runRowTiles.
template <typename Tile>
EMBER_INLINE void runRowStrips(i64 M, i64 q0, i64 kq, const AView &A, const u8 *strip, u32 *C,
                               i64 ldc, i64 ncols, i64 mode, const Finish &f,
                               const u32 *colSum) {
  for (i64 m = 0; m < M; m += Tile::MR)
    Tile::strip(rowTileArgs<Tile>(M, m, q0, kq, A, strip, C, ldc, ncols, mode, f, colSum,
                                  nullptr));
}

/// C (M x N, row stride ldc) = the product of A (packed) and B (from \p src), K deep, with the
/// row terms of \p f (which may requantize C to f.Q); Tile::run(nv, args) computes one tile
/// with nv units of columns. \p parts points at the parts' working memory (qgemmPartBytes
/// each).
template <typename Tile>
EMBER_INLINE void gemm(i64 M, i64 N, i64 K, const AView &A, const BSource &src, u32 *C, i64 ldc,
                       const Finish &f, bool colTerm, u8 *partsMemory, parallel::Team *team) {
  const TileShape s{Tile::MR, Tile::NR, Tile::U};
  // Blocks of k as even as kQGemmKCQ allows.
  i64 Kq = qgemmQuads(K), blocks = (Kq + kQGemmKCQ - 1) / kQGemmKCQ,
      kc = (Kq + blocks - 1) / blocks;
  kc = (kc + Tile::KQ - 1) / Tile::KQ * Tile::KQ; // whole steps of the tile's k
  // A tile of many steps of k (AMX's) takes all of k in one block when B's panels fit a part's
  // block of B (few columns: a 7x7 map's): its sums never leave the tile registers between
  // blocks, and each tile is one call, not one a block.
  if (Tile::KQ > 1 && Kq * ((N + s.NR - 1) / s.NR * s.NR) <= kQGemmKCQ * kQGemmNC)
    kc = (Kq + Tile::KQ - 1) / Tile::KQ * Tile::KQ;
  i64 parts = minI(parallel::partsFor(team, 2 * M * N * K), (N + s.NR - 1) / s.NR);
  parallel::forEachPart(team, parts, [&](i64 part) {
    Tile::begin();
    i64 begin, end;
    parallel::partRange(N, parts, s.NR, part, begin, end);
    u8 *Bp = partsMemory + part * qgemmPartBytes();
    u8 *rows = Bp + roundUp64(kQGemmKCQ * 4 * kQGemmNC + kQGemmSlack);
    u8 *sums = rows + roundUp64(4 * kQGemmNC + kQGemmSlack);
    u32 *colSum = colTerm ? (u32 *)sums : nullptr;
    u8 *strip = sums + roundUp64(4 * kQGemmNC + kQGemmSlack);
    for (i64 n0 = begin; n0 < end; n0 += kQGemmNC) {
      i64 nb = minI(kQGemmNC, end - n0), whole = nb - stripColumns<Tile>(A, nb);
      if (colSum)
        for (i64 j = 0; j < nb; ++j)
          colSum[j] = 0;
      for (i64 q0 = 0; q0 < Kq; q0 += kc) {
        i64 kq = minI(kc, Kq - q0);
        packB(src, s, K, q0, kq, n0, nb, whole, Bp, strip, rows, colSum);
        i64 mode = (q0 > 0 ? kTileLoad : 0) | (q0 + kq == Kq ? kTileFinish : 0);
        for (i64 j = 0; j < whole; j += panelColumns(s, whole, j))
          runRowTiles<Tile>(M, q0, kq, A, Bp + j * kq * 4, C + n0 + j, ldc,
                            panelColumns(s, whole, j), panelWidth(s, whole, j) / s.U, mode,
                            f.at(0, ldc, n0 + j), colSum ? colSum + j : nullptr, nullptr);
        if (whole < nb)
          runRowStrips<Tile>(M, q0, kq, A, strip, C + n0 + whole, ldc, nb - whole, mode,
                             f.at(0, ldc, n0 + whole), colSum ? colSum + whole : nullptr);
      }
    }
    Tile::end();
  });
}

/// The row terms of A's rows [0, M): rowConst[m] = bias[m] - (zb - bShift) * rowSum[m] +
/// K * za[m] * zb (rowConst holds rowSum on entry), rowZp[m] = za[m] (zaStride 0 or 1);
/// whether any za is nonzero. bShift is the tile's Tile::kBShift: a tile that multiplies B's
/// bytes less 128 (sum a * (b - 128)) misses 128 * rowSum, added here.
EMBER_INLINE bool rowTerms(i64 M, i64 K, u32 zb, u32 bShift, const u8 *za, i64 zaStride,
                           u8 aFlip, const i32 *bias, u32 *rowConst, u32 *rowZp) {
  bool any = false;
  for (i64 m = 0; m < M; ++m) {
    u32 zam = u32(i32(i8(za[zaStride ? m : 0] ^ aFlip))); // not a gather (requantTerms)
    rowZp[m] = zam;
    any |= zam != 0;
    rowConst[m] = (bias ? u32(bias[m]) : 0u) - (zb - bShift) * rowConst[m] + u32(K) * zam * zb;
  }
  return any;
}

/// IntegerMatMul (parameters: QMatMulParam; result b is LHS[aOffsets[b]] x RHS[bOffsets[b]];
/// scratch: qgemmScratchBytes(1, M, K, threads)).
template <typename Tile>
EMBER_INLINE void integerMatMul(i32 *out, const u8 *a, const u8 *b, const u8 *za, const u8 *zb,
                                const i64 *p, const i64 *aOffsets, const i64 *bOffsets,
                                u8 *scratch, parallel::Team *team) {
  i64 M = p[kQmM], N = p[kQmN], K = p[kQmK], batches = p[kQmBatches];
  u8 aFlip = p[kQmLhsUnsigned] ? 0x80 : 0, bFlip = p[kQmRhsSigned] ? 0x80 : 0;
  if (M <= kQGemvMaxRows) {
    i64 parts = minI(parallel::partsFor(team, 2 * M * N * K), (N + 63) / 64);
    for (i64 bi = 0; bi < batches; ++bi)
      parallel::forEachPart(team, parts, [&](i64 part) {
        i64 begin, end;
        parallel::partRange(N, parts, 64, part, begin, end);
        qgemv::gemvColumns(M, N, K, a + aOffsets[bi], aFlip, za, p[kQmLhsZpPerRow] ? 1 : 0,
                    b + bOffsets[bi], bFlip, zb[0], (u32 *)out + bi * M * N, begin, end);
      });
    return;
  }
  u8 *Ap = scratch;
  u32 *rowConst = (u32 *)(Ap + qgemmPackedABytes(1, M, K)), *rowZp = rowConst + M;
  u8 *parts = (u8 *)rowConst + qgemmRowBytes(M);
  u8 zbq = zb[0] ^ bFlip;
  bool colTerm = false;
  bool inPlace = readsAInPlace(aFlip, K);
  for (i64 bi = 0; bi < batches; ++bi) {
    if (bi == 0 || aOffsets[bi] != aOffsets[bi - 1]) {
      if (!inPlace)
        packA<Tile::MR>(a + aOffsets[bi], K, M, K, aFlip, Ap);
      rowSums(a + aOffsets[bi], K, M, K, aFlip, rowConst);
      colTerm = rowTerms(M, K, zbq, Tile::kBShift, za, p[kQmLhsZpPerRow] ? 1 : 0, aFlip, nullptr,
                         rowConst,
                         rowZp);
    }
    BSource src{};
    src.dense = b + bOffsets[bi];
    src.ld = N;
    src.flip = bFlip;
    gemm<Tile>(M, N, K,
               inPlace ? inPlaceView(a + aOffsets[bi], K) : packedView<Tile::MR>(Ap, K), src,
               (u32 *)out + bi * M * N, N,
               Finish{rowConst, rowZp, nullptr, nullptr, 0.f, 0.f, nullptr}, colTerm, parts, team);
  }
}

} // namespace qgemm

#endif
