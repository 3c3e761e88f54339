// Codegen for depthwise IntegerConv (kernels/QuantizedDepthwise.cpp): which convolutions it
// takes, their parameters and scratch, and the call, alone or with the Requantize after it.
// CodeGenQuantized.cpp asks here before it falls back to the generic int16 kernel.
#include "CodeGenQuantized.h"
#include "CodeGenUtils.h"

#include "kernels/QuantizedDepthwise.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// Whether every dim of \p dims is 1 but, where \p except is in range, dim \p except.
bool onesBut(ArrayRef<dim_t> dims, size_t except) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != 1 && i != except)
      return false;
  return true;
}

} // namespace

std::optional<std::vector<int64_t>> depthwiseIntegerConvParams(const Instruction &I) {
  const DimsVec &x = I.getInput(ops::IntegerConv::Input)->getType().dims;
  const DimsVec &w = I.getInput(ops::IntegerConv::Filter)->getType().dims;
  const DimsVec &y = I.getOutput()->getType().dims;
  const std::vector<int64_t> &strides = I.attr<AttrKind::Strides>(),
                             &pads = I.attr<AttrKind::Pads>(),
                             &dilations = I.attr<AttrKind::Dilations>();
  int64_t group = I.attr<AttrKind::Group>();
  size_t nsp = x.size() - 2;
  if ((nsp != 1 && nsp != 2) || strides.size() != nsp || pads.size() != 2 * nsp ||
      (!dilations.empty() && dilations.size() != nsp) || group < 1 || int64_t(x[1]) != group ||
      int64_t(w[0]) % group != 0 ||
      !onesBut(I.getInput(ops::IntegerConv::InputZeroPoint)->getType().dims, x.size()) ||
      !onesBut(I.getInput(ops::IntegerConv::FilterZeroPoint)->getType().dims, 0))
    return std::nullopt;
  // A 1-D convolution is a 2-D one of height 1: spatial dim 0 is the height, 1 the width.
  bool twoD = nsp == 2;
  auto spatial = [&](const DimsVec &d, size_t i) -> int64_t {
    return twoD ? int64_t(d[2 + i]) : i ? int64_t(d[2]) : 1;
  };
  auto dilation = [&](size_t d) -> int64_t { return dilations.empty() ? 1 : dilations[d]; };
  int64_t KH = spatial(w, 0), KW = spatial(w, 1), SH = twoD ? strides[0] : 1,
          SW = strides[nsp - 1];
  int64_t OH = spatial(y, 0), OW = spatial(y, 1);
  if (!qdepthwise::takes(KH, KW, SH, SW) || OH < 1 || OW < 1 || int64_t(y[0]) < 1)
    return std::nullopt;
  using namespace qdepthwise;
  std::vector<int64_t> p = {int64_t(x[0]), int64_t(x[1]), spatial(x, 0), spatial(x, 1),
                            int64_t(w[0]), OH, OW, KH, KW, SH, SW,
                            twoD ? pads[0] : 0, pads[nsp - 1],
                            twoD ? dilation(0) : 1, dilation(nsp - 1), group};
  p.resize(size_t(kQdwCount));
  p[kQdwInputSigned] = I.getInput(ops::IntegerConv::Input)->getType().kind == ElemKind::Int8;
  p[kQdwFilterSigned] = I.getInput(ops::IntegerConv::Filter)->getType().kind == ElemKind::Int8;
  p[kQdwFilterZpPerChannel] =
      I.getInput(ops::IntegerConv::FilterZeroPoint)->getType().dims[0] != 1;
  return p;
}

uint64_t depthwiseIntegerConvScratch(ArrayRef<int64_t> params, int64_t threads) {
  return uint64_t(qdepthwise::scratchBytes(params.data(), threads));
}

Error emitDepthwiseIntegerConv(Emitter &E, const Instruction &I, ArrayRef<int64_t> params,
                               const Instruction *rq, Value *q) {
  return E.call(E.variant("ember_integer_depthwise"),
                integerConvArgs(E, I, params, "integer_depthwise", rq, q));
}

} // namespace cpu
} // namespace ember
