// The fast path of float32 convolutions and matrix products (kernels/Gemm.cl): tried before the
// families' generic kernels. A 2-D convolution of one group becomes, per image, an im2col into
// the instruction's scratch memory (or nothing, for a 1x1 window of stride 1 without padding,
// whose input already is the matrix) and a GEMM of the filter [M, C*KH*KW] by it, the bias added
// at the end; a float32 MatMul becomes one GEMM per batch matrix.
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// Work-items per work-group for the GEMM: each item's block is a lot of work, and small groups
/// let PoCL spread them over its threads (measured: 4 beats 1, 16 and 64).
constexpr size_t kGemmGroup = 4;
/// Above this many matrices a batched MatMul stays on the generic kernel (one launch each).
constexpr uint64_t kMaxGemmLaunches = 256;

bool isGemmConv(const Instruction &I) {
  if (I.getKind() != InstrKind::Conv)
    return false;
  const Type &x = I.getInput(0)->getType();
  return x.kind == ElemKind::Float32 && x.dims.size() == 4 &&
         I.getAttrs().get<AttrKind::Group>() == 1;
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

Expected<bool> gemm(LaunchBuilder &b, const Instruction &I, int64_t c, int64_t a, int64_t bm,
                    int64_t bias, int64_t M, int64_t N, int64_t K) {
  uint64_t blocks = uint64_t((M + 7) / 8) * uint64_t((N + 31) / 32);
  return b.add(I, "gemm_f32", blocks, {c, a, bm, bias, M, N, K}, kGemmGroup);
}

Expected<bool> planConv(LaunchBuilder &b, const Instruction &I) {
  const Type &xt = I.getInput(0)->getType(), &wt = I.getInput(1)->getType();
  const Type &yt = I.getOutput()->getType();
  const AttrList &at = I.getAttrs();
  const auto &s = at.get<AttrKind::Strides>(), &pd = at.get<AttrKind::Pads>(),
             &dl = at.get<AttrKind::Dilations>();
  int64_t C = int64_t(xt.dims[1]), H = int64_t(xt.dims[2]), W = int64_t(xt.dims[3]);
  int64_t M = int64_t(yt.dims[1]), OH = int64_t(yt.dims[2]), OW = int64_t(yt.dims[3]);
  int64_t KH = int64_t(wt.dims[2]), KW = int64_t(wt.dims[3]);
  int64_t K = C * KH * KW, N = OH * OW;
  int64_t x = placeOf(I.getInput(0)), y = placeOf(I.getOutput());
  int64_t cols = int64_t(MemRegion::Activations) << 48 | int64_t(I.scratchOffset);
  bool direct = inputIsColumns(I);
  for (int64_t img = 0; img < int64_t(xt.dims[0]); ++img) {
    int64_t xi = x + img * C * H * W * 4, yi = y + img * M * N * 4;
    if (!direct) {
      auto e = b.add(I, "im2col_f32", uint64_t(K * OH),
                     {cols, xi, C, H, W, OH, OW, KH, KW, s[0], s[1], pd[0], pd[1], dl[0], dl[1]});
      if (!e)
        return e.takeError();
    }
    auto e = gemm(b, I, yi, placeOf(I.getInput(1)), direct ? xi : cols, placeOf(I.getInput(2)),
                  M, N, K);
    if (!e)
      return e.takeError();
  }
  return true;
}

Expected<bool> planMatMul(LaunchBuilder &b, const Instruction &I) {
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
                  bm + int64_t(bAt * K * N * 4), -1, M, N, K);
    if (!e)
      return e.takeError();
  }
  return true;
}

} // namespace

Expected<bool> planGemm(LaunchBuilder &b, const Instruction &I) {
  if (isGemmConv(I))
    return planConv(b, I);
  if (I.getKind() == InstrKind::MatMul && I.getOutput()->getType().kind == ElemKind::Float32)
    return planMatMul(b, I);
  return false;
}

uint64_t gemmScratchBytes(const Instruction &I) {
  if (!isGemmConv(I) || inputIsColumns(I))
    return 0;
  const Type &wt = I.getInput(1)->getType(), &yt = I.getOutput()->getType();
  return wt.numElements() / wt.dims[0] * yt.dims[2] * yt.dims[3] * sizeof(float);
}

} // namespace opencl
} // namespace ember
