// The OpenCL launches of the normalizations (kernels/Normalization.cl): BatchNorm inference and
// training, InstanceNorm, LayerNorm, MeanVarNorm, LRN, Softmax and LogSoftmax, on every float
// kind (float32 inference BatchNorm a block of a channel's plane per work-item). Hardmax runs
// with the selections (LaunchesSelection.cpp).
#include "KernelTable.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

namespace {

/// The work-group size of the kernels that compute a block of elements per work-item.
constexpr size_t kBlockGroup = 8;

/// A moments_norm launch (see Normalization.cl): statistics over the \p reduced axes.
Expected<bool> planMoments(LaunchBuilder &b, const Instruction &I, int64_t mode,
                           ArrayRef<bool> reduced) {
  ArrayRef<dim_t> dims = I.getInput(0)->getType().dims;
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  auto kindIn = [&](unsigned i) { return floatCode(I.getInput(i)->getType().kind); };
  auto kindOut = [&](unsigned r) { return floatCode(I.getOutput(r)->getType().kind); };
  bool params = mode != 3, stats = mode == 0 || mode == 2;
  int64_t groups = 1;
  for (size_t d = 0; d < dims.size(); ++d)
    if (!reduced[d])
      groups *= int64_t(dims[d]);
  size_t rank = dims.size();
  int64_t axis = mode == 2 ? I.attr<AttrKind::Axis>() : 0;
  std::vector<int64_t> p = {
      mode,
      placeOf(I.getOutput(0)),
      in(0),
      params ? in(1) : -1,
      params ? kindIn(1) : 0,
      params ? in(2) : -1,
      params ? kindIn(2) : 0,
      floatBits(I.attr<AttrKind::Epsilon>()),
      floatBits(mode == 0 ? I.attr<AttrKind::Momentum>() : 0.f),
      stats ? placeOf(I.getOutput(1)) : -1,
      stats ? kindOut(1) : 0,
      stats ? placeOf(I.getOutput(2)) : -1,
      stats ? kindOut(2) : 0,
      mode == 0 ? in(3) : -1,
      mode == 0 ? kindIn(3) : 0,
      mode == 0 ? in(4) : -1,
      mode == 0 ? kindIn(4) : 0,
      // LayerNorm's scale and bias cover the normalized block; the others' are per channel.
      int64_t(mode == 2),
      rank > 1 ? int64_t(dims[1]) : 1,
      dimsProductAsInt64(dims, 2, rank),
      dimsProductAsInt64(dims, size_t(axis), rank),
      int64_t(rank)};
  std::vector<int64_t> strides = stridesOf(dims);
  for (size_t d = 0; d < rank; ++d)
    p.insert(p.end(), {int64_t(dims[d]), strides[d], int64_t(reduced[d])});
  return b.add(I, "moments_norm_" + kindSuffix(I.getInput(0)->getType().kind).str(),
               uint64_t(groups), p);
}

Expected<bool> planNormalization(LaunchBuilder &b, const Instruction &I) {
  const Type &out = I.getOutput()->getType();
  uint64_t n = out.numElements();
  auto in = [&](unsigned i) { return placeOf(I.getInput(i)); };
  auto kindIn = [&](unsigned i) { return floatCode(I.getInput(i)->getType().kind); };
  int64_t y = placeOf(I.getOutput());
  std::string suffix = kindSuffix(out.kind).str();
  size_t rank = out.dims.size();
  switch (I.getKind()) {
  case InstrKind::BatchNorm: {
    int64_t inner = dimsProductAsInt64(out.dims, 2, rank);
    if (out.kind == ElemKind::Float32 && I.getInput(0)->getType().kind == ElemKind::Float32 &&
        rank > 2 && inner > 0) {
      // A block of a channel's plane per work-item (batchnorm_planes_f32's NORM_BLOCK).
      int64_t blocks = (inner + 15) / 16;
      return b.add(I, "batchnorm_planes_f32", n / uint64_t(inner) * uint64_t(blocks),
                   {y, in(0), in(1), kindIn(1), in(2), kindIn(2), in(3), kindIn(3), in(4),
                    kindIn(4), floatBits(I.attr<AttrKind::Epsilon>()), int64_t(out.dims[1]),
                    inner, blocks},
                   kBlockGroup);
    }
    return b.add(I, "batchnorm_" + suffix, n,
                 {y, in(0), in(1), kindIn(1), in(2), kindIn(2), in(3), kindIn(3), in(4),
                  kindIn(4), floatBits(I.attr<AttrKind::Epsilon>()),
                  rank > 1 ? int64_t(out.dims[1]) : 1, inner});
  }
  case InstrKind::BatchNormTraining: {
    SmallVector<bool, 6> reduced(rank, true);
    reduced[1] = false;
    return planMoments(b, I, 0, reduced);
  }
  case InstrKind::InstanceNorm: {
    SmallVector<bool, 6> reduced(rank, true);
    reduced[0] = reduced[1] = false;
    return planMoments(b, I, 1, reduced);
  }
  case InstrKind::LayerNorm: {
    SmallVector<bool, 6> reduced(rank, false);
    for (size_t d = size_t(I.attr<AttrKind::Axis>()); d < rank; ++d)
      reduced[d] = true;
    return planMoments(b, I, 2, reduced);
  }
  case InstrKind::MeanVarNorm: {
    SmallVector<bool, 6> reduced(rank, false);
    for (int64_t d : I.attr<AttrKind::Axes>())
      reduced[size_t(d)] = true;
    return planMoments(b, I, 3, reduced);
  }
  case InstrKind::Softmax:
  case InstrKind::LogSoftmax: {
    size_t axis = size_t(I.attr<AttrKind::Axis>());
    int64_t len = int64_t(out.dims[axis]);
    return b.add(I, "softmax_" + suffix, len ? n / uint64_t(len) : 0,
                 {y, in(0), len, dimsProductAsInt64(out.dims, axis + 1, rank),
                  int64_t(I.getKind() == InstrKind::LogSoftmax)});
  }
  case InstrKind::LRN:
    return b.add(I, "lrn_" + suffix, n,
                 {y, in(0), int64_t(out.dims[1]), dimsProductAsInt64(out.dims, 2, rank),
                  I.attr<AttrKind::Size>(), floatBits(I.attr<AttrKind::Alpha>()),
                  floatBits(I.attr<AttrKind::Beta>()), floatBits(I.attr<AttrKind::Bias>())});
  default:
    return false;
  }
}

bool supportsNormalization(const Node &n) {
  switch (n.getKind()) {
  case NodeKind::BatchNorm:
  case NodeKind::BatchNormTraining:
  case NodeKind::InstanceNorm:
  case NodeKind::LayerNorm:
  case NodeKind::MeanVarNorm:
  case NodeKind::LRN:
  case NodeKind::Softmax:
  case NodeKind::LogSoftmax: {
    // Data, parameters and statistics each of some float kind.
    for (unsigned i = 0; i < n.getNumResults(); ++i)
      if (!isFloatKind(n.getType(i).kind))
        return false;
    for (const NodeValue &v : n.getOperands())
      if (!isFloatKind(v.getType().kind))
        return false;
    // moments_norm keeps the reduced axes' dims, up to MAX_RANK (Common.cl).
    bool moments = n.getKind() != NodeKind::BatchNorm && n.getKind() != NodeKind::LRN &&
                   n.getKind() != NodeKind::Softmax && n.getKind() != NodeKind::LogSoftmax;
    return !moments || n.getType(0).rank() <= 6;
  }
  default:
    return false;
  }
}

} // namespace

void addNormalizationKernels(KernelTable &t) {
  for (NodeKind k : {NodeKind::BatchNorm, NodeKind::BatchNormTraining, NodeKind::InstanceNorm,
                     NodeKind::LayerNorm, NodeKind::MeanVarNorm, NodeKind::LRN, NodeKind::Softmax,
                     NodeKind::LogSoftmax})
    t.add(k, supportsNormalization, planNormalization);
}

} // namespace opencl
} // namespace ember
