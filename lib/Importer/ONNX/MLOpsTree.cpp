// ONNX-ML tree ensembles: TreeEnsembleRegressor and TreeEnsembleClassifier (ai.onnx.ml 1 and 3,
// deprecated at 5) and TreeEnsemble (5). This file reads their attributes into trees
// (MLOpsTree.h) and finishes the scores as onnxruntime does; MLOpsTreeGemm.cpp compiles the
// trees into matrix products.
#include "MLOpsTree.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>

using namespace llvm;

namespace ember {

namespace {

/// Bounds on what the trees unfold to before anything is allocated for them: each leaf keeps
/// its path, and a node reached twice (the lists form a DAG) is unfolded twice, so a deep or
/// shared structure could otherwise take all memory. A cycle exceeds the depth. The constants
/// built from the trees are checked against the memory budget besides (MLOpsTreeGemm.cpp).
constexpr size_t kMaxTreeDepth = 1000;
constexpr size_t kMaxLeaves = size_t(1) << 20;

/// Refuses a path deeper than kMaxTreeDepth, or more than kMaxLeaves leaves in \p tree and the
/// \p before leaves of the trees before it.
Error checkUnfolding(OpContext &ctx, size_t depth, const Tree &tree, size_t before) {
  if (depth > kMaxTreeDepth)
    return ctx.fail("a tree is deeper than " + Twine(kMaxTreeDepth) + " levels, or has a cycle");
  if (before + tree.leaves.size() > kMaxLeaves)
    return ctx.fail("the trees unfold to more than " + Twine(kMaxLeaves) + " leaves");
  return Error::success();
}

/// The node lists of TreeEnsembleRegressor/Classifier: node i is (tree, id), a LEAF or a
/// branch to the nodes (tree, true id) and (tree, false id); the leaves' weights are separate
/// lists keyed by (tree, id).
struct NodeLists {
  std::vector<int64_t> treeIds, nodeIds, featureIds, trueIds, falseIds, missingTrue;
  std::vector<std::string> modes;
  std::vector<double> values;
  std::map<std::pair<int64_t, int64_t>, size_t> index;
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, double>>> weights;
};

Expected<TreeMode> modeFromName(OpContext &ctx, StringRef name) {
  if (name == "BRANCH_LEQ")
    return TreeMode::LEQ;
  if (name == "BRANCH_LT")
    return TreeMode::LT;
  if (name == "BRANCH_GTE")
    return TreeMode::GTE;
  if (name == "BRANCH_GT")
    return TreeMode::GT;
  if (name == "BRANCH_EQ")
    return TreeMode::EQ;
  if (name == "BRANCH_NEQ")
    return TreeMode::NEQ;
  return ctx.fail("node mode '" + name + "' is not one of BRANCH_LEQ, BRANCH_LT, BRANCH_GTE, "
                  "BRANCH_GT, BRANCH_EQ, BRANCH_NEQ, LEAF");
}

std::vector<std::string> getStrings(OpContext &ctx, StringRef name) {
  std::vector<std::string> out;
  for (const auto &a : ctx.proto().attribute())
    if (a.name() == name)
      out.assign(a.strings().begin(), a.strings().end());
  return out;
}

/// Reads the node lists and the weights (\p prefix "target" or "class").
Expected<NodeLists> readNodeLists(OpContext &ctx, StringRef prefix) {
  NodeLists l;
  l.treeIds = ctx.getInts("nodes_treeids");
  l.nodeIds = ctx.getInts("nodes_nodeids");
  l.featureIds = ctx.getInts("nodes_featureids");
  l.trueIds = ctx.getInts("nodes_truenodeids");
  l.falseIds = ctx.getInts("nodes_falsenodeids");
  l.missingTrue = ctx.getInts("nodes_missing_value_tracks_true");
  l.modes = getStrings(ctx, "nodes_modes");
  std::vector<int64_t> wTrees = ctx.getInts((prefix + "_treeids").str());
  std::vector<int64_t> wNodes = ctx.getInts((prefix + "_nodeids").str());
  std::vector<int64_t> wIds = ctx.getInts((prefix + "_ids").str());
  EMBER_TRY(ctx.takeAttrError());
  EMBER_ASSIGN_OR_RETURN(l.values, mlNumbers(ctx, "nodes_values"));
  EMBER_ASSIGN_OR_RETURN(std::vector<double> w, mlNumbers(ctx, (prefix + "_weights").str()));
  size_t n = l.treeIds.size();
  if (n == 0)
    return ctx.fail("nodes_treeids is empty: the ensemble has no node");
  auto sameLength = [&](size_t size, StringRef name, bool optional) -> Error {
    if (size == n || (optional && size == 0))
      return Error::success();
    return ctx.fail("'" + name + "' has " + Twine(size) + " entries for " + Twine(n) + " nodes");
  };
  EMBER_TRY(sameLength(l.nodeIds.size(), "nodes_nodeids", false));
  EMBER_TRY(sameLength(l.featureIds.size(), "nodes_featureids", false));
  EMBER_TRY(sameLength(l.trueIds.size(), "nodes_truenodeids", false));
  EMBER_TRY(sameLength(l.falseIds.size(), "nodes_falsenodeids", false));
  EMBER_TRY(sameLength(l.modes.size(), "nodes_modes", false));
  EMBER_TRY(sameLength(l.values.size(), "nodes_values", false));
  EMBER_TRY(sameLength(l.missingTrue.size(), "nodes_missing_value_tracks_true", true));
  for (size_t i = 0; i < n; ++i)
    if (!l.index.insert({{l.treeIds[i], l.nodeIds[i]}, i}).second)
      return ctx.fail("node " + Twine(l.nodeIds[i]) + " of tree " + Twine(l.treeIds[i]) +
                      " is listed twice");
  if (wTrees.size() != wNodes.size() || wTrees.size() != wIds.size() ||
      wTrees.size() != w.size())
    return ctx.fail(prefix + "_treeids, " + prefix + "_nodeids, " + prefix + "_ids and " +
                    prefix + "_weights must have one entry per weight");
  for (size_t i = 0; i < w.size(); ++i) {
    auto it = l.index.find({wTrees[i], wNodes[i]});
    if (it == l.index.end() || l.modes[it->second] != "LEAF")
      return ctx.fail("a weight is given to node " + Twine(wNodes[i]) + " of tree " +
                      Twine(wTrees[i]) + ", which is not a leaf");
    l.weights[{wTrees[i], wNodes[i]}].push_back({wIds[i], w[i]});
  }
  return l;
}

/// Adds the subtree at node list index \p i to \p tree, its leaves with \p path.
Error addSubtree(OpContext &ctx, const NodeLists &l, size_t i, Tree &tree,
                 std::vector<std::pair<size_t, bool>> &path, size_t before) {
  EMBER_TRY(checkUnfolding(ctx, path.size(), tree, before));
  int64_t treeId = l.treeIds[i];
  if (l.modes[i] == "LEAF") {
    TreeLeaf leaf;
    auto w = l.weights.find({treeId, l.nodeIds[i]});
    if (w != l.weights.end())
      leaf.weights = w->second;
    leaf.path = path;
    tree.leaves.push_back(std::move(leaf));
    return Error::success();
  }
  TreeInternal node;
  EMBER_ASSIGN_OR_RETURN(node.mode, modeFromName(ctx, l.modes[i]));
  node.feature = l.featureIds[i];
  node.threshold = l.values[i];
  node.missingTracksTrue = !l.missingTrue.empty() && l.missingTrue[i] != 0;
  size_t at = tree.internals.size();
  tree.internals.push_back(node);
  for (bool branch : {true, false}) {
    int64_t child = branch ? l.trueIds[i] : l.falseIds[i];
    auto it = l.index.find({treeId, child});
    if (it == l.index.end())
      return ctx.fail("node " + Twine(l.nodeIds[i]) + " of tree " + Twine(treeId) +
                      " branches to node " + Twine(child) + ", which the tree does not have");
    path.push_back({at, branch});
    EMBER_TRY(addSubtree(ctx, l, it->second, tree, path, before));
    path.pop_back();
  }
  return Error::success();
}

/// The trees of the node lists, each rooted at its first node (as onnxruntime and the ONNX
/// reference root them).
Expected<std::vector<Tree>> treesFromLists(OpContext &ctx, const NodeLists &l) {
  std::map<int64_t, size_t> roots;
  for (size_t i = 0; i < l.treeIds.size(); ++i)
    roots.insert({l.treeIds[i], i});
  std::vector<Tree> trees;
  size_t leaves = 0;
  for (auto [id, root] : roots) {
    Tree t;
    std::vector<std::pair<size_t, bool>> path;
    EMBER_TRY(addSubtree(ctx, l, root, t, path, leaves));
    leaves += t.leaves.size();
    trees.push_back(std::move(t));
  }
  return trees;
}

Expected<TreeAggregate> aggregateFromName(OpContext &ctx, StringRef name) {
  if (name == "SUM")
    return TreeAggregate::Sum;
  if (name == "AVERAGE")
    return TreeAggregate::Average;
  if (name == "MIN")
    return TreeAggregate::Min;
  if (name == "MAX")
    return TreeAggregate::Max;
  return ctx.fail("aggregate_function must be SUM, AVERAGE, MIN or MAX, got '" + name + "'");
}

/// Base values: none, or one per target (onnxruntime ignores other counts in some cases and
/// not others: refused).
Error checkBase(OpContext &ctx, const TreeEnsembleSpec &spec) {
  if (spec.base.empty() || spec.base.size() == size_t(spec.targets))
    return Error::success();
  return ctx.fail("base_values has " + Twine(spec.base.size()) + " values for " +
                  Twine(spec.targets) + " targets: it needs none or one per target");
}

/// The post transform of a regression: onnxruntime applies it to two targets or more, and only
/// PROBIT to a single target (the ONNX reference applies none): others are ambiguous, refused.
Expected<NodeValue> finishRegression(OpContext &ctx, PostTransform pt, NodeValue y) {
  if (y.getType().dims[1] == 1 && pt != PostTransform::None && pt != PostTransform::Probit)
    return ctx.fail("post_transform on a single target: onnxruntime ignores it, the spec applies "
                    "it; only NONE and PROBIT are supported there");
  return applyPostTransform(ctx, pt, y);
}

/// The kind the ensemble computes in: float64 for float64 X, else float32.
Expected<NodeValue> ensembleRows(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ElemKind k = x.getType().kind == ElemKind::Float64 ? ElemKind::Float64 : ElemKind::Float32;
  return mlFeatureRows(ctx, k);
}

Error refuseDeprecated(OpContext &ctx) {
  if (ctx.opset() >= 5)
    return ctx.fail(ctx.proto().op_type() + " is deprecated from ai.onnx.ml opset 5 on (the model "
                    "imports it at " + Twine(ctx.opset()) + "): TreeEnsemble replaces it");
  return Error::success();
}

/// TreeEnsembleRegressor (ai.onnx.ml 1, 3): Y [N, n_targets] float32.
Error loadTreeEnsembleRegressor(OpContext &ctx) {
  EMBER_TRY(refuseDeprecated(ctx));
  EMBER_ASSIGN_OR_RETURN(NodeLists l, readNodeLists(ctx, "target"));
  TreeEnsembleSpec spec;
  EMBER_ASSIGN_OR_RETURN(spec.trees, treesFromLists(ctx, l));
  spec.targets = ctx.getInt("n_targets", 1);
  std::string aggregate = ctx.getString("aggregate_function", "SUM");
  EMBER_TRY(ctx.takeAttrError());
  if (spec.targets < 1)
    return ctx.fail("n_targets must be at least 1, got " + Twine(spec.targets));
  EMBER_ASSIGN_OR_RETURN(spec.aggregate, aggregateFromName(ctx, aggregate));
  EMBER_ASSIGN_OR_RETURN(spec.base, mlNumbers(ctx, "base_values"));
  EMBER_TRY(checkBase(ctx, spec));
  EMBER_ASSIGN_OR_RETURN(PostTransform pt, readPostTransform(ctx));
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ensembleRows(ctx));
  EMBER_ASSIGN_OR_RETURN(TreeEnsembleResult r, buildTreeEnsemble(ctx, spec, x));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, finishRegression(ctx, pt, r.scores));
  EMBER_ASSIGN_OR_RETURN(y, mlCast(ctx, y, ElemKind::Float32, "float"));
  return ctx.setOutput(0, y);
}

