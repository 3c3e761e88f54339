// The CPU backend's constant layouts: see CPUConstants.h.
#include "CPUConstants.h"

#include "CodeGen.h"
#include "CodeGenNN.h"
#include "CodeGenQuantized.h"
#include "kernels/PackedPanels.h"
#include "kernels/QuantizedLayout.h"
#include "kernels/RecurrentLayout.h"
#include "kernels/WinogradTransforms.h"

#include "ember/Graph/Node.h"

#include "llvm/ADT/DenseSet.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// The bytes a Winograd F(m x m) filter's transformed tiles take (WinogradTransforms.h).
uint64_t winogradBytes(const WeightVar &w, int64_t m) {
  return uint64_t((m + 2) * (m + 2)) * w.sizeInBytes() / 9;
}

/// The bytes a recurrent weight takes in its packed layout (CPUConstants.h).
uint64_t recurrentBytes(const WeightVar &w, int64_t layout) {
  if (layout == kRecurrentInputPanels)
    return w.sizeInBytes();
  const DimsVec &dims = w.getType().dims; // R: [dirs][gates * hidden][hidden]
  int64_t hidden = int64_t(dims[2]), gates = int64_t(dims[1]) / hidden;
  return uint64_t(dims[0]) * uint64_t(rnnlayout::packedRFloats(hidden, gates)) * sizeof(float);
}

bool isRecurrentMark(int64_t layout) {
  return layout == kRecurrentInputPanels || layout == kRecurrentStateChunks;
}

/// The layout a recurrent instruction \p I on the fast kernel reads its operand \p operand
/// in (W or R), or 0 (kColumnPanels, never a recurrent mark) for the others.
int64_t recurrentLayout(const Instruction &I, unsigned operand) {
  bool recurrent = I.getKind() == InstrKind::RNN || I.getKind() == InstrKind::GRU ||
                   I.getKind() == InstrKind::LSTM;
  if (!recurrent || !fastRecurrent(I))
    return 0;
  return operand == unsigned(ops::RNN::W)   ? kRecurrentInputPanels
         : operand == unsigned(ops::RNN::R) ? kRecurrentStateChunks
                                            : 0;
}

/// packedFilters, with every filter whose convolutions take Winograd marked winogradMark
/// whether or not its room was reserved (and so the recurrent weights).
DenseMap<const IRValue *, int64_t> wantedLayouts(const IRFunction &IR, StringRef integerVariant) {
  DenseMap<const IRValue *, int64_t> groups;
  DenseSet<const IRValue *> refused;
  for (const auto &I : IR.getInstrs())
    for (unsigned i = 0; i < I->getNumOperands(); ++i) {
      const IRValue *v = I->getOperand(i);
      const IRValue *root = rootOf(const_cast<IRValue *>(v)).root;
      auto *w = dyn_cast<WeightVar>(root);
      if (!w || !w->isConstant() || refused.count(w))
        continue;
      int productB = productBOperand(*I);
      if (v == w && productB >= 0 && int(i) == int(I->getNumOutputs()) + productB) {
        auto [it, inserted] = groups.try_emplace(w, kColumnPanels);
        if (!inserted && it->second != kColumnPanels) {
          refused.insert(w);
          groups.erase(it);
        }
        continue;
      }
      if (int64_t mark = recurrentLayout(*I, i - I->getNumOutputs()); mark && v == w) {
        auto [it, inserted] = groups.try_emplace(w, mark);
        if (!inserted && it->second != mark) {
          refused.insert(w);
          groups.erase(it);
        }
        continue;
      }
      bool asFilter = v == w && ((convFilterFeedsGemm(*I) &&
                                  i == I->getNumOutputs() + ops::Conv::Filter) ||
                                 (integerConvFilterLayout(*I, integerVariant) !=
                                      quantlayout::kQcFilterAsImported &&
                                  i == I->getNumOutputs() + ops::IntegerConv::Filter));
      if (!asFilter) {
        refused.insert(w);
        groups.erase(w);
        continue;
      }
      int64_t m = convWinogradTile(*I);
      int64_t g = m                   ? winogradMark(m)
                  : convGoesByPixels(*I) ? kFilterPixelPanels
                                        : I->attr<AttrKind::Group>();
      auto [it, inserted] = groups.try_emplace(w, g);
      // (a group count is at least 1, never kColumnPanels, kFilterPixelPanels or a winogradMark)
      if (!inserted && it->second != g) {
        refused.insert(w);
        groups.erase(it);
      }
    }
  return groups;
}

} // namespace

DenseMap<const IRValue *, int64_t> packedFilters(const IRFunction &IR, StringRef integerVariant) {
  DenseMap<const IRValue *, int64_t> layouts = wantedLayouts(IR, integerVariant);
  // A plan made without reserveConstants has only the filter's bytes: the GEMM's panels then.
  SmallVector<const IRValue *, 4> unreserved;
  for (auto &[v, layout] : layouts) {
    const auto *w = cast<WeightVar>(v);
    if (isWinogradMark(layout) && !reservedForWinograd(w, winogradTileOf(layout)))
      layout = 1;
    if (isRecurrentMark(layout) && w->reservedBytes < recurrentBytes(*w, layout))
      unreserved.push_back(v);
  }
  for (const IRValue *v : unreserved)
    layouts.erase(v);
  return layouts;
}

