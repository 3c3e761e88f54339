// MatMul, FusedMatMul and FullyConnected on float32 (see NNGemm.h for the blocking). Each entry
// point exists once per row of Variants.def for this architecture, `ember_matmul_f32_<row>`,
// with that row's register tile and target features; codegen calls the row the CPU can run.
#include "NNGemm.h"
#include "Variants.h"

using namespace gemm;

namespace gemm {
EMBER_NOINLINE void gemv(i64 M, i64 N, i64 K, const float *A, i64 lda, const float *B, i64 ldb,
                         float *C, i64 ldc, const Epilogue &ep, parallel::Team *team) {
  static_assert(scratch::kGemvRows == 4, "one case per row count");
  // Whole blocks of four vectors per part, so no part but the last has a ragged end.
  i64 parts = maxI(1, minI(parallel::partsFor(team, 2 * M * N * K),
                           (N + 4 * EMBER_VW - 1) / (4 * EMBER_VW)));
  parallel::forEachPart(team, parts, [&](i64 p) {
    i64 begin, end;
    parallel::partRange(N, parts, 4 * EMBER_VW, p, begin, end);
    if (begin >= end)
      return;
    Epilogue part = ep;
    if (ep.bias && ep.biasPerColumn)
      part.bias += begin;
    const float *b = B + begin;
    float *c = C + begin;
    switch (M) {
    case 1: return gemvRows<1>(end - begin, K, A, lda, b, ldb, c, ldc, part, 0);
    case 2: return gemvRows<2>(end - begin, K, A, lda, b, ldb, c, ldc, part, 0);
    case 3: return gemvRows<3>(end - begin, K, A, lda, b, ldb, c, ldc, part, 0);
    case 4: return gemvRows<4>(end - begin, K, A, lda, b, ldb, c, ldc, part, 0);
    default: return;
    }
  });
}
} // namespace gemm

namespace {

/// Batched matrix products: result matrix b is A[aOffsets[b]..] * B[bOffsets[b]..] (offsets in
/// elements, computed by codegen from the numpy-broadcast batch dims).
template <int MR, int NV>
EMBER_INLINE void matmul(float *C, const float *A, const float *B, i64 M, i64 N, i64 K,
                         i64 batches, const i64 *aOffsets, const i64 *bOffsets, Activation act,
                         float *scratch, parallel::Team *team) {
  Epilogue ep{nullptr, 0, act};
  for (i64 b = 0; b < batches; ++b) {
    if (M <= scratch::kGemvRows)
      gemv(M, N, K, A + aOffsets[b], K, B + bOffsets[b], N, C + b * M * N, N, ep, team);
    else
      runGemm<MR, NV, false>(M, N, K, A + aOffsets[b], K, C + b * M * N, N,
                      packFn(DensePacker{B + bOffsets[b], N}), ep, scratch, team);
  }
}

/// Rows of X [M, K] times W [K, N], plus bias [N], then the activation.
template <int MR, int NV>
EMBER_INLINE void fullyConnected(float *C, const float *X, const float *W, const float *bias,
                                 i64 M, i64 N, i64 K, Activation act, float *scratch,
                                 parallel::Team *team) {
  Epilogue ep{bias, 1, act};
  if (M <= scratch::kGemvRows)
    return gemv(M, N, K, X, K, W, N, C, N, ep, team);
  runGemm<MR, NV, false>(M, N, K, X, K, C, N, packFn(DensePacker{W, N}), ep, scratch, team);
}

/// C [M, N] = A [M, K] * B [K, N] (+ bias [N]), then the activation, with B a constant packed at
/// compile time in panels of the tile's columns (PackedPanels.h; CPUConstants.cpp decides).
/// FullyConnected's weights and a MatMul's constant right operand.
template <int MR, int NV>
EMBER_INLINE void productPackedB(float *C, const float *A, const float *Bp, const float *bias,
                                 i64 M, i64 N, i64 K, Activation act, float *scratch,
                                 parallel::Team *team) {
  runGemmPackedB<MR, NV>(M, N, K, A, K, Bp, C, N, Epilogue{bias, 1, act}, scratch, team);
}

} // namespace

#define GEMM_ENTRIES(SUFFIX, FEATURES, MR, NV)                                                     \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) void ember_matmul_f32_##SUFFIX(      \
      float *C, const float *A, const float *B, i64 M, i64 N, i64 K, i64 batches,                 \
      const i64 *aOffsets, const i64 *bOffsets, i64 act, float actA, float actB, float *scratch,  \
      parallel::Team *team) {                                                                      \
    matmul<MR, NV>(C, A, B, M, N, K, batches, aOffsets, bOffsets, Activation{act, actA, actB},    \
                   scratch, team);                                                                 \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) void ember_fc_f32_##SUFFIX(          \
      float *C, const float *X, const float *W, const float *bias, i64 M, i64 N, i64 K, i64 act,  \
      float actA, float actB, float *scratch, parallel::Team *team) {                              \
    fullyConnected<MR, NV>(C, X, W, bias, M, N, K, Activation{act, actA, actB}, scratch, team);   \
  }                                                                                                \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) void ember_product_packed_f32_##SUFFIX( \
      float *C, const float *A, const float *Bp, const float *bias, i64 M, i64 N, i64 K, i64 act, \
      float actA, float actB, float *scratch, parallel::Team *team) {                              \
    productPackedB<MR, NV>(C, A, Bp, bias, M, N, K, Activation{act, actA, actB}, scratch, team);  \
  }

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(GEMM_ENTRIES(NAME, FEATURES, MR, NV))
#include "Variants.def"
#undef GEMM_ENTRIES
