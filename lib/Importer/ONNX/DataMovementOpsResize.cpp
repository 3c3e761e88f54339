// ONNX Resize (opsets 10, 11, 13, 18, 19) and Upsample (7, 9), all as one Resize node with
// Resize-19's semantics: Resize-10 and Upsample map result coordinates 'asymmetric'ally
// (x / scale) and round nearest neighbours down, as Upsample always did. Resize-18's 'axes' and
// 'keep_aspect_ratio_policy' only decide the scales and dims, here.
#include "DataMovementOps.h"

#include "ember/Support/Error.h"

#include <cmath>

using namespace llvm;

namespace ember {

namespace {

/// What a Resize node needs besides its input.
struct ResizeParams {
  std::string mode = "nearest";
  std::string coordinate = "half_pixel";
  std::string nearest = "round_prefer_floor";
  float cubicA = -0.75f;
  int64_t excludeOutside = 0;
  float extrapolation = 0;
  int64_t antialias = 0;
  std::vector<float> scales; ///< given scales; empty when sizes were given
  std::vector<float> roi;    ///< tf_crop_and_resize only
  DimsVec dims;              ///< result dims
};

/// Result dims from scales: floor(in * scale) (times the roi's extent for tf_crop_and_resize).
Expected<DimsVec> scaledDims(OpContext &ctx, const Type &t, const ResizeParams &p) {
  unsigned rank = t.rank();
  if (p.scales.size() != rank)
    return ctx.fail("scales need one value per axis of " + t.str() + ", got " +
                    Twine(p.scales.size()));
  DimsVec dims;
  for (unsigned d = 0; d < rank; ++d) {
    double s = p.scales[d];
    if (!(s > 0) || !std::isfinite(s))
      return ctx.fail("scales must be positive and finite");
    double extent = p.roi.empty() ? 1.0 : double(p.roi[d + rank]) - double(p.roi[d]);
    double n = std::floor(double(t.dims[d]) * extent * s);
    if (!(n >= 0 && n < 9.0e18))
      return ctx.fail("scale " + numberToString(s) + " gives no valid length for axis " + Twine(d) +
                      " of " + t.str());
    dims.push_back(dim_t(n));
  }
  return dims;
}

Error emitResize(OpContext &ctx, NodeValue x, const ResizeParams &p) {
  std::vector<int64_t> dims(p.dims.begin(), p.dims.end());
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::Resize, {x},
                                    AttrList()
                                        .set<AttrKind::Dims>(dims)
                                        .set<AttrKind::Scales>(p.scales)
                                        .set<AttrKind::Roi>(p.roi)
                                        .set<AttrKind::Mode>(p.mode)
                                        .set<AttrKind::CoordinateMode>(p.coordinate)
                                        .set<AttrKind::NearestMode>(p.nearest)
                                        .set<AttrKind::CubicCoeffA>(p.cubicA)
                                        .set<AttrKind::ExcludeOutside>(p.excludeOutside)
                                        .set<AttrKind::ExtrapolationValue>(p.extrapolation)
                                        .set<AttrKind::Antialias>(p.antialias)));
  return ctx.setOutput(0, y);
}

/// A constant float input as floats (scales, roi).
Expected<std::vector<float>> constantFloats(OpContext &ctx, unsigned i) {
  EMBER_ASSIGN_OR_RETURN(const Tensor *t, ctx.constantInput(i));
  std::vector<float> v;
  for (size_t k = 0; k < t->numElements(); ++k)
    v.push_back(float(t->elementAsDouble(k)));
  return v;
}

/// Resize-10 and Upsample: scales only, nearest (rounding down) or linear.
Error loadLegacyResize(OpContext &ctx, std::vector<float> scales) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ResizeParams p;
  p.mode = ctx.getString("mode", "nearest");
  if (p.mode == "bilinear") // Upsample-7's other name
    p.mode = "linear";
  if (p.mode != "nearest" && p.mode != "linear")
    return ctx.fail("unknown mode '" + p.mode + "' (nearest or linear)");
  p.coordinate = "asymmetric";
  p.nearest = "floor";
  p.scales = std::move(scales);
  EMBER_ASSIGN_OR_RETURN(p.dims, scaledDims(ctx, x.getType(), p));
  return emitResize(ctx, x, p);
}

Error loadUpsample(OpContext &ctx) {
  if (ctx.opset() < 9) {
    if (!ctx.hasAttr("scales"))
      return ctx.fail("attribute 'scales' is required");
    return loadLegacyResize(ctx, ctx.getFloats("scales"));
  }
  EMBER_ASSIGN_OR_RETURN(std::vector<float> scales, constantFloats(ctx, 1));
  return loadLegacyResize(ctx, scales);
}

