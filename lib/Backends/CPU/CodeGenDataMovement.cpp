// Codegen for data movement (kernels/DataMovement.cpp): Reshape, Transpose, Broadcast, Slice,
// Concat, Pad, Trilu and Range; the indexed kinds are in CodeGenDataMovementIndexed.cpp, Resize
// in CodeGenDataMovementResize.cpp. All but Range move bytes, so they serve every element kind
// with one kernel per element size. Transpose, Broadcast and Slice become one strided gather
// whose strides codegen computes, with axes merged where the source is contiguous across them
// so the kernel's inner loop is long; any rank works.
#include "CodeGenUtils.h"
#include "kernels/Scratch.h"

#include "ember/Semantics/PadSource.h"

using namespace llvm;

namespace ember {
namespace cpu {

void addDataMovementIndexedKernels(KernelTable &t);
void addDataMovementResizeKernels(KernelTable &t);
void addDataMovementGridSampleKernels(KernelTable &t);

namespace {

constexpr size_t kStridedNest = 5; // the loop nest of ember_strided_copy_*: rank at least this

bool byteSizeOk(const ember::Type &t) {
  size_t e = t.elementSize();
  return e == 1 || e == 2 || e == 4 || e == 8;
}

std::string bitsSuffix(const ember::Type &t) { return "_b" + std::to_string(t.elementSize() * 8); }

/// out[i] = in[base + sum(i[d] * strides[d])] over the result's dims, for \p I's result and
/// first input.
Error emitStrided(Emitter &E, const Instruction &I, ArrayRef<int64_t> strides, int64_t base) {
  const ember::Type &dstType = I.getOutput()->getType();
  if (dstType.numElements() == 0)
    return Error::success();
  // Drop unit axes, merge an axis into the next when the source steps through both as one.
  SmallVector<int64_t, 8> d, s;
  for (size_t a = 0; a < dstType.dims.size(); ++a) {
    if (dstType.dims[a] == 1)
      continue;
    int64_t len = int64_t(dstType.dims[a]);
    if (!d.empty() && s.back() == strides[a] * len) {
      d.back() *= len;
      s.back() = strides[a];
      continue;
    }
    d.push_back(len);
    s.push_back(strides[a]);
  }
  while (d.size() < kStridedNest) {
    d.insert(d.begin(), 1);
    s.insert(s.begin(), 0);
  }
  // Split over the team along the outermost axis: efficientnet_b0's broadcasts of each
  // channel's scale to its plane (up to 1.6 MB) ran on one thread.
  size_t outerAxis = 0;
  while (outerAxis + 1 < d.size() && d[outerAxis] == 1)
    ++outerAxis;
  const int64_t esz = int64_t(dstType.elementSize()), total = int64_t(dstType.numElements());
  const int64_t rows = d[outerAxis], rowElements = total / rows;
  const int64_t parts = std::min(rows, E.partsMoving(2 * total * esz / 4));
  return E.onTeamParts(parts, [&](int64_t p) -> Error {
    auto [r0, r1] = scratch::partRange(rows, parts, 1, p);
    if (r0 >= r1)
      return Error::success();
    SmallVector<int64_t, 8> partDims = d;
    partDims[outerAxis] = r1 - r0;
    return E.call("ember_strided_copy" + bitsSuffix(dstType),
                  {E.advance(E.out(I), r0 * rowElements * esz), E.in(I, 0),
                   E.constArray(partDims, "dims"), E.constArray(s, "strides"),
                   E.i64(int64_t(d.size())), E.i64(base + r0 * s[outerAxis])});
  });
}

bool movesBytes(const Node &n) { return byteSizeOk(n.getType()); }

Error emitReshape(Emitter &E, const Instruction &I) {
  return E.call("ember_copy", {E.out(I), E.in(I, 0), E.i64(int64_t(I.getOutput()->sizeInBytes()))});
}

Error emitTranspose(Emitter &E, const Instruction &I) {
  auto inStrides = rowMajorStrides(I.getInput(0)->getType().dims);
  SmallVector<int64_t, 6> strides;
  for (int64_t a : I.attr<AttrKind::Shuffle>())
    strides.push_back(inStrides[size_t(a)]);
  return emitStrided(E, I, strides, 0);
}

Error emitBroadcast(Emitter &E, const Instruction &I) {
  const DimsVec &inDims = I.getInput(0)->getType().dims;
  const ember::Type &outType = I.getOutput()->getType();
  auto inStrides = rowMajorStrides(inDims);
  // The input's axes align with the result's last ones; leading result axes and input axes of
  // size 1 repeat the same input elements, i.e. have stride 0.
  size_t shift = outType.dims.size() - inDims.size();
  SmallVector<int64_t, 6> strides(outType.dims.size(), 0);
  for (size_t d = 0; d < inDims.size(); ++d)
    strides[d + shift] = inDims[d] == 1 ? 0 : inStrides[d];
  return emitStrided(E, I, strides, 0);
}

Error emitSlice(Emitter &E, const Instruction &I) {
  const ember::Type &outType = I.getOutput()->getType();
  if (outType.numElements() == 0)
    return Error::success(); // the starts of an empty result need not be valid
  auto inStrides = rowMajorStrides(I.getInput(0)->getType().dims);
  const auto &starts = I.attr<AttrKind::Starts>();
  const auto &steps = I.attr<AttrKind::Steps>();
  // An axis the result keeps one element of never steps (its step may be anything).
  int64_t base = 0;
  SmallVector<int64_t, 6> strides;
  for (size_t d = 0; d < inStrides.size(); ++d) {
    base += starts[d] * inStrides[d];
    strides.push_back(outType.dims[d] > 1 ? steps[d] * inStrides[d] : 0);
  }
  return emitStrided(E, I, strides, base);
}

Error emitConcat(Emitter &E, const Instruction &I) {
  const ember::Type &outType = I.getOutput()->getType();
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  int64_t esz = int64_t(outType.elementSize());
  // Viewed as [outer, rest]: each input contributes one contiguous block of its `rest` bytes to
  // every outer row of the result, inputs in order.
  int64_t outer = dimsProduct(outType.dims, 0, axis);
  int64_t dstRow = dimsProduct(outType.dims, axis, outType.dims.size()) * esz;
  // Split over the team: by the outer rows when there are enough of them, else each input's
  // block in ranges of whole cache lines. On one thread, densenet121's concatenations (0.6 to
  // 3 MB each) read what the other core's convolutions had written.
  const int64_t parts = E.partsMoving(2 * outer * dstRow / 4);
  const bool byRows = outer >= parts;
  return E.onTeamParts(parts, [&](int64_t p) -> Error {
    int64_t colOffset = 0;
    for (unsigned i = 0; i < I.getNumInputs(); ++i) {
      const DimsVec &dims = I.getInput(i)->getType().dims;
      int64_t srcRow = dimsProduct(dims, axis, dims.size()) * esz;
      auto [r0, r1] = byRows ? scratch::partRange(outer, parts, 1, p) : scratch::Range{0, outer};
      auto [b0, b1] = byRows ? scratch::Range{0, srcRow} : scratch::partRange(srcRow, parts, 64, p);
      if (r0 < r1 && b0 < b1)
        EMBER_TRY(E.call("ember_copy_rows",
                         {E.advance(E.out(I), r0 * dstRow + colOffset + b0), E.i64(dstRow),
                          E.advance(E.in(I, i), r0 * srcRow + b0), E.i64(srcRow),
                          E.i64(r1 - r0), E.i64(b1 - b0)}));
      colOffset += srcRow;
    }
    return Error::success();
  });
}

Error emitPad(Emitter &E, const Instruction &I) {
  const ember::Type &inType = I.getInput(ops::Pad::Input)->getType();
  const ember::Type &outType = I.getOutput()->getType();
  if (outType.numElements() == 0)
    return Error::success();
  const auto &pads = I.attr<AttrKind::Pads>();
  const std::string &mode = I.attr<AttrKind::Mode>();
  size_t rank = inType.rank();
  // Per axis, the input element offset each result index reads (-1: the pad value); a scalar
  // is one axis of length 1.
  SmallVector<int64_t, 64> table;
  SmallVector<int64_t, 6> outDims;
  auto inStrides = rowMajorStrides(inType.dims);
  int modeCode = ember_pad_mode_code(mode.c_str());
  for (size_t d = 0; d < rank; ++d) {
    outDims.push_back(int64_t(outType.dims[d]));
    for (int64_t o = 0; o < int64_t(outType.dims[d]); ++o) {
      int64_t i = ember_pad_source(o, int64_t(inType.dims[d]), pads[d], modeCode);
      table.push_back(i < 0 ? -1 : i * inStrides[d]);
    }
  }
  int64_t runBegin = 0, runEnd = 0; // the input's interior on the last axis: consecutive reads
  if (rank == 0) {
    outDims.push_back(1);
    table.push_back(0);
  } else {
    runBegin = pads[rank - 1];
    runEnd = runBegin + int64_t(inType.dims[rank - 1]);
  }
  return E.call("ember_table_gather" + bitsSuffix(outType),
                {E.out(I), E.in(I, ops::Pad::Input), E.in(I, ops::Pad::Value),
                 E.i64(int64_t(outDims.size())), E.constArray(outDims, "dims"),
                 E.constArray(table, "padTable"), E.i64(runBegin), E.i64(runEnd)});
}

// Zero is all-zero bytes for every kind but the quantized ones (the Interpreter's rule).
bool supportsTrilu(const Node &n) { return byteSizeOk(n.getType()) && !n.getType().isQuantized(); }

Error emitTrilu(Emitter &E, const Instruction &I) {
  const ember::Type &t = I.getOutput()->getType();
  size_t rank = t.rank();
  return E.call("ember_trilu" + bitsSuffix(t),
                {E.out(I), E.in(I, ops::Trilu::Input), E.i64(dimsProduct(t.dims, 0, rank - 2)),
                 E.i64(int64_t(t.dims[rank - 2])), E.i64(int64_t(t.dims[rank - 1])),
                 E.i64(I.attr<AttrKind::DiagonalOffset>()), E.i64(I.attr<AttrKind::Upper>())});
}

// ONNX Range's types (the Interpreter's supportsRange).
bool supportsRange(const Node &n) {
  switch (n.getType().kind) {
  case ElemKind::Float32:
  case ElemKind::Float64:
  case ElemKind::Int16:
  case ElemKind::Int32:
  case ElemKind::Int64:
    return true;
  default:
    return false;
  }
}

Error emitRange(Emitter &E, const Instruction &I) {
  return E.call(kernelFor("ember_range", I.getOutput()->getType().kind),
                {E.out(I), E.in(I, ops::Range::Start), E.in(I, ops::Range::Delta),
                 E.i64(numElements(I.getOutput()))});
}

bool always(const Node &) { return true; }

} // namespace

void addDataMovementKernels(KernelTable &t) {
  t.add(NodeKind::Reshape, always, emitReshape);
  t.add(NodeKind::Transpose, movesBytes, emitTranspose);
  t.add(NodeKind::Broadcast, movesBytes, emitBroadcast);
  t.add(NodeKind::Slice, movesBytes, emitSlice);
  t.add(NodeKind::Concat, always, emitConcat);
  t.add(NodeKind::Pad, movesBytes, emitPad);
  t.add(NodeKind::Trilu, supportsTrilu, emitTrilu);
  t.add(NodeKind::Range, supportsRange, emitRange);
  addDataMovementIndexedKernels(t);
  addDataMovementResizeKernels(t);
  addDataMovementGridSampleKernels(t);
}

} // namespace cpu
} // namespace ember
