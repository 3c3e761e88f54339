// Caffe2's data movement operators: Concat and Split (concat_split_op.h), Reshape
// (reshape_op.h), Flatten (flatten_op.h), Transpose (transpose_op.h), Squeeze and ExpandDims
// (expand_squeeze_dims_op.h), Tile (tile_op.h), Slice (slice_op.h) and Gather (gather_op.h).
#include "OpContext.h"

#include "ember/Base/Dims.h"
#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

Expected<int64_t> canonical(OpContext &ctx, int64_t axis, size_t rank) {
  int64_t r = int64_t(rank);
  if (axis < -r || axis >= r)
    return ctx.fail("axis " + Twine(axis) + " is out of range for rank " + Twine(rank));
  return axis < 0 ? axis + r : axis;
}

/// `axis`, else the channel axis of `order` as GetDimFromOrderString (caffe2/core/types.h)
/// gives it whatever the rank: NCHW 1, NHWC 3.
Expected<int64_t> axisOrOrder(OpContext &ctx) {
  if (ctx.hasArg("axis"))
    return ctx.getInt("axis", 1);
  std::string order = ctx.getString("order", "NCHW");
  if (order == "NCHW")
    return 1;
  if (order == "NHWC")
    return 3;
  return ctx.fail("order '" + order + "' must be NCHW or NHWC");
}

Constant *int32Constant(OpContext &ctx, ArrayRef<int64_t> values, StringRef name) {
  Tensor t(Type(ElemKind::Int32, {dim_t(values.size())}));
  for (size_t i = 0; i < values.size(); ++i)
    t.dataAs<int32_t>()[i] = int32_t(values[i]);
  return ctx.module().createConstant(std::move(t), name);
}

/// Concat: along `axis` (or order's channel axis); `add_axis` stacks along a new axis. The
/// second output, split_info, holds each input's size along the axis (int32).
Error loadConcat(OpContext &ctx) {
  if (ctx.numInputs() == 0)
    return ctx.fail("Concat needs at least one input");
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(ctx.numInputs()));
  bool addAxis = ctx.getInt("add_axis", 0) != 0;
  size_t rank = in[0].getType().rank() + (addAxis ? 1 : 0);
  EMBER_ASSIGN_OR_RETURN(int64_t axis0, axisOrOrder(ctx));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, canonical(ctx, axis0, rank));
  std::vector<int64_t> sizes;
  SmallVector<NodeValue, 4> parts;
  for (NodeValue v : in) {
    if (addAxis) {
      DimsVec dims(v.getType().dims.begin(), v.getType().dims.end());
      dims.insert(dims.begin() + axis, 1);
      EMBER_ASSIGN_OR_RETURN(v, ctx.reshape(v, dims));
    }
    if (v.getType().rank() != rank)
      return ctx.fail("inputs " + in[0].getType().str() + " and " + v.getType().str() +
                      " differ in rank");
    sizes.push_back(int64_t(v.getType().dims[axis]));
    parts.push_back(v);
  }
  NodeValue y = parts[0];
  if (parts.size() > 1) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Concat, parts,
                                         AttrList().set<AttrKind::Axis>(axis)));
  }
  EMBER_TRY(ctx.setOutput(0, y));
  if (ctx.numOutputs() > 1)
    EMBER_TRY(ctx.setOutput(1, int32Constant(ctx, sizes, ctx.proto().output(1))->getResult()));
  return Error::success();
}

