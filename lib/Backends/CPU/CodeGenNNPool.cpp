// Codegen for pooling: MaxPool and AvgPool on float32, and MaxPool without indices on int8 and
// uint8, with 1-D or 2-D spatial dims go to the fast kernels (kernels/NNPool.cpp); every other shape and kind the Interpreter pools goes to the
// generic N-D kernels (kernels/NNPoolGeneric.cpp), as does LpPool; MaxUnpool and MaxRoiPool have
// their own kernels (kernels/NNPoolUnpool.cpp), which report bad indices and regions at run time.
#include "CodeGenNN.h"

#include "kernels/QuantizedLayout.h"
#include "kernels/Scratch.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// Whether \p I's input and result are float32 with 1 or 2 spatial dims (the fast kernels).
/// The fast average pool's direct loop walks undilated windows only, so a dilated AvgPool
/// (ONNX AveragePool-19, rare) takes the generic kernel.
bool fastPool(const Instruction &I) {
  if (I.getKind() == InstrKind::AvgPool)
    for (int64_t d : I.attr<AttrKind::Dilations>())
      if (d != 1)
        return false;
  return I.getOutput()->getType().kind == ElemKind::Float32 &&
         fastRank(I.getInput(0)->getType().rank());
}

/// Whether \p I is an int8 or uint8 max pool with 1 or 2 spatial dims whose indices nobody
/// reads (kernels/NNPool.cpp: ember_maxpool_i8 and _u8, one row of scratch a thread).
bool fastIntMaxPool(const Instruction &I, const Emitter *E) {
  ElemKind k = I.getOutput()->getType().kind;
  return I.getKind() == InstrKind::MaxPool && (k == ElemKind::Int8 || k == ElemKind::UInt8) &&
         fastRank(I.getInput(0)->getType().rank()) &&
         (!E || !E->isRead(I.getOutput(ops::MaxPool::Indices)));
}

/// The fast kernels' PoolShape (kernels/NNPool.cpp).
SmallVector<int64_t, 17> poolParams(const Instruction &I, const Window2D &w, int64_t countPad,
                                    int64_t colMajor) {
  const DimsVec &in = I.getInput(0)->getType().dims;
  return {int64_t(in[0] * in[1]), w.H,  w.W,     w.OH,     w.OW,     w.KH,   w.KW,
          w.SH,                   w.SW, w.PH,    w.PW,     w.DH,     w.DW,   w.PHEnd,
          w.PWEnd,                countPad, colMajor};
}

/// A window over the whole plane with no padding: one mean per plane.
bool isGlobalAvgPool(const Window2D &w) {
  return w.KH == w.H && w.KW == w.W && w.OH == 1 && w.OW == 1 && w.PH == 0 && w.PW == 0 &&
         w.PHEnd == 0 && w.PWEnd == 0;
}

/// The generic kernels' parameters (kernels/NNPoolGeneric.cpp, PoolNd): n, planes, then per spatial
/// axis input dims, output dims, kernels, strides, begin pads, end pads, dilations.
std::vector<int64_t> poolNdParams(const Instruction &I) {
  const DimsVec &in = I.getInput(0)->getType().dims, &out = I.getOutput()->getType().dims;
  size_t n = in.size() - 2;
  std::vector<int64_t> p = {int64_t(n), int64_t(in[0] * in[1])};
  for (const DimsVec *d : {&in, &out})
    for (size_t a = 0; a < n; ++a)
      p.push_back(int64_t((*d)[2 + a]));
  const std::vector<int64_t> &kernels = I.attr<AttrKind::Kernels>(),
                             &strides = I.attr<AttrKind::Strides>(),
                             &pads = I.attr<AttrKind::Pads>();
  p.insert(p.end(), kernels.begin(), kernels.begin() + n);
  p.insert(p.end(), strides.begin(), strides.begin() + n);
  p.insert(p.end(), pads.begin(), pads.begin() + 2 * n);
  const std::vector<int64_t> &dilations = I.attr<AttrKind::Dilations>();
  p.insert(p.end(), dilations.begin(), dilations.begin() + n);
  return p;
}

/// Input and result of one kind, a channels-first rank the generic kernels walk.
bool poolShapeOk(const Node &n) {
  return n.getOperand(0).getType().kind == n.getType(0).kind &&
         genericRankOk(n.getOperand(0).getType().rank());
}

/// MaxPool: the float kinds, int8 and uint8 (as the Interpreter).
bool supportsMaxPool(const Node &n) {
  ElemKind k = n.getType(ops::MaxPool::Result).kind;
  return (isFloatKind(k) || k == ElemKind::Int8 || k == ElemKind::UInt8) && poolShapeOk(n);
}

