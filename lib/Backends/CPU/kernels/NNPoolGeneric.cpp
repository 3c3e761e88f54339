// MaxPool, AvgPool and LpPool for what the fast float32 2-D kernels (NNPool.cpp) do not take:
// any number of spatial dims, and every kind the Interpreter pools (float kinds; MaxPool also
// int8 and uint8). The window rules are the Interpreter's (lib/Backends/Interpreter/NNPool.cpp):
//  - only the window cells inside the real input are visited, row-major through the window, so
//    padding never wins a max and adds nothing to a sum;
//  - MaxPool: the first of equal maxima wins (a NaN never replaces a value, but a first NaN
//    stays); a window of padding alone gives the kind's lowest value (-inf for the 16-bit
//    floats, which have no finite `lowest` in the reference) and index -1; indices count over
//    the whole input (N and C included), the spatial part row-major or, with storage order 1,
//    column-major;
//  - AvgPool divides the sum (in double, nn::Acc) by the real cells, or with
//    count_include_pad by the window cells inside the padded input (cells past the end padding
//    in ceil mode count in neither); an empty count gives 0;
//  - LpPool: (sum of |x|^p)^(1/p), in double.
#include "NNConvGeneric.h"
#include "ember/Semantics/Pool.h"

#pragma clang fp contract(off)

using namespace nn;

