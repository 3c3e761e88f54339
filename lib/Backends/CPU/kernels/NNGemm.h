// The float32 GEMM core shared by MatMul/FullyConnected (NNGemm.cpp) and Conv (NNConv.cpp):
// C[M, N] = A[M, K] * B[K, N], then bias and activation, blocked as in BLIS/GotoBLAS.
//
// B (the activation side, or an im2col view of it) is packed block by block into panels of NR
// columns ([panel][k][NR], zero-padded at the right edge) by a caller-supplied packer, so the
// micro-kernel always runs full-width vectors and conv never materializes im2col. A (weights for
// conv; the left operand for MatMul) is read one broadcast per row and k, which x86 folds into
// the FMA's memory operand: in place (rows lda apart), or, for the filters the backend packed at
// compile time, from panels of MR rows (PackedPanels.h), one sequential stream per tile. Each
// MR x NR tile of C lives in registers across a block of KC values of k; blocks after the first
// add to what C holds, and the last applies bias and activation on the way out, so the epilogue
// never re-reads memory it has not just written.
//
// The register tile MR x NR is a template parameter: each row of Variants.def names the tile of
// its ISA (12 x 32 for AVX-512's 32 registers of 16 floats, 6 x 16 for AVX2's 16 of 8 or NEON's
// 32 of 4), and codegen calls the entry of the row the target CPU can run.
#ifndef EMBER_CPU_KERNELS_GEMM_H
#define EMBER_CPU_KERNELS_GEMM_H

#include "Activation.h"
#include "KernelCommon.h"
#include "Parallel.h"
#include "Scratch.h"

namespace gemm {

constexpr i64 KC = scratch::kGemmKC;
constexpr i64 NC = scratch::kGemmNC;
constexpr i64 MC = 144; // rows of A walked per packed panel (MC x KC floats in L2)

/// What the last block of k does to each element: bias (per row, per column or none), then the
/// fused activation.
struct Epilogue {
  const float *bias;
  i64 biasPerColumn; ///< 0: bias[row], 1: bias[column]
  Activation act;
};

/// Columns [0, cols) of the rows x NR sums in \p tile into C, as microKernel's full tiles do:
/// added to what C holds unless \p first; bias and the inline activation if \p last. A tile at
/// the right edge of C comes here rather than through partial loads and stores unrolled for every
/// vector of every row count: that doubled the tiles' code, and every float convolution or matmul
/// model compiles it (conv_basic: 3.1 -> 1.8 s, with sigmoid and tanh out of line).
[[maybe_unused]] static EMBER_NOINLINE void finishEdgeTile(const float *tile, i64 rows, i64 NR,
                                                          float *C, i64 ldc, i64 cols,
                                                          bool first, bool last,
                                                          const Epilogue &ep, i64 row0,
                                                          i64 col0) {
  for (i64 r = 0; r < rows; ++r)
    for (i64 col = 0; col < cols; col += EMBER_VW) {
      float *c = C + r * ldc + col;
      i64 n = minI(EMBER_VW, cols - col);
      Vec x = loadv(tile + r * NR + col);
      if (!first)
        x += loadPartial(c, n);
      if (last) {
        if (ep.bias)
          x += ep.biasPerColumn ? loadPartial(ep.bias + col0 + col, n) : splat(ep.bias[row0 + r]);
        x = applyInlineActivation(x, ep.act);
      }
      storePartial(c, x, n);
    }
}

/// One MR x (NV * 16) tile: C[0..MR, 0..cols) (+)= A[0..MR, 0..kb) * Bp (a packed panel). A's
/// element (r, k) is A[r * lda + k], or with PackedA A[k * MR + r] (a panel of MR rows).
///
/// With PackedA, \p nextA is where the next tile's rows of A are (or A itself), fetched into L2
/// a k at a time as this tile reads its own. The filters of a network's last stages (4.5 to 9.4
/// MB each in resnet50) come from memory on every run, in chunks of MR x KC floats 221 KB apart
/// that the hardware prefetchers, which stop at page boundaries, fetch late: resnet50's
/// convolutions with the caches flushed before each, 93.0 -> 87.0 ms (7x7 maps 77 -> 86 GFLOP/s).
///
/// Row k of B's tile columns is at Bp + bOff[k]: k * NR in a packed panel (gemmBlocked), or a
/// padded image's shifted plane when B is read in place (gemmFlatB).
template <int MR, int NV, bool PackedA>
EMBER_INLINE void microKernel(i64 kb, const float *A, i64 lda, const float *Bp, float *C, i64 ldc,
                              i64 cols, bool first, bool last, const Epilogue &ep, i64 row0,
                              i64 col0, const float *nextA, const i64 *bOff,
                              i64 prefetchLines = 0) {
  Vec acc[MR][NV];
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v)
      acc[r][v] = splat(0.f);
  for (i64 k = 0; k < kb; ++k) {
    if constexpr (PackedA)
      __builtin_prefetch(nextA + k * MR, 0, 2);
    else if (k < prefetchLines) // gemmPackedB: a share of the next panel's lines, one a k
      __builtin_prefetch(nextA + k * 16, 0, 2);
    const float *bRow = Bp + bOff[k];
    Vec b[NV];
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v)
      b[v] = loadv(bRow + v * EMBER_VW);
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r) {
      Vec a = splat(PackedA ? A[k * MR + r] : A[r * lda + k]);
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v)
        acc[r][v] = __builtin_elementwise_fma(a, b[v], acc[r][v]);
    }
  }
  if constexpr (!PackedA)
    for (i64 k = kb; k < prefetchLines; ++k) // a share longer than this tile's k
      __builtin_prefetch(nextA + k * 16, 0, 2);
  if (cols < NV * EMBER_VW) { // the right edge: finished through a buffer, see finishEdgeTile
    float tile[MR * NV * EMBER_VW];
#pragma clang loop unroll(full)
    for (int r = 0; r < MR; ++r)
#pragma clang loop unroll(full)
      for (int v = 0; v < NV; ++v)
        storev(tile + (r * NV + v) * EMBER_VW, acc[r][v]);
    return finishEdgeTile(tile, MR, NV * EMBER_VW, C, ldc, cols, first, last, ep, row0, col0);
  }
