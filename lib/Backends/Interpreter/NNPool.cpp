// Window pooling, N-D and channels first: MaxPool (with the index of each max), AvgPool and
// LpPool. All three walk the same windows; they differ only in how a window's cells combine.
// MaxUnpool and MaxRoiPool are in NNPoolUnpool.cpp.
#include "NNCommon.h"
#include "ember/Semantics/Pool.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// The cells one window covers along one spatial axis.
struct AxisWindow {
  SmallVector<int64_t, 8> cells; ///< input coordinates inside the real input
  int64_t padded = 0;            ///< how many window cells lie inside the padded input
};

/// Window \p o along an axis of \p size cells (ember/Semantics/Pool.h: which taps count).
AxisWindow axisWindow(int64_t o, int64_t stride, int64_t kernel, int64_t dilation,
                      int64_t padBegin, int64_t padEnd, int64_t size) {
  AxisWindow w;
  int64_t start = o * stride - padBegin, lo, hi;
  ember_pool_real_taps(start, dilation, kernel, size, &lo, &hi);
  for (int64_t j = lo; j < hi; ++j)
    w.cells.push_back(start + j * dilation);
  w.padded = ember_pool_padded_taps(start, dilation, kernel, size, padEnd);
  return w;
}

/// One window cell inside the input: its offset within an input plane, row-major (the layout)
/// and column-major (how MaxPool's storage_order 1 numbers it).
struct Cell {
  size_t rowMajor, colMajor;
};

/// The window geometry of a pooling instruction (MaxPool, AvgPool and LpPool share operand
/// numbering and the window attributes).
struct PoolWindows {
  size_t planes, inPlane, outPlane;
  ArrayRef<dim_t> outDims;
  std::vector<std::vector<AxisWindow>> axes; ///< [axis][output coordinate]
  DimsVec rowStrides, colStrides;

  explicit PoolWindows(const KernelContext &ctx) {
    TensorArg x = ctx.in(ops::MaxPool::Input), y = ctx.out();
    const auto &kernels = ctx.attr<AttrKind::Kernels>();
    const auto &strides = ctx.attr<AttrKind::Strides>();
    const auto &pads = ctx.attr<AttrKind::Pads>();
    const auto &dilations = ctx.attr<AttrKind::Dilations>();
    ArrayRef<dim_t> inDims = spatialDims(x);
    outDims = spatialDims(y);
    size_t n = inDims.size();
    planes = x.dims()[0] * x.dims()[1];
    inPlane = dimsProduct(inDims, 0, n);
    outPlane = dimsProduct(outDims, 0, n);
    rowStrides = rowMajorStrides(inDims);
    colStrides = DimsVec(n, 1);
    for (size_t a = 1; a < n; ++a)
      colStrides[a] = colStrides[a - 1] * inDims[a - 1];
    for (size_t a = 0; a < n; ++a) {
      axes.emplace_back();
      for (dim_t o = 0; o < outDims[a]; ++o)
        axes[a].push_back(axisWindow(int64_t(o), strides[a], kernels[a], dilations[a], pads[a],
                                     pads[a + n], int64_t(inDims[a])));
    }
  }

  /// Calls fn(outputOffset, cells, paddedCount) for every output position (offset within an
  /// output plane); cells run row-major through the window, paddedCount counts the window's
  /// cells inside the padded input.
  template <typename Fn> void forEach(Fn fn) const {
    size_t n = axes.size();
    SmallVector<int64_t, 6> o(n), pick(n);
    std::vector<Cell> cells;
    for (size_t op = 0; op < outPlane; ++op) {
      unflatten(op, outDims, o);
      DimsVec counts;
      int64_t padded = 1;
      for (size_t a = 0; a < n; ++a) {
        const AxisWindow &w = axes[a][size_t(o[a])];
        counts.push_back(w.cells.size());
        padded *= w.padded;
      }
      cells.clear();
      size_t volume = dimsProduct(counts, 0, n);
      for (size_t c = 0; c < volume; ++c) {
        unflatten(c, counts, pick);
        Cell cell{0, 0};
        for (size_t a = 0; a < n; ++a) {
          size_t coord = size_t(axes[a][size_t(o[a])].cells[size_t(pick[a])]);
          cell.rowMajor += coord * rowStrides[a];
          cell.colMajor += coord * colStrides[a];
        }
        cells.push_back(cell);
      }
      fn(op, ArrayRef<Cell>(cells), padded);
    }
  }
};

