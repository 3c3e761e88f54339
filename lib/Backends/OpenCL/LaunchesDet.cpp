// The OpenCL launches of Det (kernels/Det.cl), a row registered by LaunchesReduce.cpp: one
// work-item per matrix, each factorizing a double copy of its matrix in its own part of the
// scratch.
#include "KernelTable.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

int64_t matrixOrder(const Instruction &I) { return int64_t(I.getInput(0)->getType().dims.back()); }

uint64_t detScratchBytes(const Instruction &I) {
  int64_t m = matrixOrder(I);
  return I.getOutput()->getType().numElements() * uint64_t(m * m) * sizeof(double);
}

Expected<bool> planDet(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  int64_t scratch = int64_t(MemRegion::Activations) << 48 | int64_t(I.scratchOffset);
  return b.add(I, ("det_" + kindSuffix(out.kind)).str(), out.numElements(),
               {placeOf(I.getOutput()), placeOf(I.getInput(0)), scratch, matrixOrder(I)});
}

bool supportsDet(const Node &n) { return isFloatKind(n.getType(0).kind); }

} // namespace

void addReduceDetKernels(KernelTable &t) {
  t.add(NodeKind::Det, supportsDet, planDet, detScratchBytes);
}

} // namespace opencl
} // namespace ember
