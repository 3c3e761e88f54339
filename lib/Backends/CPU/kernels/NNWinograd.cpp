// Winograd F(m x m, 3x3) convolutions on float32, NCHW, m = 4 or 2: the 3x3 convolutions of
// stride and dilation 1 that scratch::winogradTile picks. Each m x m tile of the output comes
// from the (m + 2) x (m + 2) tile of the input under it: V = B^T d B per input channel, M = sum
// over channels of U (.) V (U the filter's transformed tile, WinogradTransforms.h, made at
// compile time), and the output tile A^T M A. The sum over channels, for each of the
// (m + 2)^2 points of a tile, is a matrix product [K][C] x [C][tiles]: (m + 2)^2 GEMMs of
// (m + 2)^2 / 9m^2 the multiplies of the direct convolution's one.
//
// An image is done in blocks of whole rows of tiles (scratch::winogradBlockRows), each in three
// steps: the input tiles transformed into V [points][C][cols], the products into M
// [points][K][cols] (the GEMM reads V in place, gemmFlatB), and the output tiles, with bias and
// activation. A team splits the filters, or each step (convWinograd). The transforms run on rows
// of tiles, one row of tiles at a time, 16 tiles a vector.
#include "ConvShape.h"
#include "NNGemm.h"
#include "Variants.h"

using namespace gemm;

