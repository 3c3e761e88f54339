// The ONNX importer on the .onnxtxt models in tests/models and on small broken models, and its
// lenient loading of models the ONNX checker refuses.
#include "TestUtils.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Driver/ConstantEvaluator.h"
#include "ember/Importer/CompileTimeInputs.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Importer/TensorFiles.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
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
  byFile.inputShapes["x"] = {{5, 4}, "x.npy", std::nullopt};
  ASSERT_OK_AND_ASSIGN(auto M2, loadCase("symbolic_batch", byFile));
  EXPECT_EQ(M2->getInputPlaceholders()[0]->getType().dims[0], 5u);
  ImportOptions wrongRank;
  wrongRank.inputShapes["x"] = {{5, 4, 1}, "x.npy", std::nullopt};
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

// Reshape's shape is the graph input 'shape' directly; Expand's comes from 'e' through a Concat,
// and 'e' sits after 'x' among the graph inputs; the Add after the Reshape cannot load yet.
const char *kCompileTimeInputsModel = R"(
ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "g"
  initializer { name: "one" dims: 1 data_type: 7 int64_data: 1 }
  node { name: "r" op_type: "Reshape" input: "x" input: "shape" output: "y" }
  node { name: "a" op_type: "Add" input: "y" input: "y" output: "z" }
  node { name: "cat" op_type: "Concat" input: "one" input: "e" output: "es" attribute { name: "axis" type: INT i: 0 } }
  node { name: "x2" op_type: "Expand" input: "x" input: "es" output: "w" }
  input { name: "shape" type { tensor_type { elem_type: 7 shape { dim { dim_value: 1 } } } } }
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 6 } } } } }
  input { name: "e" type { tensor_type { elem_type: 7 shape { dim { dim_value: 1 } } } } }
  output { name: "z" type { tensor_type { elem_type: 1 shape { dim { dim_value: 6 } } } } }
  output { name: "w" type { tensor_type { elem_type: 1 shape { dim { dim_value: 1 } dim { dim_value: 6 } } } } }
}
)";

TEST(Importer, ReportsEveryGraphInputNeededAtCompileTime) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", kCompileTimeInputsModel);
  for (bool evaluator : {false, true}) {
    SCOPED_TRACE(evaluator);
    auto M = loadModel(path, evaluator ? withConstantEvaluation({}) : ImportOptions());
    ASSERT_FALSE(bool(M));
    ASSERT_TRUE(M.errorIsA<CompileTimeInputsError>());
    std::vector<CompileTimeInputsError::Input> inputs;
    std::string message;
    llvm::handleAllErrors(M.takeError(), [&](const CompileTimeInputsError &e) {
      inputs = e.inputs();
      message = e.message();
    });
    ASSERT_EQ(inputs.size(), 2u);
    EXPECT_EQ(inputs[0].name, "shape");
    EXPECT_EQ(inputs[0].position, 0u);
    ASSERT_EQ(inputs[0].uses.size(), 1u);
    EXPECT_EQ(inputs[0].uses[0], path + ": node 'r' (Reshape): input 1 ('shape')");
    EXPECT_EQ(inputs[1].name, "e");
    EXPECT_EQ(inputs[1].position, 2u);
    EXPECT_NE(message.find("node 'x2' (Expand): input 1 ('es') must be a constant known at "
                           "compile time, and it is computed from graph input 'e'"),
              std::string::npos)
        << message;
  }
  // Bound, they load, and 'x' stays an input.
  ImportOptions opts = withConstantEvaluation({});
  opts.constantInputs["shape"].tensor =
      std::make_shared<const Tensor>(Tensor::fromValues<int64_t>({1}, {6}));
  opts.constantInputs["e"].tensor =
      std::make_shared<const Tensor>(Tensor::fromValues<int64_t>({1}, {6}));
  ASSERT_OK_AND_ASSIGN(auto M, loadModel(path, opts));
  ASSERT_EQ(M->getInputPlaceholders().size(), 1u);
  EXPECT_EQ(M->getInputPlaceholders()[0]->getName(), "x");
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

//===----------------------------------------------------------------------------------------===//
// Sequence and optional graph inputs and outputs: their lengths and presence fixed from the
// values given (ImportOptions::structuredInputs), their tensors placeholders of their own.
//===----------------------------------------------------------------------------------------===//

