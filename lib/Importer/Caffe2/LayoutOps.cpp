// Caffe2's layout, shape and indexing operators that are data movement of existing node kinds:
// NCHW2NHWC and NHWC2NCHW (order_switch_ops.cc), Shape (shape_op.h), ChannelShuffle
// (channel_shuffle_op.cc), ResizeNearest (resize_op.cc), BatchGather (batch_gather_ops.h), and
// ScatterAssign and LengthsToRanges (utility_ops.h).
#include "OpContext.h"

#include "ember/Base/Dims.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// NCHW2NHWC: N C H1..Hk -> N H1..Hk C; NHWC2NCHW the inverse; at least 3 dims.
template <bool ToNHWC> Error loadOrderSwitch(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  size_t rank = x.getType().rank();
  if (rank < 3)
    return ctx.fail(Twine("Input for ") + (ToNHWC ? "NCHW2NHWC" : "NHWC2NCHW") +
                    " must be >= 3 dimensional, got " + x.getType().str());
  std::vector<int64_t> perm = {0};
  if (ToNHWC) {
    for (size_t i = 2; i < rank; ++i)
      perm.push_back(int64_t(i));
    perm.push_back(1);
  } else {
    perm.push_back(int64_t(rank - 1));
    for (size_t i = 1; i + 1 < rank; ++i)
      perm.push_back(int64_t(i));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.transpose(x, perm, ""));
  return ctx.setOutput(0, y);
}

/// Shape: the input's dims (int64), or those of `axes` in that order (each in [0, rank)).
Error loadShape(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ArrayRef<dim_t> dims = x.getType().dims;
  std::vector<int64_t> axes = ctx.getInts("axes");
  if (axes.empty())
    for (size_t i = 0; i < dims.size(); ++i)
      axes.push_back(int64_t(i));
  Tensor t(Type(ElemKind::Int64, {dim_t(axes.size())}));
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] >= int64_t(dims.size()))
      return ctx.fail("Axis out of range: " + Twine(axes[i]) + " for " + x.getType().str());
    if (axes[i] < 0)
      return ctx.fail("Each axis should be non-negative, got " + Twine(axes[i]));
    t.dataAs<int64_t>()[i] = int64_t(dims[size_t(axes[i])]);
  }
  return ctx.setOutput(0, ctx.createConstant(std::move(t), "")->getResult());
}

/// `order` (default NCHW): whether it is NCHW; an error unless NCHW or NHWC.
Expected<bool> isNCHW(OpContext &ctx) {
  std::string order = ctx.getString("order", "NCHW");
  if (order != "NCHW" && order != "NHWC")
    return ctx.fail("order '" + order + "' must be NCHW or NHWC");
  return order == "NCHW";
}

/// ChannelShuffle: the C = G * K channels of `order` (NCHW: dim 1, NHWC: the last) seen as
/// [G, K] and transposed to [K, G]; `group` G defaults to 1.
Error loadChannelShuffle(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ArrayRef<dim_t> dims = x.getType().dims;
  EMBER_ASSIGN_OR_RETURN(bool nchw, isNCHW(ctx));
  if (dims.size() < 2)
    return ctx.fail("needs at least 2 dims, got " + x.getType().str());
  size_t axis = nchw ? 1 : dims.size() - 1;
  int64_t g = ctx.getInt("group", 1);
  if (g < 1 || dims[axis] % dim_t(g))
    return ctx.fail("C % G == 0 fails: " + Twine(dims[axis]) + " channels, group " + Twine(g));
  dim_t outer = dimsProduct(dims.take_front(axis)), inner = dimsProduct(dims.drop_front(axis + 1));
  dim_t k = dims[axis] / dim_t(g);
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.reshape(x, {outer, dim_t(g), k, inner}));
  EMBER_ASSIGN_OR_RETURN(v, ctx.transpose(v, {0, 2, 1, 3}, "shuffle"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.reshape(v, dims));
  return ctx.setOutput(0, y);
}

/// Gathers along \p axis the positions \p index gives (int32 constant).
Expected<NodeValue> gatherConstant(OpContext &ctx, NodeValue x, int64_t axis,
                                   ArrayRef<int32_t> index, StringRef name) {
  Tensor t(Type(ElemKind::Int32, {dim_t(index.size())}));
  std::copy(index.begin(), index.end(), t.dataAs<int32_t>());
  NodeValue idx = ctx.createConstant(std::move(t), std::string(name) + "_index")->getResult();
  return ctx.create(NodeKind::Gather, {x, idx}, AttrList().set<AttrKind::Axis>(axis), name);
}