#pragma clang loop unroll(full)
  for (int r = 0; r < MR; ++r) {
    float *c = C + r * ldc;
#pragma clang loop unroll(full)
    for (int v = 0; v < NV; ++v) {
      Vec x = acc[r][v];
      if (!first)
        x += loadv(c + v * EMBER_VW);
      if (last) {
        if (ep.bias)
          x += ep.biasPerColumn ? loadv(ep.bias + col0 + v * EMBER_VW) : splat(ep.bias[row0 + r]);
        x = applyInlineActivation(x, ep.act); // gemmBlocked applies the out-of-line forms
      }
      storev(c + v * EMBER_VW, x);
    }
  }
}

/// microKernel<mr, NV, PackedA> for a run-time mr in [1, MR].
template <int MR, int NV, bool PackedA>
EMBER_INLINE void microKernelRows(i64 mr, i64 kb, const float *A, i64 lda, const float *Bp,
                                  float *C, i64 ldc, i64 cols, bool first, bool last,
                                  const Epilogue &ep, i64 row0, i64 col0, const float *nextA,
                                  const i64 *bOff, i64 prefetchLines) {
  if constexpr (MR > 1) {
    if (mr < MR)
      return microKernelRows<MR - 1, NV, PackedA>(mr, kb, A, lda, Bp, C, ldc, cols, first, last,
                                                  ep, row0, col0, nextA, bOff, prefetchLines);
  }
  microKernel<MR, NV, PackedA>(kb, A, lda, Bp, C, ldc, cols, first, last, ep, row0, col0, nextA,
                               bOff, prefetchLines);
}

/// One tile of mr <= MR rows: the micro-kernels of every row count, compiled once for both
/// drivers (gemmBlocked over packed B, gemmFlatB over B in place) and called per tile. Each is
/// fully unrolled with every activation's epilogue, so a second inlined copy doubled the
/// kernels' code and a model's compile time (mobilenet_v2: 7.7 -> 12.8 s).
template <int MR, int NV, bool PackedA>
EMBER_NOINLINE void tileKernel(i64 mr, i64 kb, const float *A, i64 lda, const float *Bp, float *C,
                               i64 ldc, i64 cols, bool first, bool last, const Epilogue &ep,
                               i64 row0, i64 col0, const float *nextA, const i64 *bOff,
                               i64 prefetchLines = 0) {
  microKernelRows<MR, NV, PackedA>(mr, kb, A, lda, Bp, C, ldc, cols, first, last, ep, row0, col0,
                                   nextA, bOff, prefetchLines);
}

