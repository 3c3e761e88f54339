// Conv and ConvTranspose: direct N-D convolutions, channels first, grouped and dilated. The
// reference: one dot product per output element, no im2col, no blocking.
//
// Both are the same gather: output cell o of an output channel sums, over the input channels of
// its group and the kernel taps k, input cell i(o, k) times filter tap k. They differ in where a
// tap reads along each spatial axis (Conv: i = o*stride - pad + k*dilation; ConvTranspose, which
// scatters input i to o = i*stride - pad + k*dilation, read backwards: i = (o + pad -
// k*dilation) / stride when that divides) and in the filter's layout ([C_out, C_in/group, k..]
// vs [C_in, C_out/group, k..]). FusedConv is Conv with an activation applied to each stored
// result (FusedActivation.h).
#include "NNCommon.h"
#include "FusedActivation.h"

#include <vector>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// One kernel tap that reads a real input cell: offsets within an input plane and the filter's
/// kernel volume.
struct Tap {
  size_t input, filter;
};

/// Per spatial axis, for every (output cell o, kernel tap k) the input cell read, or -1 when the
/// tap falls into padding (or, transposed, between strides).
struct AxisSources {
  int64_t kernel;
  std::vector<int64_t> source; // [o * kernel + k]
};

AxisSources axisSources(bool transposed, int64_t outSize, int64_t inSize, int64_t kernel,
                        int64_t stride, int64_t padBegin, int64_t dilation) {
  AxisSources a{kernel, std::vector<int64_t>(size_t(outSize * kernel), -1)};
  for (int64_t o = 0; o < outSize; ++o)
    for (int64_t k = 0; k < kernel; ++k) {
      int64_t i;
      if (!transposed) {
        i = o * stride - padBegin + k * dilation;
      } else {
        int64_t t = o + padBegin - k * dilation;
        if (t < 0 || t % stride != 0)
          continue;
        i = t / stride;
      }
      if (i >= 0 && i < inSize)
        a.source[size_t(o * kernel + k)] = i;
    }
  return a;
}

template <typename T>
Error convolve(const KernelContext &ctx, bool transposed, const FusedActivation &act) {
  using Acc = FloatAccum<T>;
  // Conv and ConvTranspose share operand numbering.
  TensorArg x = ctx.in(ops::Conv::Input), w = ctx.in(ops::Conv::Filter),
            b = ctx.in(ops::Conv::Bias), y = ctx.out();
  const auto &strides = ctx.attr<AttrKind::Strides>();
  const auto &pads = ctx.attr<AttrKind::Pads>(); // end pads only shape the output dims
  const auto &dilations = ctx.attr<AttrKind::Dilations>();
  int64_t group = ctx.attr<AttrKind::Group>();

  ArrayRef<dim_t> inDims = spatialDims(x), outDims = spatialDims(y), kDims = spatialDims(w);
  size_t n = inDims.size();
  size_t batch = x.dims()[0], cin = x.dims()[1], cout = y.dims()[1];
  size_t cinPerGroup = cin / size_t(group), coutPerGroup = cout / size_t(group);
  size_t inPlane = dimsProduct(inDims, 0, n), outPlane = dimsProduct(outDims, 0, n),
         kVolume = dimsProduct(kDims, 0, n);
  DimsVec inStrides = rowMajorStrides(inDims);

  std::vector<AxisSources> axes;
  for (size_t a = 0; a < n; ++a)
    axes.push_back(axisSources(transposed, int64_t(outDims[a]), int64_t(inDims[a]),
                               int64_t(kDims[a]), strides[a], pads[a], dilations[a]));

  const T *in = x.as<T>(), *filter = w.as<T>(), *bias = b.as<T>();
  T *out = y.as<T>();
  SmallVector<int64_t, 6> o(n), k(n);
  std::vector<Tap> taps;
  for (size_t op = 0; op < outPlane; ++op) {
    // The taps of output position op that land on real input cells, the same for every plane.
    unflatten(op, outDims, o);
    taps.clear();
    for (size_t kp = 0; kp < kVolume; ++kp) {
      unflatten(kp, kDims, k);
      size_t input = 0;
      bool inside = true;
      for (size_t a = 0; a < n && inside; ++a) {
        int64_t i = axes[a].source[size_t(o[a] * axes[a].kernel + k[a])];
        inside = i >= 0;
        input += size_t(i) * inStrides[a];
      }
      if (inside)
        taps.push_back({input, kp});
    }
    for (size_t bn = 0; bn < batch; ++bn)
      for (size_t oc = 0; oc < cout; ++oc) {
        size_t g = oc / coutPerGroup, ocInGroup = oc % coutPerGroup;
        Acc sum = Acc(bias[oc]);
        for (size_t icInGroup = 0; icInGroup < cinPerGroup; ++icInGroup) {
          size_t ic = g * cinPerGroup + icInGroup;
          const T *plane = in + (bn * cin + ic) * inPlane;
          const T *kernel = filter + (transposed ? ic * coutPerGroup + ocInGroup
                                                 : oc * cinPerGroup + icInGroup) *
                                         kVolume;
          for (const Tap &t : taps)
            sum += Acc(plane[t.input]) * Acc(kernel[t.filter]);
        }
        out[(bn * cout + oc) * outPlane + op] = act.apply(T(sum));
      }
  }
  return Error::success();
}

} // namespace

Error runConv(const KernelContext &ctx) {
  return dispatchFloatKinds(ctx, [&](auto tag) {
    return convolve<decltype(tag)>(ctx, false, FusedActivation::none());
  });
}

Error runFusedConv(const KernelContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(FusedActivation act, FusedActivation::of(ctx));
  return dispatchFloatKinds(ctx,
                            [&](auto tag) { return convolve<decltype(tag)>(ctx, false, act); });
}

Error runConvTranspose(const KernelContext &ctx) {
  return dispatchFloatKinds(ctx, [&](auto tag) {
    return convolve<decltype(tag)>(ctx, true, FusedActivation::none());
  });
}

bool supportsConv(const Node &n) { return resultKindIn(n, kFloatKinds); }
bool supportsConvTranspose(const Node &n) { return resultKindIn(n, kFloatKinds); }
bool supportsFusedConv(const Node &n) { return resultKindIn(n, kFloatKinds); }

} // namespace interp
} // namespace ember