/// Split: along `axis` (or order's channel axis) into the sizes of the `split` argument or of
/// a second input, else into equal parts, one per output.
Error loadSplit(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ArrayRef<dim_t> dims = x.getType().dims;
  EMBER_ASSIGN_OR_RETURN(int64_t axis0, axisOrOrder(ctx));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, canonical(ctx, axis0, dims.size()));
  std::vector<int64_t> sizes;
  if (ctx.numInputs() > 1) {
    if (ctx.hasArg("split"))
      return ctx.fail("split sizes are given both as an input and as argument 'split'");
    EMBER_ASSIGN_OR_RETURN(sizes, ctx.constantInts(1));
  } else if (ctx.hasArg("split")) {
    sizes = ctx.getInts("split");
  } else {
    unsigned n = ctx.numOutputs();
    if (n == 0 || dims[axis] % n)
      return ctx.fail("dim " + Twine(dims[axis]) + " does not split into " + Twine(n) +
                      " equal parts");
    sizes.assign(n, int64_t(dims[axis] / n));
  }
  if (sizes.size() != ctx.numOutputs())
    return ctx.fail(Twine(sizes.size()) + " split sizes for " + Twine(ctx.numOutputs()) +
                    " outputs");
  int64_t start = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return ctx.fail("split size " + Twine(s) + " is negative");
    start += s;
  }
  if (start != int64_t(dims[axis]))
    return ctx.fail("split sizes " + intsToString(sizes) + " do not add up to dim " +
                    Twine(dims[axis]));
  start = 0;
  for (unsigned i = 0; i < sizes.size(); ++i) {
    std::vector<int64_t> starts(dims.size(), 0), steps(dims.size(), 1);
    std::vector<int64_t> outDims(dims.begin(), dims.end());
    starts[axis] = start;
    outDims[axis] = sizes[i];
    EMBER_ASSIGN_OR_RETURN(NodeValue y,
                           ctx.create(NodeKind::Slice, {x},
                                      AttrList()
                                          .set<AttrKind::Starts>(starts)
                                          .set<AttrKind::Steps>(steps)
                                          .set<AttrKind::Dims>(outDims),
                                      "part" + std::to_string(i)));
    EMBER_TRY(ctx.setOutput(i, y));
    start += sizes[i];
  }
  return Error::success();
}

/// Reshape: the new shape from argument `shape` or a second input; 0 copies the input's dim at
/// that position, -1 takes what is left. The second output, old_shape, is the input's shape
/// (int64).
Error loadReshape(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  std::vector<int64_t> shape;
  if (ctx.numInputs() > 1) {
    if (ctx.hasArg("shape"))
      return ctx.fail("the new shape is given both as an input and as argument 'shape'");
    EMBER_ASSIGN_OR_RETURN(shape, ctx.constantInts(1));
  } else if (ctx.hasArg("shape")) {
    shape = ctx.getInts("shape");
  } else {
    return ctx.fail("the new shape must be given as argument 'shape' or as a second input");
  }
  ArrayRef<dim_t> dims = x.getType().dims;
  DimsVec out;
  int64_t inferAt = -1;
  dim_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0) {
      if (i >= dims.size())
        return ctx.fail("shape " + intsToString(shape) + " copies dim " + Twine(i) +
                        ", which input " + x.getType().str() + " does not have");
      d = int64_t(dims[i]);
    } else if (d == -1) {
      if (inferAt >= 0)
        return ctx.fail("shape " + intsToString(shape) + " has more than one -1");
      inferAt = int64_t(i);
      out.push_back(1);
      continue;
    } else if (d < 0) {
      return ctx.fail("shape " + intsToString(shape) + " has a negative dim");
    }
    out.push_back(dim_t(d));
    known *= dim_t(d);
  }
  dim_t total = dimsProduct(dims);
  if (inferAt >= 0) {
    if (known == 0 || total % known)
      return ctx.fail("cannot reshape " + x.getType().str() + " to " + intsToString(shape));
    out[inferAt] = total / known;
  }
  if (dimsProduct(out) != total)
    return ctx.fail("cannot reshape " + x.getType().str() + " to " + intsToString(shape));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.reshape(x, out));
  EMBER_TRY(ctx.setOutput(0, y));
  if (ctx.numOutputs() > 1) {
    Tensor old(Type(ElemKind::Int64, {dim_t(dims.size())}));
    for (size_t i = 0; i < dims.size(); ++i)
      old.dataAs<int64_t>()[i] = int64_t(dims[i]);
    EMBER_TRY(ctx.setOutput(
        1, ctx.module().createConstant(std::move(old), ctx.proto().output(1))->getResult()));
  }
  return Error::success();
}

