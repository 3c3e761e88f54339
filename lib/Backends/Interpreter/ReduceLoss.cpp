// Interpreter kernel: negative log likelihood loss, float kinds, int32 or int64 targets.
// SoftmaxCrossEntropyLoss is LogSoftmax followed by this node.
#include "ReduceUtils.h"

using namespace llvm;

namespace ember {
namespace interp {

Error runNLLLoss(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::NLLLoss::Input), target = ctx.in(ops::NLLLoss::Target);
  std::vector<double> weight = readAsDoubles(ctx.in(ops::NLLLoss::Weight));
  const std::vector<int64_t> &ignore = ctx.attr<AttrKind::IgnoreIndex>();
  const std::string &how = ctx.attr<AttrKind::Reduction>();
  if (how != "none" && how != "sum" && how != "mean")
    return ctx.unsupported("unknown reduction '" + how + "'");
  bool perElement = how == "none";
  // Input [N, C, d...] is seen as [N, C, D], the target [N, d...] as [N, D].
  const DimsVec &dims = x.dims();
  size_t N = dims[0], C = dims[1], D = dimsProduct(dims, 2, dims.size());
  auto targetAt = [&](size_t i) {
    return target.type.kind == ElemKind::Int32 ? int64_t(target.as<int32_t>()[i])
                                               : target.as<int64_t>()[i];
  };
  return dispatchFloatKinds(ctx, x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    const T *in = x.as<T>();
    T *out = ctx.out().as<T>();
    double lossSum = 0, weightSum = 0;
    for (size_t n = 0; n < N; ++n) {
      for (size_t d = 0; d < D; ++d) {
        int64_t t = targetAt(n * D + d);
        double loss = 0, w = 0;
        if (ignore.empty() || t != ignore[0]) {
          if (t < 0 || uint64_t(t) >= C)
            return ctx.unsupported("target " + Twine(t) + " at position " + Twine(n * D + d) +
                                   " is not a class index in [0, " + Twine(C) + ")");
          w = weight[t];
          loss = -double(in[(n * C + size_t(t)) * D + d]) * w;
        }
        if (perElement)
          out[n * D + d] = toStorage<T>(loss);
        lossSum += loss;
        weightSum += w;
      }
    }
    if (how == "sum")
      out[0] = toStorage<T>(lossSum);
    else if (how == "mean")
      out[0] = toStorage<T>(lossSum / weightSum); // 0/0 is NaN when every target is ignored
    return Error::success();
  });
}

bool supportsNLLLoss(const Node &n) { return isFloatKind(resultKind(n)); }

} // namespace interp
} // namespace ember
