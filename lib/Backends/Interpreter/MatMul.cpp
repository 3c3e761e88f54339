// MatMul: [M,K] x [K,N] -> [M,N], row-major, float32.
#include "KernelUtils.h"

using namespace llvm;

namespace ember {
namespace interp {

Error runMatMul(const KernelContext &ctx) {
  EMBER_TRY(expectFloat32(ctx));
  TensorArg a = ctx.in(ops::MatMul::LHS), b = ctx.in(ops::MatMul::RHS), r = ctx.out();
  size_t M = a.dims()[0], K = a.dims()[1], N = b.dims()[1];
  const float *A = a.as<float>(), *B = b.as<float>();
  float *R = r.as<float>();

  // i-k-j order walks B and R row by row (cache friendly) while every R[i][j] still sums its
  // products in ascending k, exactly as the textbook i-j-k dot product would.
  for (size_t i = 0; i < M; ++i) {
    float *row = R + i * N;
    for (size_t j = 0; j < N; ++j)
      row[j] = 0.0f;
    for (size_t k = 0; k < K; ++k) {
      float aik = A[i * K + k];
      const float *bRow = B + k * N;
      for (size_t j = 0; j < N; ++j)
        row[j] += aik * bRow[j];
    }
  }
  return Error::success();
}

bool supportsMatMul(const Node &n) { return resultKindIn(n, {ElemKind::Float32}); }

} // namespace interp
} // namespace ember