/// TreeEnsembleClassifier (ai.onnx.ml 1, 3) with int64 labels: Y [N] the label of the best
/// score, Z [N, classes] the scores after post_transform.
Error loadTreeEnsembleClassifier(OpContext &ctx) {
  EMBER_TRY(refuseDeprecated(ctx));
  if (ctx.hasAttr("classlabels_strings"))
    return ctx.fail("classlabels_strings is not supported: ember has no string tensors (int64 "
                    "labels, classlabels_int64s, are)");
  std::vector<int64_t> labels = ctx.getInts("classlabels_int64s");
  EMBER_TRY(ctx.takeAttrError());
  if (labels.empty())
    return ctx.fail("classlabels_int64s is missing or empty");
  EMBER_ASSIGN_OR_RETURN(NodeLists l, readNodeLists(ctx, "class"));
  // onnxruntime departs from the spec on two classes: its label follows the sign of the second
  // class's score (and is 0 or 1, not a label, when both classes have weights), and its scores
  // depend on the number of base_values and on which classes have weights. Refused rather than
  // disagree with either.
  if (labels.size() <= 2)
    return ctx.fail("a classifier of " + Twine(labels.size()) + " class(es) is not supported: "
                    "onnxruntime's two-class case departs from the spec (labels by the sign of a "
                    "score, scores depending on base_values), so neither can be matched");
  TreeEnsembleSpec spec;
  EMBER_ASSIGN_OR_RETURN(spec.trees, treesFromLists(ctx, l));
  spec.targets = int64_t(labels.size());
  EMBER_ASSIGN_OR_RETURN(spec.base, mlNumbers(ctx, "base_values"));
  EMBER_TRY(checkBase(ctx, spec));
  EMBER_ASSIGN_OR_RETURN(PostTransform pt, readPostTransform(ctx));
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ensembleRows(ctx));
  EMBER_ASSIGN_OR_RETURN(TreeEnsembleResult r, buildTreeEnsemble(ctx, spec, x));
  EMBER_ASSIGN_OR_RETURN(NodeValue scores, mlCast(ctx, r.scores, ElemKind::Float32, "scores"));
  dim_t n = scores.getType().dims[0];
  // The label: the best score among the classes some reached leaf weighs (onnxruntime).
  EMBER_ASSIGN_OR_RETURN(NodeValue lowest,
                         mlConstant(ctx, ElemKind::Float32, {},
                                    {-std::numeric_limits<double>::infinity()}, "unscored"));
  // With base values every class has a score (onnxruntime gives them has_score).
  NodeValue ranked = scores;
  if (spec.base.empty()) {
    EMBER_ASSIGN_OR_RETURN(ranked, mlWhere(ctx, r.hasScore, scores, lowest, "ranked"));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue best,
                         ctx.create(NodeKind::ArgMax, {ranked},
                                    AttrList().set<AttrKind::Axis>(1).set<AttrKind::SelectLastIndex>(0),
                                    "best"));
  EMBER_ASSIGN_OR_RETURN(best, ctx.reshape(best, {n}));
  std::vector<double> labelValues(labels.begin(), labels.end());
  EMBER_ASSIGN_OR_RETURN(NodeValue labelC, mlConstant(ctx, ElemKind::Int64, {dim_t(labels.size())},
                                                      labelValues, "labels"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Gather, {labelC, best},
                                                 AttrList().set<AttrKind::Axis>(0), "label"));
  EMBER_ASSIGN_OR_RETURN(NodeValue z, applyPostTransform(ctx, pt, scores));
  EMBER_TRY(ctx.setOutput(0, y));
  return ctx.setOutput(1, z);
}

