// ONNX slicing, padding and tiling: Slice, Split, Pad, Tile, Expand, DepthToSpace,
// SpaceToDepth, Trilu. Most become Slice, Reshape, Transpose and Broadcast nodes.
#include "DataMovementOps.h"

#include "ember/Support/Error.h"

#include <cmath>
#include <numeric>

using namespace llvm;

namespace ember {

namespace {

/// Where one axis of a Slice starts, its step and how many elements it keeps.
struct AxisSlice {
  int64_t start = 0, step = 1, count = 0;
};

/// ONNX Slice on one axis of length \p n: negative starts/ends count from the end, then both
/// clamp to [0, n] (step > 0) or [-1, n-1] (step < 0, walking backwards).
AxisSlice resolveAxisSlice(int64_t start, int64_t end, int64_t step, int64_t n) {
  AxisSlice s;
  s.step = step;
  if (n == 0)
    return s;
  if (start < 0)
    start += n;
  if (end < 0)
    end += n;
  // 128-bit: a step may be anything down to INT64_MIN.
  __int128 span;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, n);
    end = std::clamp<int64_t>(end, 0, n);
    span = __int128(end) - start;
  } else {
    start = std::clamp<int64_t>(start, 0, n - 1);
    end = std::clamp<int64_t>(end, -1, n - 1);
    span = __int128(start) - end;
  }
  __int128 stride = step > 0 ? __int128(step) : -__int128(step);
  s.count = span > 0 ? int64_t((span - 1) / stride + 1) : 0;
  s.start = s.count ? start : 0;
  if (s.count <= 1) // the step never applies
    s.step = 1;
  return s;
}

Error loadSlice(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  std::vector<int64_t> starts, ends, axes, steps;
  if (ctx.opset() < 10) {
    if (!ctx.hasAttr("starts") || !ctx.hasAttr("ends"))
      return ctx.fail("attributes 'starts' and 'ends' are required");
    starts = ctx.getInts("starts");
    ends = ctx.getInts("ends");
    axes = ctx.getInts("axes");
  } else {
    EMBER_ASSIGN_OR_RETURN(starts, ctx.constantInts(1));
    EMBER_ASSIGN_OR_RETURN(ends, ctx.constantInts(2));
    if (ctx.hasInput(3)) {
      EMBER_ASSIGN_OR_RETURN(axes, ctx.constantInts(3));
    }
    if (ctx.hasInput(4)) {
      EMBER_ASSIGN_OR_RETURN(steps, ctx.constantInts(4));
    }
  }
  if (axes.empty() && !(ctx.opset() >= 10 && ctx.hasInput(3))) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (steps.empty() && !(ctx.opset() >= 10 && ctx.hasInput(4)))
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return ctx.fail("starts " + intsToString(starts) + ", ends " + intsToString(ends) + ", axes " +
                    intsToString(axes) + " and steps " + intsToString(steps) +
                    " must have the same length");
  EMBER_ASSIGN_OR_RETURN(axes, normalizeAxes(ctx, axes, t.rank()));
  std::vector<int64_t> sStarts(t.rank(), 0), sSteps(t.rank(), 1),
      sDims(t.dims.begin(), t.dims.end());
  for (size_t i = 0; i < axes.size(); ++i) {
    if (steps[i] == 0)
      return ctx.fail("steps " + intsToString(steps) + " must not be 0");
    int64_t a = axes[i];
    int64_t n = int64_t(std::min<dim_t>(t.dims[a], INT64_MAX)); // larger only beside a 0 dim
    AxisSlice s = resolveAxisSlice(starts[i], ends[i], steps[i], n);
    sStarts[a] = s.start;
    sSteps[a] = s.step;
    sDims[a] = s.count;
  }
  bool whole = true;
  for (unsigned d = 0; d < t.rank(); ++d)
    whole = whole && sStarts[d] == 0 && sSteps[d] == 1 && uint64_t(sDims[d]) == t.dims[d];
  if (whole)
    return ctx.setOutput(0, x);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Slice, {x},
                                                 AttrList()
                                                     .set<AttrKind::Starts>(sStarts)
                                                     .set<AttrKind::Steps>(sSteps)
                                                     .set<AttrKind::Dims>(sDims)));
  return setFoldedOutput(ctx, 0, y);
}

