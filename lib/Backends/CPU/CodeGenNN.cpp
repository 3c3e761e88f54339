// Codegen for convolution and matrix products (pooling: CodeGenNNPool.cpp). Two kinds of kernels:
//  - the fast float32 ones (kernels/NNConv.cpp, NNGemm.cpp) for 1-D and 2-D spatial dims (a 1-D
//    convolution runs as 2-D with height 1);
//  - generic ones for everything else the Interpreter runs (kernels/NNConvGeneric.cpp,
//    NNMatMulGeneric.cpp): any spatial rank up to kMaxSpatialDims, every element kind of the
//    reference, and ConvTranspose.
// Each supports function accepts the union; each emit function picks the fast kernel when the shape
// and kind allow it. Shapes go to the kernels as private constant arrays; the fused activation as a
// kind and two floats.
#include "CodeGenNN.h"
#include "CPUConstants.h"

#include "kernels/Scratch.h"

#include "ember/Graph/FusedActivations.h"

#include <algorithm>
#include <array>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// A fused activation as the kernels take it: its 1-based row of Nodes/FusedActivations.def
/// (kernels/Activation.h: ActKind; 0 for none) and its arguments.
struct FusedAct {
  int64_t kind = 0;
  float a = 0, b = 0;
};

Expected<FusedAct> fusedActivation(const Instruction &I) {
  const std::string &name = I.attr<AttrKind::FusedActivation>();
  const std::vector<float> &args = I.attr<AttrKind::FusedActivationArgs>();
  FusedAct f;
  const FusedActivationInfo *info;
  if (!resolveFusedActivation(name, args.size(), info))
    return instrError(I, "invalid fused activation '" + name + "'");
  if (!info)
    return f;
  f.kind = info->code;
  if (info->arity > 0)
    f.a = args[0];
  if (info->arity > 1)
    f.b = args[1];
  return f;
}

/// Conv, FusedConv and ConvTranspose: any float kind and spatial rank.
bool supportsConv(const Node &n) {
  return floatNode(n) && genericRankOk(n.getOperand(0).getType().rank());
}

/// Whether the instruction's fused activation, if it has one, has a float32 vector form for the
/// fast kernels' epilogues (Nodes/FusedActivations.def); the generic kernels apply any row.
bool vectorActivation(const Instruction &I) {
  if (!I.getAttrs().has(AttrKind::FusedActivation))
    return true;
  const FusedActivationInfo *info = findFusedActivation(I.attr<AttrKind::FusedActivation>());
  return !info || info->vectorized;
}

/// Whether a convolution instruction runs on the fast float32 2-D kernel.
bool fastConv(const Instruction &I) {
  return I.getKind() != InstrKind::ConvTranspose &&
         I.getOutput()->getType().kind == ElemKind::Float32 &&
         fastRank(I.getInput(0)->getType().rank()) && vectorActivation(I);
}

/// The kernel's ConvShape: N, C, H, W, K, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, G.
std::array<int64_t, 16> convParams(const Instruction &I) {
  const DimsVec &in = I.getInput(ops::Conv::Input)->getType().dims;
  const DimsVec &out = I.getOutput()->getType().dims;
  const DimsVec &filter = I.getInput(ops::Conv::Filter)->getType().dims;
  SmallVector<int64_t, 4> kernels;
  for (size_t a = 2; a < filter.size(); ++a)
    kernels.push_back(int64_t(filter[a]));
  Window2D w = window(I, kernels, I.attr<AttrKind::Strides>(), I.attr<AttrKind::Pads>(),
                      I.attr<AttrKind::Dilations>());
  return {int64_t(in[0]), int64_t(in[1]), w.H,  w.W,  int64_t(out[1]), w.OH,
          w.OW,           w.KH,           w.KW, w.SH, w.SW,            w.PH,
          w.PW,           w.DH,           w.DW, I.attr<AttrKind::Group>()};
}

uint64_t convScratch(const Instruction &I, int64_t threads) {
  if (!fastConv(I))
    return 0;
  auto p = convParams(I);
  // A filter kept for Winograd (reserved before scratch is sized) makes the convolution run
  // Winograd, and nothing else; without that room it never does. Before, the scratch was the
  // larger of both paths': inception_v3's Conv2d_2b_3x3 kept the flat path's phase planes (2.9
  // MB) it never used.
  if (int64_t m = convWinogradTile(I))
    if (reservedForWinograd(I.getInput(ops::Conv::Filter), m))
      return uint64_t(scratch::winogradScratchFloats(p[1], p[4], p[5], p[6], m, threads)) *
             sizeof(float);
  int64_t floats = scratch::convScratchFloats(p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8],
                                              p[9], p[10], p[11], p[12], p[13], p[14], p[15],
                                              threads);
  // Enough for either path: the filter's packing (CPUConstants.cpp) decides which one runs.
  if (convGoesByPixels(I))
    floats = std::max<int64_t>(floats, scratch::convByPixelsFloats(p[1], p[4], p[5] * p[6],
                                                                   threads));
  return uint64_t(floats) * sizeof(float);
}

