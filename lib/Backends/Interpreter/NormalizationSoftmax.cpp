// Softmax, LogSoftmax and Hardmax along one axis, for the float kinds (computed in double).
// Each line along the axis is normalized on its own.
#include "ReduceUtils.h"

using namespace llvm;

namespace ember {
namespace interp {

namespace {

enum class Normalizer { Softmax, LogSoftmax, Hardmax };

/// Writes the normalized \p line into \p line itself.
void normalizeLine(Normalizer how, std::vector<double> &line) {
  // Subtracting the max makes every exponent <= 0, so exp cannot overflow.
  size_t argmax = 0;
  for (size_t k = 1; k < line.size(); ++k)
    if (line[k] > line[argmax])
      argmax = k;
  double maxVal = line[argmax];
  if (how == Normalizer::Hardmax) {
    for (size_t k = 0; k < line.size(); ++k)
      line[k] = k == argmax ? 1.0 : 0.0;
    return;
  }
  double sum = 0;
  for (double v : line)
    sum += std::exp(v - maxVal);
  for (double &v : line)
    v = how == Normalizer::Softmax ? std::exp(v - maxVal) / sum : v - maxVal - std::log(sum);
}

Error runAlongAxis(const KernelContext &ctx, Normalizer how) {
  TensorArg x = ctx.in(0), y = ctx.out();
  AxisView view(x.dims(), size_t(ctx.attr<AttrKind::Axis>())); // the shape rule checked it
  return dispatchFloatKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    const T *in = x.as<T>();
    T *out = y.as<T>();
    std::vector<double> line(view.len);
    for (size_t l = 0; l < view.lines(); ++l) {
      size_t start = view.lineStart(l);
      for (size_t k = 0; k < view.len; ++k)
        line[k] = double(in[start + k * view.inner]);
      if (!line.empty())
        normalizeLine(how, line);
      for (size_t k = 0; k < view.len; ++k)
        out[start + k * view.inner] = toStorage<T>(line[k]);
    }
    return Error::success();
  });
}

} // namespace

Error runSoftmax(const KernelContext &ctx) { return runAlongAxis(ctx, Normalizer::Softmax); }
Error runLogSoftmax(const KernelContext &ctx) { return runAlongAxis(ctx, Normalizer::LogSoftmax); }
Error runHardmax(const KernelContext &ctx) { return runAlongAxis(ctx, Normalizer::Hardmax); }

bool supportsSoftmax(const Node &n) { return isFloatKind(resultKind(n)); }
bool supportsLogSoftmax(const Node &n) { return isFloatKind(resultKind(n)); }
bool supportsHardmax(const Node &n) { return isFloatKind(resultKind(n)); }

} // namespace interp
} // namespace ember
