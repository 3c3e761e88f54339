// ONNX data movement operators composed at import from node kinds the backends already run well:
// CenterCropPad (Slice and Pad), Col2Im (Slice, Pad and Add per kernel offset) and AffineGrid
// (a constant base grid times theta, a MatMul).
#include "DataMovementOps.h"
#include "ONNXTensor.h"

#include "ember/Support/Error.h"

#include <numeric>

using namespace llvm;

namespace ember {

namespace {

/// The zero of \p kind, the value Pad fills with.
Expected<NodeValue> zeroOf(OpContext &ctx, ElemKind kind) {
  return ctx.createFilled(kind, {}, 0.0, "zero");
}

/// \p x padded with zeros by \p pads (all begins, then all ends); x itself when they are all 0.
Expected<NodeValue> zeroPad(OpContext &ctx, NodeValue x, std::vector<int64_t> pads,
                            StringRef suffix) {
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }))
    return x;
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, zeroOf(ctx, x.getType().kind));
  return ctx.create(NodeKind::Pad, {x, zero},
                    AttrList().set<AttrKind::Pads>(std::move(pads)).set<AttrKind::Mode>("constant"),
                    suffix);
}

/// CenterCropPad: each of 'axes' (default all) cropped or zero-padded to the target length
/// 'shape' gives it, the input centered; an odd difference leaves the extra element at the end
/// (the crop starts at floor((dim - n) / 2), the padding before is floor((n - dim) / 2)).
Error loadCenterCropPad(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.constantInts(1));
  const Type &t = x.getType();
  unsigned rank = t.rank();
  std::vector<int64_t> axes(rank);
  std::iota(axes.begin(), axes.end(), 0);
  if (ctx.hasAttr("axes")) {
    EMBER_ASSIGN_OR_RETURN(axes, normalizeAxes(ctx, ctx.getInts("axes"), rank));
  }
  if (shape.size() != axes.size())
    return ctx.fail("shape " + intsToString(shape) + " must have one length per axis of " +
                    intsToString(axes));
  std::vector<int64_t> pads(2 * rank, 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    unsigned a = unsigned(axes[i]);
    int64_t dim = int64_t(t.dims[a]), n = shape[i];
    if (n < 0)
      return ctx.fail("shape " + intsToString(shape) + " has a negative length");
    if (n < dim) {
      EMBER_ASSIGN_OR_RETURN(x, sliceAxis(ctx, x, a, dim_t((dim - n) / 2), dim_t(n),
                                          "crop" + std::to_string(a)));
    } else {
      pads[a] = (n - dim) / 2;
      pads[a + rank] = n - dim - pads[a];
    }
  }
  EMBER_ASSIGN_OR_RETURN(x, zeroPad(ctx, x, std::move(pads), "pad"));
  return ctx.setOutput(0, x);
}