/// The generic kernels' parameters (kernels/NNConvGeneric.cpp, ConvNd): n, N, C, K, G, then per
/// spatial axis input dims, output dims, kernel dims, strides, begin pads, dilations.
std::vector<int64_t> convNdParams(const Instruction &I) {
  const DimsVec &in = I.getInput(ops::Conv::Input)->getType().dims;
  const DimsVec &out = I.getOutput()->getType().dims;
  const DimsVec &filter = I.getInput(ops::Conv::Filter)->getType().dims;
  size_t n = in.size() - 2;
  std::vector<int64_t> p = {int64_t(n), int64_t(in[0]), int64_t(in[1]), int64_t(out[1]),
                            I.attr<AttrKind::Group>()};
  for (const DimsVec *d : {&in, &out, &filter})
    for (size_t a = 0; a < n; ++a)
      p.push_back(int64_t((*d)[2 + a]));
  const std::vector<int64_t> &strides = I.attr<AttrKind::Strides>(),
                             &pads = I.attr<AttrKind::Pads>(),
                             &dilations = I.attr<AttrKind::Dilations>();
  p.insert(p.end(), strides.begin(), strides.begin() + n);
  p.insert(p.end(), pads.begin(), pads.begin() + n);
  p.insert(p.end(), dilations.begin(), dilations.begin() + n);
  return p;
}

Error emitConv(Emitter &E, const Instruction &I) {
  FusedAct act;
  if (I.getKind() == InstrKind::FusedConv) {
    EMBER_ASSIGN_OR_RETURN(act, fusedActivation(I));
  }
  ElemKind kind = I.getOutput()->getType().kind;
  if (I.getKind() == InstrKind::ConvTranspose)
    return E.call(kernelFor("ember_convtranspose_nd", kind),
                  {E.out(I), E.in(I, ops::ConvTranspose::Input),
                   E.in(I, ops::ConvTranspose::Filter), E.in(I, ops::ConvTranspose::Bias),
                   E.constArray(convNdParams(I), "convtranspose")});
  if (!fastConv(I))
    return E.call(kernelFor("ember_conv_nd", kind),
                  {E.out(I), E.in(I, ops::Conv::Input), E.in(I, ops::Conv::Filter),
                   E.in(I, ops::Conv::Bias), E.constArray(convNdParams(I), "conv"), E.i64(act.kind),
                   E.f32(act.a), E.f32(act.b)});
  // Depthwise, Winograd over the filter transformed at compile time, the GEMM over a filter
  // packed at compile time (CPUConstants.h), or over one read in place: four entries, so a model
  // links only the paths it takes.
  std::optional<int64_t> layout = E.packedLayout(I.getInput(ops::Conv::Filter));
  const char *entry = !convFilterFeedsGemm(I)             ? "ember_depthwise_f32"
                      : layout && isWinogradMark(*layout) ? "ember_conv2d_winograd_f32"
                      : layout == kFilterPixelPanels      ? "ember_conv2d_pixels_f32"
                      : layout                            ? "ember_conv2d_packed_f32"
                                                          : "ember_conv2d_f32";
  return E.call(E.variant(entry),
                {E.out(I), E.in(I, ops::Conv::Input), E.in(I, ops::Conv::Filter),
                 E.in(I, ops::Conv::Bias), E.constArray(convParams(I), "conv"), E.i64(act.kind),
                 E.f32(act.a), E.f32(act.b), E.scratch(I), E.team()});
}

/// Whether a product runs on the float32 GEMM (kernels/NNGemm.cpp), which needs scratch for its
/// packing.
bool fastProduct(const Instruction &I) {
  return I.getOutput()->getType().kind == ElemKind::Float32 && vectorActivation(I);
}

