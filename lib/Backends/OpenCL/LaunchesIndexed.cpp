// The OpenCL launches of indexed data movement: Gather, GatherElements, GatherND,
// ScatterElements, ScatterND, OneHot, ReverseSequence and MaxUnpool (kernels/Indexed.cl). Index
// operands are read by the kernels at run time, which fail the run on one out of range.
#include "KernelTable.h"

#include "ember/Graph/ScatterReduction.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// The run's error when a gather's, scatter's or MaxUnpool's kernel meets a bad index (FAIL()).
constexpr const char *kOutOfRange = "an index is out of range";

std::string bytesSuffix(const Type &t) { return std::to_string(t.elementSize()); }

/// ScatterElements and ScatterND: a copy of data into the result (unless the result is data's
/// buffer), then the scatter, whose work-items each walk their updates in index order.
Expected<bool> planScatter(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType(), &it = I.getInput(1)->getType();
  int64_t y = placeOf(I.getOutput()), data = placeOf(I.getInput(0));
  const std::string &how = I.getAttrs().get<AttrKind::Reduction>();
  int64_t n = int64_t(out.numElements());
  if (y != data) {
    auto copied = b.copyStrided(I, y, data, out.elementSize(), {{{n, 1, 1}}});
    if (!copied)
      return copied.takeError();
  }
  ArrayRef<dim_t> dd = out.dims, id = it.dims;
  std::vector<int64_t> ds = stridesOf(dd);
  std::optional<ScatterReduction> reduction = scatterReductionNamed(how);
  if (!reduction) // the shape rule refused it already
    return makeError("unknown scatter reduction '" + how + "'");
  std::vector<int64_t> p = {y, placeOf(I.getInput(2)), placeOf(I.getInput(1)),
                            int64_t(it.elementSize()), int64_t(*reduction)};
  uint64_t items;
  if (I.getKind() == InstrKind::ScatterElements) {
    // A work-item per line of indices along the axis (form 0).
    size_t axis = size_t(I.getAttrs().get<AttrKind::Axis>());
    std::vector<int64_t> is = stridesOf(id);
    items = id[axis] ? uint64_t(dimsProductAsInt64(id, 0, id.size())) / id[axis] : 0;
    p.insert(p.end(), {0, int64_t(id[axis]), int64_t(id.size()), int64_t(axis), int64_t(dd[axis])});
    for (size_t d = 0; d < id.size(); ++d)
      p.insert(p.end(), {int64_t(id[d]), is[d], ds[d]});
  } else {
    // A work-item per position in the slices each index tuple names (form 1).
    size_t m = size_t(id.back());
    int64_t slice = dimsProductAsInt64(dd, m, dd.size());
    items = uint64_t(slice);
    p.insert(p.end(), {1, int64_t(it.numElements()) / int64_t(m), int64_t(m), slice});
    for (size_t j = 0; j < m; ++j)
      p.insert(p.end(), {int64_t(dd[j]), ds[j]});
  }
  return b.add(I, ("scatter_" + kindSuffix(out.kind)).str(), items, p, kDefaultGroup, kOutOfRange);
}

