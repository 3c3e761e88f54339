// The `lower` pass and every row of Lowerings.def. Each test builds one node on small inputs
// (odd sizes, negative values, NaN where the node's meaning defines it), runs it on the
// Interpreter as it is and after lowering, and expects the same outputs to the conformance
// tolerance (|got - want| <= 1e-5 + 1e-3 |want|; NaN where NaN) and the expected structure: the
// node's kind gone, the kinds of its subgraph present. The reference is the node itself on the
// Interpreter, which the ONNX backend suite checks.
#include "PassTestUtils.h"

#include "ember/Graph/FusedActivations.h"
#include "ember/Optimizer/GraphOptimizer.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace ember;
using namespace ember::test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Builds the node under test from placeholders and constants it creates; every result of the
/// node is saved to an output.
using NodeBuilder = std::function<llvm::Expected<Node *>(Module &, Function &)>;

struct Graph {
  std::unique_ptr<Module> M;
  Function *F = nullptr;
};

llvm::Expected<Graph> buildGraph(const NodeBuilder &build) {
  Graph g;
  g.M = std::make_unique<Module>();
  g.F = g.M->createFunction(kMainFunctionName);
  EMBER_ASSIGN_OR_RETURN(Node * n, build(*g.M, *g.F));
  for (unsigned r = 0; r < n->getNumResults(); ++r) {
    Placeholder *out = g.M->createPlaceholder(n->getType(r), "out" + std::to_string(r));
    EMBER_TRY(g.F->createNode(NodeKind::Save, "save" + std::to_string(r),
                              {n->getResult(r), out})
                  .takeError());
  }
  return std::move(g);
}

/// Seeded values in [-3, 3] for input \p p, with \p specials written over the first elements.
Tensor inputFor(const Placeholder &p, const std::vector<double> &specials) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-3.0, 3.0);
  Tensor t(p.getType());
  for (size_t i = 0; i < t.numElements(); ++i)
    t.setElementFromDouble(i, i < specials.size() ? specials[i] : dist(rng));
  return t;
}

/// Runs \p g on the Interpreter (dce only: no folding, no lowering) on inputFor values.
llvm::Expected<std::vector<Tensor>> runOnInterpreter(Graph g,
                                                     const std::vector<double> &specials) {
  CompileOptions co;
  co.verifyEach = true;
  co.pipeline = {"dce"};
  EMBER_ASSIGN_OR_RETURN(auto cm, CompiledModel::compile(std::move(g.M), co));
  for (Placeholder *p : cm->getInputs())
    EMBER_TRY(cm->setInput(p->getName(), inputFor(*p, specials)));
  EMBER_TRY(cm->run());
  std::vector<Tensor> outs;
  for (Placeholder *p : cm->getOutputs()) {
    EMBER_ASSIGN_OR_RETURN(Tensor t, cm->getOutput(p->getName()));
    outs.push_back(std::move(t));
  }
  return std::move(outs);
}

/// Runs `lower` on \p g, asking to lower every node \p want accepts.
bool lowerGraph(Graph &g, std::function<bool(const Node &)> want) {
  PassContext ctx;
  ctx.shouldLower = std::move(want);
  return findGraphPass("lower")->run(*g.F, ctx);
}

bool everything(const Node &) { return true; }

