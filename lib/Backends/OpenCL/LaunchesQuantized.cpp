// The OpenCL launches of quantization, requantization, dequantization, dynamic quantization and
// the integer products IntegerMatMul and IntegerConv (kernels/Quantized.cl).
#include "KernelTable.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

bool isByteKind(ElemKind k) { return k == ElemKind::Int8 || k == ElemKind::UInt8; }

/// Strides of a parameter operand (a scale or zero point with \p t's rank, each dim 1 or
/// \p t's) along \p t's dims: 0 where the parameter's dim is 1.
std::vector<int64_t> paramStrides(const Type &param) {
  std::vector<int64_t> s = stridesOf(param.dims);
  for (size_t d = 0; d < s.size(); ++d)
    if (param.dims[d] == 1)
      s[d] = 0;
  return s;
}

Expected<bool> planQuantized(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  auto type = [&](unsigned i) -> const Type & { return I.getInput(i)->getType(); };
  auto isSigned = [&](unsigned i) { return int64_t(type(i).kind == ElemKind::Int8); };
  int64_t y = placeOf(I.getOutput());
  switch (I.getKind()) {
  case InstrKind::QuantizeLinear:
  case InstrKind::Requantize:
  case InstrKind::DequantizeLinear: {
    const Type &xt = type(0);
    bool dequantize = I.getKind() == InstrKind::DequantizeLinear;
    std::vector<int64_t> p = {y, in(0), in(1), in(2)};
    if (!dequantize)
      p.insert(p.end(), {int64_t(I.getKind() == InstrKind::Requantize), isSigned(2)});
    p.push_back(int64_t(xt.dims.size()));
    std::vector<int64_t> ss = paramStrides(type(1)), zs = paramStrides(type(2));
    for (size_t d = 0; d < xt.dims.size(); ++d)
      p.insert(p.end(), {int64_t(xt.dims[d]), ss[d], zs[d]});
    return b.add(I, (dequantize ? "dequantize_" : "quantize_") + kindSuffix(xt.kind).str(), n,
                 p);
  }
  case InstrKind::DynamicQuantizeLinear: {
    int64_t scale = placeOf(I.getOutput(1)), zp = placeOf(I.getOutput(2));
    // The range first (one work-item), then every element from the scale and zero point.
    EMBER_ASSIGN_OR_RETURN(bool planned,
                           b.add(I, "dynamic_quantize_range", 1, {in(0), int64_t(n), scale, zp}));
    (void)planned;
    return b.add(I, "dynamic_quantize", n, {y, in(0), scale, zp});
  }
  case InstrKind::IntegerMatMul: {
    const Type &at = type(0), &bt = type(1);
    size_t r = out.dims.size();
    int64_t m = int64_t(out.dims[r - 2]), nn = int64_t(out.dims[r - 1]);
    int64_t k = int64_t(at.dims[r - 1]);
    std::vector<int64_t> as = paramStrides(at), bs = paramStrides(bt);
    std::vector<int64_t> azs = paramStrides(type(2)), bzs = paramStrides(type(3));
    std::vector<int64_t> p = {y, in(0), in(1), in(2), in(3), isSigned(0), isSigned(1), m, nn, k,
                              int64_t(r - 2), azs[r - 2], azs[r - 1], bzs[r - 2], bzs[r - 1]};
    for (size_t d = 0; d + 2 < r; ++d)
      p.insert(p.end(), {int64_t(out.dims[d]), as[d], bs[d], azs[d], bzs[d]});
    return b.add(I, "integer_matmul", n, p);
  }
  case InstrKind::IntegerConv: {
    const Type &xt = type(0), &wt = type(1);
    const auto &s = I.attr<AttrKind::Strides>(), &pd = I.attr<AttrKind::Pads>(),
               &dl = I.attr<AttrKind::Dilations>();
    size_t ns = xt.dims.size() - 2;
    std::vector<int64_t> p = {y,
                              in(0),
                              in(1),
                              in(2),
                              in(3),
                              in(4),
                              isSigned(0),
                              isSigned(1),
                              int64_t(xt.dims[0]),
                              int64_t(xt.dims[1]),
                              int64_t(out.dims[1]),
                              I.attr<AttrKind::Group>(),
                              int64_t(ns)};
    std::vector<int64_t> xzs = paramStrides(type(3)), wzs = paramStrides(type(4));
    p.insert(p.end(), xzs.begin(), xzs.end());
    p.insert(p.end(), wzs.begin(), wzs.end());
    for (size_t d = 0; d < ns; ++d)
      p.insert(p.end(), {int64_t(xt.dims[2 + d]), int64_t(out.dims[2 + d]),
                         int64_t(wt.dims[2 + d]), s[d], pd[d], dl[d]});
    return b.add(I, "integer_conv", n, p);
  }
  default:
    return false;
  }
}

bool supportsQuantized(const Node &n) {
  auto operandKind = [&](unsigned i) { return n.getOperand(i).getType().kind; };
  switch (n.getKind()) {
  case NodeKind::QuantizeLinear: {
    ElemKind x = operandKind(0);
    return (isFloatKind(x) || x == ElemKind::Int32) && operandKind(1) == ElemKind::Float32 &&
           isByteKind(n.getType(0).kind) && operandKind(2) == n.getType(0).kind;
  }
  case NodeKind::Requantize:
    return operandKind(0) == ElemKind::Int32 && operandKind(1) == ElemKind::Float32 &&
           isByteKind(n.getType(0).kind) && operandKind(2) == n.getType(0).kind;
  case NodeKind::DequantizeLinear: {
    ElemKind x = operandKind(0);
    return (isByteKind(x) || x == ElemKind::Int32) && operandKind(1) == ElemKind::Float32 &&
           operandKind(2) == x;
  }
  case NodeKind::DynamicQuantizeLinear:
    return operandKind(0) == ElemKind::Float32;
  case NodeKind::IntegerMatMul:
    return isByteKind(operandKind(0)) && isByteKind(operandKind(1)) &&
           operandKind(2) == operandKind(0) && operandKind(3) == operandKind(1);
  case NodeKind::IntegerConv:
    // The kernel keeps a window position per spatial axis, up to MAX_RANK (Common.cl) of them.
    return isByteKind(operandKind(0)) && isByteKind(operandKind(1)) &&
           operandKind(3) == operandKind(0) && operandKind(4) == operandKind(1) &&
           n.getType(0).rank() <= 2 + 6;
  default:
    return false;
  }
}

} // namespace

void addQuantizedKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::QuantizeLinear, NodeKind::Requantize, NodeKind::DequantizeLinear,
                     NodeKind::DynamicQuantizeLinear, NodeKind::IntegerMatMul,
                     NodeKind::IntegerConv})
    t.add(k, supportsQuantized, planQuantized);
}

} // namespace opencl
} // namespace ember
