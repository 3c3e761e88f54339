// ONNX-ML preprocessing operators (Binarizer, Scaler, Normalizer, Imputer,
// ArrayFeatureExtractor, OneHotEncoder) and the helpers every ONNX-ML loader shares (MLOps.h).
// Each operator is a few element-wise nodes over constants built from its attributes.
#include "MLOps.h"

#include "ONNXTensor.h"

#include "ember/Support/Error.h"

#include <cmath>
#include <limits>

using namespace llvm;

namespace ember {

Expected<NodeValue> mlConstant(OpContext &ctx, ElemKind kind, ArrayRef<dim_t> dims,
                               ArrayRef<double> values, StringRef suffix) {
  EMBER_ASSIGN_OR_RETURN(Tensor t, ctx.newTensor(Type(kind, dims), "constant '" + suffix + "'"));
  assert(values.size() == t.numElements() && "value count does not match dims");
  for (size_t i = 0; i < values.size(); ++i)
    t.setElementFromDouble(i, values[i]);
  return ctx.createConstant(std::move(t), suffix)->getResult();
}

Expected<NodeValue> mlBinary(OpContext &ctx, NodeKind kind, NodeValue a, NodeValue b,
                             StringRef suffix) {
  EMBER_ASSIGN_OR_RETURN(DimsVec dims, broadcastShapes(a.getType().dims, b.getType().dims));
  EMBER_ASSIGN_OR_RETURN(a, ctx.broadcastTo(a, dims));
  EMBER_ASSIGN_OR_RETURN(b, ctx.broadcastTo(b, dims));
  return ctx.create(kind, {a, b}, {}, suffix);
}

Expected<NodeValue> mlWhere(OpContext &ctx, NodeValue cond, NodeValue a, NodeValue b,
                            StringRef suffix) {
  EMBER_ASSIGN_OR_RETURN(DimsVec dims, broadcastShapes(a.getType().dims, b.getType().dims));
  EMBER_ASSIGN_OR_RETURN(dims, broadcastShapes(dims, cond.getType().dims));
  EMBER_ASSIGN_OR_RETURN(cond, ctx.broadcastTo(cond, dims));
  EMBER_ASSIGN_OR_RETURN(a, ctx.broadcastTo(a, dims));
  EMBER_ASSIGN_OR_RETURN(b, ctx.broadcastTo(b, dims));
  return ctx.create(NodeKind::Where, {cond, a, b}, {}, suffix);
}

Expected<NodeValue> mlCast(OpContext &ctx, NodeValue v, ElemKind kind, StringRef suffix) {
  if (v.getType().kind == kind)
    return v;
  return ctx.create(NodeKind::Cast, {v},
                    AttrList().set<AttrKind::ResultKind>(elemKindName(kind).str()), suffix);
}

Expected<NodeValue> mlUnary(OpContext &ctx, NodeValue v, StringRef function, StringRef suffix) {
  return ctx.create(NodeKind::Unary, {v}, AttrList().set<AttrKind::Function>(function.str()),
                    suffix);
}

Expected<NodeValue> mlFeatureRows(OpContext &ctx, ElemKind kind) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  if (t.rank() != 1 && t.rank() != 2)
    return ctx.fail("input X " + t.str() + " must be [C] (one row) or [N, C]");
  ElemKind k = t.kind;
  if (k != ElemKind::Float32 && k != ElemKind::Float64 && k != ElemKind::Int32 &&
      k != ElemKind::Int64)
    return ctx.fail("input X " + t.str() + ": the operator reads float32, float64, int32 or "
                    "int64 features");
  if (t.rank() == 1) {
    EMBER_ASSIGN_OR_RETURN(x, ctx.reshape(x, {1, t.dims[0]}));
  }
  return mlCast(ctx, x, kind, "features");
}