/// Flatten: [prod(dims[:axis]), prod(dims[axis:])], `axis` default 1.
Error loadFlatten(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ArrayRef<dim_t> dims = x.getType().dims;
  int64_t axis = ctx.getInt("axis", 1);
  if (axis < 0 || axis > int64_t(dims.size()))
    return ctx.fail("axis " + Twine(axis) + " is out of range for " + x.getType().str());
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.reshape(x, {dimsProduct(dims.take_front(axis)),
                                                      dimsProduct(dims.drop_front(axis))}));
  return ctx.setOutput(0, y);
}

/// Transpose: result dim i is input dim axes[i]; no `axes` reverses the dims.
Error loadTranspose(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  size_t rank = x.getType().rank();
  std::vector<int64_t> axes = ctx.getInts("axes");
  if (axes.empty())
    for (size_t i = 0; i < rank; ++i)
      axes.push_back(int64_t(rank - 1 - i));
  std::vector<bool> seen(rank, false);
  if (axes.size() != rank)
    return ctx.fail("axes " + intsToString(axes) + " is not a permutation of " + Twine(rank) +
                    " dims");
  for (int64_t &a : axes) {
    EMBER_ASSIGN_OR_RETURN(a, canonical(ctx, a, rank));
    if (seen[a])
      return ctx.fail("axes " + intsToString(axes) + " is not a permutation");
    seen[a] = true;
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.transpose(x, axes, ""));
  return ctx.setOutput(0, y);
}

/// Squeeze: drops the dims listed in `dims` (each must be 1).
Error loadSqueeze(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ArrayRef<dim_t> dims = x.getType().dims;
  std::vector<int64_t> drop = ctx.getInts("dims");
  std::vector<bool> dropped(dims.size(), false);
  for (int64_t d : drop) {
    if (d < 0 || d >= int64_t(dims.size()) || dims[d] != 1)
      return ctx.fail("dims " + intsToString(drop) + " must name dims of size 1 of " +
                      x.getType().str());
    dropped[d] = true;
  }
  DimsVec out;
  for (size_t i = 0; i < dims.size(); ++i)
    if (!dropped[i])
      out.push_back(dims[i]);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.reshape(x, out));
  return ctx.setOutput(0, y);
}

/// ExpandDims: inserts a dim of 1 at each position of `dims`, taken in increasing order.
Error loadExpandDims(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  std::vector<int64_t> add = ctx.getInts("dims");
  if (add.empty())
    return ctx.fail("argument 'dims' is required");
  std::sort(add.begin(), add.end());
  DimsVec out(x.getType().dims.begin(), x.getType().dims.end());
  for (size_t i = 0; i < add.size(); ++i) {
    if (add[i] < 0 || add[i] > int64_t(out.size()) || (i && add[i] == add[i - 1]))
      return ctx.fail("dims " + intsToString(add) + " are out of range or repeated for " +
                      x.getType().str());
    out.insert(out.begin() + add[i], 1);
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.reshape(x, out));
  return ctx.setOutput(0, y);
}

