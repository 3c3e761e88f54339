// MaxUnpool (scatter pooled values back to the indices MaxPool reported) and MaxRoiPool (max
// over bins of regions of interest), float kinds.
#include "NNCommon.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

template <typename T> Error maxUnpool(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::MaxUnpool::Input), idx = ctx.in(ops::MaxUnpool::Indices),
            y = ctx.out();
  const auto &unpooledAttr = ctx.attr<AttrKind::Dims>();
  const auto &pads = ctx.attr<AttrKind::Pads>(); // spatial begins, then ends
  DimsVec unpooled(unpooledAttr.begin(), unpooledAttr.end());
  ArrayRef<dim_t> unpooledSpatial = ArrayRef<dim_t>(unpooled).drop_front(2);
  size_t n = unpooledSpatial.size();
  size_t unpooledPlane = dimsProduct(unpooledSpatial, 0, n);
  size_t unpooledTotal = unpooled[0] * unpooled[1] * unpooledPlane;
  size_t outPlane = dimsProduct(spatialDims(y), 0, n);
  DimsVec outStrides = rowMajorStrides(spatialDims(y));

  const T *in = x.as<T>();
  const int64_t *indices = idx.as<int64_t>();
  T *out = y.as<T>();
  std::fill(out, out + y.numElements(), T(0.0f));
  SmallVector<int64_t, 6> coord(n);
  for (size_t i = 0, e = x.numElements(); i < e; ++i) {
    int64_t flat = indices[i];
    if (flat < 0 || uint64_t(flat) >= unpooledTotal)
      return ctx.unsupported("index " + Twine(flat) + " out of range for unpooled dims " +
                             intsToString(unpooledAttr));
    // The index addresses the unpooled tensor; the output is that tensor zero-padded.
    size_t plane = size_t(flat) / unpooledPlane;
    unflatten(size_t(flat) % unpooledPlane, unpooledSpatial, coord);
    size_t offset = plane * outPlane;
    for (size_t a = 0; a < n; ++a)
      offset += size_t(coord[a] + pads[a]) * outStrides[a];
    out[offset] = in[i];
  }
  return Error::success();
}

/// A region coordinate scaled to input cells, as Caffe (and onnxruntime) round it.
Expected<int64_t> scaledCoordinate(const KernelContext &ctx, double v, double scale) {
  double s = std::round(v * scale);
  if (!std::isfinite(s) || std::fabs(s) > double(int64_t(1) << 40))
    return ctx.unsupported("region coordinate " + std::to_string(v) + " out of range");
  return int64_t(s);
}

template <typename T> Error maxRoiPool(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::MaxRoiPool::Input), r = ctx.in(ops::MaxRoiPool::Rois), y = ctx.out();
  double scale = ctx.attr<AttrKind::SpatialScale>();
  int64_t batch = int64_t(x.dims()[0]), channels = int64_t(x.dims()[1]);
  int64_t height = int64_t(x.dims()[2]), width = int64_t(x.dims()[3]);
  int64_t pooledH = int64_t(y.dims()[2]), pooledW = int64_t(y.dims()[3]);
  const T *in = x.as<T>(), *rois = r.as<T>();
  T *out = y.as<T>();

  for (int64_t roi = 0, numRois = int64_t(r.dims()[0]); roi < numRois; ++roi) {
    const T *box = rois + roi * 5;
    double batchIndex = double(box[0]);
    if (!(batchIndex >= 0) || batchIndex >= double(batch) || batchIndex != std::floor(batchIndex))
      return ctx.unsupported("region " + Twine(roi) + " names batch " + std::to_string(batchIndex) +
                             ", input has " + Twine(batch));
    EMBER_ASSIGN_OR_RETURN(int64_t x1, scaledCoordinate(ctx, double(box[1]), scale));
    EMBER_ASSIGN_OR_RETURN(int64_t y1, scaledCoordinate(ctx, double(box[2]), scale));
    EMBER_ASSIGN_OR_RETURN(int64_t x2, scaledCoordinate(ctx, double(box[3]), scale));
    EMBER_ASSIGN_OR_RETURN(int64_t y2, scaledCoordinate(ctx, double(box[4]), scale));
    // A malformed region is forced to at least one cell.
    double binH = double(std::max<int64_t>(y2 - y1 + 1, 1)) / double(pooledH);
    double binW = double(std::max<int64_t>(x2 - x1 + 1, 1)) / double(pooledW);
    auto clamp = [](int64_t v, int64_t size) { return std::min(std::max<int64_t>(v, 0), size); };
    for (int64_t c = 0; c < channels; ++c) {
      const T *plane = in + (int64_t(batchIndex) * channels + c) * height * width;
      T *outPlane = out + (roi * channels + c) * pooledH * pooledW;
      for (int64_t ph = 0; ph < pooledH; ++ph) {
        int64_t hBegin = clamp(int64_t(std::floor(double(ph) * binH)) + y1, height);
        int64_t hEnd = clamp(int64_t(std::ceil(double(ph + 1) * binH)) + y1, height);
        for (int64_t pw = 0; pw < pooledW; ++pw) {
          int64_t wBegin = clamp(int64_t(std::floor(double(pw) * binW)) + x1, width);
          int64_t wEnd = clamp(int64_t(std::ceil(double(pw + 1) * binW)) + x1, width);
          // A bin outside the input is 0.
          bool empty = hEnd <= hBegin || wEnd <= wBegin;
          double best = empty ? 0.0 : -std::numeric_limits<double>::infinity();
          for (int64_t h = hBegin; h < hEnd; ++h)
            for (int64_t w = wBegin; w < wEnd; ++w)
              best = std::max(best, double(plane[h * width + w]));
          outPlane[ph * pooledW + pw] = T(FloatAccum<T>(best));
        }
      }
    }
  }
  return Error::success();
}

} // namespace

Error runMaxUnpool(const KernelContext &ctx) {
  return dispatchFloatKinds(ctx, [&](auto tag) { return maxUnpool<decltype(tag)>(ctx); });
}

Error runMaxRoiPool(const KernelContext &ctx) {
  return dispatchFloatKinds(ctx, [&](auto tag) { return maxRoiPool<decltype(tag)>(ctx); });
}

bool supportsMaxUnpool(const Node &n) { return resultKindIn(n, kFloatKinds); }
bool supportsMaxRoiPool(const Node &n) { return resultKindIn(n, kFloatKinds); }

} // namespace interp
} // namespace ember
