// Codegen for RoiAlign (kernels/NNRoiAlign.cpp): where a region's samples lie depends on the
// regions' values, so the kernel evaluates ember/Semantics/RoiAlign.h; codegen passes the shapes
// and attributes, and names the run-time errors.
#include "CodeGenNN.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// Input and regions of one float kind (the batch indices are int64).
bool supportsRoiAlign(const Node &n) {
  ElemKind k = n.getType(0).kind;
  return isFloatKind(k) && n.getOperand(ops::RoiAlign::Input).getType().kind == k &&
         n.getOperand(ops::RoiAlign::Rois).getType().kind == k;
}

Error emitRoiAlign(Emitter &E, const Instruction &I) {
  const DimsVec &in = I.getInput(ops::RoiAlign::Input)->getType().dims;
  const DimsVec &out = I.getOutput()->getType().dims;
  std::vector<int64_t> p = {int64_t(in[0]),
                            int64_t(in[1]),
                            int64_t(in[2]),
                            int64_t(in[3]),
                            int64_t(out[2]),
                            int64_t(out[3]),
                            int64_t(out[0]),
                            I.attr<AttrKind::SamplingRatio>(),
                            I.attr<AttrKind::CoordinateMode>() == "half_pixel",
                            I.attr<AttrKind::Mode>() == "max"};
  return E.callChecked(kernelFor("ember_roialign", I.getOutput()->getType().kind),
                       {E.out(I), E.in(I, ops::RoiAlign::Input), E.in(I, ops::RoiAlign::Rois),
                        E.in(I, ops::RoiAlign::BatchIndices), E.constArray(p, "roialign"),
                        E.f32(I.attr<AttrKind::SpatialScale>())},
                       I,
                       "a region's batch index is not in [0, " + std::to_string(in[0]) +
                           "), or a region is not finite or needs more than 2^24 samples per "
                           "bin");
}

} // namespace

void addNNRoiAlignKernels(KernelTable &t) {
  t.add(NodeKind::RoiAlign, supportsRoiAlign, emitRoiAlign);
}

} // namespace cpu
} // namespace ember
