// The CPU backend's constant layouts: see CPUConstants.h.
#include "CPUConstants.h"

#include "CodeGenNN.h"
#include "CodeGenQuantized.h"
#include "kernels/PackedPanels.h"

#include "ember/Graph/Node.h"

using namespace llvm;

namespace ember {
namespace cpu {

DenseMap<const IRValue *, int64_t> packedFilters(const IRFunction &IR) {
  DenseMap<const IRValue *, int64_t> groups;
  DenseSet<const IRValue *> refused;
  for (const auto &I : IR.getInstrs())
    for (unsigned i = 0; i < I->getNumOperands(); ++i) {
      const IRValue *v = I->getOperand(i);
      const IRValue *root = rootOf(const_cast<IRValue *>(v)).root;
      auto *w = dyn_cast<WeightVar>(root);
      if (!w || !w->isConstant() || refused.count(w))
        continue;
      bool asFilter = v == w && ((convFilterFeedsGemm(*I) &&
                                  i == I->getNumOutputs() + ops::Conv::Filter) ||
                                 (integerConvFilterTapMajor(*I) &&
                                  i == I->getNumOutputs() + ops::IntegerConv::Filter));
      if (!asFilter) {
        refused.insert(w);
        groups.erase(w);
        continue;
      }
      int64_t g = I->attr<AttrKind::Group>();
      auto [it, inserted] = groups.try_emplace(w, g);
      if (!inserted && it->second != g) {
        refused.insert(w);
        groups.erase(it);
      }
    }
  return groups;
}

void packFilters(const IRFunction &IR, int64_t MR, uint8_t *region) {
  for (const auto &[v, G] : packedFilters(IR)) {
    const auto *w = cast<WeightVar>(v);
    // Each group's filters: Cout/G rows of Cin/G * KH * KW weights.
    const DimsVec &dims = w->getType().dims;
    const uint8_t *payload = static_cast<const Constant *>(w->getOrigin())->getPayload().data();
    if (w->getType().kind == ElemKind::Int8) {
      // An int8 GEMM's flat convolution filter: each row [Cg][taps] to [taps][Cg].
      int64_t Cg = int64_t(dims[1]), taps = int64_t(w->getType().numElements()) /
                                               (int64_t(dims[0]) * Cg);
      uint8_t *out = region + w->offset;
      for (int64_t m = 0; m < int64_t(dims[0]); ++m)
        for (int64_t c = 0; c < Cg; ++c)
          for (int64_t t = 0; t < taps; ++t)
            out[(m * taps + t) * Cg + c] = payload[(m * Cg + c) * taps + t];
      continue;
    }
    int64_t rows = int64_t(dims[0]) / G,
            cols = int64_t(w->getType().numElements()) / int64_t(dims[0]);
    const float *src = reinterpret_cast<const float *>(payload);
    float *out = reinterpret_cast<float *>(region + w->offset);
    for (int64_t g = 0; g < G; ++g)
      panels::packRows(out + g * rows * cols, src + g * rows * cols, rows, cols, MR);
  }
}

} // namespace cpu
} // namespace ember
