// The OpenCL launches of selections and scans along an axis: ArgMax, ArgMin, Hardmax, TopK,
// CumSum; and Einsum (kernels/Selection.cl).
#include "KernelTable.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/DenseMap.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// A tensor seen as [outer, len, inner] around \p axis.
struct AxisView {
  int64_t outer = 1, len, inner = 1;
  AxisView(ArrayRef<dim_t> dims, int64_t axis) : len(int64_t(dims[size_t(axis)])) {
    for (size_t d = 0; d < size_t(axis); ++d)
      outer *= int64_t(dims[d]);
    for (size_t d = size_t(axis) + 1; d < dims.size(); ++d)
      inner *= int64_t(dims[d]);
  }
  int64_t lines() const { return outer * inner; }
};

/// The kinds the Interpreter selects from: every one but bool and the quantized ones.
bool isNumericKind(ElemKind k) { return k != ElemKind::Bool && !isQuantizedKind(k); }

std::string kernelFor(StringRef name, ElemKind k) { return (name + "_" + kindSuffix(k)).str(); }

/// Einsum's parameters (Selection.cl's layout): the output labels first, then the others in
/// order of appearance.
std::vector<int64_t> einsumParams(const Instruction &I) {
  const auto &inLabels = I.attr<AttrKind::InputLabels>();
  const auto &outLabels = I.attr<AttrKind::OutputLabels>();
  DenseMap<int64_t, unsigned> slot;
  std::vector<int64_t> sizes;
  for (int64_t label : outLabels)
    slot.try_emplace(label, slot.size());
  sizes.resize(slot.size(), 0);
  size_t next = 0;
  for (unsigned op = 0; op < I.getNumInputs(); ++op)
    for (dim_t d : I.getInput(op)->getType().dims) {
      auto [it, inserted] = slot.try_emplace(inLabels[next++], slot.size());
      if (inserted)
        sizes.push_back(int64_t(d));
      sizes[it->second] = int64_t(d);
    }
  int64_t combinations = 1;
  for (size_t l = outLabels.size(); l < sizes.size(); ++l)
    combinations *= sizes[l];
  std::vector<int64_t> p = {placeOf(I.getOutput()), int64_t(I.getNumInputs()),
                            int64_t(sizes.size()), int64_t(outLabels.size()), combinations};
  p.insert(p.end(), sizes.begin(), sizes.end());
  next = 0;
  for (unsigned op = 0; op < I.getNumInputs(); ++op) {
    std::vector<int64_t> strides(sizes.size(), 0);
    ArrayRef<dim_t> dims = I.getInput(op)->getType().dims;
    std::vector<int64_t> s = stridesOf(dims);
    for (size_t d = 0; d < dims.size(); ++d)
      strides[slot[inLabels[next++]]] += s[d];
    p.push_back(placeOf(I.getInput(op)));
    p.insert(p.end(), strides.begin(), strides.end());
  }
  return p;
}

Expected<bool> planSelection(LaunchBuilder &b, const Instruction &I) {
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  ElemKind xk = I.getNumInputs() ? I.getInput(0)->getType().kind : ElemKind::Float32;
  switch (I.getKind()) {
  case InstrKind::ArgMax:
  case InstrKind::ArgMin: {
    AxisView v(I.getInput(0)->getType().dims, I.attr<AttrKind::Axis>());
    return b.add(I, kernelFor("argselect", xk), uint64_t(v.lines()),
                 {placeOf(I.getOutput()), in(0), v.len, v.inner,
                  int64_t(I.getKind() == InstrKind::ArgMax),
                  int64_t(I.attr<AttrKind::SelectLastIndex>() != 0)});
  }
  case InstrKind::CumSum: {
    AxisView v(I.getInput(0)->getType().dims, I.attr<AttrKind::Axis>());
    return b.add(I, kernelFor("cumsum", xk), uint64_t(v.lines()),
                 {placeOf(I.getOutput()), in(0), v.len, v.inner,
                  int64_t(I.attr<AttrKind::Exclusive>() != 0),
                  int64_t(I.attr<AttrKind::Reverse>() != 0)});
  }
  case InstrKind::TopK: {
    AxisView v(I.getInput(0)->getType().dims, I.attr<AttrKind::Axis>());
    int64_t k = I.attr<AttrKind::Count>();
    if (k == 0)
      return true;
    return b.add(I, kernelFor("topk", xk), uint64_t(v.lines() * v.len),
                 {placeOf(I.getOutput(ops::TopK::Values)), placeOf(I.getOutput(ops::TopK::Indices)),
                  in(0), v.len, v.inner, k, int64_t(I.attr<AttrKind::Largest>() != 0)});
  }
  case InstrKind::Hardmax: {
    AxisView v(I.getInput(0)->getType().dims, I.attr<AttrKind::Axis>());
    return b.add(I, kernelFor("hardmax", xk), uint64_t(v.lines()),
                 {placeOf(I.getOutput()), in(0), v.len, v.inner});
  }
  case InstrKind::Einsum: {
    ElemKind k = I.getOutput()->getType().kind;
    return b.add(I, kernelFor("einsum", k), I.getOutput()->getType().numElements(),
                 einsumParams(I));
  }
  default:
    return false;
  }
}

bool supportsSelection(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::ArgMax:
  case NodeKind::ArgMin:
  case NodeKind::CumSum:
  case NodeKind::TopK:
    return isNumericKind(n.getOperand(0).getType().kind);
  case NodeKind::Einsum:
    return isNumericKind(n.getType(0).kind);
  case NodeKind::Hardmax:
    return isFloatKind(n.getType(0).kind);
  default:
    return false;
  }
}

} // namespace

void addSelectionKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::ArgMax, NodeKind::ArgMin, NodeKind::CumSum, NodeKind::TopK,
                     NodeKind::Hardmax, NodeKind::Einsum})
    t.add(k, supportsSelection, planSelection);
}

} // namespace opencl
} // namespace ember
