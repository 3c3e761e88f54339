// Tree ensembles compiled branch-free, as matrix products (the GEMM strategy of Hummingbird,
// "Taming Model Serving Complexity...", OSDI 2020), so that they run on every backend as
// Gather, element-wise nodes and MatMuls. Per tree t, with I internal nodes and L leaves (every
// tree padded to the largest I and L):
//
//  1. V = Gather(X, feature of each internal node, axis 1): [N, T*I], the value each node tests.
//     (The one-hot product X . A of Hummingbird computes the same, but 0 * NaN and 0 * inf
//     would spread a missing value to every node.)
//  2. D = the node's comparison of V with its threshold (LEQ, LT, GTE, GT, EQ, NEQ, set
//     membership), or-ed with isnan(V) where missing values track the true branch: [N, T*I],
//     1 where the node takes its true branch, as float.
//  3. C [T, I, L]: C[t][i][l] = +1 when leaf l lies under node i's true branch, -1 under its false
//     branch, 0 when i is not on l's path; K[t][l] = the number of l's ancestors whose true
//     branch leads to it. Leaf l is reached exactly when D[t] . C[t][:, l] == K[t][l]: the sum
//     is (true-side ancestors taking their true branch) - (false-side ancestors taking their
//     true branch), which reaches the count only when every ancestor goes l's way. The values
//     are small integers, exact in float32. Padding leaves have K = -1 and are never reached.
//  4. SUM and AVERAGE: the one-hot leaves R [N, T*L] times the weights [T*L, targets]; MIN and
//     MAX: the weights of the leaves reached (others +-inf) reduced over the leaves. A target no
//     leaf reached scores 0 (onnxruntime's has_score), then the base value is added.
//
// C grows with trees x I x L, so it counts against the memory budget (-max-memory).
#include "MLOpsTree.h"

#include "ember/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

using namespace llvm;

