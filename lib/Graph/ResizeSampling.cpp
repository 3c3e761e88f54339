// Resize's attribute-only semantics: see ResizeSampling.h. The formulas follow the ONNX
// reference implementation, step by step, in double.
#include "ember/Semantics/ResizeSampling.h"

#include "ember/Base/Float16.h"

#include <array>
#include <cmath>
#include <cstring>

using namespace llvm;

namespace ember {

namespace {

/// The ONNX cubic convolution weights of the 4 neighbours x0-1 .. x0+2 at fraction \p r.
std::array<double, 4> cubicWeights(double r, double a) {
  auto near = [a](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };      // |x| <= 1
  auto far = [a](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }; // 1 < |x| < 2
  return {far(r + 1), near(r), near(1 - r), far(2 - r)};
}

/// Resize-18's antialiased filter at fraction \p r: when downsampling (\p scale < 1), the
/// linear (tent) or cubic kernel stretched by 1 / scale over the neighbours x0 + i for i in
/// [start, 2 - start), normalized to sum 1 (the reference implementation's
/// _linear_coeffs_antialias and _cubic_coeffs_antialias). Upsampling keeps the plain kernel.
SmallVector<std::pair<double, double>, 4> antialiasPicks(double x0, double r, double scale,
                                                         bool cubic, double a) {
  scale = std::min(scale, 1.0);
  double reach = cubic ? 2 : 1; // the kernel's support, in input cells at scale 1
  int64_t start = int64_t(std::floor(-reach / scale) + 1);
  SmallVector<std::pair<double, double>, 4> picks;
  double sum = 0;
  for (int64_t i = start; i < 2 - start; ++i) {
    double x = std::abs(scale * (double(i) - r)), w;
    if (!cubic)
      w = std::min(std::max(1 - x, 0.0), 1.0);
    else if (x <= 1)
      w = (a + 2) * x * x * x - (a + 3) * x * x + 1;
    else if (x < 2)
      w = a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
    else
      w = 0;
    picks.push_back({x0 + double(i), w});
    sum += w;
  }
  for (auto &p : picks)
    p.second /= sum;
  return picks;
}

} // namespace

std::vector<ResizeSample> resizeAxisSamples(const AttrList &attrs, unsigned rank, unsigned d,
                                            dim_t in, dim_t out, int64_t stride) {
  const auto &scales = attrs.get<AttrKind::Scales>();
  const auto &roi = attrs.get<AttrKind::Roi>();
  const std::string &mode = attrs.get<AttrKind::Mode>();
  const std::string &coord = attrs.get<AttrKind::CoordinateMode>();
  const std::string &nearest = attrs.get<AttrKind::NearestMode>();
  double a = attrs.get<AttrKind::CubicCoeffA>();
  bool excludeOutside = attrs.get<AttrKind::ExcludeOutside>();
  bool antialias = attrs.get<AttrKind::Antialias>();
  // With scales given, the reference implementation uses the unrounded in * scale as the
  // resized length; with sizes, scale is out / in.
  double scale = scales.empty() ? double(out) / double(in) : double(scales[d]);
  double resized = scales.empty() ? double(out) : scale * double(in);
  double last = double(in) - 1;

  std::vector<ResizeSample> samples(out);
  for (dim_t o = 0; o < out; ++o) {
    double x = double(o), xo;
    if (coord == "half_pixel")
      xo = (x + 0.5) / scale - 0.5;
    else if (coord == "pytorch_half_pixel")
      xo = resized > 1 ? (x + 0.5) / scale - 0.5 : 0;
    else if (coord == "align_corners")
      xo = resized == 1 ? 0 : x * last / (resized - 1);
    else if (coord == "half_pixel_symmetric") {
      // Resize-19: half_pixel about the input's centre, which differs from it when the result
      // length was rounded (out != in * scale).
      double offset = double(in) / 2 * (1 - double(out) / resized);
      xo = offset + (x + 0.5) / scale - 0.5;
    } else if (coord == "asymmetric")
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
    } else if (antialias) {
      picks = antialiasPicks(x0, r, scale, mode == "cubic", a);
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

Tensor resizeExtrapolationElement(const Type &t, double value) {
  Tensor e(t.withDims({}));
  auto put = [&](auto v) { std::memcpy(e.data(), &v, sizeof(v)); };
  switch (t.kind) {
  case ElemKind::Float32: put(resizeValueAs<float>(value)); break;
  case ElemKind::Float64: put(resizeValueAs<double>(value)); break;
  case ElemKind::Float16: put(resizeValueAs<float16_t>(value)); break;
  case ElemKind::BFloat16: put(resizeValueAs<bfloat16_t>(value)); break;
  case ElemKind::Int8: put(resizeValueAs<int8_t>(value)); break;
  case ElemKind::UInt8: put(resizeValueAs<uint8_t>(value)); break;
  case ElemKind::Int16: put(resizeValueAs<int16_t>(value)); break;
  case ElemKind::UInt16: put(resizeValueAs<uint16_t>(value)); break;
  case ElemKind::Int32: put(resizeValueAs<int32_t>(value)); break;
  case ElemKind::UInt32: put(resizeValueAs<uint32_t>(value)); break;
  case ElemKind::Int64: put(resizeValueAs<int64_t>(value)); break;
  case ElemKind::UInt64: put(resizeValueAs<uint64_t>(value)); break;
  case ElemKind::Bool: put(resizeValueAs<bool>(value)); break;
  case ElemKind::QInt8:
  case ElemKind::QUInt8: e.setElementFromDouble(0, value); break; // its own quantization
  }
  return e;
}

} // namespace ember
