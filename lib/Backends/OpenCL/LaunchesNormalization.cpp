// The OpenCL launches of batch norm, softmax and LRN (kernels/Normalization.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planNormalization(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  const AttrList &a = I.getAttrs();
  switch (I.getKind()) {
  case InstrKind::BatchNorm: {
    int64_t inner = 1;
    for (size_t d = 2; d < out.dims.size(); ++d)
      inner *= int64_t(out.dims[d]);
    return b.add(I, "batchnorm", n,
               {y, in(0), in(1), in(2), in(3), in(4), floatBits(a.get<AttrKind::Epsilon>()),
                int64_t(out.dims[1]), inner});
  }
  case InstrKind::Softmax:
  case InstrKind::LogSoftmax: {
    int64_t axis = a.get<AttrKind::Axis>(), inner = 1;
    for (size_t d = size_t(axis) + 1; d < out.dims.size(); ++d)
      inner *= int64_t(out.dims[d]);
    return b.add(I, "softmax", n / out.dims[axis],
               {y, in(0), int64_t(out.dims[axis]), inner,
                int64_t(I.getKind() == InstrKind::LogSoftmax)});
  }
  case InstrKind::LRN: {
    int64_t inner = 1;
    for (size_t d = 2; d < out.dims.size(); ++d)
      inner *= int64_t(out.dims[d]);
    return b.add(I, "lrn", n,
               {y, in(0), int64_t(out.dims[1]), inner, a.get<AttrKind::Size>(),
                floatBits(a.get<AttrKind::Alpha>()), floatBits(a.get<AttrKind::Beta>()),
                floatBits(a.get<AttrKind::Bias>())});
  }

  default:
    return false;
  }
}

std::optional<bool> supportsNormalization(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::BatchNorm:
  case NodeKind::Softmax:
  case NodeKind::LogSoftmax:
  case NodeKind::LRN:
    return allFloat32(n);
  default:
    return std::nullopt;
  }
}

} // namespace opencl
} // namespace ember
