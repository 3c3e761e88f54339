// ONNX-ML support vector machines. SVMRegressor: the kernel of each row of X with every support
// vector (a MatMul for the dot products; for RBF the squared distances summed directly, as
// onnxruntime computes them, rather than expanded into norms and a product, which would lose
// precision), then a MatMul with the dual coefficients plus rho. Without support vectors the
// coefficients are a linear model's weights. post_transform is read and ignored, as onnxruntime
// does (one output). SVMClassifier: the same kernels, one-vs-one (loadSVMClassifier).
#include "MLOps.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// gamma * dot + coef0.
Expected<NodeValue> affine(OpContext &ctx, NodeValue dot, double gamma, double coef0) {
  EMBER_ASSIGN_OR_RETURN(NodeValue g, mlConstant(ctx, ElemKind::Float32, {}, {gamma}, "gamma"));
  EMBER_ASSIGN_OR_RETURN(NodeValue c, mlConstant(ctx, ElemKind::Float32, {}, {coef0}, "coef0"));
  EMBER_ASSIGN_OR_RETURN(NodeValue v, mlBinary(ctx, NodeKind::Mul, dot, g, "scaled"));
  return mlBinary(ctx, NodeKind::Add, v, c, "shifted");
}

/// The kernel of each row of \p x ([N, C]) with each of the \p s support vectors: [N, S].
Expected<NodeValue> kernelMatrix(OpContext &ctx, NodeValue x, ArrayRef<float> supports, dim_t s,
                                 const std::string &kernel, ArrayRef<float> params) {
  dim_t n = x.getType().dims[0], c = x.getType().dims[1];
  if (kernel != "LINEAR" && params.size() != 3)
    return ctx.fail("kernel " + kernel + " needs kernel_params [gamma, coef0, degree], got " +
                    Twine(params.size()) + " values");
  double gamma = params.size() > 0 ? params[0] : 0, coef0 = params.size() > 1 ? params[1] : 0;
  double degree = params.size() > 2 ? params[2] : 0;
  std::vector<double> sv(supports.begin(), supports.end());
  NodeValue k;
  if (kernel == "RBF") {
    EMBER_ASSIGN_OR_RETURN(NodeValue svc,
                           mlConstant(ctx, ElemKind::Float32, {1, s, c}, sv, "support_vectors"));
    EMBER_ASSIGN_OR_RETURN(NodeValue x3, ctx.reshape(x, {n, 1, c}));
    EMBER_ASSIGN_OR_RETURN(NodeValue d, mlBinary(ctx, NodeKind::Sub, x3, svc, "difference"));
    EMBER_ASSIGN_OR_RETURN(d, mlBinary(ctx, NodeKind::Mul, d, d, "squared"));
    EMBER_ASSIGN_OR_RETURN(
        d, ctx.create(NodeKind::Reduce, {d},
                      AttrList()
                          .set<AttrKind::Reduction>(std::string("sum"))
                          .set<AttrKind::Axes>(std::vector<int64_t>{2}),
                      "distance"));
    EMBER_ASSIGN_OR_RETURN(d, ctx.reshape(d, {n, s}));
    EMBER_ASSIGN_OR_RETURN(NodeValue g, mlConstant(ctx, ElemKind::Float32, {}, {-gamma},
                                                   "minus_gamma"));
    EMBER_ASSIGN_OR_RETURN(d, mlBinary(ctx, NodeKind::Mul, d, g, "exponent"));
    EMBER_ASSIGN_OR_RETURN(k, mlUnary(ctx, d, "exp", "kernel"));
  } else {
    // Transposed to [C, S] for the MatMul.
    std::vector<double> svt(sv.size());
    for (dim_t i = 0; i < s; ++i)
      for (dim_t j = 0; j < c; ++j)
        svt[j * s + i] = sv[i * c + j];
    EMBER_ASSIGN_OR_RETURN(NodeValue svc,
                           mlConstant(ctx, ElemKind::Float32, {c, s}, svt, "support_vectors"));
    EMBER_ASSIGN_OR_RETURN(k, ctx.create(NodeKind::MatMul, {x, svc}, {}, "dot"));
    if (kernel == "POLY") {
      EMBER_ASSIGN_OR_RETURN(k, affine(ctx, k, gamma, coef0));
      EMBER_ASSIGN_OR_RETURN(NodeValue e, mlConstant(ctx, ElemKind::Float32, {}, {degree},
                                                     "degree"));
      EMBER_ASSIGN_OR_RETURN(k, mlBinary(ctx, NodeKind::Pow, k, e, "kernel"));
    } else if (kernel == "SIGMOID") {
      EMBER_ASSIGN_OR_RETURN(k, affine(ctx, k, gamma, coef0));
      EMBER_ASSIGN_OR_RETURN(k, ctx.create(NodeKind::Tanh, {k}, {}, "kernel"));
    }
  }
  return k;
}

