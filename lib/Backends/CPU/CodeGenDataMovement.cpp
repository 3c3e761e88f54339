// Codegen for data movement (kernels/DataMovement.cpp): Reshape, Transpose, Broadcast, Slice,
// Concat and Gather, on every element kind (they move bytes). Transpose, Broadcast and Slice
// become one strided gather whose strides codegen computes, with axes merged where the source
// is contiguous across them so the kernel's inner loop is long.
#include "CodeGenUtils.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

constexpr size_t kMaxStridedRank = 6; // the loop nest of ember_strided_copy_*

bool byteSizeOk(const ember::Type &t) {
  size_t e = t.elementSize();
  return e == 1 || e == 2 || e == 4 || e == 8;
}

std::string bitsSuffix(const ember::Type &t) { return "_b" + std::to_string(t.elementSize() * 8); }

/// dst[i] = src[base + sum(i[d] * strides[d])] over dst's dims.
Error emitStrided(Emitter &E, const Instruction &I, Value *dst, Value *src, const ember::Type &dstType,
                  ArrayRef<int64_t> strides, int64_t base) {
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
  if (d.size() > kMaxStridedRank)
    return instrError(I, "more than " + Twine(kMaxStridedRank) + " non-mergeable axes");
  while (d.size() < kMaxStridedRank) {
    d.insert(d.begin(), 1);
    s.insert(s.begin(), 0);
  }
  return E.call("ember_strided_copy" + bitsSuffix(dstType),
                {dst, src, E.constArray(d, "dims"), E.constArray(s, "strides"), E.i64(base)});
}

/// Rank small enough for the strided kernel even when no axes merge.
bool stridedOk(const Node &n) {
  return byteSizeOk(n.getType()) && n.getType().rank() <= kMaxStridedRank;
}

Error emitReshape(Emitter &E, const Instruction &I) {
  return E.call("ember_copy", {E.out(I), E.in(I, 0), E.i64(int64_t(I.getOutput()->sizeInBytes()))});
}

Error emitTranspose(Emitter &E, const Instruction &I) {
  auto inStrides = rowMajorStrides(I.getInput(0)->getType().dims);
  SmallVector<int64_t, 6> strides;
  for (int64_t a : I.attr<AttrKind::Shuffle>())
    strides.push_back(inStrides[size_t(a)]);
  return emitStrided(E, I, E.out(I), E.in(I, 0), I.getOutput()->getType(), strides, 0);
}

Error emitBroadcast(Emitter &E, const Instruction &I) {
  const DimsVec &inDims = I.getInput(0)->getType().dims;
  const ember::Type &outType = I.getOutput()->getType();
  auto inStrides = rowMajorStrides(inDims);
  size_t shift = outType.dims.size() - inDims.size();
  SmallVector<int64_t, 6> strides(outType.dims.size(), 0);
  for (size_t d = 0; d < inDims.size(); ++d)
    strides[d + shift] = inDims[d] == 1 ? 0 : inStrides[d];
  return emitStrided(E, I, E.out(I), E.in(I, 0), outType, strides, 0);
}

Error emitSlice(Emitter &E, const Instruction &I) {
  const ember::Type &outType = I.getOutput()->getType();
  if (outType.numElements() == 0)
    return Error::success();
  auto inStrides = rowMajorStrides(I.getInput(0)->getType().dims);
  const auto &starts = I.attr<AttrKind::Starts>();
  const auto &steps = I.attr<AttrKind::Steps>();
  int64_t base = 0;
  SmallVector<int64_t, 6> strides;
  for (size_t d = 0; d < inStrides.size(); ++d) {
    base += starts[d] * inStrides[d];
    strides.push_back(outType.dims[d] > 1 ? steps[d] * inStrides[d] : 0);
  }
  return emitStrided(E, I, E.out(I), E.in(I, 0), outType, strides, base);
}

Error emitConcat(Emitter &E, const Instruction &I) {
  const ember::Type &outType = I.getOutput()->getType();
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  int64_t esz = int64_t(outType.elementSize());
  int64_t outer = dimsProduct(outType.dims, 0, axis);
  int64_t dstRow = dimsProduct(outType.dims, axis, outType.dims.size()) * esz;
  int64_t colOffset = 0;
  Value *dst = E.out(I);
  for (unsigned i = 0; i < I.getNumInputs(); ++i) {
    const DimsVec &dims = I.getInput(i)->getType().dims;
    int64_t srcRow = dimsProduct(dims, axis, dims.size()) * esz;
    Value *at = E.builder().CreateInBoundsGEP(E.builder().getInt8Ty(), dst, E.i64(colOffset));
    EMBER_TRY(E.call("ember_copy_rows",
                     {at, E.i64(dstRow), E.in(I, i), E.i64(srcRow), E.i64(outer), E.i64(srcRow)}));
    colOffset += srcRow;
  }
  return Error::success();
}

bool supportsGather(const Node &n) {
  ElemKind k = n.getOperand(ops::Gather::Indices).getType().kind;
  return (k == ElemKind::Int32 || k == ElemKind::Int64);
}

Error emitGather(Emitter &E, const Instruction &I) {
  const ember::Type &data = I.getInput(ops::Gather::Data)->getType();
  const ember::Type &indices = I.getInput(ops::Gather::Indices)->getType();
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  int64_t inner = dimsProduct(data.dims, axis + 1, data.dims.size());
  std::string kernel =
      indices.kind == ElemKind::Int32 ? "ember_gather_i32" : "ember_gather_i64";
  return E.callChecked(kernel,
                       {E.out(I), E.in(I, ops::Gather::Data), E.in(I, ops::Gather::Indices),
                        E.i64(dimsProduct(data.dims, 0, axis)), E.i64(int64_t(data.dims[axis])),
                        E.i64(int64_t(indices.numElements())),
                        E.i64(inner * int64_t(data.elementSize()))},
                       I, "an index is out of range for axis " + std::to_string(axis));
}

bool always(const Node &) { return true; }

} // namespace

void addDataMovementKernels(KernelTable &t) {
  t.add(NodeKind::Reshape, always, emitReshape);
  t.add(NodeKind::Transpose, stridedOk, emitTranspose);
  t.add(NodeKind::Broadcast, stridedOk, emitBroadcast);
  t.add(NodeKind::Slice, stridedOk, emitSlice);
  t.add(NodeKind::Concat, always, emitConcat);
  t.add(NodeKind::Gather, supportsGather, emitGather);
}

} // namespace cpu
} // namespace ember
