// ONNX convolution and pooling (N-D, channels first). The matrix products (MatMul, Gemm) are in
// NNOpsMatMul.cpp.
#include "OpContext.h"
#include "WindowAttrs.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

void registerNNMatMulOps(OpRegistry &r);
void registerNNRoiAlignOps(OpRegistry &r);
void registerNNDeformConvOps(OpRegistry &r);
void registerNNAttentionOps(OpRegistry &r); // NNOpsAttention.cpp

namespace {

/// The bias input, or zeros of \p channels when it is omitted.
Expected<NodeValue> biasOrZeros(OpContext &ctx, const Type &filter, dim_t channels) {
  if (ctx.hasInput(2))
    return ctx.input(2);
  return ctx.createConstant(Tensor(filter.withDims({channels})), "bias")->getResult();
}

Error loadConv(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue w, ctx.input(1));
  const Type &xt = x.getType(), &wt = w.getType();
  if (wt.rank() != xt.rank())
    return ctx.fail("filter " + wt.str() + " must have the rank of input " + xt.str());
  EMBER_ASSIGN_OR_RETURN(WindowAttrs win, readWindowAttrs(ctx, xt, filterKernels(ctx, wt)));
  resolveForwardAutoPad(win, xt);
  EMBER_ASSIGN_OR_RETURN(NodeValue bias, biasOrZeros(ctx, wt, wt.dims[0]));
  AttrList attrs = windowAttrList(win);
  attrs.set<AttrKind::Dilations>(win.dilations).set<AttrKind::Group>(ctx.getInt("group", 1));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Conv, {x, w, bias}, attrs));
  return ctx.setOutput(0, y);
}

/// ConvTranspose: output_shape (or SAME_*, which asks for input * stride) fixes the output size
/// and the pads follow from it; otherwise the pads are explicit.
Error loadConvTranspose(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue w, ctx.input(1));
  const Type &xt = x.getType(), &wt = w.getType();
  if (wt.rank() != xt.rank())
    return ctx.fail("filter " + wt.str() + " must have the rank of input " + xt.str());
  EMBER_ASSIGN_OR_RETURN(WindowAttrs win, readWindowAttrs(ctx, xt, filterKernels(ctx, wt)));
  size_t n = win.n;
  std::vector<int64_t> outPad = ctx.getInts("output_padding", std::vector<int64_t>(n, 0));
  if (outPad.size() != n)
    return ctx.fail("output_padding " + intsToString(outPad) + " does not describe " + Twine(n) +
                    " spatial dims");
  for (int64_t p : outPad)
    if (p < 0 || p > kMaxWindowValue)
      return ctx.fail("output_padding " + intsToString(outPad) + " must be in [0, 2^31]");
  int64_t group = ctx.getInt("group", 1);
  if (group <= 0 || dim_t(group) > xt.dims[1])
    return ctx.fail("group " + Twine(group) + " must be in [1, input channels " +
                    Twine(xt.dims[1]) + "]");

  std::vector<int64_t> outShape;
  if (ctx.hasAttr("output_shape")) {
    outShape = ctx.getInts("output_shape");
    if (outShape.size() == n + 2) // some exporters give the full shape
      outShape.erase(outShape.begin(), outShape.begin() + 2);
    if (outShape.size() != n)
      return ctx.fail("output_shape " + intsToString(outShape) + " does not describe " +
                      Twine(n) + " spatial dims");
  } else if (win.autoPad == "SAME_UPPER" || win.autoPad == "SAME_LOWER") {
    for (size_t i = 0; i < n; ++i)
      outShape.push_back(int64_t(xt.dims[2 + i]) * win.strides[i]);
  } else if (win.autoPad == "VALID") {
    std::fill(win.pads.begin(), win.pads.end(), 0);
  }
  if (!outShape.empty()) {
    for (size_t i = 0; i < n; ++i) {
      int64_t in = int64_t(xt.dims[2 + i]);
      if (outShape[i] <= 0 || outShape[i] > (int64_t(1) << 40) || in > (int64_t(1) << 30))
        return ctx.fail("output_shape " + intsToString(outShape) + " out of range for input " +
                        xt.str());
      splitPadding(win, i, win.strides[i] * (in - 1) + outPad[i] + effectiveKernel(win, i) -
                               outShape[i]);
    }
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue bias, biasOrZeros(ctx, wt, wt.dims[1] * dim_t(group)));
  AttrList attrs = windowAttrList(win);
  attrs.set<AttrKind::Dilations>(win.dilations)
      .set<AttrKind::Group>(group)
      .set<AttrKind::OutputPadding>(outPad);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::ConvTranspose, {x, w, bias}, attrs));
  return ctx.setOutput(0, y);
}