/// Tile: the input repeated `tiles` times along `axis`, each given as an argument or as input 1
/// and 2 (an input overrides the argument). TileOp copies a tiles input into an int32 pair
/// (tiles, axis) as raw bytes, so an int64 one also overwrites the axis with its high half (0)
/// unless input 2 gives the axis; an axis argument must then still be present.
Error loadTile(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  int64_t tiles = ctx.getInt("tiles", 1), axis = ctx.getInt("axis", 0);
  if (!ctx.hasArg("axis") && ctx.numInputs() < 3)
    return ctx.fail("argument 'axis' is missing and not given as input 2");
  if (ctx.numInputs() < 2 && !ctx.hasArg("tiles"))
    return ctx.fail("argument 'tiles' is missing and not given as input 1");
  for (unsigned i = 1; i < std::min(ctx.numInputs(), 3u); ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue in, ctx.input(i));
    EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.constantInts(i));
    if (in.getType().rank() != 1 || v.size() != 1)
      return ctx.fail("input " + Twine(i) + " must be a vector of one value");
    (i == 1 ? tiles : axis) = int64_t(int32_t(v[0]));
    if (i == 1 && in.getType().kind == ElemKind::Int64)
      axis = int64_t(int32_t(uint64_t(v[0]) >> 32));
  }
  ArrayRef<dim_t> dims = x.getType().dims;
  EMBER_ASSIGN_OR_RETURN(axis, canonical(ctx, axis, dims.size()));
  if (tiles < 1 || tiles > (int64_t(1) << 31))
    return ctx.fail("tiles " + Twine(tiles) + " must be in [1, 2^31]");
  // [outer, 1, inner] broadcast to [outer, tiles, inner]: each outer block repeats whole.
  dim_t outer = dimsProduct(dims.take_front(axis)), inner = dimsProduct(dims.drop_front(axis));
  EMBER_ASSIGN_OR_RETURN(NodeValue x3, ctx.reshape(x, {outer, 1, inner}));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.broadcastTo(x3, {outer, dim_t(tiles), inner}));
  DimsVec out(dims.begin(), dims.end());
  out[axis] *= dim_t(tiles);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.reshape(b, out));
  return ctx.setOutput(0, y);
}

/// Slice: per dim [start, end) from `starts`/`ends` (arguments or inputs 1 and 2); a negative
/// index i means dim + 1 + i (so -1 is the end); dims past the lists are taken whole.
Error loadSlice(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  std::vector<int64_t> starts, ends;
  if (ctx.numInputs() > 2) {
    EMBER_ASSIGN_OR_RETURN(starts, ctx.constantInts(1));
    EMBER_ASSIGN_OR_RETURN(ends, ctx.constantInts(2));
  } else {
    starts = ctx.getInts("starts");
    ends = ctx.getInts("ends");
  }
  ArrayRef<dim_t> dims = x.getType().dims;
  if (starts.size() != ends.size() || starts.size() > dims.size())
    return ctx.fail("starts " + intsToString(starts) + " and ends " + intsToString(ends) +
                    " must have the same length, at most the rank of " + x.getType().str());
  std::vector<int64_t> st(dims.size(), 0), steps(dims.size(), 1), out(dims.begin(), dims.end());
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t d = int64_t(dims[i]), s = starts[i], e = ends[i];
    if (s < 0)
      s += d + 1;
    if (e < 0)
      e += d + 1;
    s = std::min(s, d);
    e = std::min(e, d);
    if (s < 0 || e < s)
      return ctx.fail("starts " + intsToString(starts) + " and ends " + intsToString(ends) +
                      " give an empty or reversed range on dim " + Twine(i) + " of " +
                      x.getType().str());
    st[i] = s;
    out[i] = e - s;
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Slice, {x},
                                                 AttrList()
                                                     .set<AttrKind::Starts>(st)
                                                     .set<AttrKind::Steps>(steps)
                                                     .set<AttrKind::Dims>(out)));
  return ctx.setOutput(0, y);
}

/// Gather: Data's `axis` (default 0) replaced by Indices' dims.
Error loadGather(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  EMBER_ASSIGN_OR_RETURN(int64_t axis,
                         canonical(ctx, ctx.getInt("axis", 0), in[0].getType().rank()));
  if (!isIntegerKind(in[1].getType().kind))
    return ctx.fail("indices must be integer, got " + in[1].getType().str());
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Gather, {in[0], in[1]},
                                                 AttrList().set<AttrKind::Axis>(axis)));
  return ctx.setOutput(0, y);
}

} // namespace

void registerDataMovementOps(OpRegistry &r) {
  r.add("Concat", loadConcat);
  r.add("Split", loadSplit);
  r.add("Reshape", loadReshape);
  r.add("Flatten", loadFlatten);
  r.add("Transpose", loadTranspose);
  r.add("Squeeze", loadSqueeze);
  r.add("ExpandDims", loadExpandDims);
  r.add("Tile", loadTile);
  r.add("Slice", loadSlice);
  r.add("Gather", loadGather);
}

} // namespace c2
} // namespace ember
