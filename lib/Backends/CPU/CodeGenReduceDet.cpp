// Codegen for Det (kernels/ReduceDet.cpp): the kernel factorizes one matrix at a time in a
// working copy of m x m doubles in scratch (ember/Semantics/Determinant.h).
#include "CodeGenUtils.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

bool supportsDet(const Node &n) { return isFloatKind(n.getType(0).kind); }

/// The order of the matrices of \p I's input.
int64_t matrixOrder(const Instruction &I) { return int64_t(I.getInput(0)->getType().dims.back()); }

uint64_t detScratch(const Instruction &I, int64_t /*threads*/) {
  int64_t m = matrixOrder(I);
  return uint64_t(m * m) * sizeof(double);
}

Error emitDet(Emitter &E, const Instruction &I) {
  Value *scratch = E.scratch(I);
  return E.call(kernelFor("ember_det", I.getOutput()->getType().kind),
                {E.out(I), E.in(I, 0), scratch ? scratch : E.nullPtr(),
                 E.i64(numElements(I.getOutput())), E.i64(matrixOrder(I))});
}

} // namespace

void addReduceDetKernels(KernelTable &t) {
  t.add(NodeKind::Det, supportsDet, emitDet, detScratch);
}

} // namespace cpu
} // namespace ember