/// Lowers the node \p build makes (every node, repeatedly, until nothing changes, as the driver
/// does), checks the outputs against the node's own on the Interpreter, and returns the kinds
/// of the lowered graph.
std::map<std::string, int> expectLoweringAgrees(const NodeBuilder &build,
                                                const std::vector<double> &specials = {}) {
  auto original = buildGraph(build);
  EXPECT_TRUE(bool(original)) << errorOf(original.takeError());
  auto lowered = buildGraph(build);
  EXPECT_TRUE(bool(lowered)) << errorOf(lowered.takeError());
  if (!original || !lowered)
    return {};
  EXPECT_TRUE(lowerGraph(*lowered, everything)) << "nothing was lowered";
  for (int round = 0; round < 4 && lowerGraph(*lowered, everything); ++round) {
  }
  EXPECT_EQ(errorOf(lowered->F->verify()), "");
  std::map<std::string, int> kinds = kindCounts(*lowered->F);
  auto want = runOnInterpreter(std::move(*original), specials);
  auto got = runOnInterpreter(std::move(*lowered), specials);
  EXPECT_TRUE(bool(want)) << errorOf(want.takeError());
  EXPECT_TRUE(bool(got)) << errorOf(got.takeError());
  if (!want || !got)
    return kinds;
  EXPECT_FALSE(want->empty());
  EXPECT_EQ(want->size(), got->size());
  for (size_t i = 0; i < want->size() && i < got->size(); ++i)
    EXPECT_EQ(tools::compareTensors((*got)[i], (*want)[i], {1e-5, 1e-3}), "") << "output " << i;
  return kinds;
}

//===------------------------------------------------------------------------------------------===//
// Building nodes.
//===------------------------------------------------------------------------------------------===//

Placeholder *input(Module &M, std::vector<dim_t> dims, ElemKind k = ElemKind::Float32,
                   const std::string &name = "x") {
  return M.createPlaceholder(Type(k, dims), name);
}

/// A Constant of \p dims whose elements cycle through \p values.
NodeValue constant(Module &M, std::vector<dim_t> dims, std::vector<double> values,
                   ElemKind k = ElemKind::Float32) {
  Tensor t(Type(k, dims));
  for (size_t i = 0; i < t.numElements(); ++i)
    t.setElementFromDouble(i, values[i % values.size()]);
  return M.createConstant(std::move(t), "c")->getResult();
}

llvm::Expected<Node *> make(Function &F, NodeKind kind, llvm::ArrayRef<NodeValue> operands,
                            AttrList attrs = {}) {
  return F.createNode(kind, "n", operands, std::move(attrs));
}

AttrList fused(const std::string &activation, std::vector<float> args) {
  AttrList a;
  a.set<AttrKind::FusedActivation>(activation).set<AttrKind::FusedActivationArgs>(
      std::move(args));
  return a;
}

/// No activation and every row of Nodes/FusedActivations.def, with as many arguments as it
/// takes: -0.5 then 1.25 (a valid Clip, LeakyRelu, HardSigmoid).
std::vector<std::pair<std::string, std::vector<float>>> allActivations() {
  std::vector<std::pair<std::string, std::vector<float>>> acts = {{"", {}}};
  for (const FusedActivationInfo &r : fusedActivations()) {
    std::vector<float> args = {-0.5f, 1.25f};
    args.resize(r.arity);
    acts.push_back({r.name.str(), args});
  }
  return acts;
}
const std::vector<std::pair<std::string, std::vector<float>>> kActivations = allActivations();

//===------------------------------------------------------------------------------------------===//
// One test per row of Lowerings.def.
//===------------------------------------------------------------------------------------------===//

TEST(Lowering, FullyConnected) {
  for (const auto &[act, args] : kActivations)
    for (std::vector<dim_t> x : {std::vector<dim_t>{3, 5}, {2, 3, 5}, {1, 1, 1, 5}}) {
      SCOPED_TRACE(act + " rank " + std::to_string(x.size()));
      auto kinds = expectLoweringAgrees(
          [&](Module &M, Function &F) {
            return make(F, NodeKind::FullyConnected,
                        {input(M, x), constant(M, {5, 7}, {0.5, -1.25, 2, 0.75, -0.5}),
                         constant(M, {7}, {1, -2, 0.25})},
                        fused(act, args));
          },
          {kNaN, -4, 0});
      EXPECT_EQ(kinds.count("FullyConnected"), 0u);
      EXPECT_EQ(kinds["MatMul"], 1);
      EXPECT_GE(kinds["Add"], 1); // the bias; a lowered activation may add its own
    }
}

