// Codegen for convolution, matrix products and pooling (kernels/Conv.cpp, Gemm.cpp, Pool.cpp):
// float32, 1-D and 2-D spatial dims (a 1-D operation runs as 2-D with height 1). Shapes go to
// the kernels as private constant arrays; the fused activation as a kind and two floats.
#include "CodeGenUtils.h"

#include "kernels/Scratch.h"

#include "llvm/ADT/StringSwitch.h"

#include <array>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// The kernels' ActKind numbering (kernels/KernelCommon.h).
struct FusedAct {
  int64_t kind = 0;
  float a = 0, b = 0;
};

int64_t activationKind(StringRef name) {
  return StringSwitch<int64_t>(name)
      .Case("", 0)
      .Case("relu", 1)
      .Case("clip", 2)
      .Case("leaky_relu", 3)
      .Case("sigmoid", 4)
      .Case("tanh", 5)
      .Case("hard_sigmoid", 6)
      .Case("hard_swish", 7)
      .Default(-1);
}

Expected<FusedAct> fusedActivation(const Instruction &I) {
  const std::string &name = I.attr<AttrKind::FusedActivation>();
  const std::vector<float> &args = I.attr<AttrKind::FusedActivationArgs>();
  FusedAct f;
  f.kind = activationKind(name);
  size_t arity = name == "clip" || name == "hard_sigmoid" ? 2 : name == "leaky_relu" ? 1 : 0;
  if (f.kind < 0 || args.size() != arity)
    return instrError(I, "invalid fused activation '" + name + "'");
  if (arity > 0)
    f.a = args[0];
  if (arity > 1)
    f.b = args[1];
  return f;
}

/// Rank 3 or 4 activations (1-D or 2-D spatial).
bool spatialRankOk(const Node &n) {
  unsigned r = n.getOperand(0).getType().rank();
  return r == 3 || r == 4;
}

bool supportsConv(const Node &n) { return allFloat32(n) && spatialRankOk(n); }

/// Spatial attributes as 2-D: for 1-D ones the height axis gets kernel 1, stride 1, no padding.
struct Window2D {
  int64_t H, W, OH, OW, KH = 1, KW = 1, SH = 1, SW = 1, PH = 0, PW = 0, PHEnd = 0, PWEnd = 0,
                                  DH = 1, DW = 1;
};

Window2D window(const Instruction &I, ArrayRef<int64_t> kernels, ArrayRef<int64_t> strides,
                ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations) {
  const DimsVec &in = I.getInput(0)->getType().dims, &out = I.getOutput()->getType().dims;
  Window2D w;
  bool twoD = in.size() == 4;
  w.H = twoD ? int64_t(in[2]) : 1;
  w.W = int64_t(in.back());
  w.OH = twoD ? int64_t(out[2]) : 1;
  w.OW = int64_t(out.back());
  size_t n = twoD ? 2 : 1;
  if (twoD) {
    w.KH = kernels[0], w.SH = strides[0], w.PH = pads[0], w.PHEnd = pads[n];
    if (!dilations.empty())
      w.DH = dilations[0];
  }
  w.KW = kernels[n - 1], w.SW = strides[n - 1], w.PW = pads[n - 1], w.PWEnd = pads[2 * n - 1];
  if (!dilations.empty())
    w.DW = dilations[n - 1];
  return w;
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

uint64_t convScratch(const Instruction &I) {
  auto p = convParams(I);
  return uint64_t(scratch::convScratchFloats(p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8],
                                             p[9], p[10], p[11], p[12], p[13], p[14], p[15])) *
         sizeof(float);
}

Error emitConv(Emitter &E, const Instruction &I) {
  FusedAct act;
  if (I.getKind() == InstrKind::FusedConv) {
    EMBER_ASSIGN_OR_RETURN(act, fusedActivation(I));
  }
  auto params = convParams(I);
  return E.call(E.tiled("ember_conv2d_f32"),
                {E.out(I), E.in(I, ops::Conv::Input), E.in(I, ops::Conv::Filter),
                 E.in(I, ops::Conv::Bias), E.constArray(params, "conv"), E.i64(act.kind),
                 E.f32(act.a), E.f32(act.b), E.scratch(I)});
}

uint64_t matmulScratch(const Instruction &I) {
  const DimsVec &b = I.getInput(ops::MatMul::RHS)->getType().dims;
  return uint64_t(scratch::gemmPackFloats(int64_t(b[b.size() - 2]), int64_t(b.back()))) *
         sizeof(float);
}

uint64_t fullyConnectedScratch(const Instruction &I) {
  const DimsVec &w = I.getInput(ops::FullyConnected::Weights)->getType().dims;
  return uint64_t(scratch::gemmPackFloats(int64_t(w[0]), int64_t(w[1]))) * sizeof(float);
}