namespace {

typedef float Vec8 __attribute__((ext_vector_type(8)));
typedef float Vec32 __attribute__((ext_vector_type(32)));
static_assert(EMBER_VW == 16, "the shuffles below are written for 16 lanes");

/// Lanes J, J + 4, ..., J + 60 of the 64 floats from \p p: element J of 16 consecutive 4-wide
/// steps (a tile row's 6x6 tiles start 4 columns apart).
template <int J> EMBER_INLINE Vec everyFourth(const float *p) {
  Vec a = loadv(p), b = loadv(p + 16), c = loadv(p + 32), d = loadv(p + 48);
  Vec8 lo = __builtin_shufflevector(a, b, J, J + 4, J + 8, J + 12, J + 16, J + 20, J + 24, J + 28);
  Vec8 hi = __builtin_shufflevector(c, d, J, J + 4, J + 8, J + 12, J + 16, J + 20, J + 24, J + 28);
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

/// Lanes J, J + 2, ..., J + 30 of the 32 floats from \p p (4x4 tiles start 2 columns apart).
template <int J> EMBER_INLINE Vec everyOther(const float *p) {
  Vec a = loadv(p), b = loadv(p + 16);
  return __builtin_shufflevector(a, b, J, J + 2, J + 4, J + 6, J + 8, J + 10, J + 12, J + 14,
                                 J + 16, J + 18, J + 20, J + 22, J + 24, J + 26, J + 28, J + 30);
}

/// Stores the first n lanes of v (all of them from 16 on), lane by lane at the edge: storePartial
/// copies through memcpy, a call per tile row's edge.
EMBER_INLINE void storeLanes(float *p, Vec v, i64 n) {
  if (n >= EMBER_VW) {
    storev(p, v);
    return;
  }
#pragma clang loop unroll(full)
  for (int j = 0; j < EMBER_VW; ++j)
    if (j < n)
      p[j] = v[j];
}

/// The transforms of F(m x m, 3x3) on 16 tiles a lane each: a tile's row (or column) of N = m + 2
/// input values to N sums (B^T x), N products to m outputs (A^T x); the N input values of 16
/// tiles of a row from \p p; and the m outputs of 16 tiles written as consecutive columns (the
/// first n of them).
template <int m> struct Tiles;

/// F(4x4, 3x3) on the points 0, 1, -1, 2, -1/2 (WinogradTransforms.h).
template <> struct Tiles<4> {
  static constexpr int N = 6;
  __attribute__((always_inline)) static void inputSums(const Vec *d, Vec *t) {
    t[0] = d[0] + 1.5f * (d[1] - d[3]) - 2.f * d[2] + d[4];
    t[1] = d[4] - d[1] - 2.5f * d[2] - 0.5f * d[3];
    t[2] = d[1] + 0.5f * d[2] - 2.5f * d[3] + d[4];
    t[3] = 0.5f * (d[3] - d[1]) - d[2] + d[4];
    t[4] = 2.f * (d[1] - d[3]) - d[2] + d[4];
    t[5] = d[1] + 1.5f * (d[2] - d[4]) - 2.f * d[3] + d[5];
  }
  __attribute__((always_inline)) static void outputSums(const Vec *x, Vec *y) {
    Vec a = x[1] + x[2], b = x[1] - x[2];
    y[0] = x[0] + a + x[3] + x[4];
    y[1] = b + 2.f * x[3] - 0.5f * x[4];
    y[2] = a + 4.f * x[3] + 0.25f * x[4];
    y[3] = b + 8.f * x[3] - 0.125f * x[4] + x[5];
  }
  __attribute__((always_inline)) static void gather(const float *p, Vec *d) {
    d[0] = everyFourth<0>(p), d[1] = everyFourth<1>(p), d[2] = everyFourth<2>(p);
    d[3] = everyFourth<3>(p), d[4] = everyFourth<0>(p + 4), d[5] = everyFourth<1>(p + 4);
  }
  __attribute__((always_inline)) static void scatter(float *p, const Vec *y, i64 n) {
    Vec32 a = __builtin_shufflevector(y[0], y[1], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22,
                                      7, 23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30,
                                      15, 31);
    Vec32 b = __builtin_shufflevector(y[2], y[3], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22,
                                      7, 23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30,
                                      15, 31);
    Vec q0 = __builtin_shufflevector(a, b, 0, 1, 32, 33, 2, 3, 34, 35, 4, 5, 36, 37, 6, 7, 38, 39);
    Vec q1 = __builtin_shufflevector(a, b, 8, 9, 40, 41, 10, 11, 42, 43, 12, 13, 44, 45, 14, 15,
                                     46, 47);
    Vec q2 = __builtin_shufflevector(a, b, 16, 17, 48, 49, 18, 19, 50, 51, 20, 21, 52, 53, 22, 23,
                                     54, 55);
    Vec q3 = __builtin_shufflevector(a, b, 24, 25, 56, 57, 26, 27, 58, 59, 28, 29, 60, 61, 30, 31,
                                     62, 63);
    storeLanes(p, q0, n);
    storeLanes(p + 16, q1, n - 16);
    storeLanes(p + 32, q2, n - 32);
    storeLanes(p + 48, q3, n - 48);
  }
};

/// F(2x2, 3x3) on the points 0, 1, -1 (Lavin and Gray).
template <> struct Tiles<2> {
  static constexpr int N = 4;
  __attribute__((always_inline)) static void inputSums(const Vec *d, Vec *t) {
    t[0] = d[0] - d[2];
    t[1] = d[1] + d[2];
    t[2] = d[2] - d[1];
    t[3] = d[1] - d[3];
  }
  __attribute__((always_inline)) static void outputSums(const Vec *x, Vec *y) {
    y[0] = x[0] + x[1] + x[2];
    y[1] = x[1] - x[2] - x[3];
  }
  __attribute__((always_inline)) static void gather(const float *p, Vec *d) {
    d[0] = everyOther<0>(p), d[1] = everyOther<1>(p);
    d[2] = everyOther<0>(p + 2), d[3] = everyOther<1>(p + 2);
  }
  __attribute__((always_inline)) static void scatter(float *p, const Vec *y, i64 n) {
    Vec lo = __builtin_shufflevector(y[0], y[1], 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22,
                                     7, 23);
    Vec hi = __builtin_shufflevector(y[0], y[1], 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14,
                                     30, 15, 31);
    storeLanes(p, lo, n);
    storeLanes(p + 16, hi, n - 16);
  }
};

/// The input transform of channel \p c's tiles in tile row \p ty (tx < TW): the row's tiles of
/// the padded rows (rows Wp apart, read up to 68 floats past a row's last tile) to V's rows of
/// this channel (ldv floats apart), from column \p t0, in whole vectors: up to 15 columns past
/// the row's tiles, which the next row of tiles overwrites (or, after a block's last, the
/// caller; V's rows have room for them). sums: N * N rows of TWv = roundUp16(TW) floats.
template <int m>
EMBER_INLINE void transformInputRow(const float *plane, i64 Wp, i64 ty, i64 TW, float *sums,
                                    float *V, i64 C, i64 ldv, i64 c, i64 t0) {
  using T = Tiles<m>;
  constexpr int N = T::N;
  const i64 TWv = scratch::roundUp16(TW);
  // Along each of the tiles' rows: t[i][nu] = (B^T d_i)[nu].
  for (i64 i = 0; i < N; ++i) {
    const float *src = plane + (m * ty + i) * Wp;
    for (i64 tx = 0; tx < TW; tx += EMBER_VW) {
      Vec d[N], t[N];
      T::gather(src + m * tx, d);
      T::inputSums(d, t);
      for (i64 nu = 0; nu < N; ++nu)
        storev(sums + (i * N + nu) * TWv + tx, t[nu]);
    }
  }
  // Down each column: V[mu][nu] = (B^T t[.][nu])[mu].
  for (i64 nu = 0; nu < N; ++nu)
    for (i64 tx = 0; tx < TW; tx += EMBER_VW) {
      Vec d[N], v[N];
      for (i64 i = 0; i < N; ++i)
        d[i] = loadv(sums + (i * N + nu) * TWv + tx);
      T::inputSums(d, v);
      for (i64 mu = 0; mu < N; ++mu)
        storev(V + ((mu * N + nu) * C + c) * ldv + t0 + tx, v[mu]);
    }
}

/// The output transform of filter \p k's tiles in tile row \p ty: the row's products from
/// column \p t0 of M to the m x m tiles of output plane \p dst (OH x OW), plus \p bias, then the
/// activation. sums: m * N rows of TWv floats.
template <int m>
EMBER_INLINE void transformOutputRow(const float *M, i64 K, i64 cols, i64 k, i64 t0, i64 ty,
                                     i64 TW, float *sums, float *dst, i64 OH, i64 OW, float bias,
                                     Activation act) {
  using T = Tiles<m>;
  constexpr int N = T::N;
  const i64 TWv = scratch::roundUp16(TW);
  const i64 point = N * K * cols; // from (mu, nu) to (mu + 1, nu)
  // Down each column: s[r][nu] = (A^T m[.][nu])[r]. (The last vector may read up to 15 floats
  // past the block's columns: into the next row of M, or the scratch after it.)
  for (i64 nu = 0; nu < N; ++nu)
    for (i64 tx = 0; tx < TW; tx += EMBER_VW) {
      const float *p = M + (nu * K + k) * cols + t0 + tx;
      Vec x[N], s[m];
      for (i64 mu = 0; mu < N; ++mu)
        x[mu] = loadv(p + mu * point);
      T::outputSums(x, s);
      for (i64 r = 0; r < m; ++r)
        storev(sums + (r * N + nu) * TWv + tx, s[r]);
    }
  // Along each row: y[r][col] = (A^T s[r][.])[col], written to output row m ty + r.
  for (i64 r = 0; r < m && m * ty + r < OH; ++r) {
    float *row = dst + (m * ty + r) * OW;
    const float *q = sums + r * N * TWv;
    for (i64 tx = 0; tx < TW; tx += EMBER_VW) {
      Vec x[N], y[m];
      for (i64 nu = 0; nu < N; ++nu)
        x[nu] = loadv(q + nu * TWv + tx);
      T::outputSums(x, y);
      for (i64 col = 0; col < m; ++col)
        y[col] = applyInlineActivation(y[col] + bias, act);
      T::scatter(row + m * tx, y, OW - m * tx);
    }
    applyOutOfLineActivation(row, OW, act);
  }
}

/// Where a call's working memory is (scratch::winogradScratchFloats), and its geometry.
struct WinogradScratch {
  i64 TH, TW, Wp, blockRows, cols, ldv, rowFloats, vFloats, padFloats;
  /// pads: a part's padded input rows, padFloats apart; V: a part's transformed input, vFloats
  /// apart; sums: a part's, rowFloats apart.
  float *pads, *V, *M, *sums;
  i64 *bOff;
};

/// The working memory of a call with \p inputs transformed inputs (one per part when split by
/// filters) and \p parts parts.
template <int m>
EMBER_INLINE WinogradScratch winogradScratch(const ConvShape &s, float *mem, i64 inputs,
                                             i64 parts) {
  using namespace scratch;
  WinogradScratch w;
  const i64 C = s.C, K = s.K;
  w.TH = winogradTiles(s.OH, m);
  w.TW = winogradTiles(s.OW, m);
  w.Wp = winogradPaddedCols(s.OW, m);
  w.blockRows = minOf(winogradBlockRows(C, K, s.OW, m), w.TH);
  w.cols = winogradBlockColumns(C, K, s.OH, s.OW, m);
  w.ldv = winogradInputRowFloats(C, K, s.OH, s.OW, m);
  w.rowFloats = winogradRowFloats(s.OW, m);
  w.vFloats = winogradPoints(m) * C * w.ldv;
  w.padFloats = winogradPadFloats(s.OW, m);
  w.pads = mem;
  // What the transform reads past a tile row's padded rows: zeros, not whatever scratch held
  // (denormals there would cost the unused lanes microcode).
  for (i64 p = 0; p < parts; ++p)
    for (i64 i = (m + 2) * w.Wp; i < w.padFloats; ++i)
      w.pads[p * w.padFloats + i] = 0.f;
  w.V = w.pads + parts * w.padFloats;
  w.M = w.V + inputs * w.vFloats;
  w.bOff = reinterpret_cast<i64 *>(w.M + winogradPoints(m) * K * w.cols);
  w.sums = reinterpret_cast<float *>(w.bOff) + roundUp16(2 * C);
  for (i64 c = 0; c < C; ++c)
    w.bOff[c] = c * w.ldv;
  return w;
}

/// Parts worth splitting a transform of \p planes planes of \p plane floats into.
EMBER_INLINE i64 transformParts(parallel::Team *team, i64 planes, i64 plane) {
  return minI(parallel::partsForMoving(team, 0, planes * plane), planes);
}

/// Channels [c0, c1) of \p image's input tiles of the block of tile rows [ty0, ty0 + rows) into
/// \p V. Each tile row's m + 2 rows are padded into \p pads just before their transform: a
/// padded copy of the whole image was scratch as large as the input (2.8 MB beside
/// inception_v3's Conv2d_2b_3x3), and the rows now stay in L1 between the copy and the
/// transform; the two rows tile rows share are copied twice.
template <int m>
EMBER_INLINE void transformInputs(const WinogradScratch &w, const ConvShape &s,
                                  const float *image, float *V, float *sums, float *pads, i64 ty0,
                                  i64 rows, i64 c0, i64 c1) {
  constexpr i64 points = scratch::winogradPoints(m);
  const i64 tiles = rows * w.TW;
  for (i64 c = c0; c < c1; ++c) {
    const float *plane = image + c * s.H * s.W;
    for (i64 ty = ty0; ty < ty0 + rows; ++ty) {
      for (i64 i = 0; i < m + 2; ++i)
        padRow(pads + i * w.Wp, plane, s, m * ty + i, w.Wp);
      transformInputRow<m>(pads, w.Wp, 0, w.TW, sums, V, s.C, w.ldv, c, (ty - ty0) * w.TW);
    }
    // The columns past the block's tiles, which the GEMM reads whole panels of: zeros
    // (whatever scratch held could be denormals, which cost the products microcode).
    for (i64 x = 0; x < points; ++x)
      for (i64 t = tiles; t < w.cols; t += EMBER_VW)
        storev(V + (x * s.C + c) * w.ldv + t, splat(0.f));
  }
}

/// The products of points [x0, x1) for filters [k0, k1) (k0 a multiple of MR, so the packed
/// panels from it on are the same panels) from \p V into M.
template <int MR, int NV>
EMBER_INLINE void multiplyPoints(const WinogradScratch &w, const ConvShape &s, const float *U,
                                 const float *V, i64 x0, i64 x1, i64 k0, i64 k1) {
  const Epilogue none{nullptr, 0, Activation{ActNone, 0.f, 0.f}};
  const i64 C = s.C, K = s.K;
  for (i64 x = x0; x < x1; ++x)
    if (w.cols == 16) // (scratch::winogradBlockColumns)
      gemmFlatB<MR, 1, true>(k1 - k0, 0, w.cols, C, U + (x * K + k0) * C, C, V + x * C * w.ldv,
                             w.bOff, w.M + (x * K + k0) * w.cols, w.cols, none);
    else
      gemmFlatB<MR, NV, true>(k1 - k0, 0, w.cols, C, U + (x * K + k0) * C, C, V + x * C * w.ldv,
                              w.bOff, w.M + (x * K + k0) * w.cols, w.cols, none);
}

/// The output tiles of filters [k0, k1) of the block from M into image \p b's output.
template <int m>
EMBER_INLINE void transformOutputs(const WinogradScratch &w, const ConvShape &s, float *out,
                                   const float *bias, Activation act, float *sums, i64 b, i64 ty0,
                                   i64 rows, i64 k0, i64 k1) {
  for (i64 k = k0; k < k1; ++k) {
    float *dst = out + (b * s.K + k) * s.OH * s.OW;
    for (i64 ty = ty0; ty < ty0 + rows; ++ty)
      transformOutputRow<m>(w.M, s.K, w.cols, k, (ty - ty0) * w.TW, ty, w.TW, sums, dst, s.OH,
                            s.OW, bias ? bias[k] : 0.f, act);
  }
}

/// The convolution on one thread, or split over the team by filters (scratch::winogradByFilters:
/// a map of one block whose transformed input is small): each part transforms every input tile
/// into its own V, then computes its filters' products and output tiles, sharing nothing with
/// the other parts. Split by steps, every step read what the other core had written: resnet50's
/// 128 -> 128 on 28x28 took 0.85 ms on 2 threads against 0.92 on 1; by filters, 0.66.
template <int m, int MR, int NV>
EMBER_INLINE void convWinogradByFilters(float *out, const float *in, const float *U,
                                        const float *bias, const ConvShape &s, Activation act,
                                        float *scratchMem, parallel::Team *team) {
  constexpr i64 points = scratch::winogradPoints(m);
  const i64 threads = team ? team->size : 1;
  const WinogradScratch w = winogradScratch<m>(s, scratchMem, threads, threads);
  const i64 filterParts = minI(parallel::partsFor(team, 2 * points * s.K * s.C * w.TH * w.TW),
                               (s.K + MR - 1) / MR);
  for (i64 b = 0; b < s.N; ++b) {
    const float *image = in + b * s.C * s.H * s.W;
    parallel::forEachRange(team, filterParts, s.K, MR, [&](i64 part, i64 k0, i64 k1) {
      if (k0 >= k1)
        return;
      float *V = w.V + part * w.vFloats, *sums = w.sums + part * w.rowFloats;
      for (i64 ty0 = 0; ty0 < w.TH; ty0 += w.blockRows) {
        const i64 rows = minI(w.blockRows, w.TH - ty0);
        transformInputs<m>(w, s, image, V, sums, w.pads + part * w.padFloats, ty0, rows, 0,
                           s.C);
        multiplyPoints<MR, NV>(w, s, U, V, 0, points, k0, k1);
        transformOutputs<m>(w, s, out, bias, act, sums, b, ty0, rows, k0, k1);
      }
    });
  }
}

/// The convolution split over the team step by step, for the maps of several blocks or a large
/// transformed input, where each part's own V would not stay in its cache: the input tiles by
/// channels, the products by points, the output tiles by filters. 80 -> 192 on 71x71, 2
/// threads: 2.25 ms by steps, 2.50 by filters; 64 -> 64 on 56x56 0.56 against 0.65.
template <int m, int MR, int NV>
EMBER_INLINE void convWinogradBySteps(float *out, const float *in, const float *U,
                                      const float *bias, const ConvShape &s, Activation act,
                                      float *scratchMem, parallel::Team *team) {
  constexpr i64 points = scratch::winogradPoints(m);
  const i64 threads = team ? team->size : 1;
  const WinogradScratch w = winogradScratch<m>(s, scratchMem, 1, threads);
  const i64 plane = s.H * s.W;
  const i64 channelParts = transformParts(team, s.C, plane);
  const i64 filterParts = transformParts(team, s.K, plane);
  for (i64 b = 0; b < s.N; ++b) {
    const float *image = in + b * s.C * s.H * s.W;
    for (i64 ty0 = 0; ty0 < w.TH; ty0 += w.blockRows) {
      const i64 rows = minI(w.blockRows, w.TH - ty0);
      parallel::forEachRange(team, channelParts, s.C, 1, [&](i64 part, i64 begin, i64 end) {
        transformInputs<m>(w, s, image, w.V, w.sums + part * w.rowFloats,
                           w.pads + part * w.padFloats, ty0, rows, begin, end);
      });
      i64 pointParts = minI(parallel::partsFor(team, 2 * points * s.K * s.C * w.cols), points);
      parallel::forEachRange(team, pointParts, points, 1, [&](i64, i64 begin, i64 end) {
        multiplyPoints<MR, NV>(w, s, U, w.V, begin, end, 0, s.K);
      });
      parallel::forEachRange(team, filterParts, s.K, 1, [&](i64 part, i64 begin, i64 end) {
        transformOutputs<m>(w, s, out, bias, act, w.sums + part * w.rowFloats, b, ty0, rows,
                            begin, end);
      });
    }
  }
}

template <int m, int MR, int NV>
EMBER_INLINE void convWinograd(float *out, const float *in, const float *U, const float *bias,
                               const ConvShape &s, Activation act, float *scratchMem,
                               parallel::Team *team) {
  if (!team || team->size <= 1 || scratch::winogradByFilters(s.C, s.K, s.OH, s.OW, m))
    convWinogradByFilters<m, MR, NV>(out, in, U, bias, s, act, scratchMem, team);
  else
    convWinogradBySteps<m, MR, NV>(out, in, U, bias, s, act, scratchMem, team);
}

/// F(4x4) or F(2x2), as scratch::winogradTile says (codegen asked it too).
template <int MR, int NV>
EMBER_INLINE void convWinogradEither(float *out, const float *in, const float *U,
                                     const float *bias, const ConvShape &s, Activation act,
                                     float *scratchMem, parallel::Team *team) {
  if (scratch::winogradTile(s.C, s.K, s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.DH, s.DW, s.G) == 2)
    convWinograd<2, MR, NV>(out, in, U, bias, s, act, scratchMem, team);
  else
    convWinograd<4, MR, NV>(out, in, U, bias, s, act, scratchMem, team);
}

} // namespace

// The filter comes transformed (WinogradTransforms.h), in the register tile's panels of MR rows.
#define WINOGRAD_ENTRIES(SUFFIX, FEATURES, MR, NV)                                                 \
  EMBER_CONV_ENTRY(ember_conv2d_winograd_f32_##SUFFIX, FEATURES,                                  \
                   (convWinogradEither<MR, NV>(out, in, filter, bias, s, a, scratchMem, team)))

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(WINOGRAD_ENTRIES(NAME, FEATURES, MR, NV))
#include "Variants.def"
#undef WINOGRAD_ENTRIES
