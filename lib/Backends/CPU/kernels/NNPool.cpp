// 2-D max and average pooling on float32, NCHW (1-D pools come with H = 1), with the window
// rules of the Interpreter's NNPool.cpp: padding never wins a max, a window of padding alone gives
// the lowest float (-FLT_MAX, the reference's numeric_limits<float>::lowest()) and index -1; the
// average divides by the real cells, or with count_include_pad by the cells inside the padded
// input (cells past it in ceil mode count in neither). Other ranks and kinds: NNPoolGeneric.cpp.
// Max pooling without indices and average pooling with strides of 1 or 2 read phase planes
// (PhasePlanes.h): each output vector is a max or sum over the taps of one unaligned load each.
// Before it, a 3x3 stride-2 max pool took the edges and the last vector of every row a cell at
// a time, and average pooling every cell: squeezenet1_1's three max pools took 1.2 of its 9 ms,
// inception_v3's pools 6.3 of its 130 ms. Max pooling of int8 and uint8 without indices takes
// a row of vertical maxima, then the taps along it (maxPoolIntRows): resnet50's uint8 3x3/2 max
// pool of [1,64,112,112] took 3.3 ms in the generic N-D kernel.
#include "Parallel.h"
#include "PhasePlanes.h"
#include "QuantizedLayout.h"
#include "Types.h"
#include "ember/Semantics/Pool.h"

namespace {

struct PoolShape {
  i64 planes, H, W, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, PHEnd, PWEnd, countPad, colMajor;
};

EMBER_INLINE PoolShape readPool(const i64 *p) {
  return PoolShape{p[0], p[1], p[2],  p[3],  p[4],  p[5],  p[6],  p[7], p[8],
                   p[9], p[10], p[11], p[12], p[13], p[14], p[15], p[16]};
}

/// The parts of planes a pool splits into on \p team: about as many loads as products of a
/// convolution, one per tap of every output, or its planes' floats in and out, whichever
/// weighs more (Parallel.h, partsForMoving).
EMBER_INLINE i64 poolParts(const parallel::Team *team, const PoolShape &s) {
  return minI(parallel::partsForMoving(team, 2 * s.planes * s.OH * s.OW * s.KH * s.KW,
                                       s.planes * (s.H * s.W + s.OH * s.OW)),
              s.planes);
}

/// The window cells along one axis that lie in the real input: [lo, hi) of tap indices j, for
/// input coordinate start + j * dilation (ember/Semantics/Pool.h).
EMBER_INLINE void tapRange(i64 start, i64 dilation, i64 kernel, i64 size, i64 &lo, i64 &hi) {
  ember_pool_real_taps(start, dilation, kernel, size, &lo, &hi);
}

} // namespace

namespace {

/// Lanes l = 0..15 of row[l * stride] (stride 1 and 2 as vector loads and a shuffle).
EMBER_INLINE Vec loadStrided(const float *row, i64 stride) {
  if (stride == 1)
    return loadv(row);
  if (stride == 2) {
    Vec a = loadv(row), b = loadv(row + EMBER_VW);
    return __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28,
                                   30);
  }
  float t[EMBER_VW];
  for (int l = 0; l < EMBER_VW; ++l)
    t[l] = row[l * stride];
  return loadv(t);
}

/// One output cell, scalar: the first real cell wins, then only a strictly greater one (so NaN
/// never replaces a value), selects rather than branches.
EMBER_INLINE void maxCell(const PoolShape &s, const float *plane, i64 oh, i64 ow, float &best,
                          i64 &bestIndex) {
  i64 h0 = oh * s.SH - s.PH, w0 = ow * s.SW - s.PW, khLo, khHi, kwLo, kwHi;
  tapRange(h0, s.DH, s.KH, s.H, khLo, khHi);
  tapRange(w0, s.DW, s.KW, s.W, kwLo, kwHi);
  best = -__FLT_MAX__;
  bestIndex = -1;
  for (i64 kh = khLo; kh < khHi; ++kh) {
    i64 ih = h0 + kh * s.DH;
    for (i64 kw = kwLo; kw < kwHi; ++kw) {
      i64 iw = w0 + kw * s.DW;
      float v = plane[ih * s.W + iw];
      bool take = bestIndex < 0 || v > best;
      i64 at = s.colMajor ? iw * s.H + ih : ih * s.W + iw;
      best = take ? v : best;
      bestIndex = take ? at : bestIndex;
    }
  }
}