Error loadSplit(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  auto axis = normalizeAxis(ctx.getInt("axis", 0), t.rank());
  if (!axis)
    return ctx.fail(errorToString(axis.takeError()));
  // The part sizes: an input from opset 13 (and optionally in Split-1), else an attribute.
  std::vector<int64_t> split;
  if ((ctx.opset() >= 13 || ctx.opset() < 2) && ctx.hasInput(1)) {
    EMBER_ASSIGN_OR_RETURN(split, ctx.constantInts(1));
  } else if (ctx.opset() < 13) {
    split = ctx.getInts("split");
  }
  unsigned parts = ctx.numOutputs();
  dim_t length = t.dims[*axis];
  if (ctx.opset() >= 18 && ctx.hasAttr("num_outputs")) {
    if (!split.empty())
      return ctx.fail("gives both the input 'split' and the attribute 'num_outputs'");
    if (ctx.getInt("num_outputs", 0) != int64_t(parts))
      return ctx.fail("num_outputs " + Twine(ctx.getInt("num_outputs", 0)) + " but " +
                      Twine(parts) + " outputs");
  }
  if (split.empty() && parts > 0 && length % parts && ctx.opset() >= 18) {
    // Split-18: parts of ceil(length / parts), the last one what is left (the reference
    // implementation's rule); it must hold at least one element.
    int64_t part = int64_t(length / parts) + 1;
    if (int64_t(length) - part * (int64_t(parts) - 1) <= 0)
      return ctx.fail("axis " + Twine(*axis) + " of " + t.str() + " does not split into " +
                      Twine(parts) + " parts of " + Twine(part) + " and a smaller last one");
    split.assign(parts, part);
    split.back() = int64_t(length) - part * (int64_t(parts) - 1);
  }
  if (split.empty()) { // equal parts
    if (parts == 0 || length % parts)
      return ctx.fail("axis " + Twine(*axis) + " of " + t.str() + " does not split into " +
                      Twine(parts) + " equal parts");
    split.assign(parts, int64_t(length / parts));
  }
  if (split.size() != parts)
    return ctx.fail("split " + intsToString(split) + " does not give one size per output (" +
                    Twine(parts) + ")");
  EMBER_ASSIGN_OR_RETURN(DimsVec sizes, dimsFromInts(ctx, split, "split"));
  dim_t total = 0;
  for (dim_t s : sizes)
    if (!checkedAdd(total, s, total))
      return ctx.fail("split " + intsToString(split) + " overflows");
  if (total != length)
    return ctx.fail("split " + intsToString(split) + " does not add up to axis " + Twine(*axis) +
                    " of " + t.str());
  dim_t start = 0;
  for (unsigned i = 0; i < parts; ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue part, sliceAxis(ctx, x, unsigned(*axis), start, sizes[i],
                                                     "part" + std::to_string(i)));
    EMBER_TRY(setFoldedOutput(ctx, i, part));
    start += sizes[i];
  }
  return Error::success();
}

/// Whether \p v converts to integer kind \p k exactly (any \p v fits the other kinds).
bool fitsIntegerKind(double v, ElemKind k) {
  if (!isIntegerKind(k))
    return true;
  bool isSigned = k == ElemKind::Int8 || k == ElemKind::Int16 || k == ElemKind::Int32 ||
                  k == ElemKind::Int64;
  int bits = int(elemSize(k)) * 8;
  double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0;
  double end = std::ldexp(1.0, isSigned ? bits - 1 : bits); // exclusive, exact in double
  return std::trunc(v) == v && v >= lo && v < end;
}

Expected<NodeValue> tile(OpContext &ctx, NodeValue x, ArrayRef<int64_t> repeats);

