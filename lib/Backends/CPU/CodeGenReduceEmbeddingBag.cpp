// Codegen for EmbeddingBag (kernels/ReduceEmbeddingBag.cpp): one kernel per table layout and
// index kind; codegen passes the shapes and names the run-time errors Caffe2 enforces.
#include "CodeGenUtils.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

bool supportsEmbeddingBag(const Node &) { return true; } // the shape rule admits what it runs

Error emitEmbeddingBag(Emitter &E, const Instruction &I) {
  namespace Op = ops::EmbeddingBag;
  const Type &data = I.getInput(Op::Data)->getType(), &out = I.getOutput()->getType();
  int64_t segments = int64_t(out.dims[0]);
  std::vector<int64_t> p = {int64_t(data.dims[0]), segments,
                            int64_t(I.getInput(Op::Indices)->getType().dims[0]),
                            segments ? int64_t(out.numElements()) / segments : 0,
                            I.attr<AttrKind::Reduction>() == "mean"};
  bool i64 = I.getInput(Op::Indices)->getType().kind == ElemKind::Int64;
  std::string name = "ember_embag_" + I.attr<AttrKind::Mode>() + (i64 ? "_i64" : "_i32");
  Value *weights = I.getNumInputs() > Op::Weights ? E.in(I, Op::Weights) : E.nullPtr();
  return E.callChecked(name,
                       {E.out(I), E.in(I, Op::Data), E.in(I, Op::Indices),
                        E.in(I, Op::Lengths), weights, E.constArray(p, "embag")},
                       I,
                       "the lengths do not add up to the " + std::to_string(p[2]) +
                           " indices, or an index is not in [0, " + std::to_string(p[0]) + ")");
}

} // namespace

void addReduceEmbeddingBagKernels(KernelTable &t) {
  t.add(NodeKind::EmbeddingBag, supportsEmbeddingBag, emitEmbeddingBag);
}

} // namespace cpu
} // namespace ember