namespace ember {

namespace {

Expected<NodeValue> reduce(OpContext &ctx, NodeValue v, const char *how, int64_t axis,
                           StringRef suffix) {
  return ctx.create(NodeKind::Reduce, {v},
                    AttrList()
                        .set<AttrKind::Reduction>(std::string(how))
                        .set<AttrKind::Axes>(std::vector<int64_t>{axis}),
                    suffix);
}

/// \p v compared with the thresholds \p th as \p mode compares (not Member).
Expected<NodeValue> compare(OpContext &ctx, TreeMode mode, NodeValue v, NodeValue th) {
  switch (mode) {
  case TreeMode::LEQ:
    return mlBinary(ctx, NodeKind::LessOrEqual, v, th, "leq");
  case TreeMode::LT:
    return mlBinary(ctx, NodeKind::Less, v, th, "lt");
  case TreeMode::GTE:
    return mlBinary(ctx, NodeKind::GreaterOrEqual, v, th, "gte");
  case TreeMode::GT:
    return mlBinary(ctx, NodeKind::Greater, v, th, "gt");
  case TreeMode::EQ:
    return mlBinary(ctx, NodeKind::Equal, v, th, "eq");
  case TreeMode::NEQ:
  case TreeMode::Member:
    break;
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue eq, mlBinary(ctx, NodeKind::Equal, v, th, "eq_for_neq"));
  return mlUnary(ctx, eq, "not", "neq");
}

/// Step 2: [N, T*I] bool, each internal node's decision (true branch) on \p v.
Expected<NodeValue> decisions(OpContext &ctx, const TreeEnsembleSpec &spec, NodeValue v,
                              dim_t maxI) {
  ElemKind k = v.getType().kind;
  dim_t n = v.getType().dims[0], slots = dim_t(spec.trees.size()) * maxI;
  std::vector<double> thresholds(slots, 0);
  std::map<TreeMode, std::vector<double>> masks;
  std::vector<double> missing(slots, 0);
  bool anyMissing = false;
  size_t maxMembers = 0;
  for (size_t t = 0; t < spec.trees.size(); ++t)
    for (size_t i = 0; i < spec.trees[t].internals.size(); ++i) {
      const TreeInternal &node = spec.trees[t].internals[i];
      size_t slot = t * maxI + i;
      thresholds[slot] = node.threshold;
      auto &mask = masks[node.mode];
      mask.resize(slots, 0);
      mask[slot] = 1;
      missing[slot] = node.missingTracksTrue;
      anyMissing |= node.missingTracksTrue;
      maxMembers = std::max(maxMembers, node.members.size());
    }
  if (masks.empty()) // every tree is one leaf: the padding node decides nothing
    masks[TreeMode::LEQ].resize(slots, 1);
  EMBER_ASSIGN_OR_RETURN(NodeValue th, mlConstant(ctx, k, {slots}, thresholds, "thresholds"));
  std::optional<NodeValue> d;
  for (const auto &[mode, mask] : masks) {
    NodeValue cmp;
    if (mode != TreeMode::Member) {
      EMBER_ASSIGN_OR_RETURN(cmp, compare(ctx, mode, v, th));
    } else {
      // x == any member: the sets padded with NaN (equal to nothing) to [1, T*I, S].
      dim_t s = dim_t(std::max<size_t>(maxMembers, 1));
      std::vector<double> sets(slots * s, std::numeric_limits<double>::quiet_NaN());
      for (size_t t = 0; t < spec.trees.size(); ++t)
        for (size_t i = 0; i < spec.trees[t].internals.size(); ++i) {
          const auto &members = spec.trees[t].internals[i].members;
          std::copy(members.begin(), members.end(), sets.begin() + (t * maxI + i) * s);
        }
      EMBER_ASSIGN_OR_RETURN(NodeValue setC, mlConstant(ctx, k, {1, slots, s}, sets, "sets"));
      EMBER_ASSIGN_OR_RETURN(NodeValue v3, ctx.reshape(v, {n, slots, 1}));
      EMBER_ASSIGN_OR_RETURN(cmp, mlBinary(ctx, NodeKind::Equal, v3, setC, "member_eq"));
      EMBER_ASSIGN_OR_RETURN(cmp, mlCast(ctx, cmp, ElemKind::Float32, "member_count"));
      EMBER_ASSIGN_OR_RETURN(cmp, reduce(ctx, cmp, "max", 2, "member_any"));
      EMBER_ASSIGN_OR_RETURN(cmp, ctx.reshape(cmp, {n, slots}));
      EMBER_ASSIGN_OR_RETURN(NodeValue zero,
                             mlConstant(ctx, ElemKind::Float32, {}, {0}, "member_zero"));
      EMBER_ASSIGN_OR_RETURN(cmp, mlBinary(ctx, NodeKind::Greater, cmp, zero, "member"));
    }
    if (!d) {
      d = cmp;
      continue;
    }
    EMBER_ASSIGN_OR_RETURN(NodeValue m, mlConstant(ctx, ElemKind::Bool, {slots}, mask, "mode"));
    EMBER_ASSIGN_OR_RETURN(d, mlWhere(ctx, m, cmp, *d, "decide"));
  }
  if (anyMissing) {
    EMBER_ASSIGN_OR_RETURN(NodeValue nan, ctx.create(NodeKind::IsNaN, {v}, {}, "missing"));
    EMBER_ASSIGN_OR_RETURN(NodeValue m, mlConstant(ctx, ElemKind::Bool, {slots}, missing,
                                                   "missing_tracks_true"));
    EMBER_ASSIGN_OR_RETURN(nan, mlBinary(ctx, NodeKind::And, nan, m, "missing_true"));
    EMBER_ASSIGN_OR_RETURN(d, mlBinary(ctx, NodeKind::Or, *d, nan, "decisions"));
  }
  return *d;
}

} // namespace

Expected<TreeEnsembleResult> buildTreeEnsemble(OpContext &ctx, const TreeEnsembleSpec &spec,
                                               NodeValue x) {
  ElemKind k = x.getType().kind;
  dim_t n = x.getType().dims[0], features = x.getType().dims[1];
  dim_t trees = dim_t(spec.trees.size());
  if (trees == 0)
    return ctx.fail("the ensemble has no tree");
  dim_t maxI = 1, maxL = 1; // a padding node where every tree is a leaf
  for (const Tree &t : spec.trees) {
    maxI = std::max(maxI, dim_t(t.internals.size()));
    maxL = std::max(maxL, dim_t(t.leaves.size()));
  }
  if (features == 0)
    return ctx.fail("input X " + x.getType().str() + " has no features");

  // Step 1.
  std::vector<double> featureIds(trees * maxI, 0);
  for (size_t t = 0; t < spec.trees.size(); ++t)
    for (size_t i = 0; i < spec.trees[t].internals.size(); ++i) {
      int64_t f = spec.trees[t].internals[i].feature;
      if (f < 0 || f >= int64_t(features))
        return ctx.fail("a node tests feature " + Twine(f) + " but X " + x.getType().str() +
                        " has " + Twine(features));
      featureIds[t * maxI + i] = double(f);
    }
  EMBER_ASSIGN_OR_RETURN(NodeValue ids, mlConstant(ctx, ElemKind::Int64, {trees * maxI},
                                                   featureIds, "node_features"));
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.create(NodeKind::Gather, {x, ids},
                                                 AttrList().set<AttrKind::Axis>(1), "node_values"));
  // Step 2.
  EMBER_ASSIGN_OR_RETURN(NodeValue d, decisions(ctx, spec, v, maxI));
  EMBER_ASSIGN_OR_RETURN(d, mlCast(ctx, d, ElemKind::Float32, "decisions_float"));
  EMBER_ASSIGN_OR_RETURN(d, ctx.reshape(d, {n, trees, maxI}));
  EMBER_ASSIGN_OR_RETURN(d, ctx.transpose(d, {1, 0, 2}, "decisions_by_tree"));

