// ONNX DeformConv (opset 19), 2-D as the ONNX reference and onnxruntime define it, lowered onto
// nodes every backend runs: each kernel tap of each output cell samples the input bilinearly
// (zero outside) at its place in the window moved by its offset, which is a GridSample (linear,
// zeros padding) at a grid computed from the offsets; the samples, scaled by the mask, are the
// columns of an im2col, and one batched MatMul by the filter, group by group, is the
// convolution. The ONNX reference computes it the same way, through GridSample.
#include "WindowAttrs.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

Error loadDeformConv(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue w, ctx.input(1));
  EMBER_ASSIGN_OR_RETURN(NodeValue offset, ctx.input(2));
  // Copies: x, w and offset may be rebound to float32 casts below.
  const Type xt = x.getType(), wt = w.getType(), ot = offset.getType();
  if (xt.rank() != 4)
    return ctx.fail("input " + xt.str() +
                    ": ember deforms 2-D convolutions only ([N, C, H, W]), as the ONNX "
                    "reference and onnxruntime do");
  if (!isFloatKind(xt.kind))
    return ctx.fail("input " + xt.str() + " must be floating point");
  std::optional<NodeValue> bias, mask;
  if (ctx.hasInput(3)) {
    EMBER_ASSIGN_OR_RETURN(bias, ctx.input(3));
  }
  if (ctx.hasInput(4)) {
    EMBER_ASSIGN_OR_RETURN(mask, ctx.input(4));
  }
  for (const std::optional<NodeValue> &v : {std::optional<NodeValue>(w),
                                             std::optional<NodeValue>(offset), bias, mask})
    if (v && v->getType().kind != xt.kind)
      return ctx.fail("filter, offset, bias and mask must have the input's element kind " +
                      std::string(elemKindName(xt.kind)) + ", got " + v->getType().str());

  if (wt.rank() != 4)
    return ctx.fail("filter " + wt.str() + " must be [C_out, C / group, kH, kW]");
  dim_t n = xt.dims[0], c = xt.dims[1], h = xt.dims[2], wd = xt.dims[3], oc = wt.dims[0];
  int64_t group = ctx.getInt("group", 1), offsetGroup = ctx.getInt("offset_group", 1);
  if (group <= 0 || dim_t(group) > c || c % dim_t(group) != 0 || oc % dim_t(group) != 0 ||
      wt.dims[1] * dim_t(group) != c)
    return ctx.fail("filter " + wt.str() + " with group " + Twine(group) +
                    " does not fit input " + xt.str() +
                    " (filter [C_out, C / group, kH, kW], group dividing C and C_out)");
  if (offsetGroup <= 0 || dim_t(offsetGroup) > c || c % dim_t(offsetGroup) != 0)
    return ctx.fail("offset_group " + Twine(offsetGroup) + " must divide the input's " +
                    Twine(c) + " channels");
  EMBER_ASSIGN_OR_RETURN(WindowAttrs win, readWindowAttrs(ctx, xt, filterKernels(ctx, wt)));
  if (win.kernels[0] != int64_t(wt.dims[2]) || win.kernels[1] != int64_t(wt.dims[3]))
    return ctx.fail("kernel_shape " + intsToString(win.kernels) + " does not match filter " +
                    wt.str());

  // The output's dims are the convolution's; the offsets must give a place to every tap of it.
  dim_t g = dim_t(offsetGroup), taps = wt.dims[2] * wt.dims[3];
  int64_t out[2];
  for (size_t a = 0; a < 2; ++a) {
    int64_t padded = int64_t(xt.dims[2 + a]) + win.pads[a] + win.pads[2 + a];
    int64_t span = padded - effectiveKernel(win, a);
    out[a] = span < 0 ? 0 : span / win.strides[a] + 1;
  }
  dim_t oh = dim_t(out[0]), ow = dim_t(out[1]);
  if (oh == 0 || ow == 0)
    return ctx.fail("input " + xt.str() + " with kernel_shape " + intsToString(win.kernels) +
                    ", strides " + intsToString(win.strides) + ", pads " +
                    intsToString(win.pads) + " and dilations " + intsToString(win.dilations) +
                    " gives an empty output");
  if (ot.rank() != 4 || ot.dims[0] != n || ot.dims[1] != g * taps * 2 || ot.dims[2] != oh ||
      ot.dims[3] != ow)
    return ctx.fail("offset " + ot.str() + " must be [" + Twine(n) + ", " +
                    Twine(g * taps * 2) + ", " + Twine(oh) + ", " + Twine(ow) +
                    "] (N, offset_group * kH * kW * 2, the output's dims)");
  if (mask && mask->getType().dims != DimsVec{n, g * taps, oh, ow})
    return ctx.fail("mask " + mask->getType().str() + " must be [" + Twine(n) + ", " +
                    Twine(g * taps) + ", " + Twine(oh) + ", " + Twine(ow) +
                    "] (N, offset_group * kH * kW, the output's dims)");
  if (bias && bias->getType().dims != DimsVec{oc})
    return ctx.fail("bias " + bias->getType().str() + " must be [" + Twine(oc) + "]");

  // The 16-bit floats compute in float32 (as the Interpreter computes them): a grid coordinate
  // in float16 would misplace a tap by up to 2^-11 of the input's size.
  ElemKind kind = xt.kind;
  if (kind == ElemKind::Float16 || kind == ElemKind::BFloat16) {
    kind = ElemKind::Float32;
    for (NodeValue *v : {&x, &w, &offset}) {
      EMBER_ASSIGN_OR_RETURN(*v, ctx.castTo(*v, kind, "as_float"));
    }
    for (std::optional<NodeValue> *v : {&bias, &mask})
      if (*v) {
        EMBER_ASSIGN_OR_RETURN(**v, ctx.castTo(**v, kind, "as_float"));
      }
  }

  // The grid: tap (i, j) of output cell (y, x) samples input place
  // (y * sH - padTop + i * dH + offset_h, x * sW - padLeft + j * dW + offset_w). GridSample
  // (align_corners 0) reads normalized coordinates, x first: place p on an axis of L cells is
  // (2p + 1) / L - 1, so the grid is offset * 2 / L plus a constant of the undeformed places.
  EMBER_ASSIGN_OR_RETURN(NodeValue pairs, ctx.reshape(offset, {n, g, taps, 2, oh, ow}));
  EMBER_ASSIGN_OR_RETURN(pairs, ctx.transpose(pairs, {0, 1, 2, 4, 5, 3}, "offset_pairs"));
  EMBER_ASSIGN_OR_RETURN(Tensor swap, ctx.newTensor(Type(ElemKind::Int64, {2}), "the x, y order"));
  swap.dataAs<int64_t>()[0] = 1;
  swap.dataAs<int64_t>()[1] = 0;
  EMBER_ASSIGN_OR_RETURN(
      pairs, ctx.create(NodeKind::Gather,
                        {pairs, ctx.createConstant(std::move(swap), "xy_order")->getResult()},
                        AttrList().set<AttrKind::Axis>(int64_t(5)), "offset_xy"));
  DimsVec gridDims{n, g, taps, oh, ow, 2};
  EMBER_ASSIGN_OR_RETURN(Tensor scale, ctx.newTensor(Type(kind, {2}), "the grid scale"));
  scale.setElementFromDouble(0, 2.0 / double(wd));
  scale.setElementFromDouble(1, 2.0 / double(h));
  EMBER_ASSIGN_OR_RETURN(NodeValue scaleV,
                         ctx.broadcastTo(ctx.createConstant(std::move(scale), "grid_scale")
                                             ->getResult(),
                                         gridDims));
  EMBER_ASSIGN_OR_RETURN(NodeValue grid,
                         ctx.create(NodeKind::Mul, {pairs, scaleV}, {}, "grid_offsets"));
  EMBER_ASSIGN_OR_RETURN(Tensor places,
                         ctx.newTensor(Type(kind, {taps, oh, ow, 2}), "the grid places"));
  size_t at = 0;
  for (dim_t i = 0; i < wt.dims[2]; ++i)
    for (dim_t j = 0; j < wt.dims[3]; ++j)
      for (dim_t y = 0; y < oh; ++y)
        for (dim_t xo = 0; xo < ow; ++xo) {
          double py = double(int64_t(y) * win.strides[0] - win.pads[0] +
                             int64_t(i) * win.dilations[0]);
          double px = double(int64_t(xo) * win.strides[1] - win.pads[1] +
                             int64_t(j) * win.dilations[1]);
          places.setElementFromDouble(at++, (2 * px + 1) / double(wd) - 1);
          places.setElementFromDouble(at++, (2 * py + 1) / double(h) - 1);
        }
  EMBER_ASSIGN_OR_RETURN(NodeValue placesV,
                         ctx.broadcastTo(ctx.createConstant(std::move(places), "grid_places")
                                             ->getResult(),
                                         gridDims));
  EMBER_ASSIGN_OR_RETURN(grid, ctx.create(NodeKind::Add, {grid, placesV}, {}, "grid"));
  EMBER_ASSIGN_OR_RETURN(grid, ctx.reshape(grid, {n * g, taps * oh, ow, 2}));

  // Each offset group's channels sample at its own grid: [N * G, C / G, taps * OH, OW].
  EMBER_ASSIGN_OR_RETURN(NodeValue xg, ctx.reshape(x, {n * g, c / g, h, wd}));
  AttrList sampleAttrs;
  sampleAttrs.set<AttrKind::Mode>("linear")
      .set<AttrKind::PaddingMode>("zeros")
      .set<AttrKind::AlignCorners>(0);
  EMBER_ASSIGN_OR_RETURN(NodeValue cols,
                         ctx.create(NodeKind::GridSample, {xg, grid}, sampleAttrs, "samples"));
  if (mask) {
    DimsVec sampled{n, g, c / g, taps, oh, ow};
    EMBER_ASSIGN_OR_RETURN(cols, ctx.reshape(cols, sampled));
    EMBER_ASSIGN_OR_RETURN(NodeValue m, ctx.reshape(*mask, {n, g, 1, taps, oh, ow}));
    EMBER_ASSIGN_OR_RETURN(m, ctx.broadcastTo(m, sampled));
    EMBER_ASSIGN_OR_RETURN(cols, ctx.create(NodeKind::Mul, {cols, m}, {}, "masked"));
  }

  // The columns, channel by channel and tap by tap as the filter holds them, per group:
  // [1, group, C_out / group, C / group * taps] x [N, group, C / group * taps, OH * OW].
  dim_t gr = dim_t(group);
  EMBER_ASSIGN_OR_RETURN(cols, ctx.reshape(cols, {n, gr, c / gr * taps, oh * ow}));
  EMBER_ASSIGN_OR_RETURN(NodeValue filter, ctx.reshape(w, {1, gr, oc / gr, c / gr * taps}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {filter, cols}, {}, "conv"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, {n, oc, oh, ow}));
  if (bias) {
    EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.reshape(*bias, {1, oc, 1, 1}));
    EMBER_ASSIGN_OR_RETURN(b, ctx.broadcastTo(b, {n, oc, oh, ow}));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Add, {y, b}, {}, "bias"));
  }
  if (kind != xt.kind) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.castTo(y, xt.kind, "as_float"));
  }
  return ctx.setOutput(0, y);
}

} // namespace

void registerNNDeformConvOps(OpRegistry &r) {
  r.add("DeformConv", 19, loadDeformConv);
  // DeformConv-22 only added bfloat16, which this loader computes in float32; it is registered
  // here because registerWidenedVersions does not list it.
  r.add("DeformConv", 22, loadDeformConv);
}

} // namespace ember