/// Max pooling without indices: a window's max is the max of its real cells, so each output
/// vector is a max over the taps of strided vector loads; cells at the edges (windows reaching
/// into padding) go through maxCell.
EMBER_INLINE void maxPoolValues(float *out, const float *in, const PoolShape &s, i64 pBegin,
                                 i64 pEnd) {
  i64 inPlane = s.H * s.W, outPlane = s.OH * s.OW;
  i64 owLo = s.PW <= 0 ? 0 : (s.PW + s.SW - 1) / s.SW;
  i64 lastStart = s.W - 1 - (s.KW - 1) * s.DW + s.PW;
  i64 owHi = lastStart < 0 ? 0 : minI(s.OW, lastStart / s.SW + 1);
  if (owHi < owLo)
    owHi = owLo;
  for (i64 p = pBegin; p < pEnd; ++p) {
    const float *plane = in + p * inPlane;
    float *o = out + p * outPlane;
    for (i64 oh = 0; oh < s.OH; ++oh) {
      i64 h0 = oh * s.SH - s.PH, khLo, khHi;
      tapRange(h0, s.DH, s.KH, s.H, khLo, khHi);
      i64 ow = 0;
      auto scalarUpTo = [&](i64 end) {
        for (; ow < end; ++ow) {
          float best;
          i64 bestIndex;
          maxCell(s, plane, oh, ow, best, bestIndex);
          o[oh * s.OW + ow] = best;
        }
      };
      scalarUpTo(owLo);
      // The columns whose windows lie inside the input, a vector at a time (the last one
      // partial, its lanes gathered): the first real cell, then only strictly greater ones
      // (NaN never replaces a value), as maxCell. Selects, not branches: ReLU outputs full of
      // zeros made a branchy scalar loop mispredict on every other cell.
      if (khLo < khHi)
        for (; ow < owHi; ow += EMBER_VW) {
          i64 n = minI(EMBER_VW, owHi - ow);
          auto load = [&](const float *p) {
            if (n == EMBER_VW)
              return loadStrided(p, s.SW);
            float t[EMBER_VW] = {};
            for (i64 l = 0; l < n; ++l)
              t[l] = p[l * s.SW];
            return loadv(t);
          };
          Vec best = load(plane + (h0 + khLo * s.DH) * s.W + ow * s.SW - s.PW);
          for (i64 kh = khLo; kh < khHi; ++kh) {
            const float *row = plane + (h0 + kh * s.DH) * s.W + ow * s.SW - s.PW;
            for (i64 kw = kh == khLo ? 1 : 0; kw < s.KW; ++kw) {
              Vec v = load(row + kw * s.DW);
              best = v > best ? v : best;
            }
          }
          if (n == EMBER_VW)
            storev(o + oh * s.OW + ow, best);
          else
            storePartial(o + oh * s.OW + ow, best, n);
        }
      ow = minI(ow, owHi); // a partial last vector steps past owHi
      scalarUpTo(s.OW);
    }
  }
}

using namespace phased;

EMBER_INLINE Window windowOf(const PoolShape &s) {
  return Window{s.H, s.W, s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.PH, s.PW, s.DH, s.DW};
}

/// The cells each output's window counts, on the [OH][Wq] grid of the strips (the Wq - OW
/// columns past a row count 1): for a max, the real cells (none: the window's result is the
/// lowest float); for an average, its divisor (the Interpreter's: the real cells, or with
/// count_include_pad the cells inside the padded input).
EMBER_INLINE void windowCounts(float *counts, const PoolShape &s, i64 Wq, bool divisor) {
  for (i64 oh = 0; oh < s.OH; ++oh) {
    i64 h0 = oh * s.SH - s.PH, khLo, khHi;
    tapRange(h0, s.DH, s.KH, s.H, khLo, khHi);
    i64 hPadded = ember_pool_padded_taps(h0, s.DH, s.KH, s.H, s.PHEnd);
    for (i64 ow = 0; ow < Wq; ++ow) {
      i64 w0 = ow * s.SW - s.PW, kwLo, kwHi;
      tapRange(w0, s.DW, s.KW, s.W, kwLo, kwHi);
      i64 wPadded = ember_pool_padded_taps(w0, s.DW, s.KW, s.W, s.PWEnd);
      i64 cells = (khHi - khLo) * (kwHi - kwLo);
      counts[oh * Wq + ow] =
          ow >= s.OW ? 1.f
                     : float(divisor ? ember_pool_average_divisor(cells, hPadded * wPadded,
                                                                  int(s.countPad))
                                     : cells);
    }
  }
}

