// The OpenCL launches of quantization, requantization and dequantization (kernels/Quantized.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planQuantized(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  const AttrList &a = I.getAttrs();
  switch (I.getKind()) {
  case InstrKind::QuantizeLinear:
  case InstrKind::Requantize:
  case InstrKind::DequantizeLinear: {
    const Type &xt = I.getInput(0)->getType();
    int64_t mode = I.getKind() == InstrKind::QuantizeLinear ? 0
                   : I.getKind() == InstrKind::Requantize   ? 1
                                                            : 2;
    std::vector<int64_t> p = {y,
                              in(0),
                              in(1),
                              in(2),
                              mode,
                              kindCode(xt.kind),
                              kindCode(I.getInput(2)->getType().kind),
                              int64_t(xt.dims.size())};
    ArrayRef<dim_t> sd = I.getInput(1)->getType().dims, zd = I.getInput(2)->getType().dims;
    std::vector<int64_t> ss = stridesOf(sd), zs = stridesOf(zd);
    for (size_t d = 0; d < xt.dims.size(); ++d)
      p.insert(p.end(), {int64_t(xt.dims[d]), sd[d] == 1 ? 0 : ss[d], zd[d] == 1 ? 0 : zs[d]});
    return b.add(I, "quantize", n, p);
  }
  default:
    return false;
  }
}

std::optional<bool> supportsQuantized(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::QuantizeLinear:
  case NodeKind::Requantize: {
    ElemKind x = n.getOperand(0).getType().kind;
    return x == ElemKind::Float32 || (n.getKind() == NodeKind::Requantize && x == ElemKind::Int32);
  }
  case NodeKind::DequantizeLinear: {
    ElemKind x = n.getOperand(0).getType().kind;
    return x == ElemKind::UInt8 || x == ElemKind::Int8 || x == ElemKind::Int32;
  }
  default:
    return std::nullopt;
  }
}

} // namespace opencl
} // namespace ember
