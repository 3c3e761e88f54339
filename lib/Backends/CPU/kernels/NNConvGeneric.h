// Shared by the generic (any element kind, any spatial rank) convolution, pooling and
// matrix-product kernels: NNConvGeneric.cpp, NNConvGenericF32.cpp, NNPoolGeneric.cpp,
// NNPoolUnpool.cpp, NNMatMulGeneric.cpp. These take what the fast float32 2-D kernels (NNConv.cpp,
// NNGemm.cpp, NNPool.cpp) do not, and follow the Interpreter's reference loops
// (lib/Backends/Interpreter/NNConv.cpp, NNMatMul.cpp, NNPool.cpp) closely enough that every output
// element sums the same terms in the same order: with 16-bit results that keeps the final rounding
// identical, not merely close.
#ifndef EMBER_CPU_KERNELS_CONVGENERIC_H
#define EMBER_CPU_KERNELS_CONVGENERIC_H

#include "Activation.h"
#include "Libm.h"
#include "Types.h"


namespace nn {

/// Most spatial dims a generic kernel walks (its odometers live on the stack); codegen refuses
/// more (CodeGenNN.cpp: kMaxSpatialDims).
constexpr int kMaxSpatial = 8;

/// Output elements one accumulator block holds: the blocks of a row are independent, so the
/// accumulators stay in registers/L1 while the taps stream over them.
constexpr i64 kBlock = 64;

/// What products and sums accumulate in, as the Interpreter's FloatAccum and ProductArith:
/// double for every float kind, each sum rounded once; wrapping u64 for the integers.
template <typename T> struct AccOf {
  typedef u64 type;
};
template <> struct AccOf<float> {
  typedef double type;
};
template <> struct AccOf<double> {
  typedef double type;
};
template <> struct AccOf<f16> {
  typedef double type;
};
template <> struct AccOf<bf16> {
  typedef double type;
};
template <typename T> using Acc = typename AccOf<T>::type;

/// Element i of p widened to its accumulator (integers sign-extend through i64, so the
/// modular u64 arithmetic gives the two's complement result of any width).
template <typename T> EMBER_INLINE Acc<T> widen(const T *p, i64 i) {
  if constexpr (kIsInt<T>)
    return u64(i64(p[i]));
  else
    return Acc<T>(ld(p, i));
}

/// An accumulator rounded to T, as the compute value of the stored element (integers keep
/// their low bits).
template <typename T> EMBER_INLINE ComputeOf<T> narrow(Acc<T> v) {
  if constexpr (kIsInt<T>)
    return ComputeOf<T>(T(i64(v)));
  else
    return Elem<T>::load(Elem<T>::store(ComputeOf<T>(v)));
}

EMBER_INLINE float mathAbs(float x) { return __builtin_fabsf(x); }
EMBER_INLINE double mathAbs(double x) { return __builtin_fabs(x); }

/// floor(a / b) and ceil(a / b) for b > 0 and any sign of a.
EMBER_INLINE i64 floorDiv(i64 a, i64 b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
EMBER_INLINE i64 ceilDiv(i64 a, i64 b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

/// The taps j in [0, kernel) whose coordinate start + j * dilation lies in [0, size): [lo, hi).
EMBER_INLINE void validTaps(i64 start, i64 dilation, i64 kernel, i64 size, i64 &lo, i64 &hi) {
  lo = start >= 0 ? 0 : ceilDiv(-start, dilation);
  i64 last = size - 1 - start;
  hi = last < 0 ? 0 : minI(kernel, last / dilation + 1);
  if (hi < lo)
    hi = lo;
}

/// Advances the row-major multi-index idx over dims[0, n); false after the last.
EMBER_INLINE bool nextIndex(i64 *idx, const i64 *dims, i64 n) {
  for (i64 a = n; a-- > 0;) {
    if (++idx[a] < dims[a])
      return true;
    idx[a] = 0;
  }
  return false;
}

/// The parameter array codegen builds (CodeGenNN.cpp: convNdParams): n, N, C, K, G, then n
/// entries each of input dims, output dims, kernel dims, strides, begin pads, dilations.
struct ConvNd {
  i64 n, N, C, K, G;
  const i64 *in, *out, *kernel, *stride, *pad, *dilation;
  explicit ConvNd(const i64 *p)
      : n(p[0]), N(p[1]), C(p[2]), K(p[3]), G(p[4]), in(p + 5), out(in + n), kernel(out + n),
        stride(kernel + n), pad(stride + n), dilation(pad + n) {}
};

EMBER_INLINE i64 product(const i64 *d, i64 n) {
  i64 p = 1;
  for (i64 a = 0; a < n; ++a)
    p *= d[a];
  return p;
}

/// Row-major element strides of the leading n - 1 spatial dims of an input plane (the last
/// axis has stride 1).
EMBER_INLINE void rowStrides(const ConvNd &s, i64 *stride) {
  stride[s.n - 1] = 1;
  for (i64 a = s.n - 1; a-- > 0;)
    stride[a] = stride[a + 1] * s.in[a + 1];
}

/// The offset within an input plane of the row that kernel row k (tap coordinates but the
/// last) reads for output row o, or -1 when that falls into padding or, transposed, between
/// strides. Conv reads i = o*stride - pad + k*dilation; ConvTranspose scatters i to that o, so
/// it reads i = (o + pad - k*dilation) / stride when that divides.
template <bool kTransposed>
EMBER_INLINE i64 inputRow(const ConvNd &s, const i64 *o, const i64 *k, const i64 *inStride) {
  i64 offset = 0;
  for (i64 a = 0; a < s.n - 1; ++a) {
    i64 i;
    if (!kTransposed) {
      i = o[a] * s.stride[a] - s.pad[a] + k[a] * s.dilation[a];
    } else {
      i64 t = o[a] + s.pad[a] - k[a] * s.dilation[a];
      if (t < 0 || t % s.stride[a] != 0)
        return -1;
      i = t / s.stride[a];
    }
    if (i < 0 || i >= s.in[a])
      return -1;
    offset += i * inStride[a];
  }
  return offset;
}

} // namespace nn

#endif
