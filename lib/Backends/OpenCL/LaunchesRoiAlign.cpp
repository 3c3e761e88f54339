// The OpenCL launches of RoiAlign (kernels/RoiAlign.cl), a row registered by LaunchesNN.cpp: one
// work-item per result element, the kernel evaluating ember/Semantics/RoiAlign.h.
#include "KernelTable.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

Expected<bool> planRoiAlign(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  const DimsVec &in = I.getInput(ops::RoiAlign::Input)->getType().dims;
  std::vector<int64_t> p = {placeOf(I.getOutput()),
                            placeOf(I.getInput(ops::RoiAlign::Input)),
                            placeOf(I.getInput(ops::RoiAlign::Rois)),
                            placeOf(I.getInput(ops::RoiAlign::BatchIndices)),
                            floatBits(I.attr<AttrKind::SpatialScale>()),
                            int64_t(in[0]),
                            int64_t(in[1]),
                            int64_t(in[2]),
                            int64_t(in[3]),
                            int64_t(out.dims[2]),
                            int64_t(out.dims[3]),
                            I.attr<AttrKind::SamplingRatio>(),
                            I.attr<AttrKind::CoordinateMode>() == "half_pixel",
                            I.attr<AttrKind::Mode>() == "max"};
  return b.add(I, ("roialign_" + kindSuffix(out.kind)).str(), out.numElements(), p,
               kDefaultGroup,
               "a region's batch index is not in [0, " + std::to_string(in[0]) +
                   "), or a region is not finite or needs more than 2^24 samples per bin");
}

/// Input and regions of one float kind (the batch indices are int64).
bool supportsRoiAlign(const Node &n) {
  ElemKind k = n.getType(0).kind;
  return isFloatKind(k) && n.getOperand(ops::RoiAlign::Input).getType().kind == k &&
         n.getOperand(ops::RoiAlign::Rois).getType().kind == k;
}

} // namespace

void addNNRoiAlignKernels(KernelTable &t) {
  t.add(NodeKind::RoiAlign, supportsRoiAlign, planRoiAlign);
}

} // namespace opencl
} // namespace ember
