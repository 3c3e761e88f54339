// ONNX ops whose result shape depends on input values: NonZero, Unique and NonMaxSuppression.
// ember compiles static shapes, so the inputs that decide the result must be known at compile
// time (Constants, values folded from them, or graph inputs bound to values: ctx.constantInput
// asks the tools for those), and the loader computes the whole result as a Constant. Each
// computation is one function over Tensors; Compress (DataMovementOpsIndexed.cpp) needs only its
// condition known and stays a Gather.
#include "DataMovementOps.h"

#include "ember/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using namespace llvm;

namespace ember {

namespace {

/// Binds output \p i, when the node has it, to a Constant holding \p t.
Error setConstantOutput(OpContext &ctx, unsigned i, Tensor t, StringRef suffix) {
  if (!ctx.hasOutput(i))
    return Error::success();
  return ctx.setOutput(i, ctx.createConstant(std::move(t), suffix)->getResult());
}

Tensor int64Vector(ArrayRef<int64_t> values) {
  return Tensor::fromValues<int64_t>({dim_t(values.size())}, values);
}

//===------------------------------------------------------------------------------------===//
// NonZero
//===------------------------------------------------------------------------------------===//

/// numpy.nonzero as ONNX has it: int64 [rank, count], column k the coordinates (row-major order)
/// of the k-th element that is not zero (NaN is not zero). A scalar gives [0, count].
Tensor nonZeroCoordinates(const Tensor &x) {
  const DimsVec &dims = x.getType().dims;
  std::vector<size_t> found;
  for (size_t i = 0, e = x.numElements(); i < e; ++i)
    if (x.elementAsDouble(i) != 0)
      found.push_back(i);
  Tensor out(Type(ElemKind::Int64, {dim_t(dims.size()), dim_t(found.size())}));
  int64_t *coords = out.dataAs<int64_t>();
  for (size_t k = 0; k < found.size(); ++k) {
    size_t rest = found[k];
    for (size_t axis = dims.size(); axis-- > 0;) {
      coords[axis * found.size() + k] = int64_t(rest % dims[axis]);
      rest /= dims[axis];
    }
  }
  return out;
}

Error loadNonZero(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto x, ctx.constantInputs({0}, "NonZero's result shape depends on "
                                                          "its input's values"));
  return setConstantOutput(ctx, 0, nonZeroCoordinates(*x[0]), "indices");
}

//===------------------------------------------------------------------------------------===//
// Unique
//===------------------------------------------------------------------------------------===//

/// Three-way comparison of elements \p i and \p j of \p t in numpy's sort order: by value, NaN
/// after every number and equal to NaN, -0 equal to 0. 64-bit integers compare exactly; every
/// other kind is exact in double.
int compareElements(const Tensor &t, size_t i, size_t j) {
  auto threeWay = [](auto a, auto b) { return int(a > b) - int(a < b); };
  switch (t.getType().kind) {
  case ElemKind::Int64:
    return threeWay(t.dataAs<int64_t>()[i], t.dataAs<int64_t>()[j]);
  case ElemKind::UInt64:
    return threeWay(t.dataAs<uint64_t>()[i], t.dataAs<uint64_t>()[j]);
  default: {
    double a = t.elementAsDouble(i), b = t.elementAsDouble(j);
    if (std::isnan(a) || std::isnan(b))
      return int(std::isnan(a)) - int(std::isnan(b));
    return threeWay(a, b);
  }
  }
}

struct UniqueResult {
  Tensor values;                  ///< Y: the unique slices, in the chosen order
  std::vector<int64_t> indices;   ///< each Y slice's first position in X
  std::vector<int64_t> inverse;   ///< each X slice's position in Y
  std::vector<int64_t> counts;    ///< how often each Y slice occurs in X
};

/// numpy.unique(x, return_index, return_inverse, return_counts, axis) as ONNX's Unique has it.
/// The slices compared are x's along \p axis (all of x flattened when there is none), ordered
/// lexicographically by their elements in row-major order. \p sorted orders Y ascending, else by
/// first occurrence (the reference's reordering of numpy's sorted result).
UniqueResult uniqueSlices(const Tensor &x, std::optional<unsigned> axis, bool sorted) {
  const Type &type = x.getType();
  // x as [outer, length, inner]: slice s is the elements [o, s, i] for every o and i.
  size_t outer = 1, length = type.numElements(), inner = 1;
  if (axis) {
    length = type.dims[*axis];
    for (unsigned a = 0; a < *axis; ++a)
      outer *= type.dims[a];
    for (unsigned a = *axis + 1; a < type.rank(); ++a)
      inner *= type.dims[a];
  }
  auto element = [&](size_t slice, size_t k) {
    return (k / inner) * length * inner + slice * inner + k % inner;
  };
  auto compareSlices = [&](size_t a, size_t b) {
    for (size_t k = 0, e = outer * inner; k < e; ++k)
      if (int c = compareElements(x, element(a, k), element(b, k)))
        return c;
    return 0;
  };

  // A stable sort puts each value's first occurrence first among its equals (numpy sorts with
  // mergesort when it returns indices).
  std::vector<size_t> order(length);
  for (size_t s = 0; s < length; ++s)
    order[s] = s;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return compareSlices(a, b) < 0; });
  UniqueResult r;
  std::vector<int64_t> group(length); // each slice's group, groups in ascending order
  for (size_t k = 0; k < length; ++k) {
    if (k == 0 || compareSlices(order[k - 1], order[k]) != 0) {
      r.indices.push_back(int64_t(order[k]));
      r.counts.push_back(0);
    }
    group[order[k]] = int64_t(r.indices.size() - 1);
    ++r.counts.back();
  }
  // Y's position of each group: the ascending rank, or the rank of its first occurrence.
  std::vector<int64_t> position(r.indices.size());
  for (size_t g = 0; g < position.size(); ++g)
    position[g] = int64_t(g);
  if (!sorted) {
    std::vector<int64_t> byFirst = position;
    std::sort(byFirst.begin(), byFirst.end(),
              [&](int64_t a, int64_t b) { return r.indices[a] < r.indices[b]; });
    std::vector<int64_t> indices, counts;
    for (size_t p = 0; p < byFirst.size(); ++p) {
      position[byFirst[p]] = int64_t(p);
      indices.push_back(r.indices[byFirst[p]]);
      counts.push_back(r.counts[byFirst[p]]);
    }
    r.indices = std::move(indices);
    r.counts = std::move(counts);
  }
  for (size_t s = 0; s < length; ++s)
    r.inverse.push_back(position[group[s]]);

  DimsVec dims = {dim_t(r.indices.size())};
  if (axis) {
    dims = type.dims;
    dims[*axis] = r.indices.size();
  }
  r.values = Tensor(type.withDims(dims));
  size_t rowBytes = inner * type.elementSize();
  for (size_t o = 0; o < outer; ++o)
    for (size_t u = 0; u < r.indices.size(); ++u)
      std::memcpy(r.values.data() + (o * r.indices.size() + u) * rowBytes,
                  x.data() + element(size_t(r.indices[u]), o * inner) * type.elementSize(),
                  rowBytes);
  return r;
}

