// The graph pass pipeline.
#include "TestUtils.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Optimizer/GraphOptimizer.h"
#include "ember/Support/PassManager.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

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
  EXPECT_EQ(stats[0].sizeBefore, 3u);
  EXPECT_EQ(stats[0].sizeAfter, 2u);
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

TEST(Optimizer, DumpAfterNamesPassAndRound) {
  Module M;
  Function *F = M.createFunction("main");
  Placeholder *x = M.createPlaceholder(Type(ElemKind::Float32, {4}), "x");
  ASSERT_TRUE(bool(F->createNode(NodeKind::Relu, "dead", {x})));
  std::string text;
  llvm::raw_string_ostream os(text);
  OptimizerOptions opts;
  opts.dumpAfter = {"dce"};
  opts.dumpStream = &os;
  ASSERT_EQ(errorOf(optimize(*F, {"dce", "cse"}, opts)), "");
  // The pipeline repeats until nothing changes: dce changes in round 1, not in round 2.
  EXPECT_NE(text.find("=== after pass 'dce' (round 1, changed)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("=== after pass 'dce' (round 2, unchanged)\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("'cse'"), std::string::npos) << text;
  opts.dumpAfter = {"nosuchpass"};
  EXPECT_EQ(errorOf(optimize(*F, {"dce"}, opts)),
            "-dump-graph-after: unknown graph pass 'nosuchpass'");
}

TEST(Optimizer, PostLoweringPipelineIsPartOfTheDefaultOne) {
  // Only passes that already run before lowering run after it (see Passes.def for which).
  std::vector<std::string> all = defaultPipeline();
  for (const std::string &name : postLoweringPipeline()) {
    EXPECT_NE(findGraphPass(name), nullptr) << name;
    EXPECT_NE(std::find(all.begin(), all.end(), name), all.end()) << name;
  }
  EXPECT_EQ(std::find(all.begin(), all.end(), "lower"), all.end());
}

TEST(PassManager, PassListFlags) {
  EXPECT_FALSE(parsePassList("default").has_value());
  EXPECT_EQ(parsePassList("none"), std::vector<std::string>());
  EXPECT_EQ(parsePassList("a, b,,c"), (std::vector<std::string>{"a", "b", "c"}));
}
