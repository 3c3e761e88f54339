// The OpenCL launches of the strided copies, Pad, Trilu and Range (kernels/DataMovement.cl);
// Resize's are LaunchesResize.cpp's, GridSample's LaunchesGridSample.cpp's, the indexed kinds'
// LaunchesIndexed.cpp's.
#include "KernelTable.h"

#include "ember/Semantics/PadSource.h"
#include "ember/Support/Error.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace opencl {

void addDataMovementResizeKernels(KernelTable &t);     // LaunchesResize.cpp
void addDataMovementGridSampleKernels(KernelTable &t); // LaunchesGridSample.cpp

namespace {

Expected<bool> planDataMovement(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  const AttrList &a = I.getAttrs();
  switch (I.getKind()) {
  case InstrKind::Copy:
  case InstrKind::Reshape:
    return b.copyStrided(I, y, in(0), out.elementSize(), {{int64_t(n), 1, 1}});
  case InstrKind::Transpose: {
    ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
    std::vector<int64_t> is = stridesOf(id), os = stridesOf(out.dims);
    const auto &shuffle = a.get<AttrKind::Shuffle>();
    std::vector<std::array<int64_t, 3>> d;
    for (size_t k = 0; k < shuffle.size(); ++k)
      d.push_back({int64_t(out.dims[k]), os[k], is[shuffle[k]]});
    return b.copyStrided(I, y, in(0), out.elementSize(), d);
  }
  case InstrKind::Broadcast: {
    ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
    std::vector<int64_t> is = stridesOf(id), os = stridesOf(out.dims);
    size_t lead = out.dims.size() - id.size();
    std::vector<std::array<int64_t, 3>> d;
    for (size_t k = 0; k < out.dims.size(); ++k) {
      bool spread = k < lead || id[k - lead] == 1;
      d.push_back({int64_t(out.dims[k]), os[k], spread ? 0 : is[k - lead]});
    }
    return b.copyStrided(I, y, in(0), out.elementSize(), d);
  }
  case InstrKind::Slice: {
    ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
    std::vector<int64_t> is = stridesOf(id), os = stridesOf(out.dims);
    const auto &starts = a.get<AttrKind::Starts>(), &steps = a.get<AttrKind::Steps>();
    // Every element read inside the input (what the shape rule gives): the first one read is
    // an offset of x, and a step a stride. Otherwise copy_nd, which reads the fill outside.
    bool inside = n > 0;
    int64_t first = 0;
    std::vector<std::array<int64_t, 3>> s;
    std::vector<std::array<int64_t, 6>> d;
    for (size_t k = 0; k < id.size(); ++k) {
      int64_t last = starts[k] + (int64_t(out.dims[k]) - 1) * steps[k];
      inside = inside && starts[k] >= 0 && starts[k] < int64_t(id[k]) && last >= 0 &&
               last < int64_t(id[k]);
      first += starts[k] * is[k];
      s.push_back({int64_t(out.dims[k]), os[k], is[k] * steps[k]});
      d.push_back({int64_t(out.dims[k]), os[k], int64_t(id[k]), is[k], starts[k], steps[k]});
    }
    if (inside)
      return b.copyStrided(I, y, in(0) + first * int64_t(out.elementSize()), out.elementSize(),
                           s);
    return b.copyND(I, y, in(0), -1, out.elementSize(), d);
  }
  case InstrKind::Pad: {
    const std::string &mode = a.get<AttrKind::Mode>();
    ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
    std::vector<int64_t> is = stridesOf(id);
    const auto &pads = a.get<AttrKind::Pads>();
    int64_t code = ember_pad_mode_code(mode.c_str()); // ember_pad_source's mode
    size_t bytes = out.elementSize();
    if (code == EMBER_PAD_CONSTANT && n > 0 &&
        std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p >= 0; })) {
      // Constant padding (an inception pool's, say) as two copies by runs: the value over the
      // whole result, then the input into its interior; pad_nd's per-element walk costs more
      // than writing the interior twice.
      std::vector<int64_t> os = stridesOf(out.dims);
      int64_t at = 0;
      std::vector<std::array<int64_t, 3>> d;
      for (size_t k = 0; k < id.size(); ++k) {
        at += pads[k] * os[k];
        d.push_back({int64_t(id[k]), os[k], is[k]});
      }
      auto filled = b.copyStrided(I, y, in(1), bytes, {{int64_t(n), 1, 0}});
      if (!filled)
        return filled.takeError();
      return b.copyStrided(I, y + at * int64_t(bytes), in(0), bytes, d);
    }
    std::vector<int64_t> p = {y, in(0), in(1), code, int64_t(id.size())};
    for (size_t k = 0; k < id.size(); ++k)
      p.insert(p.end(), {int64_t(out.dims[k]), int64_t(id[k]), is[k], pads[k]});
    return b.add(I, "pad_nd_" + std::to_string(out.elementSize()), n, p);
  }
  case InstrKind::Concat: {
    int64_t axis = a.get<AttrKind::Axis>();
    std::vector<int64_t> os = stridesOf(out.dims);
    int64_t at = 0;
    for (unsigned k = 0; k < I.getNumInputs(); ++k) {
      ArrayRef<dim_t> id = I.getInput(k)->getType().dims;
      std::vector<int64_t> is = stridesOf(id);
      std::vector<std::array<int64_t, 3>> d;
      for (size_t j = 0; j < id.size(); ++j)
        d.push_back({int64_t(id[j]), os[j], is[j]});
      auto part = b.copyStrided(I, y + at * os[axis] * int64_t(out.elementSize()), in(k),
                                out.elementSize(), d);
      if (!part)
        return part.takeError();
      at += int64_t(id[axis]);
    }
    return true;
  }
  case InstrKind::Trilu: {
    size_t r = out.dims.size();
    return b.add(I, "trilu_" + std::to_string(out.elementSize()), n,
                 {y, in(0), int64_t(out.dims[r - 2]), int64_t(out.dims[r - 1]),
                  a.get<AttrKind::Upper>(), a.get<AttrKind::DiagonalOffset>()});
  }
  case InstrKind::Range:
    return b.add(I, ("range_" + kindSuffix(out.kind)).str(), n, {y, in(0), in(1)});
  default:
    return false;
  }
}

bool copyableKind(const Type &t) {
  size_t b = t.elementSize();
  return b == 1 || b == 2 || b == 4 || b == 8;
}

bool supportsDataMovement(const Node &n) {
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
    return copyableKind(n.getType(0));
  case NodeKind::Trilu: // its zero is all-zero bytes in every kind but the quantized ones
    return copyableKind(n.getType(0)) && !n.getType(0).isQuantized();
  case NodeKind::Range:
    switch (n.getType(0).kind) {
    case ElemKind::Float32:
    case ElemKind::Float64:
    case ElemKind::Int16:
    case ElemKind::Int32:
    case ElemKind::Int64:
      return true;
    default:
      return false;
    }
  default:
    return false;
  }
}

} // namespace

void addDataMovementKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::Save, NodeKind::Reshape, NodeKind::Transpose, NodeKind::Broadcast,
                     NodeKind::Slice, NodeKind::Concat, NodeKind::Pad, NodeKind::Trilu,
                     NodeKind::Range})
    t.add(k, supportsDataMovement, planDataMovement);
  addDataMovementResizeKernels(t);
  addDataMovementGridSampleKernels(t);
}

} // namespace opencl
} // namespace ember
