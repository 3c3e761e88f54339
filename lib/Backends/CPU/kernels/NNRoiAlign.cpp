// RoiAlign for the float kinds, with the Interpreter's semantics: where each region's samples
// lie, which cells they read and how they combine come from ember/Semantics/RoiAlign.h, shared
// with the Interpreter and the OpenCL kernels. A bad region (a batch index out of range, a
// coordinate that is not finite, too many samples) returns non-zero, which codegen turns into an
// error naming the instruction.
#include "ReduceCommon.h"

#include "ember/Semantics/RoiAlign.h"

namespace {

/// Parameters (CodeGenNNRoiAlign.cpp): batch, channels, height, width, pooled height, pooled
/// width, regions, sampling_ratio, half_pixel (1) or not, max (1) or avg.
template <typename T>
EMBER_INLINE i64 roiAlign(T *out, const T *in, const T *rois, const i64 *batchIndices,
                          const i64 *p, float scale) {
  i64 batch = p[0], channels = p[1], height = p[2], width = p[3], pooledH = p[4], pooledW = p[5],
      numRois = p[6], samplingRatio = p[7];
  int halfPixel = int(p[8]), maxMode = int(p[9]);
  for (i64 r = 0; r < numRois; ++r) {
    i64 image = batchIndices[r];
    if (image < 0 || image >= batch)
      return 1;
    double geometry[4];
    long grid[2];
    if (ember_roi_align_region(loadD(rois, r * 4), loadD(rois, r * 4 + 1),
                               loadD(rois, r * 4 + 2), loadD(rois, r * 4 + 3), double(scale),
                               halfPixel, pooledH, pooledW, samplingRatio, geometry, grid))
      return 2;
    for (i64 c = 0; c < channels; ++c) {
      const T *plane = in + (image * channels + c) * height * width;
      for (i64 ph = 0; ph < pooledH; ++ph)
        for (i64 pw = 0; pw < pooledW; ++pw) {
          double value;
          EMBER_ROI_ALIGN_BIN(value, geometry, grid, ph, pw, height, width, maxMode, loadD, plane,
                              0);
          out[((r * channels + c) * pooledH + ph) * pooledW + pw] = fromDouble<T>(value);
        }
    }
  }
  return 0;
}

} // namespace

#define EMBER_ROI_ALIGN(sfx, T)                                                                    \
  EMBER_KERNEL EMBER_NOINLINE i64 ember_roialign_##sfx(T *out, const T *in, const T *rois,        \
                                                       const i64 *batchIndices, const i64 *params, \
                                                       float scale) {                              \
    return roiAlign<T>(out, in, rois, batchIndices, params, scale);                                \
  }
EMBER_FOR_FLOAT_KINDS(EMBER_ROI_ALIGN)
#undef EMBER_ROI_ALIGN