/// Up to 8 of a panel's columns [c0, c0 + CB) for one full tile of MR rows of a packed A
/// (A[k * MR + r]), one vector over the rows per column: C[0..MR, c0..c0+CB) (+)= A * Bp.
///
/// For the last, narrow panel of a row: the full-width tile would spend a 32-column panel's
/// products on its few columns (a 7x7 map's 49 columns fill 64, a 14x14 map's 196 fill 224),
/// while this fills MR of each vector's 16 lanes whatever the columns. Each element still sums
/// its products in k order, as the tile does.
template <int MR, int CB>
EMBER_INLINE void columnKernel(i64 kb, const float *A, const float *Bp, i64 NR, i64 c0, float *C,
                               i64 ldc, bool first, bool last, const Epilogue &ep, i64 row0,
                               i64 col0) {
  static_assert(MR <= EMBER_VW, "a column's rows fit one vector");
  Vec acc[CB];
#pragma clang loop unroll(full)
  for (int c = 0; c < CB; ++c)
    acc[c] = splat(0.f);
  auto step = [&](i64 k, Vec a) {
#pragma clang loop unroll(full)
    for (int c = 0; c < CB; ++c)
      acc[c] = __builtin_elementwise_fma(a, splat(Bp[k * NR + c0 + c]), acc[c]);
  };
  // A whole vector from row 0 of k reads the next k's first rows; the last k reads only its own,
  // so that nothing past the panel is touched.
  i64 k = 0;
  for (; k + 1 < kb; ++k)
    step(k, loadv(A + k * MR));
  if (k < kb)
    step(k, loadPartial(A + k * MR, MR));
  float rows[EMBER_VW];
#pragma clang loop unroll(full)
  for (int c = 0; c < CB; ++c) {
    float *col = C + c0 + c;
    Vec x = acc[c];
    if (!first) {
      for (int r = 0; r < MR; ++r)
        rows[r] = col[r * ldc];
      x += loadPartial(rows, MR);
    }
    if (last) {
      if (ep.bias)
        x += ep.biasPerColumn ? splat(ep.bias[col0 + c0 + c]) : loadPartial(ep.bias + row0, MR);
      x = applyInlineActivation(x, ep.act); // gemmBlocked applies the out-of-line forms
    }
    storev(rows, x);
    for (int r = 0; r < MR; ++r)
      col[r * ldc] = rows[r];
  }
}

/// Columns [0, cols) of a panel for a full tile of packed A by columnKernel, 8 at a time.
template <int MR>
EMBER_INLINE void columnTail(i64 kb, const float *A, const float *Bp, i64 NR, i64 cols, float *C,
                             i64 ldc, bool first, bool last, const Epilogue &ep, i64 row0,
                             i64 col0) {
  i64 c0 = 0;
  for (; c0 + 8 <= cols; c0 += 8)
    columnKernel<MR, 8>(kb, A, Bp, NR, c0, C, ldc, first, last, ep, row0, col0);
  switch (cols - c0) {
#define EMBER_COLUMNS(n)                                                                           \
  case n:                                                                                          \
    return columnKernel<MR, n>(kb, A, Bp, NR, c0, C, ldc, first, last, ep, row0, col0);
    EMBER_COLUMNS(1)
    EMBER_COLUMNS(2)
    EMBER_COLUMNS(3)
    EMBER_COLUMNS(4)
    EMBER_COLUMNS(5)
    EMBER_COLUMNS(6)
    EMBER_COLUMNS(7)
#undef EMBER_COLUMNS
  default: return;
  }
}

/// Fills the packed block of B: pack(self, k0, kb, n0, nb, NR, buffer). Called once per block,
/// so the indirection costs nothing, and the GEMM driver is compiled once per register tile
/// rather than once per packer (compile time of every model's module).
struct PackFn {
  void (*fn)(const void *self, i64 k0, i64 kb, i64 n0, i64 nb, i64 NR, float *buf);
  const void *self;
};
template <typename P> PackFn packFn(const P &packer) {
  return PackFn{[](const void *self, i64 k0, i64 kb, i64 n0, i64 nb, i64 NR, float *buf) {
                  (*static_cast<const P *>(self))(k0, kb, n0, nb, NR, buf);
                },
                &packer};
}