/// U output vectors from flat position f: the max over the taps in order, each tap's value
/// taken where strictly greater (x86's max instruction), padding -inf; or their sum, padding 0,
/// divided by the window's count. Windows of no real cell give the lowest float (max) or 0
/// (average).
template <int U, bool Max>
EMBER_INLINE void poolVectors(float *dst, const float *set, const i64 *tapOff, i64 taps,
                              const float *counts, i64 f) {
  Vec acc[U];
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u)
    acc[u] = Max ? loadv(set + tapOff[0] + f + u * EMBER_VW) : splat(0.f);
  for (i64 t = Max ? 1 : 0; t < taps; ++t) {
    const float *src = set + tapOff[t] + f;
#pragma clang loop unroll(full)
    for (int u = 0; u < U; ++u) {
      Vec v = loadv(src + u * EMBER_VW);
      acc[u] = Max ? (v > acc[u] ? v : acc[u]) : acc[u] + v;
    }
  }
#pragma clang loop unroll(full)
  for (int u = 0; u < U; ++u) {
    Vec c = loadv(counts + f + u * EMBER_VW);
    Vec y = Max ? acc[u] : acc[u] / c;
    storev(dst + u * EMBER_VW, c == 0.f ? splat(Max ? -__FLT_MAX__ : 0.f) : y);
  }
}

/// Max (without indices) or average pooling of planes [begin, end) through the phase planes in
/// \p mem (scratch::poolScratchFloats). A max pool's plane holding a NaN goes through
/// maxPoolValues instead: the Interpreter's first real cell wins even when it is NaN, which a
/// window starting in the padding would not see.
template <bool Max, int SW>
EMBER_INLINE void pooledPlanes(float *out, const float *in, const PoolShape &s, float *mem,
                               i64 begin, i64 end) {
  const Window win = windowOf(s);
  const Phases p = phasesFor(win);
  const i64 R = scratch::phasedStripRows(s.OH, s.OW, s.KW, s.SW, s.DW);
  float *set = mem, *strip = set + p.set;
  float *counts = strip + scratch::phasedStripFloats(s.OH, s.OW, s.KW, s.SW, s.DW);
  const float pad = Max ? -__builtin_inff() : 0.f;
  padPhases(set, p, pad);
  windowCounts(counts, s, p.Wq, !Max);
  PhaseRuns runs[4];
  phaseRuns(runs, win, p);
  i64 tapOff[scratch::kPhasedMaxTaps];
  tapOffsets(tapOff, win, p);
  const i64 taps = s.KH * s.KW, inPlane = s.H * s.W, outPlane = s.OH * s.OW;
  for (i64 pl = begin; pl < end; ++pl) {
    bool nan = fillPhases<SW, Max>(set, in + pl * inPlane, runs, s.SH * SW, s.SH * s.W, p.Wq,
                                   inPlane, pad);
    float *o = out + pl * outPlane;
    if (Max && nan) {
      maxPoolValues(out, in, s, pl, pl + 1);
      continue;
    }
    for (i64 r0 = 0; r0 < s.OH; r0 += R) {
      i64 rows = minI(R, s.OH - r0), first = r0 * p.Wq, last = first + rows * p.Wq, f = first;
      for (; f + 4 * EMBER_VW <= last; f += 4 * EMBER_VW)
        poolVectors<4, Max>(strip + (f - first), set, tapOff, taps, counts, f);
      for (; f < last; f += EMBER_VW)
        poolVectors<1, Max>(strip + (f - first), set, tapOff, taps, counts, f);
      copyStrip(o, strip, s.OH, s.OW, p.Wq, r0, rows);
    }
  }
}

