// Codegen for the normalizations (kernels/Normalization.cpp, kernels/NormalizationGeneric.cpp),
// every float kind: Softmax/LogSoftmax/Hardmax along one axis, BatchNorm (inference and
// training), InstanceNorm, LayerNorm, MeanVarNorm and LRN. Each views its tensor as
// [outer, len, inner] around the axes it works along (MeanVarNorm: a ReduceView).
//
// float32 Softmax/LogSoftmax, LayerNorm with float32 statistics and BatchNorm with float32
// parameters take the vectorized float kernels that transformers and CNNs spend their time in;
// the rest computes in double as the Interpreter does.
#include "CodeGenReduce.h"
#include "kernels/Scratch.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

bool supportsFloat(const Node &n) { return isFloatKind(n.getType(0).kind); }

Error emitAlongAxis(Emitter &E, const Instruction &I) {
  const Type &x = I.getInput(0)->getType();
  const DimsVec &dims = x.dims;
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  int64_t outer = dimsProduct(dims, 0, axis), len = int64_t(dims[axis]),
          inner = dimsProduct(dims, axis + 1, dims.size());
  InstrKind k = I.getKind();
  if (x.kind == ElemKind::Float32 && k != InstrKind::Hardmax)
    return E.call("ember_softmax_f32",
                  {E.out(I), E.in(I, 0), E.i64(outer), E.i64(len), E.i64(inner),
                   E.i64(k == InstrKind::LogSoftmax ? 1 : 0), E.team()});
  int64_t how = k == InstrKind::Softmax ? 0 : k == InstrKind::LogSoftmax ? 1 : 2;
  return E.call(kernelFor("ember_along_axis", x.kind),
                {E.out(I), E.in(I, 0), E.i64(outer), E.i64(len), E.i64(inner), E.i64(how)});
}

Error emitLayerNorm(Emitter &E, const Instruction &I) {
  const Type &x = I.getInput(ops::LayerNorm::Input)->getType();
  ElemKind stash = I.getOutput(ops::LayerNorm::Mean)->getType().kind;
  size_t axis = size_t(I.attr<AttrKind::Axis>());
  int64_t rows = dimsProduct(x.dims, 0, axis), block = dimsProduct(x.dims, axis, x.dims.size());
  if (x.kind == ElemKind::Float32 && stash == ElemKind::Float32)
    return E.call("ember_layernorm_f32",
                  {E.out(I, ops::LayerNorm::Result), E.out(I, ops::LayerNorm::Mean),
                   E.out(I, ops::LayerNorm::InvStdDev), E.in(I, ops::LayerNorm::Input),
                   E.in(I, ops::LayerNorm::Scale), E.in(I, ops::LayerNorm::Bias), E.i64(rows),
                   E.i64(block), E.f32(I.attr<AttrKind::Epsilon>()), E.team()});
  return E.call(kernelFor("ember_layernorm_any", x.kind),
                {E.out(I, ops::LayerNorm::Result), E.out(I, ops::LayerNorm::Mean),
                 E.out(I, ops::LayerNorm::InvStdDev), E.i64(floatCode(stash)),
                 E.in(I, ops::LayerNorm::Input), E.in(I, ops::LayerNorm::Scale),
                 E.in(I, ops::LayerNorm::Bias), E.i64(rows), E.i64(block),
                 E.f32(I.attr<AttrKind::Epsilon>())});
}

bool allInputsFloat32(const Instruction &I) {
  for (unsigned i = 0; i < I.getNumInputs(); ++i)
    if (I.getInput(i)->getType().kind != ElemKind::Float32)
      return false;
  return true;
}

/// The kinds of the four per-channel operands (Scale, Bias, Mean, Var) as FloatCodes.
SmallVector<Value *, 4> channelCodes(Emitter &E, const Instruction &I, unsigned first,
                                     unsigned count) {
  SmallVector<Value *, 4> codes;
  for (unsigned i = first; i < first + count; ++i)
    codes.push_back(E.i64(floatCode(I.getInput(i)->getType().kind)));
  return codes;
}

