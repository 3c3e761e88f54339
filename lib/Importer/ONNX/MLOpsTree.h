// The tree ensembles of ONNX-ML (MLOpsTree.cpp reads their attributes, MLOpsTreeGemm.cpp
// compiles them): an ensemble is read into trees of internal nodes and leaves, whatever the
// operator's encoding (TreeEnsembleRegressor/Classifier's node lists or TreeEnsemble's roots).
#ifndef EMBER_LIB_IMPORTER_ONNX_MLOPSTREE_H
#define EMBER_LIB_IMPORTER_ONNX_MLOPSTREE_H

#include "MLOps.h"

namespace ember {

/// How an internal node compares its feature x with its threshold.
enum class TreeMode { LEQ, LT, GTE, GT, EQ, NEQ, Member };

struct TreeInternal {
  int64_t feature = 0;
  TreeMode mode = TreeMode::LEQ;
  double threshold = 0;
  std::vector<double> members; ///< TreeMode::Member: the set x must be in
  bool missingTracksTrue = false;
};

struct TreeLeaf {
  std::vector<std::pair<int64_t, double>> weights; ///< (target or class, weight)
  /// The internal nodes on the way to it, each with the branch taken (true: its true branch).
  std::vector<std::pair<size_t, bool>> path;
};

struct Tree {
  std::vector<TreeInternal> internals;
  std::vector<TreeLeaf> leaves;
};

enum class TreeAggregate { Sum, Average, Min, Max };

/// What the ensemble computes from X [N, F]: per row, the targets (or classes) aggregated over
/// the leaves reached, one per tree.
struct TreeEnsembleSpec {
  std::vector<Tree> trees;
  int64_t targets = 0;
  TreeAggregate aggregate = TreeAggregate::Sum;
  std::vector<double> base; ///< empty, or one per target
};

struct TreeEnsembleResult {
  NodeValue scores;   ///< [N, targets], aggregated, base values added
  NodeValue hasScore; ///< [N, targets] bool: some leaf reached gives the target a weight
};

/// Compiles \p spec over \p x ([N, F], float32 or float64) into nodes, computing in x's kind.
llvm::Expected<TreeEnsembleResult> buildTreeEnsemble(OpContext &ctx, const TreeEnsembleSpec &spec,
                                                     NodeValue x);

} // namespace ember

#endif
