// The OpenCL launches of EmbeddingBag (kernels/EmbeddingBag.cl), a row registered by
// LaunchesReduce.cpp: one work-item per result element (and one checking the lengths), the
// kernel evaluating ember/Semantics/EmbeddingBag.h.
#include "KernelTable.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

Expected<bool> planEmbeddingBag(LaunchBuilder &b, const Instruction &I) {
  namespace Op = ops::EmbeddingBag;
  const Type &out = I.getOutput()->getType();
  int64_t segments = int64_t(out.dims[0]), count = int64_t(out.numElements());
  int64_t rows = int64_t(I.getInput(Op::Data)->getType().dims[0]);
  int64_t numIndices = int64_t(I.getInput(Op::Indices)->getType().dims[0]);
  bool i64 = I.getInput(Op::Indices)->getType().kind == ElemKind::Int64;
  std::vector<int64_t> p = {placeOf(I.getOutput()),
                            placeOf(I.getInput(Op::Data)),
                            placeOf(I.getInput(Op::Indices)),
                            placeOf(I.getInput(Op::Lengths)),
                            I.getNumInputs() > Op::Weights ? placeOf(I.getInput(Op::Weights)) : -1,
                            rows,
                            segments,
                            numIndices,
                            segments ? count / segments : 0,
                            I.attr<AttrKind::Reduction>() == "mean"};
  return b.add(I, "embag_" + I.attr<AttrKind::Mode>() + (i64 ? "_i64" : "_i32"), count + 1, p,
               kDefaultGroup,
               "the lengths do not add up to the " + std::to_string(numIndices) +
                   " indices, or an index is not in [0, " + std::to_string(rows) + ")");
}

bool supportsEmbeddingBag(const Node &) { return true; } // the shape rule admits what it runs

} // namespace

void addReduceEmbeddingBagKernels(KernelTable &t) {
  t.add(NodeKind::EmbeddingBag, supportsEmbeddingBag, planEmbeddingBag);
}

} // namespace opencl
} // namespace ember
