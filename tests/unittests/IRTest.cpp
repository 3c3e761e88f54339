// IRGen, the IR verifier and the memory plan.
#include "TestUtils.h"

#include "ember/IR/IRGen.h"
#include "ember/IROptimizer/MemoryPlan.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace ember;
using namespace ember::test;

namespace {

/// x -> relu -> relu -> relu -> out, each activation 4 KiB.
struct ChainFixture : ::testing::Test {
  Module M;
  Function *F = M.createFunction("main");
  Placeholder *x = M.createPlaceholder(Type(ElemKind::Float32, {1024}), "x");
  Placeholder *out = M.createPlaceholder(Type(ElemKind::Float32, {1024}), "out");

  void SetUp() override {
    NodeValue v = x;
    for (int i = 0; i < 3; ++i)
      v = F->createNode(NodeKind::Relu, "relu" + std::to_string(i), {v}).get()->getResult();
    ASSERT_TRUE(bool(F->createNode(NodeKind::Save, "save", {v, out})));
  }
};

std::vector<std::string> kinds(const IRFunction &IR) {
  std::vector<std::string> k;
  for (const auto &I : IR.getInstrs())
    k.push_back(I->getKindName().str());
  return k;
}

TEST_F(ChainFixture, IRGenAllocatesWritesAndFrees) {
  ASSERT_OK_AND_ASSIGN(auto IR, generateIR(*F));
  EXPECT_EQ(kinds(*IR), (std::vector<std::string>{
                            "allocactivation", "relu", "allocactivation", "relu",
                            "deallocactivation", "allocactivation", "relu", "deallocactivation",
                            "copy", "deallocactivation"}));
  EXPECT_EQ(errorOf(IR->verify()), "");
  const Instruction &relu = **std::next(IR->getInstrs().begin());
  EXPECT_EQ(relu.getOperands()[0].mode, OperandMode::Out);
  EXPECT_EQ(relu.getOperands()[1].mode, OperandMode::In);
  EXPECT_EQ(relu.getInput(0), IR->getWeightVar(x));
}

TEST_F(ChainFixture, MemoryPlanReusesDeadActivations) {
  ASSERT_OK_AND_ASSIGN(auto IR, generateIR(*F));
  ASSERT_EQ(errorOf(planMemory(*IR)), "");
  // At most two of the three 4 KiB activations are live at once.
  EXPECT_EQ(IR->activationsSize, 2 * 4096u);
  EXPECT_EQ(IR->mutableSize, 2 * 4096u);
  EXPECT_EQ(IR->constantSize, 0u);
  EXPECT_EQ(errorOf(verifyMemoryPlan(*IR)), "");
  std::string text;
  llvm::raw_string_ostream os(text);
  IR->dump(os);
  EXPECT_NE(text.find("declare {"), std::string::npos);
  EXPECT_NE(text.find("%x : float32<1024> (mutable, 4096 bytes @mutable+0)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("1 %relu0 = relu @out %relu0.alloc, @in %x"), std::string::npos) << text;
}

TEST_F(ChainFixture, PlanVerifierCatchesOverlap) {
  ASSERT_OK_AND_ASSIGN(auto IR, generateIR(*F));
  ASSERT_EQ(errorOf(planMemory(*IR)), "");
  // Put the second activation on top of the first while both are live.
  auto it = IR->getInstrs().begin();
  Instruction *first = it->get();
  std::advance(it, 2);
  (*it)->offset = first->offset;
  EXPECT_NE(errorOf(verifyMemoryPlan(*IR)).find("overlap"), std::string::npos);
}

TEST_F(ChainFixture, VerifierCatchesUseAfterDealloc) {
  ASSERT_OK_AND_ASSIGN(auto IR, generateIR(*F));
  // Move the first dealloc to the front: relu0's output is then read after being freed.
  auto &instrs = IR->getInstrs();
  auto dealloc = std::find_if(instrs.begin(), instrs.end(), [](const auto &I) {
    return I->getKind() == InstrKind::DeallocActivation;
  });
  instrs.splice(std::next(instrs.begin()), instrs, dealloc);
  EXPECT_NE(errorOf(IR->verify()).find("not live"), std::string::npos);
}

TEST(IR, VerifierTypeChecksThroughShapeRules) {
  Module M;
  Function *F = M.createFunction("main");
  Placeholder *x = M.createPlaceholder(Type(ElemKind::Float32, {2, 3}), "x");
  Placeholder *out = M.createPlaceholder(Type(ElemKind::Float32, {3, 2}), "out");
  IRFunction IR(F);
  WeightVar *wx = IR.createWeightVar(x), *wo = IR.createWeightVar(out);
  AttrList identity;
  identity.set<AttrKind::Shuffle>({0, 1}); // wrong: out is [3,2]
  IR.append(std::make_unique<Instruction>(
      InstrKind::Transpose, "t",
      llvm::ArrayRef<InstrOperand>{{wo, OperandMode::Out}, {wx, OperandMode::In}}, identity, 1));
  EXPECT_NE(errorOf(IR.verify()).find("the operands imply float32<2 x 3>"), std::string::npos);
}

TEST(IR, ProductFlopsCountTwoPerMultiplyAdd) {
  // Counted by hand from the operators' definitions: each output element of a convolution sums
  // Cin/G x KH x KW products, of a matrix product K; a transposed convolution multiplies each
  // input element by Cout/G x KH x KW taps. Other kinds count nothing.
  Module M;
  Function *F = M.createFunction("main");
  auto ph = [&](std::vector<dim_t> d, const char *name) {
    return M.createPlaceholder(Type(ElemKind::Float32, d), name);
  };
  AttrList conv;
  conv.set<AttrKind::Kernels>({3, 3})
      .set<AttrKind::Strides>({2, 2})
      .set<AttrKind::Pads>({1, 1, 1, 1})
      .set<AttrKind::Dilations>({1, 1})
      .set<AttrKind::Group>(2);
  auto c = F->createNode(NodeKind::Conv, "conv",
                         {ph({1, 8, 9, 9}, "x"), ph({6, 4, 3, 3}, "w"), ph({6}, "b")}, conv);
  auto mm = F->createNode(NodeKind::MatMul, "mm", {ph({2, 5, 7}, "a"), ph({2, 7, 3}, "bm")});
  AttrList noActivation;
  noActivation.set<AttrKind::FusedActivation>("").set<AttrKind::FusedActivationArgs>({});
  auto fc = F->createNode(NodeKind::FullyConnected, "fc",
                          {ph({4, 10}, "xf"), ph({10, 6}, "wf"), ph({6}, "bf")}, noActivation);
  AttrList ct = conv;
  ct.set<AttrKind::Group>(1).set<AttrKind::Strides>({1, 1});
  ct.set<AttrKind::OutputPadding>({0, 0});
  auto t = F->createNode(NodeKind::ConvTranspose, "ct",
                         {ph({1, 2, 4, 4}, "xt"), ph({2, 3, 3, 3}, "wt"), ph({3}, "bt")}, ct);
  auto relu = F->createNode(NodeKind::Relu, "relu", {ph({5}, "r")});
  for (auto *n : {&c, &mm, &fc, &t, &relu}) {
    ASSERT_TRUE(bool(*n)) << errorToString(n->takeError());
    Placeholder *out = M.createPlaceholder((**n)->getType(), "out_" + (**n)->getName().str());
    ASSERT_TRUE(bool(F->createNode(NodeKind::Save, "save", {(**n)->getResult(), out})));
  }
  ASSERT_OK_AND_ASSIGN(auto IR, generateIR(*F));
  std::map<std::string, int64_t> flops;
  for (const auto &I : IR->getInstrs())
    flops[I->getName().str()] += productFlops(*I);
  EXPECT_EQ(flops["conv"], 2 * (6 * 5 * 5) * (4 * 3 * 3));
  EXPECT_EQ(flops["mm"], 2 * (2 * 5 * 3) * 7);
  EXPECT_EQ(flops["fc"], 2 * (4 * 6) * 10);
  EXPECT_EQ(flops["ct"], 2 * (2 * 4 * 4) * (3 * 3 * 3));
  EXPECT_EQ(flops["relu"], 0);
}

} // namespace