/// ys = Identity(OptionalGetElement(Optional(SequenceInsert(xs, t)))), has = OptionalHasElement
/// of that optional; xs a sequence of float tensors, t a float [2] tensor.
const char *kSequenceModel = R"(
ir_version: 8
opset_import { domain: "" version: 16 }
graph {
  name: "g"
  node { name: "ins" op_type: "SequenceInsert" input: "xs" input: "t" output: "seq" }
  node { name: "opt" op_type: "Optional" input: "seq" output: "o" }
  node { name: "has" op_type: "OptionalHasElement" input: "o" output: "has" }
  node { name: "get" op_type: "OptionalGetElement" input: "o" output: "got" }
  node { name: "id" op_type: "Identity" input: "got" output: "ys" }
  input { name: "xs" type { sequence_type { elem_type { tensor_type { elem_type: 1 } } } } }
  input { name: "t" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } } } } }
  output { name: "ys" type { sequence_type { elem_type { tensor_type { elem_type: 1 } } } } }
  output { name: "has" type { tensor_type { elem_type: 9 shape { } } } }
}
)";

GraphValue sequenceOf(std::vector<Type> types) {
  GraphValue v;
  v.sequence = true;
  v.types = std::move(types);
  v.source = "xs.pb";
  return v;
}

TEST(ImporterSequences, SequenceInputsAndOutputsArePlaceholdersPerElement) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", kSequenceModel);
  ImportOptions opts;
  opts.structuredInputs["xs"] =
      sequenceOf({Type(ElemKind::Float32, {3}), Type(ElemKind::Float32, {1})});
  std::vector<GraphValue> outputs;
  opts.graphOutputs = [&](const std::vector<GraphValue> &v) { outputs = v; };
  ASSERT_OK_AND_ASSIGN(auto M, loadModel(path, opts));
  std::vector<std::string> inputs;
  for (const Placeholder *p : M->getInputPlaceholders())
    inputs.push_back(p->getName().str());
  EXPECT_EQ(inputs, (std::vector<std::string>{"xs[0]", "xs[1]", "t"}));
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[0].name, "ys");
  EXPECT_TRUE(outputs[0].sequence && !outputs[0].optional);
  EXPECT_EQ(outputs[0].placeholderNames(), (std::vector<std::string>{"ys[0]", "ys[1]", "ys[2]"}));
  EXPECT_EQ(outputs[0].types[2], Type(ElemKind::Float32, {2}));
  EXPECT_TRUE(outputs[1].isTensor());
  EXPECT_EQ(outputs[1].placeholderNames(), (std::vector<std::string>{"has"}));

  // The elements are run-time inputs: the values set are the values out.
  ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(M), CompileOptions()));
  ASSERT_EQ(errorOf(cm->setInput("xs[0]", Tensor::fromValues<float>({3}, {1, 2, 3}))), "");
  ASSERT_EQ(errorOf(cm->setInput("xs[1]", Tensor::fromValues<float>({1}, {4}))), "");
  ASSERT_EQ(errorOf(cm->setInput("t", Tensor::fromValues<float>({2}, {5, 6}))), "");
  ASSERT_EQ(errorOf(cm->run()), "");
  ASSERT_OK_AND_ASSIGN(Tensor last, cm->getOutput("ys[2]"));
  EXPECT_EQ(last.elementAsDouble(1), 6);
  ASSERT_OK_AND_ASSIGN(Tensor first, cm->getOutput("ys[0]"));
  EXPECT_EQ(first.elementAsDouble(2), 3);
  ASSERT_OK_AND_ASSIGN(Tensor has, cm->getOutput("has"));
  EXPECT_EQ(has.elementAsDouble(0), 1);
}

