// ONNX reshaping, shape queries and graph plumbing: Reshape, Flatten, Squeeze, Unsqueeze,
// Transpose, Concat, Identity, Dropout (inference, or training with a compile-time ratio of 0),
// Constant, Shape, Size, ConstantOfShape, Range, EyeLike; and the helpers every data movement
// loader shares (DataMovementOps.h).
#include "DataMovementOps.h"

#include "ONNXTensor.h"

#include "ember/Base/Dims.h"
#include "ember/Support/Error.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace llvm;

namespace ember {

void registerDataMovementCacheOps(OpRegistry &r); // DataMovementOpsCache.cpp: TensorScatter

Expected<std::vector<int64_t>> normalizeAxes(OpContext &ctx, ArrayRef<int64_t> axes,
                                             unsigned rank) {
  std::vector<int64_t> out;
  std::vector<bool> seen(rank, false);
  for (int64_t a : axes) {
    auto n = normalizeAxis(a, rank);
    if (!n)
      return ctx.fail("axes " + intsToString(axes) + ": " + errorToString(n.takeError()));
    if (seen[*n])
      return ctx.fail("axes " + intsToString(axes) + " name axis " + Twine(*n) + " twice");
    seen[*n] = true;
    out.push_back(*n);
  }
  return out;
}

std::string numberToString(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

bool isCheapConstant(const Type &t) {
  return (isIntegerKind(t.kind) || t.kind == ElemKind::Bool) && t.numElements() <= 64;
}

Error setFoldedOutput(OpContext &ctx, unsigned i, NodeValue v) {
  Node *n = v.node;
  if (n->getKind() == NodeKind::Reshape && isCheapConstant(v.getType()) &&
      n->getOperand(0).node->getKind() == NodeKind::Constant) {
    Tensor t = static_cast<Constant *>(n->getOperand(0).node)->getPayload().clone();
    t.reshape(v.getType().dims);
    NodeValue folded = ctx.createConstant(std::move(t), "value")->getResult();
    if (!n->hasUsers())
      n->getParent()->eraseNode(n);
    v = folded;
  }
  return ctx.setOutput(i, v);
}

Expected<DimsVec> dimsFromInts(OpContext &ctx, ArrayRef<int64_t> shape, StringRef what) {
  DimsVec dims;
  for (int64_t s : shape) {
    if (s < 0)
      return ctx.fail(what + " " + intsToString(shape) + " has a negative dim");
    dims.push_back(dim_t(s));
  }
  return dims;
}

Expected<NodeValue> sliceAxis(OpContext &ctx, NodeValue v, unsigned axis, dim_t start, dim_t count,
                              StringRef suffix) {
  const Type &t = v.getType();
  if (start == 0 && count == t.dims[axis])
    return v;
  std::vector<int64_t> starts(t.rank(), 0), steps(t.rank(), 1), dims(t.dims.begin(), t.dims.end());
  starts[axis] = int64_t(start);
  dims[axis] = int64_t(count);
  return ctx.create(
      NodeKind::Slice, {v},
      AttrList().set<AttrKind::Starts>(starts).set<AttrKind::Steps>(steps).set<AttrKind::Dims>(
          dims),
      suffix);
}

namespace {

/// ONNX Reshape's target: 0 copies the input dim (unless allowzero), -1 takes what is left.
Expected<DimsVec> resolveReshape(OpContext &ctx, const Type &in, ArrayRef<int64_t> shape,
                                 bool allowZero) {
  DimsVec dims;
  int inferAt = -1;
  size_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t s = shape[i];
    if (s == -1) {
      if (inferAt >= 0)
        return ctx.fail("shape " + intsToString(shape) + " has more than one -1");
      inferAt = int(i);
      dims.push_back(1);
      continue;
    }
    if (s == 0 && !allowZero) {
      if (i >= in.rank())
        return ctx.fail("shape " + intsToString(shape) + " copies dim " + Twine(i) + " of " +
                        in.str() + ", which has none");
      s = int64_t(in.dims[i]);
    }
    if (s < 0)
      return ctx.fail("shape " + intsToString(shape) + " has a negative dim");
    dims.push_back(dim_t(s));
    if (!checkedMul(known, dim_t(s), known))
      return ctx.fail("shape " + intsToString(shape) + " overflows");
  }
  size_t total = in.numElements();
  if (inferAt >= 0) {
    if (known == 0 || total % known)
      return ctx.fail("cannot reshape " + in.str() + " to " + intsToString(shape));
    dims[inferAt] = total / known;
  } else if (known != total) {
    return ctx.fail("cannot reshape " + in.str() + " to " + intsToString(shape) +
                    ": element counts differ");
  }
  return dims;
}

/// Binds output 0 to input 0 reshaped to \p dims (Reshape, Flatten, Squeeze, Unsqueeze).
Error setReshaped(OpContext &ctx, NodeValue x, ArrayRef<dim_t> dims) {
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.reshape(x, dims));
  return setFoldedOutput(ctx, 0, y);
}

Error loadReshape(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  std::vector<int64_t> shape;
  if (ctx.opset() < 5) {
    shape = ctx.getInts("shape");
  } else {
    EMBER_ASSIGN_OR_RETURN(shape, ctx.constantInts(1));
  }
  EMBER_ASSIGN_OR_RETURN(DimsVec dims,
                         resolveReshape(ctx, x.getType(), shape, ctx.getInt("allowzero", 0)));
  return setReshaped(ctx, x, dims);
}

Error loadFlatten(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  int64_t axis = ctx.getInt("axis", 1);
  // axis may equal the rank (everything in the outer dim).
  if (axis < -int64_t(t.rank()) || axis > int64_t(t.rank()))
    return ctx.fail("axis " + Twine(axis) + " is out of range for " + t.str());
  if (axis < 0)
    axis += t.rank();
  dim_t outer = dimsProduct(t.dims, 0, size_t(axis));
  return setReshaped(ctx, x, {outer, dimsProduct(t.dims, size_t(axis), t.rank())});
}

/// Squeeze/Unsqueeze axes: an attribute before opset 13, input 1 from then on. \p given says
/// whether there were any.
Error readAxes(OpContext &ctx, std::vector<int64_t> &axes, bool &given) {
  if (ctx.opset() < 13) {
    given = ctx.hasAttr("axes");
    axes = ctx.getInts("axes");
    return Error::success();
  }
  given = ctx.hasInput(1);
  if (given) {
    EMBER_ASSIGN_OR_RETURN(axes, ctx.constantInts(1));
  }
  return Error::success();
}

Error loadSqueeze(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  std::vector<int64_t> given;
  bool hasAxes; // none given or [] both squeeze every axis of length 1
  EMBER_TRY(readAxes(ctx, given, hasAxes));
  std::vector<bool> drop(t.rank(), false);
  if (given.empty()) { // as onnxruntime reads it
    for (unsigned d = 0; d < t.rank(); ++d)
      drop[d] = t.dims[d] == 1;
  } else {
    EMBER_ASSIGN_OR_RETURN(auto axes, normalizeAxes(ctx, given, t.rank()));
    for (int64_t a : axes) {
      if (t.dims[a] != 1)
        return ctx.fail("cannot squeeze axis " + Twine(a) + " of " + t.str() +
                        ": its length is not 1");
      drop[a] = true;
    }
  }
  DimsVec dims;
  for (unsigned d = 0; d < t.rank(); ++d)
    if (!drop[d])
      dims.push_back(t.dims[d]);
  return setReshaped(ctx, x, dims);
}

Error loadUnsqueeze(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  std::vector<int64_t> given;
  bool hasAxes;
  EMBER_TRY(readAxes(ctx, given, hasAxes));
  if (!hasAxes)
    return ctx.fail("axes are required");
  unsigned rank = t.rank() + given.size();
  EMBER_ASSIGN_OR_RETURN(auto axes, normalizeAxes(ctx, given, rank));
  std::vector<bool> inserted(rank, false);
  for (int64_t a : axes)
    inserted[a] = true;
  DimsVec dims;
  for (unsigned d = 0, from = 0; d < rank; ++d)
    dims.push_back(inserted[d] ? 1 : t.dims[from++]);
  return setReshaped(ctx, x, dims);
}

Error loadTranspose(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  unsigned rank = x.getType().rank();
  std::vector<int64_t> perm;
  for (unsigned i = 0; i < rank; ++i)
    perm.push_back(rank - 1 - i);
  perm = ctx.getInts("perm", perm);
  EMBER_ASSIGN_OR_RETURN(
      NodeValue y, ctx.create(NodeKind::Transpose, {x}, AttrList().set<AttrKind::Shuffle>(perm)));
  return ctx.setOutput(0, y);
}

Error loadConcat(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto inputs, ctx.inputs(ctx.numInputs()));
  if (inputs.empty())
    return ctx.fail("needs at least one input");
  // Concat-1 defaults the axis to 1; from opset 4 it is required.
  if (ctx.opset() >= 4 && !ctx.hasAttr("axis"))
    return ctx.fail("attribute 'axis' is required");
  auto axis = normalizeAxis(ctx.getInt("axis", 1), inputs[0].getType().rank());
  if (!axis)
    return ctx.fail(errorToString(axis.takeError()));
  if (inputs.size() == 1)
    return ctx.setOutput(0, inputs[0]);
  EMBER_ASSIGN_OR_RETURN(
      NodeValue y, ctx.create(NodeKind::Concat, inputs, AttrList().set<AttrKind::Axis>(*axis)));
  return ctx.setOutput(0, y);
}

