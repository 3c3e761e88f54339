// Codegen for GridSample (kernels/DataMovementGridSample.cpp): the sampling depends on the grid's
// values, so the kernel evaluates ember/Semantics/GridSample.h per point; codegen passes the
// shapes and the attributes' codes.
#include "CodeGenUtils.h"

#include "ember/Semantics/GridSample.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

bool supportsGridSample(const Node &n) { return isFloatKind(n.getType(0).kind); }

Error emitGridSample(Emitter &E, const Instruction &I) {
  const DimsVec &in = I.getInput(ops::GridSample::Input)->getType().dims;
  const DimsVec &out = I.getOutput()->getType().dims;
  size_t rank = in.size() - 2;
  std::vector<int64_t> p = {int64_t(in[0]),
                            int64_t(in[1]),
                            int64_t(dimsProduct(out, 2, out.size())),
                            ember_grid_mode_code(I.attr<AttrKind::Mode>().c_str()),
                            ember_grid_padding_code(I.attr<AttrKind::PaddingMode>().c_str()),
                            I.attr<AttrKind::AlignCorners>(),
                            int64_t(rank)};
  for (size_t a = 0; a < rank; ++a)
    p.push_back(int64_t(in[2 + a]));
  return E.call(kernelFor("ember_gridsample", I.getOutput()->getType().kind),
                {E.out(I), E.in(I, ops::GridSample::Input), E.in(I, ops::GridSample::Grid),
                 E.constArray(p, "gridsample")});
}

} // namespace

void addDataMovementGridSampleKernels(KernelTable &t) {
  t.add(NodeKind::GridSample, supportsGridSample, emitGridSample);
}

} // namespace cpu
} // namespace ember