/// Pad-18's pads for the axes its 'axes' input names, as the pads of every axis: begins then
/// ends, zero for the axes not named.
Expected<std::vector<int64_t>> padsOfAllAxes(OpContext &ctx, ArrayRef<int64_t> pads,
                                             unsigned rank) {
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.constantInts(3));
  if (pads.size() != 2 * axes.size())
    return ctx.fail("pads " + intsToString(pads) + " must have 2 values per axis of axes " +
                    intsToString(axes));
  std::vector<int64_t> all(2 * rank, 0);
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = normalizeAxis(axes[i], rank);
    if (!axis)
      return ctx.fail("axes " + intsToString(axes) + ": " + errorToString(axis.takeError()));
    if (seen[*axis])
      return ctx.fail("axes " + intsToString(axes) + " name axis " + Twine(*axis) + " twice");
    seen[*axis] = true;
    all[*axis] = pads[i];
    all[*axis + rank] = pads[i + axes.size()];
  }
  return all;
}

/// Pad-19's 'wrap' mode along axis \p d: output cell i reads input cell (i - begin) mod n,
/// that is, a slice of enough copies of \p x laid end to end.
Expected<NodeValue> wrapAxis(OpContext &ctx, NodeValue x, unsigned d, int64_t begin,
                             int64_t end) {
  int64_t n = int64_t(x.getType().dims[d]);
  if (n == 0)
    return ctx.fail("'wrap' pads axis " + Twine(d) + " of " + x.getType().str() +
                    ", which has no cell to repeat");
  int64_t before = (begin + n - 1) / n, after = (end + n - 1) / n;
  std::vector<int64_t> repeats(x.getType().rank(), 1);
  repeats[d] = 1 + before + after;
  EMBER_ASSIGN_OR_RETURN(NodeValue copies, tile(ctx, x, repeats));
  return sliceAxis(ctx, copies, d, dim_t(before * n - begin), dim_t(n + begin + end),
                   "wrap" + std::to_string(d));
}

Error loadPad(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  unsigned rank = t.rank();
  std::string mode = ctx.getString("mode", "constant");
  bool wrap = ctx.opset() >= 19 && mode == "wrap";
  if (mode != "constant" && mode != "reflect" && mode != "edge" && !wrap)
    return ctx.fail("unknown mode '" + mode + "' (constant, reflect, edge" +
                    (ctx.opset() >= 19 ? " or wrap)" : " or, from opset 19, wrap)"));
  std::vector<int64_t> pads;
  NodeValue value;
  if (ctx.opset() < 11) {
    pads = ctx.getInts(ctx.opset() < 2 ? "paddings" : "pads");
    double fill = ctx.getFloat("value", 0);
    if (!fitsIntegerKind(fill, t.kind))
      return ctx.fail("value " + numberToString(fill) + " does not fit " + elemKindName(t.kind));
    Tensor v(Type(t.kind, {}, t.scale, t.offset));
    v.setElementFromDouble(0, fill);
    value = ctx.createConstant(std::move(v), "value")->getResult();
  } else {
    EMBER_ASSIGN_OR_RETURN(pads, ctx.constantInts(1));
    if (ctx.opset() >= 18 && ctx.hasInput(3)) {
      EMBER_ASSIGN_OR_RETURN(pads, padsOfAllAxes(ctx, pads, rank));
    }
    if (ctx.hasInput(2) && mode == "constant") {
      EMBER_ASSIGN_OR_RETURN(value, ctx.input(2));
      if (value.getType().numElements() != 1)
        return ctx.fail("constant_value must be a scalar, got " + value.getType().str());
      EMBER_ASSIGN_OR_RETURN(value, ctx.reshape(value, {}));
    } else { // zero (also stands in, unused, outside constant mode)
      value = ctx.createConstant(Tensor(Type(t.kind, {}, t.scale, t.offset)), "value")->getResult();
    }
  }
  if (pads.size() != 2 * rank)
    return ctx.fail("pads " + intsToString(pads) + " must have 2 values per axis of " + t.str());
  // Negative pads remove cells: slice those off first, then pad with the rest.
  for (unsigned d = 0; d < rank; ++d) {
    int64_t cutBegin = std::max<int64_t>(0, -pads[d]),
            cutEnd = std::max<int64_t>(0, -pads[d + rank]);
    if (!cutBegin && !cutEnd)
      continue;
    dim_t n = x.getType().dims[d];
    if (uint64_t(cutBegin) > n || uint64_t(cutEnd) > n - uint64_t(cutBegin))
      return ctx.fail("pads " + intsToString(pads) + " remove more than axis " + Twine(d) + " of " +
                      t.str() + " holds");
    EMBER_ASSIGN_OR_RETURN(x, sliceAxis(ctx, x, d, dim_t(cutBegin), n - cutBegin - cutEnd,
                                        "crop" + std::to_string(d)));
    pads[d] += cutBegin;
    pads[d + rank] += cutEnd;
  }
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }))
    return ctx.setOutput(0, x);
  if (wrap) {
    for (unsigned d = 0; d < rank; ++d)
      if (pads[d] || pads[d + rank]) {
        EMBER_ASSIGN_OR_RETURN(x, wrapAxis(ctx, x, d, pads[d], pads[d + rank]));
      }
    return ctx.setOutput(0, x);
  }
  EMBER_ASSIGN_OR_RETURN(
      NodeValue y, ctx.create(NodeKind::Pad, {x, value},
                              AttrList().set<AttrKind::Pads>(pads).set<AttrKind::Mode>(mode)));
  return ctx.setOutput(0, y);
}

