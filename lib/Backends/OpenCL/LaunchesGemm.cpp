// The fast paths of float32 convolutions and matrix products, fused or not: tried before the
// families' generic kernels. A 2-D convolution of one group becomes, per image, an im2col into
// the instruction's scratch memory (or nothing, for a 1x1 window of stride 1 without padding,
// whose input already is the matrix) and a GEMM of the filter [M, C*KH*KW] by it
// (kernels/Gemm.cl); a grouped one, the same per group, on the group's channels, filter rows and
// output channels; a depthwise one (one input channel a group) the blocked direct kernel
// dwconv_f32 (kernels/NN.cl). A float32 MatMul or FusedMatMul becomes one GEMM per batch
// matrix, a FullyConnected one GEMM of its input's rows. The GEMM's epilogue adds the bias and
// applies the fused activation, so FusedConv, FusedMatMul and FullyConnected run unlowered.
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

#include <algorithm>
#include <array>

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// Work-items per work-group for the GEMM: each item's block is a lot of work, and small groups
/// let PoCL spread them over its threads (measured: 4 beats 1, 16 and 64).
constexpr size_t kGemmGroup = 4;
/// Above this many matrices a batched MatMul stays on the generic kernel (one launch each).
constexpr uint64_t kMaxGemmLaunches = 256;

/// Above this many GEMMs (images x groups) a grouped convolution stays on the generic kernel.
constexpr uint64_t kMaxGroupLaunches = 256;
/// The work-group size of dwconv_f32 (a row of outputs per work-item), and its outputs per
/// vector (DW_BLOCK).
constexpr size_t kDepthwiseGroup = 8;
constexpr int64_t kDepthwiseBlock = 8;

enum class ConvPath { None, Gemm, Depthwise };

/// How a float32 2-D convolution (Conv or FusedConv) runs here, if it does.
ConvPath convPath(const Instruction &I) {
  if (I.getKind() != InstrKind::Conv && I.getKind() != InstrKind::FusedConv)
    return ConvPath::None;
  const Type &x = I.getInput(0)->getType();
  if (x.kind != ElemKind::Float32 || x.dims.size() != 4 ||
      fusedActivationParams(I)[0] < 0)
    return ConvPath::None;
  int64_t G = I.getAttrs().get<AttrKind::Group>();
  if (G == 1)
    return ConvPath::Gemm;
  if (int64_t(x.dims[1]) == G)
    return ConvPath::Depthwise;
  return x.dims[0] * uint64_t(G) <= kMaxGroupLaunches ? ConvPath::Gemm : ConvPath::None;
}

/// Whether the input of a convolution already is its im2col matrix (1x1, stride 1, no pads).
bool inputIsColumns(const Instruction &I) {
  const AttrList &a = I.getAttrs();
  for (int64_t k : a.get<AttrKind::Kernels>())
    if (k != 1)
      return false;
  for (int64_t s : a.get<AttrKind::Strides>())
    if (s != 1)
      return false;
  for (int64_t p : a.get<AttrKind::Pads>())
    if (p != 0)
      return false;
  return true;
}

/// C = A x B (+ bias per row, or per column with \p biasColumns) then the activation \p act:
/// blocks of 8 rows (gemm_f32), or of one row (gemv_f32) for a product of one row, which
/// would compute it 8 times over.
Expected<bool> gemm(LaunchBuilder &b, const Instruction &I, int64_t c, int64_t a, int64_t bm,
                    int64_t bias, bool biasColumns, int64_t M, int64_t N, int64_t K,
                    const std::array<int64_t, 3> &act) {
  int64_t rows = M == 1 ? 1 : 8;
  uint64_t blocks = uint64_t((M + rows - 1) / rows) * uint64_t((N + 31) / 32);
  return b.add(I, rows == 1 ? "gemv_f32" : "gemm_f32", blocks,
               {c, a, bm, bias, M, N, K, int64_t(biasColumns), act[0], act[1], act[2]},
               kGemmGroup);
}