/// Identity passes on a tensor, a sequence or an optional alike.
Error loadIdentity(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(ONNXValue x, ctx.inputValue(0));
  return ctx.setOutputValue(0, std::move(x));
}

/// Dropout in inference mode (no training_mode, or a compile-time false) is the identity, and so
/// is training mode with a compile-time ratio of 0; the optional mask is then all true. Training
/// mode with another ratio drops elements at random, which ember refuses.
Error loadDropout(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  auto scalarInput = [&](unsigned i, StringRef name) -> Expected<double> {
    EMBER_ASSIGN_OR_RETURN(const Tensor *t, ctx.constantInput(i));
    if (t->numElements() != 1)
      return ctx.fail(name + " must be a scalar, got " + t->getType().str());
    return t->elementAsDouble(0);
  };
  if (ctx.opset() >= 12 && ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(double training, scalarInput(2, "training_mode"));
    // An omitted ratio is 0.5.
    double ratio = 0.5;
    if (training != 0 && ctx.hasInput(1)) {
      EMBER_ASSIGN_OR_RETURN(ratio, scalarInput(1, "ratio"));
    }
    if (training != 0 && ratio != 0)
      return ctx.fail("training mode with ratio " + numberToString(ratio) +
                      " drops elements at random, and no compiled model can reproduce another "
                      "implementation's random draws; only ratio 0 (the identity) or "
                      "training_mode false is supported");
  }
  EMBER_TRY(ctx.setOutput(0, x));
  if (ctx.hasOutput(1)) {
    EMBER_ASSIGN_OR_RETURN(Tensor mask,
                           ctx.newTensor(Type(ElemKind::Bool, x.getType().dims), "the mask"));
    std::fill(mask.dataAs<bool>(), mask.dataAs<bool>() + mask.numElements(), true);
    EMBER_TRY(ctx.setOutput(1, ctx.createConstant(std::move(mask), "mask")->getResult()));
  }
  return Error::success();
}

