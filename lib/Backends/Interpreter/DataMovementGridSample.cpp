// The GridSample kernel: for each result element, the taps ember/Semantics/GridSample.h gives
// its grid point, summed as weight * value in double.
#include "ReduceUtils.h"

#include "ember/Semantics/GridSample.h"

using namespace llvm;

namespace ember {
namespace interp {

namespace {

template <typename T> Error gridSample(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::GridSample::Input), g = ctx.in(ops::GridSample::Grid), y = ctx.out();
  int rank = int(x.dims().size()) - 2;
  int64_t batch = int64_t(x.dims()[0]), channels = int64_t(x.dims()[1]);
  long dims[EMBER_GRID_MAX_RANK];
  int64_t volume = 1, points = 1;
  for (int a = 0; a < rank; ++a) {
    dims[a] = long(x.dims()[2 + a]);
    volume *= int64_t(dims[a]);
    points *= int64_t(y.dims()[2 + a]);
  }
  int mode = ember_grid_mode_code(ctx.attr<AttrKind::Mode>().c_str());
  int padding = ember_grid_padding_code(ctx.attr<AttrKind::PaddingMode>().c_str());
  int align = int(ctx.attr<AttrKind::AlignCorners>());
  const T *in = x.as<T>(), *grid = g.as<T>();
  T *out = y.as<T>();
  long offsets[EMBER_GRID_MAX_TAPS];
  double weights[EMBER_GRID_MAX_TAPS], coords[EMBER_GRID_MAX_RANK];
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t p = 0; p < points; ++p) {
      // The grid lists a point's coordinates innermost axis first.
      const T *point = grid + (n * points + p) * rank;
      for (int a = 0; a < rank; ++a)
        coords[a] = load(point[rank - 1 - a]);
      int taps = ember_grid_sample_taps(coords, dims, rank, mode, padding, align, offsets,
                                        weights);
      for (int64_t c = 0; c < channels; ++c) {
        const T *plane = in + (n * channels + c) * volume;
        double sum = 0;
        for (int t = 0; t < taps; ++t)
          sum += weights[t] * (offsets[t] < 0 ? 0.0 : load(plane[offsets[t]]));
        out[(n * channels + c) * points + p] = toStorage<T>(sum);
      }
    }
  return Error::success();
}

} // namespace

Error runGridSample(const KernelContext &ctx) {
  return dispatchFloatKinds(ctx, ctx.out().type.kind,
                            [&](auto tag) { return gridSample<decltype(tag)>(ctx); });
}

bool supportsGridSample(const Node &n) { return isFloatKind(resultKind(n)); }

} // namespace interp
} // namespace ember
