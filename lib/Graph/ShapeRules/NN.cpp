// Shape rules: convolution, matrix multiply, pooling and normalization.
#include "Common.h"

using namespace llvm;

namespace ember {

using namespace shape;

namespace {

/// Window geometry shared by Conv and the pools: checks the spatial attributes against the
/// input's spatial dims and computes the output's.
struct Window {
  std::vector<int64_t> kernels, strides, pads, dilations;
  bool ceilMode = false;
};

Expected<DimsVec> windowOutputDims(ArrayRef<dim_t> spatial, const Window &w) {
  size_t n = spatial.size();
  if (w.kernels.size() != n || w.strides.size() != n || w.dilations.size() != n ||
      w.pads.size() != 2 * n)
    return makeError("window attributes do not match " + Twine(n) + " spatial dims: kernels " +
                     intsToString(w.kernels) + ", strides " + intsToString(w.strides) + ", pads " +
                     intsToString(w.pads) + ", dilations " + intsToString(w.dilations));
  DimsVec out;
  std::string kernelStr, paddedStr;
  bool tooLarge = false;
  for (size_t i = 0; i < n; ++i) {
    int64_t k = w.kernels[i], s = w.strides[i], d = w.dilations[i];
    int64_t pb = w.pads[i], pe = w.pads[i + n];
    if (k <= 0 || s <= 0 || d <= 0 || pb < 0 || pe < 0 || k > (int64_t(1) << 31) ||
        d > (int64_t(1) << 31) || pb > (int64_t(1) << 31) || pe > (int64_t(1) << 31))
      return makeError("invalid window: kernels " + intsToString(w.kernels) + ", strides " +
                       intsToString(w.strides) + ", pads " + intsToString(w.pads) + ", dilations " +
                       intsToString(w.dilations));
    int64_t effective = (k - 1) * d + 1;
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

Expected<TypeList> pool(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_TRY(expectRank(in[0], 4, "pooling input"));
  Window w = windowFromAttrs(attrs, false, true);
  EMBER_ASSIGN_OR_RETURN(DimsVec spatial,
                         windowOutputDims(ArrayRef<dim_t>(in[0].dims).drop_front(2), w));
  DimsVec dims{in[0].dims[0], in[0].dims[1]};
  dims.append(spatial.begin(), spatial.end());
  return TypeList{in[0].withDims(dims)};
}

} // namespace

Expected<TypeList> inferTypesConv(ArrayRef<Type> in, const AttrList &attrs) {
  const Type &x = in[ops::Conv::Input], &w = in[ops::Conv::Filter], &b = in[ops::Conv::Bias];
  EMBER_TRY(expectRank(x, 4, "input"));
  EMBER_TRY(expectRank(w, 4, "filter"));
  EMBER_TRY(expectRank(b, 1, "bias"));
  EMBER_TRY(expectFloat(x, "input"));
  if (w.kind != x.kind || b.kind != x.kind)
    return makeError("input, filter and bias kinds differ: " + x.str() + ", " + w.str() + ", " +
                     b.str());
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
  if (win.kernels.size() == 2 &&
      (dim_t(win.kernels[0]) != w.dims[2] || dim_t(win.kernels[1]) != w.dims[3]))
    return makeError("kernel_shape " + intsToString(win.kernels) + " does not match filter " + w.str());
  EMBER_ASSIGN_OR_RETURN(DimsVec spatial,
                         windowOutputDims(ArrayRef<dim_t>(x.dims).drop_front(2), win));
  DimsVec dims{x.dims[0], cout};
  dims.append(spatial.begin(), spatial.end());
  return TypeList{x.withDims(dims)};
}

Expected<TypeList> inferTypesMatMul(ArrayRef<Type> in, const AttrList &) {
  const Type &a = in[0], &b = in[1];
  EMBER_TRY(expectRank(a, 2, "LHS"));
  EMBER_TRY(expectRank(b, 2, "RHS"));
  if (a.kind != b.kind)
    return makeError("operand kinds differ: " + a.str() + " vs " + b.str());
  if (a.dims[1] != b.dims[0])
    return makeError("inner dimensions differ: " + a.str() + " x " + b.str());
  return TypeList{a.withDims({a.dims[0], b.dims[1]})};
}

Expected<TypeList> inferTypesMaxPool(ArrayRef<Type> in, const AttrList &attrs) {
  return pool(in, attrs);
}

Expected<TypeList> inferTypesAvgPool(ArrayRef<Type> in, const AttrList &attrs) {
  EMBER_TRY(expectFloat(in[0], "input"));
  return pool(in, attrs);
}

} // namespace ember
