// The Resize kernel (ONNX Resize-13 semantics, which the loader also uses for Resize-10/11 and
// Upsample). Every result coordinate maps to an input coordinate per axis; there, nearest picks
// one element and linear/cubic weigh 2/4 neighbours per axis (the N-D result is the tensor
// product of the per-axis weights). Neighbours past the border repeat the border element, as
// in the ONNX reference implementation.
#include "KernelUtils.h"

#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// One input element a result coordinate reads on one axis, and its weight.
struct Tap {
  int64_t offset; ///< index * the axis' input stride, in elements
  double weight;
};

/// The taps of one result coordinate on one axis; `outside` when tf_crop_and_resize maps it
/// outside the input (the result is then the extrapolation value).
struct AxisSample {
  SmallVector<Tap, 4> taps;
  bool outside = false;
};

/// The ONNX cubic convolution weights of the 4 neighbours x0-1 .. x0+2 at fraction \p r.
std::array<double, 4> cubicWeights(double r, double a) {
  auto near = [a](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };      // |x| <= 1
  auto far = [a](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }; // 1 < |x| < 2
  return {far(r + 1), near(r), near(1 - r), far(2 - r)};
}

/// Samples of every result coordinate of axis \p d.
std::vector<AxisSample> sampleAxis(const KernelContext &ctx, unsigned d, dim_t in, dim_t out,
                                   int64_t stride) {
  const auto &scales = ctx.attr<AttrKind::Scales>();
  const auto &roi = ctx.attr<AttrKind::Roi>();
  const std::string &mode = ctx.attr<AttrKind::Mode>();
  const std::string &coord = ctx.attr<AttrKind::CoordinateMode>();
  const std::string &nearest = ctx.attr<AttrKind::NearestMode>();
  double a = ctx.attr<AttrKind::CubicCoeffA>();
  bool excludeOutside = ctx.attr<AttrKind::ExcludeOutside>();
  unsigned rank = ctx.out().dims().size();
  // With scales given, the reference implementation uses the unrounded in * scale as the
  // resized length; with sizes, scale is out / in.
  double scale = scales.empty() ? double(out) / double(in) : double(scales[d]);
  double resized = scales.empty() ? double(out) : scale * double(in);
  double last = double(in) - 1;

  std::vector<AxisSample> samples(out);
  for (dim_t o = 0; o < out; ++o) {
    double x = double(o), xo;
    if (coord == "half_pixel")
      xo = (x + 0.5) / scale - 0.5;
    else if (coord == "pytorch_half_pixel")
      xo = resized > 1 ? (x + 0.5) / scale - 0.5 : 0;
    else if (coord == "align_corners")
      xo = resized == 1 ? 0 : x * last / (resized - 1);
    else if (coord == "asymmetric")
      xo = x / scale;
    else if (coord == "tf_half_pixel_for_nn")
      xo = (x + 0.5) / scale;
    else { // tf_crop_and_resize
      double start = roi[d], end = roi[d + rank];
      xo = resized > 1 ? start * last + x * (end - start) * last / (resized - 1)
                       : 0.5 * (start + end) * last;
      samples[o].outside = !(xo >= 0 && xo <= last);
    }
    // Neighbours x0, x0+1 with the fraction r in (0, 1]: a whole xo is x0 + 1 with r = 1.
    double x0 = std::floor(xo), r = xo - x0;
    if (r == 0) {
      x0 -= 1;
      r = 1;
    }
    SmallVector<std::pair<double, double>, 4> picks; // (input index, weight)
    if (mode == "nearest") {
      bool up = r == 1 || nearest == "ceil" || (nearest == "round_prefer_ceil" && r >= 0.5) ||
                (nearest == "round_prefer_floor" && r > 0.5);
      picks.push_back({up ? x0 + 1 : x0, 1});
    } else if (mode == "linear") {
      picks = {{x0, 1 - r}, {x0 + 1, r}};
    } else {
      auto w = cubicWeights(r, a);
      for (int k = 0; k < 4; ++k)
        picks.push_back({x0 - 1 + k, w[k]});
    }
    if (excludeOutside) {
      double sum = 0;
      for (auto &p : picks) {
        if (p.first < 0 || p.first > last)
          p.second = 0;
        sum += p.second;
      }
      if (sum != 0)
        for (auto &p : picks)
          p.second /= sum;
    }
    for (auto &p : picks) {
      if (p.second == 0 && mode != "nearest")
        continue; // adds nothing (and keeps an inf/NaN neighbour from leaking in)
      double i =
          std::isnan(p.first) ? 0 : std::min(std::max(p.first, 0.0), last); // the border repeats
      samples[o].taps.push_back({int64_t(i) * stride, p.second});
    }
    if (samples[o].taps.empty()) // every weight was 0: the sum is 0
      samples[o].taps.push_back({0, 0});
  }
  return samples;
}