/// The zero-padded copy of a depthwise convolution's input dwconv_f32 reads, {H, W}, or {0, 0}
/// for none: wide enough for the last block's loads (dw_block's `right`), so that no block is
/// at an edge. Worth its pass over the input (measured: 1.7x faster on 14x14 maps, 1.5x on
/// 56x56), unless every block already lies inside.
std::array<int64_t, 2> depthwisePadded(const Instruction &I) {
  const Type &xt = I.getInput(0)->getType(), &wt = I.getInput(1)->getType();
  const Type &yt = I.getOutput()->getType();
  const AttrList &at = I.getAttrs();
  const auto &s = at.get<AttrKind::Strides>(), &pd = at.get<AttrKind::Pads>(),
             &dl = at.get<AttrKind::Dilations>();
  int64_t blocksEnd = (int64_t(yt.dims[3]) + kDepthwiseBlock - 1) / kDepthwiseBlock *
                      kDepthwiseBlock;
  int64_t reach = (blocksEnd - 1) * s[1] + (int64_t(wt.dims[3]) - 1) * dl[1] + 1 + 1;
  int64_t W = int64_t(xt.dims[3]);
  if (reach <= W && std::all_of(pd.begin(), pd.end(), [](int64_t p) { return p == 0; }))
    return {0, 0};
  return {int64_t(xt.dims[2]) + pd[0] + pd[2], std::max(W + pd[1] + pd[3], reach)};
}

Expected<bool> planDepthwise(LaunchBuilder &b, const Instruction &I) {
  const Type &xt = I.getInput(0)->getType(), &wt = I.getInput(1)->getType();
  const Type &yt = I.getOutput()->getType();
  const AttrList &at = I.getAttrs();
  const auto &s = at.get<AttrKind::Strides>(), &pd = at.get<AttrKind::Pads>(),
             &dl = at.get<AttrKind::Dilations>();
  std::array<int64_t, 3> act = fusedActivationParams(I);
  std::array<int64_t, 2> padded = depthwisePadded(I);
  int64_t x = placeOf(I.getInput(0)), copy = -1;
  if (padded[0]) {
    copy = int64_t(MemRegion::Activations) << 48 | int64_t(I.scratchOffset);
    auto e = b.add(I, "dwpad_f32", xt.dims[0] * xt.dims[1] * uint64_t(padded[0]),
                   {copy, x, int64_t(xt.dims[2]), int64_t(xt.dims[3]), padded[0], padded[1],
                    pd[0], pd[1]},
                   kDepthwiseGroup);
    if (!e)
      return e.takeError();
  }
  uint64_t count = yt.dims[3] ? yt.dims[0] * yt.dims[1] * yt.dims[2] : 0;
  return b.add(I, "dwconv_f32", count,
               {placeOf(I.getOutput()), x, placeOf(I.getInput(1)), placeOf(I.getInput(2)),
                act[0], act[1], act[2], int64_t(xt.dims[1]), int64_t(yt.dims[1]),
                int64_t(xt.dims[2]), int64_t(xt.dims[3]), int64_t(yt.dims[2]),
                int64_t(yt.dims[3]), int64_t(wt.dims[2]), int64_t(wt.dims[3]), s[0], s[1], pd[0],
                pd[1], dl[0], dl[1], copy, padded[0], padded[1]},
               kDepthwiseGroup);
}

Expected<bool> planConv(LaunchBuilder &b, const Instruction &I) {
  const Type &xt = I.getInput(0)->getType(), &wt = I.getInput(1)->getType();
  const Type &yt = I.getOutput()->getType();
  const AttrList &at = I.getAttrs();
  const auto &s = at.get<AttrKind::Strides>(), &pd = at.get<AttrKind::Pads>(),
             &dl = at.get<AttrKind::Dilations>();
  int64_t G = at.get<AttrKind::Group>();
  // Per group: its input channels C, output channels M, and the filter's row length K.
  int64_t C = int64_t(xt.dims[1]) / G, H = int64_t(xt.dims[2]), W = int64_t(xt.dims[3]);
  int64_t M = int64_t(yt.dims[1]) / G, OH = int64_t(yt.dims[2]), OW = int64_t(yt.dims[3]);
  int64_t KH = int64_t(wt.dims[2]), KW = int64_t(wt.dims[3]);
  int64_t K = C * KH * KW, N = OH * OW;
  int64_t x = placeOf(I.getInput(0)), y = placeOf(I.getOutput());
  int64_t w = placeOf(I.getInput(1)), bias = placeOf(I.getInput(2));
  int64_t cols = int64_t(MemRegion::Activations) << 48 | int64_t(I.scratchOffset);
  std::array<int64_t, 3> act = fusedActivationParams(I);
  bool direct = inputIsColumns(I);
  for (int64_t img = 0; img < int64_t(xt.dims[0]); ++img)
    for (int64_t g = 0; g < G; ++g) {
      int64_t xi = x + ((img * G + g) * C * H * W) * 4, yi = y + ((img * G + g) * M * N) * 4;
      if (!direct) {
        auto e = b.add(I, "im2col_f32", uint64_t(K * OH),
                       {cols, xi, C, H, W, OH, OW, KH, KW, s[0], s[1], pd[0], pd[1], dl[0], dl[1]});
        if (!e)
          return e.takeError();
      }
      auto e = gemm(b, I, yi, w + g * M * K * 4, direct ? xi : cols, bias + g * M * 4, false, M,
                    N, K, act);
      if (!e)
        return e.takeError();
    }
  return true;
}

