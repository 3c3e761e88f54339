// Codegen for Resize (ONNX Resize-13 semantics; the loader also maps Resize-10/11 and Upsample
// to it). Every result coordinate maps to an input coordinate per axis; nearest picks one
// element, linear/cubic weigh 2/4 neighbours per axis. All of that depends only on attributes,
// so codegen computes the per-axis taps here, with the Interpreter's formulas in double
// (lib/Backends/Interpreter/DataMovementResize.cpp), and passes them as constant tables:
// nearest becomes a table gather moving bytes (any element kind, DataMovement.cpp), linear and
// cubic a typed weighted sum (DataMovementResize.cpp).
#include "CodeGenUtils.h"

#include "ember/Base/Float16.h"
#include "ember/Base/Tensor.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

using namespace llvm;

namespace ember {
namespace cpu {

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

/// Samples of every result coordinate of axis \p d: the Interpreter's sampleAxis, step by step.
std::vector<AxisSample> sampleAxis(const Instruction &I, unsigned d, dim_t in, dim_t out,
                                   int64_t stride) {
  const auto &scales = I.attr<AttrKind::Scales>();
  const auto &roi = I.attr<AttrKind::Roi>();
  const std::string &mode = I.attr<AttrKind::Mode>();
  const std::string &coord = I.attr<AttrKind::CoordinateMode>();
  const std::string &nearest = I.attr<AttrKind::NearestMode>();
  double a = I.attr<AttrKind::CubicCoeffA>();
  bool excludeOutside = I.attr<AttrKind::ExcludeOutside>();
  unsigned rank = I.getOutput()->getType().rank();
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

/// \p v as T by the Interpreter's fromDouble: integers round to nearest and saturate.
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

template <typename T> int64_t bitsOf(T v) {
  int64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}

/// The extrapolation value as one element of \p t's kind (little-endian in an int64), exactly
/// as the Interpreter converts it.
int64_t extrapolationBits(const ember::Type &t, double value) {
  switch (t.kind) {
  case ElemKind::Float32: return bitsOf(fromDouble<float>(value));
  case ElemKind::Float64: return bitsOf(fromDouble<double>(value));
  case ElemKind::Float16: return bitsOf(fromDouble<float16_t>(value));
  case ElemKind::BFloat16: return bitsOf(fromDouble<bfloat16_t>(value));
  case ElemKind::Int8: return bitsOf(fromDouble<int8_t>(value));
  case ElemKind::UInt8: return bitsOf(fromDouble<uint8_t>(value));
  case ElemKind::Int16: return bitsOf(fromDouble<int16_t>(value));
  case ElemKind::UInt16: return bitsOf(fromDouble<uint16_t>(value));
  case ElemKind::Int32: return bitsOf(fromDouble<int32_t>(value));
  case ElemKind::UInt32: return bitsOf(fromDouble<uint32_t>(value));
  case ElemKind::Int64: return bitsOf(fromDouble<int64_t>(value));
  case ElemKind::UInt64: return bitsOf(fromDouble<uint64_t>(value));
  case ElemKind::Bool: return bitsOf(fromDouble<bool>(value));
  case ElemKind::QInt8:
  case ElemKind::QUInt8:
    break;
  }
  Tensor q(t.withDims({})); // quantized: the tensor's own quantization
  q.setElementFromDouble(0, value);
  int64_t bits = 0;
  std::memcpy(&bits, q.data(), t.elementSize());
  return bits;
}

/// Every axis' samples; a scalar is one axis of length 1 (one tap of weight 1 at offset 0,
/// which leaves every sum as the Interpreter's rank-0 one).
std::vector<std::vector<AxisSample>> sampleAxes(const Instruction &I, SmallVector<int64_t, 6> &outDims) {
  const ember::Type &inType = I.getInput(ops::Resize::Input)->getType();
  const ember::Type &outType = I.getOutput()->getType();
  auto strides = rowMajorStrides(inType.dims);
  std::vector<std::vector<AxisSample>> axes;
  for (unsigned d = 0; d < outType.rank(); ++d) {
    outDims.push_back(int64_t(outType.dims[d]));
    axes.push_back(sampleAxis(I, d, inType.dims[d], outType.dims[d], strides[d]));
  }
  if (axes.empty()) {
    outDims.push_back(1);
    axes.push_back(std::vector<AxisSample>(1));
    axes[0][0].taps.push_back({0, 1});
  }
  return axes;
}

/// Bytes of scratch linear/cubic need: per result row, the tensor product of its outer axes'
/// taps (an offset and a weight each), at most the product of each axis' most taps.
uint64_t resizeScratch(const Instruction &I) {
  if (I.attr<AttrKind::Mode>() == "nearest" || I.getOutput()->getType().numElements() == 0)
    return 0;
  SmallVector<int64_t, 6> outDims;
  auto axes = sampleAxes(I, outDims);
  uint64_t combos = 1;
  for (size_t d = 0; d + 1 < axes.size(); ++d) {
    uint64_t most = 1;
    for (const AxisSample &s : axes[d])
      most = std::max<uint64_t>(most, s.taps.size());
    combos *= most;
  }
  return combos * 16;
}

// Nearest moves elements: any kind. Linear and cubic compute on floats and integers.
bool supportsResize(const Node &n) {
  const ember::Type &t = n.getType();
  size_t e = t.elementSize();
  if (e != 1 && e != 2 && e != 4 && e != 8)
    return false;
  return n.attr<AttrKind::Mode>() == "nearest" || (!t.isQuantized() && t.kind != ElemKind::Bool);
}

Error emitResize(Emitter &E, const Instruction &I) {
  const ember::Type &outType = I.getOutput()->getType();
  if (outType.numElements() == 0)
    return Error::success();
  SmallVector<int64_t, 6> outDims;
  auto axes = sampleAxes(I, outDims);
  int64_t extrapolation =
      extrapolationBits(outType, double(I.attr<AttrKind::ExtrapolationValue>()));

  if (I.attr<AttrKind::Mode>() == "nearest") {
    // One tap per axis: the table gather's per-axis offsets, -1 (the extrapolation value)
    // outside the input.
    SmallVector<int64_t, 64> table;
    for (const auto &axis : axes)
      for (const AxisSample &s : axis)
        table.push_back(s.outside ? -1 : s.taps[0].offset);
    return E.call("ember_table_gather_b" + std::to_string(outType.elementSize() * 8),
                  {E.out(I), E.in(I, ops::Resize::Input), E.constArray({extrapolation}, "extra"),
                   E.i64(int64_t(outDims.size())), E.constArray(outDims, "dims"),
                   E.constArray(table, "resizeTable"), E.i64(0), E.i64(0)});
  }

  // Per coordinate its first tap and tap count (0: outside); the taps' offsets and weights (as
  // the bits of doubles).
  SmallVector<int64_t, 64> first, count, offsets, weights;
  for (const auto &axis : axes)
    for (const AxisSample &s : axis) {
      first.push_back(int64_t(offsets.size()));
      count.push_back(s.outside ? 0 : int64_t(s.taps.size()));
      for (const Tap &t : s.taps) {
        offsets.push_back(t.offset);
        weights.push_back(bitsOf(t.weight));
      }
    }
  return E.call(kernelFor("ember_resize_interp", outType.kind),
                {E.out(I), E.in(I, ops::Resize::Input), E.i64(int64_t(outDims.size())),
                 E.constArray(outDims, "dims"), E.constArray(first, "tapFirst"),
                 E.constArray(count, "tapCount"), E.constArray(offsets, "tapOffsets"),
                 E.constArray(weights, "tapWeights"), E.i64(extrapolation), E.scratch(I),
                 E.i64(int64_t(resizeScratch(I) / 16))});
}

} // namespace

void addDataMovementResizeKernels(KernelTable &t) {
  t.add(NodeKind::Resize, supportsResize, emitResize, resizeScratch);
}

} // namespace cpu
} // namespace ember
