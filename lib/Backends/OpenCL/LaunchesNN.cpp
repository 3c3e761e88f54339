// The OpenCL launches of matrix products, convolutions (float and integer) and pools
// (kernels/NN.cl, and the integer products of kernels/Quantized.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planNN(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  const AttrList &a = I.getAttrs();
  switch (I.getKind()) {
  case InstrKind::MatMul:
  case InstrKind::IntegerMatMul: {
    const Type &at = I.getInput(0)->getType(), &bt = I.getInput(1)->getType();
    size_t r = out.dims.size();
    int64_t m = int64_t(out.dims[r - 2]), nn = int64_t(out.dims[r - 1]);
    int64_t k = int64_t(at.dims[r - 1]);
    std::vector<int64_t> p = {y, in(0), in(1), m, nn, k, int64_t(r - 2)};
    int64_t as = m * k, bs = k * nn;
    std::vector<std::array<int64_t, 3>> batch;
    for (size_t d = r - 2; d-- > 0;) {
      batch.insert(batch.begin(), {int64_t(out.dims[d]), at.dims[d] == 1 ? 0 : as,
                                   bt.dims[d] == 1 ? 0 : bs});
      as *= int64_t(at.dims[d]);
      bs *= int64_t(bt.dims[d]);
    }
    for (const auto &b : batch)
      p.insert(p.end(), b.begin(), b.end());
    if (I.getKind() == InstrKind::IntegerMatMul) {
      p.insert(p.end(), {kindCode(at.kind), kindCode(bt.kind), in(2), in(3)});
      return b.add(I, "integer_matmul", n, p);
    }
    return b.add(I, "matmul", n, p);
  }
  case InstrKind::Conv:
  case InstrKind::ConvTranspose:
  case InstrKind::IntegerConv: {
    const Type &xt = I.getInput(0)->getType(), &wt = I.getInput(1)->getType();
    const auto &s = a.get<AttrKind::Strides>(), &pd = a.get<AttrKind::Pads>(),
               &dl = a.get<AttrKind::Dilations>();
    // Spatial dims as [H, W]; a 1-D window [W] runs as H = 1.
    bool oneD = xt.dims.size() == 3;
    auto hw = [&](ArrayRef<dim_t> d, size_t k) -> int64_t {
      return oneD ? (k == 0 ? 1 : int64_t(d[2])) : int64_t(d[2 + k]);
    };
    auto win = [&](const std::vector<int64_t> &v, size_t k, int64_t one) -> int64_t {
      return oneD ? (k == 0 ? one : v[0]) : v[k];
    };
    bool transposed = I.getKind() == InstrKind::ConvTranspose;
    std::vector<int64_t> p = {y,
                              in(0),
                              in(1),
                              in(2),
                              int64_t(xt.dims[0]),
                              int64_t(xt.dims[1]),
                              hw(xt.dims, 0),
                              hw(xt.dims, 1),
                              int64_t(out.dims[1]),
                              hw(out.dims, 0),
                              hw(out.dims, 1),
                              hw(wt.dims, 0),
                              hw(wt.dims, 1),
                              win(s, 0, 1),
                              win(s, 1, 1),
                              oneD ? 0 : pd[0],
                              oneD ? pd[0] : pd[1],
                              win(dl, 0, 1),
                              win(dl, 1, 1),
                              a.get<AttrKind::Group>()};
    if (I.getKind() == InstrKind::IntegerConv) {
      const Type &wz = I.getInput(4)->getType();
      p.insert(p.end(), {kindCode(xt.kind), kindCode(wt.kind), in(3), in(4),
                         wz.numElements() == 1 ? 0 : 1});
      return b.add(I, "integer_conv2d", n, p);
    }
    return b.add(I, transposed ? "conv_transpose2d" : "conv2d", n, p);
  }
  case InstrKind::MaxPool:
  case InstrKind::AvgPool: {
    const Type &xt = I.getInput(0)->getType();
    const auto &k = a.get<AttrKind::Kernels>(), &s = a.get<AttrKind::Strides>(),
               &pd = a.get<AttrKind::Pads>();
    bool isMax = I.getKind() == InstrKind::MaxPool;
    std::vector<int64_t> dl = isMax ? a.get<AttrKind::Dilations>() : std::vector<int64_t>{1, 1};
    int64_t idx = isMax ? placeOf(I.getOutput(1)) : -1;
    int64_t include = isMax ? 0 : a.get<AttrKind::CountIncludePad>();
    return b.add(I, "pool2d", n,
               {y, in(0), idx, int64_t(xt.dims[0] * xt.dims[1]), int64_t(xt.dims[2]),
                int64_t(xt.dims[3]), int64_t(out.dims[2]), int64_t(out.dims[3]), k[0], k[1],
                s[0], s[1], pd[0], pd[1], pd[2], pd[3], dl[0], dl[1], int64_t(!isMax),
                include});
  }
  default:
    return false;
  }
}

std::optional<bool> supportsNN(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::MatMul:
    return allFloat32(n);
  case NodeKind::Conv:
  case NodeKind::ConvTranspose:
    return allFloat32(n) && (n.getType(0).rank() == 4 || n.getType(0).rank() == 3);
  case NodeKind::IntegerConv:
    return (n.getType(0).rank() == 4 || n.getType(0).rank() == 3) &&
           n.getOperand(3).getType().numElements() == 1;
  case NodeKind::IntegerMatMul:
    return n.getOperand(2).getType().numElements() == 1 &&
           n.getOperand(3).getType().numElements() == 1;
  case NodeKind::MaxPool:
    return n.getType(0).kind == ElemKind::Float32 && n.getType(0).rank() == 4;
  case NodeKind::AvgPool:
    return allFloat32(n) && n.getType(0).rank() == 4;
  default:
    return std::nullopt;
  }
}

} // namespace opencl
} // namespace ember