/// Columns [nBegin, nEnd) of C = epilogue(A * B), with B supplied block by block by \p pack
/// into \p packBuffer (scratch::gemmPackFloats(K, N) floats; packers may write a vector past
/// the last panel). With PackedA, A is in MR-row panels (PackedPanels.h) and lda is unused.
template <int MR, int NV, bool PackedA>
EMBER_INLINE void gemmBlocked(i64 M, i64 nBegin, i64 nEnd, i64 K, const float *A, i64 lda,
                              float *C, i64 ldc, PackFn pack, const Epilogue &ep,
                              float *packBuffer) {
  constexpr i64 NR = NV * EMBER_VW;
  // Tiles start at multiples of MR, so every packed panel before a tile's is a full one.
  static_assert(MC % MR == 0, "blocks of A are whole panels");
  i64 panelRows[KC]; // where row k of a packed panel starts
  for (i64 k = 0; k < KC; ++k)
    panelRows[k] = k * NR;
  for (i64 n0 = nBegin; n0 < nEnd; n0 += NC) {
    i64 nb = minI(NC, nEnd - n0), panels = (nb + NR - 1) / NR;
    i64 k0 = 0;
    do { // at least once, so that K == 0 still writes bias and activation
      i64 kb = minI(KC, K - k0);
      bool first = k0 == 0, last = k0 + kb >= K;
      pack.fn(pack.self, k0, kb, n0, nb, NR, packBuffer);
      for (i64 m0 = 0; m0 < M; m0 += MC) {
        i64 mEnd = minI(M, m0 + MC);
        for (i64 p = 0; p < panels; ++p) {
          i64 cols = minI(NR, nb - p * NR);
          const float *panel = packBuffer + p * kb * NR;
          // A narrow last panel over packed A: by columns when they fill fewer of the tile's
          // lanes (cols of NR) than a column's rows fill of a vector (MR of 16).
          bool byColumns = PackedA && MR <= EMBER_VW && cols * EMBER_VW < MR * NR;
          for (i64 m = m0; m < mEnd; m += MR) {
            i64 mr = minI(MR, mEnd - m);
            float *tile = C + m * ldc + n0 + p * NR;
            const float *a = PackedA ? A + m * K + k0 * mr : A + m * lda + k0;
            // The next tile's chunk of a packed A (the same k, MR rows on), if it is a whole one.
            const float *nextA = PackedA && m + 2 * MR <= M ? a + MR * K : a;
            if (byColumns && mr == MR)
              columnTail<MR>(kb, a, panel, NR, cols, tile, ldc, first, last, ep, m, n0 + p * NR);
            else
              tileKernel<MR, NV, PackedA>(mr, kb, a, lda, panel, tile, ldc, cols, first, last,
                                          ep, m, n0 + p * NR, nextA, panelRows);
            if (last && isOutOfLine(ep.act.kind)) // the tile is still in L1
              for (i64 r = 0; r < mr; ++r)
                applyOutOfLineActivation(tile + r * ldc, cols, ep.act);
          }
        }
      }
      k0 += kb;
    } while (k0 < K);
  }
}

/// gemmBlocked for one register tile, never inlined: every caller of a tile (MatMul,
/// FullyConnected, three conv packers) shares one copy, which keeps the module of a model, and
/// so its compile time, small.
template <int MR, int NV, bool PackedA>
EMBER_NOINLINE void gemmTile(i64 M, i64 nBegin, i64 nEnd, i64 K, const float *A, i64 lda,
                             float *C, i64 ldc, PackFn pack, const Epilogue &ep,
                             float *packBuffer) {
  gemmBlocked<MR, NV, PackedA>(M, nBegin, nEnd, K, A, lda, C, ldc, pack, ep, packBuffer);
}