/// A MatMul's products as its kernels run them: the batches, folded into rows where they share
/// the right operand (foldBatchesIntoRows), and each product's rows, columns and depth.
struct MatMulProducts {
  MatMulBatches batches;
  int64_t M, N, K;
};
MatMulProducts matmulProducts(const Instruction &I) {
  const DimsVec &a = I.getInput(ops::MatMul::LHS)->getType().dims;
  const DimsVec &b = I.getInput(ops::MatMul::RHS)->getType().dims;
  const DimsVec &r = I.getOutput()->getType().dims;
  size_t rank = r.size();
  MatMulProducts p{matmulBatches(a, b, r), int64_t(a[rank - 2]), int64_t(b[rank - 1]),
                   int64_t(a[rank - 1])};
  foldBatchesIntoRows(p.batches, p.M, p.K);
  return p;
}

uint64_t matmulScratch(const Instruction &I, int64_t threads) {
  MatMulProducts p = matmulProducts(I);
  if (!fastProduct(I) || p.M <= scratch::kGemvRows)
    return 0;
  return std::max({uint64_t(scratch::gemmScratchFloats(p.K, p.N, threads)) * sizeof(float),
                   attentionScratchBytes(I, threads), attentionValuesScratchBytes(I, threads)});
}

uint64_t fullyConnectedScratch(const Instruction &I, int64_t threads) {
  const DimsVec &x = I.getInput(ops::FullyConnected::Input)->getType().dims;
  if (!fastProduct(I) || dimsProduct(x, 0, x.size() - 1) <= scratch::kGemvRows)
    return 0;
  const DimsVec &w = I.getInput(ops::FullyConnected::Weights)->getType().dims;
  return uint64_t(scratch::gemmScratchFloats(int64_t(w[0]), int64_t(w[1]), threads)) *
         sizeof(float);
}

/// MatMul: every numeric kind but the quantized ones (as the Interpreter); the fused forms and
/// FullyConnected: the float kinds.
bool supportsMatMul(const Node &n) {
  ElemKind k = n.getType(0).kind;
  if (k == ElemKind::Bool || k == ElemKind::QInt8 || k == ElemKind::QUInt8)
    return false;
  for (const NodeValue &v : n.getOperands())
    if (v.getType().kind != k)
      return false;
  return true;
}

Error emitMatMul(Emitter &E, const Instruction &I) {
  FusedAct act;
  if (I.getKind() == InstrKind::FusedMatMul) {
    EMBER_ASSIGN_OR_RETURN(act, fusedActivation(I));
  }
  MatMulProducts p = matmulProducts(I);
  int64_t M = p.M, N = p.N, K = p.K;
  const MatMulBatches &batches = p.batches;
  SmallVector<Value *, 13> args = {E.out(I), E.in(I, ops::MatMul::LHS), E.in(I, ops::MatMul::RHS),
                                   E.i64(M), E.i64(N), E.i64(K), E.i64(batches.count),
                                   E.constArray(batches.lhs, "lhs_offsets"),
                                   E.constArray(batches.rhs, "rhs_offsets"), E.i64(act.kind),
                                   E.f32(act.a), E.f32(act.b)};
  if (!fastProduct(I))
    return E.call(kernelFor("ember_matmul_generic", I.getOutput()->getType().kind), args);
  if (E.isPackedFilter(I.getInput(ops::MatMul::RHS)))
    return E.call(E.variant("ember_product_packed_f32"),
                  {E.out(I), E.in(I, ops::MatMul::LHS), E.in(I, ops::MatMul::RHS), E.nullPtr(),
                   E.i64(M), E.i64(N), E.i64(K), E.i64(act.kind), E.f32(act.a), E.f32(act.b),
                   E.scratch(I), E.team()});
  args.push_back(E.scratch(I));
  args.push_back(E.team());
  return E.call(E.variant("ember_matmul_f32"), args);
}

Error emitFullyConnected(Emitter &E, const Instruction &I) {
  EMBER_ASSIGN_OR_RETURN(FusedAct act, fusedActivation(I));
  const DimsVec &x = I.getInput(ops::FullyConnected::Input)->getType().dims;
  const DimsVec &w = I.getInput(ops::FullyConnected::Weights)->getType().dims;
  int64_t K = int64_t(w[0]), N = int64_t(w[1]), M = dimsProduct(x, 0, x.size() - 1);
  SmallVector<Value *, 11> args = {
      E.out(I), E.in(I, ops::FullyConnected::Input), E.in(I, ops::FullyConnected::Weights),
      E.in(I, ops::FullyConnected::Bias), E.i64(M), E.i64(N), E.i64(K), E.i64(act.kind),
      E.f32(act.a), E.f32(act.b)};
  if (!fastProduct(I))
    return E.call(kernelFor("ember_fc_generic", I.getOutput()->getType().kind), args);
  args.push_back(E.scratch(I));
  args.push_back(E.team());
  bool packed = E.isPackedFilter(I.getInput(ops::FullyConnected::Weights));
  return E.call(E.variant(packed ? "ember_product_packed_f32" : "ember_fc_f32"), args);
}

} // namespace

