// Normalization kernels, float32: inference BatchNorm over channel axis 1, and Softmax along one
// axis. Both view the tensor as [outer, axis, inner] so that any rank works with three loops.
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace ember {
namespace interp {

Error runBatchNorm(const KernelContext &ctx) {
  EMBER_TRY(expectFloat32(ctx));
  TensorArg x = ctx.in(ops::BatchNorm::Input), y = ctx.out();
  const float *scale = ctx.in(ops::BatchNorm::Scale).as<float>();
  const float *bias = ctx.in(ops::BatchNorm::Bias).as<float>();
  const float *mean = ctx.in(ops::BatchNorm::Mean).as<float>();
  const float *var = ctx.in(ops::BatchNorm::Var).as<float>();
  float eps = ctx.attr<AttrKind::Epsilon>();

  const DimsVec &dims = x.dims();
  size_t outer = dims[0], C = dims[1], inner = dimsProduct(dims, 2, dims.size());
  const float *in = x.as<float>();
  float *out = y.as<float>();
  for (size_t n = 0; n < outer; ++n) {
    for (size_t c = 0; c < C; ++c) {
      float stddev = std::sqrt(var[c] + eps);
      size_t base = (n * C + c) * inner;
      for (size_t i = 0; i < inner; ++i)
        out[base + i] = scale[c] * (in[base + i] - mean[c]) / stddev + bias[c];
    }
  }
  return Error::success();
}

Error runSoftmax(const KernelContext &ctx) {
  EMBER_TRY(expectFloat32(ctx));
  TensorArg x = ctx.in(ops::Softmax::Input), y = ctx.out();
  size_t axis = size_t(ctx.attr<AttrKind::Axis>()); // the shape rule keeps it in [0, rank)
  const DimsVec &dims = x.dims();
  size_t outer = dimsProduct(dims, 0, axis), len = dims[axis];
  size_t inner = dimsProduct(dims, axis + 1, dims.size());
  if (len == 0)
    return Error::success();

  const float *in = x.as<float>();
  float *out = y.as<float>();
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      // The axis's elements are `inner` apart, starting at `base`.
      size_t base = o * len * inner + i;
      // Subtracting the max makes every exponent <= 0, so exp cannot overflow.
      float maxVal = in[base];
      for (size_t k = 1; k < len; ++k)
        maxVal = std::max(maxVal, in[base + k * inner]);
      float sum = 0.0f;
      for (size_t k = 0; k < len; ++k) {
        float e = std::exp(in[base + k * inner] - maxVal);
        out[base + k * inner] = e;
        sum += e;
      }
      for (size_t k = 0; k < len; ++k)
        out[base + k * inner] /= sum;
    }
  }
  return Error::success();
}

bool supportsBatchNorm(const Node &n) { return resultKindIn(n, {ElemKind::Float32}); }
bool supportsSoftmax(const Node &n) { return resultKindIn(n, {ElemKind::Float32}); }

} // namespace interp
} // namespace ember