/// \p x repeated repeats[d] times along each axis d: viewed with a new axis of length 1 before
/// every axis, broadcast along the new axes, merged back.
Expected<NodeValue> tile(OpContext &ctx, NodeValue x, ArrayRef<int64_t> repeats) {
  const Type &t = x.getType();
  if (repeats.size() != t.rank())
    return ctx.fail("repeats " + intsToString(repeats) + " must have one value per axis of " +
                    t.str());
  EMBER_ASSIGN_OR_RETURN(DimsVec reps, dimsFromInts(ctx, repeats, "repeats"));
  if (std::all_of(reps.begin(), reps.end(), [](dim_t r) { return r == 1; }))
    return x;
  DimsVec interleaved, broadcast, result;
  for (unsigned d = 0; d < t.rank(); ++d) {
    interleaved.append({1, t.dims[d]});
    broadcast.append({reps[d], t.dims[d]});
    dim_t n;
    if (!checkedMul(reps[d], t.dims[d], n))
      return ctx.fail("repeats " + intsToString(repeats) + " overflow " + t.str());
    result.push_back(n);
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.reshape(x, interleaved));
  EMBER_ASSIGN_OR_RETURN(v, ctx.broadcastTo(v, broadcast));
  return ctx.reshape(v, result);
}

Error loadTile(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  std::vector<int64_t> repeats;
  if (ctx.opset() < 6) { // Tile-1: one axis and its repeat count, as scalar inputs
    EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> tiles, ctx.constantInts(1));
    EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> axisValue, ctx.constantInts(2));
    if (tiles.size() != 1 || axisValue.size() != 1)
      return ctx.fail("tiles " + intsToString(tiles) + " and axis " + intsToString(axisValue) +
                      " must be scalars");
    auto axis = normalizeAxis(axisValue[0], x.getType().rank());
    if (!axis)
      return ctx.fail(errorToString(axis.takeError()));
    repeats.assign(x.getType().rank(), 1);
    repeats[*axis] = tiles[0];
  } else {
    EMBER_ASSIGN_OR_RETURN(repeats, ctx.constantInts(1));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, tile(ctx, x, repeats));
  return setFoldedOutput(ctx, 0, y);
}

Error loadExpand(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.constantInts(1));
  EMBER_ASSIGN_OR_RETURN(DimsVec target, dimsFromInts(ctx, shape, "shape"));
  auto dims = broadcastShapes(x.getType().dims, target);
  if (!dims)
    return ctx.fail(errorToString(dims.takeError()));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.broadcastTo(x, *dims));
  return ctx.setOutput(0, y);
}

