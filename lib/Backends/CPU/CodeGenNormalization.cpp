// Codegen for Softmax/LogSoftmax, LayerNorm and BatchNorm (kernels/Normalization.cpp), float32.
// Each views its tensor as [outer, len, inner] around the axes it works along.
#include "CodeGenUtils.h"

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

} // namespace

void addNormalizationKernels(KernelTable &t) {
  t.add(NodeKind::Softmax, allFloat32, emitSoftmax);
  t.add(NodeKind::LogSoftmax, allFloat32, emitSoftmax);
  t.add(NodeKind::LayerNorm, allFloat32, emitLayerNorm);
  t.add(NodeKind::BatchNorm, supportsBatchNorm, emitBatchNorm);
}

} // namespace cpu
} // namespace ember
