// Normalization kernels for the float kinds (float16 and bfloat16 compute as float, all in
// double): batch norm (inference and training), instance norm, layer norm, mean-variance
// normalization and LRN. Each normalizes groups of elements by their mean and variance;
// forEachReduced names an element's group.
#include "ReduceUtils.h"

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// out = scale[c] * (in - mean[g]) / sqrt(var[g] + eps) + bias[c], with g the element's group
/// over the \p reduced axes and c its channel (axis 1).
template <typename T>
void normalizeChannels(const KernelContext &ctx, const Moments &m, ArrayRef<bool> reduced) {
  TensorArg x = ctx.in(0), y = ctx.out();
  std::vector<double> scale = readAsDoubles(ctx.in(1)), bias = readAsDoubles(ctx.in(2));
  double eps = ctx.attr<AttrKind::Epsilon>();
  const DimsVec &dims = x.dims();
  size_t C = dims[1], inner = dimsProduct(dims, 2, dims.size());
  const T *in = x.as<T>();
  T *out = y.as<T>();
  forEachReduced(dims, reduced, [&](size_t i, size_t g) {
    size_t c = (i / inner) % C;
    out[i] =
        toStorage<T>(scale[c] * (double(in[i]) - m.mean[g]) / std::sqrt(m.var[g] + eps) + bias[c]);
  });
}

/// Every axis but the channel axis 1: batch norm's statistics are per channel.
SmallVector<bool, 6> allButChannels(size_t rank) {
  SmallVector<bool, 6> mask(rank, true);
  mask[1] = false;
  return mask;
}

} // namespace

Error runBatchNorm(const KernelContext &ctx) {
  Moments m{readAsDoubles(ctx.in(ops::BatchNorm::Mean)),
            readAsDoubles(ctx.in(ops::BatchNorm::Var))};
  return dispatchFloatKinds(ctx, ctx.out().type.kind, [&](auto tag) -> Error {
    normalizeChannels<decltype(tag)>(ctx, m, allButChannels(ctx.out().dims().size()));
    return Error::success();
  });
}

Error runBatchNormTraining(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::BatchNormTraining::Input);
  SmallVector<bool, 6> mask = allButChannels(x.dims().size());
  double momentum = ctx.attr<AttrKind::Momentum>();
  return dispatchFloatKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    Moments batch = momentsOver(x.as<T>(), x.dims(), mask);
    normalizeChannels<T>(ctx, batch, mask);
    // running = old * momentum + batch * (1 - momentum), in the statistics' own kind.
    auto updateRunning = [&](unsigned operand, unsigned result, const std::vector<double> &now) {
      std::vector<double> old = readAsDoubles(ctx.in(operand));
      TensorArg r = ctx.out(result);
      return dispatchFloatKinds(ctx, r.type.kind, [&](auto statTag) -> Error {
        using S = decltype(statTag);
        for (size_t c = 0; c < old.size(); ++c)
          r.as<S>()[c] = toStorage<S>(old[c] * momentum + now[c] * (1 - momentum));
        return Error::success();
      });
    };
    EMBER_TRY(updateRunning(ops::BatchNormTraining::Mean, ops::BatchNormTraining::RunningMean,
                            batch.mean));
    return updateRunning(ops::BatchNormTraining::Var, ops::BatchNormTraining::RunningVar,
                         batch.var);
  });
}

Error runInstanceNorm(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::InstanceNorm::Input);
  // Statistics per sample and channel: over the spatial axes 2...
  SmallVector<bool, 6> mask(x.dims().size(), true);
  mask[0] = mask[1] = false;
  return dispatchFloatKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    normalizeChannels<T>(ctx, momentsOver(x.as<T>(), x.dims(), mask), mask);
    return Error::success();
  });
}