Error loadSVMRegressor(OpContext &ctx) {
  std::vector<float> coefficients = ctx.getFloats("coefficients");
  std::vector<float> supports = ctx.getFloats("support_vectors");
  std::vector<float> rho = ctx.getFloats("rho");
  std::vector<float> params = ctx.getFloats("kernel_params");
  std::string kernel = ctx.getString("kernel_type", "LINEAR");
  int64_t count = ctx.getInt("n_supports", 0);
  int64_t oneClass = ctx.getInt("one_class", 0);
  EMBER_TRY(ctx.takeAttrError());
  EMBER_TRY(readPostTransform(ctx).takeError()); // checked, not applied (onnxruntime)
  if (coefficients.empty())
    return ctx.fail("coefficients is missing or empty");
  if (rho.size() != 1)
    return ctx.fail("rho must hold one value, it holds " + Twine(rho.size()));
  if (kernel != "LINEAR" && kernel != "POLY" && kernel != "RBF" && kernel != "SIGMOID")
    return ctx.fail("kernel_type must be LINEAR, POLY, RBF or SIGMOID, got '" + kernel + "'");
  EMBER_ASSIGN_OR_RETURN(NodeValue x, mlFeatureRows(ctx, ElemKind::Float32));
  dim_t n = x.getType().dims[0], c = x.getType().dims[1];
  NodeValue y;
  if (count == 0) {
    // A linear model: X . coefficients + rho (onnxruntime applies no kernel then).
    if (coefficients.size() != size_t(c))
      return ctx.fail("coefficients has " + Twine(coefficients.size()) + " weights for " +
                      Twine(c) + " features");
    std::vector<double> w(coefficients.begin(), coefficients.end());
    EMBER_ASSIGN_OR_RETURN(NodeValue wc, mlConstant(ctx, ElemKind::Float32, {c, 1}, w, "weights"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::MatMul, {x, wc}, {}, "product"));
  } else {
    if (count < 0 || supports.size() != size_t(count) * c)
      return ctx.fail("support_vectors has " + Twine(supports.size()) + " values; " +
                      Twine(count) + " vectors (n_supports) of " + Twine(c) + " features need " +
                      Twine(uint64_t(std::max<int64_t>(count, 0)) * c));
    if (coefficients.size() != size_t(count))
      return ctx.fail("coefficients has " + Twine(coefficients.size()) + " values for " +
                      Twine(count) + " support vectors");
    dim_t s = dim_t(count);
    EMBER_ASSIGN_OR_RETURN(NodeValue k, kernelMatrix(ctx, x, supports, s, kernel, params));
    std::vector<double> w(coefficients.begin(), coefficients.end());
    EMBER_ASSIGN_OR_RETURN(NodeValue wc, mlConstant(ctx, ElemKind::Float32, {s, 1}, w,
                                                    "coefficients"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::MatMul, {k, wc}, {}, "product"));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue r, mlConstant(ctx, ElemKind::Float32, {}, {rho[0]}, "rho"));
  EMBER_ASSIGN_OR_RETURN(y, mlBinary(ctx, NodeKind::Add, y, r, "value"));
  if (oneClass) {
    EMBER_ASSIGN_OR_RETURN(NodeValue zero, mlConstant(ctx, ElemKind::Float32, {}, {0}, "zero"));
    EMBER_ASSIGN_OR_RETURN(NodeValue one, mlConstant(ctx, ElemKind::Float32, {}, {1}, "one"));
    EMBER_ASSIGN_OR_RETURN(NodeValue minus, mlConstant(ctx, ElemKind::Float32, {}, {-1}, "minus"));
    EMBER_ASSIGN_OR_RETURN(NodeValue inside, mlBinary(ctx, NodeKind::Greater, y, zero, "inside"));
    EMBER_ASSIGN_OR_RETURN(y, mlWhere(ctx, inside, one, minus, "one_class"));
  }
  return ctx.setOutput(0, y);
}