/// ResizeNearest: 4-D X in `order`, out = int(in * scale) rows and columns, row y reading
/// min(int(y / height_scale), H - 1) (float arithmetic, as the kernel's); scales from
/// `height_scale`/`width_scale` (default 1) or a constant second input [h, w].
Error loadResizeNearest(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ArrayRef<dim_t> dims = x.getType().dims;
  EMBER_ASSIGN_OR_RETURN(bool nchw, isNCHW(ctx));
  if (dims.size() != 4)
    return ctx.fail("X must be 4-D, got " + x.getType().str());
  float scales[2] = {ctx.getFloat("height_scale", 1), ctx.getFloat("width_scale", 1)};
  if (!(scales[0] > 0) || !(scales[1] > 0))
    return ctx.fail("width_scale > 0 and height_scale > 0 fail: " + std::to_string(scales[1]) +
                    ", " + std::to_string(scales[0]));
  if (ctx.numInputs() == 2) {
    EMBER_ASSIGN_OR_RETURN(const Tensor *s, ctx.constantInput(1));
    if (s->getType().rank() != 1 || s->getType().numElements() != 2 ||
        s->getType().kind != ElemKind::Float32)
      return ctx.fail("scales must be a float vector of 2, got " + s->getType().str());
    scales[0] = s->dataAs<float>()[0];
    scales[1] = s->dataAs<float>()[1];
  }
  int64_t hAxis = nchw ? 2 : 1;
  NodeValue y = x;
  for (int64_t i = 0; i < 2; ++i) {
    int in = int(dims[size_t(hAxis + i)]);
    int out = int(float(in) * scales[i]);
    if (out < 1)
      return ctx.fail("the output of " + x.getType().str() + " would have no " +
                      (i ? "columns" : "rows"));
    std::vector<int32_t> index(static_cast<size_t>(out));
    for (int o = 0; o < out; ++o)
      index[size_t(o)] = std::min(int(float(o) / scales[i]), in - 1);
    EMBER_ASSIGN_OR_RETURN(y, gatherConstant(ctx, y, hAxis + i, index, i ? "" : "rows"));
  }
  return ctx.setOutput(0, y);
}

/// BatchGather: DATA (at least 2-D) gathered along dim 1 by int32/int64 INDICES: out =
/// [B, indices dims..., DATA dims 2..].
Error loadBatchGather(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  if (in[0].getType().rank() < 2)
    return ctx.fail("DATA should be at least 2-D, got " + in[0].getType().str());
  ElemKind ik = in[1].getType().kind;
  if (ik != ElemKind::Int32 && ik != ElemKind::Int64)
    return ctx.fail("INDICES must be int32 or int64, got " + in[1].getType().str());
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Gather, {in[0], in[1]},
                                                 AttrList().set<AttrKind::Axis>(1)));
  return ctx.setOutput(0, y);
}

/// ScatterAssign: DATA (in place) seen as [N, M / N] gets row INDICES[k] replaced by SLICES'
/// row k (SLICES seen as [K, M / N]); Caffe2 lets an arbitrary one of repeated indices win,
/// ember the last.
Error loadScatterAssign(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(3));
  if (ctx.numOutputs() != 1 || ctx.proto().output(0) != ctx.proto().input(0))
    return ctx.fail("In place operation is required (output 0 must be input 0, the DATA)");
  NodeValue data = in[0], indices = in[1], slices = in[2];
  ArrayRef<dim_t> dims = data.getType().dims;
  if (dims.empty() || dims[0] == 0)
    return ctx.fail("X0 has to be at least the vector, got " + data.getType().str());
  ElemKind ik = indices.getType().kind;
  if (ik != ElemKind::Int32 && ik != ElemKind::Int64)
    return ctx.fail("INDICES must be int32 or int64, got " + indices.getType().str());
  if (slices.getType().kind != data.getType().kind)
    return ctx.fail("SLICES " + slices.getType().str() + " and DATA " + data.getType().str() +
                    " differ in element type");
  dim_t n = dims[0], block = data.getType().numElements() / n;
  dim_t k = indices.getType().numElements();
  if (slices.getType().numElements() != k * block)
    return ctx.fail("SLICES " + slices.getType().str() + " must hold " + Twine(k) +
                    " slices of " + Twine(block) + " (DATA " + data.getType().str() + ")");
  EMBER_ASSIGN_OR_RETURN(NodeValue d2, ctx.reshape(data, {n, block}));
  EMBER_ASSIGN_OR_RETURN(NodeValue i2, ctx.reshape(indices, {k, 1}));
  EMBER_ASSIGN_OR_RETURN(NodeValue s2, ctx.reshape(slices, {k, block}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::ScatterND, {d2, i2, s2},
                                    AttrList().set<AttrKind::Reduction>(std::string("none")),
                                    "scatter"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, dims));
  return ctx.setOutput(0, y);
}

/// LengthsToRanges: int32 lengths [N] -> int32 [N, 2] of (offset, length), the offsets the
/// running sums of the lengths before each.
Error loadLengthsToRanges(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue lengths, ctx.input(0));
  if (lengths.getType().rank() != 1 || lengths.getType().kind != ElemKind::Int32)
    return ctx.fail("Input must be a vector (of int32 lengths), got " +
                    lengths.getType().str());
  dim_t n = lengths.getType().dims[0];
  EMBER_ASSIGN_OR_RETURN(NodeValue offsets,
                         ctx.create(NodeKind::CumSum, {lengths},
                                    AttrList()
                                        .set<AttrKind::Axis>(0)
                                        .set<AttrKind::Exclusive>(1)
                                        .set<AttrKind::Reverse>(0),
                                    "offsets"));
  EMBER_ASSIGN_OR_RETURN(NodeValue o2, ctx.reshape(offsets, {n, 1}));
  EMBER_ASSIGN_OR_RETURN(NodeValue l2, ctx.reshape(lengths, {n, 1}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Concat, {o2, l2},
                                                 AttrList().set<AttrKind::Axis>(1)));
  return ctx.setOutput(0, y);
}

} // namespace

void registerLayoutOps(OpRegistry &r) {
  r.add("NCHW2NHWC", loadOrderSwitch<true>);
  r.add("NHWC2NCHW", loadOrderSwitch<false>);
  r.add("Shape", loadShape);
  r.add("ChannelShuffle", loadChannelShuffle);
  r.add("ResizeNearest", loadResizeNearest);
  r.add("BatchGather", loadBatchGather);
  r.add("ScatterAssign", loadScatterAssign);
  r.add("LengthsToRanges", loadLengthsToRanges);
}

} // namespace c2
} // namespace ember