Error loadConstant(OpContext &ctx) {
  Tensor t;
  if (const onnx::TensorProto *proto = ctx.getTensorAttr("value")) {
    auto parsed = tensorFromONNX(*proto);
    if (!parsed)
      return parsed.takeError();
    t = std::move(*parsed);
  } else if (ctx.hasAttr("value_float")) {
    t = Tensor::fromValues<float>({}, {ctx.getFloat("value_float", 0)});
  } else if (ctx.hasAttr("value_int")) {
    t = Tensor::fromValues<int64_t>({}, {ctx.getInt("value_int", 0)});
  } else if (ctx.hasAttr("value_ints")) {
    std::vector<int64_t> v = ctx.getInts("value_ints");
    t = Tensor::fromValues<int64_t>({v.size()}, v);
  } else {
    return ctx.fail("needs a 'value', 'value_float', 'value_int' or 'value_ints' attribute "
                    "(sparse and string constants are not supported)");
  }
  return ctx.setOutput(0, ctx.createConstant(std::move(t), "value")->getResult());
}

/// Shape: the input's dims [start, end) (opset 15; clamped like a slice), known at load time.
Error loadShape(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const DimsVec &dims = x.getType().dims;
  int64_t rank = int64_t(dims.size());
  auto clampToRank = [rank](int64_t i) {
    if (i < 0)
      i += rank;
    return std::min(std::max<int64_t>(i, 0), rank);
  };
  int64_t start = clampToRank(ctx.getInt("start", 0));
  int64_t end = clampToRank(ctx.getInt("end", rank));
  std::vector<int64_t> values;
  for (int64_t d = start; d < end; ++d)
    values.push_back(int64_t(dims[d]));
  Tensor t = Tensor::fromValues<int64_t>({values.size()}, values);
  return ctx.setOutput(0, ctx.createConstant(std::move(t), "shape")->getResult());
}

