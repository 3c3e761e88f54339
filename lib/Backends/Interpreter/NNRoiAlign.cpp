// The RoiAlign kernel: per region, channel and bin, the samples ember/Semantics/RoiAlign.h
// places, each interpolating 4 cells, combined as it says (EMBER_ROI_ALIGN_BIN).
#include "ReduceUtils.h"

#include "ember/Semantics/RoiAlign.h"

#include <string>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

template <typename T> Error roiAlign(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::RoiAlign::Input), r = ctx.in(ops::RoiAlign::Rois),
            b = ctx.in(ops::RoiAlign::BatchIndices), y = ctx.out();
  int64_t batch = int64_t(x.dims()[0]), channels = int64_t(x.dims()[1]);
  int64_t height = int64_t(x.dims()[2]), width = int64_t(x.dims()[3]);
  int64_t pooledH = int64_t(y.dims()[2]), pooledW = int64_t(y.dims()[3]);
  double scale = ctx.attr<AttrKind::SpatialScale>();
  int halfPixel = ctx.attr<AttrKind::CoordinateMode>() == "half_pixel";
  int maxMode = ctx.attr<AttrKind::Mode>() == "max";
  int64_t samplingRatio = ctx.attr<AttrKind::SamplingRatio>();
  const T *in = x.as<T>(), *rois = r.as<T>();
  const int64_t *batchIndices = b.as<int64_t>();
  T *out = y.as<T>();
  auto loadCell = [](const T *plane, int64_t at) { return load(plane[at]); };

  for (int64_t roi = 0, numRois = int64_t(r.dims()[0]); roi < numRois; ++roi) {
    int64_t image = batchIndices[roi];
    if (image < 0 || image >= batch)
      return ctx.unsupported("region " + Twine(roi) + " names batch " + Twine(image) +
                             ", input has " + Twine(batch));
    const T *box = rois + roi * 4;
    double geometry[4];
    long grid[2];
    if (ember_roi_align_region(load(box[0]), load(box[1]), load(box[2]), load(box[3]), scale,
                               halfPixel, pooledH, pooledW, samplingRatio, geometry, grid))
      return ctx.unsupported("region " + Twine(roi) +
                             " is not finite or needs more than 2^24 samples per bin");
    for (int64_t c = 0; c < channels; ++c) {
      const T *plane = in + (image * channels + c) * height * width;
      for (int64_t ph = 0; ph < pooledH; ++ph)
        for (int64_t pw = 0; pw < pooledW; ++pw) {
          double value;
          EMBER_ROI_ALIGN_BIN(value, geometry, grid, ph, pw, height, width, maxMode, loadCell,
                              plane, 0);
          out[((roi * channels + c) * pooledH + ph) * pooledW + pw] = toStorage<T>(value);
        }
    }
  }
  return Error::success();
}

} // namespace

Error runRoiAlign(const KernelContext &ctx) {
  return dispatchFloatKinds(ctx, ctx.out().type.kind,
                            [&](auto tag) { return roiAlign<decltype(tag)>(ctx); });
}

bool supportsRoiAlign(const Node &n) { return isFloatKind(resultKind(n)); }

} // namespace interp
} // namespace ember
