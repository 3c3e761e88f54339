// RoiAlign's sampling (ONNX RoiAlign-10 and -16, as onnxruntime computes it), written once for
// the Interpreter, the CPU kernels and the OpenCL kernels (ember/Semantics/Portable.h says how).
// A backend's kernel walks regions, channels and bins, asks these functions where each region's
// bins lie, and computes each bin with EMBER_ROI_ALIGN_BIN, which walks its sample points.
//
// A region (x1, y1, x2, y2) is scaled by spatial_scale and, with half_pixel, shifted by -0.5;
// without it (output_half_pixel, and all of RoiAlign-10) a region is at least 1 x 1. It splits
// into pooled_h x pooled_w bins; each bin is sampled on a grid of sampling_ratio points per axis
// (0: ceil(region size / pooled size)) at the points' centres, each sample a bilinear
// interpolation of the 4 cells around it. avg is the samples' mean; max is onnxruntime's: the
// largest of the weighted cell values w * v over the bin's samples (not the largest sample).
#ifndef EMBER_SEMANTICS_ROIALIGN_H
#define EMBER_SEMANTICS_ROIALIGN_H

#ifndef __OPENCL_C_VERSION__
#include "ember/Semantics/Portable.h"
#endif

/// At most this many sample points per bin (2^24: a 4096 x 4096 grid); a region that asks for
/// more is refused, as is one whose coordinates are not finite.
#define EMBER_ROI_ALIGN_MAX_SAMPLES 16777216.0

/// Region (\p x1, \p y1, \p x2, \p y2)'s bins: writes \p geometry = {start y, start x, bin height,
/// bin width} and \p grid = {samples per bin along y, along x}. Returns 0, or 1 when the region
/// is refused (not finite, or more than EMBER_ROI_ALIGN_MAX_SAMPLES samples per bin).
EMBER_PORTABLE int ember_roi_align_region(double x1, double y1, double x2, double y2,
                                          double scale, int halfPixel, long pooledH,
                                          long pooledW, long samplingRatio, double *geometry,
                                          long *grid) {
  EMBER_PORTABLE_NO_FMA
  double offset = halfPixel ? 0.5 : 0.0;
  double startY = y1 * scale - offset, startX = x1 * scale - offset;
  double height = y2 * scale - offset - startY, width = x2 * scale - offset - startX;
  if (!halfPixel) { // malformed regions are forced to 1 x 1
    height = height < 1 ? 1 : height;
    width = width < 1 ? 1 : width;
  }
  geometry[0] = startY;
  geometry[1] = startX;
  geometry[2] = height / (double)pooledH;
  geometry[3] = width / (double)pooledW;
  double gridY = samplingRatio > 0 ? (double)samplingRatio : EMBER_CEIL(height / (double)pooledH);
  double gridX = samplingRatio > 0 ? (double)samplingRatio : EMBER_CEIL(width / (double)pooledW);
  // A negative size (an inverted region with half_pixel) samples nothing.
  gridY = gridY < 0 ? 0 : gridY;
  gridX = gridX < 0 ? 0 : gridX;
  for (int i = 0; i < 4; ++i)
    if (!(EMBER_FABS(geometry[i]) <= 1.0e300))
      return 1;
  if (!(gridY * gridX <= EMBER_ROI_ALIGN_MAX_SAMPLES) ||
      !(gridY <= EMBER_ROI_ALIGN_MAX_SAMPLES && gridX <= EMBER_ROI_ALIGN_MAX_SAMPLES))
    return 1;
  grid[0] = (long)gridY;
  grid[1] = (long)gridX;
  return 0;
}

/// The coordinate of sample \p i of \p samples in bin \p bin of a region axis starting at
/// \p start with bins of \p size: the centre of the sample's share of the bin.
EMBER_PORTABLE double ember_roi_align_point(double start, long bin, double size, long i,
                                            long samples) {
  EMBER_PORTABLE_NO_FMA
  return start + (double)bin * size + ((double)i + 0.5) * size / (double)samples;
}