Error emitBatchNormThen(Emitter &E, const Instruction &I, bool relu) {
  const Type &x = I.getInput(ops::BatchNorm::Input)->getType();
  const DimsVec &dims = x.dims;
  const int64_t images = int64_t(dims[0]), channels = int64_t(dims[1]);
  const int64_t plane = dimsProduct(dims, 2, dims.size());
  Value *inner = E.i64(plane), *eps = E.f32(I.attr<AttrKind::Epsilon>());
  if (allInputsFloat32(I)) {
    // Split over the team by channels (one image) or images: a pass over memory that, on one
    // thread, read what the other core's convolution wrote (densenet121 normalizes each
    // layer's concatenation, 0.6 MB to 3 MB).
    const bool byImages = images > 1;
    const int64_t units = byImages ? images : channels;
    const int64_t parts = std::min(units, E.partsMoving(2 * images * channels * plane));
    return E.onTeamParts(parts, [&](int64_t p) -> Error {
      auto [u0, u1] = scratch::partRange(units, parts, 1, p);
      if (u0 >= u1)
        return Error::success();
      int64_t at = (byImages ? u0 * channels : u0) * plane * 4, channel = byImages ? 0 : u0 * 4;
      auto perChannel = [&](unsigned operand) { return E.advance(E.in(I, operand), channel); };
      return E.call("ember_batchnorm_f32",
                    {E.advance(E.out(I), at), E.advance(E.in(I, ops::BatchNorm::Input), at),
                     perChannel(ops::BatchNorm::Scale), perChannel(ops::BatchNorm::Bias),
                     perChannel(ops::BatchNorm::Mean), perChannel(ops::BatchNorm::Var),
                     E.i64(byImages ? u1 - u0 : 1), E.i64(byImages ? channels : u1 - u0),
                     inner, eps, E.i64(relu)});
    });
  }
  SmallVector<Value *, 16> args = {E.out(I),
                                   E.in(I, ops::BatchNorm::Input),
                                   E.in(I, ops::BatchNorm::Scale),
                                   E.in(I, ops::BatchNorm::Bias),
                                   E.in(I, ops::BatchNorm::Mean),
                                   E.in(I, ops::BatchNorm::Var)};
  args.append(channelCodes(E, I, ops::BatchNorm::Scale, 4));
  args.append({E.i64(images), E.i64(channels), inner, eps});
  return E.call(kernelFor("ember_batchnorm_any", x.kind), args);
}

Error emitBatchNorm(Emitter &E, const Instruction &I) { return emitBatchNormThen(E, I, false); }

Error emitBatchNormTraining(Emitter &E, const Instruction &I) {
  namespace B = ops::BatchNormTraining;
  const Type &x = I.getInput(B::Input)->getType();
  const DimsVec &dims = x.dims;
  SmallVector<Value *, 20> args = {E.out(I, B::Result), E.out(I, B::RunningMean),
                                   E.out(I, B::RunningVar), E.in(I, B::Input),
                                   E.in(I, B::Scale),       E.in(I, B::Bias),
                                   E.in(I, B::Mean),        E.in(I, B::Var)};
  args.append(channelCodes(E, I, B::Scale, 4));
  args.append({E.i64(int64_t(dims[0])), E.i64(int64_t(dims[1])),
               E.i64(dimsProduct(dims, 2, dims.size())), E.f32(I.attr<AttrKind::Epsilon>()),
               E.f32(I.attr<AttrKind::Momentum>())});
  return E.call(kernelFor("ember_batchnorm_training", x.kind), args);
}