/// SVMClassifier with support vectors and int64 labels, without probabilities (prob_a): one
/// decision value per pair of classes (i < j), positive for i, as a MatMul of the kernels with
/// a [S, pairs] matrix holding each pair's coefficients, plus rho. The label is the class with
/// the most votes (the first on a tie), Z the decision values after post_transform; with two
/// classes, Z is [-d, d] (onnxruntime), and only post_transform NONE is supported.
Error loadSVMClassifier(OpContext &ctx) {
  if (ctx.hasAttr("classlabels_strings"))
    return ctx.fail("classlabels_strings is not supported: ember has no string tensors (int64 "
                    "labels, classlabels_ints, are)");
  std::vector<float> coefficients = ctx.getFloats("coefficients");
  std::vector<float> supports = ctx.getFloats("support_vectors");
  std::vector<float> rho = ctx.getFloats("rho");
  std::vector<float> params = ctx.getFloats("kernel_params");
  std::vector<float> probA = ctx.getFloats("prob_a");
  std::vector<int64_t> perClass = ctx.getInts("vectors_per_class");
  std::vector<int64_t> labels = ctx.getInts("classlabels_ints");
  std::string kernel = ctx.getString("kernel_type", "LINEAR");
  EMBER_TRY(ctx.takeAttrError());
  EMBER_ASSIGN_OR_RETURN(PostTransform pt, readPostTransform(ctx));
  if (!probA.empty())
    return ctx.fail("probabilities (prob_a, prob_b) are not supported: onnxruntime couples the "
                    "pairs' sigmoids by an iterative method");
  if (perClass.empty())
    return ctx.fail("the linear mode (no vectors_per_class) is not supported");
  if (kernel != "LINEAR" && kernel != "POLY" && kernel != "RBF" && kernel != "SIGMOID")
    return ctx.fail("kernel_type must be LINEAR, POLY, RBF or SIGMOID, got '" + kernel + "'");
  size_t classes = labels.size();
  if (classes < 2 || perClass.size() != classes)
    return ctx.fail("vectors_per_class has " + Twine(perClass.size()) + " entries for " +
                    Twine(classes) + " labels (classlabels_ints, at least 2)");
  std::vector<size_t> start;
  size_t s = 0;
  for (int64_t v : perClass) {
    if (v < 0)
      return ctx.fail("vectors_per_class holds " + Twine(v));
    start.push_back(s);
    s += size_t(v);
  }
  size_t pairs = classes * (classes - 1) / 2;
  if (s == 0 || coefficients.size() != (classes - 1) * s || rho.size() != pairs)
    return ctx.fail("coefficients has " + Twine(coefficients.size()) + " values and rho " +
                    Twine(rho.size()) + " for " + Twine(s) + " support vectors of " +
                    Twine(classes) + " classes: they need (classes - 1) x vectors and one per "
                    "pair of classes");
  if (classes == 2 && pt != PostTransform::None)
    return ctx.fail("post_transform on two classes is not supported (onnxruntime writes "
                    "[-d, d] without it and another form with it)");
  EMBER_ASSIGN_OR_RETURN(NodeValue x, mlFeatureRows(ctx, ElemKind::Float32));
  dim_t n = x.getType().dims[0], c = x.getType().dims[1];
  if (supports.size() != s * size_t(c))
    return ctx.fail("support_vectors has " + Twine(supports.size()) + " values; " + Twine(s) +
                    " vectors of " + Twine(c) + " features need " + Twine(uint64_t(s) * c));
  EMBER_ASSIGN_OR_RETURN(NodeValue k, kernelMatrix(ctx, x, supports, dim_t(s), kernel, params));
  // Pair (i, j): class i's vectors weighed by coefficient row j - 1, class j's by row i.
  std::vector<double> p(s * pairs, 0), forI(pairs * classes, 0), forJ(pairs * classes, 0);
  size_t pair = 0;
  for (size_t i = 0; i + 1 < classes; ++i)
    for (size_t j = i + 1; j < classes; ++j, ++pair) {
      for (size_t m = start[i]; m < start[i] + size_t(perClass[i]); ++m)
        p[m * pairs + pair] = coefficients[(j - 1) * s + m];
      for (size_t m = start[j]; m < start[j] + size_t(perClass[j]); ++m)
        p[m * pairs + pair] = coefficients[i * s + m];
      forI[pair * classes + i] = 1;
      forJ[pair * classes + j] = 1;
    }
  // The pair sums cancel (a vote is their sign): in float64, as onnxruntime sums them.
  dim_t np = dim_t(pairs), nc = dim_t(classes);
  EMBER_ASSIGN_OR_RETURN(NodeValue pc, mlConstant(ctx, ElemKind::Float64, {dim_t(s), np}, p,
                                                  "pair_coefficients"));
  EMBER_ASSIGN_OR_RETURN(k, mlCast(ctx, k, ElemKind::Float64, "kernel_double"));
  EMBER_ASSIGN_OR_RETURN(NodeValue d, ctx.create(NodeKind::MatMul, {k, pc}, {}, "pair_sums"));
  std::vector<double> r(rho.begin(), rho.end());
  EMBER_ASSIGN_OR_RETURN(NodeValue rc, mlConstant(ctx, ElemKind::Float64, {np}, r, "rho"));
  EMBER_ASSIGN_OR_RETURN(d, mlBinary(ctx, NodeKind::Add, d, rc, "decisions_double"));
  EMBER_ASSIGN_OR_RETURN(d, mlCast(ctx, d, ElemKind::Float32, "decisions"));
  // Votes: pair (i, j) votes i when its decision is positive, else j.
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, mlConstant(ctx, ElemKind::Float32, {}, {0}, "zero"));
  EMBER_ASSIGN_OR_RETURN(NodeValue positive, mlBinary(ctx, NodeKind::Greater, d, zero, "for_i"));
  EMBER_ASSIGN_OR_RETURN(NodeValue vi, mlCast(ctx, positive, ElemKind::Float32, "for_i_float"));
  EMBER_ASSIGN_OR_RETURN(NodeValue one, mlConstant(ctx, ElemKind::Float32, {}, {1}, "one"));
  EMBER_ASSIGN_OR_RETURN(NodeValue vj, mlBinary(ctx, NodeKind::Sub, one, vi, "for_j"));
  EMBER_ASSIGN_OR_RETURN(NodeValue ai, mlConstant(ctx, ElemKind::Float32, {np, nc}, forI, "pair_i"));
  EMBER_ASSIGN_OR_RETURN(NodeValue aj, mlConstant(ctx, ElemKind::Float32, {np, nc}, forJ, "pair_j"));
  EMBER_ASSIGN_OR_RETURN(vi, ctx.create(NodeKind::MatMul, {vi, ai}, {}, "votes_i"));
  EMBER_ASSIGN_OR_RETURN(vj, ctx.create(NodeKind::MatMul, {vj, aj}, {}, "votes_j"));
  EMBER_ASSIGN_OR_RETURN(NodeValue votes, mlBinary(ctx, NodeKind::Add, vi, vj, "votes"));
  EMBER_ASSIGN_OR_RETURN(
      NodeValue best,
      ctx.create(NodeKind::ArgMax, {votes},
                 AttrList().set<AttrKind::Axis>(1).set<AttrKind::SelectLastIndex>(0), "best"));
  EMBER_ASSIGN_OR_RETURN(best, ctx.reshape(best, {n}));
  std::vector<double> labelValues(labels.begin(), labels.end());
  EMBER_ASSIGN_OR_RETURN(NodeValue labelC,
                         mlConstant(ctx, ElemKind::Int64, {nc}, labelValues, "labels"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Gather, {labelC, best},
                                                 AttrList().set<AttrKind::Axis>(0), "label"));
  NodeValue z;
  if (classes == 2) {
    EMBER_ASSIGN_OR_RETURN(NodeValue negated, mlUnary(ctx, d, "neg", "negated"));
    EMBER_ASSIGN_OR_RETURN(z, ctx.create(NodeKind::Concat, {negated, d},
                                         AttrList().set<AttrKind::Axis>(1), "both"));
  } else {
    EMBER_ASSIGN_OR_RETURN(z, applyPostTransform(ctx, pt, d));
  }
  EMBER_TRY(ctx.setOutput(0, y));
  return ctx.setOutput(1, z);
}

} // namespace

void registerMLSVMOps(OpRegistry &r) {
  r.add("SVMRegressor", 1, loadSVMRegressor);
  r.add("SVMClassifier", 1, loadSVMClassifier);
}

} // namespace ember
