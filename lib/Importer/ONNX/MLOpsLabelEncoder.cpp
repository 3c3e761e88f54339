// ONNX-ML LabelEncoder on numeric keys and values (ai.onnx.ml 2's keys_int64s/keys_floats and
// values_*, 4's keys_tensor/values_tensor/default_tensor): each element of X is compared with
// every key (Equal), the first key it matches picks its value (ArgMax, Gather), and an element
// matching none takes the default (Where). A NaN key matches NaN elements (the spec compares
// bitwise). String keys or values are refused: ember has no string tensors.
#include "MLOps.h"

#include "ONNXTensor.h"

#include "ember/Support/Error.h"

#include <cmath>

using namespace llvm;

namespace ember {

namespace {

/// One side of the mapping: its element kind and values.
struct Numbers {
  ElemKind kind = ElemKind::Float32;
  std::vector<double> values;
  bool given = false;
};

/// Reads \p prefix + "_int64s", "_floats" or "_tensor" (one of them); "_strings" is refused.
Expected<Numbers> readSide(OpContext &ctx, StringRef prefix) {
  std::string ints = (prefix + "_int64s").str(), floats = (prefix + "_floats").str();
  std::string tensor = (prefix + "_tensor").str(), strings = (prefix + "_strings").str();
  if (ctx.hasAttr(strings) || (prefix == "keys" && ctx.hasAttr("classes_strings")))
    return ctx.fail("string " + prefix + " are not supported: ember has no string tensors, so "
                    "LabelEncoder maps numbers to numbers only");
  int present = ctx.hasAttr(ints) + ctx.hasAttr(floats) + ctx.hasAttr(tensor);
  if (present != 1)
    return ctx.fail("exactly one of " + ints + ", " + floats + " and " + tensor + " is needed");
  Numbers n;
  n.given = true;
  if (ctx.hasAttr(ints)) {
    std::vector<int64_t> v = ctx.getInts(ints);
    n.kind = ElemKind::Int64;
    n.values.assign(v.begin(), v.end());
  } else if (ctx.hasAttr(floats)) {
    std::vector<float> v = ctx.getFloats(floats);
    n.kind = ElemKind::Float32;
    n.values.assign(v.begin(), v.end());
  } else {
    const onnx::TensorProto *t = ctx.getTensorAttr(tensor);
    EMBER_TRY(ctx.takeAttrError());
    if (t->data_type() == onnx::TensorProto::STRING)
      return ctx.fail("string " + prefix + " are not supported: ember has no string tensors, so "
                      "LabelEncoder maps numbers to numbers only");
    EMBER_ASSIGN_OR_RETURN(n.values, mlTensorNumbers(ctx, *t, tensor));
    auto kind = elemKindFromONNX(t->data_type());
    if (!kind)
      return ctx.fail("attribute '" + tensor + "': " + toString(kind.takeError()));
    n.kind = *kind;
  }
  EMBER_TRY(ctx.takeAttrError());
  return n;
}

Error loadLabelEncoder(OpContext &ctx) {
  if (ctx.opset() < 2)
    return ctx.fail("LabelEncoder-1 maps strings to int64 or back: ember has no string tensors");
  EMBER_ASSIGN_OR_RETURN(Numbers keys, readSide(ctx, "keys"));
  EMBER_ASSIGN_OR_RETURN(Numbers values, readSide(ctx, "values"));
  if (keys.values.size() != values.values.size())
    return ctx.fail("there are " + Twine(keys.values.size()) + " keys and " +
                    Twine(values.values.size()) + " values");
  if (keys.values.empty())
    return ctx.fail("there are no keys");
  // The default: default_tensor, else default_int64 (-1) for integer values, default_float
  // (-0.0) for float ones.
  double def = isFloatKind(values.kind) ? -0.0 : -1.0;
  if (const onnx::TensorProto *t = ctx.getTensorAttr("default_tensor")) {
    EMBER_ASSIGN_OR_RETURN(std::vector<double> d, mlTensorNumbers(ctx, *t, "default_tensor"));
    if (d.size() != 1)
      return ctx.fail("default_tensor must hold one value, it holds " + Twine(d.size()));
    def = d[0];
  } else if (values.kind == ElemKind::Int64) {
    def = double(ctx.getInt("default_int64", -1));
  } else if (values.kind == ElemKind::Float32) {
    def = ctx.getFloat("default_float", -0.0f);
  }
  EMBER_TRY(ctx.takeAttrError());

  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  if (t.kind != keys.kind)
    return ctx.fail("input X " + t.str() + " does not have the keys' kind " +
                    elemKindName(keys.kind));
  dim_t k = dim_t(keys.values.size());
  DimsVec dims = t.dims;
  DimsVec column = dims;
  column.push_back(1);
  EMBER_ASSIGN_OR_RETURN(NodeValue xc, ctx.reshape(x, column));
  EMBER_ASSIGN_OR_RETURN(NodeValue keyC, mlConstant(ctx, keys.kind, {k}, keys.values, "keys"));
  EMBER_ASSIGN_OR_RETURN(NodeValue match, mlBinary(ctx, NodeKind::Equal, xc, keyC, "match"));
  std::vector<double> nanKeys(k, 0);
  bool anyNaN = false;
  for (dim_t i = 0; i < k; ++i)
    if (std::isnan(keys.values[i]))
      nanKeys[i] = 1, anyNaN = true;
  if (anyNaN) {
    EMBER_ASSIGN_OR_RETURN(NodeValue nan, ctx.create(NodeKind::IsNaN, {xc}, {}, "nan"));
    EMBER_ASSIGN_OR_RETURN(NodeValue mask,
                           mlConstant(ctx, ElemKind::Bool, {k}, nanKeys, "nan_keys"));
    EMBER_ASSIGN_OR_RETURN(nan, mlBinary(ctx, NodeKind::And, nan, mask, "nan_match"));
    EMBER_ASSIGN_OR_RETURN(match, mlBinary(ctx, NodeKind::Or, match, nan, "matches"));
  }
  int64_t last = int64_t(column.size()) - 1;
  EMBER_ASSIGN_OR_RETURN(NodeValue mf, mlCast(ctx, match, ElemKind::Float32, "match_float"));
  EMBER_ASSIGN_OR_RETURN(
      NodeValue first,
      ctx.create(NodeKind::ArgMax, {mf},
                 AttrList().set<AttrKind::Axis>(last).set<AttrKind::SelectLastIndex>(0), "first"));
  EMBER_ASSIGN_OR_RETURN(first, ctx.reshape(first, dims));
  EMBER_ASSIGN_OR_RETURN(
      NodeValue found, ctx.create(NodeKind::Reduce, {mf},
                                  AttrList()
                                      .set<AttrKind::Reduction>(std::string("max"))
                                      .set<AttrKind::Axes>(std::vector<int64_t>{last}),
                                  "found_any"));
  EMBER_ASSIGN_OR_RETURN(found, ctx.reshape(found, dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, mlConstant(ctx, ElemKind::Float32, {}, {0}, "zero"));
  EMBER_ASSIGN_OR_RETURN(found, mlBinary(ctx, NodeKind::Greater, found, zero, "found"));
  EMBER_ASSIGN_OR_RETURN(NodeValue valueC,
                         mlConstant(ctx, values.kind, {k}, values.values, "values"));
  EMBER_ASSIGN_OR_RETURN(NodeValue mapped, ctx.create(NodeKind::Gather, {valueC, first},
                                                      AttrList().set<AttrKind::Axis>(0), "mapped"));
  EMBER_ASSIGN_OR_RETURN(NodeValue defC, mlConstant(ctx, values.kind, {}, {def}, "default"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, mlWhere(ctx, found, mapped, defC, ""));
  return ctx.setOutput(0, y);
}

} // namespace

void registerMLLabelEncoderOps(OpRegistry &r) {
  r.add("LabelEncoder", 1, loadLabelEncoder);
  r.add("LabelEncoder", 2, loadLabelEncoder);
  r.add("LabelEncoder", 4, loadLabelEncoder);
}

} // namespace ember