/// pooledPlanes over every plane, split over \p team (null: one thread) by planes, each part
/// with its own scratch.
template <bool Max>
EMBER_INLINE void phasedPool(float *out, const float *in, const PoolShape &s, float *scratchMem,
                             parallel::Team *team) {
  i64 perPart = scratch::poolScratchFloats(s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.DH, s.DW);
  i64 parts = poolParts(team, s);
  parallel::forEachPart(team, parts, [&](i64 part) {
    i64 begin, end;
    parallel::partRange(s.planes, parts, 1, part, begin, end);
    float *mem = scratchMem + part * perPart;
    if (s.SW == 1)
      pooledPlanes<Max, 1>(out, in, s, mem, begin, end);
    else
      pooledPlanes<Max, 2>(out, in, s, mem, begin, end);
  });
}

/// Whether some window of the pool holds no real cell (padding or ceil_mode past the input): its
/// max is the lowest float, which maxPoolFloatRows' -inf padding would not give.
EMBER_INLINE bool poolHasEmptyWindow(const PoolShape &s) {
  i64 lo, hi;
  for (i64 oh = 0; oh < s.OH; ++oh) {
    tapRange(oh * s.SH - s.PH, s.DH, s.KH, s.H, lo, hi);
    if (lo == hi)
      return true;
  }
  for (i64 ow = 0; ow < s.OW; ++ow) {
    tapRange(ow * s.SW - s.PW, s.DW, s.KW, s.W, lo, hi);
    if (lo == hi)
      return true;
  }
  return false;
}

/// The 16 taps from \p p on, \p stride apart: SW (1, 2) known at compile time, or 0 for any.
template <int SW> EMBER_INLINE Vec tapVector(const float *p, i64 stride) {
  if constexpr (SW == 0)
    return loadStrided(p, stride);
  else
    return stridedVector<SW>(p);
}

/// One plane of a float32 max pool without indices, as maxPoolIntRows pools 8-bit integers:
/// per output row, the max over the window's real input rows (whole vectors of the input) into
/// \p row, whose padding holds -inf, then each output the max over its taps along that row.
/// Each max takes a value where strictly greater, as maxCell does over the whole window in
/// order, so the two agree unless a NaN is some window's cell other than its first: a plane
/// holding a NaN returns false, for maxPoolValues to pool. Windows with no real cell never come
/// here (poolHasEmptyWindow). Before it, the phase planes (pooledPlanes) copied every input
/// row into four planes first: squeezenet1_1's first max pool (64 planes of 111x111, 3x3,
/// stride 2) took 0.35 ms against onnxruntime's 0.14.
///
/// A row's last vector is loaded and stored whole, its lanes past the row's end landing in the
/// row's slack (the right padding is reset after) and, for an output row, on the plane's next
/// rows, written later: element by element, the edges of 13- and 27-wide maps cost more than
/// the rest. Only the input's end (\p inEnd) and the plane's end take partial vectors.
template <int SW>
EMBER_INLINE bool maxPoolFloatRows(float *o, const float *plane, const float *inEnd,
                                   const PoolShape &s, float *row) {
  float *real = row + s.PW;
  const i64 reach = scratch::maxPoolRowReach(s.OW, s.KW, s.SW, s.PW, s.DW);
  const IVec lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  IVec nan = (IVec)(0);
  for (i64 oh = 0; oh < s.OH; ++oh) {
    i64 h0 = oh * s.SH - s.PH, khLo, khHi;
    tapRange(h0, s.DH, s.KH, s.H, khLo, khHi);
    for (i64 iw = 0; iw < s.W; iw += EMBER_VW) {
      i64 n = minI(EMBER_VW, s.W - iw);
      auto load = [&](i64 kh) {
        const float *p = plane + (h0 + kh * s.DH) * s.W + iw;
        return p + EMBER_VW <= inEnd ? loadv(p) : loadPartial(p, n);
      };
      Vec m = load(khLo);
      IVec bad = m != m;
      for (i64 kh = khLo + 1; kh < khHi; ++kh) {
        Vec v = load(kh);
        bad |= v != v;
        m = v > m ? v : m;
      }
      nan |= bad & (lane < i32(n));
      storev(real + iw, m);
    }
    for (i64 iw = s.W; iw < reach; ++iw)
      real[iw] = -__builtin_inff();
    float *dst = o + oh * s.OW;
    for (i64 ow = 0; ow < s.OW; ow += EMBER_VW) {
      const float *at = row + ow * s.SW;
      Vec m = tapVector<SW>(at, s.SW);
      for (i64 kw = 1; kw < s.KW; ++kw) {
        Vec v = tapVector<SW>(at + kw * s.DW, s.SW);
        m = v > m ? v : m;
      }
      i64 n = minI(EMBER_VW, s.OW - ow);
      if (n == EMBER_VW || dst + ow + EMBER_VW <= o + s.OH * s.OW)
        storev(dst + ow, m);
      else
        storePartial(dst + ow, m, n);
    }
  }
  for (int l = 0; l < EMBER_VW; ++l)
    if (nan[l])
      return false;
  return true;
}

