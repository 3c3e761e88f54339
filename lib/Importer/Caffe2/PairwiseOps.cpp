// Caffe2's operators that combine two tensors of one shape row by row: DotProduct
// (distance_op.cc) and SigmoidCrossEntropyWithLogits (cross_entropy_op.cc).
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// Inputs 0 and 1, float, of one shape (CAFFE_ENFORCE_EQ on every dim).
Expected<SmallVector<NodeValue, 4>> sameShapeFloats(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  const Type &a = in[0].getType(), &b = in[1].getType();
  if (a.dims != b.dims)
    return ctx.fail("the inputs must have one shape (CAFFE_ENFORCE_EQ on each dim): " +
                    a.str() + " and " + b.str());
  if (a.kind != ElemKind::Float32 || b.kind != ElemKind::Float32)
    return ctx.fail("takes float tensors, got " + a.str() + " and " + b.str());
  return in;
}

/// The sum of \p v along \p axes, or their mean with \p mean, dropped to \p dims.
Expected<NodeValue> reduceTo(OpContext &ctx, NodeValue v, std::vector<int64_t> axes, bool mean,
                             ArrayRef<dim_t> dims) {
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         reduceAlong(ctx, v, mean ? "mean" : "sum", std::move(axes), "reduce"));
  return ctx.reshape(y, dims);
}

/// DotProduct: X and Y of one shape seen as [N, D] (N the first dim, 1 for a scalar); [N] of
/// the row dot products.
Error loadDotProduct(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, sameShapeFloats(ctx));
  ArrayRef<dim_t> dims = in[0].getType().dims;
  dim_t n = dims.empty() ? 1 : dims[0], d = in[0].getType().numElements() / std::max<dim_t>(n, 1);
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.reshape(in[0], {n, d}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.reshape(in[1], {n, d}));
  EMBER_ASSIGN_OR_RETURN(NodeValue prod, ctx.create(NodeKind::Mul, {x, y}, {}, "products"));
  EMBER_ASSIGN_OR_RETURN(NodeValue dot, reduceTo(ctx, prod, {1}, false, {n}));
  return ctx.setOutput(0, dot);
}

/// SigmoidCrossEntropyWithLogits: for logits l and targets t of one shape, minus the mean over
/// the last dim of f(l, t), the output dropping that dim. With s = log(1 + exp(l)) (the
/// source's overflow-free sigmoid_partition), f is l t - s, or (2t - 1)(l - s) with
/// `log_D_trick`, or l t + (t - 1) s with `unjoined_lr_loss` (not both).
Error loadSigmoidCrossEntropyWithLogits(OpContext &ctx) {
  bool logD = ctx.getInt("log_D_trick", 0), unjoined = ctx.getInt("unjoined_lr_loss", 0);
  if (logD && unjoined)
    return ctx.fail("log_D_trick_ and unjoined_lr_loss_ cannot be set as True simultaneously");
  EMBER_ASSIGN_OR_RETURN(auto in, sameShapeFloats(ctx));
  NodeValue l = in[0], t = in[1];
  ArrayRef<dim_t> dims = l.getType().dims;
  if (dims.empty()) {
    EMBER_ASSIGN_OR_RETURN(l, ctx.reshape(l, {1}));
    EMBER_ASSIGN_OR_RETURN(t, ctx.reshape(t, {1}));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue s, unaryFunction(ctx, l, "softplus", "partition"));
  EMBER_ASSIGN_OR_RETURN(NodeValue one, ctx.splat(t, 1.0, "one"));
  NodeValue f;
  if (logD) {
    EMBER_ASSIGN_OR_RETURN(NodeValue two, ctx.splat(t, 2.0, "two"));
    EMBER_ASSIGN_OR_RETURN(NodeValue t2, ctx.create(NodeKind::Mul, {two, t}, {}, "t2"));
    EMBER_ASSIGN_OR_RETURN(NodeValue sign, ctx.create(NodeKind::Sub, {t2, one}, {}, "sign"));
    EMBER_ASSIGN_OR_RETURN(NodeValue lMinusS, ctx.create(NodeKind::Sub, {l, s}, {}, "l_s"));
    EMBER_ASSIGN_OR_RETURN(f, ctx.create(NodeKind::Mul, {sign, lMinusS}, {}, "f"));
  } else {
    EMBER_ASSIGN_OR_RETURN(NodeValue lt, ctx.create(NodeKind::Mul, {l, t}, {}, "lt"));
    if (unjoined) {
      EMBER_ASSIGN_OR_RETURN(NodeValue tm1, ctx.create(NodeKind::Sub, {t, one}, {}, "t_1"));
      EMBER_ASSIGN_OR_RETURN(NodeValue ts, ctx.create(NodeKind::Mul, {tm1, s}, {}, "t_1_s"));
      EMBER_ASSIGN_OR_RETURN(f, ctx.create(NodeKind::Add, {lt, ts}, {}, "f"));
    } else {
      EMBER_ASSIGN_OR_RETURN(f, ctx.create(NodeKind::Sub, {lt, s}, {}, "f"));
    }
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue minusF, unaryFunction(ctx, f, "neg", "minus_f"));
  size_t last = f.getType().rank() - 1;
  ArrayRef<dim_t> outDims = dims.empty() ? dims : dims.drop_back();
  EMBER_ASSIGN_OR_RETURN(NodeValue y, reduceTo(ctx, minusF, {int64_t(last)}, true, outDims));
  return ctx.setOutput(0, y);
}

} // namespace

void registerPairwiseOps(OpRegistry &r) {
  r.add("DotProduct", loadDotProduct);
  r.add("SigmoidCrossEntropyWithLogits", loadSigmoidCrossEntropyWithLogits);
}

} // namespace c2
} // namespace ember
