// ONNX-ML SVMRegressor: the kernel of each row of X with every support vector (a MatMul for the
// dot products; for RBF the squared distances summed directly, as onnxruntime computes them,
// rather than expanded into norms and a product, which would lose precision), then a MatMul
// with the dual coefficients plus rho. Without support vectors the coefficients are a linear
// model's weights. post_transform is read and ignored, as onnxruntime does (one output).
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
    if (kernel != "LINEAR" && params.size() != 3)
      return ctx.fail("kernel " + kernel + " needs kernel_params [gamma, coef0, degree], got " +
                      Twine(params.size()) + " values");
    double gamma = params.size() > 0 ? params[0] : 0, coef0 = params.size() > 1 ? params[1] : 0;
    double degree = params.size() > 2 ? params[2] : 0;
    dim_t s = dim_t(count);
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

} // namespace

void registerMLSVMOps(OpRegistry &r) { r.add("SVMRegressor", 1, loadSVMRegressor); }

} // namespace ember
