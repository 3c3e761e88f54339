// Shape rules: convolution and pooling, N-D and channels first ([N, C, D1..Dn]). The matrix
// products are in NNMatMul.cpp.
#include "Common.h"

#include <cmath>
#include <sstream>

using namespace llvm;

namespace ember {

using namespace shape;

namespace {

/// A float attribute as users write it ("0.5", not "5.000000e-01").
std::string floatStr(float v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

/// Bound on kernel sizes, strides, dilations and pads: with dims below 2^40 (kMaxTensorBytes) all
/// window arithmetic then stays far inside int64.
constexpr int64_t kMaxWindowValue = int64_t(1) << 31;

/// Window geometry shared by Conv, ConvTranspose and the pools.
struct Window {
  std::vector<int64_t> kernels, strides, pads, dilations;
  bool ceilMode = false;
};

std::string windowStr(const Window &w) {
  return "kernels " + intsToString(w.kernels) + ", strides " + intsToString(w.strides) +
         ", pads " + intsToString(w.pads) + ", dilations " + intsToString(w.dilations);
}

/// Checks that \p w describes \p n spatial dims with kernels, strides and dilations in
/// [1, 2^31] and pads in [minPad, 2^31].
Error checkWindow(const Window &w, size_t n, int64_t minPad) {
  if (w.kernels.size() != n || w.strides.size() != n || w.dilations.size() != n ||
      w.pads.size() != 2 * n)
    return makeError("window attributes do not match " + Twine(n) + " spatial dims: " +
                     windowStr(w));
  auto inRange = [](int64_t v, int64_t lo) { return v >= lo && v <= kMaxWindowValue; };
  for (size_t i = 0; i < n; ++i)
    if (!inRange(w.kernels[i], 1) || !inRange(w.strides[i], 1) || !inRange(w.dilations[i], 1) ||
        !inRange(w.pads[i], minPad) || !inRange(w.pads[i + n], minPad))
      return makeError("invalid window: " + windowStr(w));
  return Error::success();
}

Expected<DimsVec> windowOutputDims(ArrayRef<dim_t> spatial, const Window &w) {
  size_t n = spatial.size();
  EMBER_TRY(checkWindow(w, n, 0));
  DimsVec out;
  std::string kernelStr, paddedStr;
  bool tooLarge = false;
  for (size_t i = 0; i < n; ++i) {
    int64_t s = w.strides[i], pb = w.pads[i], pe = w.pads[i + n];
    int64_t effective = (w.kernels[i] - 1) * w.dilations[i] + 1;
    int64_t padded = int64_t(spatial[i]) + pb + pe;
    kernelStr += (i ? "x" : "") + std::to_string(effective);
    paddedStr += (i ? "x" : "") + std::to_string(padded);
    if (effective > padded) {
      tooLarge = true;
      continue;
    }
    int64_t span = padded - effective;
    int64_t o = w.ceilMode ? (span + s - 1) / s + 1 : span / s + 1;
    // A window that would start inside the end padding is dropped (torch and onnxruntime agree).
    if (w.ceilMode && (o - 1) * s >= int64_t(spatial[i]) + pb)
      --o;
    out.push_back(dim_t(o));
  }
  if (tooLarge)
    return makeError("kernel " + kernelStr + " larger than padded input " + paddedStr);
  return out;
}

Window windowFromAttrs(const AttrList &attrs, bool hasDilations, bool hasCeil) {
  Window w;
  w.kernels = attrs.get<AttrKind::Kernels>();
  w.strides = attrs.get<AttrKind::Strides>();
  w.pads = attrs.get<AttrKind::Pads>();
  w.dilations = hasDilations ? attrs.get<AttrKind::Dilations>()
                             : std::vector<int64_t>(w.kernels.size(), 1);
  w.ceilMode = hasCeil && attrs.get<AttrKind::CeilMode>() != 0;
  return w;
}

/// An activation has a batch dim, a channel dim and at least one spatial dim.
Error expectChannelsFirst(const Type &t, StringRef what) {
  if (t.rank() < 3)
    return makeError(what + " must have rank >= 3 ([N, C, spatial...]), got " + t.str());
  if (t.isQuantized() || t.kind == ElemKind::Bool)
    return makeError(what + " must be numeric, got " + t.str());
  return Error::success();
}

/// The filter's spatial dims must be the kernel sizes.
Error expectKernelsMatchFilter(const Window &w, const Type &filter) {
  ArrayRef<dim_t> spatial = ArrayRef<dim_t>(filter.dims).drop_front(2);
  bool same = w.kernels.size() == spatial.size();
  for (size_t i = 0; same && i < spatial.size(); ++i)
    same = w.kernels[i] == int64_t(spatial[i]);
  if (!same)
    return makeError("kernel_shape " + intsToString(w.kernels) + " does not match filter " +
                     filter.str());
  return Error::success();
}

/// Input, filter and bias of a (transposed) convolution: float, equal kinds, filter of the
/// input's rank, bias a vector.
Error checkConvOperands(const Type &x, const Type &w, const Type &b) {
  EMBER_TRY(expectChannelsFirst(x, "input"));
  EMBER_TRY(expectFloat(x, "input"));
  EMBER_TRY(expectRank(w, x.rank(), "filter"));
  EMBER_TRY(expectRank(b, 1, "bias"));
  if (w.kind != x.kind || b.kind != x.kind)
    return makeError("input, filter and bias kinds differ: " + x.str() + ", " + w.str() + ", " +
                     b.str());
  return Error::success();
}

/// [N, C, spatial...] of \p kind, checked against the size limit.
Expected<Type> channelsFirstType(ElemKind kind, dim_t n, dim_t c, ArrayRef<dim_t> spatial) {
  DimsVec dims{n, c};
  dims.append(spatial.begin(), spatial.end());
  return Type::checkedDims(kind, dims);
}

Expected<Type> pooled(const Type &x, const Window &w) {
  EMBER_TRY(expectChannelsFirst(x, "pooling input"));
  EMBER_ASSIGN_OR_RETURN(DimsVec spatial,
                         windowOutputDims(ArrayRef<dim_t>(x.dims).drop_front(2), w));
  return channelsFirstType(x.kind, x.dims[0], x.dims[1], spatial);
}

} // namespace

Expected<DimsVec> shape::convResultDims(const Type &x, const Type &w, const Type &b,
                                        const AttrList &attrs) {
  EMBER_TRY(expectChannelsFirst(x, "input"));
  EMBER_TRY(expectRank(w, x.rank(), "filter"));
  EMBER_TRY(expectRank(b, 1, "bias"));
  int64_t group = attrs.get<AttrKind::Group>();
  dim_t c = x.dims[1], cout = w.dims[0];
  if (group <= 0 || c % dim_t(group) != 0 || cout % dim_t(group) != 0)
    return makeError("group " + Twine(group) + " does not divide input channels " + Twine(c) +
                     " and output channels " + Twine(cout));
  if (w.dims[1] * dim_t(group) != c)
    return makeError("filter " + w.str() + " expects " + Twine(w.dims[1] * group) +
                     " input channels, input " + x.str() + " has " + Twine(c));
  if (b.dims[0] != cout)
    return makeError("bias " + b.str() + " does not match " + Twine(cout) + " output channels");
  Window win = windowFromAttrs(attrs, true, false);
  EMBER_TRY(expectKernelsMatchFilter(win, w));
  EMBER_ASSIGN_OR_RETURN(DimsVec spatial,
                         windowOutputDims(ArrayRef<dim_t>(x.dims).drop_front(2), win));
  DimsVec dims{x.dims[0], cout};
  dims.append(spatial.begin(), spatial.end());
  return dims;
}

Expected<TypeList> inferTypesConv(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::Conv::Input], &w = in[ops::Conv::Filter], &b = in[ops::Conv::Bias];
  EMBER_TRY(checkConvOperands(x, w, b));
  EMBER_ASSIGN_OR_RETURN(DimsVec dims, convResultDims(x, w, b, attrs));
  EMBER_ASSIGN_OR_RETURN(Type y, Type::checkedDims(x.kind, dims));
  return TypeList{y};
}

Expected<TypeList> inferTypesConvTranspose(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::ConvTranspose::Input], &w = in[ops::ConvTranspose::Filter],
             &b = in[ops::ConvTranspose::Bias];
  EMBER_TRY(checkConvOperands(x, w, b));
  int64_t group = attrs.get<AttrKind::Group>();
  dim_t c = x.dims[1];
  if (group <= 0 || c % dim_t(group) != 0)
    return makeError("group " + Twine(group) + " does not divide input channels " + Twine(c));
  if (w.dims[0] != c)
    return makeError("filter " + w.str() + " expects " + Twine(w.dims[0]) +
                     " input channels, input " + x.str() + " has " + Twine(c));
  dim_t cout;
  if (!checkedMul(w.dims[1], dim_t(group), cout) || b.dims[0] != cout)
    return makeError("bias " + b.str() + " does not match the filter's " + w.str() + " times " +
                     Twine(group) + " groups output channels");
  Window win = windowFromAttrs(attrs, true, false);
  size_t n = x.rank() - 2;
  // Pads may be negative: an output_shape larger than the scattered extent grows the output.
  EMBER_TRY(checkWindow(win, n, -kMaxWindowValue));
  EMBER_TRY(expectKernelsMatchFilter(win, w));
  const std::vector<int64_t> &outPad = attrs.get<AttrKind::OutputPadding>();
  if (outPad.size() != n)
    return makeError("output_padding " + intsToString(outPad) + " does not match " + Twine(n) +
                     " spatial dims");
  DimsVec spatial;
  for (size_t i = 0; i < n; ++i) {
    if (outPad[i] < 0 || outPad[i] > kMaxWindowValue)
      return makeError("invalid output_padding " + intsToString(outPad));
    // (in - 1) * stride may overflow; the other terms are below 2^63 / 4 in magnitude.
    int64_t scattered, o;
    int64_t rest = (win.kernels[i] - 1) * win.dilations[i] + 1 + outPad[i] - win.pads[i] -
                   win.pads[i + n];
    if (__builtin_mul_overflow(int64_t(x.dims[2 + i]) - 1, win.strides[i], &scattered) ||
        __builtin_add_overflow(scattered, rest, &o))
      return makeError("output of " + x.str() + " with strides " + intsToString(win.strides) +
                       " is too large");
    if (x.dims[2 + i] == 0 || o <= 0)
      return makeError("input " + x.str() + " with " + windowStr(win) + " and output_padding " +
                       intsToString(outPad) + " gives an empty output");
    spatial.push_back(dim_t(o));
  }
  EMBER_ASSIGN_OR_RETURN(Type y, channelsFirstType(x.kind, x.dims[0], cout, spatial));
  return TypeList{y};
}

