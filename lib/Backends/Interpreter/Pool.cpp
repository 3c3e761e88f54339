// Pooling kernels, NCHW, float32: MaxPool and AvgPool. Both walk the same windows; they differ
// only in how a window's cells are combined.
#include "KernelUtils.h"

#include <algorithm>
#include <limits>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// One window's extent along one spatial axis, in input coordinates.
struct AxisWindow {
  int64_t begin, end; ///< the cells inside the real input: [begin, end), possibly empty
  int64_t padded;     ///< how many window cells lie inside the padded input
};

/// Window \p o along an axis of \p size cells with \p padBegin/\p padEnd padding. With ceil mode
/// the last window may run past the end padding; cells out there exist in neither count.
AxisWindow axisWindow(int64_t o, int64_t stride, int64_t kernel, int64_t padBegin, int64_t padEnd,
                      int64_t size) {
  int64_t start = o * stride - padBegin; // never below -padBegin
  int64_t stop = start + kernel;
  AxisWindow w;
  w.begin = std::max<int64_t>(start, 0);
  w.end = std::max(w.begin, std::min(stop, size));
  w.padded = std::max<int64_t>(std::min(stop, size + padEnd) - start, 0);
  return w;
}

/// Calls fn(plane, planeWidth, hWindow, wWindow) for every output cell and stores what it returns.
template <typename Fn> Error forEachWindow(const KernelContext &ctx, Fn fn) {
  EMBER_TRY(expectFloat32(ctx));
  // MaxPool and AvgPool share operand and result numbering.
  TensorArg x = ctx.in(ops::MaxPool::Input), y = ctx.out();
  const auto &kernels = ctx.attr<AttrKind::Kernels>();
  const auto &strides = ctx.attr<AttrKind::Strides>();
  const auto &pads = ctx.attr<AttrKind::Pads>(); // [top, left, bottom, right]
  int64_t planes = int64_t(x.dims()[0] * x.dims()[1]);
  int64_t H = x.dims()[2], W = x.dims()[3], OH = y.dims()[2], OW = y.dims()[3];

  const float *in = x.as<float>();
  float *out = y.as<float>();
  for (int64_t p = 0; p < planes; ++p) {
    const float *plane = in + p * H * W;
    for (int64_t oh = 0; oh < OH; ++oh) {
      AxisWindow hw = axisWindow(oh, strides[0], kernels[0], pads[0], pads[2], H);
      for (int64_t ow = 0; ow < OW; ++ow) {
        AxisWindow ww = axisWindow(ow, strides[1], kernels[1], pads[1], pads[3], W);
        out[(p * OH + oh) * OW + ow] = fn(plane, W, hw, ww);
      }
    }
  }
  return Error::success();
}

} // namespace

Error runMaxPool(const KernelContext &ctx) {
  return forEachWindow(ctx, [](const float *plane, int64_t W, AxisWindow hw, AxisWindow ww) {
    // Only real cells are visited, so padding never wins. A window of padding alone keeps
    // `lowest`, as onnxruntime does.
    float m = std::numeric_limits<float>::lowest();
    for (int64_t h = hw.begin; h < hw.end; ++h)
      for (int64_t w = ww.begin; w < ww.end; ++w)
        m = std::max(m, plane[h * W + w]);
    return m;
  });
}

Error runAvgPool(const KernelContext &ctx) {
  bool countPad = ctx.attr<AttrKind::CountIncludePad>() != 0;
  return forEachWindow(ctx, [&](const float *plane, int64_t W, AxisWindow hw, AxisWindow ww) {
    float sum = 0.0f;
    for (int64_t h = hw.begin; h < hw.end; ++h)
      for (int64_t w = ww.begin; w < ww.end; ++w)
        sum += plane[h * W + w];
    int64_t count = countPad ? hw.padded * ww.padded
                             : (hw.end - hw.begin) * (ww.end - ww.begin);
    // An empty window (padding only, excluded from the count) has nothing to average.
    return count ? sum / float(count) : 0.0f;
  });
}

bool supportsMaxPool(const Node &n) { return resultKindIn(n, {ElemKind::Float32}); }
bool supportsAvgPool(const Node &n) { return resultKindIn(n, {ElemKind::Float32}); }

} // namespace interp
} // namespace ember