Expected<PostTransform> readPostTransform(OpContext &ctx) {
  std::string name = ctx.getString("post_transform", "NONE");
  EMBER_TRY(ctx.takeAttrError());
  if (name == "NONE")
    return PostTransform::None;
  if (name == "SOFTMAX")
    return PostTransform::Softmax;
  if (name == "LOGISTIC")
    return PostTransform::Logistic;
  if (name == "SOFTMAX_ZERO")
    return PostTransform::SoftmaxZero;
  if (name == "PROBIT")
    return PostTransform::Probit;
  return ctx.fail("post_transform must be NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or PROBIT, got '" +
                  name + "'");
}

/// onnxruntime's probit: sqrt(2) * erfinv(2x - 1), erfinv by Winitzki's approximation (a=0.147)
/// in float32, which is what its outputs hold (a true erfinv differs in the third digit).
static Expected<NodeValue> probit(OpContext &ctx, NodeValue x) {
  ElemKind k = x.getType().kind;
  auto c = [&](double v, StringRef name) { return mlConstant(ctx, k, {}, {v}, name); };
  EMBER_ASSIGN_OR_RETURN(NodeValue two, c(2, "probit_two"));
  EMBER_ASSIGN_OR_RETURN(NodeValue one, c(1, "probit_one"));
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, c(0, "probit_zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue minusOne, c(-1, "probit_minus_one"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, mlBinary(ctx, NodeKind::Mul, x, two, "probit_2x"));
  EMBER_ASSIGN_OR_RETURN(y, mlBinary(ctx, NodeKind::Sub, y, one, "probit_y"));
  EMBER_ASSIGN_OR_RETURN(NodeValue negative, mlBinary(ctx, NodeKind::Less, y, zero, "probit_neg"));
  EMBER_ASSIGN_OR_RETURN(NodeValue sign, mlWhere(ctx, negative, minusOne, one, "probit_sign"));
  EMBER_ASSIGN_OR_RETURN(NodeValue a, mlBinary(ctx, NodeKind::Sub, one, y, "probit_1my"));
  EMBER_ASSIGN_OR_RETURN(NodeValue b, mlBinary(ctx, NodeKind::Add, one, y, "probit_1py"));
  EMBER_ASSIGN_OR_RETURN(NodeValue t, mlBinary(ctx, NodeKind::Mul, a, b, "probit_t"));
  EMBER_ASSIGN_OR_RETURN(NodeValue lg, mlUnary(ctx, t, "log", "probit_log"));
  EMBER_ASSIGN_OR_RETURN(NodeValue k1, c(2 / (3.14159f * 0.147f), "probit_k1"));
  EMBER_ASSIGN_OR_RETURN(NodeValue half, c(0.5, "probit_half"));
  EMBER_ASSIGN_OR_RETURN(NodeValue inv, c(1 / 0.147f, "probit_k2"));
  EMBER_ASSIGN_OR_RETURN(NodeValue v, mlBinary(ctx, NodeKind::Mul, half, lg, "probit_hlog"));
  EMBER_ASSIGN_OR_RETURN(v, mlBinary(ctx, NodeKind::Add, k1, v, "probit_v"));
  EMBER_ASSIGN_OR_RETURN(NodeValue v2, mlBinary(ctx, NodeKind::Mul, inv, lg, "probit_v2"));
  EMBER_ASSIGN_OR_RETURN(NodeValue vv, mlBinary(ctx, NodeKind::Mul, v, v, "probit_vv"));
  EMBER_ASSIGN_OR_RETURN(vv, mlBinary(ctx, NodeKind::Sub, vv, v2, "probit_d"));
  EMBER_ASSIGN_OR_RETURN(vv, mlUnary(ctx, vv, "sqrt", "probit_sqrt_d"));
  EMBER_ASSIGN_OR_RETURN(NodeValue v3, mlBinary(ctx, NodeKind::Sub, vv, v, "probit_v3"));
  EMBER_ASSIGN_OR_RETURN(v3, mlUnary(ctx, v3, "sqrt", "probit_sqrt_v3"));
  EMBER_ASSIGN_OR_RETURN(v3, mlBinary(ctx, NodeKind::Mul, sign, v3, "probit_erfinv"));
  EMBER_ASSIGN_OR_RETURN(NodeValue sqrt2, c(1.41421356f, "probit_sqrt2"));
  return mlBinary(ctx, NodeKind::Mul, sqrt2, v3, "probit");
}

/// onnxruntime's SOFTMAX_ZERO: a softmax over the scores that are not (nearly) zero; a zero
/// score stays zero (it is scaled by exp(-max), as onnxruntime does).
static Expected<NodeValue> softmaxZero(OpContext &ctx, NodeValue x) {
  ElemKind k = x.getType().kind;
  dim_t rows = x.getType().dims[0];
  EMBER_ASSIGN_OR_RETURN(NodeValue eps, mlConstant(ctx, k, {}, {0.0000001}, "smz_eps"));
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, mlConstant(ctx, k, {}, {0}, "smz_zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue mag, mlUnary(ctx, x, "abs", "smz_abs"));
  EMBER_ASSIGN_OR_RETURN(NodeValue nonzero,
                         mlBinary(ctx, NodeKind::Greater, mag, eps, "smz_nonzero"));
  EMBER_ASSIGN_OR_RETURN(
      NodeValue max, ctx.create(NodeKind::Reduce, {x},
                                AttrList()
                                    .set<AttrKind::Reduction>(std::string("max"))
                                    .set<AttrKind::Axes>(std::vector<int64_t>{1}),
                                "smz_max"));
  EMBER_ASSIGN_OR_RETURN(NodeValue shifted, mlBinary(ctx, NodeKind::Sub, x, max, "smz_shift"));
  EMBER_ASSIGN_OR_RETURN(NodeValue e, mlUnary(ctx, shifted, "exp", "smz_exp"));
  EMBER_ASSIGN_OR_RETURN(NodeValue negMax, mlUnary(ctx, max, "neg", "smz_negmax"));
  EMBER_ASSIGN_OR_RETURN(negMax, mlUnary(ctx, negMax, "exp", "smz_expnegmax"));
  EMBER_ASSIGN_OR_RETURN(NodeValue small, mlBinary(ctx, NodeKind::Mul, x, negMax, "smz_small"));
  EMBER_ASSIGN_OR_RETURN(e, mlWhere(ctx, nonzero, e, small, "smz_values"));
  EMBER_ASSIGN_OR_RETURN(NodeValue counted, mlWhere(ctx, nonzero, e, zero, "smz_counted"));
  EMBER_ASSIGN_OR_RETURN(
      NodeValue sum, ctx.create(NodeKind::Reduce, {counted},
                                AttrList()
                                    .set<AttrKind::Reduction>(std::string("sum"))
                                    .set<AttrKind::Axes>(std::vector<int64_t>{1}),
                                "smz_sum"));
  EMBER_ASSIGN_OR_RETURN(sum, ctx.reshape(sum, {rows, 1}));
  return mlBinary(ctx, NodeKind::Div, e, sum, "softmax_zero");
}

Expected<NodeValue> applyPostTransform(OpContext &ctx, PostTransform t, NodeValue scores) {
  switch (t) {
  case PostTransform::None:
    return scores;
  case PostTransform::Softmax:
    return ctx.create(NodeKind::Softmax, {scores}, AttrList().set<AttrKind::Axis>(1), "softmax");
  case PostTransform::Logistic:
    return ctx.create(NodeKind::Sigmoid, {scores}, {}, "logistic");
  case PostTransform::SoftmaxZero:
    return softmaxZero(ctx, scores);
  case PostTransform::Probit:
    return probit(ctx, scores);
  }
  return scores;
}

Expected<std::vector<double>> mlTensorNumbers(OpContext &ctx, const onnx::TensorProto &proto,
                                              StringRef name) {
  auto t = tensorFromONNX(proto);
  if (!t)
    return ctx.fail("attribute '" + name + "': " + toString(t.takeError()));
  ElemKind k = t->getType().kind;
  if (k == ElemKind::Bool || isQuantizedKind(k))
    return ctx.fail("attribute '" + name + "' holds " + elemKindName(k) + ", not numbers");
  std::vector<double> values(t->numElements());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = t->elementAsDouble(i);
  return values;
}

Expected<std::vector<double>> mlNumbers(OpContext &ctx, StringRef name) {
  std::string tensorName = (name + "_as_tensor").str();
  bool plain = ctx.hasAttr(name), tensor = ctx.hasAttr(tensorName);
  if (plain && tensor)
    return ctx.fail("attributes '" + name + "' and '" + tensorName + "' are both given");
  if (tensor) {
    const onnx::TensorProto *t = ctx.getTensorAttr(tensorName);
    EMBER_TRY(ctx.takeAttrError());
    return mlTensorNumbers(ctx, *t, tensorName);
  }
  std::vector<float> f = ctx.getFloats(name);
  EMBER_TRY(ctx.takeAttrError());
  return std::vector<double>(f.begin(), f.end());
}

namespace {

/// X of Scaler and Normalizer (float32, float64, int32 or int64) as float32, their result's
/// kind (onnxruntime converts it so).
Expected<NodeValue> floatInput(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ElemKind k = x.getType().kind;
  if (k != ElemKind::Float32 && k != ElemKind::Float64 && k != ElemKind::Int32 &&
      k != ElemKind::Int64)
    return ctx.fail("input X " + x.getType().str() + ": float32, float64, int32 or int64 expected");
  return mlCast(ctx, x, ElemKind::Float32, "float");
}

/// Binarizer: X > threshold ? 1 : 0, in X's kind.
Error loadBinarizer(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ElemKind k = x.getType().kind;
  if (!isFloatKind(k) && k != ElemKind::Int32 && k != ElemKind::Int64)
    return ctx.fail("input X " + x.getType().str() + ": a float or int32/int64 kind expected");
  double threshold = ctx.getFloat("threshold", 0);
  EMBER_TRY(ctx.takeAttrError());
  EMBER_ASSIGN_OR_RETURN(NodeValue th, mlConstant(ctx, k, {}, {threshold}, "threshold"));
  EMBER_ASSIGN_OR_RETURN(NodeValue one, mlConstant(ctx, k, {}, {1}, "one"));
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, mlConstant(ctx, k, {}, {0}, "zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue above, mlBinary(ctx, NodeKind::Greater, x, th, "above"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, mlWhere(ctx, above, one, zero, ""));
  return ctx.setOutput(0, y);
}

/// Per-feature values (one for all, or one per feature of the last axis \p features) as a
/// constant to broadcast over X.
Expected<NodeValue> perFeature(OpContext &ctx, ArrayRef<double> values, dim_t features,
                               ElemKind k, StringRef what) {
  if (values.size() != 1 && values.size() != size_t(features))
    return ctx.fail("'" + what + "' has " + Twine(values.size()) + " values for " +
                    Twine(features) + " features: it needs 1 or one per feature");
  return mlConstant(ctx, k, {dim_t(values.size())}, values, what);
}

/// Scaler: (X - offset) * scale, float32, offset and scale per feature (last axis) or one for all.
Error loadScaler(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, floatInput(ctx));
  const Type &t = x.getType();
  if (t.rank() < 1)
    return ctx.fail("input X " + t.str() + " has no feature axis");
  std::vector<float> offset = ctx.getFloats("offset"), scale = ctx.getFloats("scale");
  EMBER_TRY(ctx.takeAttrError());
  dim_t c = t.dims.back();
  std::vector<double> o(offset.begin(), offset.end()), s(scale.begin(), scale.end());
  if (o.empty())
    o = {0};
  if (s.empty())
    s = {1};
  EMBER_ASSIGN_OR_RETURN(NodeValue off, perFeature(ctx, o, c, ElemKind::Float32, "offset"));
  EMBER_ASSIGN_OR_RETURN(NodeValue sc, perFeature(ctx, s, c, ElemKind::Float32, "scale"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, mlBinary(ctx, NodeKind::Sub, x, off, "shifted"));
  EMBER_ASSIGN_OR_RETURN(y, mlBinary(ctx, NodeKind::Mul, y, sc, ""));
  return ctx.setOutput(0, y);
}

/// Normalizer: each row of X ([N, C], or [C] as one row) divided by its max, L1 or L2 norm, as
/// float32; a row whose norm is 0 is left as it is (onnxruntime).
Error loadNormalizer(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, floatInput(ctx));
  const Type &t = x.getType();
  if (t.rank() != 1 && t.rank() != 2)
    return ctx.fail("input X " + t.str() + " must be [C] or [N, C]");
  std::string norm = ctx.getString("norm", "MAX");
  EMBER_TRY(ctx.takeAttrError());
  int64_t axis = int64_t(t.rank()) - 1;
  auto reduce = [&](NodeValue v, const char *how) {
    return ctx.create(NodeKind::Reduce, {v},
                      AttrList()
                          .set<AttrKind::Reduction>(std::string(how))
                          .set<AttrKind::Axes>(std::vector<int64_t>{axis}),
                      "norm");
  };
  NodeValue den;
  if (norm == "MAX") {
    EMBER_ASSIGN_OR_RETURN(den, reduce(x, "max"));
  } else if (norm == "L1") {
    EMBER_ASSIGN_OR_RETURN(den, reduce(x, "l1"));
  } else if (norm == "L2") {
    EMBER_ASSIGN_OR_RETURN(den, reduce(x, "l2"));
  } else {
    return ctx.fail("norm must be MAX, L1 or L2, got '" + norm + "'");
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, mlConstant(ctx, ElemKind::Float32, {}, {0}, "zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue one, mlConstant(ctx, ElemKind::Float32, {}, {1}, "one"));
  EMBER_ASSIGN_OR_RETURN(NodeValue isZero, mlBinary(ctx, NodeKind::Equal, den, zero, "norm_zero"));
  EMBER_ASSIGN_OR_RETURN(den, mlWhere(ctx, isZero, one, den, "divisor"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, mlBinary(ctx, NodeKind::Div, x, den, ""));
  return ctx.setOutput(0, y);
}

/// Imputer: the elements of X equal to the replaced value (NaN: the NaNs) become the imputed
/// value of their feature (last axis), one value for all features or one per feature.
Error loadImputer(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  if (t.rank() < 1)
    return ctx.fail("input X " + t.str() + " has no feature axis");
  std::vector<float> floats = ctx.getFloats("imputed_value_floats");
  std::vector<int64_t> ints = ctx.getInts("imputed_value_int64s");
  double replacedFloat = ctx.getFloat("replaced_value_float", 0);
  int64_t replacedInt = ctx.getInt("replaced_value_int64", 0);
  EMBER_TRY(ctx.takeAttrError());
  std::vector<double> values;
  double replaced;
  if (!floats.empty() && ints.empty()) {
    if (!isFloatKind(t.kind))
      return ctx.fail("imputed_value_floats needs float X, got " + t.str());
    values.assign(floats.begin(), floats.end());
    replaced = replacedFloat;
  } else if (floats.empty() && !ints.empty()) {
    if (t.kind != ElemKind::Int64 && t.kind != ElemKind::Int32)
      return ctx.fail("imputed_value_int64s needs int32 or int64 X, got " + t.str());
    values.assign(ints.begin(), ints.end());
    replaced = double(replacedInt);
  } else {
    return ctx.fail("exactly one of imputed_value_floats and imputed_value_int64s must be given");
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue imputed,
                         perFeature(ctx, values, t.dims.back(), t.kind, "imputed"));
  NodeValue hit;
  if (std::isnan(replaced)) {
    EMBER_ASSIGN_OR_RETURN(hit, ctx.create(NodeKind::IsNaN, {x}, {}, "missing"));
  } else {
    EMBER_ASSIGN_OR_RETURN(NodeValue r, mlConstant(ctx, t.kind, {}, {replaced}, "replaced"));
    EMBER_ASSIGN_OR_RETURN(hit, mlBinary(ctx, NodeKind::Equal, x, r, "missing"));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, mlWhere(ctx, hit, imputed, x, ""));
  return ctx.setOutput(0, y);
}

/// ArrayFeatureExtractor: X's last axis gathered at the indices Y (flattened); X [C] gives
/// [1, k], X [.., C] gives [.., k] (onnxruntime and the ONNX reference).
Error loadArrayFeatureExtractor(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue indices, ctx.input(1));
  const Type &t = x.getType();
  if (t.rank() < 1)
    return ctx.fail("input X " + t.str() + " has no feature axis");
  if (indices.getType().kind != ElemKind::Int64)
    return ctx.fail("input Y " + indices.getType().str() + " must be int64");
  dim_t k = indices.getType().numElements();
  EMBER_ASSIGN_OR_RETURN(indices, ctx.reshape(indices, {k}));
  EMBER_ASSIGN_OR_RETURN(
      NodeValue y, ctx.create(NodeKind::Gather, {x, indices},
                              AttrList().set<AttrKind::Axis>(int64_t(t.rank()) - 1), ""));
  if (t.rank() == 1) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, {1, k}));
  }
  return ctx.setOutput(0, y);
}

/// OneHotEncoder on integer categories: X [..] gives float32 [.., len(cats_int64s)], 1 where the
/// element equals the category. zeros=0 asks for an error on an unknown category at run time,
/// which a compiled model cannot raise: refused.
Error loadOneHotEncoder(OpContext &ctx) {
  if (ctx.hasAttr("cats_strings"))
    return ctx.fail("cats_strings is not supported: ember has no string tensors");
  std::vector<int64_t> cats = ctx.getInts("cats_int64s");
  int64_t zeros = ctx.getInt("zeros", 1);
  EMBER_TRY(ctx.takeAttrError());
  if (cats.empty())
    return ctx.fail("cats_int64s is empty or missing");
  if (zeros == 0)
    return ctx.fail("zeros=0 (an error on a category not in cats_int64s) is not supported: a "
                    "compiled model cannot raise it");
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  ElemKind k = t.kind;
  if (k != ElemKind::Int64 && k != ElemKind::Int32 && k != ElemKind::Float32 &&
      k != ElemKind::Float64)
    return ctx.fail("input X " + t.str() + ": int32, int64, float32 or float64 expected");
  // onnxruntime converts a float element to int64 (truncating) before looking it up.
  EMBER_ASSIGN_OR_RETURN(x, mlCast(ctx, x, ElemKind::Int64, "int64"));
  DimsVec dims = t.dims;
  dims.push_back(1);
  EMBER_ASSIGN_OR_RETURN(x, ctx.reshape(x, dims));
  std::vector<double> c(cats.begin(), cats.end());
  EMBER_ASSIGN_OR_RETURN(NodeValue catsC,
                         mlConstant(ctx, ElemKind::Int64, {dim_t(cats.size())}, c, "cats"));
  EMBER_ASSIGN_OR_RETURN(NodeValue eq, mlBinary(ctx, NodeKind::Equal, x, catsC, "match"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, mlCast(ctx, eq, ElemKind::Float32, ""));
  return ctx.setOutput(0, y);
}

} // namespace

void registerMLOps(OpRegistry &r) {
  r.add("Binarizer", 1, loadBinarizer);
  r.add("Scaler", 1, loadScaler);
  r.add("Normalizer", 1, loadNormalizer);
  r.add("Imputer", 1, loadImputer);
  r.add("ArrayFeatureExtractor", 1, loadArrayFeatureExtractor);
  r.add("OneHotEncoder", 1, loadOneHotEncoder);
  registerMLLabelEncoderOps(r);
  registerMLLinearOps(r);
  registerMLTreeOps(r);
  registerMLSVMOps(r);
}

} // namespace ember
