// Caffe2's reductions onto ember's Reduce, ArgMax and ArgMin nodes: ReduceMin, ReduceMax,
// ReduceSum, ReduceMean, ReduceL1, ReduceL2 (reduce_ops.h), ReduceFrontSum/Mean/Max and
// ReduceBackSum/Mean/Max (reduce_front_back_sum_mean_ops.h, reduce_front_back_max_ops.h), and
// ArgMax, ArgMin (arg_ops.cc, arg_ops.h), SumElements, SumSqrElements and AveragedLoss
// (reduction_ops.h, loss_op.h) and LpNorm (lpnorm_op.cc). ReduceProd and ReduceSumSquare are
// not Caffe2 operators: Glow's common loader reads them with ONNX's meaning (axes, keepdims),
// which is loadReduce's.
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// Reduce with \p reduction along \p axes (sorted, in range), then without those dims unless
/// \p keepDims.
Expected<NodeValue> reduce(OpContext &ctx, NodeValue x, StringRef reduction,
                           const std::vector<int64_t> &axes, bool keepDims) {
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         reduceAlong(ctx, x, reduction, axes, keepDims ? "" : "keepdims"));
  if (keepDims)
    return y;
  DimsVec dims;
  for (size_t i = 0; i < x.getType().rank(); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), int64_t(i)))
      dims.push_back(x.getType().dims[i]);
  return ctx.reshape(y, dims);
}

/// The reduction each operator type names.
StringRef reductionOf(StringRef type) {
  if (type == "ReduceProd")
    return "prod";
  if (type == "ReduceSumSquare")
    return "sum_square";
  if (type.ends_with("Min"))
    return "min";
  if (type.ends_with("Max"))
    return "max";
  if (type.ends_with("Sum"))
    return "sum";
  if (type.ends_with("Mean"))
    return "mean";
  return type.ends_with("L1") ? "l1" : "l2";
}

/// ReduceMin/Max/Sum/Mean/L1/L2 (and Glow's ReduceProd, ReduceSumSquare): `axes` (default
/// all; negative ones count from the back) and `keepdims` (default 1).
Error loadReduce(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  int64_t rank = int64_t(x.getType().rank());
  std::vector<int64_t> axes = ctx.getInts("axes");
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  for (int64_t &a : axes) {
    if (a < -rank || a >= rank)
      return ctx.fail("axis " + Twine(a) + " is out of range for " + x.getType().str() +
                      " (canonical_axis_index)");
    a = a < 0 ? a + rank : a;
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  EMBER_ASSIGN_OR_RETURN(NodeValue y, reduce(ctx, x, reductionOf(ctx.proto().type()), axes,
                                             ctx.getInt("keepdims", 1) != 0));
  return ctx.setOutput(0, y);
}

/// ReduceFront* / ReduceBack*: the first (last) `num_reduce_dim` dims (default 1) reduced and
/// dropped. The optional lengths input (a per-row prefix) is not supported.
template <bool Front> Error loadReduceFrontBack(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  int64_t rank = int64_t(x.getType().rank()), n = ctx.getInt("num_reduce_dim", 1);
  if (n < 0 || n > rank)
    return ctx.fail("For N-dim input tensor, support num_reduce_dims in range [0, N]: "
                    "num_reduce_dim " + Twine(n) + ", " + x.getType().str());
  if (ctx.numInputs() > 1)
    return ctx.fail("the lengths input is not supported");
  std::vector<int64_t> axes;
  for (int64_t i = 0; i < n; ++i)
    axes.push_back(Front ? i : rank - n + i);
  NodeValue y = x;
  if (!axes.empty()) {
    EMBER_ASSIGN_OR_RETURN(y, reduce(ctx, x, reductionOf(ctx.proto().type()), axes, false));
  }
  return ctx.setOutput(0, y);
}

/// ArgMax / ArgMin: int64 index of the first largest (smallest) element along `axis`
/// (default -1), that axis kept as 1 unless `keepdims` is 0.
template <NodeKind K> Error loadArg(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  int64_t rank = int64_t(x.getType().rank()), axis = ctx.getInt("axis", -1);
  if (axis < -rank || axis >= rank)
    return ctx.fail("axis " + Twine(axis) + " is out of range for " + x.getType().str());
  axis = axis < 0 ? axis + rank : axis;
  bool keepDims = ctx.getInt("keepdims", 1) != 0;
  AttrList attrs = AttrList().set<AttrKind::Axis>(axis).set<AttrKind::SelectLastIndex>(0);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {x}, attrs, keepDims ? "" : "keepdims"));
  if (!keepDims) {
    DimsVec dims(y.getType().dims.begin(), y.getType().dims.end());
    dims.erase(dims.begin() + axis);
    EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, dims));
  }
  return ctx.setOutput(0, y);
}