/// Splits C = A * B (M x N, depth K) over \p team (null: one thread) for a tile <MR, NV>:
/// body(part, mBegin, mEnd, nBegin, nEnd, epilogue, a) for each part's non-empty range, with the
/// part's epilogue (bias from row mBegin) and A from row mBegin (PackedA: A is in panels of MR
/// rows, PackedPanels.h; else row-major with rows \p lda apart).
///
/// A part takes whole panels of columns or whole tiles of rows, whichever costs its busiest part
/// less: its products (a narrow panel costs a whole one) and what it reads, all of the operand
/// it does not split (A for columns, B for rows) and its share of the other, each float read
/// weighing kReadWeight flops. The small maps of a network's last stages have few panels (7 x 7
/// = 49 columns: two, of 32 and 17) but hundreds of rows of weights: split by columns, each
/// thread read all of them, and resnet50's 7x7 layers ran 1.05-1.2x faster on 2 threads than
/// on 1 (onnxruntime's 2x).
template <int MR, int NV, bool PackedA, typename Body>
EMBER_INLINE void splitGemm(i64 M, i64 N, i64 K, const float *A, i64 lda, const Epilogue &ep,
                            parallel::Team *team, const Body &body) {
  static_assert(NV * EMBER_VW <= scratch::kMaxNR, "panels wider than Scratch.h sizes");
  constexpr i64 NR = NV * EMBER_VW;
  i64 columnUnits = (N + NR - 1) / NR, rowUnits = (M + MR - 1) / MR;
  i64 parts =
      maxI(1, minI(parallel::partsFor(team, 2 * M * N * K), maxI(columnUnits, rowUnits)));
  // The busiest part's share of the units, and its cost, compared across the two splits.
  auto busiest = [&](i64 units) { return (units + parts - 1) / parts; };
  constexpr i64 kReadWeight = 16;
  i64 rows = busiest(rowUnits) * MR, columns = busiest(columnUnits) * NR;
  i64 rowsCost = 2 * K * rows * columnUnits * NR + kReadWeight * (rows * K + K * N);
  i64 columnsCost = 2 * K * rowUnits * MR * columns + kReadWeight * (M * K + K * columns);
  bool byRows = rowsCost < columnsCost;
  parallel::forEachPart(team, parts, [&](i64 p) {
    i64 mBegin = 0, mEnd = M, nBegin = 0, nEnd = N;
    if (byRows)
      parallel::partRange(M, parts, MR, p, mBegin, mEnd);
    else
      parallel::partRange(N, parts, NR, p, nBegin, nEnd);
    if (mBegin >= mEnd || nBegin >= nEnd)
      return;
    Epilogue part = ep;
    if (ep.bias && !ep.biasPerColumn)
      part.bias += mBegin;
    // mBegin is a multiple of MR, so the packed panels from it on are the same panels.
    const float *a = PackedA ? A + mBegin * K : A + mBegin * lda;
    body(p, mBegin, mEnd, nBegin, nEnd, part, a);
  });
}

/// C = epilogue(A * B) on the shared driver for the tile <MR, NV> (Variants.def), split over
/// \p team by splitGemm, each part with its own packed block of B in \p scratch
/// (scratch::gemmScratchFloats(K, N, threads) floats).
template <int MR, int NV, bool PackedA>
EMBER_INLINE void runGemm(i64 M, i64 N, i64 K, const float *A, i64 lda, float *C, i64 ldc,
                          PackFn pack, const Epilogue &ep, float *scratch,
                          parallel::Team *team) {
  splitGemm<MR, NV, PackedA>(
      M, N, K, A, lda, ep, team,
      [&](i64 p, i64 mBegin, i64 mEnd, i64 nBegin, i64 nEnd, const Epilogue &part,
          const float *a) {
        float *packBuffer = scratch + p * scratch::gemmPackFloats(K, N);
        gemmTile<MR, NV, PackedA>(mEnd - mBegin, nBegin, nEnd, K, a, lda, C + mBegin * ldc, ldc,
                                  pack, part, packBuffer);
      });
}