Error loadSize(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  Tensor t = Tensor::fromValues<int64_t>({}, {int64_t(x.getType().numElements())});
  return ctx.setOutput(0, ctx.createConstant(std::move(t), "size")->getResult());
}

/// A tensor of \p type with every element equal to the one element of \p one.
Tensor filledWith(const Type &type, const Tensor &one) {
  Tensor t(type);
  size_t esz = type.elementSize();
  for (size_t i = 0, n = t.numElements(); i < n; ++i)
    std::memcpy(t.data() + i * esz, one.data(), esz);
  return t;
}

/// \p one (a 1-element tensor) repeated to \p dims: a Constant when cheap, else a Broadcast.
Error setFilled(OpContext &ctx, Tensor one, ArrayRef<dim_t> dims) {
  EMBER_ASSIGN_OR_RETURN(Type type, Type::checkedDims(one.getType().kind, dims));
  if (isCheapConstant(type))
    return ctx.setOutput(0, ctx.createConstant(filledWith(type, one), "value")->getResult());
  one.reshape({});
  NodeValue scalar = ctx.createConstant(std::move(one), "value")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.broadcastTo(scalar, dims));
  return ctx.setOutput(0, y);
}

Error loadConstantOfShape(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.constantInts(0));
  EMBER_ASSIGN_OR_RETURN(DimsVec dims, dimsFromInts(ctx, shape, "shape"));
  Tensor one = Tensor::fromValues<float>({}, {0.0f});
  if (const onnx::TensorProto *proto = ctx.getTensorAttr("value")) {
    EMBER_ASSIGN_OR_RETURN(one, tensorFromONNX(*proto));
    if (one.numElements() != 1)
      return ctx.fail("'value' must hold one element, got " + one.getType().str());
  }
  return setFilled(ctx, std::move(one), dims);
}

