// Codegen for Softmax/LogSoftmax, LayerNorm, BatchNorm and Reduce (kernels/Normalization.cpp),
// float32. Each views its tensor as [outer, len, inner] around the axes it works along; Reduce is
// supported when its axes are consecutive (every ReduceX over trailing or leading axes, global
// pooling as a mean), which keeps that view.
#include "CodeGenUtils.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

Error emitSoftmax(Emitter &E, const Instruction &I) {
  const DimsVec &dims = I.getInput(0)->getType().dims;
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  return E.call("ember_softmax_f32",
                {E.out(I), E.in(I, 0), E.i64(dimsProduct(dims, 0, axis)),
                 E.i64(int64_t(dims[axis])), E.i64(dimsProduct(dims, axis + 1, dims.size())),
                 E.i64(I.getKind() == InstrKind::LogSoftmax ? 1 : 0)});
}

Error emitLayerNorm(Emitter &E, const Instruction &I) {
  const DimsVec &dims = I.getInput(ops::LayerNorm::Input)->getType().dims;
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  return E.call("ember_layernorm_f32",
                {E.out(I, ops::LayerNorm::Result), E.out(I, ops::LayerNorm::Mean),
                 E.out(I, ops::LayerNorm::InvStdDev), E.in(I, ops::LayerNorm::Input),
                 E.in(I, ops::LayerNorm::Scale), E.in(I, ops::LayerNorm::Bias),
                 E.i64(dimsProduct(dims, 0, axis)), E.i64(dimsProduct(dims, axis, dims.size())),
                 E.f32(I.attr<AttrKind::Epsilon>())});
}

bool supportsBatchNorm(const Node &n) { return allFloat32(n) && n.getType().rank() >= 2; }

Error emitBatchNorm(Emitter &E, const Instruction &I) {
  const DimsVec &dims = I.getInput(ops::BatchNorm::Input)->getType().dims;
  return E.call("ember_batchnorm_f32",
                {E.out(I), E.in(I, ops::BatchNorm::Input), E.in(I, ops::BatchNorm::Scale),
                 E.in(I, ops::BatchNorm::Bias), E.in(I, ops::BatchNorm::Mean),
                 E.in(I, ops::BatchNorm::Var), E.i64(int64_t(dims[0])), E.i64(int64_t(dims[1])),
                 E.i64(dimsProduct(dims, 2, dims.size())), E.f32(I.attr<AttrKind::Epsilon>())});
}

/// The kernel's ReduceOp numbering, -1 for reductions it lacks.
int64_t reduceOp(StringRef r) {
  return StringSwitch<int64_t>(r)
      .Case("sum", 0)
      .Case("mean", 1)
      .Case("max", 2)
      .Case("min", 3)
      .Case("prod", 4)
      .Case("sum_square", 5)
      .Case("l1", 6)
      .Case("l2", 7)
      .Case("log_sum", 8)
      .Case("log_sum_exp", 9)
      .Default(-1);
}

/// [first, last] of the reduced axes when they are consecutive.
bool consecutiveAxes(ArrayRef<int64_t> axes, int64_t &first, int64_t &last) {
  if (axes.empty())
    return false;
  SmallVector<int64_t, 6> sorted(axes.begin(), axes.end());
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i] != sorted[i - 1] + 1)
      return false;
  first = sorted.front();
  last = sorted.back();
  return true;
}

bool supportsReduce(const Node &n) {
  int64_t first, last;
  return allFloat32(n) && reduceOp(n.attr<AttrKind::Reduction>()) >= 0 &&
         consecutiveAxes(n.attr<AttrKind::Axes>(), first, last);
}

Error emitReduce(Emitter &E, const Instruction &I) {
  const DimsVec &dims = I.getInput(0)->getType().dims;
  int64_t first, last, op = reduceOp(I.attr<AttrKind::Reduction>());
  if (op < 0 || !consecutiveAxes(I.attr<AttrKind::Axes>(), first, last))
    return instrError(I, "no CPU kernel for this reduction");
  return E.call("ember_reduce_f32",
                {E.out(I), E.in(I, 0), E.i64(dimsProduct(dims, 0, size_t(first))),
                 E.i64(dimsProduct(dims, size_t(first), size_t(last) + 1)),
                 E.i64(dimsProduct(dims, size_t(last) + 1, dims.size())), E.i64(op)});
}

} // namespace

void addNormalizationKernels(KernelTable &t) {
  t.add(NodeKind::Softmax, allFloat32, emitSoftmax);
  t.add(NodeKind::LogSoftmax, allFloat32, emitSoftmax);
  t.add(NodeKind::LayerNorm, allFloat32, emitLayerNorm);
  t.add(NodeKind::BatchNorm, supportsBatchNorm, emitBatchNorm);
  t.add(NodeKind::Reduce, supportsReduce, emitReduce);
}

} // namespace cpu
} // namespace ember