TEST(Lowering, FusedMatMul) {
  for (const auto &[act, args] : kActivations) {
    SCOPED_TRACE(act);
    auto kinds = expectLoweringAgrees([&](Module &M, Function &F) {
      return make(F, NodeKind::FusedMatMul,
                  {input(M, {2, 3, 4}), input(M, {1, 4, 5}, ElemKind::Float32, "w")},
                  fused(act, args));
    });
    EXPECT_EQ(kinds.count("FusedMatMul"), 0u);
    EXPECT_EQ(kinds["MatMul"], 1);
  }
}

TEST(Lowering, FusedConvGroupedStrided) {
  for (const auto &[act, args] : kActivations) {
    SCOPED_TRACE(act);
    auto kinds = expectLoweringAgrees([&](Module &M, Function &F) {
      AttrList a = fused(act, args);
      a.set<AttrKind::Kernels>({3, 2})
          .set<AttrKind::Strides>({2, 1})
          .set<AttrKind::Pads>({1, 0, 1, 1})
          .set<AttrKind::Dilations>({1, 2})
          .set<AttrKind::Group>(2);
      return make(F, NodeKind::FusedConv,
                  {input(M, {2, 4, 7, 6}), input(M, {6, 2, 3, 2}, ElemKind::Float32, "w"),
                   constant(M, {6}, {0.5, -1})},
                  a);
    });
    EXPECT_EQ(kinds.count("FusedConv"), 0u);
    EXPECT_EQ(kinds["Conv"], 2); // the grouped Conv is lowered in turn, one per group
  }
}

TEST(Lowering, GroupedConv) {
  // Two groups of two channels with strides, pads and dilation; a depthwise 1-D convolution.
  struct Case {
    std::vector<dim_t> input, filter;
    std::vector<int64_t> kernels, strides, pads, dilations;
    int64_t group;
  };
  for (const Case &c : {Case{{2, 4, 7, 6}, {6, 2, 3, 2}, {3, 2}, {2, 1}, {1, 0, 1, 1}, {1, 2}, 2},
                        Case{{1, 3, 9}, {3, 1, 3}, {3}, {1}, {1, 1}, {1}, 3}}) {
    SCOPED_TRACE(c.group);
    auto kinds = expectLoweringAgrees(
        [&](Module &M, Function &F) {
          AttrList a;
          a.set<AttrKind::Kernels>(c.kernels)
              .set<AttrKind::Strides>(c.strides)
              .set<AttrKind::Pads>(c.pads)
              .set<AttrKind::Dilations>(c.dilations)
              .set<AttrKind::Group>(c.group);
          return make(F, NodeKind::Conv,
                      {input(M, c.input), input(M, c.filter, ElemKind::Float32, "w"),
                       constant(M, {c.filter[0]}, {0.5, -1, 2})},
                      a);
        },
        {kNaN});
    EXPECT_EQ(kinds["Conv"], c.group);
    EXPECT_EQ(kinds["Slice"], 3 * c.group);
    EXPECT_EQ(kinds["Concat"], 1);
  }
}

TEST(Lowering, SoftmaxAndLogSoftmaxEveryAxis) {
  for (NodeKind kind : {NodeKind::Softmax, NodeKind::LogSoftmax})
    for (ElemKind k : {ElemKind::Float32, ElemKind::Float64})
      for (int64_t axis : {0, 1, 2}) {
        SCOPED_TRACE(nodeKindName(kind).str() + " axis " + std::to_string(axis));
        auto kinds = expectLoweringAgrees(
            [&](Module &M, Function &F) {
              AttrList a;
              a.set<AttrKind::Axis>(axis);
              return make(F, kind, {input(M, {3, 5, 4}, k)}, a);
            },
            // Large values: the max shift keeps exp finite; NaN spreads along its row.
            {80, 85, -90, kNaN});
        EXPECT_EQ(kinds.count(nodeKindName(kind).str()), 0u);
        EXPECT_EQ(kinds["Reduce"], 2);
      }
}