Error loadUnique(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto x, ctx.constantInputs({0}, "Unique's result shape depends on "
                                                          "its input's values"));
  std::optional<unsigned> axis;
  if (ctx.hasAttr("axis")) {
    auto a = normalizeAxis(ctx.getInt("axis", 0), x[0]->getType().rank());
    if (!a)
      return ctx.fail(errorToString(a.takeError()));
    axis = unsigned(*a);
  }
  int64_t sorted = ctx.getInt("sorted", 1);
  if (sorted != 0 && sorted != 1)
    return ctx.fail("sorted must be 0 or 1, got " + Twine(sorted));
  UniqueResult r = uniqueSlices(*x[0], axis, sorted == 1);
  EMBER_TRY(setConstantOutput(ctx, 0, std::move(r.values), "values"));
  EMBER_TRY(setConstantOutput(ctx, 1, int64Vector(r.indices), "indices"));
  EMBER_TRY(setConstantOutput(ctx, 2, int64Vector(r.inverse), "inverse_indices"));
  return setConstantOutput(ctx, 3, int64Vector(r.counts), "counts");
}

//===------------------------------------------------------------------------------------===//
// NonMaxSuppression
//===------------------------------------------------------------------------------------===//

struct SuppressionOptions {
  int64_t maxBoxesPerClass = 0;
  float iouThreshold = 0;
  std::optional<float> scoreThreshold; ///< none: every box is a candidate
  bool centerPointBox = false;
};

