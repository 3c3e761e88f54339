// Graph construction, shape rules, verifier, use lists and dumps.
#include "TestUtils.h"

#include "ember/Graph/Graph.h"

#include "llvm/Support/raw_ostream.h"

using namespace ember;
using namespace ember::test;

namespace {

AttrList convAttrs(std::vector<int64_t> kernel, std::vector<int64_t> pads) {
  AttrList a;
  a.set<AttrKind::Kernels>(kernel)
      .set<AttrKind::Strides>({1, 1})
      .set<AttrKind::Pads>(pads)
      .set<AttrKind::Dilations>({1, 1})
      .set<AttrKind::Group>(1);
  return a;
}

struct GraphFixture : ::testing::Test {
  Module M;
  Function *F = M.createFunction("main");
  Placeholder *x = M.createPlaceholder(Type(ElemKind::Float32, {1, 2, 5, 5}), "x");
};

TEST_F(GraphFixture, ConvShapeRule) {
  Constant *w = M.createConstant(Tensor(Type(ElemKind::Float32, {3, 2, 3, 3})), "w");
  Constant *b = M.createConstant(Tensor(Type(ElemKind::Float32, {3})), "b");
  ASSERT_OK_AND_ASSIGN(Node * conv, F->createNode(NodeKind::Conv, "conv", {x, w, b},
                                                  convAttrs({3, 3}, {1, 1, 1, 1})));
  EXPECT_EQ(conv->getType(), Type(ElemKind::Float32, {1, 3, 5, 5}));
  EXPECT_EQ(conv->getOperand(ops::Conv::Filter).node, w);
  EXPECT_EQ(x->getUsers().size(), 1u);
}

TEST_F(GraphFixture, ConvKernelLargerThanInputIsAnError) {
  Constant *w = M.createConstant(Tensor(Type(ElemKind::Float32, {3, 2, 7, 7})), "w");
  Constant *b = M.createConstant(Tensor(Type(ElemKind::Float32, {3})), "b");
  std::string err =
      errorOf(F->createNode(NodeKind::Conv, "conv3", {x, w, b}, convAttrs({7, 7}, {0, 0, 0, 0})));
  EXPECT_EQ(err, "kernel 7x7 larger than padded input 5x5");
}

TEST_F(GraphFixture, MissingAttributeAndWrongOperandCount) {
  EXPECT_NE(errorOf(F->createNode(NodeKind::Softmax, "s", {x})).find("missing attribute 'axis'"),
            std::string::npos);
  EXPECT_NE(errorOf(F->createNode(NodeKind::Add, "a", {x})).find("takes 2 operands"),
            std::string::npos);
}

TEST_F(GraphFixture, ElementwiseNeedsEqualTypes) {
  Placeholder *y = M.createPlaceholder(Type(ElemKind::Float32, {5}), "y");
  EXPECT_NE(errorOf(F->createNode(NodeKind::Add, "a", {x, y})).find("operand types differ"),
            std::string::npos);
}

TEST_F(GraphFixture, VerifierCatchesWrongResultType) {
  F->createNodeWithTypes(NodeKind::Relu, "bad", {x}, {Type(ElemKind::Float32, {7})});
  std::string err = errorOf(F->verify());
  EXPECT_NE(err.find("node 'bad' (Relu)"), std::string::npos) << err;
  EXPECT_NE(err.find("result types"), std::string::npos) << err;
}

TEST_F(GraphFixture, VerifierCatchesPlaceholderWrittenTwice) {
  Placeholder *out = M.createPlaceholder(x->getType(), "out");
  ASSERT_TRUE(bool(F->createNode(NodeKind::Save, "s1", {x, out})));
  ASSERT_TRUE(bool(F->createNode(NodeKind::Save, "s2", {x, out})));
  EXPECT_NE(errorOf(F->verify()).find("written twice"), std::string::npos);
}

TEST_F(GraphFixture, ReplaceAllUsesAndErase) {
  ASSERT_OK_AND_ASSIGN(Node * r1, F->createNode(NodeKind::Relu, "r1", {x}));
  ASSERT_OK_AND_ASSIGN(Node * r2, F->createNode(NodeKind::Relu, "r2", {r1}));
  ASSERT_OK_AND_ASSIGN(Node * t, F->createNode(NodeKind::Tanh, "t", {r1}));
  r1->replaceAllUsesOfWith(0, x);
  EXPECT_FALSE(r1->hasUsers());
  EXPECT_EQ(r2->getOperand(0).node, x);
  EXPECT_EQ(t->getOperand(0).node, x);
  EXPECT_EQ(x->getUsers().size(), 3u);
  F->eraseNode(r1);
  EXPECT_EQ(x->getUsers().size(), 2u);
  EXPECT_EQ(errorOf(F->verify()), "");
}

TEST_F(GraphFixture, NamesAreUniqueAndCSEHashMatchesStructure) {
  ASSERT_OK_AND_ASSIGN(Node * a, F->createNode(NodeKind::Relu, "r", {x}));
  ASSERT_OK_AND_ASSIGN(Node * b, F->createNode(NodeKind::Relu, "r", {x}));
  EXPECT_NE(a->getName(), b->getName());
  EXPECT_TRUE(a->isEqual(*b));
  EXPECT_EQ(a->hash(), b->hash());
  ASSERT_OK_AND_ASSIGN(Node * c, F->createNode(NodeKind::Sigmoid, "s", {x}));
  EXPECT_FALSE(a->isEqual(*c));
}

TEST_F(GraphFixture, TopologicalOrderPutsOperandsFirst) {
  ASSERT_OK_AND_ASSIGN(Node * r1, F->createNode(NodeKind::Relu, "r1", {x}));
  ASSERT_OK_AND_ASSIGN(Node * r2, F->createNode(NodeKind::Relu, "r2", {r1}));
  // Rewire so that creation order is no longer topological.
  ASSERT_OK_AND_ASSIGN(Node * r0, F->createNode(NodeKind::Relu, "r0", {x}));
  r1->setOperand(0, r0);
  std::vector<Node *> order = F->topologicalOrder();
  auto pos = [&](Node *n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  EXPECT_LT(pos(r0), pos(r1));
  EXPECT_LT(pos(r1), pos(r2));
}

TEST_F(GraphFixture, DumpsShowKindsTypesAttributesAndUsers) {
  ASSERT_OK_AND_ASSIGN(Node * s, F->createNode(NodeKind::Softmax, "sm", {x},
                                               AttrList().set<AttrKind::Axis>(1)));
  Placeholder *out = M.createPlaceholder(s->getType(), "out");
  ASSERT_TRUE(bool(F->createNode(NodeKind::Save, "save", {s, out})));
  std::string text, dot;
  llvm::raw_string_ostream os(text), dos(dot);
  F->dump(os);
  F->dumpDAG(dos);
  EXPECT_NE(text.find("%sm = Softmax : float32<1 x 2 x 5 x 5>"), std::string::npos) << text;
  EXPECT_NE(text.find("{ axis: 1 }"), std::string::npos) << text;
  EXPECT_NE(text.find("users: %save"), std::string::npos) << text;
  EXPECT_EQ(dot.rfind("digraph", 0), 0u);
  EXPECT_NE(dot.find("Softmax"), std::string::npos);
}

TEST(NodeTable, OperandNamesComeFromNodesDef) {
  const NodeInfo &conv = getNodeInfo(NodeKind::Conv);
  EXPECT_EQ(conv.name, "Conv");
  ASSERT_EQ(conv.operandNames.size(), 3u);
  EXPECT_EQ(conv.operandNames[ops::Conv::Filter], "Filter");
  EXPECT_EQ(unsigned(ops::Conv::NumOperands), 3u);
  EXPECT_EQ(unsigned(ops::Save::NumResults), 0u);
  EXPECT_TRUE(getNodeInfo(NodeKind::Concat).variadic);
}

} // namespace
