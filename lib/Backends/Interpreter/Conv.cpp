// Conv: direct 2-D convolution, NCHW input, OIHW filter, grouped and dilated. The reference: one
// dot product per output element, no im2col, no blocking.
#include "KernelUtils.h"

using namespace llvm;

namespace ember {
namespace interp {

Error runConv(const KernelContext &ctx) {
  EMBER_TRY(expectFloat32(ctx));
  TensorArg x = ctx.in(ops::Conv::Input), w = ctx.in(ops::Conv::Filter),
            b = ctx.in(ops::Conv::Bias), y = ctx.out();
  const auto &strides = ctx.attr<AttrKind::Strides>();
  const auto &pads = ctx.attr<AttrKind::Pads>(); // [top, left, bottom, right]
  const auto &dilations = ctx.attr<AttrKind::Dilations>();
  int64_t group = ctx.attr<AttrKind::Group>();

  int64_t N = x.dims()[0], C = x.dims()[1], H = x.dims()[2], W = x.dims()[3];
  int64_t Cout = w.dims()[0], kH = w.dims()[2], kW = w.dims()[3];
  int64_t OH = y.dims()[2], OW = y.dims()[3];
  int64_t cinPerGroup = C / group, coutPerGroup = Cout / group;
  int64_t sH = strides[0], sW = strides[1], dH = dilations[0], dW = dilations[1];
  int64_t padTop = pads[0], padLeft = pads[1]; // end pads only shape the output dims

  const float *in = x.as<float>(), *filter = w.as<float>(), *bias = b.as<float>();
  float *out = y.as<float>();

  for (int64_t n = 0; n < N; ++n) {
    for (int64_t oc = 0; oc < Cout; ++oc) {
      // Output channel oc reads only the input channels of its own group.
      int64_t icBegin = (oc / coutPerGroup) * cinPerGroup;
      const float *filterOc = filter + oc * cinPerGroup * kH * kW;
      float *outPlane = out + (n * Cout + oc) * OH * OW;
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t ow = 0; ow < OW; ++ow) {
          float sum = bias[oc];
          for (int64_t ic = 0; ic < cinPerGroup; ++ic) {
            const float *inPlane = in + (n * C + icBegin + ic) * H * W;
            const float *filterIc = filterOc + ic * kH * kW;
            for (int64_t kh = 0; kh < kH; ++kh) {
              int64_t ih = oh * sH - padTop + kh * dH;
              if (ih < 0 || ih >= H)
                continue; // zero padding contributes nothing
              for (int64_t kw = 0; kw < kW; ++kw) {
                int64_t iw = ow * sW - padLeft + kw * dW;
                if (iw < 0 || iw >= W)
                  continue;
                sum += inPlane[ih * W + iw] * filterIc[kh * kW + kw];
              }
            }
          }
          outPlane[oh * OW + ow] = sum;
        }
      }
    }
  }
  return Error::success();
}

bool supportsConv(const Node &n) { return resultKindIn(n, {ElemKind::Float32}); }

} // namespace interp
} // namespace ember