Expected<TypeList> inferTypesMaxPool(ArrayRef<Type> in, const AttrList &attrs) {
  int64_t order = attrs.get<AttrKind::StorageOrder>();
  if (order != 0 && order != 1)
    return makeError("storage_order must be 0 or 1, got " + Twine(order));
  EMBER_ASSIGN_OR_RETURN(Type y, pooled(in[0], windowFromAttrs(attrs, true, true)));
  return TypeList{y, Type(ElemKind::Int64, y.dims)};
}

Expected<TypeList> inferTypesAvgPool(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_TRY(expectFloat(in[0], "input"));
  EMBER_ASSIGN_OR_RETURN(Type y, pooled(in[0], windowFromAttrs(attrs, true, true)));
  return TypeList{y};
}

Expected<TypeList> inferTypesLpPool(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_TRY(expectFloat(in[0], "input"));
  float p = attrs.get<AttrKind::P>();
  if (!(p > 0.0f) || !std::isfinite(p))
    return makeError("p must be positive and finite, got " + floatStr(p));
  EMBER_ASSIGN_OR_RETURN(Type y, pooled(in[0], windowFromAttrs(attrs, true, true)));
  return TypeList{y};
}

Expected<TypeList> inferTypesMaxUnpool(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::MaxUnpool::Input], &idx = in[ops::MaxUnpool::Indices];
  EMBER_TRY(expectChannelsFirst(x, "input"));
  EMBER_TRY(expectFloat(x, "input"));
  if (idx.kind != ElemKind::Int64 || idx.dims != x.dims)
    return makeError("indices must be int64 with the input's dims, got " + idx.str() + " for " +
                     x.str());
  const std::vector<int64_t> &dims = attrs.get<AttrKind::Dims>();
  const std::vector<int64_t> &pads = attrs.get<AttrKind::Pads>();
  size_t n = x.rank() - 2;
  if (dims.size() != x.rank() || dims[0] != int64_t(x.dims[0]) || dims[1] != int64_t(x.dims[1]))
    return makeError("unpooled dims " + intsToString(dims) + " do not match input " + x.str());
  if (pads.size() != 2 * n)
    return makeError("pads " + intsToString(pads) + " do not match " + Twine(n) +
                     " spatial dims");
  // The unpooled dims are checked for size first so that the sums below cannot overflow.
  EMBER_TRY(Type::checked(x.kind, dims).takeError());
  std::vector<int64_t> result(dims.begin(), dims.end());
  for (size_t i = 0; i < n; ++i) {
    if (pads[i] < 0 || pads[i + n] < 0 || pads[i] > kMaxWindowValue ||
        pads[i + n] > kMaxWindowValue)
      return makeError("invalid pads " + intsToString(pads));
    result[2 + i] += pads[i] + pads[i + n];
  }
  EMBER_ASSIGN_OR_RETURN(Type y, Type::checked(x.kind, result));
  return TypeList{y};
}