Error emitMaxPool(Emitter &E, const Instruction &I) {
  int64_t colMajor = I.attr<AttrKind::StorageOrder>() != 0;
  if (fastIntMaxPool(I, &E)) {
    Window2D w = window(I, I.attr<AttrKind::Kernels>(), I.attr<AttrKind::Strides>(),
                        I.attr<AttrKind::Pads>(), I.attr<AttrKind::Dilations>());
    return E.call(kernelFor("ember_maxpool", I.getOutput()->getType().kind),
                  {E.out(I, ops::MaxPool::Result), E.in(I, ops::MaxPool::Input),
                   E.constArray(poolParams(I, w, 0, 0), "maxpool"), E.scratch(I), E.team()});
  }
  if (!fastPool(I))
    return E.call(kernelFor("ember_maxpool_nd", I.getOutput()->getType().kind),
                  {E.out(I, ops::MaxPool::Result), E.out(I, ops::MaxPool::Indices),
                   E.in(I, ops::MaxPool::Input), E.constArray(poolNdParams(I), "maxpool"),
                   E.i64(colMajor)});
  Window2D w = window(I, I.attr<AttrKind::Kernels>(), I.attr<AttrKind::Strides>(),
                      I.attr<AttrKind::Pads>(), I.attr<AttrKind::Dilations>());
  auto params = poolParams(I, w, 0, colMajor);
  // Most models never read the indices: the kernel then only takes maxima.
  const IRValue *indices = I.getOutput(ops::MaxPool::Indices);
  return E.call("ember_maxpool_f32",
                {E.out(I, ops::MaxPool::Result),
                 E.isRead(indices) ? E.addr(indices) : E.nullPtr(),
                 E.in(I, ops::MaxPool::Input), E.constArray(params, "maxpool"), E.scratch(I),
                 E.team()});
}

/// AvgPool and LpPool: the float kinds.
bool supportsSumPool(const Node &n) { return isFloatKind(n.getType(0).kind) && poolShapeOk(n); }

Error emitAvgPool(Emitter &E, const Instruction &I) {
  int64_t countPad = I.attr<AttrKind::CountIncludePad>() != 0;
  if (!fastPool(I))
    return E.call(kernelFor("ember_avgpool_nd", I.getOutput()->getType().kind),
                  {E.out(I), E.in(I, ops::AvgPool::Input),
                   E.constArray(poolNdParams(I), "avgpool"), E.i64(countPad)});
  Window2D w = window(I, I.attr<AttrKind::Kernels>(), I.attr<AttrKind::Strides>(),
                      I.attr<AttrKind::Pads>(), {});
  const DimsVec &in = I.getInput(0)->getType().dims;
  if (isGlobalAvgPool(w)) {
    // Its planes split over the team: efficientnet_b0's squeeze-and-excitation blocks average
    // up to 1.6 MB each, which the other core's convolution has just written.
    const int64_t planes = int64_t(in[0] * in[1]), plane = w.H * w.W;
    const int64_t parts = std::min(planes, E.partsMoving(planes * plane));
    return E.onTeamParts(parts, [&](int64_t p) -> Error {
      auto [p0, p1] = scratch::partRange(planes, parts, 1, p);
      if (p0 >= p1)
        return Error::success();
      return E.call("ember_global_avgpool_f32", {E.advance(E.out(I), p0 * 4),
                                                 E.advance(E.in(I, 0), p0 * plane * 4),
                                                 E.i64(p1 - p0), E.i64(plane)});
    });
  }
  auto params = poolParams(I, w, countPad, 0);
  return E.call("ember_avgpool_f32", {E.out(I), E.in(I, ops::AvgPool::Input),
                                       E.constArray(params, "avgpool"), E.scratch(I), E.team()});
}

/// The working memory of the fast kernels' max pools without indices (a row, or phase planes
/// where a window may hold no real cell) and average pools (phase planes), one per thread.
uint64_t poolScratch(const Instruction &I, int64_t threads) {
  uint64_t parts = uint64_t(threads < 1 ? 1 : threads);
  // Whether the indices are read is the emitter's to know: the plan keeps the row regardless.
  if (fastIntMaxPool(I, nullptr)) {
    Window2D w = window(I, I.attr<AttrKind::Kernels>(), I.attr<AttrKind::Strides>(),
                        I.attr<AttrKind::Pads>(), I.attr<AttrKind::Dilations>());
    return uint64_t(quantlayout::intMaxPoolRowBytes(w.W, w.OW, w.KW, w.SW, w.PW, w.DW)) * parts;
  }
  if (!fastPool(I))
    return 0;
  // A max pool whose indices are read does not use it; whether they are is the emitter's to
  // know, so the memory plan keeps it for every max pool.
  bool isMax = I.getKind() == InstrKind::MaxPool;
  Window2D w = window(I, I.attr<AttrKind::Kernels>(), I.attr<AttrKind::Strides>(),
                      I.attr<AttrKind::Pads>(),
                      isMax ? I.attr<AttrKind::Dilations>() : std::vector<int64_t>{});
  if (!isMax && isGlobalAvgPool(w))
    return 0;
  int64_t perPart =
      isMax ? scratch::maxPoolScratchFloats(w.W, w.OH, w.OW, w.KH, w.KW, w.SH, w.SW, w.PW, w.DH,
                                            w.DW)
            : scratch::poolScratchFloats(w.OH, w.OW, w.KH, w.KW, w.SH, w.SW, w.DH, w.DW);
  return uint64_t(perPart) * parts * sizeof(float);
}