/// Columns [nBegin, nEnd) of C = epilogue(A * B) with B a constant the backend packed at compile
/// time in panels of NR columns (PackedPanels.h, B's columns as the rows): a full panel's block
/// of k is read where it lies, so nothing of B is copied; only the narrow last panel of a matrix
/// whose N is not a multiple of NR (stored cols wide) is copied, zero-padded, into \p buf per
/// block of k. The loops are gemmBlocked's.
template <int MR, int NV>
EMBER_NOINLINE void gemmPackedB(i64 M, i64 nBegin, i64 nEnd, i64 K, const float *A, i64 lda,
                                const float *Bp, float *C, i64 ldc, const Epilogue &ep,
                                float *buf) {
  constexpr i64 NR = NV * EMBER_VW;
  static_assert(MC % MR == 0, "blocks of A are whole panels");
  i64 panelRows[KC];
  for (i64 k = 0; k < KC; ++k)
    panelRows[k] = k * NR;
  for (i64 n0 = nBegin; n0 < nEnd; n0 += NC) {
    i64 nb = minI(NC, nEnd - n0), panels = (nb + NR - 1) / NR;
    i64 k0 = 0;
    do { // at least once, so that K == 0 still writes bias and activation
      i64 kb = minI(KC, K - k0);
      bool first = k0 == 0, last = k0 + kb >= K;
      i64 narrow = nb - (panels - 1) * NR; // the last panel's columns
      if (narrow < NR) {
        const float *src = Bp + (n0 + (panels - 1) * NR) * K + k0 * narrow;
        for (i64 k = 0; k < kb; ++k)
          for (i64 c = 0; c < NR; ++c)
            buf[k * NR + c] = c < narrow ? src[k * narrow + c] : 0.f;
      }
      for (i64 m0 = 0; m0 < M; m0 += MC) {
        i64 mEnd = minI(M, m0 + MC);
        for (i64 p = 0; p < panels; ++p) {
          i64 col = n0 + p * NR, cols = minI(NR, nb - p * NR);
          const float *panel = cols == NR ? Bp + col * K + k0 * NR : buf;
          // The weights of a large layer come from memory, and the next panel's block lies
          // K * NR floats on (or in the next block of k, or columns), where the hardware
          // prefetchers do not look: each tile of this panel fetches its share of the next
          // one's lines into L2 (BERT-base's feed-forward layers, 9.4 MB each).
          const float *next = p + 1 < panels ? Bp + (col + NR) * K + k0 * NR
                              : k0 + kb < K  ? Bp + n0 * K + (k0 + kb) * NR
                                             : Bp + (n0 + NC) * K;
          i64 nextFloats = minI(kb * NR, K * nEnd - (next - Bp));
          i64 tiles = (mEnd - m0 + MR - 1) / MR, lines = nextFloats > 0 ? nextFloats / 16 : 0;
          for (i64 m = m0; m < mEnd; m += MR) {
            i64 mr = minI(MR, mEnd - m), t = (m - m0) / MR;
            i64 lineBegin = t * lines / tiles, lineEnd = (t + 1) * lines / tiles;
            float *tile = C + m * ldc + col;
            const float *a = A + m * lda + k0;
            // The tile issues its prefetches one a k, among its products: in a burst before
            // it, they stalled on the line fill buffers (7% of GPT-2's time, in the driver).
            tileKernel<MR, NV, false>(mr, kb, a, lda, panel, tile, ldc, cols, first, last, ep,
                                      m, col, next + lineBegin * 16, panelRows,
                                      lineEnd - lineBegin);
            if (last && isOutOfLine(ep.act.kind))
              for (i64 r = 0; r < mr; ++r)
                applyOutOfLineActivation(tile + r * ldc, cols, ep.act);
          }
        }
      }
      k0 += kb;
    } while (k0 < K);
  }
}

/// gemmPackedB split over \p team (null: one thread) by splitGemm, each part with its own
/// panel buffer in \p scratch (scratch::gemmScratchFloats(K, N, threads) floats).
template <int MR, int NV>
EMBER_INLINE void runGemmPackedB(i64 M, i64 N, i64 K, const float *A, i64 lda, const float *Bp,
                                 float *C, i64 ldc, const Epilogue &ep, float *scratch,
                                 parallel::Team *team) {
  splitGemm<MR, NV, false>(
      M, N, K, A, lda, ep, team,
      [&](i64 p, i64 mBegin, i64 mEnd, i64 nBegin, i64 nEnd, const Epilogue &part,
          const float *a) {
        gemmPackedB<MR, NV>(mEnd - mBegin, nBegin, nEnd, K, a, lda, Bp, C + mBegin * ldc, ldc,
                            part, scratch + p * scratch::gemmPackFloats(K, N));
      });
}

