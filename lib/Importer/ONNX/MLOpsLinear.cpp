// ONNX-ML linear models: LinearRegressor and LinearClassifier, one MatMul with the coefficients
// and an Add of the intercepts, then the post transform (and the classifier's labels) as
// onnxruntime computes them.
#include "MLOps.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// X [N, C] as float32 times coefficients ([K * C], row k for output k) plus intercepts (none,
/// or K): [N, K].
Expected<NodeValue> linearScores(OpContext &ctx, ArrayRef<float> coefficients,
                                 ArrayRef<float> intercepts, int64_t k) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, mlFeatureRows(ctx, ElemKind::Float32));
  dim_t c = x.getType().dims[1];
  if (coefficients.size() != size_t(k) * c)
    return ctx.fail("coefficients has " + Twine(coefficients.size()) + " values; " + Twine(k) +
                    " outputs of " + Twine(c) + " features need " + Twine(uint64_t(k) * c));
  if (!intercepts.empty() && intercepts.size() != size_t(k))
    return ctx.fail("intercepts has " + Twine(intercepts.size()) + " values for " + Twine(k) +
                    " outputs");
  // Transposed to [C, K] for the MatMul.
  std::vector<double> w(coefficients.size());
  for (int64_t j = 0; j < k; ++j)
    for (dim_t i = 0; i < c; ++i)
      w[i * k + j] = coefficients[j * c + i];
  EMBER_ASSIGN_OR_RETURN(NodeValue wc,
                         mlConstant(ctx, ElemKind::Float32, {c, dim_t(k)}, w, "coefficients"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {x, wc}, {}, "product"));
  if (intercepts.empty())
    return y;
  std::vector<double> b(intercepts.begin(), intercepts.end());
  EMBER_ASSIGN_OR_RETURN(NodeValue bc,
                         mlConstant(ctx, ElemKind::Float32, {dim_t(k)}, b, "intercepts"));
  return mlBinary(ctx, NodeKind::Add, y, bc, "scores");
}

/// LinearRegressor: Y [N, targets] float32. On a single target onnxruntime applies PROBIT alone
/// of the post transforms (the others it ignores, the spec applies): those are refused there.
Error loadLinearRegressor(OpContext &ctx) {
  std::vector<float> coefficients = ctx.getFloats("coefficients");
  std::vector<float> intercepts = ctx.getFloats("intercepts");
  int64_t targets = ctx.getInt("targets", 1);
  EMBER_TRY(ctx.takeAttrError());
  if (targets < 1)
    return ctx.fail("targets must be at least 1, got " + Twine(targets));
  EMBER_ASSIGN_OR_RETURN(PostTransform pt, readPostTransform(ctx));
  if (targets == 1 && pt != PostTransform::None && pt != PostTransform::Probit)
    return ctx.fail("post_transform on a single target: onnxruntime ignores it, the spec applies "
                    "it; only NONE and PROBIT are supported there");
  EMBER_ASSIGN_OR_RETURN(NodeValue y, linearScores(ctx, coefficients, intercepts, targets));
  EMBER_ASSIGN_OR_RETURN(y, applyPostTransform(ctx, pt, y));
  return ctx.setOutput(0, y);
}

/// LinearClassifier with int64 labels: Y [N] the label, Z [N, classes] the scores. One class of
/// scores (one intercept) is the binary case: label 1 (classlabels_ints[1]) when the score is
/// positive, and Z = [1 - s, s] (LOGISTIC: of sigmoid(s)), as onnxruntime computes it.
Error loadLinearClassifier(OpContext &ctx) {
  if (ctx.hasAttr("classlabels_strings"))
    return ctx.fail("classlabels_strings is not supported: ember has no string tensors (int64 "
                    "labels, classlabels_ints, are)");
  std::vector<float> coefficients = ctx.getFloats("coefficients");
  std::vector<float> intercepts = ctx.getFloats("intercepts");
  std::vector<int64_t> labels = ctx.getInts("classlabels_ints");
  EMBER_TRY(ctx.takeAttrError());
  EMBER_ASSIGN_OR_RETURN(PostTransform pt, readPostTransform(ctx));
  // onnxruntime counts the classes by the intercepts.
  int64_t k = int64_t(intercepts.size());
  if (k == 0)
    return ctx.fail("intercepts is missing: it gives the number of classes");
  bool binary = k == 1;
  if (binary ? labels.size() != 2 : labels.size() != size_t(k))
    return ctx.fail("classlabels_ints has " + Twine(labels.size()) + " labels for " + Twine(k) +
                    " classes of intercepts" + (binary ? " (the binary case needs 2)" : ""));
  EMBER_ASSIGN_OR_RETURN(NodeValue s, linearScores(ctx, coefficients, intercepts, k));
  dim_t n = s.getType().dims[0];
  std::vector<double> labelValues(labels.begin(), labels.end());
  EMBER_ASSIGN_OR_RETURN(NodeValue labelC, mlConstant(ctx, ElemKind::Int64, {dim_t(labels.size())},
                                                      labelValues, "labels"));
  NodeValue y, z;
  if (binary) {
    if (pt == PostTransform::Probit)
      return ctx.fail("post_transform PROBIT on a binary classifier is not supported "
                      "(onnxruntime's scores are not a probit of either class)");
    EMBER_ASSIGN_OR_RETURN(NodeValue zero, mlConstant(ctx, ElemKind::Float32, {}, {0}, "zero"));
    EMBER_ASSIGN_OR_RETURN(NodeValue positive,
                           mlBinary(ctx, NodeKind::Greater, s, zero, "positive"));
    EMBER_ASSIGN_OR_RETURN(NodeValue idx, mlCast(ctx, positive, ElemKind::Int64, "class"));
    EMBER_ASSIGN_OR_RETURN(idx, ctx.reshape(idx, {n}));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Gather, {labelC, idx},
                                         AttrList().set<AttrKind::Axis>(0), "label"));
    if (pt == PostTransform::Logistic) {
      EMBER_ASSIGN_OR_RETURN(s, ctx.create(NodeKind::Sigmoid, {s}, {}, "logistic"));
    }
    EMBER_ASSIGN_OR_RETURN(NodeValue one, mlConstant(ctx, ElemKind::Float32, {}, {1}, "one"));
    EMBER_ASSIGN_OR_RETURN(NodeValue other, mlBinary(ctx, NodeKind::Sub, one, s, "negative"));
    EMBER_ASSIGN_OR_RETURN(z, ctx.create(NodeKind::Concat, {other, s},
                                         AttrList().set<AttrKind::Axis>(1), "both"));
  } else {
    EMBER_ASSIGN_OR_RETURN(
        NodeValue best,
        ctx.create(NodeKind::ArgMax, {s},
                   AttrList().set<AttrKind::Axis>(1).set<AttrKind::SelectLastIndex>(0), "best"));
    EMBER_ASSIGN_OR_RETURN(best, ctx.reshape(best, {n}));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Gather, {labelC, best},
                                         AttrList().set<AttrKind::Axis>(0), "label"));
    EMBER_ASSIGN_OR_RETURN(z, applyPostTransform(ctx, pt, s));
  }
  EMBER_TRY(ctx.setOutput(0, y));
  return ctx.setOutput(1, z);
}

} // namespace

void registerMLLinearOps(OpRegistry &r) {
  r.add("LinearRegressor", 1, loadLinearRegressor);
  r.add("LinearClassifier", 1, loadLinearClassifier);
}

} // namespace ember