TEST(ImporterSequences, WrongOrMissingValuesAreClearErrors) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", kSequenceModel);
  EXPECT_NE(errorOf(loadModel(path)).find("input 'xs': no value is given for this input, a "
                                          "sequence: ember fixes a sequence's length at compile "
                                          "time"),
            std::string::npos);
  ImportOptions wrongKind;
  wrongKind.structuredInputs["xs"] = sequenceOf({Type(ElemKind::Int64, {3})});
  EXPECT_NE(errorOf(loadModel(path, wrongKind))
                .find("input 'xs': xs.pb holds int64<3>, the model expects float32 tensors"),
            std::string::npos);
  // A sequence given where a tensor is expected.
  ImportOptions forTensor;
  forTensor.structuredInputs["xs"] = sequenceOf({});
  forTensor.structuredInputs["t"] = sequenceOf({Type(ElemKind::Float32, {2})});
  EXPECT_NE(errorOf(loadModel(path, forTensor))
                .find("input 't': xs.pb holds a sequence of 1 tensor, the model expects a tensor"),
            std::string::npos);
  ImportOptions optional;
  optional.structuredInputs["xs"] = sequenceOf({});
  optional.structuredInputs["xs"].optional = true;
  EXPECT_NE(errorOf(loadModel(path, optional))
                .find("xs.pb holds an optional sequence of 0 tensors, the model expects a sequence"),
            std::string::npos);
}

TEST(ImporterSequences, EmptyOptionalsAndSequencesWhereTensorsGo) {
  TempDir dir;
  // OptionalHasElement of an empty optional folds to false; getting its element is an error.
  const char *emptyOptional = R"(
ir_version: 8
opset_import { domain: "" version: 16 }
graph {
  name: "g"
  node { name: "none" op_type: "Optional" output: "o" attribute { name: "type" type: TYPE_PROTO tp { tensor_type { elem_type: 1 } } } }
  node { name: "has" op_type: "OptionalHasElement" input: "o" output: "has" }
  %s
  output { name: "has" type { tensor_type { elem_type: 9 shape { } } } }
}
)";
  auto modelWith = [&](const std::string &node) {
    std::string s = emptyOptional;
    s.replace(s.find("%s"), 2, node);
    return s;
  };
  ASSERT_OK_AND_ASSIGN(auto M, loadModel(dir.write("has.onnxtxt", modelWith(""))));
  ASSERT_EQ(M->getConstants().size(), 1u);
  EXPECT_EQ(M->getConstants()[0]->getPayload().elementAsDouble(0), 0);
  EXPECT_NE(errorOf(loadModel(dir.write("get.onnxtxt",
                                        modelWith(R"(node { name: "get" op_type: "OptionalGetElement" input: "o" output: "v" })"))))
                .find("node 'get' (OptionalGetElement): input 0 ('o') is an empty optional, which "
                      "has no element to get"),
            std::string::npos);
  EXPECT_NE(errorOf(loadModel(dir.write("relu.onnxtxt",
                                        modelWith(R"(node { name: "r" op_type: "Relu" input: "o" output: "v" })"))))
                .find("node 'r' (Relu): input 0 ('o') is an empty optional, where a tensor is "
                      "expected"),
            std::string::npos);
}

} // namespace

//===----------------------------------------------------------------------------------------===//
// Lenient loading: the ONNX checker's findings that leave a model unambiguous are warnings
// (ImportOptions::warn), and errors with ImportOptions::strictONNX (-strict-onnx).
//===----------------------------------------------------------------------------------------===//

namespace {

const char *kFloat2 = "type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } } } }";

/// y = Relu(x) + w, x float [2], w = [10, 20] an initializer; each field spoils one part.
struct LenientModel {
  int irVersion = 8, opset = 13;
  std::string opsetDomain, reluDomain, metadata;
  std::string graphName = "name: \"g\"";
  std::string wInput;             ///< a graph input entry for the initializer w, if any
  std::string outputType = kFloat2;

