// The OpenCL launches of copies, views and gathers (kernels/DataMovement.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planDataMovement(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  const AttrList &a = I.getAttrs();
  switch (I.getKind()) {
  case InstrKind::Copy:
  case InstrKind::Reshape:
    return b.copyND(I, y, in(0), -1, out.elementSize(), {{int64_t(n), 1, int64_t(n), 1, 0, 1}});
  case InstrKind::Transpose: {
    ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
    std::vector<int64_t> is = stridesOf(id), os = stridesOf(out.dims);
    const auto &shuffle = a.get<AttrKind::Shuffle>();
    std::vector<std::array<int64_t, 6>> d;
    for (size_t k = 0; k < shuffle.size(); ++k)
      d.push_back({int64_t(out.dims[k]), os[k], int64_t(id[shuffle[k]]), is[shuffle[k]], 0, 1});
    return b.copyND(I, y, in(0), -1, out.elementSize(), d);
  }
  case InstrKind::Broadcast: {
    ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
    std::vector<int64_t> is = stridesOf(id), os = stridesOf(out.dims);
    size_t lead = out.dims.size() - id.size();
    std::vector<std::array<int64_t, 6>> d;
    for (size_t k = 0; k < out.dims.size(); ++k) {
      bool spread = k < lead || id[k - lead] == 1;
      d.push_back({int64_t(out.dims[k]), os[k], 1, spread ? 0 : is[k - lead], 0, spread ? 0 : 1});
    }
    for (auto &e : d)
      if (e[5] == 1)
        e[2] = e[0];
    return b.copyND(I, y, in(0), -1, out.elementSize(), d);
  }
  case InstrKind::Slice: {
    ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
    std::vector<int64_t> is = stridesOf(id), os = stridesOf(out.dims);
    const auto &starts = a.get<AttrKind::Starts>(), &steps = a.get<AttrKind::Steps>();
    std::vector<std::array<int64_t, 6>> d;
    for (size_t k = 0; k < id.size(); ++k)
      d.push_back({int64_t(out.dims[k]), os[k], int64_t(id[k]), is[k], starts[k], steps[k]});
    return b.copyND(I, y, in(0), -1, out.elementSize(), d);
  }
  case InstrKind::Pad: {
    if (a.get<AttrKind::Mode>() != "constant")
      return makeError("only constant padding runs on OpenCL");
    ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
    std::vector<int64_t> is = stridesOf(id), os = stridesOf(out.dims);
    const auto &pads = a.get<AttrKind::Pads>();
    std::vector<std::array<int64_t, 6>> d;
    for (size_t k = 0; k < id.size(); ++k)
      d.push_back({int64_t(out.dims[k]), os[k], int64_t(id[k]), is[k], -pads[k], 1});
    return b.copyND(I, y, in(0), in(1), out.elementSize(), d);
  }
  case InstrKind::Concat: {
    int64_t axis = a.get<AttrKind::Axis>();
    std::vector<int64_t> os = stridesOf(out.dims);
    int64_t at = 0;
    for (unsigned k = 0; k < I.getNumInputs(); ++k) {
      ArrayRef<dim_t> id = I.getInput(k)->getType().dims;
      std::vector<int64_t> is = stridesOf(id);
      std::vector<std::array<int64_t, 6>> d;
      for (size_t j = 0; j < id.size(); ++j)
        d.push_back({int64_t(id[j]), os[j], int64_t(id[j]), is[j], 0, 1});
      auto part = b.copyND(I, y + at * os[axis] * int64_t(out.elementSize()), in(k), -1,
                           out.elementSize(), d);
      if (!part)
        return part.takeError();
      at += int64_t(id[axis]);
    }
    return true;
  }
  case InstrKind::Gather: {
    ArrayRef<dim_t> dd = I.getInput(0)->getType().dims;
    int64_t axis = a.get<AttrKind::Axis>();
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < axis; ++k)
      outer *= int64_t(dd[k]);
    for (size_t k = size_t(axis) + 1; k < dd.size(); ++k)
      inner *= int64_t(dd[k]);
    const Type &idx = I.getInput(1)->getType();
    return b.add(I, "gather", n,
               {y, in(0), in(1), int64_t(idx.elementSize()), outer, int64_t(dd[axis]), inner,
                int64_t(idx.numElements()), int64_t(out.elementSize())});
  }
  default:
    return false;
  }
}

namespace {

bool copyableKind(const Type &t) {
  size_t b = t.elementSize();
  return b == 1 || b == 2 || b == 4 || b == 8;
}

} // namespace

std::optional<bool> supportsDataMovement(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::Save: // a copy
    return copyableKind(n.getOperand(0).getType());
  case NodeKind::Reshape:
  case NodeKind::Transpose:
  case NodeKind::Broadcast:
  case NodeKind::Slice:
  case NodeKind::Concat:
    return copyableKind(n.getType(0));
  case NodeKind::Pad:
    return copyableKind(n.getType(0)) && n.attr<AttrKind::Mode>() == "constant";
  case NodeKind::Gather: {
    size_t b = n.getType(0).elementSize();
    return b == 4 || b == 8;
  }
  default:
    return std::nullopt;
  }
}

} // namespace opencl
} // namespace ember
