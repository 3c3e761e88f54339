// The OpenCL launches of Resize (kernels/Resize.cl), a row registered by
// LaunchesDataMovement.cpp. Every mode and coordinate transformation of the Interpreter runs:
// the taps of each result coordinate come from ResizeSampling.h, the Interpreter's own,
// computed here once and passed to the kernel as per-axis tables.
#include "KernelTable.h"

#include "ember/Semantics/ResizeSampling.h"
#include "ember/Support/Error.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

Expected<bool> planResize(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  ArrayRef<dim_t> id = I.getInput(0)->getType().dims;
  unsigned rank = unsigned(out.dims.size());
  bool nearest = I.getAttrs().get<AttrKind::Mode>() == "nearest";
  std::vector<int64_t> is = stridesOf(id), os = stridesOf(out.dims);

  // The extrapolation element's bytes, as the low bytes of one parameter.
  Tensor extrapolation =
      resizeExtrapolationElement(out, I.getAttrs().get<AttrKind::ExtrapolationValue>());
  int64_t bits = 0;
  std::memcpy(&bits, extrapolation.data(), out.elementSize());

  std::vector<int64_t> p = {placeOf(I.getOutput()), placeOf(I.getInput(0)), int64_t(rank), bits};
  // Per axis: result dim, result stride, table start (an index into the kernel's parameters,
  // whose first is the count add() puts before these), table row length.
  size_t axes = p.size();
  p.resize(axes + 4 * rank);
  for (unsigned d = 0; d < rank; ++d) {
    std::vector<ResizeSample> samples =
        resizeAxisSamples(I.getAttrs(), rank, d, id[d], out.dims[d], is[d]);
    // A linear or cubic row has room for the axis' most taps (4, or more when antialiased).
    size_t most = 0;
    for (const ResizeSample &s : samples)
      most = std::max(most, s.taps.size());
    p[axes + 4 * d] = int64_t(out.dims[d]);
    p[axes + 4 * d + 1] = os[d];
    p[axes + 4 * d + 2] = int64_t(p.size()) + 1;
    p[axes + 4 * d + 3] = nearest ? 1 : int64_t(1 + 2 * most);
    for (const ResizeSample &s : samples) {
      if (nearest) {
        p.push_back(s.outside ? -1 : s.taps[0].offset);
        continue;
      }
      p.push_back(s.outside ? -1 : int64_t(s.taps.size()));
      for (size_t t = 0; t < most; ++t) {
        ResizeTap tap = t < s.taps.size() ? s.taps[t] : ResizeTap{0, 0};
        int64_t weight;
        std::memcpy(&weight, &tap.weight, 8);
        p.insert(p.end(), {tap.offset, weight});
      }
    }
  }
  std::string kernel = nearest ? "resize_nearest_" + std::to_string(out.elementSize())
                               : ("resize_" + kindSuffix(out.kind)).str();
  return b.add(I, kernel, out.numElements(), p);
}

/// Nearest moves elements of any kind; linear and cubic compute on every kind but bool and the
/// quantized ones, as the Interpreter.
bool supportsResize(const Node &n) {
  const Type &t = n.getType(0);
  size_t bytes = t.elementSize();
  if (n.attr<AttrKind::Mode>() == "nearest")
    return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
  return !t.isQuantized() && t.kind != ElemKind::Bool;
}

} // namespace

void addDataMovementResizeKernels(KernelTable &t) {
  t.add(NodeKind::Resize, supportsResize, planResize);
}

} // namespace opencl
} // namespace ember