Error emitLpPool(Emitter &E, const Instruction &I) {
  return E.call(kernelFor("ember_lppool_nd", I.getOutput()->getType().kind),
                {E.out(I), E.in(I, ops::LpPool::Input),
                 E.constArray(poolNdParams(I), "lppool"), E.f32(I.attr<AttrKind::P>())});
}

/// MaxUnpool: float values, int64 indices.
bool supportsMaxUnpool(const Node &n) {
  ElemKind k = n.getType(0).kind;
  return isFloatKind(k) && n.getOperand(ops::MaxUnpool::Input).getType().kind == k &&
         n.getOperand(ops::MaxUnpool::Indices).getType().kind == ElemKind::Int64;
}

Error emitMaxUnpool(Emitter &E, const Instruction &I) {
  const std::vector<int64_t> &unpooled = I.attr<AttrKind::Dims>();
  const std::vector<int64_t> &pads = I.attr<AttrKind::Pads>();
  const DimsVec &out = I.getOutput()->getType().dims;
  size_t n = out.size() - 2;
  int64_t unpooledPlane = 1;
  for (size_t a = 0; a < n; ++a)
    unpooledPlane *= unpooled[2 + a];
  // n, input elements, output elements, unpooled elements, unpooled plane, output plane, then per
  // spatial axis the unpooled dims, the output's strides and the begin pads.
  std::vector<int64_t> p = {int64_t(n),
                            numElements(I.getInput(ops::MaxUnpool::Input)),
                            numElements(I.getOutput()),
                            unpooled[0] * unpooled[1] * unpooledPlane,
                            unpooledPlane,
                            dimsProduct(out, 2, out.size())};
  p.insert(p.end(), unpooled.begin() + 2, unpooled.end());
  auto strides = rowMajorStrides(ArrayRef<dim_t>(out).drop_front(2));
  p.insert(p.end(), strides.begin(), strides.end());
  p.insert(p.end(), pads.begin(), pads.begin() + n);
  return E.callChecked(kernelFor("ember_maxunpool", I.getOutput()->getType().kind),
                       {E.out(I), E.in(I, ops::MaxUnpool::Input), E.in(I, ops::MaxUnpool::Indices),
                        E.constArray(p, "maxunpool")},
                       I, "an index is out of range for unpooled dims " + intsToString(unpooled));
}

/// MaxRoiPool: input and regions of one float kind, a 2-D input.
bool supportsMaxRoiPool(const Node &n) {
  return floatNode(n) && n.getOperand(ops::MaxRoiPool::Input).getType().rank() == 4;
}

Error emitMaxRoiPool(Emitter &E, const Instruction &I) {
  const DimsVec &in = I.getInput(ops::MaxRoiPool::Input)->getType().dims;
  const DimsVec &out = I.getOutput()->getType().dims;
  ElemKind kind = I.getOutput()->getType().kind;
  std::vector<int64_t> p = {int64_t(in[0]),  int64_t(in[1]),  int64_t(in[2]), int64_t(in[3]),
                            int64_t(out[2]), int64_t(out[3]), int64_t(out[0])};
  Value *params = E.constArray(p, "maxroipool");
  Value *rois = E.in(I, ops::MaxRoiPool::Rois);
  // The batch indices first, so that the pooling kernel may trust them: its own failures are then
  // the coordinates.
  EMBER_TRY(E.callChecked(kernelFor("ember_maxroipool_check", kind), {rois, params}, I,
                          "a region's batch index is not an integer in [0, " +
                              std::to_string(in[0]) + ")"));
  return E.callChecked(kernelFor("ember_maxroipool", kind),
                       {E.out(I), E.in(I, ops::MaxRoiPool::Input), rois, params,
                        E.f32(I.attr<AttrKind::SpatialScale>())},
                       I, "a region coordinate times spatial_scale is not finite or beyond 2^40");
}

} // namespace

void addNNPoolKernels(KernelTable &t) {
  t.add(NodeKind::MaxPool, supportsMaxPool, emitMaxPool, poolScratch);
  t.add(NodeKind::AvgPool, supportsSumPool, emitAvgPool, poolScratch);
  t.add(NodeKind::LpPool, supportsSumPool, emitLpPool);
  t.add(NodeKind::MaxUnpool, supportsMaxUnpool, emitMaxUnpool);
  t.add(NodeKind::MaxRoiPool, supportsMaxRoiPool, emitMaxRoiPool);
}

} // namespace cpu
} // namespace ember