/// Col2Im: the blocks of an image, input (N, C * prod(block_shape), L) with L the number of
/// block positions, summed back into images (N, C, image_shape...). Each kernel offset k of a
/// block is one strided copy: its channels, spread apart by the strides (zeros between), land
/// at k * dilation - pad_begin on every axis. So the input, spread once, gives each offset's
/// contribution by a Slice (its channels, the part inside the image) and a Pad (to the image),
/// and the contributions add up. Written as a sum of copies rather than a ConvTranspose with a
/// one-hot filter, a NaN or infinity reaches only the pixels it belongs to.
Error loadCol2Im(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> image, ctx.constantInts(1));
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> block, ctx.constantInts(2));
  const Type &t = x.getType();
  if (isQuantizedKind(t.kind) || t.kind == ElemKind::Bool)
    return ctx.fail("input must be numeric, got " + t.str());
  if (t.rank() != 3)
    return ctx.fail("input must be (N, C * prod(block_shape), L), got " + t.str());
  size_t nd = image.size();
  if (nd == 0 || block.size() != nd)
    return ctx.fail("image_shape " + intsToString(image) + " and block_shape " +
                    intsToString(block) + " must have one value per spatial axis");
  std::vector<int64_t> dilations = ctx.getInts("dilations", std::vector<int64_t>(nd, 1));
  std::vector<int64_t> strides = ctx.getInts("strides", std::vector<int64_t>(nd, 1));
  std::vector<int64_t> pads = ctx.getInts("pads", std::vector<int64_t>(2 * nd, 0));
  if (dilations.size() != nd || strides.size() != nd || pads.size() != 2 * nd)
    return ctx.fail("dilations " + intsToString(dilations) + ", strides " +
                    intsToString(strides) + " and pads " + intsToString(pads) +
                    " must have one value per spatial axis (pads two)");
  // Blocks per axis, and the kernel's size. Every value is bounded first (the products and
  // sums below then stay far inside int64).
  std::vector<int64_t> blocks(nd);
  size_t kernel = 1, positions = 1;
  constexpr int64_t kMax = INT32_MAX;
  for (size_t i = 0; i < nd; ++i) {
    auto in = [&](int64_t v, int64_t lo) { return v >= lo && v <= kMax; };
    if (!in(image[i], 1) || !in(block[i], 1) || !in(dilations[i], 1) || !in(strides[i], 1) ||
        !in(pads[i], 0) || !in(pads[i + nd], 0))
      return ctx.fail("image_shape " + intsToString(image) + ", block_shape " +
                      intsToString(block) + ", dilations, strides and pads must be positive "
                      "(pads non-negative) and below 2^31");
    int64_t span = dilations[i] * (block[i] - 1) + 1;
    int64_t padded = image[i] + pads[i] + pads[i + nd];
    if (span > padded)
      return ctx.fail("block " + intsToString(block) + " (dilated) does not fit in the padded "
                      "image on axis " + Twine(i));
    blocks[i] = (padded - span) / strides[i] + 1;
    if (!checkedMul(kernel, size_t(block[i]), kernel) ||
        !checkedMul(positions, size_t(blocks[i]), positions))
      return ctx.fail("image_shape " + intsToString(image) + " and block_shape " +
                      intsToString(block) + " give more blocks than ember can count");
  }
  // Four nodes per kernel offset: a block_shape beyond this many offsets (64 x 64) would build
  // a graph a model could make arbitrarily large.
  constexpr size_t kMaxOffsets = 4096;
  if (kernel > kMaxOffsets)
    return ctx.fail("block_shape " + intsToString(block) + " has " + Twine(kernel) +
                    " kernel offsets; ember composes Col2Im of one copy per offset, at most " +
                    Twine(kMaxOffsets));
  dim_t n = t.dims[0];
  if (t.dims[2] != positions || t.dims[1] % kernel != 0)
    return ctx.fail("input " + t.str() + " must be (N, C * " + Twine(kernel) + ", " +
                    Twine(positions) + ") for image_shape " + intsToString(image) +
                    ", block_shape " + intsToString(block) + " and these strides and pads");
  dim_t c = t.dims[1] / kernel;
  // (N, C, K, L1, ..., Ln), then every Li spread to Li * stride_i: each element followed by
  // stride_i - 1 zeros, by a Pad at the end of a new axis after it.
  DimsVec split{n, c, dim_t(kernel)}, spreadDims{n, c, dim_t(kernel)}, spread{n, c, dim_t(kernel)};
  std::vector<int64_t> spreadPads(2 * (3 + 2 * nd), 0);
  for (size_t i = 0; i < nd; ++i) {
    split.push_back(dim_t(blocks[i]));
    spreadDims.append({dim_t(blocks[i]), 1});
    spreadPads[3 + 2 * nd + 3 + 2 * i + 1] = strides[i] - 1;
    spread.push_back(dim_t(blocks[i] * strides[i]));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.reshape(x, spreadDims));
  EMBER_ASSIGN_OR_RETURN(v, zeroPad(ctx, v, spreadPads, "spread"));
  EMBER_ASSIGN_OR_RETURN(v, ctx.reshape(v, spread));
  DimsVec resultDims{n, c};
  for (int64_t d : image)
    resultDims.push_back(dim_t(d));
  NodeValue sum;
  std::vector<int64_t> offset(nd, 0); // the kernel offset, last axis fastest
  for (size_t k = 0; k < kernel; ++k) {
    std::vector<int64_t> starts(3 + nd, 0), steps(3 + nd, 1), dims(spread.begin(), spread.end());
    std::vector<int64_t> place(2 * (2 + nd), 0);
    starts[2] = int64_t(k);
    dims[2] = 1;
    bool inside = true;
    for (size_t i = 0; i < nd; ++i) {
      // Spread index q lands on image index q + o.
      int64_t o = offset[i] * dilations[i] - pads[i];
      int64_t first = std::max<int64_t>(0, -o);
      int64_t end = std::min<int64_t>(int64_t(spread[3 + i]), image[i] - o);
      if (end <= first) {
        inside = false;
        break;
      }
      starts[3 + i] = first;
      dims[3 + i] = end - first;
      place[2 + i] = first + o;
      place[2 + nd + 2 + i] = image[i] - (first + o) - (end - first);
    }
    for (size_t i = nd; i-- > 0;) {
      if (++offset[i] < block[i])
        break;
      offset[i] = 0;
    }
    if (!inside)
      continue;
    std::string suffix = "offset" + std::to_string(k);
    EMBER_ASSIGN_OR_RETURN(NodeValue part, ctx.create(NodeKind::Slice, {v},
                                                      AttrList()
                                                          .set<AttrKind::Starts>(starts)
                                                          .set<AttrKind::Steps>(steps)
                                                          .set<AttrKind::Dims>(dims),
                                                      suffix));
    DimsVec partDims{n, c};
    for (size_t i = 0; i < nd; ++i)
      partDims.push_back(dim_t(dims[3 + i]));
    EMBER_ASSIGN_OR_RETURN(part, ctx.reshape(part, partDims));
    EMBER_ASSIGN_OR_RETURN(part, zeroPad(ctx, part, place, suffix + "_place"));
    if (!sum.node) {
      sum = part;
    } else {
      EMBER_ASSIGN_OR_RETURN(sum, ctx.create(NodeKind::Add, {sum, part}, {}, suffix + "_sum"));
    }
  }
  if (!sum.node) { // no block position touches the image (it is all padding)
    EMBER_ASSIGN_OR_RETURN(sum, ctx.createFilled(t.kind, resultDims, 0.0, "zeros"));
  }
  return ctx.setOutput(0, sum);
}

