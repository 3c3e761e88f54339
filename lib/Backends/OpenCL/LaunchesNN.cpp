// The OpenCL launches of convolutions and matrix products, fused or not (kernels/NN.cl), and,
// through LaunchesNNPool.cpp and LaunchesRoiAlign.cpp, of the pools and RoiAlign. The integer
// products of the Quantized family are in LaunchesQuantized.cpp.
#include "KernelTable.h"

#include "ember/Graph/FusedActivations.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

void addNNPoolKernels(KernelTable &t);     // LaunchesNNPool.cpp
void addNNRoiAlignKernels(KernelTable &t); // LaunchesRoiAlign.cpp

namespace {

/// nn_activation's code for a FusedActivation attribute with \p args (the row's code in
/// Nodes/FusedActivations.def: Program.cpp generates a case for every row), or -1.
int64_t activationCode(StringRef name, ArrayRef<float> args) {
  const FusedActivationInfo *row;
  if (!resolveFusedActivation(name, args.size(), row))
    return -1;
  return row ? row->code : 0;
}

} // namespace

std::array<int64_t, 3> fusedActivationParams(const Instruction &I) {
  switch (I.getKind()) {
  case InstrKind::FusedConv:
  case InstrKind::FusedMatMul:
  case InstrKind::FullyConnected: {
    const std::vector<float> &args = I.attr<AttrKind::FusedActivationArgs>();
    return {activationCode(I.attr<AttrKind::FusedActivation>(), args),
            floatBits(args.size() > 0 ? args[0] : 0.f), floatBits(args.size() > 1 ? args[1] : 0.f)};
  }
  default:
    return {0, 0, 0};
  }
}

namespace {

bool allOfKind(const Node &n, ElemKind k) {
  for (unsigned i = 0; i < n.getNumResults(); ++i)
    if (n.getType(i).kind != k)
      return false;
  for (const NodeValue &v : n.getOperands())
    if (v.getType().kind != k)
      return false;
  return true;
}

/// Float kinds, one for every operand and result. Fused: an activation the kernels have, and on
/// float64 none (nn_activation computes in float; the lowered node computes in double). Fused
/// float32 nodes run the fast paths of LaunchesGemm.cpp (or the generic kernels' epilogue): the
/// activation in the same pass as the product.
bool floatProductRuns(const Node &n, bool fused) {
  ElemKind k = n.getType(0).kind;
  if (!isFloatKind(k) || !allOfKind(n, k))
    return false;
  if (!fused)
    return true;
  int64_t code = activationCode(n.attr<AttrKind::FusedActivation>(),
                                n.attr<AttrKind::FusedActivationArgs>());
  return code == 0 || (code > 0 && k != ElemKind::Float64);
}

Expected<bool> planNN(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  std::string suffix = kindSuffix(out.kind).str();
  std::array<int64_t, 3> act = fusedActivationParams(I);
  switch (I.getKind()) {
  case InstrKind::MatMul:
  case InstrKind::FusedMatMul: {
    const Type &at = I.getInput(0)->getType(), &bt = I.getInput(1)->getType();
    size_t r = out.dims.size();
    int64_t m = int64_t(out.dims[r - 2]), nn = int64_t(out.dims[r - 1]);
    int64_t k = int64_t(at.dims[r - 1]);
    std::vector<int64_t> p = {y, in(0), in(1), -1, act[0], act[1], act[2], m, nn, k,
                              int64_t(r - 2)};
    // Per batch dim, outermost first: its size and each operand's matrix stride along it.
    std::vector<std::array<int64_t, 3>> batch(r - 2);
    int64_t as = m * k, bs = k * nn;
    for (size_t d = r - 2; d-- > 0;) {
      batch[d] = {int64_t(out.dims[d]), at.dims[d] == 1 ? 0 : as, bt.dims[d] == 1 ? 0 : bs};
      as *= int64_t(at.dims[d]);
      bs *= int64_t(bt.dims[d]);
    }
    for (const auto &e : batch)
      p.insert(p.end(), e.begin(), e.end());
    return b.add(I, "matmul_" + suffix, n, p);
  }
  case InstrKind::FullyConnected: {
    // The input's rows (all dims but the last) times the weights [K, N], plus the bias [N].
    const Type &wt = I.getInput(1)->getType();
    int64_t k = int64_t(wt.dims[0]), nn = int64_t(wt.dims[1]);
    return b.add(I, "matmul_" + suffix, n,
                 {y, in(0), in(1), in(2), act[0], act[1], act[2], int64_t(n) / nn, nn, k, 0});
  }
  case InstrKind::Conv:
  case InstrKind::FusedConv:
  case InstrKind::ConvTranspose: {
    const Type &xt = I.getInput(0)->getType(), &wt = I.getInput(1)->getType();
    const auto &s = I.attr<AttrKind::Strides>(), &pd = I.attr<AttrKind::Pads>(),
               &dl = I.attr<AttrKind::Dilations>();
    size_t ns = xt.dims.size() - 2;
    std::vector<int64_t> p = {y,
                              in(0),
                              in(1),
                              in(2),
                              int64_t(I.getKind() == InstrKind::ConvTranspose),
                              act[0],
                              act[1],
                              act[2],
                              int64_t(xt.dims[0]),
                              int64_t(xt.dims[1]),
                              int64_t(out.dims[1]),
                              I.attr<AttrKind::Group>(),
                              int64_t(ns)};
    // End pads only shape the output dims (and output_padding the transposed one's).
    for (size_t d = 0; d < ns; ++d)
      p.insert(p.end(), {int64_t(xt.dims[2 + d]), int64_t(out.dims[2 + d]),
                         int64_t(wt.dims[2 + d]), s[d], pd[d], dl[d]});
    return b.add(I, "conv_" + suffix, n, p);
  }
  default:
    return false;
  }
}

/// A float32 product on a fast path of LaunchesGemm.cpp when one takes it, else on the
/// generic kernels.
Expected<bool> planProduct(LaunchBuilder &b, const Instruction &I) {
  EMBER_ASSIGN_OR_RETURN(bool fast, planGemm(b, I));
  if (fast)
    return true;
  return planNN(b, I);
}

bool supportsNN(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::MatMul: {
    ElemKind k = n.getType(0).kind;
    return allOfKind(n, k) && k != ElemKind::Bool && !isQuantizedKind(k);
  }
  case NodeKind::FusedMatMul:
  case NodeKind::FullyConnected:
    return floatProductRuns(n, true);
  case NodeKind::Conv:
  case NodeKind::ConvTranspose:
  case NodeKind::FusedConv:
    // The kernel keeps a window position per spatial axis, up to MAX_RANK (Common.cl) of them.
    return floatProductRuns(n, n.getKind() == NodeKind::FusedConv) &&
           n.getType(0).rank() <= 2 + 6;
  default:
    return false;
  }
}

} // namespace

void addNNKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::MatMul, NodeKind::FusedMatMul, NodeKind::FullyConnected})
    t.add(k, supportsNN, planProduct);
  t.add(NodeKind::Conv, supportsNN, planProduct, gemmScratchBytes);
  t.add(NodeKind::FusedConv, supportsNN, planProduct, gemmScratchBytes);
  t.add(NodeKind::ConvTranspose, supportsNN, planNN);
  addNNPoolKernels(t);
  addNNRoiAlignKernels(t);
}

} // namespace opencl
} // namespace ember