/// LpPool's p: a float before opset 2, an int from then on.
float lpNormExponent(OpContext &ctx) {
  return ctx.opset() < 2 ? ctx.getFloat("p", 2.0f) : float(ctx.getInt("p", 2));
}

/// The first opset whose \p K reads dilations (and, for LpPool, ceil_mode): AveragePool-19,
/// LpPool-18; MaxPool always has.
template <NodeKind K> constexpr int64_t poolDilationsSince() {
  return K == NodeKind::AvgPool ? 19 : K == NodeKind::LpPool ? 18 : 1;
}

/// MaxPool, AveragePool and LpPool.
template <NodeKind K> Error loadPool(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (!ctx.hasAttr("kernel_shape"))
    return ctx.fail("attribute 'kernel_shape' is required");
  EMBER_ASSIGN_OR_RETURN(WindowAttrs win,
                         readWindowAttrs(ctx, x.getType(), ctx.getInts("kernel_shape")));
  bool readsDilations = ctx.opset() >= poolDilationsSince<K>();
  if (!readsDilations)
    for (int64_t d : win.dilations)
      if (d != 1)
        return ctx.fail("dilations " + intsToString(win.dilations) + " are not defined for " +
                        ctx.proto().op_type() + " before opset " +
                        Twine(poolDilationsSince<K>()));
  resolveForwardAutoPad(win, x.getType());
  AttrList attrs = windowAttrList(win);
  attrs.set<AttrKind::Dilations>(win.dilations);
  if (K == NodeKind::MaxPool)
    attrs.set<AttrKind::StorageOrder>(ctx.getInt("storage_order", 0));
  // LpPool before opset 18 has no ceil_mode: its windows always round down.
  attrs.set<AttrKind::CeilMode>(K != NodeKind::LpPool || readsDilations
                                    ? ctx.getInt("ceil_mode", 0)
                                    : 0);
  if (K == NodeKind::AvgPool)
    attrs.set<AttrKind::CountIncludePad>(ctx.getInt("count_include_pad", 0));
  if (K == NodeKind::LpPool)
    attrs.set<AttrKind::P>(lpNormExponent(ctx));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {x}, attrs));
  EMBER_TRY(ctx.setOutput(0, y));
  if (K == NodeKind::MaxPool)
    EMBER_TRY(ctx.setOutput(1, NodeValue(y.node, ops::MaxPool::Indices)));
  return Error::success();
}

/// GlobalMaxPool, GlobalAveragePool and GlobalLpPool: one window over all spatial dims.
template <NodeKind K> Error loadGlobalPool(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  if (t.rank() < 3)
    return ctx.fail("input must have rank >= 3 ([N, C, spatial...]), got " + t.str());
  size_t n = t.rank() - 2;
  std::vector<int64_t> kernels;
  for (size_t i = 0; i < n; ++i) {
    if (t.dims[2 + i] == 0)
      return ctx.fail("input " + t.str() + " has an empty spatial dim");
    kernels.push_back(int64_t(t.dims[2 + i]));
  }
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(kernels)
      .set<AttrKind::Strides>(std::vector<int64_t>(n, 1))
      .set<AttrKind::Pads>(std::vector<int64_t>(2 * n, 0))
      .set<AttrKind::Dilations>(std::vector<int64_t>(n, 1))
      .set<AttrKind::CeilMode>(0);
  if (K == NodeKind::MaxPool)
    attrs.set<AttrKind::StorageOrder>(0);
  if (K == NodeKind::AvgPool)
    attrs.set<AttrKind::CountIncludePad>(0);
  if (K == NodeKind::LpPool)
    attrs.set<AttrKind::P>(lpNormExponent(ctx));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {x}, attrs));
  return ctx.setOutput(0, y);
}