Error emitMatMul(Emitter &E, const Instruction &I) {
  FusedAct act;
  if (I.getKind() == InstrKind::FusedMatMul) {
    EMBER_ASSIGN_OR_RETURN(act, fusedActivation(I));
  }
  const DimsVec &a = I.getInput(ops::MatMul::LHS)->getType().dims;
  const DimsVec &b = I.getInput(ops::MatMul::RHS)->getType().dims;
  const DimsVec &r = I.getOutput()->getType().dims;
  size_t rank = r.size(), batchRank = rank - 2;
  int64_t M = int64_t(a[rank - 2]), K = int64_t(a[rank - 1]), N = int64_t(b[rank - 1]);
  // Element offsets of each result matrix's operands; a broadcast (size 1) batch dim stays put.
  SmallVector<int64_t, 8> aStrides(batchRank), bStrides(batchRank);
  int64_t aStride = M * K, bStride = K * N;
  for (size_t d = batchRank; d-- > 0;) {
    aStrides[d] = a[d] == 1 ? 0 : aStride;
    bStrides[d] = b[d] == 1 ? 0 : bStride;
    aStride *= int64_t(a[d]);
    bStride *= int64_t(b[d]);
  }
  int64_t batches = dimsProduct(r, 0, batchRank);
  std::vector<int64_t> aOffsets, bOffsets;
  for (int64_t batch = 0; batch < batches; ++batch) {
    int64_t rest = batch, ao = 0, bo = 0;
    for (size_t d = batchRank; d-- > 0;) {
      int64_t idx = rest % int64_t(r[d]);
      rest /= int64_t(r[d]);
      ao += idx * aStrides[d];
      bo += idx * bStrides[d];
    }
    aOffsets.push_back(ao);
    bOffsets.push_back(bo);
  }
  if (aOffsets.empty()) // no batch at all: nothing to compute, but keep the arrays non-empty
    aOffsets.push_back(0), bOffsets.push_back(0);
  return E.call(E.tiled("ember_matmul_f32"),
                {E.out(I), E.in(I, ops::MatMul::LHS), E.in(I, ops::MatMul::RHS), E.i64(M),
                 E.i64(N), E.i64(K), E.i64(batches), E.constArray(aOffsets, "lhs_offsets"),
                 E.constArray(bOffsets, "rhs_offsets"), E.i64(act.kind), E.f32(act.a),
                 E.f32(act.b), E.scratch(I)});
}

Error emitFullyConnected(Emitter &E, const Instruction &I) {
  EMBER_ASSIGN_OR_RETURN(FusedAct act, fusedActivation(I));
  const DimsVec &x = I.getInput(ops::FullyConnected::Input)->getType().dims;
  const DimsVec &w = I.getInput(ops::FullyConnected::Weights)->getType().dims;
  int64_t K = int64_t(w[0]), N = int64_t(w[1]), M = dimsProduct(x, 0, x.size() - 1);
  return E.call(E.tiled("ember_fc_f32"),
                {E.out(I), E.in(I, ops::FullyConnected::Input),
                 E.in(I, ops::FullyConnected::Weights), E.in(I, ops::FullyConnected::Bias),
                 E.i64(M), E.i64(N), E.i64(K), E.i64(act.kind), E.f32(act.a), E.f32(act.b),
                 E.scratch(I)});
}

bool supportsMaxPool(const Node &n) {
  return spatialRankOk(n) && n.getType(ops::MaxPool::Result).kind == ElemKind::Float32 &&
         n.getOperand(0).getType().kind == ElemKind::Float32;
}

SmallVector<int64_t, 17> poolParams(const Instruction &I, const Window2D &w, int64_t countPad,
                                    int64_t colMajor) {
  const DimsVec &in = I.getInput(0)->getType().dims;
  return {int64_t(in[0] * in[1]), w.H,  w.W,     w.OH,     w.OW,     w.KH,   w.KW,
          w.SH,                   w.SW, w.PH,    w.PW,     w.DH,     w.DW,   w.PHEnd,
          w.PWEnd,                countPad, colMajor};
}

Error emitMaxPool(Emitter &E, const Instruction &I) {
  Window2D w = window(I, I.attr<AttrKind::Kernels>(), I.attr<AttrKind::Strides>(),
                      I.attr<AttrKind::Pads>(), I.attr<AttrKind::Dilations>());
  auto params = poolParams(I, w, 0, I.attr<AttrKind::StorageOrder>() != 0);
  return E.call("ember_maxpool_f32",
                {E.out(I, ops::MaxPool::Result), E.out(I, ops::MaxPool::Indices),
                 E.in(I, ops::MaxPool::Input), E.constArray(params, "maxpool")});
}

Error emitAvgPool(Emitter &E, const Instruction &I) {
  Window2D w = window(I, I.attr<AttrKind::Kernels>(), I.attr<AttrKind::Strides>(),
                      I.attr<AttrKind::Pads>(), {});
  const DimsVec &in = I.getInput(0)->getType().dims;
  if (w.KH == w.H && w.KW == w.W && w.OH == 1 && w.OW == 1 && w.PH == 0 && w.PW == 0 &&
      w.PHEnd == 0 && w.PWEnd == 0)
    return E.call("ember_global_avgpool_f32", {E.out(I), E.in(I, 0), E.i64(int64_t(in[0] * in[1])),
                                               E.i64(w.H * w.W)});
  auto params = poolParams(I, w, I.attr<AttrKind::CountIncludePad>() != 0, 0);
  return E.call("ember_avgpool_f32",
                {E.out(I), E.in(I, ops::AvgPool::Input), E.constArray(params, "avgpool")});
}

bool supportsAvgPool(const Node &n) { return allFloat32(n) && spatialRankOk(n); }

} // namespace

void addNNKernels(KernelTable &t) {
  t.add(NodeKind::Conv, supportsConv, emitConv, convScratch);
  t.add(NodeKind::FusedConv, supportsConv, emitConv, convScratch);
  t.add(NodeKind::MatMul, allFloat32, emitMatMul, matmulScratch);
  t.add(NodeKind::FusedMatMul, allFloat32, emitMatMul, matmulScratch);
  t.add(NodeKind::FullyConnected, allFloat32, emitFullyConnected, fullyConnectedScratch);
  t.add(NodeKind::MaxPool, supportsMaxPool, emitMaxPool);
  t.add(NodeKind::AvgPool, supportsAvgPool, emitAvgPool);
}

} // namespace cpu
} // namespace ember
