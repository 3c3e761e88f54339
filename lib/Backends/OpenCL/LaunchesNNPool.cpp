// The OpenCL launches of the pools (kernels/NNPool.cl): MaxPool, AvgPool and LpPool over N-D
// windows (float32 2-D MaxPool and AvgPool on the blocked kernels, a row's outputs 8 at a time),
// and MaxRoiPool. Part of the NN family: addNNKernels (LaunchesNN.cpp) registers these rows;
// MaxUnpool, a scatter, is planned with the indexed kinds (LaunchesIndexed.cpp).
#include "KernelTable.h"

#include "ember/Support/Error.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// Outputs along a row per work-item of the 2-D float32 pools (NNPool.cl's POOL_BLOCK), and
/// their work-group size.
constexpr int64_t kPoolBlock = 8;
constexpr size_t kPoolGroup = 8;

/// A float32 MaxPool or AvgPool over 2-D windows: maxpool2d_f32 and avgpool2d_f32, or
/// global_avgpool_f32 for an AvgPool of one window covering its input.
Expected<bool> planPool2D(LaunchBuilder &b, const Instruction &I) {
  const Type &xt = I.getInput(0)->getType(), &yt = I.getOutput()->getType();
  const auto &k = I.attr<AttrKind::Kernels>(), &s = I.attr<AttrKind::Strides>(),
             &pd = I.attr<AttrKind::Pads>();
  bool isMax = I.getKind() == InstrKind::MaxPool;
  int64_t H = int64_t(xt.dims[2]), W = int64_t(xt.dims[3]);
  int64_t OH = int64_t(yt.dims[2]), OW = int64_t(yt.dims[3]);
  uint64_t planes = yt.dims[0] * yt.dims[1];
  int64_t y = placeOf(I.getOutput()), x = placeOf(I.getInput(0));
  if (!isMax && OH == 1 && OW == 1 && k[0] == H && k[1] == W &&
      std::all_of(pd.begin(), pd.end(), [](int64_t p) { return p == 0; }))
    return b.add(I, "global_avgpool_f32", planes, {y, x, H * W}, kPoolGroup);
  int64_t blocks = (OW + kPoolBlock - 1) / kPoolBlock;
  std::vector<int64_t> p = {y, x};
  if (isMax)
    // Indices nothing reads (a CNN's max pools) are not computed: -1.
    p.insert(p.end(), {b.unreadAfter(I.getOutput(1)) ? -1 : placeOf(I.getOutput(1)),
                       I.attr<AttrKind::StorageOrder>(), 0});
  else
    p.insert(p.end(), {-1, 0, I.attr<AttrKind::CountIncludePad>() ? 1 : 0});
  // An AvgPool comes here undilated (planNNPool).
  const auto &dl = I.attr<AttrKind::Dilations>();
  p.insert(p.end(), {H, W, OH, OW, k[0], k[1], s[0], s[1], pd[0], pd[1], pd[2], pd[3], dl[0],
                     dl[1], blocks});
  return b.add(I, isMax ? "maxpool2d_f32" : "avgpool2d_f32", planes * OH * uint64_t(blocks), p,
               kPoolGroup);
}

Expected<bool> planNNPool(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  int64_t y = placeOf(I.getOutput());
  std::string suffix = kindSuffix(out.kind).str();
  switch (I.getKind()) {
  case InstrKind::MaxPool:
  case InstrKind::AvgPool:
  case InstrKind::LpPool: {
    const Type &xt = I.getInput(0)->getType();
    const auto &k = I.attr<AttrKind::Kernels>(), &s = I.attr<AttrKind::Strides>(),
               &pd = I.attr<AttrKind::Pads>();
    size_t ns = xt.dims.size() - 2;
    bool isMax = I.getKind() == InstrKind::MaxPool;
    const auto &dl = I.attr<AttrKind::Dilations>();
    // avgpool2d_f32 walks undilated windows only: a dilated AvgPool (ONNX AveragePool-19) takes
    // sumpool_f32.
    bool dilated = std::any_of(dl.begin(), dl.end(), [](int64_t d) { return d != 1; });
    if (ns == 2 && out.kind == ElemKind::Float32 && I.getKind() != InstrKind::LpPool &&
        (isMax || !dilated))
      return planPool2D(b, I);
    // [y, x, indices, storage order, sum mode, p bits, spatial rank] (NNPool.cl).
    std::vector<int64_t> p;
    if (isMax)
      p = {y, in(0), placeOf(I.getOutput(1)), I.attr<AttrKind::StorageOrder>(), 0, 0};
    else if (I.getKind() == InstrKind::AvgPool)
      p = {y, in(0), -1, 0, I.attr<AttrKind::CountIncludePad>() ? 1 : 0, 0};
    else
      p = {y, in(0), -1, 0, 2, floatBits(I.attr<AttrKind::P>())};
    p.push_back(int64_t(ns));
    for (size_t d = 0; d < ns; ++d)
      p.insert(p.end(), {int64_t(xt.dims[2 + d]), int64_t(out.dims[2 + d]), k[d], s[d], pd[d],
                         pd[ns + d], dl[d]});
    return b.add(I, (isMax ? "maxpool_" : "sumpool_") + suffix, n, p);
  }
  case InstrKind::MaxRoiPool: {
    const Type &xt = I.getInput(0)->getType();
    return b.add(I, "maxroipool_" + suffix, n,
                 {y, in(0), in(1), floatBits(I.attr<AttrKind::SpatialScale>()),
                  int64_t(xt.dims[0]), int64_t(xt.dims[1]), int64_t(xt.dims[2]),
                  int64_t(xt.dims[3]), int64_t(out.dims[2]), int64_t(out.dims[3])},
                 kDefaultGroup, "a region's batch index or coordinate is out of range");
  }
  default:
    return false;
  }
}

bool supportsNNPool(const Node &n) {
  ElemKind k = n.getType(0).kind;
  // The window kernels keep a position per spatial axis, up to MAX_RANK (Common.cl) of them.
  bool window = n.getOperand(0).getType().kind == k && n.getType(0).rank() <= 2 + 6;
  switch (n.getKind()) {
  case NodeKind::MaxPool:
    return window && (isFloatKind(k) || k == ElemKind::Int8 || k == ElemKind::UInt8);
  case NodeKind::AvgPool:
  case NodeKind::LpPool:
    return window && isFloatKind(k);
  case NodeKind::MaxRoiPool:
    return isFloatKind(k) && n.getOperand(0).getType().kind == k &&
           n.getOperand(1).getType().kind == k;
  default:
    return false;
  }
}

} // namespace

void addNNPoolKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::MaxPool, NodeKind::AvgPool, NodeKind::LpPool, NodeKind::MaxRoiPool})
    t.add(k, supportsNNPool, planNNPool);
}

} // namespace opencl
} // namespace ember
