// Lowerings of the normalizations (Nodes/Normalization.def) into Reduce and element-wise nodes,
// each statistic broadcast back over the axes it was taken along. The nodes' kernels compute in
// double (or, on the CPU, in float vectors); the subgraphs compute in the element kind, so they
// are offered for float32 and float64 only, where the difference stays far inside the
// conformance tolerance.
#include "Lowerings.h"

#include <numeric>

using namespace llvm;

namespace ember {

using namespace lowering;

namespace {

/// Axes \p first .. rank - 1.
std::vector<int64_t> axesFrom(size_t first, size_t rank) {
  std::vector<int64_t> axes(rank - first);
  std::iota(axes.begin(), axes.end(), int64_t(first));
  return axes;
}

/// x - max(x) along \p axis: the shift that keeps exp from overflowing, as the kernels do.
NodeValue shiftedByMax(Builder &b, NodeValue x, int64_t axis) {
  return b.binary(NodeKind::Sub, x, b.broadcast(b.reduce("max", x, {axis}), x.getType().dims));
}

/// Softmax (\p log false) or LogSoftmax of \p n.
bool lowerAlongAxis(Function &F, Node &n, bool log) {
  NodeValue x = n.getOperand(0);
  if (!isWideFloat(x.getType().kind))
    return false;
  Builder b(F, n);
  int64_t axis = n.attr<AttrKind::Axis>();
  const DimsVec &dims = x.getType().dims;
  NodeValue shifted = shiftedByMax(b, x, axis);
  NodeValue e = b.unary("exp", shifted);
  NodeValue sum = b.reduce("sum", e, {axis});
  if (log)
    return b.replace(
        {b.binary(NodeKind::Sub, shifted, b.broadcast(b.unary("log", sum), dims))});
  return b.replace({b.binary(NodeKind::Div, e, b.broadcast(sum, dims))});
}

struct Normalized {
  NodeValue result, mean, invStdDev;
};

/// (x - mean) * invStdDev over \p axes, invStdDev = 1 / sqrt(var + eps) with the population
/// variance, and the two statistics (axes kept with size 1).
Normalized normalize(Builder &b, NodeValue x, ArrayRef<int64_t> axes, float eps) {
  const DimsVec &dims = x.getType().dims;
  Normalized r;
  r.mean = b.reduce("mean", x, axes);
  NodeValue centered = b.binary(NodeKind::Sub, x, b.broadcast(r.mean, dims));
  NodeValue var = b.reduce("mean", b.binary(NodeKind::Mul, centered, centered), axes);
  NodeValue stddev = b.unary("sqrt", b.binary(NodeKind::Add, var, b.splat(var, eps)));
  r.invStdDev = b.unary("reciprocal", stddev);
  r.result = b.binary(NodeKind::Mul, centered, b.broadcast(r.invStdDev, dims));
  return r;
}

} // namespace

bool lowerSoftmax(Function &F, Node &n) { return lowerAlongAxis(F, n, /*log=*/false); }

bool lowerLogSoftmax(Function &F, Node &n) { return lowerAlongAxis(F, n, /*log=*/true); }

bool lowerLayerNorm(Function &F, Node &n) {
  namespace LN = ops::LayerNorm;
  NodeValue x = n.getOperand(LN::Input);
  ElemKind k = x.getType().kind;
  // The statistics are results too: computed in the input's kind, they can stand for them only
  // when that is their kind.
  if (!isWideFloat(k) || n.getType(LN::Mean).kind != k)
    return false;
  Builder b(F, n);
  const DimsVec &dims = x.getType().dims;
  Normalized r =
      normalize(b, x, axesFrom(size_t(n.attr<AttrKind::Axis>()), dims.size()),
                n.attr<AttrKind::Epsilon>());
  // Scale and Bias have dims Input[Axis..]: numpy broadcasting aligns them right.
  NodeValue scaled =
      b.binary(NodeKind::Mul, r.result, b.broadcast(n.getOperand(LN::Scale), dims));
  NodeValue y = b.binary(NodeKind::Add, scaled, b.broadcast(n.getOperand(LN::Bias), dims));
  return b.replace({y, r.mean, r.invStdDev});
}

bool lowerInstanceNorm(Function &F, Node &n) {
  namespace In = ops::InstanceNorm;
  NodeValue x = n.getOperand(In::Input);
  const Type &t = x.getType();
  if (!isWideFloat(t.kind) || t.rank() < 3)
    return false;
  Builder b(F, n);
  // LayerNorm over axes 2.. normalizes each (sample, channel) plane; InstanceNorm's scale and
  // bias are per channel, so LayerNorm gets ones and zeros (exact) and the affine step follows.
  DimsVec plane(t.dims.begin() + 2, t.dims.end());
  AttrList attrs;
  attrs.set<AttrKind::Axis>(2)
      .set<AttrKind::Epsilon>(n.attr<AttrKind::Epsilon>())
      .set<AttrKind::StashKind>(elemKindName(t.kind).str());
  NodeValue normalized =
      b.create(NodeKind::LayerNorm, {x, b.splat(t.kind, plane, 1), b.splat(t.kind, plane, 0)},
               std::move(attrs));
  NodeValue scaled =
      b.binary(NodeKind::Mul, normalized, b.perChannel(n.getOperand(In::Scale), t.dims));
  return b.replace(
      {b.binary(NodeKind::Add, scaled, b.perChannel(n.getOperand(In::Bias), t.dims))});
}

bool lowerBatchNorm(Function &F, Node &n) {
  namespace BN = ops::BatchNorm;
  NodeValue x = n.getOperand(BN::Input);
  const Type &t = x.getType();
  if (!isWideFloat(t.kind) || t.rank() < 2)
    return false;
  Builder b(F, n);
  // Scale / sqrt(Var + eps) on the [C] vectors (constant folding computes it once when they are
  // constants), then one Sub, Mul and Add per element.
  NodeValue var = n.getOperand(BN::Var);
  NodeValue factor = b.binary(
      NodeKind::Div, n.getOperand(BN::Scale),
      b.unary("sqrt", b.binary(NodeKind::Add, var, b.splat(var, n.attr<AttrKind::Epsilon>()))));
  NodeValue centered = b.binary(NodeKind::Sub, x, b.perChannel(n.getOperand(BN::Mean), t.dims));
  NodeValue scaled = b.binary(NodeKind::Mul, centered, b.perChannel(factor, t.dims));
  return b.replace(
      {b.binary(NodeKind::Add, scaled, b.perChannel(n.getOperand(BN::Bias), t.dims))});
}

} // namespace ember