/// Columns [nBegin, nEnd) of C = epilogue(A * B) with B unpacked: row k of B is at B + bOff[k]
/// (a convolution's padded image shifted by the tap, NNConv.cpp). A row is read in whole
/// vectors, up to a panel past nEnd. Blocks of KC values of k outermost, so that the block's
/// rows of B (KC x NR floats for a panel) stay in L1 across the tiles of rows that share them.
template <int MR, int NV, bool PackedA>
EMBER_NOINLINE void gemmFlatB(i64 M, i64 nBegin, i64 nEnd, i64 K, const float *A, i64 lda,
                              const float *B, const i64 *bOff, float *C, i64 ldc,
                              const Epilogue &ep) {
  constexpr i64 NR = NV * EMBER_VW;
  i64 k0 = 0;
  do { // at least once, so that K == 0 still writes bias and activation
    i64 kb = minI(KC, K - k0);
    bool first = k0 == 0, last = k0 + kb >= K;
    for (i64 n = nBegin; n < nEnd; n += NR) {
      i64 cols = minI(NR, nEnd - n);
      for (i64 m = 0; m < M; m += MR) {
        i64 mr = minI(MR, M - m);
        float *tile = C + m * ldc + n;
        const float *a = PackedA ? A + m * K + k0 * mr : A + m * lda + k0;
        const float *nextA = PackedA && m + 2 * MR <= M ? a + MR * K : a;
        tileKernel<MR, NV, PackedA>(mr, kb, a, lda, B + n, tile, ldc, cols, first, last, ep, m,
                                    n, nextA, bOff + k0);
        if (last && isOutOfLine(ep.act.kind))
          for (i64 r = 0; r < mr; ++r)
            applyOutOfLineActivation(tile + r * ldc, cols, ep.act);
      }
    }
    k0 += kb;
  } while (k0 < K);
}

/// gemmFlatB split over \p team (null: one thread) by splitGemm.
template <int MR, int NV, bool PackedA>
EMBER_INLINE void runGemmFlatB(i64 M, i64 N, i64 K, const float *A, i64 lda, const float *B,
                               const i64 *bOff, float *C, i64 ldc, const Epilogue &ep,
                               parallel::Team *team) {
  splitGemm<MR, NV, PackedA>(
      M, N, K, A, lda, ep, team,
      [&](i64, i64 mBegin, i64 mEnd, i64 nBegin, i64 nEnd, const Epilogue &part,
          const float *a) {
        gemmFlatB<MR, NV, PackedA>(mEnd - mBegin, nBegin, nEnd, K, a, lda, B, bOff,
                                   C + mBegin * ldc, ldc, part);
      });
}