/// The NCHW input of DepthToSpace/SpaceToDepth and the block size.
Expected<std::pair<NodeValue, dim_t>> blockInput(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (x.getType().rank() != 4)
    return ctx.fail("input must have rank 4 (NCHW), got " + x.getType().str());
  int64_t b = ctx.getInt("blocksize", 0);
  if (b <= 0)
    return ctx.fail("blocksize must be positive, got " + Twine(b));
  return std::make_pair(x, dim_t(b));
}

/// \p x reshaped to \p split, transposed by \p perm, reshaped to \p result.
Error setShuffled(OpContext &ctx, NodeValue x, ArrayRef<dim_t> split, ArrayRef<int64_t> perm,
                  ArrayRef<dim_t> result) {
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.reshape(x, split));
  EMBER_ASSIGN_OR_RETURN(
      v, ctx.create(NodeKind::Transpose, {v}, AttrList().set<AttrKind::Shuffle>(perm), "shuffle"));
  EMBER_ASSIGN_OR_RETURN(v, ctx.reshape(v, result));
  return ctx.setOutput(0, v);
}

Error loadDepthToSpace(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto input, blockInput(ctx));
  auto [x, b] = input;
  const DimsVec &d = x.getType().dims;
  dim_t n = d[0], c = d[1], h = d[2], w = d[3], bb, hb, wb;
  if (!checkedMul(b, b, bb) || !checkedMul(h, b, hb) || !checkedMul(w, b, wb))
    return ctx.fail("blocksize " + Twine(b) + " is too large for " + x.getType().str());
  if (c % bb)
    return ctx.fail("channels of " + x.getType().str() + " are not a multiple of blocksize^2");
  std::string mode = ctx.getString("mode", "DCR");
  DimsVec result{n, c / bb, hb, wb};
  if (mode == "DCR") // channels are (block row, block column, out channel)
    return setShuffled(ctx, x, {n, b, b, c / bb, h, w}, {0, 3, 4, 1, 5, 2}, result);
  if (mode == "CRD") // channels are (out channel, block row, block column)
    return setShuffled(ctx, x, {n, c / bb, b, b, h, w}, {0, 1, 4, 2, 5, 3}, result);
  return ctx.fail("unknown mode '" + mode + "' (DCR or CRD)");
}

Error loadSpaceToDepth(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto input, blockInput(ctx));
  auto [x, b] = input;
  const DimsVec &d = x.getType().dims;
  dim_t n = d[0], c = d[1], h = d[2], w = d[3], cbb;
  if (h % b || w % b)
    return ctx.fail("height and width of " + x.getType().str() +
                    " are not multiples of blocksize " + Twine(b));
  if (!checkedMul(c, b, cbb) || !checkedMul(cbb, b, cbb))
    return ctx.fail("blocksize " + Twine(b) + " is too large for " + x.getType().str());
  // Result channels are (block row, block column, input channel), as DepthToSpace's DCR.
  return setShuffled(ctx, x, {n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4},
                     {n, cbb, h / b, w / b});
}

Error loadTrilu(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> kv, ctx.constantInts(1));
    if (kv.size() != 1)
      return ctx.fail("k must be a scalar, got " + intsToString(kv));
    k = kv[0];
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Trilu, {x},
                                                 AttrList()
                                                     .set<AttrKind::Upper>(ctx.getInt("upper", 1))
                                                     .set<AttrKind::DiagonalOffset>(k)));
  return ctx.setOutput(0, y);
}

} // namespace

void registerDataMovementSliceOps(OpRegistry &r) {
  r.add("Slice", 1, loadSlice);
  r.add("Split", 1, loadSplit);
  r.add("Split", 18, loadSplit); // 'num_outputs', and uneven parts
  r.add("Pad", 1, loadPad);
  r.add("Pad", 18, loadPad); // the 'axes' input
  r.add("Pad", 19, loadPad); // the 'wrap' mode
  r.add("Tile", 1, loadTile);
  r.add("Expand", 8, loadExpand);
  r.add("DepthToSpace", 1, loadDepthToSpace);
  r.add("SpaceToDepth", 1, loadSpaceToDepth);
  r.add("Trilu", 14, loadTrilu);
}

} // namespace ember
