// Codegen for indexed data movement (kernels/DataMovementIndexed.cpp): Gather, GatherElements,
// GatherND, ScatterElements, ScatterND, OneHot, ReverseSequence, on every element kind the
// Interpreter runs them on. Indices are read at run time; every kernel that reads them returns
// nonzero for one out of range, which callChecked turns into an error naming the instruction.
#include "CodeGenUtils.h"

#include "ember/Graph/ScatterReduction.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

bool byteSizeOk(const ember::Type &t) {
  size_t e = t.elementSize();
  return e == 1 || e == 2 || e == 4 || e == 8;
}

std::string bitsSuffix(const ember::Type &t) { return "_b" + std::to_string(t.elementSize() * 8); }

/// "_i32" or "_i64": the suffix of an index operand's kind (the shape rules allow no other).
std::string indexSuffix(const ember::Type &t) {
  return t.kind == ElemKind::Int32 ? "_i32" : "_i64";
}

bool isIndexKind(ElemKind k) { return k == ElemKind::Int32 || k == ElemKind::Int64; }

bool supportsGather(const Node &n) {
  return byteSizeOk(n.getType()) && isIndexKind(n.getOperand(ops::Gather::Indices).getType().kind);
}

Error emitGather(Emitter &E, const Instruction &I) {
  const ember::Type &data = I.getInput(ops::Gather::Data)->getType();
  const ember::Type &indices = I.getInput(ops::Gather::Indices)->getType();
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  int64_t inner = dimsProduct(data.dims, axis + 1, data.dims.size());
  return E.callChecked("ember_gather" + indexSuffix(indices),
                       {E.out(I), E.in(I, ops::Gather::Data), E.in(I, ops::Gather::Indices),
                        E.i64(dimsProduct(data.dims, 0, axis)), E.i64(int64_t(data.dims[axis])),
                        E.i64(int64_t(indices.numElements())),
                        E.i64(inner * int64_t(data.elementSize()))},
                       I, "an index is out of range for axis " + std::to_string(axis));
}

/// The walk of GatherElements/ScatterElements (kernels: forEachElementIndex): indices' dims, the
/// data strides of the row axes with the indexed axis' zeroed, the last axis' data stride (0
/// when it is the indexed axis), the indexed axis' length and stride.
SmallVector<Value *, 6> elementWalkArgs(Emitter &E, const ember::Type &data,
                                        const ember::Type &indices, size_t axis) {
  auto strides = rowMajorStrides(data.dims);
  SmallVector<int64_t, 6> rowStrides(strides.begin(), strides.end());
  rowStrides[axis] = 0;
  size_t rank = data.rank();
  return {E.i64(int64_t(rank)),
          E.dimsArray(indices.dims, "indexDims"),
          E.constArray(rowStrides, "rowStrides"),
          E.i64(axis == rank - 1 ? 0 : 1),
          E.i64(int64_t(data.dims[axis])),
          E.i64(strides[axis])};
}

bool supportsGatherElements(const Node &n) { return byteSizeOk(n.getType()); }

Error emitGatherElements(Emitter &E, const Instruction &I) {
  const ember::Type &data = I.getInput(ops::GatherElements::Data)->getType();
  const ember::Type &indices = I.getInput(ops::GatherElements::Indices)->getType();
  if (indices.numElements() == 0)
    return Error::success();
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  SmallVector<Value *, 10> args = {E.out(I), E.in(I, ops::GatherElements::Data),
                                   E.in(I, ops::GatherElements::Indices)};
  args.append(elementWalkArgs(E, data, indices, axis));
  return E.callChecked("ember_gather_elements" + bitsSuffix(data) + indexSuffix(indices), args, I,
                       "an index is out of range for axis " + std::to_string(axis));
}

/// The scatters' kernel name part for reduction \p how on \p t: "none" moves bytes (per element
/// size), the reductions compute (per element kind).
std::string scatterKind(StringRef how, const ember::Type &t) {
  if (how == "none")
    return "none" + bitsSuffix(t);
  return (how + "_" + kindSuffix(t.kind)).str();
}

// Replacing moves bytes; the reductions compute on every non-quantized kind (the
// Interpreter's).
bool supportsScatter(const Node &n) {
  std::optional<ScatterReduction> how = scatterReductionNamed(n.attr<AttrKind::Reduction>());
  if (how == ScatterReduction::None)
    return byteSizeOk(n.getType());
  return how && !n.getType().isQuantized();
}

Error emitScatterElements(Emitter &E, const Instruction &I) {
  const ember::Type &data = I.getInput(ops::ScatterElements::Data)->getType();
  const ember::Type &indices = I.getInput(ops::ScatterElements::Indices)->getType();
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  if (indices.numElements() == 0) // the result is data: the kernel would only copy it
    return E.call("ember_copy", {E.out(I), E.in(I, ops::ScatterElements::Data),
                                 E.i64(int64_t(data.sizeInBytes()))});
  SmallVector<Value *, 12> args = {
      E.out(I), E.in(I, ops::ScatterElements::Data), E.in(I, ops::ScatterElements::Indices),
      E.in(I, ops::ScatterElements::Updates), E.i64(int64_t(data.numElements()))};
  args.append(elementWalkArgs(E, data, indices, axis));
  return E.callChecked("ember_scatter_elements_" +
                           scatterKind(I.attr<AttrKind::Reduction>(), data) + indexSuffix(indices),
                       args, I, "an index is out of range for axis " + std::to_string(axis));
}