Error runLayerNorm(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::LayerNorm::Input), y = ctx.out(ops::LayerNorm::Result);
  TensorArg meanOut = ctx.out(ops::LayerNorm::Mean);
  TensorArg invStdOut = ctx.out(ops::LayerNorm::InvStdDev);
  size_t axis = size_t(ctx.attr<AttrKind::Axis>());
  double eps = ctx.attr<AttrKind::Epsilon>();
  const DimsVec &dims = x.dims();
  SmallVector<bool, 6> mask(dims.size(), false);
  for (size_t a = axis; a < dims.size(); ++a)
    mask[a] = true;
  // Scale and Bias cover the normalized block [axis..]: element i uses entry i % block.
  size_t block = dimsProduct(dims, axis, dims.size());
  std::vector<double> scale = readAsDoubles(ctx.in(ops::LayerNorm::Scale));
  std::vector<double> bias = readAsDoubles(ctx.in(ops::LayerNorm::Bias));
  return dispatchFloatKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    Moments m = momentsOver(x.as<T>(), dims, mask);
    std::vector<double> invStd(m.var.size());
    for (size_t g = 0; g < invStd.size(); ++g)
      invStd[g] = 1.0 / std::sqrt(m.var[g] + eps);
    const T *in = x.as<T>();
    T *out = y.as<T>();
    forEachReduced(dims, mask, [&](size_t i, size_t g) {
      out[i] = toStorage<T>((double(in[i]) - m.mean[g]) * invStd[g] * scale[i % block] +
                            bias[i % block]);
    });
    return dispatchFloatKinds(ctx, meanOut.type.kind, [&](auto statTag) -> Error {
      using S = decltype(statTag);
      for (size_t g = 0; g < invStd.size(); ++g) {
        meanOut.as<S>()[g] = toStorage<S>(m.mean[g]);
        invStdOut.as<S>()[g] = toStorage<S>(invStd[g]);
      }
      return Error::success();
    });
  });
}

Error runMeanVarNorm(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::MeanVarNorm::Input), y = ctx.out();
  SmallVector<bool, 6> mask = axesMask(x.dims().size(), ctx.attr<AttrKind::Axes>());
  double eps = ctx.attr<AttrKind::Epsilon>();
  return dispatchFloatKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    const T *in = x.as<T>();
    T *out = y.as<T>();
    Moments m = momentsOver(in, x.dims(), mask);
    forEachReduced(x.dims(), mask, [&](size_t i, size_t g) {
      out[i] = toStorage<T>((double(in[i]) - m.mean[g]) / (std::sqrt(m.var[g]) + eps));
    });
    return Error::success();
  });
}

Error runLRN(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::LRN::Input), y = ctx.out();
  double alpha = ctx.attr<AttrKind::Alpha>(), beta = ctx.attr<AttrKind::Beta>();
  double bias = ctx.attr<AttrKind::Bias>();
  size_t size = size_t(ctx.attr<AttrKind::Size>());
  // The window around channel c: [c - floor((size-1)/2), c + ceil((size-1)/2)], clipped.
  size_t before = (size - 1) / 2, after = size / 2;
  AxisView view(x.dims(), 1);
  return dispatchFloatKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    const T *in = x.as<T>();
    T *out = y.as<T>();
    for (size_t line = 0; line < view.lines(); ++line) {
      size_t start = view.lineStart(line);
      for (size_t c = 0; c < view.len; ++c) {
        size_t first = c >= before ? c - before : 0, last = std::min(view.len - 1, c + after);
        double squares = 0;
        for (size_t j = first; j <= last; ++j) {
          double v = double(in[start + j * view.inner]);
          squares += v * v;
        }
        size_t at = start + c * view.inner;
        out[at] =
            toStorage<T>(double(in[at]) / std::pow(bias + alpha / double(size) * squares, beta));
      }
    }
    return Error::success();
  });
}

bool supportsBatchNorm(const Node &n) { return isFloatKind(resultKind(n)); }
bool supportsBatchNormTraining(const Node &n) { return isFloatKind(resultKind(n)); }
bool supportsInstanceNorm(const Node &n) { return isFloatKind(resultKind(n)); }
bool supportsLayerNorm(const Node &n) { return isFloatKind(resultKind(n)); }
bool supportsMeanVarNorm(const Node &n) { return isFloatKind(resultKind(n)); }
bool supportsLRN(const Node &n) { return isFloatKind(resultKind(n)); }

} // namespace interp
} // namespace ember