Expected<bool> planIndexed(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  const AttrList &a = I.getAttrs();
  switch (I.getKind()) {
  case InstrKind::Gather: {
    ArrayRef<dim_t> dd = I.getInput(0)->getType().dims;
    size_t axis = size_t(a.get<AttrKind::Axis>());
    const Type &idx = I.getInput(1)->getType();
    return b.add(I, "gather_" + bytesSuffix(out), n,
                 {y, in(0), in(1), int64_t(idx.elementSize()), dimsProductAsInt64(dd, 0, axis),
                  int64_t(dd[axis]), dimsProductAsInt64(dd, axis + 1, dd.size()),
                  int64_t(idx.numElements())},
                 kDefaultGroup, kOutOfRange);
  }
  case InstrKind::GatherElements: {
    ArrayRef<dim_t> dd = I.getInput(0)->getType().dims;
    const Type &idx = I.getInput(1)->getType();
    int64_t axis = a.get<AttrKind::Axis>();
    std::vector<int64_t> ds = stridesOf(dd);
    std::vector<int64_t> p = {y,
                              in(0),
                              in(1),
                              int64_t(idx.elementSize()),
                              int64_t(dd.size()),
                              axis,
                              int64_t(dd[size_t(axis)])};
    for (size_t d = 0; d < dd.size(); ++d)
      p.insert(p.end(), {int64_t(idx.dims[d]), ds[d]});
    return b.add(I, "gather_elements_" + bytesSuffix(out), n, p, kDefaultGroup, kOutOfRange);
  }
  case InstrKind::GatherND: {
    // data is [batches, rest...], indices [batches, tuples per batch, m]; each tuple picks a
    // slice of the axes after the batch axes and the m it names.
    ArrayRef<dim_t> dd = I.getInput(0)->getType().dims;
    const Type &idx = I.getInput(1)->getType();
    size_t batch = size_t(a.get<AttrKind::BatchDims>()), m = size_t(idx.dims.back());
    std::vector<int64_t> ds = stridesOf(dd);
    int64_t batches = dimsProductAsInt64(dd, 0, batch);
    int64_t tuples = int64_t(idx.numElements()) / int64_t(m);
    int64_t perBatch = batches ? tuples / batches : 1;
    std::vector<int64_t> p = {y,
                              in(0),
                              in(1),
                              int64_t(idx.elementSize()),
                              int64_t(m),
                              dimsProductAsInt64(dd, batch + m, dd.size()),
                              std::max<int64_t>(perBatch, 1),
                              dimsProductAsInt64(dd, batch, dd.size())};
    for (size_t j = 0; j < m; ++j)
      p.insert(p.end(), {int64_t(dd[batch + j]), ds[batch + j]});
    return b.add(I, "gather_nd_" + bytesSuffix(out), n, p, kDefaultGroup, kOutOfRange);
  }
  case InstrKind::ScatterElements:
  case InstrKind::ScatterND:
    return planScatter(b, I);
  case InstrKind::OneHot: {
    const Type &idx = I.getInput(0)->getType();
    size_t axis = size_t(a.get<AttrKind::Axis>());
    return b.add(I, ("one_hot_" + kindSuffix(idx.kind)).str(), n,
                 {y, in(0), in(1), int64_t(out.elementSize()), a.get<AttrKind::Depth>(),
                  dimsProductAsInt64(idx.dims, axis, idx.dims.size())});
  }
  case InstrKind::ReverseSequence: {
    // The input as [d0, d1, inner]: batch and time are the first two axes.
    ArrayRef<dim_t> dd = out.dims;
    return b.add(I, "reverse_sequence", n,
                 {y, in(0), in(1), int64_t(I.getInput(1)->getType().elementSize()),
                  a.get<AttrKind::TimeAxis>(), int64_t(dd[0]), int64_t(dd[1]),
                  dimsProductAsInt64(dd, 2, dd.size()), int64_t(out.elementSize())},
                 kDefaultGroup, "a sequence length is out of range");
  }
  case InstrKind::MaxUnpool: {
    const auto &unpooled = a.get<AttrKind::Dims>();
    const auto &pads = a.get<AttrKind::Pads>(); // spatial begins, then ends
    std::vector<int64_t> os = stridesOf(ArrayRef<dim_t>(out.dims).drop_front(2));
    size_t rank = unpooled.size() - 2;
    int64_t plane = 1;
    for (size_t k = 0; k < rank; ++k)
      plane *= unpooled[k + 2];
    std::vector<int64_t> p = {y,
                              in(0),
                              in(1),
                              int64_t(I.getInput(0)->getType().numElements()),
                              unpooled[0] * unpooled[1] * plane,
                              plane,
                              dimsProductAsInt64(out.dims, 2, out.dims.size()),
                              int64_t(out.elementSize()),
                              int64_t(rank)};
    for (size_t k = 0; k < rank; ++k)
      p.insert(p.end(), {unpooled[k + 2], os[k], pads[k]});
    auto zeroed = b.add(I, "zero_bytes", out.sizeInBytes(), {y});
    if (!zeroed)
      return zeroed.takeError();
    return b.add(I, "max_unpool", 1, p, kDefaultGroup, kOutOfRange);
  }
  default:
    return false;
  }
}

bool supportsIndexed(const Node &n) {
  auto movable = [](const Type &t) {
    size_t b = t.elementSize();
    return b == 1 || b == 2 || b == 4 || b == 8;
  };
  switch (n.getKind()) {
  case NodeKind::Gather:
  case NodeKind::GatherElements:
  case NodeKind::GatherND:
  case NodeKind::ReverseSequence:
    return movable(n.getType(0));
  case NodeKind::ScatterElements:
  case NodeKind::ScatterND: {
    // Replacing moves bits; the reductions compute on every kind but the quantized ones.
    std::optional<ScatterReduction> how = scatterReductionNamed(n.attr<AttrKind::Reduction>());
    return how && (how == ScatterReduction::None || !n.getType(0).isQuantized());
  }
  case NodeKind::OneHot:
    return movable(n.getType(0)) && !n.getOperand(0).getType().isQuantized();
  case NodeKind::MaxUnpool: // float kinds, as the Interpreter; int64 indices
    return isFloatKind(n.getType(0).kind) && n.getOperand(1).getType().kind == ElemKind::Int64;
  default:
    return false;
  }
}

} // namespace

void addIndexedKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::Gather, NodeKind::GatherElements, NodeKind::GatherND,
                     NodeKind::ReverseSequence, NodeKind::ScatterElements, NodeKind::ScatterND,
                     NodeKind::OneHot, NodeKind::MaxUnpool})
    t.add(k, supportsIndexed, planIndexed);
}

} // namespace opencl
} // namespace ember