/// Rows [0, R) of C = epilogue(A * B) with B row-major [K, N] (row stride ldb) read in place:
/// blocks of four vectors of columns, each row of B loaded once for all R rows. B is walked in
/// passes of KB rows, each a block of columns after another, so that its rows are read as KB
/// sequential streams; C holds the sums between passes. A block of columns read down all K rows
/// touched a new page every row (a classifier's [1280, 1000]: rows of 4000 bytes), which the
/// prefetchers do not follow: 13 GB/s of weights, not the memory's 19. Each element still sums
/// its products in k order.
template <int R>
EMBER_INLINE void gemvRows(i64 N, i64 K, const float *A, i64 lda, const float *B, i64 ldb,
                           float *C, i64 ldc, const Epilogue &ep, i64 row0) {
  constexpr i64 NB = 4;  // vectors of columns per block
  constexpr i64 KB = 16; // rows of B per pass
  // Columns [col, col + n) of row r of C: the sums so far (none on the first pass), stored
  // back between passes, finished (bias and activation) after the last.
  auto sums = [&](bool first, i64 r, i64 col, i64 n) {
    if (first)
      return splat(0.f);
    return n == EMBER_VW ? loadv(C + r * ldc + col) : loadPartial(C + r * ldc + col, n);
  };
  auto keep = [&](Vec x, i64 r, i64 col, i64 n) {
    if (n == EMBER_VW)
      storev(C + r * ldc + col, x);
    else
      storePartial(C + r * ldc + col, x, n);
  };
  auto finish = [&](Vec x, i64 r, i64 col, i64 n) {
    if (ep.bias)
      x += !ep.biasPerColumn ? splat(ep.bias[row0 + r])
           : n == EMBER_VW   ? loadv(ep.bias + col)
                             : loadPartial(ep.bias + col, n);
    keep(applyInlineActivation(x, ep.act), r, col, n);
  };
  // The out-of-line forms, over columns [col, col + n) of every row just finished.
  auto finishOutOfLine = [&](i64 col, i64 n) {
    if (isOutOfLine(ep.act.kind))
      for (int r = 0; r < R; ++r)
        applyOutOfLineActivation(C + r * ldc + col, n, ep.act);
  };
  i64 k0 = 0;
  do { // at least once, so that K == 0 still writes bias and activation
    i64 k1 = minI(K, k0 + KB);
    bool first = k0 == 0, last = k1 >= K;
    i64 col = 0;
    for (; col + NB * EMBER_VW <= N; col += NB * EMBER_VW) {
      Vec acc[R][NB];
#pragma clang loop unroll(full)
      for (int r = 0; r < R; ++r)
#pragma clang loop unroll(full)
        for (int j = 0; j < NB; ++j)
          acc[r][j] = sums(first, r, col + j * EMBER_VW, EMBER_VW);
      for (i64 k = k0; k < k1; ++k) {
        Vec b[NB];
#pragma clang loop unroll(full)
        for (int j = 0; j < NB; ++j)
          b[j] = loadv(B + k * ldb + col + j * EMBER_VW);
#pragma clang loop unroll(full)
        for (int r = 0; r < R; ++r) {
          Vec a = splat(A[r * lda + k]);
#pragma clang loop unroll(full)
          for (int j = 0; j < NB; ++j)
            acc[r][j] = __builtin_elementwise_fma(a, b[j], acc[r][j]);
        }
      }
#pragma clang loop unroll(full)
      for (int r = 0; r < R; ++r)
#pragma clang loop unroll(full)
        for (int j = 0; j < NB; ++j) {
          if (last)
            finish(acc[r][j], r, col + j * EMBER_VW, EMBER_VW);
          else
            keep(acc[r][j], r, col + j * EMBER_VW, EMBER_VW);
        }
      if (last)
        finishOutOfLine(col, NB * EMBER_VW);
    }
    for (; col < N; col += EMBER_VW) { // the last columns, a vector at a time
      i64 n = minI(EMBER_VW, N - col);
      Vec acc[R];
#pragma clang loop unroll(full)
      for (int r = 0; r < R; ++r)
        acc[r] = sums(first, r, col, n);
      for (i64 k = k0; k < k1; ++k) {
        Vec b = n == EMBER_VW ? loadv(B + k * ldb + col) : loadPartial(B + k * ldb + col, n);
#pragma clang loop unroll(full)
        for (int r = 0; r < R; ++r)
          acc[r] = __builtin_elementwise_fma(splat(A[r * lda + k]), b, acc[r]);
      }
#pragma clang loop unroll(full)
      for (int r = 0; r < R; ++r) {
        if (last)
          finish(acc[r], r, col, n);
        else
          keep(acc[r], r, col, n);
      }
      if (last)
        finishOutOfLine(col, n);
    }
    k0 = k1;
  } while (k0 < K);
}

/// C = epilogue(A * B) for M <= scratch::kGemvRows rows, B row-major and unpacked, its columns
/// split over \p team (null: one thread).
EMBER_NOINLINE void gemv(i64 M, i64 N, i64 K, const float *A, i64 lda, const float *B, i64 ldb,
                         float *C, i64 ldc, const Epilogue &ep, parallel::Team *team);

/// The packer for a row-major B (row stride ldb): rows k0.. of columns n0.. into NR-wide panels.
struct DensePacker {
  const float *B;
  i64 ldb;
  void operator()(i64 k0, i64 kb, i64 n0, i64 nb, i64 NR, float *buf) const {
    for (i64 j = 0; j < nb; j += NR) {
      i64 cols = minI(NR, nb - j);
      float *dst = buf + (j / NR) * kb * NR;
      const float *src = B + k0 * ldb + n0 + j;
      if (cols == NR) {
        for (i64 k = 0; k < kb; ++k)
          for (i64 v = 0; v < NR; v += EMBER_VW)
            storev(dst + k * NR + v, loadv(src + k * ldb + v));
      } else {
        for (i64 k = 0; k < kb; ++k) {
          for (i64 c = 0; c < cols; ++c)
            dst[k * NR + c] = src[k * ldb + c];
          for (i64 c = cols; c < NR; ++c)
            dst[k * NR + c] = 0.f;
        }
      }
    }
  }
};

} // namespace gemm

#endif
