// The graph pass pipeline.
#include "TestUtils.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Optimizer/GraphOptimizer.h"

using namespace ember;
using namespace ember::test;

TEST(DCE, RemovesDeadNodesAndUnusedConstants) {
  Module M;
  Function *F = M.createFunction("main");
  Placeholder *x = M.createPlaceholder(Type(ElemKind::Float32, {4}), "x");
  Placeholder *out = M.createPlaceholder(Type(ElemKind::Float32, {4}), "out");
  Constant *c = M.createConstant(Tensor(Type(ElemKind::Float32, {4})), "c");
  auto live = F->createNode(NodeKind::Relu, "live", {x});
  ASSERT_TRUE(bool(live));
  ASSERT_TRUE(bool(F->createNode(NodeKind::Add, "dead", {x, c})));
  ASSERT_TRUE(bool(F->createNode(NodeKind::Save, "save", {*live, out})));
  std::vector<PassStats> stats;
  OptimizerOptions opts;
  opts.verifyEach = true;
  opts.stats = &stats;
  ASSERT_EQ(errorOf(optimize(*F, defaultPipeline(), opts)), "");
  EXPECT_EQ(F->size(), 2u);
  EXPECT_TRUE(M.getConstants().empty());
  ASSERT_FALSE(stats.empty());
  EXPECT_EQ(stats[0].pass, "dce");
  EXPECT_EQ(stats[0].nodesBefore, 3u);
  EXPECT_EQ(stats[0].nodesAfter, 2u);
}

TEST(DCE, SeedModelKeepsOnlyTheLiveAdd) {
  ASSERT_OK_AND_ASSIGN(auto M, loadModel(sourcePath("tests/models/const_add/model.onnxtxt")));
  Function *F = M->getFunction(kMainFunctionName);
  ASSERT_EQ(errorOf(optimize(*F, defaultPipeline())), "");
  for (const auto &n : F->getNodes())
    EXPECT_NE(n->getName(), "add_dead");
  EXPECT_EQ(F->size(), 2u); // add_live and the Save
}

TEST(Optimizer, UnknownPassIsAnError) {
  Module M;
  Function *F = M.createFunction("main");
  EXPECT_NE(errorOf(optimize(*F, {"dce", "nosuchpass"})).find("nosuchpass"), std::string::npos);
}