  std::string text() const {
    return "ir_version: " + std::to_string(irVersion) + "\nopset_import { domain: \"" +
           opsetDomain + "\" version: " + std::to_string(opset) + " }\n" + metadata +
           "graph {\n  " + graphName + "\n" +
           "  node { name: \"r\" op_type: \"Relu\" domain: \"" + reluDomain +
           "\" input: \"x\" output: \"t\" }\n"
           "  node { name: \"add\" op_type: \"Add\" input: \"t\" input: \"w\" output: \"y\" }\n"
           "  initializer { name: \"w\" dims: 2 data_type: 1 float_data: 10 float_data: 20 }\n"
           "  input { name: \"x\" " + kFloat2 + " }\n" + wInput +
           "  output { name: \"y\" " + outputType + " }\n}\n";
  }
};

/// Compiles \p M for the Interpreter and runs it with x = [-1, 2]: the values of output y.
llvm::Expected<std::vector<float>> runWithX(std::unique_ptr<Module> M) {
  EMBER_ASSIGN_OR_RETURN(auto cm, CompiledModel::compile(std::move(M), CompileOptions()));
  EMBER_TRY(cm->setInput("x", Tensor::fromValues<float>({2}, {-1, 2})));
  EMBER_TRY(cm->run());
  EMBER_ASSIGN_OR_RETURN(Tensor y, cm->getOutput("y"));
  auto v = y.values<float>();
  return std::vector<float>(v.begin(), v.end());
}

struct LenientCase {
  const char *name;
  std::string model;
  std::vector<std::string> warnings; ///< a part of each expected warning, in order
  std::string strictError;           ///< the checker's finding under -strict-onnx
  std::vector<float> want = {10, 22};
};

std::vector<LenientCase> lenientCases() {
  std::vector<LenientCase> cases;
  LenientModel m;
  m.graphName = "";
  cases.push_back({"unnamed graph", m.text(),
                   {"ONNX checker finding tolerated: graph without a name: the main graph "
                    "(ember does not use graph names; -strict-onnx refuses it)"},
                   "invalid ONNX model: Field 'name' of 'graph' is required to be non-empty."});
  m = LenientModel();
  m.outputType = "";
  cases.push_back({"output without a type", m.text(),
                   {"graph output without a complete tensor type: 'y' (an output takes the type "
                    "of the value computed for it"},
                   "Field 'type' of 'value_info' is required but missing."});
  m.outputType = "type { tensor_type { elem_type: 1 } }";
  cases.push_back({"output without a shape", m.text(),
                   {"graph output without a complete tensor type: 'y'"},
                   "Field 'shape' of 'type' is required but missing."});
  m = LenientModel();
  m.wInput = "  input { name: \"w\" }\n";
  cases.push_back({"initializer input without a type", m.text(),
                   {"graph input without a complete tensor type: 'w' (the input is an "
                    "initializer and takes the initializer's type"},
                   "Field 'type' of 'value_info' is required but missing."});
  m = LenientModel();
  m.irVersion = 3;
  m.opset = 7;
  cases.push_back({"IR 3 initializer not an input", m.text(),
                   {"initializer not listed among its graph's inputs, as IR version 3 requires: "
                    "'w' (IR version 4 dropped that rule"},
                   "w in initializer but not in graph input"});
  m = LenientModel();
  m.irVersion = 10;
  cases.push_back({"IR version newer than the checker's", m.text(),
                   {"IR version newer than this ONNX checker knows: ir_version 10, checked by "
                    "the rules of IR version 8"},
                   "Your model ir_version is higher than the checker's."});
  m = LenientModel();
  m.opsetDomain = "ai.onnx";
  m.reluDomain = "ai.onnx";
  cases.push_back({"default domain spelled ai.onnx", m.text(),
                   {"the default operator domain spelled 'ai.onnx': opset_import, node 'r' (Relu) "
                    "(ONNX names the default domain both '' and 'ai.onnx'"},
                   "No Op registered for Relu with domain_version of 13"});
  m = LenientModel();
  m.metadata = "metadata_props { key: \"a\" value: \"1\" }\n"
               "metadata_props { key: \"a\" value: \"2\" }\n"
               "metadata_props { key: \"a\" value: \"3\" }\n";
  cases.push_back({"duplicate metadata key", m.text(),
                   {"duplicate key in metadata_props: 'a' (ember does not read metadata"},
                   "Your model has duplicate keys in metadata_props."});
  // Two findings in a subgraph: an unnamed If branch holding an initializer it does not list as
  // an input (IR version 3). The If picks then_branch: y = x + k.
  cases.push_back({"subgraph findings", std::string(R"(ir_version: 3
opset_import { domain: "" version: 7 }
graph {
  name: "g"
  initializer { name: "c" data_type: 9 int32_data: 1 }
  node { name: "if" op_type: "If" input: "c" output: "y"
    attribute { name: "then_branch" type: GRAPH g {
      initializer { name: "k" dims: 2 data_type: 1 float_data: 11 float_data: 20 }
      node { name: "a" op_type: "Add" input: "x" input: "k" output: "ty" }
      output { name: "ty" )") + kFloat2 + R"( } } }
    attribute { name: "else_branch" type: GRAPH g { name: "e"
      node { name: "n" op_type: "Neg" input: "x" output: "ey" }
      output { name: "ey" )" + kFloat2 + R"( } } } }
  input { name: "x" )" + kFloat2 + R"( }
  input { name: "c" type { tensor_type { elem_type: 9 shape { } } } }
  output { name: "y" )" + kFloat2 + R"( }
}
)",
                   {"graph without a name: graph 'then_branch' of node 'if' (If) (",
                    "initializer not listed among its graph's inputs, as IR version 3 requires: "
                    "'k' in graph 'then_branch' of node 'if' (If) ("},
                   "Field 'name' of 'graph' is required to be non-empty. (Bad node spec for node. "
                   "Name: if OpType: If)"});
  return cases;
}

TEST(ImporterLenient, FindingsAreWarningsAndStrictONNXRefusesThem) {
  for (const LenientCase &c : lenientCases()) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    std::string path = dir.write("m.onnxtxt", c.model);
    ImportOptions lenient;
    std::vector<std::string> warnings;
    lenient.warn = [&](const std::string &w) { warnings.push_back(w); };
    ASSERT_OK_AND_ASSIGN(auto M, loadModel(path, lenient));
    ASSERT_EQ(warnings.size(), c.warnings.size()) << (warnings.empty() ? "" : warnings[0]);
    for (size_t i = 0; i < warnings.size(); ++i) {
      EXPECT_EQ(warnings[i].rfind(path + ": ONNX checker finding tolerated: ", 0), 0u)
          << warnings[i];
      EXPECT_NE(warnings[i].find(c.warnings[i]), std::string::npos) << warnings[i];
      EXPECT_NE(warnings[i].find("-strict-onnx refuses it)"), std::string::npos) << warnings[i];
    }
    ASSERT_OK_AND_ASSIGN(std::vector<float> y, runWithX(std::move(M)));
    EXPECT_EQ(y, c.want);

    ImportOptions strict;
    strict.strictONNX = true;
    strict.warn = lenient.warn;
    warnings.clear();
    std::string err = errorOf(loadModel(path, strict));
    EXPECT_EQ(err.rfind(path + ": invalid ONNX model: ", 0), 0u) << err;
    EXPECT_NE(err.find(c.strictError), std::string::npos) << err;
    EXPECT_TRUE(warnings.empty());
  }
}