/// The 4 cells sample point (\p y, \p x) of an \p h x \p w plane (h, w > 0) interpolates: their
/// \p offsets (row * w + column) and \p weights; all weights 0 when the point is more than a
/// cell outside the plane (or NaN). A point within a cell of the border reads the border.
EMBER_PORTABLE void ember_roi_align_taps(double y, double x, long h, long w, long *offsets,
                                         double *weights) {
  EMBER_PORTABLE_NO_FMA
  if (!(y >= -1.0 && y <= (double)h && x >= -1.0 && x <= (double)w)) {
    for (int t = 0; t < 4; ++t) {
      offsets[t] = 0;
      weights[t] = 0;
    }
    return;
  }
  y = y <= 0 ? 0 : y;
  x = x <= 0 ? 0 : x;
  long yLow = (long)y, xLow = (long)x, yHigh = yLow + 1, xHigh = xLow + 1;
  if (yLow >= h - 1) {
    yLow = yHigh = h - 1;
    y = (double)yLow;
  }
  if (xLow >= w - 1) {
    xLow = xHigh = w - 1;
    x = (double)xLow;
  }
  double ly = y - (double)yLow, lx = x - (double)xLow, hy = 1 - ly, hx = 1 - lx;
  offsets[0] = yLow * w + xLow;
  offsets[1] = yLow * w + xHigh;
  offsets[2] = yHigh * w + xLow;
  offsets[3] = yHigh * w + xHigh;
  weights[0] = hy * hx;
  weights[1] = hy * lx;
  weights[2] = ly * hx;
  weights[3] = ly * lx;
}

/// The 4 cells sample (\p iy, \p ix) of bin (\p ph, \p pw) reads in an \p h x \p w plane, for
/// a region of \p geometry and \p grid (ember_roi_align_region): ember_roi_align_taps of the
/// sample's centre.
EMBER_PORTABLE void ember_roi_align_sample(const double *geometry, const long *grid, long ph,
                                           long pw, long iy, long ix, long h, long w,
                                           long *offsets, double *weights) {
  ember_roi_align_taps(ember_roi_align_point(geometry[0], ph, geometry[2], iy, grid[0]),
                       ember_roi_align_point(geometry[1], pw, geometry[3], ix, grid[1]), h, w,
                       offsets, weights);
}

/// \p acc after one more sample, whose 4 cells hold \p values with \p weights: avg adds the
/// weighted sum; max keeps the largest weighted value (\p first: the bin's first sample).
EMBER_PORTABLE double ember_roi_align_add(double acc, int first, int maxMode,
                                          const double *values, const double *weights) {
  EMBER_PORTABLE_NO_FMA
  if (!maxMode)
    return acc + (weights[0] * values[0] + weights[1] * values[1] + weights[2] * values[2] +
                  weights[3] * values[3]);
  double best = weights[0] * values[0];
  for (int t = 1; t < 4; ++t) { // std::max(best, v): a NaN first argument stays
    double v = weights[t] * values[t];
    best = best < v ? v : best;
  }
  return first || acc < best ? best : acc;
}

/// A bin's result from its accumulator \p acc over a \p gridY x \p gridX grid of samples.
EMBER_PORTABLE double ember_roi_align_result(double acc, long gridY, long gridX, int maxMode) {
  if (maxMode)
    return acc; // 0 when the bin had no samples
  long count = gridY * gridX;
  return acc / (double)(count > 1 ? count : 1);
}

/// Sets the double \p result to bin (\p ph, \p pw) of a region of \p geometry and \p grid
/// (ember_roi_align_region) over an \p h x \p w plane, whose cells LOAD(src, base + offset)
/// reads: the samples row-major over the bin's grid, each adding its 4 taps in order. A macro
/// because the three compilers share no way to pass an element kind's load; each backend names
/// its own (a function, a lambda or an OpenCL LOAD_<kind> macro).
#define EMBER_ROI_ALIGN_BIN(result, geometry, grid, ph, pw, h, w, maxMode, LOAD, src, base)      \
  do {                                                                                         \
    double emberAcc = 0;                                                                       \
    for (long emberIy = 0; emberIy < (grid)[0]; ++emberIy)                                     \
      for (long emberIx = 0; emberIx < (grid)[1]; ++emberIx) {                                 \
        long emberOffsets[4];                                                                  \
        double emberWeights[4], emberValues[4];                                                \
        ember_roi_align_sample(geometry, grid, ph, pw, emberIy, emberIx, h, w, emberOffsets,   \
                               emberWeights);                                                  \
        for (int emberTap = 0; emberTap < 4; ++emberTap)                                       \
          emberValues[emberTap] = (double)LOAD(src, (base) + emberOffsets[emberTap]);          \
        emberAcc = ember_roi_align_add(emberAcc, emberIy == 0 && emberIx == 0, maxMode,       \
                                       emberValues, emberWeights);                             \
      }                                                                                        \
    (result) = ember_roi_align_result(emberAcc, (grid)[0], (grid)[1], maxMode);                \
  } while (0)

#endif
