// Scaled-dot-product attention as one kernel: O = softmax(Q K^T (+ mask)) V for each batch
// (head), a block of query rows at a time (CodeGenAttention.cpp finds the MatMul, Add, Softmax,
// MatMul chain torch exports). A block's scores ([96][T]) are computed, masked, normalized and
// multiplied by V while they are in L2, so the [heads][Sq][T] scores never go to memory: a
// 1500-frame encoder's were 54 MB a layer, written by the first product, read and written by
// the softmax, read by the second. Each product is the GEMM of NNGemm.h over B in column
// panels (gemmPackedB; K^T and V packed once a head by each part of the team), each line the
// Softmax kernel's (SoftmaxLine.h), so every element sums its products in the order the three
// instructions do.
#include "NNGemm.h"
#include "PackedPanels.h"
#include "SoftmaxLine.h"
#include "Variants.h"

using namespace gemm;

namespace {

template <int MR, int NV>
EMBER_INLINE void attention(float *O, const float *Q, const float *Kt, const float *V,
                            const float *mask, i64 maskStride, i64 batches, i64 Sq, i64 D,
                            i64 T, i64 Dv, float *scratchMem, parallel::Team *team) {
  static_assert(scratch::kAttentionRows % MR == 0, "blocks of whole tiles");
  constexpr i64 NR = NV * EMBER_VW;
  const i64 R = scratch::kAttentionRows, blocks = (Sq + R - 1) / R, units = batches * blocks;
  const i64 perPart = scratch::attentionPartFloats(D, T, Dv);
  const i64 parts =
      maxI(1, minI(parallel::partsFor(team, 2 * batches * Sq * T * (D + Dv)), units));
  const Epilogue none{nullptr, 0, {ActNone, 0, 0}};
  parallel::forEachPart(team, parts, [&](i64 part) {
    float *S = scratchMem + part * perPart;
    float *packK = S + R * T, *packV = packK + D * T, *narrow = packV + T * Dv;
    i64 packed = -1; // the head whose K^T and V packK and packV hold
    // A part's units are consecutive: the blocks of one head after another.
    for (i64 u = part * units / parts, e = (part + 1) * units / parts; u < e; ++u) {
      i64 b = u / blocks, r0 = u % blocks * R, rows = minI(R, Sq - r0);
      if (b != packed) {
        panels::packColumns(packK, Kt + b * D * T, D, T, NR);
        panels::packColumns(packV, V + b * T * Dv, T, Dv, NR);
        packed = b;
      }
      gemmPackedB<MR, NV>(rows, 0, T, D, Q + (b * Sq + r0) * D, D, packK, S, T, none, narrow);
      if (mask) {
        const float *m = mask + b * maskStride + r0 * T;
        i64 i = 0, n = rows * T;
        for (; i + EMBER_VW <= n; i += EMBER_VW)
          storev(S + i, loadv(S + i) + loadv(m + i));
        for (; i < n; ++i)
          S[i] += m[i];
      }
      for (i64 r = 0; r < rows; ++r)
        softmaxContiguous(S + r * T, S + r * T, T, false);
      gemmPackedB<MR, NV>(rows, 0, Dv, T, S, T, packV, O + (b * Sq + r0) * Dv, Dv, none, narrow);
    }
  });
}

} // namespace

/// O [batches][Sq][Dv] = softmax(Q [batches][Sq][D] x Kt [batches][D][T] (+ mask, an [Sq][T]
/// matrix a batch, maskStride elements apart: 0 for one shared by all), along T) x
/// V [batches][T][Dv]; mask may be null. scratch: one scratch::attentionPartFloats per part.
#define ATTENTION_ENTRY(SUFFIX, FEATURES, MR, NV)                                                  \
  EMBER_KERNEL EMBER_NOINLINE EMBER_VARIANT_TARGET(FEATURES) void ember_attention_f32_##SUFFIX(   \
      float *O, const float *Q, const float *Kt, const float *V, const float *mask,               \
      i64 maskStride, i64 batches, i64 Sq, i64 D, i64 T, i64 Dv, float *scratch,                   \
      parallel::Team *team) {                                                                      \
    attention<MR, NV>(O, Q, Kt, V, mask, maskStride, batches, Sq, D, T, Dv, scratch, team);        \
  }

#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC)                                         \
  EMBER_ON_ARCH_##ARCH(ATTENTION_ENTRY(NAME, FEATURES, MR, NV))
#include "Variants.def"
#undef ATTENTION_ENTRY
