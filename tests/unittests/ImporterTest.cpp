// The ONNX importer on the .onnxtxt models in tests/models and on small broken models.
#include "TestUtils.h"

#include "ember/Driver/ConstantEvaluator.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Importer/TensorFiles.h"

#include <map>

using namespace ember;
using namespace ember::test;

namespace {

std::map<std::string, int> kindCounts(const Function &F) {
  std::map<std::string, int> counts;
  for (const auto &n : F.getNodes())
    counts[n->getKindName().str()]++;
  return counts;
}

llvm::Expected<std::unique_ptr<Module>> loadCase(const std::string &name, ImportOptions opts = {}) {
  return loadModel(sourcePath("tests/models/" + name + "/model.onnxtxt"), opts);
}

const char *kReluModel = R"(
ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "g"
  %s
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
  output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
}
)";

std::string withNodes(const std::string &nodes) {
  std::string s = kReluModel;
  s.replace(s.find("%s"), 2, nodes);
  return s;
}

TEST(Importer, ConstantNodesAndDeadAdd) {
  ASSERT_OK_AND_ASSIGN(auto M, loadCase("const_add"));
  Function *F = M->getFunction(kMainFunctionName);
  ASSERT_NE(F, nullptr);
  auto counts = kindCounts(*F);
  EXPECT_EQ(counts["Add"], 2); // the importer keeps the dead Add; DCE removes it
  EXPECT_EQ(counts["Save"], 1);
  EXPECT_EQ(M->getConstants().size(), 2u);
  EXPECT_TRUE(M->getInputPlaceholders().empty());
  ASSERT_EQ(M->getOutputPlaceholders().size(), 1u);
  EXPECT_EQ(M->getOutputPlaceholders()[0]->getName(), "sum");
}

TEST(Importer, ConvWithInitializers) {
  ASSERT_OK_AND_ASSIGN(auto M, loadCase("conv_basic"));
  auto counts = kindCounts(*M->getFunction(kMainFunctionName));
  EXPECT_EQ(counts["Conv"], 1);
  ASSERT_EQ(M->getInputPlaceholders().size(), 1u);
  EXPECT_EQ(M->getInputPlaceholders()[0]->getType(), Type(ElemKind::Float32, {1, 2, 5, 5}));
}

TEST(Importer, GemmWithTransposesAndScales) {
  ASSERT_OK_AND_ASSIGN(auto M, loadCase("gemm_trans"));
  auto counts = kindCounts(*M->getFunction(kMainFunctionName));
  EXPECT_EQ(counts["Transpose"], 2);
  EXPECT_EQ(counts["MatMul"], 1);
  EXPECT_EQ(counts["Mul"], 2); // alpha and beta
  EXPECT_EQ(counts["Add"], 1);
}

TEST(Importer, LegacySoftmaxCoercesTo2D) {
  ASSERT_OK_AND_ASSIGN(auto M, loadCase("softmax11"));
  auto counts = kindCounts(*M->getFunction(kMainFunctionName));
  EXPECT_EQ(counts["Reshape"], 2);
  EXPECT_EQ(counts["Softmax"], 1);
  ASSERT_OK_AND_ASSIGN(auto M13, loadCase("softmax13"));
  EXPECT_EQ(kindCounts(*M13->getFunction(kMainFunctionName))["Reshape"], 0);
}

TEST(Importer, BroadcastIsExplicit) {
  ASSERT_OK_AND_ASSIGN(auto M, loadCase("sub_broadcast"));
  auto counts = kindCounts(*M->getFunction(kMainFunctionName));
  EXPECT_EQ(counts["Broadcast"], 2); // [2,1,4] and [3,1] both grow to [2,3,4]
  EXPECT_EQ(counts["Sub"], 1);
}

TEST(Importer, SymbolicDimsBindFromSymbolsOrInputShapes) {
  std::string err = errorOf(loadCase("symbolic_batch"));
  EXPECT_NE(err.find("symbolic ('N')"), std::string::npos) << err;
  ImportOptions bySymbol;
  bySymbol.symbols["N"] = 7;
  ASSERT_OK_AND_ASSIGN(auto M, loadCase("symbolic_batch", bySymbol));
  EXPECT_EQ(M->getInputPlaceholders()[0]->getType().dims[0], 7u);
  ImportOptions byFile;
  byFile.inputShapes["x"] = {{5, 4}, "x.npy"};
  ASSERT_OK_AND_ASSIGN(auto M2, loadCase("symbolic_batch", byFile));
  EXPECT_EQ(M2->getInputPlaceholders()[0]->getType().dims[0], 5u);
  ImportOptions wrongRank;
  wrongRank.inputShapes["x"] = {{5, 4, 1}, "x.npy"};
  EXPECT_NE(errorOf(loadCase("symbolic_batch", wrongRank))
                .find("input 'x': x.npy has shape [5,4,1], the model expects [N,4]"),
            std::string::npos);
}

