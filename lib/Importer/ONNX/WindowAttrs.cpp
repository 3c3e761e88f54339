#include "WindowAttrs.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

/// numpy's floor division (ConvTranspose's pads may come out negative).
int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/// The window attributes for \p input ([N, C, D1..Dn]), defaults filled in and checked; pads are
/// as written (auto_pad is resolved by the caller, which knows how its op sizes outputs).
Expected<WindowAttrs> readWindowAttrs(OpContext &ctx, const Type &input,
                                      std::vector<int64_t> kernels) {
  if (input.rank() < 3)
    return ctx.fail("input must have rank >= 3 ([N, C, spatial...]), got " + input.str());
  WindowAttrs w;
  w.n = input.rank() - 2;
  size_t n = w.n;
  w.kernels = std::move(kernels);
  w.strides = ctx.getInts("strides", std::vector<int64_t>(n, 1));
  w.dilations = ctx.getInts("dilations", std::vector<int64_t>(n, 1));
  w.pads = ctx.getInts("pads", std::vector<int64_t>(2 * n, 0));
  w.autoPad = ctx.getString("auto_pad", "NOTSET");
  if (w.kernels.size() != n || w.strides.size() != n || w.dilations.size() != n ||
      w.pads.size() != 2 * n)
    return ctx.fail("kernel_shape " + intsToString(w.kernels) + ", strides " +
                    intsToString(w.strides) + ", dilations " + intsToString(w.dilations) +
                    " and pads " + intsToString(w.pads) + " do not describe " + Twine(n) +
                    " spatial dims of input " + input.str());
  for (size_t i = 0; i < n; ++i)
    if (w.strides[i] <= 0 || w.dilations[i] <= 0 || w.kernels[i] <= 0 ||
        w.strides[i] > kMaxWindowValue || w.dilations[i] > kMaxWindowValue ||
        w.kernels[i] > kMaxWindowValue)
      return ctx.fail("kernel_shape " + intsToString(w.kernels) + ", strides " +
                      intsToString(w.strides) + " and dilations " + intsToString(w.dilations) +
                      " must be in [1, 2^31]");
  for (int64_t p : w.pads)
    if (p < 0 || p > kMaxWindowValue)
      return ctx.fail("pads " + intsToString(w.pads) + " must be in [0, 2^31]");
  if (w.autoPad != "NOTSET" && w.autoPad != "VALID" && w.autoPad != "SAME_UPPER" &&
      w.autoPad != "SAME_LOWER")
    return ctx.fail("unknown auto_pad '" + w.autoPad + "'");
  return w;
}

int64_t effectiveKernel(const WindowAttrs &w, size_t i) {
  return (w.kernels[i] - 1) * w.dilations[i] + 1;
}

/// Splits \p total padding cells between an axis' begin and end: SAME_UPPER puts the odd one at
/// the end, everything else at the begin (ONNX's rule for both Conv and ConvTranspose).
void splitPadding(WindowAttrs &w, size_t i, int64_t total) {
  int64_t half = floorDiv(total, 2);
  w.pads[i] = w.autoPad == "SAME_UPPER" ? half : total - half;
  w.pads[i + w.n] = total - w.pads[i];
}

/// Resolves auto_pad for a forward window (Conv, pools): VALID drops the pads, SAME_* pads so
/// that output = ceil(input / stride).
void resolveForwardAutoPad(WindowAttrs &w, const Type &input) {
  if (w.autoPad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (w.autoPad == "SAME_UPPER" || w.autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < w.n; ++i) {
      int64_t in = int64_t(input.dims[2 + i]);
      int64_t out = (in + w.strides[i] - 1) / w.strides[i];
      int64_t total = (out - 1) * w.strides[i] + effectiveKernel(w, i) - in;
      splitPadding(w, i, std::max<int64_t>(0, total));
    }
  }
}

AttrList windowAttrList(const WindowAttrs &w) {
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(w.kernels)
      .set<AttrKind::Strides>(w.strides)
      .set<AttrKind::Pads>(w.pads);
  return attrs;
}

/// The filter's kernel_shape: the attribute when given (it must match), else the filter's
/// spatial dims.
std::vector<int64_t> filterKernels(OpContext &ctx, const Type &filter) {
  std::vector<int64_t> fromFilter;
  for (size_t i = 2; i < filter.rank(); ++i)
    fromFilter.push_back(int64_t(filter.dims[i]));
  return ctx.getInts("kernel_shape", fromFilter);
}

} // namespace ember