// Opsets past the linked checker's 17: the checker still checks every node whose operator kept
// its signature, the importer's loaders check the rest, and -strict-onnx names what the
// checker could not check.
TEST(ImporterOpsets, NewerOpsetsLoadAndTheCheckerChecksWhatItKnows) {
  TempDir dir;
  LenientModel m;
  m.opset = 26; // Relu and Add are unchanged since opset 14
  std::string path = dir.write("m26.onnxtxt", m.text());
  ImportOptions strict;
  strict.strictONNX = true;
  std::vector<std::string> warnings;
  strict.warn = [&](const std::string &w) { warnings.push_back(w); };
  ASSERT_OK_AND_ASSIGN(auto M, loadModel(path, strict));
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  ASSERT_OK_AND_ASSIGN(std::vector<float> y, runWithX(std::move(M)));
  EXPECT_EQ(y, (std::vector<float>{10, 22}));

  m.opset = 27;
  EXPECT_NE(errorOf(loadModel(dir.write("m27.onnxtxt", m.text())))
                .find("opset 27 is newer than the newest supported (26)"),
            std::string::npos);

  // ReduceMean-18 takes its axes as an input, which the opset-17 checker would refuse.
  auto reduceModel = [](const std::string &reluAttr) {
    return R"(
ir_version: 8
opset_import { domain: "" version: 18 }
graph {
  name: "g"
  node { name: "r" op_type: "Relu" input: "x" output: "t" )" + reluAttr + R"( }
  node { name: "m" op_type: "ReduceMean" input: "t" input: "axes" output: "y" }
  initializer { name: "axes" dims: 1 data_type: 7 int64_data: 1 }
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
  output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 1 } } } } }
}
)";
  };
  path = dir.write("reduce.onnxtxt", reduceModel(""));
  warnings.clear();
  ASSERT_OK_AND_ASSIGN(M, loadModel(path, strict));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("not checked by the ONNX checker, which knows opsets up to 17 (the "
                             "model's is 18): 1 node(s) of operators changed since, checked by "
                             "ember's loaders only: node 'm' (ReduceMean)"),
            std::string::npos)
      << warnings[0];
  ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(M), CompileOptions()));
  ASSERT_EQ(errorOf(cm->setInput("x", Tensor::fromValues<float>({2, 3}, {1, -2, 5, 3, 3, -9}))), "");
  ASSERT_EQ(errorOf(cm->run()), "");
  ASSERT_OK_AND_ASSIGN(Tensor out, cm->getOutput("y"));
  EXPECT_EQ(std::vector<float>(out.values<float>().begin(), out.values<float>().end()),
            (std::vector<float>{2, 2})); // mean(relu([1, -2, 5])), mean(relu([3, 3, -9]))

  // The nodes the checker knows are still checked, in the same model.
  path = dir.write("bad.onnxtxt",
                   reduceModel(R"(attribute { name: "alpha" type: FLOAT f: 1 })"));
  std::string err = errorOf(loadModel(path));
  EXPECT_NE(err.find("invalid ONNX model: Unrecognized attribute: alpha for operator Relu"),
            std::string::npos)
      << err;
}