TEST(Lowering, LayerNormWithItsStatistics) {
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64})
    for (int64_t axis : {1, 2}) {
      SCOPED_TRACE(std::to_string(axis));
      auto kinds = expectLoweringAgrees(
          [&](Module &M, Function &F) {
            std::vector<dim_t> dims = {2, 3, 5}, normalized(dims.begin() + axis, dims.end());
            AttrList a;
            a.set<AttrKind::Axis>(axis)
                .set<AttrKind::Epsilon>(1e-3f)
                .set<AttrKind::StashKind>(elemKindName(k).str());
            return make(F, NodeKind::LayerNorm,
                        {input(M, dims, k), constant(M, normalized, {0.5, -2, 1.5}, k),
                         constant(M, normalized, {0.25, 1}, k)},
                        a);
          },
          {-5, 7});
      EXPECT_EQ(kinds.count("LayerNorm"), 0u);
      EXPECT_EQ(kinds["Reduce"], 2);
    }
}

TEST(Lowering, InstanceNorm) {
  for (std::vector<dim_t> dims : {std::vector<dim_t>{2, 3, 5, 7}, {1, 4, 9}}) {
    auto kinds = expectLoweringAgrees(
        [&](Module &M, Function &F) {
          AttrList a;
          a.set<AttrKind::Epsilon>(1e-5f);
          dim_t C = dims[1];
          return make(F, NodeKind::InstanceNorm,
                      {input(M, dims), constant(M, {C}, {1.5, -0.5, 2}),
                       constant(M, {C}, {0.25, -1})},
                      a);
        },
        {-6, 9, 0});
    // InstanceNorm becomes a LayerNorm, which the test lowers in turn.
    EXPECT_EQ(kinds.count("InstanceNorm"), 0u);
    EXPECT_EQ(kinds.count("LayerNorm"), 0u);
    EXPECT_EQ(kinds["Reduce"], 2);
  }
}

TEST(Lowering, BatchNorm) {
  for (std::vector<dim_t> dims : {std::vector<dim_t>{2, 3, 5, 7}, {4, 3}, {1, 3, 2, 2, 3}}) {
    auto kinds = expectLoweringAgrees(
        [&](Module &M, Function &F) {
          AttrList a;
          a.set<AttrKind::Epsilon>(1e-5f);
          return make(F, NodeKind::BatchNorm,
                      {input(M, dims), constant(M, {3}, {1.5, -0.5, 2}),
                       constant(M, {3}, {0.25, -1, 0}), constant(M, {3}, {0.5, -0.25, 3}),
                       constant(M, {3}, {0.75, 2, 0})},
                      a);
        },
        {kNaN, -6});
    EXPECT_EQ(kinds.count("BatchNorm"), 0u);
    EXPECT_EQ(kinds["Mul"], 1);
  }
}

/// Values around each activation's kinks: NaN, zeros, the breakpoints of HardSigmoid (+-2.5 at
/// alpha 0.2, beta 0.5) and HardSwish (+-3).
const std::vector<double> kKinks = {kNaN, 0, -0.0, -2.5, 2.5, -3, 3, -1e-3, 1e-3, 6, -6};

TEST(Lowering, HardSigmoid) {
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64}) {
    auto kinds = expectLoweringAgrees(
        [&](Module &M, Function &F) {
          AttrList a;
          a.set<AttrKind::Alpha>(0.2f).set<AttrKind::Beta>(0.5f);
          return make(F, NodeKind::HardSigmoid, {input(M, {3, 7}, k)}, a);
        },
        kKinks);
    EXPECT_EQ(kinds.count("HardSigmoid"), 0u);
    EXPECT_EQ(kinds["Clip"], 1);
  }
}

TEST(Lowering, LeakyRelu) {
  auto kinds = expectLoweringAgrees(
      [&](Module &M, Function &F) {
        AttrList a;
        a.set<AttrKind::Alpha>(0.01f);
        return make(F, NodeKind::LeakyRelu, {input(M, {5, 3})}, a);
      },
      kKinks);
  EXPECT_EQ(kinds.count("LeakyRelu"), 0u);
  EXPECT_EQ(kinds["Where"], 1);
}