Error loadResize(OpContext &ctx) {
  if (ctx.opset() < 11) {
    EMBER_ASSIGN_OR_RETURN(std::vector<float> scales, constantFloats(ctx, 1));
    return loadLegacyResize(ctx, scales);
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  ResizeParams p;
  p.mode = ctx.getString("mode", p.mode);
  p.coordinate = ctx.getString("coordinate_transformation_mode", p.coordinate);
  p.nearest = ctx.getString("nearest_mode", p.nearest);
  p.cubicA = ctx.getFloat("cubic_coeff_a", p.cubicA);
  p.excludeOutside = ctx.getInt("exclude_outside", 0);
  p.extrapolation = ctx.getFloat("extrapolation_value", 0);
  if (ctx.opset() >= 18)
    p.antialias = ctx.getInt("antialias", 0);
  if (p.coordinate == "half_pixel_symmetric" && ctx.opset() < 19)
    return ctx.fail("coordinate_transformation_mode 'half_pixel_symmetric' is Resize-19's; "
                    "the model's opset is " + Twine(ctx.opset()));
  // Resize-18: roi, scales and sizes may cover only the axes 'axes' names; the others keep
  // roi [0, 1], scale 1 and their size.
  unsigned rank = t.rank();
  std::vector<int64_t> axes;
  if (ctx.opset() >= 18 && ctx.hasAttr("axes")) {
    std::vector<bool> seen(rank, false);
    for (int64_t a : ctx.getInts("axes")) {
      auto axis = normalizeAxis(a, rank);
      if (!axis)
        return ctx.fail("axes " + intsToString(ctx.getInts("axes")) + ": " +
                        errorToString(axis.takeError()));
      if (seen[*axis])
        return ctx.fail("axes " + intsToString(ctx.getInts("axes")) + " name an axis twice");
      seen[*axis] = true;
      axes.push_back(*axis);
    }
  }
  auto perAxis = [&](auto given, auto fill, StringRef what, unsigned copies)
      -> Expected<decltype(given)> {
    if (axes.empty() || given.empty())
      return given;
    if (given.size() != copies * axes.size())
      return ctx.fail(what + " " + Twine(given.size()) + " values for the " +
                      Twine(axes.size()) + " axes of 'axes'");
    decltype(given) all;
    for (unsigned c = 0; c < copies; ++c)
      for (unsigned d = 0; d < rank; ++d) {
        auto at = llvm::find(axes, int64_t(d));
        all.push_back(at == axes.end() ? fill(c, d) : given[c * axes.size() + (at - axes.begin())]);
      }
    return all;
  };
  if (p.coordinate == "tf_crop_and_resize") {
    if (!ctx.hasInput(1))
      return ctx.fail("tf_crop_and_resize needs the roi input");
    EMBER_ASSIGN_OR_RETURN(p.roi, constantFloats(ctx, 1));
    EMBER_ASSIGN_OR_RETURN(p.roi, perAxis(p.roi, [](unsigned c, unsigned) { return float(c); },
                                          "roi has", 2));
    if (p.roi.size() != 2 * t.rank())
      return ctx.fail("roi must have 2 values per axis of " + t.str() + ", got " +
                      Twine(p.roi.size()));
  }
  // Exactly one of scales and sizes; an empty tensor counts as absent (Resize-11 requires the
  // scales input even when sizes are given).
  std::vector<float> scales;
  std::vector<int64_t> sizes;
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(scales, constantFloats(ctx, 2));
  }
  if (ctx.hasInput(3)) {
    EMBER_ASSIGN_OR_RETURN(sizes, ctx.constantInts(3));
  }
  if (scales.empty() == sizes.empty())
    return ctx.fail("exactly one of scales and sizes must be given");
  EMBER_ASSIGN_OR_RETURN(scales, perAxis(scales, [](unsigned, unsigned) { return 1.0f; },
                                         "scales has", 1));
  EMBER_ASSIGN_OR_RETURN(sizes, perAxis(sizes, [&](unsigned, unsigned d) {
                                          return int64_t(t.dims[d]);
                                        }, "sizes has", 1));
  std::string policy = ctx.opset() >= 18 ? ctx.getString("keep_aspect_ratio_policy", "stretch")
                                         : "stretch";
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return ctx.fail("unknown keep_aspect_ratio_policy '" + policy +
                    "' (stretch, not_larger or not_smaller)");
  if (policy != "stretch" && !sizes.empty()) {
    // One scale for the axes given (all of them without 'axes'): the smallest (not_larger) or
    // largest (not_smaller) of size / input; each such axis' size is input * scale rounded.
    if (sizes.size() != rank)
      return ctx.fail("sizes " + intsToString(sizes) + " need one value per axis of " + t.str());
    std::vector<int64_t> covered = axes;
    if (covered.empty())
      for (unsigned d = 0; d < rank; ++d)
        covered.push_back(d);
    double scale = 0;
    for (size_t i = 0; i < covered.size(); ++i) {
      int64_t d = covered[i];
      if (t.dims[d] == 0)
        return ctx.fail("keep_aspect_ratio_policy '" + policy + "' on empty axis " + Twine(d) +
                        " of " + t.str());
      double s = double(sizes[d]) / double(t.dims[d]);
      scale = i == 0 ? s : policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
    }
    p.scales.assign(rank, 1.0f);
    for (int64_t d : covered) {
      p.scales[d] = float(scale);
      sizes[d] = int64_t(scale * double(t.dims[d]) + 0.5);
    }
    EMBER_ASSIGN_OR_RETURN(p.dims, dimsFromInts(ctx, sizes, "sizes"));
    return emitResize(ctx, x, p);
  }
  if (!scales.empty()) {
    p.scales = std::move(scales);
    EMBER_ASSIGN_OR_RETURN(p.dims, scaledDims(ctx, t, p));
  } else {
    if (sizes.size() != t.rank())
      return ctx.fail("sizes " + intsToString(sizes) + " need one value per axis of " + t.str());
    EMBER_ASSIGN_OR_RETURN(p.dims, dimsFromInts(ctx, sizes, "sizes"));
  }
  return emitResize(ctx, x, p);
}

} // namespace

void registerDataMovementResizeOps(OpRegistry &r) {
  r.add("Resize", 10, loadResize);
  r.add("Resize", 18, loadResize); // antialias, axes, keep_aspect_ratio_policy
  r.add("Resize", 19, loadResize); // coordinate_transformation_mode half_pixel_symmetric
  r.add("Upsample", 7, loadUpsample);
}

} // namespace ember