/// The m axes from \p first an index tuple names: their lengths and strides.
std::pair<llvm::Constant *, llvm::Constant *> tupleAxes(Emitter &E, const ember::Type &data, size_t first,
                                            size_t m) {
  auto strides = rowMajorStrides(data.dims);
  SmallVector<int64_t, 6> dims, steps;
  for (size_t j = 0; j < m; ++j) {
    dims.push_back(int64_t(data.dims[first + j]));
    steps.push_back(strides[first + j]);
  }
  return {E.constArray(dims, "tupleDims"), E.constArray(steps, "tupleStrides")};
}

bool supportsGatherND(const Node &n) { return byteSizeOk(n.getType()); }

Error emitGatherND(Emitter &E, const Instruction &I) {
  const ember::Type &data = I.getInput(ops::GatherND::Data)->getType();
  const ember::Type &indices = I.getInput(ops::GatherND::Indices)->getType();
  size_t batch = size_t(I.attr<AttrKind::BatchDims>()), m = size_t(indices.dims.back());
  // data is [batches, rest...], indices [batches, tuplesPerBatch, m]; each tuple picks a slice
  // of `slice` elements.
  int64_t batches = dimsProduct(data.dims, 0, batch);
  int64_t tuples = int64_t(indices.numElements() / m);
  if (tuples == 0)
    return Error::success();
  auto [dims, strides] = tupleAxes(E, data, batch, m);
  return E.callChecked(
      "ember_gather_nd" + bitsSuffix(data) + indexSuffix(indices),
      {E.out(I), E.in(I, ops::GatherND::Data), E.in(I, ops::GatherND::Indices), E.i64(int64_t(m)),
       dims, strides, E.i64(tuples), E.i64(tuples / batches),
       E.i64(dimsProduct(data.dims, batch, data.rank())),
       E.i64(dimsProduct(data.dims, batch + m, data.rank()))},
      I, "an index is out of range");
}

Error emitScatterND(Emitter &E, const Instruction &I) {
  const ember::Type &data = I.getInput(ops::ScatterND::Data)->getType();
  const ember::Type &indices = I.getInput(ops::ScatterND::Indices)->getType();
  size_t m = size_t(indices.dims.back());
  int64_t tuples = int64_t(indices.numElements() / m);
  if (tuples == 0)
    return E.call("ember_copy", {E.out(I), E.in(I, ops::ScatterND::Data),
                                 E.i64(int64_t(data.sizeInBytes()))});
  auto [dims, strides] = tupleAxes(E, data, 0, m);
  return E.callChecked(
      "ember_scatter_nd_" + scatterKind(I.attr<AttrKind::Reduction>(), data) +
          indexSuffix(indices),
      {E.out(I), E.in(I, ops::ScatterND::Data), E.in(I, ops::ScatterND::Indices),
       E.in(I, ops::ScatterND::Updates), E.i64(int64_t(data.numElements())), E.i64(int64_t(m)),
       dims, strides, E.i64(tuples), E.i64(dimsProduct(data.dims, m, data.rank()))},
      I, "an index is out of range");
}

// Any non-quantized index kind (the Interpreter's), any result kind.
bool supportsOneHot(const Node &n) {
  return byteSizeOk(n.getType()) &&
         !isQuantizedKind(n.getOperand(ops::OneHot::Indices).getType().kind);
}

Error emitOneHot(Emitter &E, const Instruction &I) {
  const ember::Type &indices = I.getInput(ops::OneHot::Indices)->getType();
  const ember::Type &outType = I.getOutput()->getType();
  if (outType.numElements() == 0)
    return Error::success();
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  const DimsVec &inDims = indices.dims;
  return E.call("ember_one_hot_" + kindSuffix(indices.kind).str() + bitsSuffix(outType),
                {E.out(I), E.in(I, ops::OneHot::Indices), E.in(I, ops::OneHot::Values),
                 E.i64(dimsProduct(inDims, 0, axis)), E.i64(I.attr<AttrKind::Depth>()),
                 E.i64(dimsProduct(inDims, axis, inDims.size()))});
}

bool supportsReverseSequence(const Node &n) {
  return isIndexKind(n.getOperand(ops::ReverseSequence::SequenceLens).getType().kind);
}

Error emitReverseSequence(Emitter &E, const Instruction &I) {
  const ember::Type &x = I.getInput(ops::ReverseSequence::Input)->getType();
  const ember::Type &lens = I.getInput(ops::ReverseSequence::SequenceLens)->getType();
  int64_t timeAxis = I.attr<AttrKind::TimeAxis>();
  // The input is [d0, d1, rows] with batch and time the first two axes in some order.
  int64_t rowBytes = dimsProduct(x.dims, 2, x.rank()) * int64_t(x.elementSize());
  return E.callChecked("ember_reverse_sequence" + indexSuffix(lens),
                       {E.out(I), E.in(I, ops::ReverseSequence::Input),
                        E.in(I, ops::ReverseSequence::SequenceLens), E.i64(int64_t(x.dims[0])),
                        E.i64(int64_t(x.dims[1])), E.i64(timeAxis), E.i64(rowBytes)},
                       I,
                       "a sequence length is outside [0, " + std::to_string(x.dims[timeAxis]) +
                           "]");
}

} // namespace

void addDataMovementIndexedKernels(KernelTable &t) {
  t.add(NodeKind::Gather, supportsGather, emitGather);
  t.add(NodeKind::GatherElements, supportsGatherElements, emitGatherElements);
  t.add(NodeKind::GatherND, supportsGatherND, emitGatherND);
  t.add(NodeKind::ScatterElements, supportsScatter, emitScatterElements);
  t.add(NodeKind::ScatterND, supportsScatter, emitScatterND);
  t.add(NodeKind::OneHot, supportsOneHot, emitOneHot);
  t.add(NodeKind::ReverseSequence, supportsReverseSequence, emitReverseSequence);
}

} // namespace cpu
} // namespace ember