/// A box's extent on both axes.
struct BoxExtent {
  float xMin, xMax, yMin, yMax;
};

/// \p b read as [y1, x1, y2, x2] (any two opposite corners) or, with \p centerPoint, as
/// [x_center, y_center, width, height].
BoxExtent boxExtent(const float *b, bool centerPoint) {
  if (centerPoint) {
    float halfWidth = b[2] / 2, halfHeight = b[3] / 2;
    return {b[0] - halfWidth, b[0] + halfWidth, b[1] - halfHeight, b[1] + halfHeight};
  }
  return {std::min(b[1], b[3]), std::max(b[1], b[3]), std::min(b[0], b[2]),
          std::max(b[0], b[2])};
}

/// Whether a box overlaps a selected one by more than the threshold (intersection over union,
/// in float as onnxruntime computes it; boxes without area never suppress).
bool overlapsTooMuch(const BoxExtent &a, const BoxExtent &b, float iouThreshold) {
  float xMin = std::max(a.xMin, b.xMin), xMax = std::min(a.xMax, b.xMax);
  float yMin = std::max(a.yMin, b.yMin), yMax = std::min(a.yMax, b.yMax);
  if (xMax <= xMin || yMax <= yMin)
    return false;
  float intersection = (xMax - xMin) * (yMax - yMin);
  float areaA = (a.xMax - a.xMin) * (a.yMax - a.yMin);
  float areaB = (b.xMax - b.xMin) * (b.yMax - b.yMin);
  float unionArea = areaA + areaB - intersection;
  if (intersection <= 0 || areaA <= 0 || areaB <= 0 || unionArea <= 0)
    return false;
  return intersection / unionArea > iouThreshold;
}

/// ONNX NonMaxSuppression, as onnxruntime (whose results the backend tests hold) computes it: for
/// each batch and class, the boxes scoring above the threshold are visited by descending score
/// (equal scores by ascending box index; NaN scores last) and each is selected unless it
/// overlaps an already selected box of that class too much, until the class has
/// maxBoxesPerClass. Returns [batch, class, box] triples in selection order. \p boxes is float32
/// [batches, boxes, 4], \p scores float32 [batches, classes, boxes].
std::vector<int64_t> nonMaxSuppression(const Tensor &boxes, const Tensor &scores,
                                       const SuppressionOptions &opts) {
  size_t batches = scores.getType().dims[0], classes = scores.getType().dims[1],
         numBoxes = scores.getType().dims[2];
  std::vector<int64_t> selected;
  for (size_t b = 0; b < batches; ++b) {
    std::vector<BoxExtent> extents;
    for (size_t i = 0; i < numBoxes; ++i)
      extents.push_back(
          boxExtent(boxes.dataAs<float>() + (b * numBoxes + i) * 4, opts.centerPointBox));
    for (size_t c = 0; c < classes; ++c) {
      const float *score = scores.dataAs<float>() + (b * classes + c) * numBoxes;
      std::vector<size_t> candidates;
      for (size_t i = 0; i < numBoxes; ++i)
        if (!opts.scoreThreshold || score[i] > *opts.scoreThreshold)
          candidates.push_back(i);
      std::stable_sort(candidates.begin(), candidates.end(), [&](size_t i, size_t j) {
        if (std::isnan(score[i]))
          return false;
        return std::isnan(score[j]) || score[i] > score[j];
      });
      std::vector<size_t> kept;
      for (size_t i : candidates) {
        if (int64_t(kept.size()) >= opts.maxBoxesPerClass)
          break;
        if (std::any_of(kept.begin(), kept.end(), [&](size_t k) {
              return overlapsTooMuch(extents[i], extents[k], opts.iouThreshold);
            }))
          continue;
        kept.push_back(i);
        selected.insert(selected.end(), {int64_t(b), int64_t(c), int64_t(i)});
      }
    }
  }
  return selected;
}

