// recognize-layernorm: the layer norm exporters write out (torch's nn.LayerNorm at opset < 17),
//   mean = ReduceMean(x, [a..r-1]);  d = x - Broadcast(mean)
//   var = ReduceMean(d^2, [a..r-1])  (Pow(d, 2) or d * d)
//   y = d / Broadcast(Sqrt(var + eps))  [* gamma]  [+ beta]
// becomes LayerNorm(x, Scale gamma or ones, Bias beta or zeros, Axis a, Epsilon eps). Safe
// because that is LayerNorm's definition: both reductions cover exactly the trailing axes a..
// (the ones LayerNorm normalizes over), the exponent is exactly 2, eps is a splat constant that
// the float attribute holds to 1e-6 relative, gamma and beta are only absorbed when they vary along
// the normalized axes alone (a Broadcast of a value of those dims, or a constant repeating with
// that period), and every intermediate (except d, read by the square and the division) feeds
// nothing else. float32/float64 only; the kernel computes in double, so results agree with the
// unfused graph to float32 rounding. Matching helpers: RecognizePatterns.h.
#include "Passes.h"
#include "RecognizePatterns.h"

#include "ember/Base/Dims.h"

#include <cstring>

using namespace llvm;

namespace ember {

using namespace recognize;

namespace {

/// The LayerNorm axis a when \p v is a ReduceMean over exactly the trailing axes a..rank-1 of
/// its input; -1 otherwise.
int64_t trailingMeanAxis(NodeValue v) {
  if (!isKind(v, NodeKind::Reduce) || v.node->attr<AttrKind::Reduction>() != "mean")
    return -1;
  const std::vector<int64_t> &axes = v.node->attr<AttrKind::Axes>();
  int64_t rank = int64_t(v.getType().rank());
  if (axes.empty())
    return -1;
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - int64_t(axes.size()) + int64_t(i))
      return -1;
  return axes[0];
}

/// The operands and attributes of a matched layer norm.
struct Match {
  NodeValue x;
  int64_t axis = 0;
  float eps = 0;
  Node *normalized = nullptr; ///< d / sqrt(var + eps)
};

/// \p sq is d^2 (Pow(d, 2) or d * d); sets \p d and how many reads of d the square makes.
bool matchSquare(NodeValue sq, NodeValue &d, unsigned &reads) {
  if (isKind(sq, NodeKind::Pow) && pattern::isSplatConstant(sq.node->getOperand(1), 2.0)) {
    d = sq.node->getOperand(0);
    reads = 1;
    return true;
  }
  if (isKind(sq, NodeKind::Mul) && sq.node->getOperand(0) == sq.node->getOperand(1)) {
    d = sq.node->getOperand(0);
    reads = 2;
    return true;
  }
  return false;
}

/// Matches \p div = d / Broadcast(Sqrt(ReduceMean(d^2) + eps)), d = x - Broadcast(ReduceMean(x)).
bool matchNormalized(Node *div, Match &m) {
  if (div->getKind() != NodeKind::Div || !isMatchableFloat(div->getType()))
    return false;
  NodeValue d = div->getOperand(0);
  NodeValue root = throughOwnedBroadcasts(div->getOperand(1));
  if (!isUnary(root, "sqrt") || !hasOneUse(root))
    return false;
  NodeValue sum = root.node->getOperand(0), var, epsV;
  if (!isKind(sum, NodeKind::Add) || !hasOneUse(sum) ||
      !matchCommutative(
          sum.node, [](NodeValue v) { return splatValue(v).has_value(); }, epsV, var))
    return false;
  double eps = *splatValue(epsV);
  if (!isNear(double(float(eps)), eps)) // the attribute is a float
    return false;
  int64_t axis = trailingMeanAxis(var);
  if (axis < 0 || !hasOneUse(var))
    return false;
  NodeValue sq = var.node->getOperand(0), dFromSquare;
  unsigned reads = 0;
  if (!hasOneUse(sq) || !matchSquare(sq, dFromSquare, reads) || dFromSquare != d)
    return false;
  // d is read by the square and by the division, nothing else.
  if (!isKind(d, NodeKind::Sub) || numUses(d) != reads + 1)
    return false;
  NodeValue x = d.node->getOperand(0);
  NodeValue mean = throughOwnedBroadcasts(d.node->getOperand(1));
  if (trailingMeanAxis(mean) != axis || !hasOneUse(mean) || mean.node->getOperand(0) != x ||
      x.getType() != div->getType())
    return false;
  m.x = x;
  m.axis = axis;
  m.eps = float(eps);
  m.normalized = div;
  return true;
}

/// Builds nodes; on failure the ones built so far are erased.
struct Builder {
  Function &F;
  std::vector<Node *> created;