Error emitInstanceNorm(Emitter &E, const Instruction &I) {
  namespace In = ops::InstanceNorm;
  const Type &x = I.getInput(In::Input)->getType();
  const DimsVec &dims = x.dims;
  SmallVector<Value *, 12> args = {E.out(I), E.in(I, In::Input), E.in(I, In::Scale),
                                   E.in(I, In::Bias)};
  args.append(channelCodes(E, I, In::Scale, 2));
  args.append({E.i64(int64_t(dims[0])), E.i64(int64_t(dims[1])),
               E.i64(dimsProduct(dims, 2, dims.size())), E.f32(I.attr<AttrKind::Epsilon>())});
  return E.call(kernelFor("ember_instancenorm", x.kind), args);
}

bool supportsMeanVarNorm(const Node &n) {
  return supportsFloat(n) && n.getType(0).rank() <= kMaxReduceRank;
}

uint64_t meanVarNormScratch(const Instruction &I, int64_t /*threads*/) {
  ReduceView v = makeReduceView(I.getInput(0)->getType().dims, I.attr<AttrKind::Axes>());
  return uint64_t(v.groups) * 2 * 8;
}

Error emitMeanVarNorm(Emitter &E, const Instruction &I) {
  const Type &x = I.getInput(ops::MeanVarNorm::Input)->getType();
  ReduceView v = makeReduceView(x.dims, I.attr<AttrKind::Axes>());
  return E.call(kernelFor("ember_meanvarnorm", x.kind),
                {E.out(I), E.in(I, ops::MeanVarNorm::Input), E.scratch(I),
                 E.i64(int64_t(v.dims.size())), E.constArray(v.dims, "dims"),
                 E.constArray(v.groupStrides, "gstrides"), E.i64(v.groups), E.i64(v.count),
                 E.f32(I.attr<AttrKind::Epsilon>())});
}

Error emitLRN(Emitter &E, const Instruction &I) {
  const Type &x = I.getInput(ops::LRN::Input)->getType();
  const DimsVec &dims = x.dims;
  return E.call(kernelFor("ember_lrn", x.kind),
                {E.out(I), E.in(I, ops::LRN::Input), E.i64(int64_t(dims[0])),
                 E.i64(int64_t(dims[1])), E.i64(dimsProduct(dims, 2, dims.size())),
                 E.i64(I.attr<AttrKind::Size>()), E.f32(I.attr<AttrKind::Alpha>()),
                 E.f32(I.attr<AttrKind::Beta>()), E.f32(I.attr<AttrKind::Bias>())});
}

} // namespace

bool batchNormTakesRelu(const Instruction &bn, const Instruction &next) {
  if (bn.getKind() != InstrKind::BatchNorm || next.getKind() != InstrKind::Relu ||
      !allInputsFloat32(bn) || bn.getOutput()->getType() != next.getOutput()->getType())
    return false;
  auto same = [](IRValue *a, IRValue *b) {
    ValueRoot x = rootOf(a), y = rootOf(b);
    return x.root == y.root && x.offset == y.offset;
  };
  return same(next.getInput(0), bn.getOutput()) && same(next.getOutput(), bn.getOutput());
}

Error emitBatchNormRelu(Emitter &E, const Instruction &bn) {
  return emitBatchNormThen(E, bn, true);
}

void addNormalizationKernels(KernelTable &t) {
  t.add(NodeKind::Softmax, supportsFloat, emitAlongAxis);
  t.add(NodeKind::LogSoftmax, supportsFloat, emitAlongAxis);
  t.add(NodeKind::Hardmax, supportsFloat, emitAlongAxis);
  t.add(NodeKind::LayerNorm, supportsFloat, emitLayerNorm);
  t.add(NodeKind::BatchNorm, supportsFloat, emitBatchNorm);
  t.add(NodeKind::BatchNormTraining, supportsFloat, emitBatchNormTraining);
  t.add(NodeKind::InstanceNorm, supportsFloat, emitInstanceNorm);
  t.add(NodeKind::MeanVarNorm, supportsMeanVarNorm, emitMeanVarNorm, meanVarNormScratch);
  t.add(NodeKind::LRN, supportsFloat, emitLRN);
}

} // namespace cpu
} // namespace ember
