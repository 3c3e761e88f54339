// The fusion passes: fold-batchnorm, merge-pad, merge-concats, matmul-add-to-fc and
// fuse-activations. Each test checks the rewritten structure and (through expectSameResults)
// that the Interpreter computes the same outputs as the unoptimized graph; the negative tests
// check that near misses are left alone.
#include "PassTestUtils.h"

#include <cstdio>

using namespace ember;
using namespace ember::test;

namespace {

/// The only node of kind \p kind in \p F (null unless exactly one).
const Node *only(const Function &F, NodeKind kind) {
  const Node *found = nullptr;
  for (const auto &n : F.getNodes())
    if (n->getKind() == kind) {
      if (found)
        return nullptr;
      found = n.get();
    }
  return found;
}

/// Batch-norm statistics for \p c channels (variances positive) named after \p p.
Model &batchNormStats(Model &m, const std::string &p, int64_t c, int type = kFloat) {
  return m.random(p + "scale", {c}, 11, 0.5, 1.5, type)
      .random(p + "shift", {c}, 12, -1, 1, type)
      .random(p + "mean", {c}, 13, -0.5, 0.5, type)
      .random(p + "var", {c}, 14, 0.25, 2, type);
}

std::vector<std::string> bnInputs(const std::string &x, const std::string &p) {
  return {x, p + "scale", p + "shift", p + "mean", p + "var"};
}

// ---------------------------------------------------------------------------------------------
// fold-batchnorm

TEST(FoldBatchNorm, FoldsIntoConv) {
  Model m;
  m.input("x", {2, 3, 6, 6}).output("y", {2, 4, 6, 6});
  m.random("W", {4, 3, 3, 3}, 1).random("B", {4}, 2);
  batchNormStats(m, "bn_", 4);
  m.node("Conv", {"x", "W", "B"}, {"c"}, intsAttr("pads", {1, 1, 1, 1}));
  m.node("BatchNormalization", bnInputs("c", "bn_"), {"y"}, floatAttr("epsilon", 1e-3f));
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"fold-batchnorm", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["BatchNorm"], 0);
  EXPECT_EQ(counts["Conv"], 1);
  const Node *conv = only(run.graph(), NodeKind::Conv);
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->getOperand(ops::Conv::Filter).node->getKind(), NodeKind::Constant);
  EXPECT_NE(conv->getOperand(ops::Conv::Filter).node->getName(), "W");
}