/// The base grid coordinate of index i of n along an axis, in [-1, 1]: the centers of n equal
/// cells, or with align_corners the n points from -1 to 1 (a lone point at -1, as the
/// reference's arange gives).
double gridCoordinate(int64_t i, int64_t n, bool alignCorners) {
  if (alignCorners)
    return n == 1 ? -1.0 : -1.0 + 2.0 * double(i) / double(n - 1);
  return (2.0 * double(i) + 1.0) / double(n) - 1.0;
}

/// AffineGrid: theta (N, 2, 3) or (N, 3, 4) applied to the base grid of 'size' (N, C, H, W) or
/// (N, C, D, H, W), giving GridSample's grid (N, H, W, 2) or (N, D, H, W, 3). The base grid is a
/// constant (HW, 3) of the homogeneous points (x, y, 1), x along W fastest (3-D: (x, y, z, 1));
/// the grid is its product with theta transposed, one batched MatMul.
Error loadAffineGrid(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue theta, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.constantInts(1));
  const Type &t = theta.getType();
  if (!isFloatKind(t.kind))
    return ctx.fail("theta must be floating point, got " + t.str());
  if (size.size() != 4 && size.size() != 5)
    return ctx.fail("size " + intsToString(size) + " must be (N, C, H, W) or (N, C, D, H, W)");
  size_t nd = size.size() - 2;
  if (t.rank() != 3 || t.dims[1] != nd || t.dims[2] != nd + 1)
    return ctx.fail("theta must be (N, " + Twine(nd) + ", " + Twine(nd + 1) + ") for size " +
                    intsToString(size) + ", got " + t.str());
  if (size[0] != int64_t(t.dims[0]))
    return ctx.fail("size " + intsToString(size) + " and theta " + t.str() +
                    " differ in the batch");
  int64_t alignCorners = ctx.getInt("align_corners", 0);
  if (alignCorners != 0 && alignCorners != 1)
    return ctx.fail("align_corners must be 0 or 1, got " + Twine(alignCorners));
  std::vector<int64_t> spatial(size.begin() + 2, size.end());
  EMBER_ASSIGN_OR_RETURN(DimsVec spatialDims, dimsFromInts(ctx, spatial, "size"));
  dim_t points = 1;
  for (dim_t d : spatialDims)
    if (!checkedMul(points, d, points))
      return ctx.fail("size " + intsToString(size) + " overflows");
  EMBER_ASSIGN_OR_RETURN(Tensor base,
                         ctx.newTensor(Type(t.kind, {1, points, dim_t(nd + 1)}), "base grid"));
  // Point p's index along each spatial axis, the last (x) fastest; its coordinates are listed
  // x first.
  std::vector<int64_t> index(nd, 0);
  for (dim_t p = 0; p < points; ++p) {
    for (size_t j = 0; j < nd; ++j) {
      size_t axis = nd - 1 - j;
      base.setElementFromDouble(p * (nd + 1) + j,
                                gridCoordinate(index[axis], spatial[axis], alignCorners));
    }
    base.setElementFromDouble(p * (nd + 1) + nd, 1.0);
    for (size_t i = nd; i-- > 0;) {
      if (++index[i] < spatial[i])
        break;
      index[i] = 0;
    }
  }
  NodeValue grid = ctx.createConstant(std::move(base), "base_grid")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue thetaT, ctx.transpose(theta, {0, 2, 1}));
  // (1, HW, nd + 1) x (N, nd + 1, nd): MatMul broadcasts the batch of 1.
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {grid, thetaT}));
  dim_t n = t.dims[0];
  DimsVec resultDims{n};
  resultDims.append(spatialDims.begin(), spatialDims.end());
  resultDims.push_back(dim_t(nd));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, resultDims));
  return ctx.setOutput(0, y);
}

} // namespace

void registerDataMovementComposedOps(OpRegistry &r) {
  r.add("CenterCropPad", 18, loadCenterCropPad);
  r.add("Col2Im", 18, loadCol2Im);
  r.add("AffineGrid", 20, loadAffineGrid);
}

} // namespace ember