/// Converts an interpolated value to T: integers round to nearest and saturate.
template <typename T> T fromDouble(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v))
      return T(0);
    v = std::round(v);
    if (v <= double(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    if (v >= double(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    return T(v);
  } else {
    return T(float(v));
  }
}

} // namespace

namespace {

/// Calls visit(e, idx) for every result element, e its flat index and idx its multi-index.
template <typename Visit> void forEachResult(ArrayRef<dim_t> dims, Visit visit) {
  size_t n = dimsProduct(dims, 0, dims.size());
  SmallVector<dim_t, 6> idx(dims.size(), 0);
  for (size_t e = 0; e < n; ++e) {
    visit(e, ArrayRef<dim_t>(idx));
    for (size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d])
        break;
      idx[d] = 0;
    }
  }
}

/// Whether tf_crop_and_resize maps result multi-index \p idx outside the input on some axis.
bool outside(ArrayRef<std::vector<AxisSample>> axes, ArrayRef<dim_t> idx) {
  for (size_t d = 0; d < idx.size(); ++d)
    if (axes[d][idx[d]].outside)
      return true;
  return false;
}

} // namespace

Error runResize(const KernelContext &ctx) {
  TensorArg src = ctx.in(ops::Resize::Input), dst = ctx.out();
  const DimsVec &inDims = src.dims(), &outDims = dst.dims();
  size_t rank = outDims.size(), esz = dst.type.elementSize();
  if (dst.numElements() == 0)
    return Error::success();
  DimsVec strides = rowMajorStrides(inDims);
  std::vector<std::vector<AxisSample>> axes;
  for (unsigned d = 0; d < rank; ++d)
    axes.push_back(sampleAxis(ctx, d, inDims[d], outDims[d], int64_t(strides[d])));

  // The extrapolation value as one element of the result's kind.
  alignas(8) uint8_t extrapolation[8] = {};
  double value = ctx.attr<AttrKind::ExtrapolationValue>();
  if (dst.type.isQuantized()) {
    Tensor q(dst.type.withDims({}));
    q.setElementFromDouble(0, value);
    std::memcpy(extrapolation, q.data(), esz);
  } else {
    EMBER_TRY(dispatchAllKinds(dst.type.kind, [&](auto zero) -> Error {
      using T = decltype(zero);
      T v = fromDouble<T>(value);
      std::memcpy(extrapolation, &v, sizeof(T));
      return Error::success();
    }));
  }

  if (ctx.attr<AttrKind::Mode>() == "nearest") { // one tap per axis: moves bytes, any kind
    forEachResult(outDims, [&](size_t e, ArrayRef<dim_t> idx) {
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d)
        off += axes[d][idx[d]].taps[0].offset;
      std::memcpy(dst.data + e * esz, outside(axes, idx) ? extrapolation : src.data + off * esz,
                  esz);
    });
    return Error::success();
  }

  return dispatchAllKinds(dst.type.kind, [&](auto zero) -> Error {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>) {
      return ctx.unsupported("linear and cubic resize of bool is not defined");
    } else {
      const T *in = src.as<T>();
      T *out = dst.as<T>();
      SmallVector<size_t, 6> tap(rank, 0); // which tap of each axis the sum is at
      forEachResult(outDims, [&](size_t e, ArrayRef<dim_t> idx) {
        if (outside(axes, idx)) {
          std::memcpy(&out[e], extrapolation, esz);
          return;
        }
        // Sum over the tensor product of every axis' taps, odometer style.
        double sum = 0;
        std::fill(tap.begin(), tap.end(), 0);
        for (bool more = true; more;) {
          int64_t off = 0;
          double w = 1;
          for (size_t d = 0; d < rank; ++d) {
            const Tap &t = axes[d][idx[d]].taps[tap[d]];
            off += t.offset;
            w *= t.weight;
          }
          sum += w * double(in[off]);
          more = false;
          for (size_t d = rank; d-- > 0;) {
            if (++tap[d] < axes[d][idx[d]].taps.size()) {
              more = true;
              break;
            }
            tap[d] = 0;
          }
        }
        out[e] = fromDouble<T>(sum);
      });
      return Error::success();
    }
  });
}

// Nearest moves elements: any kind. Linear and cubic compute on floats and integers.
bool supportsResize(const Node &n) {
  ElemKind k = resultKind(n);
  return n.attr<AttrKind::Mode>() == "nearest" || (!isQuantizedKind(k) && k != ElemKind::Bool);
}

} // namespace interp
} // namespace ember