std::vector<int64_t> allAxes(NodeValue x) {
  std::vector<int64_t> axes;
  for (size_t i = 0; i < x.getType().rank(); ++i)
    axes.push_back(int64_t(i));
  return axes;
}

/// SumElements and SumSqrElements: the sum (of squares) of all elements as a scalar [],
/// multiplied by the float 1 / size with `average`; AveragedLoss is SumElements averaging.
template <bool Squares, bool AlwaysAverage> Error loadSumElements(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (x.getType().kind != ElemKind::Float32)
    return ctx.fail("takes a float tensor, got " + x.getType().str());
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         reduce(ctx, x, Squares ? "sum_square" : "sum", allAxes(x), false));
  size_t n = x.getType().numElements();
  if ((AlwaysAverage || ctx.getInt("average", 0)) && n > 0) {
    EMBER_ASSIGN_OR_RETURN(NodeValue scale, ctx.splat(y, double(1.0f / float(n)), "average"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Mul, {y, scale}, {}, "averaged"));
  }
  return ctx.setOutput(0, y);
}

/// LpNorm: [1] holding sum(|x|) (`p` 1) or sum(x^2) (`p` 2, the default; no root), divided
/// by the float size with `average`.
Error loadLpNorm(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (x.getType().kind != ElemKind::Float32)
    return ctx.fail("takes a float tensor, got " + x.getType().str());
  int64_t p = ctx.getInt("p", 2);
  if (p != 1 && p != 2)
    return ctx.fail("p " + Twine(p) + " must be 1 or 2");
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         reduce(ctx, x, p == 1 ? "l1" : "sum_square", allAxes(x), false));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, {1}));
  if (ctx.getInt("average", 0)) {
    size_t n = x.getType().numElements();
    if (n == 0)
      return ctx.fail("size > 0 fails: the input is empty");
    EMBER_ASSIGN_OR_RETURN(NodeValue size, ctx.splat(y, double(float(n)), "size"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Div, {y, size}, {}, "averaged"));
  }
  return ctx.setOutput(0, y);
}

} // namespace

void registerReductionOps(OpRegistry &r) {
  for (const char *name :
       {"ReduceMin", "ReduceMax", "ReduceSum", "ReduceMean", "ReduceL1", "ReduceL2", "ReduceProd",
        "ReduceSumSquare"})
    r.add(name, loadReduce);
  for (const char *name : {"ReduceFrontSum", "ReduceFrontMean", "ReduceFrontMax"})
    r.add(name, loadReduceFrontBack<true>);
  for (const char *name : {"ReduceBackSum", "ReduceBackMean", "ReduceBackMax"})
    r.add(name, loadReduceFrontBack<false>);
  r.add("ArgMax", loadArg<NodeKind::ArgMax>);
  r.add("ArgMin", loadArg<NodeKind::ArgMin>);
  r.add("SumElements", loadSumElements<false, false>);
  r.add("SumSqrElements", loadSumElements<true, false>);
  r.add("AveragedLoss", loadSumElements<false, true>);
  r.add("LpNorm", loadLpNorm);
}

} // namespace c2
} // namespace ember