// Truly malformed models stay refused without -strict-onnx, tolerated findings or not; no
// warning is given for a model that is refused.
TEST(ImporterLenient, MalformedModelsAreStillRefused) {
  struct Bad {
    const char *name;
    std::string model, error;
  };
  std::vector<Bad> bads;
  LenientModel m;
  m.graphName = ""; // tolerated, but the model is refused for what follows anyway
  std::string base = m.text();
  auto edit = [&](const std::string &from, const std::string &to) {
    std::string s = base;
    size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? s : s.replace(at, from.size(), to);
  };
  bads.push_back({"input nothing produces",
                  edit("input: \"t\" input: \"w\"", "input: \"t\" input: \"ghost\""),
                  "input 'ghost' of node: name: add OpType: Add is not output of any previous "
                  "nodes"});
  bads.push_back({"not a DAG", edit("input: \"x\" output: \"t\"", "input: \"y\" output: \"t\""),
                  "input 'y' of node: name: r OpType: Relu is not output of any previous nodes"});
  bads.push_back({"output name defined twice", edit("output: \"y\" }", "output: \"t\" }"),
                  "'t' has been used as output names multiple times"});
  bads.push_back({"unknown element type",
                  edit("data_type: 1 float_data", "data_type: 99 float_data"),
                  "Unrecognized data_type (tensor name: w): 99"});
  // (An attribute of the wrong type: AttributeOfWrongTypeIsAnError above.)
  bads.push_back({"attribute the operator does not have",
                  edit("output: \"t\" }",
                       "output: \"t\" attribute { name: \"alpha\" type: FLOAT f: 1 } }"),
                  "Unrecognized attribute: alpha for operator Relu (Bad node spec for node. "
                  "Name: r OpType: Relu)"});
  bads.push_back({"input without a type that is no initializer",
                  edit(std::string("input { name: \"x\" ") + kFloat2, "input { name: \"x\""),
                  "Field 'type' of 'value_info' is required but missing."});
  bads.push_back({"default domain at two opsets",
                  edit("version: 13 }",
                       "version: 13 }\nopset_import { domain: \"ai.onnx\" version: 11 }"),
                  "the default domain is imported twice, at opsets 13 and 11"});
  for (const Bad &b : bads) {
    SCOPED_TRACE(b.name);
    TempDir dir;
    std::string path = dir.write("m.onnxtxt", b.model);
    ImportOptions lenient;
    std::vector<std::string> warnings;
    lenient.warn = [&](const std::string &w) { warnings.push_back(w); };
    std::string err = errorOf(loadModel(path, lenient));
    EXPECT_EQ(err.rfind(path + ": ", 0), 0u) << err;
    EXPECT_NE(err.find(b.error), std::string::npos) << err;
    EXPECT_TRUE(warnings.empty()) << warnings[0];
  }
}

} // namespace