TEST(Importer, ListsEveryUnsupportedOperatorAtOnce) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", withNodes(R"(
    node { name: "a" op_type: "FooOp" input: "x" output: "t1" }
    node { name: "r" op_type: "Relu" input: "t1" output: "t2" }
    node { name: "b" op_type: "BarOp" input: "t2" output: "y" })"));
  std::string err = errorOf(loadModel(path));
  EXPECT_NE(err.find(path + ": unsupported operators (2)"), std::string::npos) << err;
  EXPECT_NE(err.find("node 'a' (FooOp) at opset 13"), std::string::npos) << err;
  EXPECT_NE(err.find("node 'b' (BarOp) at opset 13"), std::string::npos) << err;
}

TEST(Importer, ErrorsNameFileNodeAndOperator) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", withNodes(R"(
    node { name: "t" op_type: "Transpose" input: "x" output: "y" attribute { name: "perm" type: INTS ints: 0 ints: 0 } })"));
  std::string err = errorOf(loadModel(path));
  EXPECT_NE(err.find(path + ": node 't' (Transpose): "), std::string::npos) << err;
  EXPECT_NE(err.find("not a permutation"), std::string::npos) << err;
}

TEST(Importer, AttributeOfWrongTypeIsAnError) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", withNodes(R"(
    node { name: "s" op_type: "Softmax" input: "x" output: "y" attribute { name: "axis" type: FLOAT f: 1.0 } })"));
  std::string err = errorOf(loadModel(path));
  EXPECT_NE(err.find("Mismatched attribute type in 's : axis'"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

TEST(Importer, ReadsTensorProtoFiles) {
  std::string name;
  ASSERT_OK_AND_ASSIGN(
      Tensor t, readTensorFile(sourcePath("tests/models/conv_basic/test_data_set_0/input_0.pb"), &name));
  EXPECT_EQ(name, "x");
  EXPECT_EQ(t.getType(), Type(ElemKind::Float32, {1, 2, 5, 5}));
}

} // namespace

namespace {

// A Reshape whose shape is computed at load time (Concat of two constants), as exporters emit.
const char *kComputedShapeModel = R"(
ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "g"
  initializer { name: "rows" dims: 1 data_type: 7 int64_data: 2 }
  initializer { name: "rest" dims: 1 data_type: 7 int64_data: -1 }
  node { name: "cat" op_type: "Concat" input: "rows" input: "rest" output: "shape" attribute { name: "axis" type: INT i: 0 } }
  node { name: "r" op_type: "Reshape" input: "x" input: "shape" output: "y" }
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 3 } dim { dim_value: 2 } } } } }
  output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
}
)";

TEST(Importer, ComputedShapesFoldWhenAnEvaluatorIsGiven) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", kComputedShapeModel);
  std::string err = errorOf(loadModel(path));
  EXPECT_NE(err.find("node 'r' (Reshape): input 1 ('shape') must be a constant known at compile time"),
            std::string::npos)
      << err;
  ASSERT_OK_AND_ASSIGN(auto M, loadModel(path, withConstantEvaluation({})));
  bool sawReshape = false;
  for (const auto &n : M->getFunction(kMainFunctionName)->getNodes())
    if (n->getKind() == NodeKind::Reshape) {
      sawReshape = true;
      EXPECT_EQ(n->getType(), Type(ElemKind::Float32, {2, 3}));
    }
  EXPECT_TRUE(sawReshape);
}

TEST(Importer, InputsBoundToConstants) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", withNodes(R"(
    node { name: "r" op_type: "Relu" input: "x" output: "y" })"));
  ImportOptions opts;
  opts.constantInputs["x"].scalar = -2.5;
  ASSERT_OK_AND_ASSIGN(auto M, loadModel(path, opts));
  EXPECT_TRUE(M->getInputPlaceholders().empty());
  bool found = false;
  for (const auto &c : M->getConstants())
    if (c->getName() == "x") {
      found = true;
      EXPECT_EQ(c->getType(), Type(ElemKind::Float32, {2, 3}));
      EXPECT_EQ(c->getPayload().elementAsDouble(5), -2.5);
    }
  EXPECT_TRUE(found);
  ImportOptions wrongKind;
  wrongKind.constantInputs["x"].tensor =
      std::make_shared<const Tensor>(Tensor::fromValues<int64_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  wrongKind.constantInputs["x"].source = "x.npy";
  EXPECT_NE(errorOf(loadModel(path, wrongKind)).find("x.npy holds int64, the model expects float32"),
            std::string::npos);
  ImportOptions unknown;
  unknown.constantInputs["nosuch"].scalar = 1;
  EXPECT_NE(errorOf(loadModel(path, unknown)).find("no input named 'nosuch'"), std::string::npos);
}

} // namespace
