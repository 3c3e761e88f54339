// Codegen for Resize (ONNX Resize-13 semantics; the loader also maps Resize-10/11 and Upsample
// to it). Every result coordinate maps to an input coordinate per axis; nearest picks one
// element, linear/cubic weigh 2/4 neighbours per axis. All of that depends only on attributes,
// so codegen computes the per-axis taps here (ember/Semantics/ResizeSampling.h, as the Interpreter
// does) and passes them as constant tables:
// nearest becomes a table gather moving bytes (any element kind, DataMovement.cpp), linear and
// cubic a typed weighted sum (DataMovementResize.cpp).
#include "CodeGenUtils.h"

#include "ember/Base/Tensor.h"
#include "ember/Semantics/ResizeSampling.h"

#include "llvm/ADT/bit.h"

#include <cstring>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// The extrapolation value as one element of \p t's kind (little-endian in an int64).
int64_t extrapolationBits(const ember::Type &t, double value) {
  Tensor e = resizeExtrapolationElement(t, value);
  int64_t bits = 0;
  std::memcpy(&bits, e.data(), t.elementSize());
  return bits;
}

/// Every axis' samples; a scalar is one axis of length 1 (one tap of weight 1 at offset 0,
/// which leaves every sum as the Interpreter's rank-0 one).
std::vector<std::vector<ResizeSample>> sampleAxes(const Instruction &I, SmallVector<int64_t, 6> &outDims) {
  const ember::Type &inType = I.getInput(ops::Resize::Input)->getType();
  const ember::Type &outType = I.getOutput()->getType();
  auto strides = rowMajorStrides(inType.dims);
  std::vector<std::vector<ResizeSample>> axes;
  for (unsigned d = 0; d < outType.rank(); ++d) {
    outDims.push_back(int64_t(outType.dims[d]));
    axes.push_back(resizeAxisSamples(I.getAttrs(), outType.rank(), d, inType.dims[d],
                                     outType.dims[d], strides[d]));
  }
  if (axes.empty()) {
    outDims.push_back(1);
    axes.push_back(std::vector<ResizeSample>(1));
    axes[0][0].taps.push_back({0, 1});
  }
  return axes;
}

/// Bytes of scratch linear/cubic need: per result row, the tensor product of its outer axes'
/// taps (an offset and a weight each), at most the product of each axis' most taps.
uint64_t resizeScratch(const Instruction &I, int64_t /*threads*/) {
  if (I.attr<AttrKind::Mode>() == "nearest" || I.getOutput()->getType().numElements() == 0)
    return 0;
  SmallVector<int64_t, 6> outDims;
  auto axes = sampleAxes(I, outDims);
  uint64_t combos = 1;
  for (size_t d = 0; d + 1 < axes.size(); ++d) {
    uint64_t most = 1;
    for (const ResizeSample &s : axes[d])
      most = std::max<uint64_t>(most, s.taps.size());
    combos *= most;
  }
  return combos * 16;
}

// Nearest moves elements: any kind. Linear and cubic compute on floats and integers.
bool supportsResize(const Node &n) {
  const ember::Type &t = n.getType();
  size_t e = t.elementSize();
  if (e != 1 && e != 2 && e != 4 && e != 8)
    return false;
  return n.attr<AttrKind::Mode>() == "nearest" || (!t.isQuantized() && t.kind != ElemKind::Bool);
}

Error emitResize(Emitter &E, const Instruction &I) {
  const ember::Type &outType = I.getOutput()->getType();
  if (outType.numElements() == 0)
    return Error::success();
  SmallVector<int64_t, 6> outDims;
  auto axes = sampleAxes(I, outDims);
  int64_t extrapolation =
      extrapolationBits(outType, double(I.attr<AttrKind::ExtrapolationValue>()));

  if (I.attr<AttrKind::Mode>() == "nearest") {
    // One tap per axis: the table gather's per-axis offsets, -1 (the extrapolation value)
    // outside the input.
    SmallVector<int64_t, 64> table;
    for (const auto &axis : axes)
      for (const ResizeSample &s : axis)
        table.push_back(s.outside ? -1 : s.taps[0].offset);
    return E.call("ember_table_gather_b" + std::to_string(outType.elementSize() * 8),
                  {E.out(I), E.in(I, ops::Resize::Input), E.constArray({extrapolation}, "extra"),
                   E.i64(int64_t(outDims.size())), E.constArray(outDims, "dims"),
                   E.constArray(table, "resizeTable"), E.i64(0), E.i64(0)});
  }

  // Per coordinate its first tap and tap count (0: outside); the taps' offsets and weights (as
  // the bits of doubles).
  SmallVector<int64_t, 64> first, count, offsets, weights;
  for (const auto &axis : axes)
    for (const ResizeSample &s : axis) {
      first.push_back(int64_t(offsets.size()));
      count.push_back(s.outside ? 0 : int64_t(s.taps.size()));
      for (const ResizeTap &t : s.taps) {
        offsets.push_back(t.offset);
        weights.push_back(llvm::bit_cast<int64_t>(t.weight));
      }
    }
  return E.call(kernelFor("ember_resize_interp", outType.kind),
                {E.out(I), E.in(I, ops::Resize::Input), E.i64(int64_t(outDims.size())),
                 E.constArray(outDims, "dims"), E.constArray(first, "tapFirst"),
                 E.constArray(count, "tapCount"), E.constArray(offsets, "tapOffsets"),
                 E.constArray(weights, "tapWeights"), E.i64(extrapolation), E.scratch(I),
                 E.i64(int64_t(resizeScratch(I, E.threads()) / 16))});
}

} // namespace

void addDataMovementResizeKernels(KernelTable &t) {
  t.add(NodeKind::Resize, supportsResize, emitResize, resizeScratch);
}

} // namespace cpu
} // namespace ember
