// The OpenCL launches of GridSample (kernels/GridSample.cl), a row registered by
// LaunchesDataMovement.cpp: one work-item per grid point, the kernel evaluating
// ember/Semantics/GridSample.h, over 1 to 3 spatial axes.
#include "KernelTable.h"

#include "ember/Semantics/GridSample.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

Expected<bool> planGridSample(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  const DimsVec &in = I.getInput(ops::GridSample::Input)->getType().dims;
  size_t rank = in.size() - 2;
  int64_t points = 1;
  for (size_t a = 0; a < rank; ++a)
    points *= int64_t(out.dims[2 + a]);
  std::vector<int64_t> p = {placeOf(I.getOutput()),
                            placeOf(I.getInput(ops::GridSample::Input)),
                            placeOf(I.getInput(ops::GridSample::Grid)),
                            int64_t(in[1]),
                            points,
                            ember_grid_mode_code(I.attr<AttrKind::Mode>().c_str()),
                            ember_grid_padding_code(I.attr<AttrKind::PaddingMode>().c_str()),
                            I.attr<AttrKind::AlignCorners>(),
                            int64_t(rank)};
  for (size_t a = 0; a < rank; ++a)
    p.push_back(int64_t(in[2 + a]));
  // An empty channel axis leaves nothing to write.
  uint64_t count = in[1] == 0 ? 0 : uint64_t(out.dims[0]) * uint64_t(points);
  return b.add(I, ("gridsample_" + kindSuffix(out.kind)).str(), count, p);
}

bool supportsGridSample(const Node &n) { return isFloatKind(n.getType(0).kind); }

} // namespace

void addDataMovementGridSampleKernels(KernelTable &t) {
  t.add(NodeKind::GridSample, supportsGridSample, planGridSample);
}

} // namespace opencl
} // namespace ember