/// The smallest value of T (-infinity for the 16-bit floats, which have no numeric_limits).
template <typename T> T lowestValue() {
  if constexpr (std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>)
    return T(-std::numeric_limits<float>::infinity());
  else
    return std::numeric_limits<T>::lowest();
}

template <typename T> Error maxPool(const KernelContext &ctx) {
  PoolWindows win(ctx);
  bool colMajor = ctx.attr<AttrKind::StorageOrder>() != 0;
  const T *in = ctx.in(ops::MaxPool::Input).as<T>();
  T *out = ctx.out(ops::MaxPool::Result).as<T>();
  int64_t *indices = ctx.out(ops::MaxPool::Indices).as<int64_t>();
  win.forEach([&](size_t op, ArrayRef<Cell> cells, int64_t) {
    for (size_t p = 0; p < win.planes; ++p) {
      const T *plane = in + p * win.inPlane;
      // Only real cells are visited, so padding never wins; the first of equal maxima wins. A
      // window of padding alone gives `lowest` (as onnxruntime does) and index -1.
      T best = lowestValue<T>();
      int64_t bestIndex = -1;
      for (const Cell &c : cells)
        if (bestIndex < 0 || plane[c.rowMajor] > best) {
          best = plane[c.rowMajor];
          bestIndex = int64_t(p * win.inPlane + (colMajor ? c.colMajor : c.rowMajor));
        }
      out[p * win.outPlane + op] = best;
      indices[p * win.outPlane + op] = bestIndex;
    }
  });
  return Error::success();
}

/// AvgPool and LpPool: out = finish(sum of term(x) over the window's real cells, how many
/// those are, how many window cells lie inside the padded input).
template <typename T, typename Term, typename Finish>
Error sumPool(const KernelContext &ctx, Term term, Finish finish) {
  using Acc = FloatAccum<T>;
  PoolWindows win(ctx);
  const T *in = ctx.in(ops::AvgPool::Input).as<T>();
  T *out = ctx.out().as<T>();
  win.forEach([&](size_t op, ArrayRef<Cell> cells, int64_t padded) {
    for (size_t p = 0; p < win.planes; ++p) {
      const T *plane = in + p * win.inPlane;
      Acc sum = 0;
      for (const Cell &c : cells)
        sum += term(Acc(plane[c.rowMajor]));
      out[p * win.outPlane + op] = T(finish(sum, int64_t(cells.size()), padded));
    }
  });
  return Error::success();
}

} // namespace

Error runMaxPool(const KernelContext &ctx) {
  ElemKind k = ctx.out().type.kind;
  return dispatchAllKinds(k, [&](auto tag) -> Error {
    using T = decltype(tag);
    if constexpr (isFloatStorage<T> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>)
      return maxPool<T>(ctx);
    else
      return ctx.unsupported("no kernel for element kind " + elemKindName(k));
  });
}

Error runAvgPool(const KernelContext &ctx) {
  bool countPad = ctx.attr<AttrKind::CountIncludePad>() != 0;
  return dispatchFloatKinds(ctx, [&](auto tag) {
    using Acc = FloatAccum<decltype(tag)>;
    return sumPool<decltype(tag)>(
        ctx, [](Acc v) { return v; },
        [&](Acc sum, int64_t cells, int64_t padded) {
          int64_t count = ember_pool_average_divisor(cells, padded, countPad);
          return count ? sum / Acc(count) : Acc(0);
        });
  });
}

Error runLpPool(const KernelContext &ctx) {
  float p = ctx.attr<AttrKind::P>();
  return dispatchFloatKinds(ctx, [&](auto tag) {
    using Acc = FloatAccum<decltype(tag)>;
    // Padding adds |0|^p = 0, so it needs no count.
    return sumPool<decltype(tag)>(
        ctx, [&](Acc v) { return Acc(std::pow(std::fabs(v), Acc(p))); },
        [&](Acc sum, int64_t, int64_t) { return Acc(std::pow(sum, Acc(1) / Acc(p))); });
  });
}

bool supportsMaxPool(const Node &n) {
  return resultKindIn(n, kFloatKinds) || resultKindIn(n, {ElemKind::Int8, ElemKind::UInt8});
}
bool supportsAvgPool(const Node &n) { return resultKindIn(n, kFloatKinds); }
bool supportsLpPool(const Node &n) { return resultKindIn(n, kFloatKinds); }

} // namespace interp
} // namespace ember