int64_t convWinogradTile(const Instruction &I) {
  if (!convFilterFeedsGemm(I))
    return 0;
  auto p = convParams(I); // N, C, H, W, K, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, G
  return scratch::winogradTile(p[1], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[13], p[14],
                               p[15]);
}

bool convGoesByPixels(const Instruction &I) {
  if (!convFilterFeedsGemm(I))
    return false;
  auto p = convParams(I); // N, C, H, W, K, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW, G
  return scratch::convIsPointwise(p[2], p[3], p[5], p[6], p[7], p[8], p[9], p[10], p[11],
                                  p[12]) &&
         scratch::convByPixels(p[15], p[4], p[5] * p[6]);
}

bool convFilterFeedsGemm(const Instruction &I) {
  if ((I.getKind() != InstrKind::Conv && I.getKind() != InstrKind::FusedConv) || !fastConv(I))
    return false;
  auto p = convParams(I); // N, C, H, W, K, OH, OW, KH, KW, SH, SW, ...
  return !scratch::convIsDepthwise(p[1], I.attr<AttrKind::Group>(), p[7], p[8], p[9], p[10]);
}

int productBOperand(const Instruction &I) {
  if (!fastProduct(I))
    return -1;
  if (I.getKind() == InstrKind::FullyConnected) {
    const DimsVec &x = I.getInput(ops::FullyConnected::Input)->getType().dims;
    return dimsProduct(x, 0, x.size() - 1) > scratch::kGemvRows
               ? int(ops::FullyConnected::Weights)
               : -1;
  }
  if (I.getKind() != InstrKind::MatMul && I.getKind() != InstrKind::FusedMatMul)
    return -1;
  const DimsVec &b = I.getInput(ops::MatMul::RHS)->getType().dims;
  MatMulProducts p = matmulProducts(I);
  bool oneMatrix = dimsProduct(b, 0, b.size() - 2) == 1;
  return p.batches.count == 1 && oneMatrix && p.M > scratch::kGemvRows ? int(ops::MatMul::RHS)
                                                                       : -1;
}

int64_t splittableFlops(const Instruction &I) {
  switch (I.getKind()) {
  case InstrKind::Conv:
  case InstrKind::FusedConv:
    return fastConv(I) ? productFlops(I) : 0;
  case InstrKind::MatMul:
  case InstrKind::FusedMatMul:
  case InstrKind::FullyConnected:
    return I.getOutput()->getType().kind == ElemKind::Float32 ? productFlops(I) : 0;
  case InstrKind::IntegerConv: // kernels/QuantizedIntegerGemm.cpp splits its rows over the team
  case InstrKind::IntegerMatMul:
    return productFlops(I);
  case InstrKind::RNN:
  case InstrKind::GRU:
  case InstrKind::LSTM:
    return recurrentSplittableFlops(I);
  case InstrKind::BatchNorm:
  case InstrKind::Concat:
  case InstrKind::Transpose:
  case InstrKind::Broadcast:
  case InstrKind::Slice:
  case InstrKind::AvgPool:
  case InstrKind::MaxPool: {
    // Steps that split by the floats they read and write (CodeGenTeam.cpp, the pools' kernels),
    // each weighing scratch::kFloatMoveFlops.
    uint64_t bytes = 0;
    for (const InstrOperand &op : I.getOperands())
      bytes += op.value->sizeInBytes();
    return scratch::kFloatMoveFlops * int64_t(bytes / 4);
  }
  default:
    return 0;
  }
}

void addNNRoiAlignKernels(KernelTable &t); // CodeGenNNRoiAlign.cpp

void addNNKernels(KernelTable &t) {
  t.add(NodeKind::Conv, supportsConv, emitConv, convScratch);
  t.add(NodeKind::FusedConv, supportsConv, emitConv, convScratch);
  t.add(NodeKind::ConvTranspose, supportsConv, emitConv);
  t.add(NodeKind::MatMul, supportsMatMul, emitMatMul, matmulScratch);
  t.add(NodeKind::FusedMatMul, floatNode, emitMatMul, matmulScratch);
  t.add(NodeKind::FullyConnected, floatNode, emitFullyConnected, fullyConnectedScratch);
  addNNPoolKernels(t);
  addNNRoiAlignKernels(t);
}

} // namespace cpu
} // namespace ember