  NodeValue create(NodeKind kind, StringRef name, ArrayRef<NodeValue> operands, AttrList attrs) {
    Expected<Node *> n = F.createNode(kind, name, operands, std::move(attrs));
    if (!n) {
      consumeError(n.takeError());
      return NodeValue();
    }
    created.push_back(*n);
    return (*n)->getResult();
  }
  /// Erases the nodes built that nothing uses (all of them when the rewrite is abandoned).
  void eraseUnused() {
    for (auto it = created.rbegin(); it != created.rend(); ++it)
      if (!(*it)->hasUsers())
        F.eraseNode(*it);
    created.clear();
  }
};

/// A constant repeating the first \p block elements of \p c, with dims \p dims; null unless \p c
/// consists of such repetitions (bitwise).
Constant *periodicPrefix(Module &M, const Constant *c, ArrayRef<dim_t> dims, size_t block,
                         StringRef name) {
  const Tensor &t = c->getPayload();
  size_t n = t.numElements(), bytes = t.getType().elementSize();
  if (block == 0 || n % block != 0 || t.getType().isQuantized())
    return nullptr;
  for (size_t i = block; i < n; ++i)
    if (std::memcmp(t.data() + i * bytes, t.data() + (i % block) * bytes, bytes) != 0)
      return nullptr;
  Tensor prefix(t.getType().withDims(dims));
  std::memcpy(prefix.data(), t.data(), block * bytes);
  return M.createConstant(std::move(prefix), name);
}

/// \p v (of x's dims, an operand of the Mul or Add after the normalization) as an operand of
/// LayerNorm's normalized dims, when it varies along those axes alone; a null value otherwise.
NodeValue asNormalizedOperand(Builder &b, NodeValue v, const Type &xTy, int64_t axis,
                              StringRef name) {
  if (v.getType() != xTy)
    return NodeValue();
  ArrayRef<dim_t> xDims = xTy.dims;
  ArrayRef<dim_t> normalized = xDims.drop_front(axis);
  size_t nr = normalized.size();
  NodeValue src = v;
  while (isKind(src, NodeKind::Broadcast))
    src = src.node->getOperand(0);
  ArrayRef<dim_t> srcDims = src.getType().dims;
  if (srcDims == normalized)
    return src;
  // A Broadcast of something whose dims over the leading (not normalized) axes are all 1.
  if (srcDims.size() <= xDims.size() &&
      llvm::all_of(srcDims.drop_back(std::min(nr, srcDims.size())),
                   [](dim_t d) { return d == 1; })) {
    NodeValue r = src;
    if (srcDims.size() > nr) {
      std::vector<int64_t> trailing(srcDims.end() - nr, srcDims.end());
      r = b.create(NodeKind::Reshape, name.str() + ".reshape", {r},
                   AttrList().set<AttrKind::Dims>(trailing));
      if (!r)
        return NodeValue();
    }
    if (ArrayRef<dim_t>(r.getType().dims) == normalized)
      return r;
    std::vector<int64_t> target(normalized.begin(), normalized.end());
    return b.create(NodeKind::Broadcast, name.str() + ".broadcast", {r},
                    AttrList().set<AttrKind::Dims>(target));
  }
  // A constant of x's dims (e.g. a folded Broadcast) repeating one normalized block.
  if (isKind(src, NodeKind::Constant) && srcDims == xDims) {
    size_t block = dimsProduct(normalized);
    if (Constant *c = periodicPrefix(*b.F.getParent(), static_cast<Constant *>(src.node),
                                     normalized, block, name))
      return c->getResult();
  }
  return NodeValue();
}

/// A constant of \p ty filled with \p value.
NodeValue splatConstant(Module &M, const Type &ty, double value, StringRef name) {
  Tensor t(ty);
  t.fill(value);
  return M.createConstant(std::move(t), name)->getResult();
}

bool rewriteAt(Function &F, Node *div) {
  if (!div->hasUsers())
    return false;
  Match m;
  if (!matchNormalized(div, m))
    return false;
  const Type &xTy = m.x.getType();
  Type normalizedTy = xTy.withDims(ArrayRef<dim_t>(xTy.dims).drop_front(m.axis));
  if (normalizedTy.numElements() == 0)
    return false;
  Builder b{F, {}};
  std::string base = div->getName().str();
  // Optional affine tail: y * gamma, then + beta, each the only user of what it reads.
  Node *last = div;
  NodeValue scale, bias;
  if (Node *mul = pattern::getSingleUser(div->getResult());
      mul && mul->getKind() == NodeKind::Mul && mul->getOperand(0) != mul->getOperand(1)) {
    NodeValue gamma = mul->getOperand(mul->getOperand(0) == div->getResult() ? 1 : 0);
    if ((scale = asNormalizedOperand(b, gamma, xTy, m.axis, base + ".scale")))
      last = mul;
  }
  if (Node *add = pattern::getSingleUser(last->getResult());
      add && add->getKind() == NodeKind::Add && add->getOperand(0) != add->getOperand(1)) {
    NodeValue beta = add->getOperand(add->getOperand(0) == last->getResult() ? 1 : 0);
    if ((bias = asNormalizedOperand(b, beta, xTy, m.axis, base + ".bias")))
      last = add;
  }
  Module &M = *F.getParent();
  if (!scale)
    scale = splatConstant(M, normalizedTy, 1.0, base + ".ones");
  if (!bias)
    bias = splatConstant(M, normalizedTy, 0.0, base + ".zeros");
  AttrList attrs;
  attrs.set<AttrKind::Axis>(m.axis).set<AttrKind::Epsilon>(m.eps).set<AttrKind::StashKind>(
      std::string("float32"));
  NodeValue ln = b.create(NodeKind::LayerNorm, base + ".layernorm", {m.x, scale, bias}, attrs);
  if (!ln || ln.getType() != last->getType()) {
    b.eraseUnused();
    return false;
  }
  last->replaceAllUsesOfWith(0, ln);
  b.eraseUnused();
  return true;
}

} // namespace

bool runRecognizeLayerNorm(Function &F, const PassContext &) {
  return pattern::rewriteEach(F, [&](Node *n) { return rewriteAt(F, n); });
}

} // namespace ember
