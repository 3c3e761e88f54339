#include "ConvPoolArgs.h"

#include "ember/Support/Error.h"

#include <cmath>

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

constexpr int64_t kMaxWindow = int64_t(1) << 31;

/// `plural` (repeated), else `single` repeated \p n times, else `single_h`+`single_w`.
std::vector<int64_t> readSpelled(OpContext &ctx, StringRef plural, StringRef single, size_t n) {
  std::vector<int64_t> values = ctx.getInts(plural);
  if (ctx.hasArg(single))
    values.assign(n, ctx.getInt(single, 0));
  else if (ctx.hasArg((single + "_h").str()) && ctx.hasArg((single + "_w").str()))
    values = {ctx.getInt((single + "_h").str(), 0), ctx.getInt((single + "_w").str(), 0)};
  return values;
}

} // namespace

std::vector<int64_t> toChannelsFirst(size_t rank) {
  std::vector<int64_t> perm = {0, int64_t(rank) - 1};
  for (size_t i = 1; i + 1 < rank; ++i)
    perm.push_back(int64_t(i));
  return perm;
}

std::vector<int64_t> toChannelsLast(size_t rank) {
  std::vector<int64_t> perm = {0};
  for (size_t i = 2; i < rank; ++i)
    perm.push_back(int64_t(i));
  perm.push_back(1);
  return perm;
}

Expected<ConvPoolArgs> readConvPoolArgs(OpContext &ctx, ArrayRef<int64_t> defaultKernels) {
  ConvPoolArgs a;
  int64_t legacy = ctx.getInt("legacy_pad", 0);
  if (legacy < 0 || legacy > 3)
    return ctx.fail("legacy_pad " + Twine(legacy) + " is not one of NOTSET (0), VALID (1), SAME "
                    "(2), CAFFE_LEGACY_POOLING (3)");
  a.legacyPad = LegacyPad(legacy);
  a.global = ctx.getInt("global_pooling", 0) != 0;
  a.group = ctx.getInt("group", 1);
  std::string order = ctx.getString("order", "NCHW");
  if (order != "NCHW" && order != "NHWC")
    return ctx.fail("order '" + order + "' must be NCHW or NHWC");
  a.nhwc = order == "NHWC";

  bool explicitPads = ctx.hasArg("pads") || ctx.hasArg("pad") ||
                      (ctx.hasArg("pad_t") && ctx.hasArg("pad_l") && ctx.hasArg("pad_b") &&
                       ctx.hasArg("pad_r"));
  if ((a.legacyPad == LegacyPad::Valid || a.legacyPad == LegacyPad::Same) && explicitPads)
    return ctx.fail("legacy_pad VALID or SAME computes the padding; explicit pads are not "
                    "allowed with it");
  a.kernels = readSpelled(ctx, "kernels", "kernel", 2);
  if (a.kernels.empty())
    a.kernels.assign(defaultKernels.begin(), defaultKernels.end());
  size_t n = a.kernels.size();
  a.strides = readSpelled(ctx, "strides", "stride", 2);
  a.dilations = readSpelled(ctx, "dilations", "dilation", 2);
  a.pads = ctx.getInts("pads");
  if (ctx.hasArg("pad"))
    a.pads.assign(4, ctx.getInt("pad", 0));
  else if (explicitPads && !ctx.hasArg("pads"))
    a.pads = {ctx.getInt("pad_t", 0), ctx.getInt("pad_l", 0), ctx.getInt("pad_b", 0),
              ctx.getInt("pad_r", 0)};
  if (a.strides.empty())
    a.strides.assign(n, 1);
  if (a.dilations.empty())
    a.dilations.assign(n, 1);
  if (a.pads.empty())
    a.pads.assign(2 * n, 0);
  if (n == 0 && !a.global)
    return ctx.fail("no kernel size given (kernel, kernels, or kernel_h and kernel_w)");
  if (!a.global) {
    if (a.strides.size() != n || a.dilations.size() != n || a.pads.size() != 2 * n)
      return ctx.fail("kernels " + intsToString(a.kernels) + ", strides " +
                      intsToString(a.strides) + ", dilations " + intsToString(a.dilations) +
                      " and pads " + intsToString(a.pads) +
                      " do not describe the same number of spatial dims");
    for (size_t i = 0; i < n; ++i)
      if (a.kernels[i] <= 0 || a.strides[i] <= 0 || a.dilations[i] <= 0 ||
          a.kernels[i] > kMaxWindow || a.strides[i] > kMaxWindow || a.dilations[i] > kMaxWindow)
        return ctx.fail("kernels " + intsToString(a.kernels) + ", strides " +
                        intsToString(a.strides) + " and dilations " +
                        intsToString(a.dilations) + " must be in [1, 2^31]");
    for (int64_t p : a.pads)
      if (p < 0 || p > kMaxWindow)
        return ctx.fail("pads " + intsToString(a.pads) + " must be in [0, 2^31]");
  }
  if (a.group < 1)
    return ctx.fail("group " + Twine(a.group) + " must be >= 1");
  return a;
}