Expected<bool> planMatMul(LaunchBuilder &b, const Instruction &I) {
  std::array<int64_t, 3> act = fusedActivationParams(I);
  const Type &at = I.getInput(0)->getType(), &bt = I.getInput(1)->getType();
  const Type &yt = I.getOutput()->getType();
  size_t r = yt.dims.size();
  int64_t M = int64_t(yt.dims[r - 2]), N = int64_t(yt.dims[r - 1]), K = int64_t(at.dims[r - 1]);
  uint64_t batches = yt.numElements() / uint64_t(M * N);
  if (batches > kMaxGemmLaunches)
    return false;
  int64_t a = placeOf(I.getInput(0)), bm = placeOf(I.getInput(1)), y = placeOf(I.getOutput());
  for (uint64_t batch = 0; batch < batches; ++batch) {
    // Each operand's matrix for this output batch: its own batch dims, or 0 where they are 1.
    uint64_t rest = batch, aAt = 0, bAt = 0, aStride = 1, bStride = 1;
    for (size_t d = r - 2; d-- > 0;) {
      uint64_t c = rest % yt.dims[d];
      rest /= yt.dims[d];
      aAt += (at.dims[d] == 1 ? 0 : c) * aStride;
      bAt += (bt.dims[d] == 1 ? 0 : c) * bStride;
      aStride *= at.dims[d];
      bStride *= bt.dims[d];
    }
    auto e = gemm(b, I, y + int64_t(batch * M * N * 4), a + int64_t(aAt * M * K * 4),
                  bm + int64_t(bAt * K * N * 4), -1, false, M, N, K, act);
    if (!e)
      return e.takeError();
  }
  return true;
}

/// FullyConnected: the input's rows (all dims but the last) times the weights [K, N], plus the
/// bias [N].
Expected<bool> planFullyConnected(LaunchBuilder &b, const Instruction &I) {
  const Type &wt = I.getInput(1)->getType();
  int64_t K = int64_t(wt.dims[0]), N = int64_t(wt.dims[1]);
  int64_t M = int64_t(I.getOutput()->getType().numElements()) / N;
  return gemm(b, I, placeOf(I.getOutput()), placeOf(I.getInput(0)), placeOf(I.getInput(1)),
              placeOf(I.getInput(2)), true, M, N, K, fusedActivationParams(I));
}

/// Whether \p I is a float32 product the GEMM runs: every operand float32 and an activation
/// nn_activation has.
bool isGemmProduct(const Instruction &I) {
  if (I.getKind() != InstrKind::MatMul && I.getKind() != InstrKind::FusedMatMul &&
      I.getKind() != InstrKind::FullyConnected)
    return false;
  for (unsigned i = 0; i < I.getNumInputs(); ++i)
    if (I.getInput(i)->getType().kind != ElemKind::Float32)
      return false;
  return I.getOutput()->getType().kind == ElemKind::Float32 && fusedActivationParams(I)[0] >= 0;
}

} // namespace

Expected<bool> planGemm(LaunchBuilder &b, const Instruction &I) {
  switch (convPath(I)) {
  case ConvPath::Gemm: return planConv(b, I);
  case ConvPath::Depthwise: return planDepthwise(b, I);
  case ConvPath::None: break;
  }
  if (!isGemmProduct(I))
    return false;
  if (I.getKind() == InstrKind::FullyConnected)
    return planFullyConnected(b, I);
  return planMatMul(b, I);
}

uint64_t gemmScratchBytes(const Instruction &I) {
  ConvPath path = convPath(I);
  if (path == ConvPath::Depthwise) {
    std::array<int64_t, 2> padded = depthwisePadded(I);
    const Type &xt = I.getInput(0)->getType();
    return xt.dims[0] * xt.dims[1] * uint64_t(padded[0] * padded[1]) * sizeof(float);
  }
  if (path != ConvPath::Gemm || inputIsColumns(I))
    return 0;
  const Type &wt = I.getInput(1)->getType(), &yt = I.getOutput()->getType();
  return wt.numElements() / wt.dims[0] * yt.dims[2] * yt.dims[3] * sizeof(float);
}

} // namespace opencl
} // namespace ember
