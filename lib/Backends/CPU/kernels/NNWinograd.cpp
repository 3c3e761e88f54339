// Winograd F(4x4, 3x3) convolutions on float32, NCHW: the 3x3 convolutions of stride and
// dilation 1 that scratch::convIsWinograd picks. Each 4x4 tile of the output comes from the 6x6
// tile of the input under it: V = B^T d B per input channel, M = sum over channels of U (.) V
// (U the filter's transformed tile, WinogradTransforms.h, made at compile time), and the output
// tile A^T M A. The sum over channels, for each of the 36 points of a tile, is a matrix product
// [K][C] x [C][tiles]: 36 GEMMs of 1/4 the multiplies of the direct convolution's one.
//
// An image is done in blocks of whole rows of tiles (scratch::winogradBlockRows), each in three
// steps that split over the team: the input tiles transformed by channels into V [36][C][cols],
// the 36 products by points into M [36][K][cols] (the GEMM reads V in place, gemmFlatB), and the
// output tiles by filters, with bias and activation. The transforms run on rows of tiles, one
// row of tiles at a time, 16 tiles a vector.
#include "ConvShape.h"
#include "NNGemm.h"
#include "Variants.h"

using namespace gemm;

namespace {

constexpr i64 kPoints = scratch::kWinogradPoints;

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

/// Stores the first n of the 64 floats y0[0], y1[0], y2[0], y3[0], y0[1], ...: 16 tiles' four
/// columns, in order.
EMBER_INLINE void storeInterleaved(float *p, Vec y0, Vec y1, Vec y2, Vec y3, i64 n) {
  Vec32 a = __builtin_shufflevector(y0, y1, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7,
                                    23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15,
                                    31);
  Vec32 b = __builtin_shufflevector(y2, y3, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7,
                                    23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15,
                                    31);
  Vec q0 = __builtin_shufflevector(a, b, 0, 1, 32, 33, 2, 3, 34, 35, 4, 5, 36, 37, 6, 7, 38, 39);
  Vec q1 = __builtin_shufflevector(a, b, 8, 9, 40, 41, 10, 11, 42, 43, 12, 13, 44, 45, 14, 15, 46,
                                   47);
  Vec q2 = __builtin_shufflevector(a, b, 16, 17, 48, 49, 18, 19, 50, 51, 20, 21, 52, 53, 22, 23,
                                   54, 55);
  Vec q3 = __builtin_shufflevector(a, b, 24, 25, 56, 57, 26, 27, 58, 59, 28, 29, 60, 61, 30, 31,
                                   62, 63);
  storeLanes(p, q0, n);
  storeLanes(p + 16, q1, n - 16);
  storeLanes(p + 32, q2, n - 32);
  storeLanes(p + 48, q3, n - 48);
}

/// B^T x for x = d0..d5 (16 tiles a lane each): the six sums of the input transform.
EMBER_INLINE void inputSums(Vec d0, Vec d1, Vec d2, Vec d3, Vec d4, Vec d5, Vec t[6]) {
  t[0] = d0 + 1.5f * (d1 - d3) - 2.f * d2 + d4;
  t[1] = d4 - d1 - 2.5f * d2 - 0.5f * d3;
  t[2] = d1 + 0.5f * d2 - 2.5f * d3 + d4;
  t[3] = 0.5f * (d3 - d1) - d2 + d4;
  t[4] = 2.f * (d1 - d3) - d2 + d4;
  t[5] = d1 + 1.5f * (d2 - d4) - 2.f * d3 + d5;
}

/// A^T x for x = m0..m5: the four sums of the output transform.
EMBER_INLINE void outputSums(Vec m0, Vec m1, Vec m2, Vec m3, Vec m4, Vec m5, Vec y[4]) {
  Vec a = m1 + m2, b = m1 - m2;
  y[0] = m0 + a + m3 + m4;
  y[1] = b + 2.f * m3 - 0.5f * m4;
  y[2] = a + 4.f * m3 + 0.25f * m4;
  y[3] = b + 8.f * m3 - 0.125f * m4 + m5;
}

/// The input transform of channel \p c's tiles in tile row \p ty (tx < TW): the row's 6x6 tiles
/// of the padded plane (rows Wp apart, read up to 68 floats past a row's last tile) to V's 36
/// rows of this channel (ldv floats apart), from column \p t0, in whole vectors: up to 15
/// columns past the row's tiles, which the next row of tiles overwrites (or, after a block's
/// last, the caller; V's rows have room for them). sums: 36 rows of TWv = roundUp16(TW) floats.
EMBER_INLINE void transformInputRow(const float *plane, i64 Wp, i64 ty, i64 TW, float *sums,
                                    float *V, i64 C, i64 ldv, i64 c, i64 t0) {
  const i64 TWv = scratch::roundUp16(TW);
  // Along each of the tiles' six rows: t[i][nu] = (B^T d_i)[nu].
  for (i64 i = 0; i < 6; ++i) {
    const float *src = plane + (4 * ty + i) * Wp;
    for (i64 tx = 0; tx < TW; tx += EMBER_VW) {
      const float *d = src + 4 * tx;
      Vec t[6];
      inputSums(everyFourth<0>(d), everyFourth<1>(d), everyFourth<2>(d), everyFourth<3>(d),
                everyFourth<0>(d + 4), everyFourth<1>(d + 4), t);
      for (i64 nu = 0; nu < 6; ++nu)
        storev(sums + (i * 6 + nu) * TWv + tx, t[nu]);
    }
  }
  // Down each column: V[mu][nu] = (B^T t[.][nu])[mu].
  for (i64 nu = 0; nu < 6; ++nu)
    for (i64 tx = 0; tx < TW; tx += EMBER_VW) {
      const float *r = sums + nu * TWv + tx;
      Vec v[6];
      inputSums(loadv(r), loadv(r + 6 * TWv), loadv(r + 12 * TWv), loadv(r + 18 * TWv),
                loadv(r + 24 * TWv), loadv(r + 30 * TWv), v);
      for (i64 mu = 0; mu < 6; ++mu)
        storev(V + ((mu * 6 + nu) * C + c) * ldv + t0 + tx, v[mu]);
    }
}

/// The output transform of filter \p k's tiles in tile row \p ty: the row's 36 products from
/// column \p t0 of M to the 4x4 tiles of output plane \p dst (OH x OW), plus \p bias, then the
/// activation. sums: 24 rows of TWv floats.
EMBER_INLINE void transformOutputRow(const float *M, i64 K, i64 cols, i64 k, i64 t0, i64 ty,
                                     i64 TW, float *sums, float *dst, i64 OH, i64 OW, float bias,
                                     Activation act) {
  const i64 TWv = scratch::roundUp16(TW);
  // Down each column: s[r][nu] = (A^T m[.][nu])[r]. (The last vector may read up to 15 floats
  // past the block's columns: into the next row of M, or the scratch after it.)
  for (i64 nu = 0; nu < 6; ++nu)
    for (i64 tx = 0; tx < TW; tx += EMBER_VW) {
      const float *m = M + (nu * K + k) * cols + t0 + tx;
      const i64 point = 6 * K * cols; // from (mu, nu) to (mu + 1, nu)
      Vec s[4];
      outputSums(loadv(m), loadv(m + point), loadv(m + 2 * point), loadv(m + 3 * point),
                 loadv(m + 4 * point), loadv(m + 5 * point), s);
      for (i64 r = 0; r < 4; ++r)
        storev(sums + (r * 6 + nu) * TWv + tx, s[r]);
    }
  // Along each row: y[r][col] = (A^T s[r][.])[col], written to output row 4 ty + r.
  for (i64 r = 0; r < 4 && 4 * ty + r < OH; ++r) {
    float *row = dst + (4 * ty + r) * OW;
    const float *q = sums + r * 6 * TWv;
    for (i64 tx = 0; tx < TW; tx += EMBER_VW) {
      Vec y[4];
      outputSums(loadv(q + tx), loadv(q + TWv + tx), loadv(q + 2 * TWv + tx),
                 loadv(q + 3 * TWv + tx), loadv(q + 4 * TWv + tx), loadv(q + 5 * TWv + tx), y);
      for (i64 col = 0; col < 4; ++col)
        y[col] = applyInlineActivation(y[col] + bias, act);
      storeInterleaved(row + 4 * tx, y[0], y[1], y[2], y[3], OW - 4 * tx);
    }
    applyOutOfLineActivation(row, OW, act);
  }
}

/// A float moved by a transform weighs this many flops when it decides its parts (Parallel.h).
constexpr i64 kTransformWeight = 16;

template <int MR, int NV>
EMBER_INLINE void convWinograd(float *out, const float *in, const float *U, const float *bias,
                               const ConvShape &s, Activation act, float *scratchMem,
                               parallel::Team *team) {
  using namespace scratch;
  const i64 C = s.C, K = s.K, TH = winogradTiles(s.OH), TW = winogradTiles(s.OW);
  const i64 Hp = winogradPaddedRows(s.OH), Wp = winogradPaddedCols(s.OW), plane = Hp * Wp;
  const i64 blockRows = minOf(winogradBlockRows(C, K, s.OW), TH);
  const i64 cols = winogradBlockColumns(C, K, s.OH, s.OW);
  float *padded = scratchMem;
  float *V = padded + roundUp16(C * plane + kWinogradPadSlack);
  const i64 ldv = scratch::winogradInputRowFloats(C, K, s.OH, s.OW);
  float *M = V + kPoints * C * ldv;
  i64 *bOff = reinterpret_cast<i64 *>(M + kPoints * K * cols);
  float *sums = reinterpret_cast<float *>(bOff) + roundUp16(2 * C);
  const i64 rowFloats = winogradRowFloats(s.OW);
  for (i64 c = 0; c < C; ++c)
    bOff[c] = c * ldv;
  const Epilogue none{nullptr, 0, Activation{ActNone, 0.f, 0.f}};
  i64 channelParts = minI(parallel::partsFor(team, kTransformWeight * C * plane), C);
  i64 filterParts = minI(parallel::partsFor(team, kTransformWeight * K * plane), K);
  for (i64 b = 0; b < s.N; ++b) {
    const float *image = in + b * C * s.H * s.W;
    parallel::forEachPart(team, channelParts, [&](i64 part) {
      i64 begin, end;
      parallel::partRange(C, channelParts, 1, part, begin, end);
      if (begin < end)
        padImage(padded + begin * plane, image + begin * s.H * s.W, end - begin, s, Hp, Wp);
    });
    for (i64 ty0 = 0; ty0 < TH; ty0 += blockRows) {
      const i64 rows = minI(blockRows, TH - ty0), tiles = rows * TW;
      parallel::forEachPart(team, channelParts, [&](i64 part) {
        i64 begin, end;
        parallel::partRange(C, channelParts, 1, part, begin, end);
        float *partSums = sums + part * rowFloats;
        for (i64 c = begin; c < end; ++c) {
          for (i64 ty = ty0; ty < ty0 + rows; ++ty)
            transformInputRow(padded + c * plane, Wp, ty, TW, partSums, V, C, ldv, c,
                              (ty - ty0) * TW);
          // The columns past the block's tiles, which the GEMM reads whole panels of: zeros
          // (whatever scratch held could be denormals, which cost the products microcode).
          for (i64 x = 0; x < kPoints; ++x)
            for (i64 t = tiles; t < cols; t += EMBER_VW)
              storev(V + (x * C + c) * ldv + t, splat(0.f));
        }
      });
      i64 pointParts = minI(parallel::partsFor(team, 2 * kPoints * K * C * cols), kPoints);
      parallel::forEachPart(team, pointParts, [&](i64 part) {
        i64 begin, end;
        parallel::partRange(kPoints, pointParts, 1, part, begin, end);
        for (i64 x = begin; x < end; ++x)
          if (cols == 16) // (scratch::winogradBlockColumns)
            gemmFlatB<MR, 1, true>(K, 0, cols, C, U + x * K * C, C, V + x * C * ldv, bOff,
                                   M + x * K * cols, cols, none);
          else
            gemmFlatB<MR, NV, true>(K, 0, cols, C, U + x * K * C, C, V + x * C * ldv, bOff,
                                    M + x * K * cols, cols, none);
      });
      parallel::forEachPart(team, filterParts, [&](i64 part) {
        i64 begin, end;
        parallel::partRange(K, filterParts, 1, part, begin, end);
        float *partSums = sums + part * rowFloats;
        for (i64 k = begin; k < end; ++k) {
          float *dst = out + (b * K + k) * s.OH * s.OW;
          for (i64 ty = ty0; ty < ty0 + rows; ++ty)
            transformOutputRow(M, K, cols, k, (ty - ty0) * TW, ty, TW, partSums, dst, s.OH,
                               s.OW, bias ? bias[k] : 0.f, act);
        }
      });
    }
  }
}

} // namespace

// The filter comes transformed (WinogradTransforms.h), in the register tile's panels of MR rows.
#define WINOGRAD_ENTRIES(SUFFIX, FEATURES, MR, NV)                                                 \
  EMBER_CONV_ENTRY(ember_conv2d_winograd_f32_##SUFFIX, FEATURES,                                  \
                   (convWinograd<MR, NV>(out, in, filter, bias, s, a, scratchMem, team)))

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(WINOGRAD_ENTRIES(NAME, FEATURES, MR, NV))
#include "Variants.def"
#undef WINOGRAD_ENTRIES