/// One value of an optional scalar input, or \p def when it is omitted.
Expected<double> optionalScalar(OpContext &ctx, const Tensor *t, StringRef name, double def) {
  if (!t)
    return def;
  if (t->numElements() != 1)
    return ctx.fail(Twine(name) + " must be a scalar, got " + t->getType().str());
  return t->elementAsDouble(0);
}

Error loadNonMaxSuppression(OpContext &ctx) {
  SmallVector<unsigned, 5> given;
  for (unsigned i = 0; i < 5; ++i)
    if (ctx.hasInput(i) || i < 2)
      given.push_back(i);
  EMBER_ASSIGN_OR_RETURN(auto known, ctx.constantInputs(given,
                                                    "NonMaxSuppression's result shape depends "
                                                    "on its inputs' values"));
  const Tensor *inputs[5] = {};
  for (size_t k = 0; k < given.size(); ++k)
    inputs[given[k]] = known[k];
  const Tensor &boxes = *inputs[0], &scores = *inputs[1];
  const Type &bt = boxes.getType(), &st = scores.getType();
  if (bt.kind != ElemKind::Float32 || st.kind != ElemKind::Float32)
    return ctx.fail("boxes and scores must be float32, got " + bt.str() + " and " + st.str());
  if (bt.rank() != 3 || bt.dims[2] != 4)
    return ctx.fail("boxes must be [batches, boxes, 4], got " + bt.str());
  if (st.rank() != 3 || st.dims[0] != bt.dims[0] || st.dims[2] != bt.dims[1])
    return ctx.fail("scores must be [batches, classes, boxes] for boxes " + bt.str() + ", got " +
                    st.str());

  SuppressionOptions opts;
  int64_t center = ctx.getInt("center_point_box", 0);
  if (center != 0 && center != 1)
    return ctx.fail("center_point_box must be 0 or 1, got " + Twine(center));
  opts.centerPointBox = center == 1;
  if (const Tensor *maxBoxes = inputs[2]) {
    EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> m,
                           tensorInts(*maxBoxes, "max_output_boxes_per_class"));
    if (m.size() != 1)
      return ctx.fail("max_output_boxes_per_class must be a scalar, got " +
                      maxBoxes->getType().str());
    opts.maxBoxesPerClass = m[0]; // 0 (the default) or less selects nothing
  }
  EMBER_ASSIGN_OR_RETURN(double iou, optionalScalar(ctx, inputs[3], "iou_threshold", 0));
  if (!(iou >= 0 && iou <= 1))
    return ctx.fail("iou_threshold must be in [0, 1], got " + numberToString(iou));
  opts.iouThreshold = float(iou);
  if (inputs[4]) {
    EMBER_ASSIGN_OR_RETURN(double s, optionalScalar(ctx, inputs[4], "score_threshold", 0));
    opts.scoreThreshold = float(s);
  }

  std::vector<int64_t> selected = nonMaxSuppression(boxes, scores, opts);
  Tensor out(Type(ElemKind::Int64, {dim_t(selected.size() / 3), 3}));
  std::copy(selected.begin(), selected.end(), out.dataAs<int64_t>());
  return setConstantOutput(ctx, 0, std::move(out), "selected_indices");
}

} // namespace

void registerDataMovementDataDependentOps(OpRegistry &r) {
  r.add("NonZero", 9, loadNonZero);
  r.add("Unique", 11, loadUnique);
  r.add("NonMaxSuppression", 10, loadNonMaxSuppression);
}

} // namespace ember
