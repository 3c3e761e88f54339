// Normalizations on every backend against the Interpreter: Softmax/LogSoftmax/Hardmax along
// every axis, BatchNorm (inference and training), InstanceNorm, LayerNorm, MeanVarNorm and LRN,
// on every float kind, with per-channel parameters of other float kinds than the data, odd
// sizes (vector tails) and special values.
#include "BackendTestUtils.h"

#include <cmath>
#include <limits>

using namespace ember;
using namespace ember::test;

namespace {

/// A per-channel variance: positive values of kind \p k.
Constant *positive(Module &M, dim_t n, ElemKind k) {
  Tensor t(Type(k, {n}));
  for (size_t i = 0; i < n; ++i)
    t.setElementFromDouble(i, 0.25 + 0.5 * double(i % 5));
  return M.createConstant(std::move(t), "var");
}

class NormalizationOpsKinds : public ::testing::TestWithParam<ElemKind> {};

TEST_P(NormalizationOpsKinds, SoftmaxLogSoftmaxHardmaxEveryAxis) {
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {2, 5, 7, 19}, k);
        Placeholder *row = input(M, {3, 1037}, k, "row"); // long lines with a vector tail
        std::vector<NodeValue> outs;
        for (NodeKind nk : {NodeKind::Softmax, NodeKind::LogSoftmax, NodeKind::Hardmax}) {
          for (int64_t axis : {0, 1, 2, 3}) {
            AttrList a;
            a.set<AttrKind::Axis>(axis);
            outs.push_back(node(F, nk, {x}, a));
          }
          AttrList a;
          a.set<AttrKind::Axis>(1);
          outs.push_back(node(F, nk, {row}, a));
        }
        return outs;
      },
      dceOnly());
}

TEST_P(NormalizationOpsKinds, BatchNormInferenceAndTraining) {
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {3, 5, 7, 9}, k);
        Placeholder *x2 = input(M, {4, 6}, k, "x2"); // rank 2: inner 1
        std::vector<NodeValue> outs;
        AttrList bn;
        bn.set<AttrKind::Epsilon>(1e-3f);
        // Parameters of the data's kind, then of other kinds (read as doubles).
        outs.push_back(node(F, NodeKind::BatchNorm,
                            {x, constant(M, {5}, 1, k), constant(M, {5}, 2, k),
                             constant(M, {5}, 3, k), positive(M, 5, k)},
                            bn));
        outs.push_back(node(F, NodeKind::BatchNorm,
                            {x, constant(M, {5}, 1, ElemKind::Float64),
                             constant(M, {5}, 2, ElemKind::Float16),
                             constant(M, {5}, 3, ElemKind::BFloat16),
                             positive(M, 5, ElemKind::Float32)},
                            bn));
        outs.push_back(node(F, NodeKind::BatchNorm,
                            {x2, constant(M, {6}, 1, k), constant(M, {6}, 2, k),
                             constant(M, {6}, 3, k), positive(M, 6, k)},
                            bn));
        AttrList tr;
        tr.set<AttrKind::Epsilon>(1e-5f).set<AttrKind::Momentum>(0.9f);
        for (ElemKind statKind : {k, ElemKind::Float64, ElemKind::Float16}) {
          Node *t = node(F, NodeKind::BatchNormTraining,
                         {x, constant(M, {5}, 4, k), constant(M, {5}, 5, statKind),
                          constant(M, {5}, 6, statKind), positive(M, 5, statKind)},
                         tr);
          for (unsigned r = 0; r < 3; ++r)
            outs.push_back(NodeValue(t, r));
        }
        return outs;
      },
      dceOnly());
}