/// maxPoolFloatRows over every plane, split over \p team (null: one thread) by planes, each
/// part with its own row.
template <int SW>
EMBER_INLINE void maxPoolByRows(float *out, const float *in, const PoolShape &s,
                                float *scratchMem, parallel::Team *team) {
  i64 perPart =
      scratch::maxPoolScratchFloats(s.W, s.OH, s.OW, s.KH, s.KW, s.SH, s.SW, s.PW, s.DH, s.DW);
  i64 rowFloats = scratch::maxPoolRowFloats(s.W, s.OW, s.KW, s.SW, s.PW, s.DW);
  const float *inEnd = in + s.planes * s.H * s.W;
  i64 parts = poolParts(team, s);
  parallel::forEachRange(team, parts, s.planes, 1, [&](i64 part, i64 begin, i64 end) {
    float *row = scratchMem + part * perPart;
    for (i64 i = 0; i < rowFloats; ++i)
      row[i] = -__builtin_inff();
    for (i64 pl = begin; pl < end; ++pl)
      if (!maxPoolFloatRows<SW>(out + pl * s.OH * s.OW, in + pl * s.H * s.W, inEnd, s, row))
        maxPoolValues(out, in, s, pl, pl + 1);
  });
}

} // namespace

/// Max pooling with indices, or (indices null: nobody reads them) maxima alone.
EMBER_KERNEL EMBER_NOINLINE void ember_maxpool_f32(float *out, i64 *indices, const float *in,
                                                   const i64 *params, float *scratchMem,
                                                   parallel::Team *team) {
  PoolShape s = readPool(params);
  if (!indices && scratch::maxPoolTakesRows(s.W) && !poolHasEmptyWindow(s))
    return s.SW == 1   ? maxPoolByRows<1>(out, in, s, scratchMem, team)
           : s.SW == 2 ? maxPoolByRows<2>(out, in, s, scratchMem, team)
                       : maxPoolByRows<0>(out, in, s, scratchMem, team);
  if (!indices && scratch::windowIsPhased(s.KH, s.KW, s.SH, s.SW))
    return phasedPool<true>(out, in, s, scratchMem, team);
  if (!indices)
    return maxPoolValues(out, in, s, 0, s.planes);
  i64 inPlane = s.H * s.W, outPlane = s.OH * s.OW;
  // Output columns whose whole window lies inside the input: 16 of them at a time as vectors.
  i64 owLo = s.PW <= 0 ? 0 : (s.PW + s.SW - 1) / s.SW;
  i64 lastStart = s.W - 1 - (s.KW - 1) * s.DW + s.PW; // largest ow * SW with the window inside
  i64 owHi = lastStart < 0 ? 0 : minI(s.OW, lastStart / s.SW + 1);
  if (owHi < owLo)
    owHi = owLo;
  for (i64 p = 0; p < s.planes; ++p) {
    const float *plane = in + p * inPlane;
    float *o = out + p * outPlane;
    i64 *oi = indices + p * outPlane;
    for (i64 oh = 0; oh < s.OH; ++oh) {
      i64 ow = 0;
      auto scalarUpTo = [&](i64 end) {
        for (; ow < end; ++ow) {
          float best;
          i64 bestIndex;
          maxCell(s, plane, oh, ow, best, bestIndex);
          o[oh * s.OW + ow] = best;
          oi[oh * s.OW + ow] = bestIndex < 0 ? -1 : p * inPlane + bestIndex;
        }
      };
      scalarUpTo(owLo);
      i64 h0 = oh * s.SH - s.PH, khLo, khHi;
      tapRange(h0, s.DH, s.KH, s.H, khLo, khHi);
      if (khLo < khHi) {
        IVec lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        for (; ow + EMBER_VW <= owHi; ow += EMBER_VW) {
          Vec best = splat(0.f);
          IVec at = (IVec)(0);
          bool first = true;
          for (i64 kh = khLo; kh < khHi; ++kh) {
            i64 ih = h0 + kh * s.DH;
            for (i64 kw = 0; kw < s.KW; ++kw) {
              i64 iw0 = ow * s.SW - s.PW + kw * s.DW;
              Vec v = loadStrided(plane + ih * s.W + iw0, s.SW);
              IVec iw = (IVec)(i32(iw0)) + lane * i32(s.SW);
              IVec idx = s.colMajor ? iw * i32(s.H) + i32(ih) : (IVec)(i32(ih * s.W)) + iw;
              IVec take = first ? (IVec)(-1) : (v > best);
              best = take ? v : best;
              at = take ? idx : at;
              first = false;
            }
          }
          storev(o + oh * s.OW + ow, best);
          i32 a[EMBER_VW];
          __builtin_memcpy(a, &at, sizeof a);
          for (int l = 0; l < EMBER_VW; ++l)
            oi[oh * s.OW + ow + l] = p * inPlane + a[l];
        }
      }
      scalarUpTo(s.OW);
    }
  }
}