TEST(Lowering, Elu) {
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64}) {
    auto kinds = expectLoweringAgrees(
        [&](Module &M, Function &F) {
          AttrList a;
          a.set<AttrKind::Alpha>(1.5f);
          return make(F, NodeKind::Elu, {input(M, {17}, k)}, a);
        },
        kKinks);
    EXPECT_EQ(kinds.count("Elu"), 0u);
    EXPECT_EQ(kinds["Where"], 1);
  }
}

TEST(Lowering, Selu) {
  for (ElemKind k : {ElemKind::Float32, ElemKind::Float64}) {
    auto kinds = expectLoweringAgrees(
        [&](Module &M, Function &F) {
          AttrList a;
          a.set<AttrKind::Alpha>(1.67326f).set<AttrKind::Gamma>(1.0507f);
          return make(F, NodeKind::Selu, {input(M, {3, 5}, k)}, a);
        },
        kKinks);
    EXPECT_EQ(kinds.count("Selu"), 0u);
    EXPECT_EQ(kinds["Where"], 1);
  }
}

TEST(Lowering, UnaryHardSwishAndGelu) {
  for (const char *fn : {"hard_swish", "gelu"})
    for (ElemKind k : {ElemKind::Float32, ElemKind::Float64}) {
      SCOPED_TRACE(fn);
      auto kinds = expectLoweringAgrees(
          [&](Module &M, Function &F) {
            AttrList a;
            a.set<AttrKind::Function>(fn);
            return make(F, NodeKind::Unary, {input(M, {4, 9}, k)}, a);
          },
          kKinks);
      EXPECT_EQ(kinds["Mul"], 1);
      if (std::string(fn) == "gelu")
        EXPECT_EQ(kinds["Unary"], 1) << "only erf is left";
      else
        EXPECT_EQ(kinds.count("Unary"), 0u);
    }
}

//===------------------------------------------------------------------------------------------===//
// The pass.
//===------------------------------------------------------------------------------------------===//

llvm::Expected<Node *> softmaxOf(Module &M, Function &F, ElemKind k) {
  AttrList a;
  a.set<AttrKind::Axis>(1);
  return make(F, NodeKind::Softmax, {input(M, {2, 3}, k)}, a);
}

TEST(LowerPass, NothingWithoutTheBackendsRequest) {
  auto g = buildGraph([](Module &M, Function &F) { return softmaxOf(M, F, ElemKind::Float32); });
  ASSERT_TRUE(bool(g)) << errorOf(g.takeError());
  auto before = kindCounts(*g->F);
  // No shouldLower at all (the default context), then one that says no to everything.
  EXPECT_FALSE(findGraphPass("lower")->run(*g->F, PassContext()));
  EXPECT_FALSE(lowerGraph(*g, [](const Node &) { return false; }));
  EXPECT_EQ(kindCounts(*g->F), before);
}

TEST(LowerPass, OnlyTheNodesAskedFor) {
  auto g = buildGraph([](Module &M, Function &F) -> llvm::Expected<Node *> {
    EMBER_ASSIGN_OR_RETURN(Node * s, softmaxOf(M, F, ElemKind::Float32));
    AttrList a;
    a.set<AttrKind::Alpha>(0.2f).set<AttrKind::Beta>(0.5f);
    return make(F, NodeKind::HardSigmoid, {s->getResult()}, a);
  });
  ASSERT_TRUE(bool(g)) << errorOf(g.takeError());
  EXPECT_TRUE(lowerGraph(*g, [](const Node &n) { return n.getKind() == NodeKind::Softmax; }));
  auto kinds = kindCounts(*g->F);
  EXPECT_EQ(kinds.count("Softmax"), 0u);
  EXPECT_EQ(kinds["HardSigmoid"], 1);
}

