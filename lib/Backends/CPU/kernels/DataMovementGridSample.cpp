// GridSample for the float kinds, with the Interpreter's semantics: the taps of each grid point
// come from ember/Semantics/GridSample.h, shared with the Interpreter and the OpenCL kernels,
// and are summed as weight * value in double, in tap order.
#include "ReduceCommon.h"

#include "ember/Semantics/GridSample.h"

namespace {

/// Parameters (CodeGenDataMovementGridSample.cpp): batch, channels, input height and width,
/// grid points per image, then the mode, padding and align_corners codes.
template <typename T>
EMBER_INLINE void gridSample(T *out, const T *in, const T *grid, const i64 *p) {
  EMBER_PORTABLE_NO_FMA
  i64 batch = p[0], channels = p[1], height = p[2], width = p[3], points = p[4];
  int mode = int(p[5]), padding = int(p[6]), align = int(p[7]);
  long offsets[EMBER_GRID_MAX_TAPS];
  double weights[EMBER_GRID_MAX_TAPS];
  for (i64 n = 0; n < batch; ++n)
    for (i64 pt = 0; pt < points; ++pt) {
      i64 g = (n * points + pt) * 2;
      int taps = ember_grid_sample_taps(loadD(grid, g), loadD(grid, g + 1), height, width, mode,
                                        padding, align, offsets, weights);
      for (i64 c = 0; c < channels; ++c) {
        const T *plane = in + (n * channels + c) * height * width;
        double sum = 0;
        for (int t = 0; t < taps; ++t)
          sum += weights[t] * (offsets[t] < 0 ? 0.0 : loadD(plane, offsets[t]));
        out[(n * channels + c) * points + pt] = fromDouble<T>(sum);
      }
    }
}

} // namespace

#define EMBER_GRID_SAMPLE(sfx, T)                                                                  \
  EMBER_KERNEL EMBER_NOINLINE void ember_gridsample_##sfx(T *out, const T *in, const T *grid,     \
                                                          const i64 *params) {                     \
    gridSample<T>(out, in, grid, params);                                                          \
  }
EMBER_FOR_FLOAT_KINDS(EMBER_GRID_SAMPLE)
#undef EMBER_GRID_SAMPLE
