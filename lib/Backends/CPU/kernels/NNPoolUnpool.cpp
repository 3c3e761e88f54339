// MaxUnpool (scatter pooled values back to the flat indices MaxPool reported) and MaxRoiPool
// (max over the bins of regions of interest), float kinds, with the Interpreter's semantics
// (lib/Backends/Interpreter/NNPoolUnpool.cpp). Both can meet bad data at run time: they return a
// non-zero code then, which codegen turns into an error naming the instruction.
#include "NNConvGeneric.h"

using namespace nn;

namespace {

/// MaxUnpool's parameters (CodeGenNN.cpp: emitMaxUnpool): n, input elements, output elements,
/// unpooled elements, unpooled plane, output plane, then n entries each of the unpooled spatial
/// dims, the output's spatial row-major strides and the begin pads.
template <typename T>
EMBER_INLINE i64 maxUnpool(T *out, const T *in, const i64 *indices, const i64 *p) {
  i64 n = p[0], count = p[1], outTotal = p[2], unpooledTotal = p[3], unpooledPlane = p[4],
      outPlane = p[5];
  const i64 *dims = p + 6, *outStride = dims + n, *pad = outStride + n;
  // Zero is all bits clear in every float kind.
  __builtin_memset(out, 0, u64(outTotal) * sizeof(T));
  for (i64 i = 0; i < count; ++i) {
    i64 flat = indices[i];
    if (flat < 0 || flat >= unpooledTotal)
      return 1;
    // The index addresses the unpooled tensor; the output is that tensor zero-padded.
    i64 plane = flat / unpooledPlane, rest = flat % unpooledPlane, offset = plane * outPlane;
    for (i64 a = n; a-- > 0;) {
      offset += (rest % dims[a] + pad[a]) * outStride[a];
      rest /= dims[a];
    }
    out[offset] = in[i];
  }
  return 0;
}

/// Region coordinates beyond this (after scaling) are refused, as by the reference.
constexpr double kMaxCoordinate = double(i64(1) << 40);

/// A region coordinate scaled to input cells, rounded half away from zero (as Caffe and
/// onnxruntime); false when it is not finite or too large.
EMBER_INLINE bool scaledCoordinate(double v, double scale, i64 &out) {
  double s = __builtin_round(v * scale);
  if (!__builtin_isfinite(s) || __builtin_fabs(s) > kMaxCoordinate)
    return false;
  out = i64(s);
  return true;
}

/// MaxRoiPool's parameters: batch, channels, height, width, pooled height, pooled width,
/// regions.
struct RoiShape {
  i64 batch, channels, height, width, pooledH, pooledW, rois;
  explicit RoiShape(const i64 *p)
      : batch(p[0]), channels(p[1]), height(p[2]), width(p[3]), pooledH(p[4]), pooledW(p[5]),
        rois(p[6]) {}
};

/// Whether every region's batch index (column 0) is an integer in [0, batch).
template <typename T> EMBER_INLINE i64 checkRoiBatches(const T *rois, const i64 *params) {
  RoiShape s(params);
  for (i64 r = 0; r < s.rois; ++r) {
    double b = double(ld(rois, r * 5));
    if (!(b >= 0) || b >= double(s.batch) || b != __builtin_floor(b))
      return 1;
  }
  return 0;
}

EMBER_INLINE i64 clampTo(i64 v, i64 size) { return v < 0 ? 0 : v > size ? size : v; }

template <typename T>
EMBER_INLINE i64 maxRoiPool(T *out, const T *in, const T *rois, const i64 *params, float scaleF) {
  RoiShape s(params);
  double scale = double(scaleF);
  for (i64 r = 0; r < s.rois; ++r) {
    i64 batchIndex = i64(double(ld(rois, r * 5))); // checked by checkRoiBatches
    i64 x1, y1, x2, y2;
    if (!scaledCoordinate(double(ld(rois, r * 5 + 1)), scale, x1) ||
        !scaledCoordinate(double(ld(rois, r * 5 + 2)), scale, y1) ||
        !scaledCoordinate(double(ld(rois, r * 5 + 3)), scale, x2) ||
        !scaledCoordinate(double(ld(rois, r * 5 + 4)), scale, y2))
      return 1;
    // A malformed region is forced to at least one cell.
    double binH = double(maxI(y2 - y1 + 1, 1)) / double(s.pooledH);
    double binW = double(maxI(x2 - x1 + 1, 1)) / double(s.pooledW);
    for (i64 c = 0; c < s.channels; ++c) {
      const T *plane = in + (batchIndex * s.channels + c) * s.height * s.width;
      T *outPlane = out + (r * s.channels + c) * s.pooledH * s.pooledW;
      for (i64 ph = 0; ph < s.pooledH; ++ph) {
        i64 hBegin = clampTo(i64(__builtin_floor(double(ph) * binH)) + y1, s.height);
        i64 hEnd = clampTo(i64(__builtin_ceil(double(ph + 1) * binH)) + y1, s.height);
        for (i64 pw = 0; pw < s.pooledW; ++pw) {
          i64 wBegin = clampTo(i64(__builtin_floor(double(pw) * binW)) + x1, s.width);
          i64 wEnd = clampTo(i64(__builtin_ceil(double(pw + 1) * binW)) + x1, s.width);
          // A bin outside the input is 0; NaN never replaces a value (std::max keeps the
          // first argument unless it is less).
          bool empty = hEnd <= hBegin || wEnd <= wBegin;
          double best = empty ? 0.0 : -__builtin_inf();
          for (i64 h = hBegin; h < hEnd; ++h)
            for (i64 w = wBegin; w < wEnd; ++w) {
              double v = double(ld(plane, h * s.width + w));
              best = best < v ? v : best;
            }
          if constexpr (kSame<T, double>)
            outPlane[ph * s.pooledW + pw] = best;
          else
            st(outPlane, ph * s.pooledW + pw, float(best));
        }
      }
    }
  }
  return 0;
}

} // namespace

#define EMBER_UNPOOL(sfx, T)                                                                       \
  EMBER_KERNEL EMBER_NOINLINE i64 ember_maxunpool_##sfx(T *out, const T *in, const i64 *indices,  \
                                                        const i64 *params) {                       \
    return maxUnpool<T>(out, in, indices, params);                                                 \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE i64 ember_maxroipool_check_##sfx(const T *rois, const i64 *params) { \
    return checkRoiBatches<T>(rois, params);                                                       \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE i64 ember_maxroipool_##sfx(T *out, const T *in, const T *rois,      \
                                                         const i64 *params, float scale) {        \
    return maxRoiPool<T>(out, in, rois, params, scale);                                            \
  }
EMBER_FOR_FLOAT_KINDS(EMBER_UNPOOL)
#undef EMBER_UNPOOL