Expected<TypeList> inferTypesMaxRoiPool(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::MaxRoiPool::Input], &rois = in[ops::MaxRoiPool::Rois];
  EMBER_TRY(expectRank(x, 4, "input"));
  EMBER_TRY(expectFloat(x, "input"));
  if (rois.kind != x.kind || rois.rank() != 2 || rois.dims[1] != 5)
    return makeError("rois must be " + elemKindName(x.kind) + "<R x 5>, got " + rois.str());
  const std::vector<int64_t> &dims = attrs.get<AttrKind::Dims>();
  if (dims.size() != 4 || dims[0] != int64_t(rois.dims[0]) || dims[1] != int64_t(x.dims[1]) ||
      dims[2] <= 0 || dims[3] <= 0)
    return makeError("result dims " + intsToString(dims) + " must be [" + Twine(rois.dims[0]) +
                     ", " + Twine(x.dims[1]) + ", pooled_h > 0, pooled_w > 0]");
  float scale = attrs.get<AttrKind::SpatialScale>();
  if (!(scale > 0.0f) || !std::isfinite(scale))
    return makeError("spatial_scale must be positive and finite, got " + floatStr(scale));
  EMBER_ASSIGN_OR_RETURN(Type y, Type::checked(x.kind, dims));
  return TypeList{y};
}

} // namespace ember