bool reservedForRecurrent(const IRValue *W, const IRValue *R) {
  const auto *w = dyn_cast<WeightVar>(W), *r = dyn_cast<WeightVar>(R);
  return w && r && w->reservedBytes &&
         w->reservedBytes >= recurrentBytes(*w, kRecurrentInputPanels) && r->reservedBytes &&
         r->reservedBytes >= recurrentBytes(*r, kRecurrentStateChunks);
}

bool reservedForWinograd(const IRValue *filter, int64_t m) {
  const auto *w = dyn_cast<WeightVar>(filter);
  return w && w->reservedBytes >= winogradBytes(*w, m);
}

void packFilters(const IRFunction &IR, int64_t MR, int64_t NR, StringRef integerVariant,
                 uint8_t *region) {
  // The int8 filters in panels (integerConvFilterLayout; all readers of a packed filter have
  // its shape, so agree).
  DenseSet<const IRValue *> inPanels;
  for (const auto &I : IR.getInstrs())
    if (integerConvFilterLayout(*I, integerVariant) == quantlayout::kQcFilterCoutPanels)
      inPanels.insert(I->getOperand(I->getNumOutputs() + ops::IntegerConv::Filter));
  for (const auto &[v, G] : packedFilters(IR, integerVariant)) {
    const auto *w = cast<WeightVar>(v);
    // Each group's filters: Cout/G rows of Cin/G * KH * KW weights.
    const DimsVec &dims = w->getType().dims;
    const uint8_t *payload = static_cast<const Constant *>(w->getOrigin())->getPayload().data();
    if (isWinogradMark(G)) {
      winograd::transformFilters(reinterpret_cast<float *>(region + w->offset),
                                 reinterpret_cast<const float *>(payload), int64_t(dims[0]),
                                 int64_t(dims[1]), MR, winogradTileOf(G));
      continue;
    }
    if (G == kRecurrentInputPanels) {
      // Each direction's W [gates * hidden][input] as the B = W^T of its input projection.
      int64_t rows = int64_t(dims[1]), cols = int64_t(dims[2]);
      for (int64_t d = 0; d < int64_t(dims[0]); ++d)
        panels::packRows(reinterpret_cast<float *>(region + w->offset) + d * rows * cols,
                         reinterpret_cast<const float *>(payload) + d * rows * cols, rows, cols,
                         NR);
      continue;
    }
    if (G == kRecurrentStateChunks) {
      int64_t hidden = int64_t(dims[2]), gates = int64_t(dims[1]) / hidden;
      const float *src = reinterpret_cast<const float *>(payload);
      float *out = reinterpret_cast<float *>(region + w->offset);
      for (int64_t d = 0; d < int64_t(dims[0]); ++d)
        for (int64_t g = 0; g < gates; ++g)
          rnnlayout::packGateBlock(out + d * rnnlayout::packedRFloats(hidden, gates) +
                                       g * rnnlayout::fastBlockRows(hidden) * hidden,
                                   src + (d * gates + g) * hidden * hidden, hidden);
      continue;
    }
    if (G == kFilterPixelPanels) {
      panels::packRows(reinterpret_cast<float *>(region + w->offset),
                       reinterpret_cast<const float *>(payload), int64_t(dims[0]),
                       int64_t(dims[1]), NR);
      continue;
    }
    if (G == kColumnPanels) {
      // A product's B [.., K, N] (its batch dims all 1): its N columns as the rows of panels.
      int64_t K = int64_t(dims[dims.size() - 2]), N = int64_t(dims.back());
      const float *src = reinterpret_cast<const float *>(payload);
      float *out = reinterpret_cast<float *>(region + w->offset);
      panels::packColumns(out, src, K, N, NR);
      continue;
    }
    if (w->getType().kind == ElemKind::Int8) {
      // An int8 GEMM's flat convolution filter: each row [Cg][taps] to [taps][Cg], k = t * Cg
      // + c; or, in panels, each group's blocks of kQcPanelCout rows to [k / 4][row][k % 4].
      int64_t Cout = int64_t(dims[0]), Cg = int64_t(dims[1]),
              taps = int64_t(w->getType().numElements()) / (Cout * Cg), K = taps * Cg;
      uint8_t *out = region + w->offset;
      auto weight = [&](int64_t m, int64_t k) {
        return payload[(m * Cg + k % Cg) * taps + k / Cg];
      };
      if (!inPanels.count(w)) {
        for (int64_t m = 0; m < Cout; ++m)
          for (int64_t k = 0; k < K; ++k)
            out[m * K + k] = weight(m, k);
        continue;
      }
      int64_t Mg = Cout / G;
      for (int64_t g = 0; g < G; ++g)
        for (int64_t c0 = 0; c0 < Mg; c0 += quantlayout::kQcPanelCout) {
          int64_t width = std::min<int64_t>(quantlayout::kQcPanelCout, Mg - c0),
                  first = g * Mg + c0;
          uint8_t *block = out + first * K;
          for (int64_t k = 0; k < K; ++k)
            for (int64_t j = 0; j < width; ++j)
              block[(k / 4 * width + j) * 4 + k % 4] = weight(first + j, k);
        }
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

void reserveConstants(IRFunction &IR, StringRef integerVariant) {
  for (const auto &[v, layout] : wantedLayouts(IR, integerVariant)) {
    auto *w = const_cast<WeightVar *>(cast<WeightVar>(v));
    if (isWinogradMark(layout))
      w->reservedBytes = winogradBytes(*w, winogradTileOf(layout));
    else if (isRecurrentMark(layout))
      w->reservedBytes = recurrentBytes(*w, layout);
  }
}

} // namespace cpu
} // namespace ember