/// MaxUnpool scatters into the shape MaxPool's attributes imply; an output_shape input larger
/// than that pads it with zeros at the end of each spatial dim (the ONNX reference's rule, which
/// the backend tests follow).
Error loadMaxUnpool(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue indices, ctx.input(1));
  if (!ctx.hasAttr("kernel_shape"))
    return ctx.fail("attribute 'kernel_shape' is required");
  const Type &t = x.getType();
  EMBER_ASSIGN_OR_RETURN(WindowAttrs win, readWindowAttrs(ctx, t, ctx.getInts("kernel_shape")));
  size_t n = win.n;
  std::vector<int64_t> unpooled{int64_t(t.dims[0]), int64_t(t.dims[1])};
  for (size_t i = 0; i < n; ++i) {
    int64_t in = int64_t(t.dims[2 + i]);
    if (in > (int64_t(1) << 31))
      return ctx.fail("input " + t.str() + " is too large to unpool");
    int64_t d = (in - 1) * win.strides[i] + win.kernels[i] - win.pads[i] - win.pads[i + n];
    if (in == 0 || d <= 0)
      return ctx.fail("input " + t.str() + " with kernel_shape " + intsToString(win.kernels) +
                      ", strides " + intsToString(win.strides) + " and pads " +
                      intsToString(win.pads) + " unpools to an empty tensor");
    unpooled.push_back(d);
  }
  std::vector<int64_t> pads(2 * n, 0);
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.constantInts(2));
    if (shape.size() != t.rank() || shape[0] != unpooled[0] || shape[1] != unpooled[1])
      return ctx.fail("output_shape " + intsToString(shape) + " does not match input " +
                      t.str());
    for (size_t i = 0; i < n; ++i) {
      if (shape[2 + i] < unpooled[2 + i] || shape[2 + i] - unpooled[2 + i] > kMaxWindowValue)
        return ctx.fail("output_shape " + intsToString(shape) +
                        " must be at least the unpooled shape " + intsToString(unpooled) +
                        " (and at most 2^31 larger)");
      pads[n + i] = shape[2 + i] - unpooled[2 + i];
    }
  }
  AttrList attrs;
  attrs.set<AttrKind::Dims>(unpooled).set<AttrKind::Pads>(pads);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MaxUnpool, {x, indices}, attrs));
  return ctx.setOutput(0, y);
}

Error loadMaxRoiPool(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue rois, ctx.input(1));
  if (!ctx.hasAttr("pooled_shape"))
    return ctx.fail("attribute 'pooled_shape' is required");
  std::vector<int64_t> pooled = ctx.getInts("pooled_shape");
  const Type &t = x.getType(), &r = rois.getType();
  if (pooled.size() != 2 || t.rank() != 4 || r.rank() != 2)
    return ctx.fail("pooled_shape " + intsToString(pooled) + ", input " + t.str() +
                    " and rois " + r.str() + " must be [h, w], [N, C, H, W] and [R, 5]");
  AttrList attrs;
  attrs.set<AttrKind::Dims>({int64_t(r.dims[0]), int64_t(t.dims[1]), pooled[0], pooled[1]})
      .set<AttrKind::SpatialScale>(ctx.getFloat("spatial_scale", 1.0f));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MaxRoiPool, {x, rois}, attrs));
  return ctx.setOutput(0, y);
}

} // namespace

void registerNNOps(OpRegistry &r) {
  r.add("Conv", 1, loadConv);
  r.add("ConvTranspose", 1, loadConvTranspose);
  r.add("MaxPool", 1, loadPool<NodeKind::MaxPool>);
  r.add("AveragePool", 1, loadPool<NodeKind::AvgPool>);
  r.add("AveragePool", poolDilationsSince<NodeKind::AvgPool>(), loadPool<NodeKind::AvgPool>);
  r.add("LpPool", 1, loadPool<NodeKind::LpPool>);
  r.add("LpPool", poolDilationsSince<NodeKind::LpPool>(), loadPool<NodeKind::LpPool>);
  r.add("GlobalMaxPool", 1, loadGlobalPool<NodeKind::MaxPool>);
  r.add("GlobalAveragePool", 1, loadGlobalPool<NodeKind::AvgPool>);
  r.add("GlobalLpPool", 1, loadGlobalPool<NodeKind::LpPool>);
  r.add("MaxUnpool", 9, loadMaxUnpool);
  r.add("MaxRoiPool", 1, loadMaxRoiPool);
  registerNNMatMulOps(r);
  registerNNRoiAlignOps(r);
  registerNNDeformConvOps(r);
  registerNNAttentionOps(r);
}

} // namespace ember
