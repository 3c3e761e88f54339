// The Det kernel: each matrix copied to double and factorized by ember/Semantics/Determinant.h.
#include "ReduceUtils.h"

#include "ember/Semantics/Determinant.h"

#include <vector>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

template <typename T> Error det(const KernelContext &ctx) {
  TensorArg x = ctx.in(0), y = ctx.out();
  size_t rank = x.dims().size();
  int64_t m = int64_t(x.dims()[rank - 1]), count = int64_t(y.numElements());
  const T *in = x.as<T>();
  T *out = y.as<T>();
  std::vector<double> matrix(size_t(m * m));
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t i = 0; i < m * m; ++i)
      matrix[size_t(i)] = load(in[b * m * m + i]);
    out[b] = toStorage<T>(ember_determinant(matrix.data(), m));
  }
  return Error::success();
}

} // namespace

Error runDet(const KernelContext &ctx) {
  return dispatchFloatKinds(ctx, ctx.out().type.kind,
                            [&](auto tag) { return det<decltype(tag)>(ctx); });
}

bool supportsDet(const Node &n) { return isFloatKind(resultKind(n)); }

} // namespace interp
} // namespace ember