Error resolvePads(OpContext &ctx, ConvPoolArgs &a, ArrayRef<dim_t> spatial) {
  size_t n = spatial.size();
  if (a.global) {
    for (size_t i = 0; i < a.pads.size(); ++i)
      if (a.pads[i] != 0)
        return ctx.fail("global_pooling takes no pads");
    a.kernels.assign(spatial.begin(), spatial.end());
    a.strides.assign(n, 1);
    a.dilations.assign(n, 1);
    a.pads.assign(2 * n, 0);
    return Error::success();
  }
  if (a.kernels.size() != n)
    return ctx.fail("kernels " + intsToString(a.kernels) + " describe " +
                    Twine(a.kernels.size()) + " spatial dims, the input has " + Twine(n));
  for (size_t i = 0; i < n; ++i) {
    int64_t in = int64_t(spatial[i]), k = a.kernels[i], s = a.strides[i];
    int64_t dk = a.dilations[i] * (k - 1) + 1;
    int64_t &head = a.pads[i], &tail = a.pads[n + i];
    switch (a.legacyPad) {
    case LegacyPad::NotSet:
      break;
    case LegacyPad::Valid:
      head = tail = 0;
      break;
    case LegacyPad::Same: {
      if (a.dilations[i] != 1)
        return ctx.fail("legacy_pad SAME does not support dilation");
      int64_t target = (in + s - 1) / s;
      int64_t needed = (target - 1) * s + k - in;
      head = needed / 2; // CAFFE2_PAD_HEAD_MORE is false: the odd cell goes to the tail
      tail = needed - head;
      if (head < 0)
        return ctx.fail("legacy_pad SAME with kernel " + Twine(k) + " < stride " + Twine(s) +
                        " asks for negative padding");
      // A negative tail only trims cells no window reaches: the output size is the same.
      tail = std::max<int64_t>(tail, 0);
      break;
    }
    case LegacyPad::CaffeLegacyPooling: {
      // Caffe's pooling size: rounded up, then the last window must start inside the image
      // (or its head padding); the tail padding grows to make floor rounding agree.
      if (in + 2 * head < k)
        return ctx.fail("kernel " + Twine(k) + " is larger than the padded input " +
                        Twine(in + 2 * head));
      int64_t out = int64_t(std::ceil(double(in + 2 * head - k) / double(s))) + 1;
      if (head > 0 && (out - 1) * s >= in + head)
        --out;
      int64_t standard = (in + 2 * head - k) / s + 1;
      tail = head + s * (out - standard);
      break;
    }
    }
    if (in + head + tail < dk)
      return ctx.fail("the window " + Twine(dk) + " is larger than the padded input " +
                      Twine(in + head + tail) + " on spatial dim " + Twine(i));
  }
  return Error::success();
}

} // namespace c2
} // namespace ember
