// GridSample for the float kinds, with the Interpreter's semantics: the taps of each grid point
// come from ember/Semantics/GridSample.h, shared with the Interpreter and the OpenCL kernels,
// and are summed as weight * value in double, in tap order.
#include "ReduceCommon.h"

#include "ember/Semantics/GridSample.h"

namespace {

/// Parameters (CodeGenDataMovementGridSample.cpp): batch, channels, grid points per image, the
/// mode, padding and align_corners codes, the spatial rank r, then the r input dims.
template <typename T>
EMBER_INLINE void gridSample(T *out, const T *in, const T *grid, const i64 *p) {
  EMBER_PORTABLE_NO_FMA
  i64 batch = p[0], channels = p[1], points = p[2];
  int mode = int(p[3]), padding = int(p[4]), align = int(p[5]), rank = int(p[6]);
  long dims[EMBER_GRID_MAX_RANK];
  i64 volume = 1;
  for (int a = 0; a < rank; ++a) {
    dims[a] = long(p[7 + a]);
    volume *= p[7 + a];
  }
  long offsets[EMBER_GRID_MAX_TAPS];
  double weights[EMBER_GRID_MAX_TAPS], coords[EMBER_GRID_MAX_RANK];
  for (i64 n = 0; n < batch; ++n)
    for (i64 pt = 0; pt < points; ++pt) {
      // The grid lists a point's coordinates innermost axis first.
      i64 g = (n * points + pt) * rank;
      for (int a = 0; a < rank; ++a)
        coords[a] = loadD(grid, g + rank - 1 - a);
      int taps = ember_grid_sample_taps(coords, dims, rank, mode, padding, align, offsets,
                                        weights);
      for (i64 c = 0; c < channels; ++c) {
        const T *plane = in + (n * channels + c) * volume;
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