namespace {

/// Max pooling without indices on an 8-bit integer kind, where max is exact and has no NaN:
/// per output row, the max over the window's real input rows into \p row (PW cells of T's
/// lowest value, the row, then lowest values to the farthest tap: intMaxPoolRowBytes), then
/// each output the max over its taps of that row. Padding holds the lowest value, so it never
/// wins a max, and a window of padding alone gives the lowest value, as the Interpreter's.
/// Stride \p SW as a template argument (1, 2; 0: any) makes the taps' loads vector ones.
template <typename T, int SW>
EMBER_INLINE void maxPoolIntRows(T *out, const T *in, const PoolShape &s, T *row, i64 begin,
                                 i64 end) {
  const T lowest = intMin<T>();
  const i64 sw = SW ? SW : s.SW;
  const i64 len = quantlayout::intMaxPoolRowCells(s.W, s.OW, s.KW, s.SW, s.PW, s.DW);
  for (i64 i = 0; i < len; ++i)
    row[i] = lowest;
  T *real = row + s.PW;
  for (i64 p = begin; p < end; ++p) {
    const T *plane = in + p * s.H * s.W;
    T *o = out + p * s.OH * s.OW;
    for (i64 oh = 0; oh < s.OH; ++oh) {
      i64 h0 = oh * s.SH - s.PH, khLo, khHi;
      tapRange(h0, s.DH, s.KH, s.H, khLo, khHi);
      if (khLo == khHi) {
        for (i64 iw = 0; iw < s.W; ++iw)
          real[iw] = lowest;
      } else {
        const T *first = plane + (h0 + khLo * s.DH) * s.W;
        for (i64 iw = 0; iw < s.W; ++iw)
          real[iw] = first[iw];
        for (i64 kh = khLo + 1; kh < khHi; ++kh) {
          const T *r = plane + (h0 + kh * s.DH) * s.W;
          for (i64 iw = 0; iw < s.W; ++iw)
            real[iw] = r[iw] > real[iw] ? r[iw] : real[iw];
        }
      }
      T *dst = o + oh * s.OW;
      for (i64 ow = 0; ow < s.OW; ++ow)
        dst[ow] = row[ow * sw];
      for (i64 kw = 1; kw < s.KW; ++kw) {
        const T *tap = row + kw * s.DW;
        for (i64 ow = 0; ow < s.OW; ++ow)
          dst[ow] = tap[ow * sw] > dst[ow] ? tap[ow * sw] : dst[ow];
      }
    }
  }
}

/// maxPoolIntRows over every plane, split over \p team by planes, each part with its row.
template <typename T>
EMBER_INLINE void maxPoolInts(T *out, const T *in, const i64 *params, u8 *scratchMem,
                              parallel::Team *team) {
  PoolShape s = readPool(params);
  i64 rowBytes = quantlayout::intMaxPoolRowBytes(s.W, s.OW, s.KW, s.SW, s.PW, s.DW);
  i64 parts = poolParts(team, s);
  parallel::forEachPart(team, parts, [&](i64 part) {
    i64 begin, end;
    parallel::partRange(s.planes, parts, 1, part, begin, end);
    T *row = (T *)(scratchMem + part * rowBytes);
    if (s.SW == 1)
      maxPoolIntRows<T, 1>(out, in, s, row, begin, end);
    else if (s.SW == 2)
      maxPoolIntRows<T, 2>(out, in, s, row, begin, end);
    else
      maxPoolIntRows<T, 0>(out, in, s, row, begin, end);
  });
}

} // namespace