  // Step 3.
  // Filled in place: the budget check comes before the (largest) allocation.
  EMBER_ASSIGN_OR_RETURN(Tensor paths, ctx.newTensor(Type(ElemKind::Float32, {trees, maxI, maxL}),
                                                     "the path matrix of the trees"));
  float *p = paths.dataAs<float>();
  std::vector<double> counts(size_t(trees * maxL), -1);
  for (size_t t = 0; t < spec.trees.size(); ++t)
    for (size_t l = 0; l < spec.trees[t].leaves.size(); ++l) {
      double trueSide = 0;
      for (auto [i, branch] : spec.trees[t].leaves[l].path) {
        p[(t * maxI + i) * maxL + l] = branch ? 1 : -1;
        trueSide += branch;
      }
      counts[t * maxL + l] = trueSide;
    }
  NodeValue c = ctx.createConstant(std::move(paths), "paths")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue kc, mlConstant(ctx, ElemKind::Float32, {trees, 1, maxL},
                                                  counts, "path_counts"));
  EMBER_ASSIGN_OR_RETURN(NodeValue s, ctx.create(NodeKind::MatMul, {d, c}, {}, "path_sums"));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, mlBinary(ctx, NodeKind::Equal, s, kc, "reached"));
  EMBER_ASSIGN_OR_RETURN(r, ctx.transpose(r, {1, 0, 2}, "reached_by_row"));
  dim_t slots = trees * maxL;
  EMBER_ASSIGN_OR_RETURN(r, ctx.reshape(r, {n, slots}));
  EMBER_ASSIGN_OR_RETURN(NodeValue rf, mlCast(ctx, r, k, "reached_float"));

  // Step 4. Which leaf slot gives which target a weight (has_score), and the weights combined
  // per slot and target as the aggregate combines them.
  dim_t targets = dim_t(spec.targets);
  bool minMax = spec.aggregate == TreeAggregate::Min || spec.aggregate == TreeAggregate::Max;
  double none = spec.aggregate == TreeAggregate::Min   ? std::numeric_limits<double>::infinity()
                : spec.aggregate == TreeAggregate::Max ? -std::numeric_limits<double>::infinity()
                                                       : 0;
  std::vector<double> weights(size_t(slots * targets), none), gives(size_t(slots * targets), 0);
  for (size_t t = 0; t < spec.trees.size(); ++t)
    for (size_t l = 0; l < spec.trees[t].leaves.size(); ++l)
      for (auto [target, w] : spec.trees[t].leaves[l].weights) {
        if (target < 0 || target >= spec.targets)
          return ctx.fail("a leaf weighs target " + Twine(target) + " of " + Twine(spec.targets));
        size_t at = (t * maxL + l) * targets + size_t(target);
        double &slot = weights[at];
        slot = spec.aggregate == TreeAggregate::Min   ? std::min(slot, w)
               : spec.aggregate == TreeAggregate::Max ? std::max(slot, w)
                                                      : slot + w;
        gives[at] = 1;
      }
  EMBER_ASSIGN_OR_RETURN(NodeValue g, mlConstant(ctx, k, {slots, targets}, gives, "gives"));
  EMBER_ASSIGN_OR_RETURN(NodeValue has, ctx.create(NodeKind::MatMul, {rf, g}, {}, "score_count"));
  EMBER_ASSIGN_OR_RETURN(NodeValue zero, mlConstant(ctx, k, {}, {0}, "zero"));
  EMBER_ASSIGN_OR_RETURN(has, mlBinary(ctx, NodeKind::Greater, has, zero, "has_score"));

  NodeValue y;
  if (!minMax) {
    EMBER_ASSIGN_OR_RETURN(NodeValue w, mlConstant(ctx, k, {slots, targets}, weights, "weights"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::MatMul, {rf, w}, {}, "sum"));
    if (spec.aggregate == TreeAggregate::Average) {
      EMBER_ASSIGN_OR_RETURN(NodeValue nt, mlConstant(ctx, k, {}, {double(trees)}, "trees"));
      EMBER_ASSIGN_OR_RETURN(y, mlBinary(ctx, NodeKind::Div, y, nt, "average"));
    }
  } else {
    // [slots, targets] transposed to [1, targets, slots], against the reached [N, 1, slots].
    std::vector<double> byTarget(weights.size());
    for (dim_t i = 0; i < slots; ++i)
      for (dim_t j = 0; j < targets; ++j)
        byTarget[j * slots + i] = weights[i * targets + j];
    EMBER_ASSIGN_OR_RETURN(NodeValue w,
                           mlConstant(ctx, k, {1, targets, slots}, byTarget, "weights"));
    EMBER_ASSIGN_OR_RETURN(NodeValue noneC, mlConstant(ctx, k, {}, {none}, "none"));
    EMBER_ASSIGN_OR_RETURN(NodeValue r3, ctx.reshape(r, {n, 1, slots}));
    EMBER_ASSIGN_OR_RETURN(NodeValue picked, mlWhere(ctx, r3, w, noneC, "reached_weights"));
    const char *how = spec.aggregate == TreeAggregate::Min ? "min" : "max";
    EMBER_ASSIGN_OR_RETURN(y, reduce(ctx, picked, how, 2, how));
    EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, {n, targets}));
    EMBER_ASSIGN_OR_RETURN(y, mlWhere(ctx, has, y, zero, "scored"));
  }
  if (!spec.base.empty()) {
    EMBER_ASSIGN_OR_RETURN(NodeValue b, mlConstant(ctx, k, {targets}, spec.base, "base_values"));
    EMBER_ASSIGN_OR_RETURN(y, mlBinary(ctx, NodeKind::Add, y, b, "with_base"));
  }
  return TreeEnsembleResult{y, has};
}

} // namespace ember
