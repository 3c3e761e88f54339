// MatMul, FusedMatMul and FullyConnected for the element kinds the float32 GEMM (NNGemm.cpp) does
// not take, with the Interpreter's semantics (lib/Backends/Interpreter/NNMatMul.cpp): float64,
// float16 and bfloat16 sums in double, integers modulo 2^64 and wrapped to the result's width
// (two's complement, as numpy). Every element sums its products in ascending k, as the
// reference does; the i-k-j loop order keeps the right-hand rows and the accumulators
// contiguous, in blocks of nn::kBlock columns.
#include "NNConvGeneric.h"

#pragma clang fp contract(off)

using namespace nn;

namespace {

/// Rows of lhs [M, K] times rhs [K, N]; store(i, j, acc) receives each element's sum.
template <typename T, typename Store>
EMBER_INLINE void multiplyRows(const T *lhs, const T *rhs, i64 M, i64 K, i64 N, Store store) {
  typedef Acc<T> A;
  for (i64 i = 0; i < M; ++i)
    for (i64 j0 = 0; j0 < N; j0 += kBlock) {
      i64 len = minI(kBlock, N - j0);
      A acc[kBlock];
      for (i64 j = 0; j < len; ++j)
        acc[j] = A(0);
      for (i64 k = 0; k < K; ++k) {
        A a = widen(lhs, i * K + k);
        const T *row = rhs + k * N + j0;
        for (i64 j = 0; j < len; ++j)
          acc[j] += a * widen(row, j);
      }
      for (i64 j = 0; j < len; ++j)
        store(i, j0 + j, acc[j]);
    }
}

template <typename T>
EMBER_INLINE void matMul(T *out, const T *lhs, const T *rhs, i64 M, i64 N, i64 K, i64 batches,
                         const i64 *lhsOffsets, const i64 *rhsOffsets, i64 act, float a, float b) {
  for (i64 batch = 0; batch < batches; ++batch) {
    T *o = out + batch * M * N;
    multiplyRows(lhs + lhsOffsets[batch], rhs + rhsOffsets[batch], M, K, N,
                 [&](i64 i, i64 j, Acc<T> acc) {
                   ComputeOf<T> v = narrow<T>(acc);
                   if constexpr (kIsFloat<T>)
                     v = activate(v, act, a, b);
                   if constexpr (kIsInt<T>)
                     o[i * N + j] = T(v);
                   else
                     st(o, i * N + j, v);
                 });
  }
}

/// Input's rows times Weights [K, N], rounded to T, plus Bias [N] as Add adds (in the compute
/// type, rounded again), then the activation.
template <typename T>
EMBER_INLINE void fullyConnected(T *out, const T *x, const T *w, const T *bias, i64 M, i64 N,
                                 i64 K, i64 act, float a, float b) {
  typedef ComputeOf<T> C;
  multiplyRows(x, w, M, K, N, [&](i64 i, i64 j, Acc<T> acc) {
    C sum = narrow<T>(C(narrow<T>(acc)) + ld(bias, j));
    st(out, i * N + j, activate(sum, act, a, b));
  });
}

} // namespace

#define EMBER_MATMUL_GENERIC(sfx, T)                                                               \
  EMBER_KERNEL EMBER_NOINLINE void ember_matmul_generic_##sfx(                                     \
      T *out, const T *lhs, const T *rhs, i64 M, i64 N, i64 K, i64 batches, const i64 *lhsOffsets, \
      const i64 *rhsOffsets, i64 act, float a, float b) {                                          \
    matMul<T>(out, lhs, rhs, M, N, K, batches, lhsOffsets, rhsOffsets, act, a, b);                 \
  }
EMBER_FOR_NUMERIC_KINDS(EMBER_MATMUL_GENERIC)
#undef EMBER_MATMUL_GENERIC

#define EMBER_FC_GENERIC(sfx, T)                                                                   \
  EMBER_KERNEL EMBER_NOINLINE void ember_fc_generic_##sfx(T *out, const T *x, const T *w,         \
                                                          const T *bias, i64 M, i64 N, i64 K,      \
                                                          i64 act, float a, float b) {             \
    fullyConnected<T>(out, x, w, bias, M, N, K, act, a, b);                                        \
  }
EMBER_FOR_FLOAT_KINDS(EMBER_FC_GENERIC)
#undef EMBER_FC_GENERIC