namespace {

/// The parameter array codegen builds (CodeGenNN.cpp: poolNdParams): n, planes (N * C), then n
/// entries each of input dims, output dims, kernels, strides, begin pads, end pads, dilations.
struct PoolNd {
  i64 n, planes;
  const i64 *in, *out, *kernel, *stride, *padBegin, *padEnd, *dilation;
  explicit PoolNd(const i64 *p)
      : n(p[0]), planes(p[1]), in(p + 2), out(in + n), kernel(out + n), stride(kernel + n),
        padBegin(stride + n), padEnd(padBegin + n), dilation(padEnd + n) {}
};

/// One output cell's window: per axis the first input coordinate, the taps inside the input
/// [lo, hi), and how many taps lie inside the padded input.
struct Window {
  i64 start[kMaxSpatial], lo[kMaxSpatial], hi[kMaxSpatial];
  i64 cells = 1, padded = 1;
};

EMBER_INLINE void windowAxis(const PoolNd &s, i64 a, i64 o, Window &w) {
  i64 start = o * s.stride[a] - s.padBegin[a], d = s.dilation[a];
  w.start[a] = start;
  ember_pool_real_taps(start, d, s.kernel[a], s.in[a], &w.lo[a], &w.hi[a]);
  w.cells *= w.hi[a] - w.lo[a];
  w.padded *= ember_pool_padded_taps(start, d, s.kernel[a], s.in[a], s.padEnd[a]);
}

/// Calls fn(plane, outputOffset, window) for every output cell: plane-major, then row-major over
/// the output's spatial dims. The window's last axis is filled per cell, the others per row.
template <typename Fn> EMBER_INLINE void forEachWindow(const PoolNd &s, Fn fn) {
  i64 last = s.n - 1, OW = s.out[last], outPlane = 1;
  for (i64 a = 0; a < s.n; ++a)
    outPlane *= s.out[a];
  if (outPlane == 0)
    return;
  i64 rows = outPlane / OW;
  for (i64 p = 0; p < s.planes; ++p) {
    i64 o[kMaxSpatial] = {};
    for (i64 r = 0; r < rows; ++r, nextIndex(o, s.out, last)) {
      Window row;
      for (i64 a = 0; a < last; ++a)
        windowAxis(s, a, o[a], row);
      for (i64 ow = 0; ow < OW; ++ow) {
        Window w = row;
        windowAxis(s, last, ow, w);
        fn(p, r * OW + ow, w);
      }
    }
  }
}

/// Calls fn(rowOffset, colOffset) for each window row inside the input (the taps of every
/// axis but the last), row-major; the offsets are of the row's first cell (last coordinate 0)
/// in the row-major and column-major numbering of the input plane.
template <typename Fn>
EMBER_INLINE void forEachWindowRow(const PoolNd &s, const Window &w, const i64 *rowStride,
                                   const i64 *colStride, Fn fn) {
  if (w.cells == 0)
    return;
  i64 last = s.n - 1, j[kMaxSpatial];
  for (i64 a = 0; a < last; ++a)
    j[a] = w.lo[a];
  while (true) {
    i64 rowOffset = 0, colOffset = 0;
    for (i64 a = 0; a < last; ++a) {
      i64 c = w.start[a] + j[a] * s.dilation[a];
      rowOffset += c * rowStride[a];
      colOffset += c * colStride[a];
    }
    fn(rowOffset, colOffset);
    i64 a = last;
    while (a-- > 0) {
      if (++j[a] < w.hi[a])
        break;
      j[a] = w.lo[a];
    }
    if (a < 0)
      return;
  }
}

EMBER_INLINE void planeStrides(const PoolNd &s, i64 *rowStride, i64 *colStride, i64 &inPlane) {
  rowStride[s.n - 1] = 1;
  for (i64 a = s.n - 1; a-- > 0;)
    rowStride[a] = rowStride[a + 1] * s.in[a + 1];
  colStride[0] = 1;
  for (i64 a = 1; a < s.n; ++a)
    colStride[a] = colStride[a - 1] * s.in[a - 1];
  inPlane = rowStride[0] * s.in[0];
}

/// What a window of padding alone gives (the reference's numeric_limits<T>::lowest()).
template <typename T> EMBER_INLINE ComputeOf<T> lowestValue() {
  if constexpr (kSame<T, float>)
    return -__FLT_MAX__;
  else if constexpr (kSame<T, double>)
    return -__DBL_MAX__;
  else if constexpr (kIsFloat<T>)
    return -__builtin_inff();
  else
    return intMin<T>();
}

template <typename T>
EMBER_INLINE void maxPoolNd(T *out, i64 *indices, const T *in, const i64 *params, i64 colMajor) {
  typedef ComputeOf<T> C;
  PoolNd s(params);
  i64 rowStride[kMaxSpatial], colStride[kMaxSpatial], inPlane;
  planeStrides(s, rowStride, colStride, inPlane);
  i64 last = s.n - 1, DW = s.dilation[last], outPlane = 1;
  for (i64 a = 0; a < s.n; ++a)
    outPlane *= s.out[a];
  forEachWindow(s, [&](i64 p, i64 at, const Window &w) {
    const T *plane = in + p * inPlane;
    C best = lowestValue<T>();
    i64 bestIndex = -1;
    forEachWindowRow(s, w, rowStride, colStride, [&](i64 rowOffset, i64 colOffset) {
      for (i64 j = w.lo[last]; j < w.hi[last]; ++j) {
        i64 c = w.start[last] + j * DW;
        C v = ld(plane, rowOffset + c);
        if (bestIndex < 0 || v > best) {
          best = v;
          bestIndex = colMajor ? colOffset + c * colStride[last] : rowOffset + c;
        }
      }
    });
    st(out, p * outPlane + at, best);
    indices[p * outPlane + at] = bestIndex < 0 ? -1 : p * inPlane + bestIndex;
  });
}

/// AvgPool (lp == 0) and LpPool (lp: the p attribute).
template <typename T>
EMBER_INLINE void sumPoolNd(T *out, const T *in, const i64 *params, i64 countPad, float lp) {
  typedef Acc<T> A;
  PoolNd s(params);
  i64 rowStride[kMaxSpatial], colStride[kMaxSpatial], inPlane;
  planeStrides(s, rowStride, colStride, inPlane);
  i64 last = s.n - 1, DW = s.dilation[last], outPlane = 1;
  for (i64 a = 0; a < s.n; ++a)
    outPlane *= s.out[a];
  A p = A(lp), invP = A(1) / A(lp);
  forEachWindow(s, [&](i64 plane, i64 at, const Window &w) {
    const T *x = in + plane * inPlane;
    A sum = 0;
    forEachWindowRow(s, w, rowStride, colStride, [&](i64 rowOffset, i64) {
      const T *row = x + rowOffset + w.start[last];
      if (lp == 0.f) {
        for (i64 j = w.lo[last]; j < w.hi[last]; ++j)
          sum += A(ld(row, j * DW));
      } else {
        for (i64 j = w.lo[last]; j < w.hi[last]; ++j) {
          A v = A(ld(row, j * DW));
          sum += m_pow(mathAbs(v), p);
        }
      }
    });
    A result;
    if (lp == 0.f) {
      i64 count = ember_pool_average_divisor(w.cells, w.padded, int(countPad));
      result = count ? sum / A(count) : A(0);
    } else {
      result = m_pow(sum, invP);
    }
    st(out, plane * outPlane + at, ComputeOf<T>(result));
  });
}

} // namespace

#define EMBER_MAXPOOL_ND(sfx, T)                                                                   \
  EMBER_KERNEL EMBER_NOINLINE void ember_maxpool_nd_##sfx(T *out, i64 *indices, const T *in,      \
                                                          const i64 *params, i64 colMajor) {      \
    maxPoolNd<T>(out, indices, in, params, colMajor);                                              \
  }
EMBER_FOR_FLOAT_KINDS(EMBER_MAXPOOL_ND)
EMBER_MAXPOOL_ND(i8, i8)
EMBER_MAXPOOL_ND(u8, u8)
#undef EMBER_MAXPOOL_ND

#define EMBER_SUMPOOL_ND(sfx, T)                                                                   \
  EMBER_KERNEL EMBER_NOINLINE void ember_avgpool_nd_##sfx(T *out, const T *in, const i64 *params, \
                                                          i64 countPad) {                          \
    sumPoolNd<T>(out, in, params, countPad, 0.f);                                                  \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE void ember_lppool_nd_##sfx(T *out, const T *in, const i64 *params,  \
                                                         float p) {                                \
    sumPoolNd<T>(out, in, params, 0, p);                                                           \
  }
EMBER_FOR_FLOAT_KINDS(EMBER_SUMPOOL_ND)
#undef EMBER_SUMPOOL_ND