/// Range: start, limit and delta are known, so is the length (numpy arange's).
Error loadRange(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(const Tensor *start, ctx.constantInput(0));
  EMBER_ASSIGN_OR_RETURN(const Tensor *limit, ctx.constantInput(1));
  EMBER_ASSIGN_OR_RETURN(const Tensor *delta, ctx.constantInput(2));
  ElemKind kind = start->getType().kind;
  for (const Tensor *t : {start, limit, delta})
    if (t->numElements() != 1 || t->getType().rank() > 1 || t->getType().kind != kind)
      return ctx.fail("start, limit and delta must be scalars of one kind, got " +
                      start->getType().str() + ", " + limit->getType().str() + ", " +
                      delta->getType().str());
  double s = start->elementAsDouble(0), l = limit->elementAsDouble(0),
         d = delta->elementAsDouble(0);
  bool integer = isIntegerKind(kind);
  // Integers exactly (int64 values do not survive a trip through double).
  auto asInt = [](const Tensor *t) {
    return t->getType().kind == ElemKind::Int64 ? t->dataAs<int64_t>()[0]
                                                : int64_t(t->elementAsDouble(0));
  };
  int64_t count;
  if (kind == ElemKind::Int64 || kind == ElemKind::Int32 || kind == ElemKind::Int16) {
    __int128 span = __int128(asInt(limit)) - asInt(start), step = asInt(delta);
    if (step == 0)
      return ctx.fail("delta must not be 0");
    __int128 n = span / step + (span % step != 0 ? 1 : 0); // ceil when span and step agree
    count = n > 0 ? int64_t(std::min<__int128>(n, INT64_MAX)) : 0;
  } else if (kind == ElemKind::Float32 || kind == ElemKind::Float64) {
    double n = std::ceil((l - s) / d);
    if (d == 0 || !std::isfinite(n))
      return ctx.fail("start " + numberToString(s) + ", limit " + numberToString(l) +
                      " and delta " + numberToString(d) + " do not give a finite range");
    count = n > 0 ? (n < 9.0e18 ? int64_t(n) : INT64_MAX) : 0;
  } else {
    return ctx.fail("range of " + elemKindName(kind) +
                    " is not supported (float, double, int16, int32, int64)");
  }
  EMBER_ASSIGN_OR_RETURN(Type type, Type::checked(kind, {count}));
  if (integer && isCheapConstant(type)) {
    // Every value lies between start and limit, so none overflows.
    Tensor t(type);
    for (int64_t i = 0; i < count; ++i) {
      int64_t v = int64_t(__int128(asInt(start)) + __int128(i) * asInt(delta));
      if (kind == ElemKind::Int64)
        t.dataAs<int64_t>()[i] = v;
      else
        t.setElementFromDouble(size_t(i), double(v)); // int32/int16: exact
    }
    return ctx.setOutput(0, ctx.createConstant(std::move(t), "range")->getResult());
  }
  // Too big to store as a weight: computed at run time from start and delta.
  auto scalar = [&](const Tensor *t, StringRef name) {
    Tensor c = t->clone();
    c.reshape({});
    return ctx.createConstant(std::move(c), name)->getResult();
  };
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Range,
                                                 {scalar(start, "start"), scalar(delta, "delta")},
                                                 AttrList().set<AttrKind::Dims>({count})));
  return ctx.setOutput(0, y);
}

/// EyeLike: ones on diagonal k of a matrix shaped like the input: the ones' upper triangle from
/// diagonal k intersected with their lower triangle up to it.
Error loadEyeLike(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  if (t.rank() != 2)
    return ctx.fail("input must be a matrix, got " + t.str());
  ElemKind kind = t.kind;
  if (ctx.hasAttr("dtype")) {
    EMBER_ASSIGN_OR_RETURN(kind, elemKindFromONNX(int(ctx.getInt("dtype", 0))));
  }
  int64_t k = ctx.getInt("k", 0);
  Tensor one(Type(kind, {}));
  one.setElementFromDouble(0, 1);
  NodeValue ones = ctx.createConstant(std::move(one), "one")->getResult();
  EMBER_ASSIGN_OR_RETURN(ones, ctx.broadcastTo(ones, t.dims));
  NodeValue y = ones;
  for (int64_t upper : {1, 0}) {
    EMBER_ASSIGN_OR_RETURN(
        y, ctx.create(NodeKind::Trilu, {y},
                      AttrList().set<AttrKind::Upper>(upper).set<AttrKind::DiagonalOffset>(k),
                      upper ? "upper" : "diagonal"));
  }
  return ctx.setOutput(0, y);
}

} // namespace

void registerDataMovementOps(OpRegistry &r) {
  r.add("Reshape", 1, loadReshape);
  r.add("Flatten", 1, loadFlatten);
  r.add("Squeeze", 1, loadSqueeze);
  r.add("Unsqueeze", 1, loadUnsqueeze);
  r.add("Transpose", 1, loadTranspose);
  r.add("Concat", 1, loadConcat);
  r.add("Identity", 1, loadIdentity);
  r.add("Dropout", 1, loadDropout);
  r.add("Constant", 1, loadConstant);
  r.add("Shape", 1, loadShape);
  r.add("Size", 1, loadSize);
  r.add("ConstantOfShape", 9, loadConstantOfShape);
  r.add("Range", 11, loadRange);
  r.add("EyeLike", 9, loadEyeLike);
  registerDataMovementCacheOps(r); // TensorScatter
  registerDataMovementSliceOps(r);
  registerDataMovementIndexedOps(r);
  registerDataMovementResizeOps(r);
  registerDataMovementGridSampleOps(r);
  registerDataMovementComposedOps(r);
  registerDataMovementImageOps(r);
}

} // namespace ember
