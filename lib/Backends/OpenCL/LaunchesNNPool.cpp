// The OpenCL launches of the pools (kernels/NNPool.cl): MaxPool, AvgPool and LpPool over N-D
// windows, and MaxRoiPool. Part of the NN family: planNN and supportsNN (LaunchesNN.cpp) hand
// their other kinds here; MaxUnpool, a scatter, is planned with the indexed kinds
// (LaunchesIndexed.cpp).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planNNPool(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  std::string suffix = kindSuffix(out.kind).str();
  switch (I.getKind()) {
  case InstrKind::MaxPool:
  case InstrKind::AvgPool:
  case InstrKind::LpPool: {
    const Type &xt = I.getInput(0)->getType();
    const auto &k = I.attr<AttrKind::Kernels>(), &s = I.attr<AttrKind::Strides>(),
               &pd = I.attr<AttrKind::Pads>();
    size_t ns = xt.dims.size() - 2;
    bool isMax = I.getKind() == InstrKind::MaxPool;
    // [y, x, indices, storage order, sum mode, p bits, spatial rank] (NNPool.cl).
    std::vector<int64_t> p;
    if (isMax)
      p = {y, in(0), placeOf(I.getOutput(1)), I.attr<AttrKind::StorageOrder>(), 0, 0};
    else if (I.getKind() == InstrKind::AvgPool)
      p = {y, in(0), -1, 0, I.attr<AttrKind::CountIncludePad>() ? 1 : 0, 0};
    else
      p = {y, in(0), -1, 0, 2, floatBits(I.attr<AttrKind::P>())};
    p.push_back(int64_t(ns));
    for (size_t d = 0; d < ns; ++d)
      p.insert(p.end(), {int64_t(xt.dims[2 + d]), int64_t(out.dims[2 + d]), k[d], s[d], pd[d],
                         pd[ns + d], isMax ? I.attr<AttrKind::Dilations>()[d] : 1});
    return b.add(I, (isMax ? "maxpool_" : "sumpool_") + suffix, n, p);
  }
  case InstrKind::MaxRoiPool: {
    const Type &xt = I.getInput(0)->getType();
    return b.add(I, "maxroipool_" + suffix, n,
                 {y, in(0), in(1), floatBits(I.attr<AttrKind::SpatialScale>()),
                  int64_t(xt.dims[0]), int64_t(xt.dims[1]), int64_t(xt.dims[2]),
                  int64_t(xt.dims[3]), int64_t(out.dims[2]), int64_t(out.dims[3])});
  }
  default:
    return false;
  }
}

std::optional<bool> supportsNNPool(const Node &n) {
  ElemKind k = n.getType(0).kind;
  // The window kernels keep a position per spatial axis, up to MAX_RANK (Common.cl) of them.
  bool window = n.getOperand(0).getType().kind == k && n.getType(0).rank() <= 2 + 6;
  switch (n.getKind()) {
  case NodeKind::MaxPool:
    return window && (isFloatKind(k) || k == ElemKind::Int8 || k == ElemKind::UInt8);
  case NodeKind::AvgPool:
  case NodeKind::LpPool:
    return window && isFloatKind(k);
  case NodeKind::MaxRoiPool:
    return isFloatKind(k) && n.getOperand(0).getType().kind == k &&
           n.getOperand(1).getType().kind == k;
  default:
    return std::nullopt;
  }
}

} // namespace opencl
} // namespace ember
