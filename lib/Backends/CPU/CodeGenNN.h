// Shared by the NN family's codegen files: CodeGenNN.cpp (convolution, matrix products) and
// CodeGenNNPool.cpp (pooling).
#ifndef EMBER_LIB_BACKENDS_CPU_CODEGENNN_H
#define EMBER_LIB_BACKENDS_CPU_CODEGENNN_H

#include "CodeGenUtils.h"

namespace ember {
namespace cpu {

/// Most spatial dims the generic kernels walk (their odometers are fixed arrays:
/// kernels/NNConvGeneric.h, nn::kMaxSpatial).
constexpr size_t kMaxSpatialDims = 8;

/// Rank 3 or 4 activations (1-D or 2-D spatial): what the fast kernels take.
inline bool fastRank(size_t rank) { return rank == 3 || rank == 4; }

/// A channels-first activation the generic kernels walk: at least one, at most kMaxSpatialDims
/// spatial dims.
inline bool genericRankOk(size_t rank) { return rank >= 3 && rank - 2 <= kMaxSpatialDims; }

/// Whether the result and every operand of \p n are of one float kind.
inline bool floatNode(const Node &n) {
  ElemKind k = n.getType(0).kind;
  if (!isFloatKind(k))
    return false;
  for (const NodeValue &v : n.getOperands())
    if (v.getType().kind != k)
      return false;
  return true;
}

/// Spatial attributes as 2-D: for 1-D ones the height axis gets kernel 1, stride 1, no padding.
struct Window2D {
  int64_t H, W, OH, OW, KH = 1, KW = 1, SH = 1, SW = 1, PH = 0, PW = 0, PHEnd = 0, PWEnd = 0,
                        DH = 1, DW = 1;
};

inline Window2D window(const Instruction &I, llvm::ArrayRef<int64_t> kernels,
                       llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> pads,
                       llvm::ArrayRef<int64_t> dilations) {
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

/// Whether \p I is a convolution whose kernel multiplies by its filter on the GEMM path
/// (kernels/NNConv.cpp: float32, 1-D or 2-D, not depthwise), which can read the filter packed
/// (CPUConstants.h).
bool convFilterFeedsGemm(const Instruction &I);

/// The operand of a float32 FullyConnected (its weights) or MatMul (its right operand) that the
/// GEMM reads as its B, when the product runs on the GEMM rather than the few-row kernel and
/// that B is one [K, N] matrix for every row (a MatMul's batches folded into rows,
/// foldBatchesIntoRows); else -1. A constant there may be stored in the GEMM's column panels
/// (CPUConstants.h).
int productBOperand(const Instruction &I);

/// The m of the Winograd F(m x m, 3x3) that computes a float32 convolution on the GEMM path
/// (scratch::winogradTile) when its filter is a constant the backend can store transformed
/// (CPUConstants.h, winogradMark), or 0.
int64_t convWinogradTile(const Instruction &I);
/// Whether a float32 convolution on the GEMM path goes by pixels (kernels/Scratch.h,
/// convByPixels), its filter packed as kFilterPixelPanels (CPUConstants.h).
bool convGoesByPixels(const Instruction &I);

/// Registers MaxPool, AvgPool, LpPool, MaxUnpool and MaxRoiPool (CodeGenNNPool.cpp).
void addNNPoolKernels(KernelTable &t);

} // namespace cpu
} // namespace ember

#endif