/// TreeEnsemble (ai.onnx.ml 5): Y [N, n_targets] in X's kind.
Error loadTreeEnsemble(OpContext &ctx) {
  std::vector<int64_t> roots = ctx.getInts("tree_roots");
  std::vector<int64_t> features = ctx.getInts("nodes_featureids");
  std::vector<int64_t> trueIds = ctx.getInts("nodes_truenodeids");
  std::vector<int64_t> falseIds = ctx.getInts("nodes_falsenodeids");
  std::vector<int64_t> trueLeafs = ctx.getInts("nodes_trueleafs");
  std::vector<int64_t> falseLeafs = ctx.getInts("nodes_falseleafs");
  std::vector<int64_t> missing = ctx.getInts("nodes_missing_value_tracks_true");
  std::vector<int64_t> leafTargets = ctx.getInts("leaf_targetids");
  int64_t aggregate = ctx.getInt("aggregate_function", 1);
  int64_t post = ctx.getInt("post_transform", 0);
  int64_t targets = ctx.getInt("n_targets", 0);
  const onnx::TensorProto *splitsT = ctx.getTensorAttr("nodes_splits");
  const onnx::TensorProto *modesT = ctx.getTensorAttr("nodes_modes");
  const onnx::TensorProto *weightsT = ctx.getTensorAttr("leaf_weights");
  const onnx::TensorProto *membersT = ctx.getTensorAttr("membership_values");
  EMBER_TRY(ctx.takeAttrError());
  if (!splitsT || !modesT || !weightsT)
    return ctx.fail("nodes_splits, nodes_modes and leaf_weights are required");
  EMBER_ASSIGN_OR_RETURN(std::vector<double> splits,
                         mlTensorNumbers(ctx, *splitsT, "nodes_splits"));
  EMBER_ASSIGN_OR_RETURN(std::vector<double> modes, mlTensorNumbers(ctx, *modesT, "nodes_modes"));
  EMBER_ASSIGN_OR_RETURN(std::vector<double> weights,
                         mlTensorNumbers(ctx, *weightsT, "leaf_weights"));
  std::vector<double> members;
  if (membersT) {
    EMBER_ASSIGN_OR_RETURN(members, mlTensorNumbers(ctx, *membersT, "membership_values"));
  }
  size_t n = splits.size();
  for (auto [size, name] : {std::pair<size_t, const char *>{features.size(), "nodes_featureids"},
                            {trueIds.size(), "nodes_truenodeids"},
                            {falseIds.size(), "nodes_falsenodeids"},
                            {trueLeafs.size(), "nodes_trueleafs"},
                            {falseLeafs.size(), "nodes_falseleafs"},
                            {modes.size(), "nodes_modes"}})
    if (size != n)
      return ctx.fail("'" + Twine(name) + "' has " + Twine(size) + " entries for the " + Twine(n) +
                      " nodes of nodes_splits");
  if (!missing.empty() && missing.size() != n)
    return ctx.fail("nodes_missing_value_tracks_true has " + Twine(missing.size()) +
                    " entries for " + Twine(n) + " nodes");
  if (leafTargets.size() != weights.size())
    return ctx.fail("leaf_targetids has " + Twine(leafTargets.size()) + " entries, leaf_weights " +
                    Twine(weights.size()));
  if (targets < 1)
    return ctx.fail("n_targets must be at least 1, got " + Twine(targets));
  if (aggregate < 0 || aggregate > 3)
    return ctx.fail("aggregate_function must be 0 (AVERAGE), 1 (SUM), 2 (MIN) or 3 (MAX), got " +
                    Twine(aggregate));
  if (post < 0 || post > 4)
    return ctx.fail("post_transform must be 0 to 4 (NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, "
                    "PROBIT), got " + Twine(post));

  // The set of each BRANCH_MEMBER node, in node order, each ended by a NaN.
  std::vector<TreeInternal> internals(n);
  size_t nextMember = 0;
  for (size_t i = 0; i < n; ++i) {
    TreeInternal &node = internals[i];
    int64_t m = int64_t(modes[i]);
    if (m < 0 || m > 6)
      return ctx.fail("nodes_modes[" + Twine(i) + "] is " + Twine(m) + ", not a mode (0 to 6)");
    node.mode = TreeMode(m);
    node.feature = features[i];
    node.threshold = splits[i];
    node.missingTracksTrue = !missing.empty() && missing[i] != 0;
    if (node.mode != TreeMode::Member)
      continue;
    while (nextMember < members.size() && !std::isnan(members[nextMember]))
      node.members.push_back(members[nextMember++]);
    if (nextMember == members.size())
      return ctx.fail("membership_values lacks the set (ended by a NaN) of node " + Twine(i));
    ++nextMember;
  }
  if (nextMember != members.size())
    return ctx.fail("membership_values holds more sets than there are BRANCH_MEMBER nodes");

  TreeEnsembleSpec spec;
  spec.targets = targets;
  spec.aggregate = aggregate == 0   ? TreeAggregate::Average
                   : aggregate == 1 ? TreeAggregate::Sum
                   : aggregate == 2 ? TreeAggregate::Min
                                    : TreeAggregate::Max;
  size_t leavesBefore = 0;
  // Depth first from each root; a branch marked as a leaf indexes leaf_targetids/leaf_weights.
  std::function<Error(int64_t, bool, Tree &, std::vector<std::pair<size_t, bool>> &)> add =
      [&](int64_t id, bool isLeaf, Tree &tree, std::vector<std::pair<size_t, bool>> &path) -> Error {
    EMBER_TRY(checkUnfolding(ctx, path.size(), tree, leavesBefore));
    if (isLeaf) {
      if (id < 0 || size_t(id) >= weights.size())
        return ctx.fail("leaf " + Twine(id) + " is not one of the " + Twine(weights.size()) +
                        " leaves");
      TreeLeaf leaf;
      leaf.weights = {{leafTargets[size_t(id)], weights[size_t(id)]}};
      leaf.path = path;
      tree.leaves.push_back(std::move(leaf));
      return Error::success();
    }
    if (id < 0 || size_t(id) >= n)
      return ctx.fail("node " + Twine(id) + " is not one of the " + Twine(n) + " nodes");
    size_t at = tree.internals.size();
    tree.internals.push_back(internals[size_t(id)]);
    for (bool branch : {true, false}) {
      path.push_back({at, branch});
      size_t i = size_t(id);
      EMBER_TRY(add(branch ? trueIds[i] : falseIds[i], (branch ? trueLeafs[i] : falseLeafs[i]) != 0,
                    tree, path));
      path.pop_back();
    }
    return Error::success();
  };
  for (int64_t root : roots) {
    Tree t;
    std::vector<std::pair<size_t, bool>> path;
    EMBER_TRY(add(root, false, t, path));
    leavesBefore += t.leaves.size();
    spec.trees.push_back(std::move(t));
  }

  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ElemKind kind = x.getType().kind;
  if (kind != ElemKind::Float32 && kind != ElemKind::Float64 && kind != ElemKind::Float16)
    return ctx.fail("input X " + x.getType().str() + ": float32, float64 or float16 expected");
  ElemKind compute = kind == ElemKind::Float64 ? ElemKind::Float64 : ElemKind::Float32;
  if (x.getType().rank() != 2)
    return ctx.fail("input X " + x.getType().str() + " must be [N, C]");
  EMBER_ASSIGN_OR_RETURN(x, mlCast(ctx, x, compute, "compute"));
  EMBER_ASSIGN_OR_RETURN(TreeEnsembleResult r, buildTreeEnsemble(ctx, spec, x));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, finishRegression(ctx, PostTransform(post), r.scores));
  EMBER_ASSIGN_OR_RETURN(y, mlCast(ctx, y, kind, "result"));
  return ctx.setOutput(0, y);
}

} // namespace

void registerMLTreeOps(OpRegistry &r) {
  r.add("TreeEnsembleRegressor", 1, loadTreeEnsembleRegressor);
  r.add("TreeEnsembleRegressor", 3, loadTreeEnsembleRegressor);
  r.add("TreeEnsembleClassifier", 1, loadTreeEnsembleClassifier);
  r.add("TreeEnsembleClassifier", 3, loadTreeEnsembleClassifier);
  r.add("TreeEnsemble", 5, loadTreeEnsemble);
}

} // namespace ember