TEST(FoldBatchNorm, FoldsIntoConvWithoutBiasAndFloat64) {
  Model m;
  m.input("x", {1, 2, 5, 5}, kDouble).output("y", {1, 3, 3, 3}, kDouble);
  m.random("W", {3, 2, 3, 3}, 3, -1, 1, kDouble);
  batchNormStats(m, "bn_", 3, kDouble);
  m.node("Conv", {"x", "W"}, {"c"});
  m.node("BatchNormalization", bnInputs("c", "bn_"), {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"fold-batchnorm", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["BatchNorm"], 0);
}

TEST(FoldBatchNorm, FoldsIntoGroupedDepthwiseAndTransposedConv) {
  // Depthwise Conv (group = channels) and a grouped ConvTranspose, whose filter is
  // [C_in, C_out/group, k..]: the channel each filter element scales differs.
  Model m;
  m.input("x", {1, 4, 5, 5}).output("y", {1, 6, 11, 11});
  m.random("Wd", {4, 1, 3, 3}, 4).random("Bd", {4}, 5);
  m.random("Wt", {4, 3, 3, 3}, 6).random("Bt", {6}, 7);
  batchNormStats(m, "a_", 4);
  batchNormStats(m, "b_", 6);
  m.node("Conv", {"x", "Wd", "Bd"}, {"d"}, intsAttr("pads", {1, 1, 1, 1}) + intAttr("group", 4));
  m.node("BatchNormalization", bnInputs("d", "a_"), {"dn"});
  m.node("ConvTranspose", {"dn", "Wt", "Bt"}, {"t"},
         intsAttr("strides", {2, 2}) + intsAttr("pads", {0, 0, 0, 0}) + intAttr("group", 2));
  m.node("BatchNormalization", bnInputs("t", "b_"), {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"fold-batchnorm", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["BatchNorm"], 0);
  EXPECT_EQ(counts["Conv"], 1);
  EXPECT_EQ(counts["ConvTranspose"], 1);
}

TEST(FoldBatchNorm, LeavesConvWithAnotherUser) {
  Model m;
  m.input("x", {1, 3, 4, 4}).output("y", {1, 2, 2, 2}).output("c", {1, 2, 2, 2});
  m.random("W", {2, 3, 3, 3}, 1).random("B", {2}, 2);
  batchNormStats(m, "bn_", 2);
  m.node("Conv", {"x", "W", "B"}, {"c"});
  m.node("BatchNormalization", bnInputs("c", "bn_"), {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"fold-batchnorm", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["BatchNorm"], 1);
}

TEST(FoldBatchNorm, LeavesRuntimeStatisticsAndOtherProducers) {
  // The variance is a graph input; the second BatchNorm follows a Relu, not a Conv.
  Model m;
  m.input("x", {1, 3, 4, 4}).input("var", {2}).output("y", {1, 2, 2, 2}).output("z", {1, 3, 4, 4});
  m.random("W", {2, 3, 3, 3}, 1).random("B", {2}, 2);
  m.random("s", {2}, 3).random("b", {2}, 4).random("mu", {2}, 5);
  batchNormStats(m, "bn_", 3);
  m.node("Conv", {"x", "W", "B"}, {"c"});
  m.node("Abs", {"var"}, {"absvar"});
  m.node("BatchNormalization", {"c", "s", "b", "mu", "absvar"}, {"y"});
  m.node("Relu", {"x"}, {"r"});
  m.node("BatchNormalization", bnInputs("r", "bn_"), {"z"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"fold-batchnorm", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["BatchNorm"], 2);
}

// ---------------------------------------------------------------------------------------------
// merge-pad

/// x -> Pad(pads, value) -> consumer; pads over all 4 dims of x [1, 2, 5, 5].
Model padModel(const std::vector<int64_t> &pads, double value, const std::string &mode,
               const std::string &consumer, const std::string &consumerAttrs,
               const std::vector<int64_t> &outDims) {
  Model m;
  m.input("x", {1, 2, 5, 5}).output("y", outDims);
  m.values("pads", {8}, std::vector<double>(pads.begin(), pads.end()), kInt64);
  m.values("value", {}, {value});
  m.random("W", {3, 2, 3, 3}, 1).random("B", {3}, 2);
  m.node("Pad", {"x", "pads", "value"}, {"p"}, strAttr("mode", mode));
  if (consumer == "Conv")
    m.node("Conv", {"p", "W", "B"}, {"y"}, consumerAttrs);
  else
    m.node(consumer, {"p"}, {"y"}, consumerAttrs);
  return m;
}

TEST(MergePad, IntoConvPads) {
  Model m = padModel({0, 0, 1, 2, 0, 0, 2, 1}, 0.0, "constant", "Conv",
                     intsAttr("pads", {1, 1, 1, 1}), {1, 3, 8, 8});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"merge-pad", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Pad"], 0);
  const Node *conv = only(run.graph(), NodeKind::Conv);
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->attr<AttrKind::Pads>(), (std::vector<int64_t>{2, 3, 3, 2}));
  EXPECT_EQ(conv->getOperand(ops::Conv::Input).node->getKind(), NodeKind::Placeholder);
}

TEST(MergePad, ChainOfPadsAndAvgPoolCountingPadding) {
  Model m;
  m.input("x", {1, 2, 5, 5}).output("y", {1, 2, 5, 5});
  m.values("p1", {8}, {0, 0, 1, 0, 0, 0, 0, 1}, kInt64);
  m.values("p2", {8}, {0, 0, 0, 1, 0, 0, 1, 0}, kInt64);
  m.node("Pad", {"x", "p1"}, {"a"});
  m.node("Pad", {"a", "p2"}, {"b"});
  m.node("AveragePool", {"b"}, {"y"},
         intsAttr("kernel_shape", {3, 3}) + intsAttr("pads", {0, 0, 0, 0}) +
             intAttr("count_include_pad", 1));
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"merge-pad", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Pad"], 0);
  const Node *pool = only(run.graph(), NodeKind::AvgPool);
  ASSERT_TRUE(pool);
  EXPECT_EQ(pool->attr<AttrKind::Pads>(), (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(MergePad, LeavesNearMisses) {
  struct Case {
    const char *what;
    Model model;
  } cases[] = {
      {"non-zero value", padModel({0, 0, 1, 1, 0, 0, 1, 1}, 1.0, "constant", "Conv", "",
                                  {1, 3, 5, 5})},
      {"reflect mode", padModel({0, 0, 1, 1, 0, 0, 1, 1}, 0.0, "reflect", "Conv", "",
                                {1, 3, 5, 5})},
      {"channel padding", padModel({0, 1, 1, 1, 0, 0, 1, 1}, 0.0, "constant", "AveragePool",
                                   intsAttr("kernel_shape", {3, 3}) + intAttr("count_include_pad", 1),
                                   {1, 3, 5, 5})},
      {"avgpool excluding padding",
       padModel({0, 0, 1, 1, 0, 0, 1, 1}, 0.0, "constant", "AveragePool",
                intsAttr("kernel_shape", {3, 3}), {1, 2, 5, 5})},
      {"maxpool", padModel({0, 0, 1, 1, 0, 0, 1, 1}, 0.0, "constant", "MaxPool",
                           intsAttr("kernel_shape", {3, 3}), {1, 2, 5, 5})},
  };
  for (Case &c : cases) {
    SCOPED_TRACE(c.what);
    ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(c.model.str(), {"merge-pad", "dce"}));
    EXPECT_EQ(kindCounts(run.graph())["Pad"], 1);
  }
}

TEST(MergePad, LeavesConvWithRuntimeFilter) {
  // The filter is an input: it could hold inf, and inf * padded 0 is NaN.
  Model m;
  m.input("x", {1, 2, 5, 5}).input("W", {3, 2, 3, 3}).output("y", {1, 3, 5, 5});
  m.values("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1}, kInt64);
  m.random("B", {3}, 2);
  m.node("Pad", {"x", "pads"}, {"p"});
  m.node("Conv", {"p", "W", "B"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"merge-pad", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Pad"], 1);
}

// ---------------------------------------------------------------------------------------------
// merge-concats

TEST(MergeConcats, FlattensNestedConcatsAlongOneAxis) {
  Model m;
  m.input("a", {2, 1}).input("b", {2, 2}).input("c", {2, 3}).input("d", {2, 1});
  m.output("y", {2, 9});
  m.node("Concat", {"a", "b"}, {"ab"}, intAttr("axis", 1));
  m.node("Concat", {"ab", "c"}, {"abc"}, intAttr("axis", -1));
  m.node("Concat", {"d", "abc", "d"}, {"y"}, intAttr("axis", 1));
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"merge-concats", "dce"}));
  const Node *concat = only(run.graph(), NodeKind::Concat);
  ASSERT_TRUE(concat);
  ASSERT_EQ(concat->getNumOperands(), 5u);
  const char *names[] = {"d", "a", "b", "c", "d"};
  for (unsigned i = 0; i < 5; ++i)
    EXPECT_EQ(concat->getOperand(i).node->getName(), names[i]);
}

TEST(MergeConcats, LeavesOtherAxesAndSharedConcats) {
  Model m;
  m.input("a", {2, 2}).input("b", {2, 2}).output("y", {4, 4}).output("z", {2, 6});
  m.node("Concat", {"a", "b"}, {"v"}, intAttr("axis", 0));  // other axis
  m.node("Concat", {"v", "v"}, {"y"}, intAttr("axis", 1));
  m.node("Concat", {"a", "b"}, {"h"}, intAttr("axis", 1));  // also used by the Relu
  m.node("Relu", {"h"}, {"hr"});
  m.node("Slice", {"hr", "s0", "s1", "s2"}, {"hs"});
  m.values("s0", {1}, {0}, kInt64).values("s1", {1}, {2}, kInt64).values("s2", {1}, {1}, kInt64);
  m.node("Concat", {"h", "hs"}, {"z"}, intAttr("axis", 1));
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"merge-concats", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Concat"], 4);
}

// ---------------------------------------------------------------------------------------------
// matmul-add-to-fc

TEST(MatMulAddToFC, MatMulPlusBias) {
  Model m;
  m.input("x", {4, 8}).output("y", {4, 5});
  m.random("W", {8, 5}, 1).random("bias", {5}, 2);
  m.node("MatMul", {"x", "W"}, {"mm"});
  m.node("Add", {"mm", "bias"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"matmul-add-to-fc", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["FullyConnected"], 1);
  EXPECT_EQ(counts["MatMul"], 0);
  EXPECT_EQ(counts["Add"], 0);
  const Node *fc = only(run.graph(), NodeKind::FullyConnected);
  ASSERT_TRUE(fc);
  EXPECT_EQ(fc->attr<AttrKind::FusedActivation>(), "");
}

TEST(MatMulAddToFC, GemmAndBatchedLinearWithBiasFirst) {
  // Gemm imports as MatMul + Broadcast + Add; torch's Linear on [S, B, E] as a 3-D MatMul with
  // a [1, K, N] weight. Biases [1, N] and a single value broadcast along the row too.
  Model m;
  m.input("x", {3, 8}).input("s", {2, 3, 8}).output("y", {3, 5}).output("z", {2, 3, 4});
  m.random("W", {8, 5}, 1).random("C", {1, 5}, 2);
  m.random("V", {1, 8, 4}, 3).random("c", {1}, 4);
  m.node("Gemm", {"x", "W", "C"}, {"y"});
  m.node("MatMul", {"s", "V"}, {"mm"});
  m.node("Add", {"c", "mm"}, {"z"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"matmul-add-to-fc", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["FullyConnected"], 2);
  EXPECT_EQ(counts["MatMul"], 0);
  EXPECT_EQ(counts["Add"], 0);
  for (const auto &n : run.graph().getNodes()) {
    if (n->getKind() == NodeKind::FullyConnected) {
      EXPECT_EQ(n->getOperand(ops::FullyConnected::Weights).getType().rank(), 2u);
      EXPECT_EQ(n->getOperand(ops::FullyConnected::Bias).getType().rank(), 1u);
    }
  }
}

TEST(MatMulAddToFC, FoldedBroadcastOfRepeatedRows) {
  // Constant folding turns Broadcast(bias) into a Constant of the product's dims; its rows are
  // all equal. The second Add's constant has one row different and stays an Add.
  std::vector<double> rows, oneOff;
  for (int r = 0; r < 3; ++r)
    for (int j = 0; j < 5; ++j)
      rows.push_back(0.25 * j - 0.5);
  oneOff = rows;
  oneOff[12] = 7;
  Model m;
  m.input("x", {3, 8}).output("y", {3, 5}).output("z", {3, 5});
  m.random("W", {8, 5}, 1).values("C", {3, 5}, rows).values("D", {3, 5}, oneOff);
  m.node("MatMul", {"x", "W"}, {"mm"});
  m.node("Add", {"C", "mm"}, {"y"});
  m.node("MatMul", {"x", "W"}, {"mm2"});
  m.node("Add", {"mm2", "D"}, {"z"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"matmul-add-to-fc", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["FullyConnected"], 1);
  EXPECT_EQ(counts["MatMul"], 1);
  EXPECT_EQ(counts["Add"], 1);
}

TEST(MatMulAddToFC, LeavesNearMisses) {
  Model m;
  m.input("x", {4, 8}).input("R", {8, 5}).input("xi", {4, 8}, kInt32);
  m.output("y1", {4, 5}).output("y2", {4, 5}).output("y3", {4, 5}).output("mm3", {4, 5});
  m.output("y4", {4, 5}, kInt32).output("y5", {2, 4, 5});
  m.random("W", {8, 5}, 1).random("bias", {5}, 2).random("rowBias", {4, 1}, 3);
  m.values("Wi", {8, 5}, std::vector<double>(40, 2), kInt32).values("bi", {5}, {1, 2, 3, 4, 5},
                                                                    kInt32);
  m.random("Wb", {2, 8, 5}, 4);
  m.node("MatMul", {"x", "W"}, {"mm1"});
  m.node("Add", {"mm1", "rowBias"}, {"y1"}); // the bias varies along the rows
  m.node("MatMul", {"x", "R"}, {"mm2"});
  m.node("Add", {"mm2", "bias"}, {"y2"}); // weights known only at run time
  m.node("MatMul", {"x", "W"}, {"mm3"});
  m.node("Add", {"mm3", "bias"}, {"y3"}); // the product is an output too
  m.node("MatMul", {"xi", "Wi"}, {"mm4"});
  m.node("Add", {"mm4", "bi"}, {"y4"}); // integers
  m.node("MatMul", {"x", "Wb"}, {"mm5"});
  m.node("Add", {"mm5", "bias"}, {"y5"}); // a batch of different weights
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"matmul-add-to-fc", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["FullyConnected"], 0);
  EXPECT_EQ(counts["MatMul"], 5);
}

// ---------------------------------------------------------------------------------------------
// fuse-activations

/// The activation node for op \p op (ONNX) applied to \p in, with the initializers it needs.
void addActivation(Model &m, const std::string &op, const std::string &in,
                   const std::string &out) {
  if (op == "Clip") {
    m.values(out + "_lo", {}, {-0.5}).values(out + "_hi", {}, {0.75});
    m.node("Clip", {in, out + "_lo", out + "_hi"}, {out});
  } else if (op == "LeakyRelu") {
    m.node(op, {in}, {out}, floatAttr("alpha", 0.2f));
  } else if (op == "HardSigmoid") {
    m.node(op, {in}, {out}, floatAttr("alpha", 0.3f) + floatAttr("beta", 0.4f));
  } else {
    m.node(op, {in}, {out});
  }
}

const char *kActivations[] = {"Relu", "Clip",        "LeakyRelu", "Sigmoid",
                              "Tanh", "HardSigmoid", "HardSwish"};
const char *kFusedNames[] = {"relu", "clip",         "leaky_relu", "sigmoid",
                             "tanh", "hard_sigmoid", "hard_swish"};

TEST(FuseActivations, EveryActivationIntoConvMatMulAndFullyConnected) {
  for (size_t i = 0; i < std::size(kActivations); ++i) {
    SCOPED_TRACE(kActivations[i]);
    Model m(14); // HardSwish
    m.input("x", {1, 2, 5, 5}).input("a", {3, 8}).output("y", {1, 3, 5, 5});
    m.output("z", {3, 5}).output("f", {3, 5});
    m.random("W", {3, 2, 3, 3}, 1, -2, 2).random("B", {3}, 2);
    m.random("M", {8, 5}, 3, -2, 2).random("bias", {5}, 4);
    m.node("Conv", {"x", "W", "B"}, {"c"}, intsAttr("pads", {1, 1, 1, 1}));
    addActivation(m, kActivations[i], "c", "y");
    m.node("MatMul", {"a", "M"}, {"mm"});
    addActivation(m, kActivations[i], "mm", "z");
    m.node("MatMul", {"a", "M"}, {"mm2"});
    m.node("Add", {"mm2", "bias"}, {"fc"});
    addActivation(m, kActivations[i], "fc", "f");
    std::vector<std::string> pipeline = {"matmul-add-to-fc", "fuse-activations", "dce"};
    ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), pipeline));
    auto counts = kindCounts(run.graph());
    EXPECT_EQ(counts["FusedConv"], 1);
    EXPECT_EQ(counts["FusedMatMul"], 1);
    EXPECT_EQ(counts["FullyConnected"], 1);
    EXPECT_EQ(run.graph().size(), 3u + 3u) << "three compute nodes and three Saves";
    for (const auto &n : run.graph().getNodes()) {
      if (n->getKind() != NodeKind::Save) {
        EXPECT_EQ(n->attr<AttrKind::FusedActivation>(), kFusedNames[i]);
      }
    }
    const Node *conv = only(run.graph(), NodeKind::FusedConv);
    ASSERT_TRUE(conv);
    if (std::string(kActivations[i]) == "Clip") {
      EXPECT_EQ(conv->attr<AttrKind::FusedActivationArgs>(), (std::vector<float>{-0.5f, 0.75f}));
    }
    EXPECT_EQ(conv->attr<AttrKind::Pads>(), (std::vector<int64_t>{1, 1, 1, 1}));
  }
}

TEST(FuseActivations, Float16RoundsBeforeTheActivation) {
  // The fused kernels round to float16 first, as the Conv would store it: bit-exact results.
  for (const char *op : {"Sigmoid", "HardSwish", "Tanh"}) {
    SCOPED_TRACE(op);
    Model m(14);
    m.input("x", {1, 2, 6, 6}).input("w", {4, 2, 3, 3}).output("y", {1, 4, 4, 4}, kFloat16);
    m.random("B", {4}, 2);
    m.node("Cast", {"x"}, {"xh"}, intAttr("to", kFloat16));
    m.node("Cast", {"w"}, {"wh"}, intAttr("to", kFloat16));
    m.node("Cast", {"B"}, {"bh"}, intAttr("to", kFloat16));
    m.node("Conv", {"xh", "wh", "bh"}, {"c"});
    addActivation(m, op, "c", "y");
    ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"fuse-activations", "dce"}));
    EXPECT_EQ(kindCounts(run.graph())["FusedConv"], 1);
    const Tensor &got = run.outputs[0];
    ASSERT_OK_AND_ASSIGN(PipelineRun ref, runPipeline(m.str(), {"dce"}));
    EXPECT_TRUE(got.bitwiseEqual(ref.outputs[0]));
  }
}

TEST(FuseActivations, RecognizedGeluIntoConv) {
  // The worked example of docs/adding-an-operator.md: gelu became fusable by one row of
  // Nodes/FusedActivations.def. torch's erf form is recognized as the Unary gelu, which then
  // folds into the Conv; NNOpsTest runs the fused kernels of every row on both backends.
  for (const char *form : {"erf", "tanh"}) {
    SCOPED_TRACE(form);
    Model m(13);
    m.input("x", {1, 2, 5, 5}).output("y", {1, 3, 5, 5});
    m.random("W", {3, 2, 3, 3}, 1, -2, 2).random("B", {3}, 2);
    m.values("one", {}, {1.0}).values("half", {}, {0.5});
    m.node("Conv", {"x", "W", "B"}, {"c"}, intsAttr("pads", {1, 1, 1, 1}));
    if (std::string(form) == "erf") {
      m.values("sqrt2", {}, {1.4142135623730951});
      m.node("Div", {"c", "sqrt2"}, {"d"});
      m.node("Erf", {"d"}, {"inner"});
    } else { // 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
      m.values("k", {}, {0.7978845608028654}).values("coeff", {}, {0.044715});
      m.node("Mul", {"c", "c"}, {"sq"});
      m.node("Mul", {"c", "sq"}, {"cube"});
      m.node("Mul", {"coeff", "cube"}, {"cc"});
      m.node("Add", {"c", "cc"}, {"w"});
      m.node("Mul", {"k", "w"}, {"kw"});
      m.node("Tanh", {"kw"}, {"inner"});
    }
    m.node("Add", {"inner", "one"}, {"a"});
    m.node("Mul", {"c", "a"}, {"p"});
    m.node("Mul", {"p", "half"}, {"y"});
    ASSERT_OK_AND_ASSIGN(
        PipelineRun run,
        expectSameResults(m.str(), {"recognize-gelu", "fuse-activations", "dce"}));
    const Node *conv = only(run.graph(), NodeKind::FusedConv);
    ASSERT_TRUE(conv);
    EXPECT_EQ(conv->attr<AttrKind::FusedActivation>(),
              std::string(form) == "erf" ? "gelu" : "gelu_tanh");
    EXPECT_EQ(run.graph().size(), 2u) << "the FusedConv and the Save";
  }
}

TEST(FuseActivations, RecognizedSiluIntoConvAndMatMul) {
  // silu fuses by its Unary row's Fuse column alone (docs/adding-an-operator.md): torch's SiLU,
  // x * Sigmoid(x), is recognized as the Unary silu, which then folds into the product before it.
  Model m(13);
  m.input("x", {1, 2, 5, 5}).input("a", {4, 6}).output("y", {1, 3, 5, 5}).output("z", {4, 5});
  m.random("W", {3, 2, 3, 3}, 1, -2, 2).random("B", {3}, 2).random("M", {6, 5}, 3);
  m.node("Conv", {"x", "W", "B"}, {"c"}, intsAttr("pads", {1, 1, 1, 1}));
  m.node("Sigmoid", {"c"}, {"g"});
  m.node("Mul", {"c", "g"}, {"y"});
  m.node("MatMul", {"a", "M"}, {"p"});
  m.node("Sigmoid", {"p"}, {"h"});
  m.node("Mul", {"h", "p"}, {"z"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResults(m.str(), {"recognize-silu", "fuse-activations", "dce"}));
  const Node *conv = only(run.graph(), NodeKind::FusedConv);
  const Node *matmul = only(run.graph(), NodeKind::FusedMatMul);
  ASSERT_TRUE(conv && matmul);
  EXPECT_EQ(conv->attr<AttrKind::FusedActivation>(), "silu");
  EXPECT_EQ(matmul->attr<AttrKind::FusedActivation>(), "silu");
  EXPECT_EQ(run.graph().size(), 4u) << "the two fused products and the two Saves";
}

TEST(FuseActivations, LeavesNearMisses) {
  Model m;
  m.input("x", {1, 2, 4, 4}).input("lo", {}).input("a", {3, 8}, kInt32);
  m.output("c1", {1, 3, 4, 4}).output("y1", {1, 3, 4, 4}).output("y2", {1, 3, 4, 4});
  m.output("y3", {1, 3, 4, 4}).output("y4", {3, 5}, kInt32);
  m.random("W", {3, 2, 3, 3}, 1).random("B", {3}, 2);
  m.values("hi", {}, {1.0});
  m.values("Mi", {8, 5}, std::vector<double>(40, 1), kInt32);
  std::string pads = intsAttr("pads", {1, 1, 1, 1});
  m.node("Conv", {"x", "W", "B"}, {"c1"}, pads); // also a graph output
  m.node("Relu", {"c1"}, {"y1"});
  m.node("Conv", {"x", "W", "B"}, {"c2"}, pads);
  m.node("Elu", {"c2"}, {"y2"}); // not a fusable activation
  m.node("Conv", {"x", "W", "B"}, {"c3"}, pads);
  m.node("Clip", {"c3", "lo", "hi"}, {"y3"}); // bound known only at run time
  m.node("MatMul", {"a", "Mi"}, {"mi"});
  m.node("Relu", {"mi"}, {"y4"}); // integers
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"fuse-activations", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["FusedConv"], 0);
  EXPECT_EQ(counts["FusedMatMul"], 0);
  EXPECT_EQ(counts["Conv"], 3);
  EXPECT_EQ(counts["Relu"], 2);
}

TEST(FuseActivations, OnlyOneActivationPerNode) {
  // Relu then Sigmoid: the first fuses, the second stays (one activation per fused node).
  Model m;
  m.input("x", {1, 2, 4, 4}).output("y", {1, 3, 4, 4});
  m.random("W", {3, 2, 3, 3}, 1).random("B", {3}, 2);
  m.node("Conv", {"x", "W", "B"}, {"c"}, intsAttr("pads", {1, 1, 1, 1}));
  m.node("Relu", {"c"}, {"r"});
  m.node("Sigmoid", {"r"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(m.str(), {"fuse-activations", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["FusedConv"], 1);
  EXPECT_EQ(counts["Sigmoid"], 1);
  EXPECT_EQ(counts["Relu"], 0);
}

TEST(FusionPasses, ConvBatchNormPadReluTogether) {
  // Pad -> Conv -> BatchNorm -> Relu, as an unfolded export gives it: one FusedConv is left.
  Model m;
  m.input("x", {1, 3, 6, 6}).output("y", {1, 4, 6, 6});
  m.values("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1}, kInt64);
  m.random("W", {4, 3, 3, 3}, 1).random("B", {4}, 2);
  batchNormStats(m, "bn_", 4);
  m.node("Pad", {"x", "pads"}, {"p"});
  m.node("Conv", {"p", "W", "B"}, {"c"});
  m.node("BatchNormalization", bnInputs("c", "bn_"), {"n"});
  m.node("Relu", {"n"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResults(m.str(), {"fold-batchnorm", "merge-pad",
                                                   "fuse-activations", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["FusedConv"], 1);
  EXPECT_EQ(run.graph().size(), 2u) << "FusedConv and Save";
}

} // namespace