namespace {

/// Writes \p hex's bytes to a file of the test's own and returns its path.
std::string writeHexFile(const std::string &name, llvm::StringRef hex) {
  std::string path = "/tmp/ember_importer_test_" + name + ".pb";
  std::string bytes = llvm::fromHex(hex);
  std::FILE *f = std::fopen(path.c_str(), "wb");
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  return path;
}

} // namespace

// TensorProtos of the narrow kinds, serialized by the venv's onnx (numpy_helper.from_array and
// helper.make_tensor with raw=False): int4 and uint4 packed two per byte, low nibble first, in
// raw_data and in int32_data; float8 one element (its bits) per int32.
TEST(TensorFiles, NarrowKindsReadAsONNXWritesThem) {
  struct Case {
    const char *name, *hex;
    ElemKind kind;
    std::vector<double> values;
  } cases[] = {
      {"int4_raw", "080510164201714a03f87003", ElemKind::Int4, {-8, -1, 0, 7, 3}},
      {"int4_int32", "080510162a04f8017003420171", ElemKind::Int4, {-8, -1, 0, 7, 3}},
      {"uint4_int32", "0802080210152a03f10149420175", ElemKind::UInt4, {1, 15, 9, 4}},
      {"f8e5m2_int32", "080310132a043cc0017b420166", ElemKind::Float8E5M2, {1, -2, 57344}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    auto t = readTensorFile(writeHexFile(c.name, c.hex));
    ASSERT_TRUE(bool(t)) << errorToString(t.takeError());
    ASSERT_EQ(t->getType().kind, c.kind);
    ASSERT_EQ(t->numElements(), c.values.size());
    for (size_t i = 0; i < c.values.size(); ++i)
      EXPECT_EQ(t->elementAsDouble(i), c.values[i]);
  }
  // Written back, an int4 tensor is ONNX's packed raw_data (the bytes numpy_helper writes).
  auto t = readTensorFile(writeHexFile("int4_int32", "080510162a04f8017003420171"));
  ASSERT_TRUE(bool(t));
  std::string out = "/tmp/ember_importer_test_int4_out.pb";
  ASSERT_FALSE(writeONNXTensorFile(out, *t, "q"));
  auto bytes = llvm::MemoryBuffer::getFile(out);
  ASSERT_TRUE(bool(bytes));
  EXPECT_EQ(llvm::toHex((*bytes)->getBuffer(), /*LowerCase=*/true), "080510164201714a03f87003");
  auto back = readTensorFile(out);
  ASSERT_TRUE(bool(back));
  EXPECT_TRUE(back->bitwiseEqual(*t));
  // Packed data of the wrong size is an error, not a crash: 5 int4 need 3 bytes.
  auto bad = readTensorFile(writeHexFile("int4_short", "080510164201714a02f870"));
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(errorToString(bad.takeError()).find("needs 3"), std::string::npos);
}

// Initializers of the narrow kinds load (onnx 1.12's checker, which refuses their data types,
// checks a copy where they are bytes): int4 packed in int32_data, float8 one per int32.
TEST(Importer, NarrowKindInitializers) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", R"(
ir_version: 10
opset_import { domain: "" version: 21 }
graph {
  name: "g"
  initializer { name: "q" dims: 3 data_type: 22 int32_data: 120 int32_data: 1 }
  initializer { name: "f" dims: 2 data_type: 17 int32_data: 56 int32_data: 254 }
  node { name: "cq" op_type: "Cast" input: "q" output: "y" attribute { name: "to" type: INT i: 1 } }
  node { name: "cf" op_type: "Cast" input: "f" output: "z" attribute { name: "to" type: INT i: 1 } }
  output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 3 } } } } }
  output { name: "z" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } } } } }
}
)");
  ASSERT_OK_AND_ASSIGN(auto M, loadModel(path));
  std::map<ElemKind, std::vector<double>> values;
  for (const auto &c : M->getConstants())
    for (size_t i = 0; i < c->getPayload().numElements(); ++i)
      values[c->getPayload().getType().kind].push_back(c->getPayload().elementAsDouble(i));
  EXPECT_EQ(values[ElemKind::Int4], (std::vector<double>{-8, 7, 1}));
  EXPECT_EQ(values[ElemKind::Float8E4M3FN], (std::vector<double>{1, -448}));
}