/// Max pooling of int8 / uint8 without indices (a pool whose indices are read goes to the
/// generic kernel).
#define MAXPOOL_INT_KERNEL(S, T)                                                                    \
  EMBER_KERNEL EMBER_NOINLINE void ember_maxpool_##S(T *out, const T *in, const i64 *params,      \
                                                     u8 *scratchMem, parallel::Team *team) {      \
    maxPoolInts<T>(out, in, params, scratchMem, team);                                             \
  }
MAXPOOL_INT_KERNEL(i8, i8)
MAXPOOL_INT_KERNEL(u8, u8)
#undef MAXPOOL_INT_KERNEL

EMBER_KERNEL EMBER_NOINLINE void ember_avgpool_f32(float *out, const float *in,
                                                   const i64 *params, float *scratchMem,
                                                   parallel::Team *team) {
  PoolShape s = readPool(params);
  if (scratch::windowIsPhased(s.KH, s.KW, s.SH, s.SW))
    return phasedPool<false>(out, in, s, scratchMem, team);
  i64 inPlane = s.H * s.W, outPlane = s.OH * s.OW;
  for (i64 p = 0; p < s.planes; ++p) {
    const float *plane = in + p * inPlane;
    for (i64 oh = 0; oh < s.OH; ++oh) {
      i64 h0 = oh * s.SH - s.PH, khLo, khHi;
      tapRange(h0, 1, s.KH, s.H, khLo, khHi);
      i64 hPadded = ember_pool_padded_taps(h0, 1, s.KH, s.H, s.PHEnd);
      for (i64 ow = 0; ow < s.OW; ++ow) {
        i64 w0 = ow * s.SW - s.PW, kwLo, kwHi;
        tapRange(w0, 1, s.KW, s.W, kwLo, kwHi);
        i64 wPadded = ember_pool_padded_taps(w0, 1, s.KW, s.W, s.PWEnd);
        i64 cells = (khHi - khLo) * (kwHi - kwLo);
        i64 count = ember_pool_average_divisor(cells, hPadded * wPadded, int(s.countPad));
        float sum = 0.f;
        for (i64 kh = khLo; kh < khHi; ++kh) {
          const float *row = plane + (h0 + kh) * s.W + w0;
          for (i64 kw = kwLo; kw < kwHi; ++kw)
            sum += row[kw];
        }
        out[p * outPlane + oh * s.OW + ow] = count ? sum / float(count) : 0.f;
      }
    }
  }
}

/// Global average pooling (the window covers the whole plane, no padding): one mean per plane,
/// summed with vector partial sums.
EMBER_KERNEL EMBER_NOINLINE void ember_global_avgpool_f32(float *out, const float *in,
                                                          i64 planes, i64 planeSize) {
  for (i64 p = 0; p < planes; ++p) {
    const float *x = in + p * planeSize;
    Vec acc = splat(0.f);
    i64 i = 0;
    for (; i + EMBER_VW <= planeSize; i += EMBER_VW)
      acc += loadv(x + i);
    if (i < planeSize)
      acc += loadPartial(x + i, planeSize - i);
    out[p] = hsum(acc) / float(planeSize);
  }
}