TEST(LowerPass, DeclinedNodesStayAndLeaveNothingBehind) {
  // Float16 Softmax: the subgraph would round every intermediate to 16 bits, so the lowering
  // declines; so do a Unary function without a lowering and an ungrouped Conv.
  auto g = buildGraph([](Module &M, Function &F) -> llvm::Expected<Node *> {
    EMBER_ASSIGN_OR_RETURN(Node * s, softmaxOf(M, F, ElemKind::Float16));
    AttrList a;
    a.set<AttrKind::Function>("abs");
    EMBER_TRY(make(F, NodeKind::Unary, {s->getResult()}, a).takeError());
    AttrList conv;
    conv.set<AttrKind::Kernels>({1})
        .set<AttrKind::Strides>({1})
        .set<AttrKind::Pads>({0, 0})
        .set<AttrKind::Dilations>({1})
        .set<AttrKind::Group>(1);
    return make(F, NodeKind::Conv,
                {input(M, {1, 2, 3}, ElemKind::Float16, "c"),
                 constant(M, {2, 2, 1}, {1}, ElemKind::Float16),
                 constant(M, {2}, {0}, ElemKind::Float16)},
                conv);
  });
  ASSERT_TRUE(bool(g)) << errorOf(g.takeError());
  auto before = kindCounts(*g->F);
  size_t nodes = g->F->size();
  EXPECT_FALSE(lowerGraph(*g, everything));
  EXPECT_EQ(kindCounts(*g->F), before);
  EXPECT_EQ(g->F->size(), nodes);
}

TEST(LowerPass, DeclinesHalfWayWithoutLeftovers) {
  // InstanceNorm whose scale is float64 for float32 data: the LayerNorm is built, then the Mul
  // by the scale cannot be; everything built is erased.
  auto g = buildGraph([](Module &M, Function &F) {
    AttrList a;
    a.set<AttrKind::Epsilon>(1e-5f);
    return make(F, NodeKind::InstanceNorm,
                {input(M, {1, 2, 3}), constant(M, {2}, {1}, ElemKind::Float64),
                 constant(M, {2}, {0})},
                a);
  });
  ASSERT_TRUE(bool(g)) << errorOf(g.takeError());
  size_t nodes = g->F->size();
  EXPECT_FALSE(lowerGraph(*g, everything));
  EXPECT_EQ(g->F->size(), nodes);
  EXPECT_EQ(kindCounts(*g->F)["InstanceNorm"], 1);
}

TEST(LowerPass, TheDriverLowersAfterThePipelineAndDoesNotReraise) {
  // A float32 Softmax lowered, with the default pipeline: recognize-softmax would turn the
  // subgraph back into a Softmax, but the post-lowering pipeline does not run it.
  auto g = buildGraph([](Module &M, Function &F) { return softmaxOf(M, F, ElemKind::Float32); });
  ASSERT_TRUE(bool(g)) << errorOf(g.takeError());
  OptimizerOptions opts;
  opts.verifyEach = true;
  opts.context.shouldLower = everything;
  std::vector<PassStats> stats;
  opts.stats = &stats;
  ASSERT_EQ(errorOf(optimizeForBackend(*g->F, {}, opts)), "");
  auto kinds = kindCounts(*g->F);
  EXPECT_EQ(kinds.count("Softmax"), 0u);
  EXPECT_EQ(kinds["Reduce"], 2);
  // The lowering ran once with a change, then once more without.
  int lowerRuns = 0;
  for (const PassStats &s : stats)
    lowerRuns += s.pass == "lower";
  EXPECT_EQ(lowerRuns, 2);
}

TEST(LowerPass, APipelineNamingLowerRunsAsGiven) {
  auto g = buildGraph([](Module &M, Function &F) { return softmaxOf(M, F, ElemKind::Float32); });
  ASSERT_TRUE(bool(g)) << errorOf(g.takeError());
  OptimizerOptions opts;
  opts.context.shouldLower = everything;
  std::vector<PassStats> stats;
  opts.stats = &stats;
  ASSERT_EQ(errorOf(optimizeForBackend(*g->F, {"dce", "lower"}, opts)), "");
  ASSERT_EQ(stats.size(), 4u); // two rounds of the two passes, the second unchanged
  EXPECT_EQ(kindCounts(*g->F).count("Softmax"), 0u);
}

} // namespace