TEST_P(NormalizationOpsKinds, InstanceNormLayerNormMeanVarNormLRN) {
  ElemKind k = GetParam();
  expectBackendsAgree(
      [k](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {2, 6, 5, 7}, k);
        std::vector<NodeValue> outs;
        AttrList in;
        in.set<AttrKind::Epsilon>(1e-5f);
        outs.push_back(node(F, NodeKind::InstanceNorm,
                            {x, constant(M, {6}, 1, k), constant(M, {6}, 2, k)}, in));
        outs.push_back(node(F, NodeKind::InstanceNorm,
                            {x, constant(M, {6}, 1, ElemKind::Float64),
                             constant(M, {6}, 2, ElemKind::Float16)},
                            in));
        for (int64_t axis : {1, 3})
          for (const char *stash : {"float32", "float64", "float16"}) {
            AttrList ln;
            ln.set<AttrKind::Axis>(axis).set<AttrKind::Epsilon>(1e-5f).set<AttrKind::StashKind>(
                stash);
            std::vector<dim_t> pd(x->getType().dims.begin() + axis, x->getType().dims.end());
            Node *n = node(F, NodeKind::LayerNorm,
                           {x, constant(M, pd, 3, k), constant(M, pd, 4, k)}, ln);
            for (unsigned r = 0; r < 3; ++r)
              outs.push_back(NodeValue(n, r));
          }
        for (std::vector<int64_t> axes :
             {std::vector<int64_t>{0, 2, 3}, {1}, {0, 1, 2, 3}, {2, 3}, {}}) {
          AttrList mvn;
          mvn.set<AttrKind::Axes>(axes).set<AttrKind::Epsilon>(1e-9f);
          outs.push_back(node(F, NodeKind::MeanVarNorm, {x}, mvn));
        }
        for (int64_t size : {1, 3, 4, 9}) {
          AttrList lrn;
          lrn.set<AttrKind::Alpha>(2e-2f)
              .set<AttrKind::Beta>(0.75f)
              .set<AttrKind::Bias>(1.5f)
              .set<AttrKind::Size>(size);
          outs.push_back(node(F, NodeKind::LRN, {x}, lrn));
        }
        return outs;
      },
      dceOnly());
}

INSTANTIATE_TEST_SUITE_P(Kinds, NormalizationOpsKinds,
                         ::testing::Values(ElemKind::Float32, ElemKind::Float64,
                                           ElemKind::Float16, ElemKind::BFloat16),
                         [](const auto &info) { return std::string(elemKindName(info.param)); });

TEST(NormalizationOps, SoftmaxSpecialValues) {
  // A NaN anywhere makes the line NaN; +inf too (inf - inf); a line of -inf is NaN; Hardmax
  // picks the first largest and ignores a NaN after it.
  double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16}) {
    SCOPED_TRACE(elemKindName(k).str());
    RunOptions opts = dceOnly();
    opts.inputs["x"] = tensorOf(k, {5, 4},
                                {1, nan, 2, 2, nan, 1, 0, 3, inf, 1, 2, 3, -inf, -inf, -inf, -inf,
                                 -inf, 5, 5, -1});
    expectBackendsAgree(
        [k](Module &M, Function *F) -> std::vector<NodeValue> {
          Placeholder *x = input(M, {5, 4}, k);
          std::vector<NodeValue> outs;
          for (NodeKind nk : {NodeKind::Softmax, NodeKind::LogSoftmax, NodeKind::Hardmax})
            for (int64_t axis : {0, 1}) {
              AttrList a;
              a.set<AttrKind::Axis>(axis);
              outs.push_back(node(F, nk, {x}, a));
            }
          return outs;
        },
        opts);
  }
}

TEST(NormalizationOps, SplitOverThreads) {
  // With -threads=2 the float32 Softmax/LogSoftmax (contiguous and strided lines) and LayerNorm
  // split their lines over the team, which a product big enough to split starts: 64 x 128 x 256.
  RunOptions opts = dceOnly();
  opts.backend.threads = 2;
  expectBackendsAgree(
      [](Module &M, Function *F) -> std::vector<NodeValue> {
        Placeholder *x = input(M, {4, 131, 257});
        Placeholder *a = input(M, {64, 128}, ElemKind::Float32, "a");
        std::vector<NodeValue> outs = {node(F, NodeKind::MatMul, {a, constant(M, {128, 256}, 5)},
                                            AttrList())};
        for (NodeKind nk : {NodeKind::Softmax, NodeKind::LogSoftmax})
          for (int64_t axis : {1, 2}) {
            AttrList at;
            at.set<AttrKind::Axis>(axis);
            outs.push_back(node(F, nk, {x}, at));
          }
        AttrList ln;
        ln.set<AttrKind::Axis>(2).set<AttrKind::Epsilon>(1e-5f).set<AttrKind::StashKind>(
            "float32");
        Node *n = node(F, NodeKind::LayerNorm, {x, constant(M, {257}, 3), constant(M, {257}, 4)},
                       ln);
        for (unsigned r = 0; r < 3; ++r)
          outs.push_back(NodeValue(n, r));
        return outs;
      },
      opts);
}

} // namespace
