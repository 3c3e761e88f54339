// The core cleanup passes: constant-fold, cse, simplify-arithmetic, remove-noops and
// sink-transposes. Each test checks the rewritten structure and, through expectSameResults, that
// the Interpreter computes the same outputs as with DCE alone.
#include "PassTestUtils.h"

#include "ember/Optimizer/GraphOptimizer.h"

#include <cmath>
#include <functional>
#include <limits>

using namespace ember;
using namespace ember::test;

namespace {

//===------------------------------------------------------------------------------------------===//
// Writing small ONNX text models.
//===------------------------------------------------------------------------------------------===//

enum OnnxType { kFloat = 1, kInt32 = 6, kInt64 = 7 };

std::string dimsText(const std::vector<int64_t> &dims) {
  std::string s;
  for (int64_t d : dims)
    s += " dims: " + std::to_string(d);
  return s;
}

/// A graph input or output.
std::string valueInfo(const std::string &name, const std::vector<int64_t> &dims, int type = kFloat) {
  std::string s = "{ name: \"" + name + "\" type { tensor_type { elem_type: " +
                  std::to_string(type) + " shape {";
  for (int64_t d : dims)
    s += " dim { dim_value: " + std::to_string(d) + " }";
  return s + " } } } }";
}

/// A node; \p attrs is attribute text ("attribute { ... }").
std::string node(const std::string &op, const std::vector<std::string> &in,
                 const std::vector<std::string> &out, const std::string &attrs = "") {
  std::string s = "  node { op_type: \"" + op + "\"";
  for (const auto &i : in)
    s += " input: \"" + i + "\"";
  for (const auto &o : out)
    s += " output: \"" + o + "\"";
  return s + " " + attrs + " }\n";
}

/// A float initializer (a Constant).
std::string floats(const std::string &name, const std::vector<int64_t> &dims,
                   const std::vector<float> &values) {
  std::string s = "  initializer { name: \"" + name + "\"" + dimsText(dims) + " data_type: 1";
  for (float v : values) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    s += std::string(" float_data: ") + (std::isnan(v) ? "nan" : buf);
  }
  return s + " }\n";
}

std::string ints(const std::string &name, const std::vector<int64_t> &dims,
                 const std::vector<int64_t> &values, int type = kInt64) {
  std::string s = "  initializer { name: \"" + name + "\"" + dimsText(dims) +
                  " data_type: " + std::to_string(type);
  for (int64_t v : values)
    s += (type == kInt64 ? " int64_data: " : " int32_data: ") + std::to_string(v);
  return s + " }\n";
}

std::vector<float> filled(size_t n, float v) { return std::vector<float>(n, v); }
std::vector<float> iota(size_t n, float start = 0.5f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = start + float(i) * 0.25f;
  return v;
}

std::string model(const std::string &body, const std::vector<std::string> &inputs,
                  const std::vector<std::string> &outputs) {
  std::string s = "ir_version: 8\nopset_import { domain: \"\" version: 13 }\ngraph {\n  name: \"g\"\n";
  s += body;
  for (const auto &i : inputs)
    s += "  input " + i + "\n";
  for (const auto &o : outputs)
    s += "  output " + o + "\n";
  return s + "}\n";
}

/// The node of kind \p kind in \p F (the first one), or null.
const Node *findKind(const Function &F, NodeKind kind) {
  for (const auto &n : F.getNodes())
    if (n->getKind() == kind)
      return n.get();
  return nullptr;
}

//===------------------------------------------------------------------------------------------===//
// Graphs built node by node, for no-ops the importer never emits itself.
//===------------------------------------------------------------------------------------------===//

using GraphBuilder = std::function<llvm::Error(Module &, Function &)>;

llvm::Expected<PipelineRun> runBuilt(const GraphBuilder &build, std::vector<std::string> pipeline) {
  auto M = std::make_unique<Module>();
  Function *F = M->createFunction(kMainFunctionName);
  EMBER_TRY(build(*M, *F));
  CompileOptions co;
  co.verifyEach = true;
  co.pipeline = std::move(pipeline);
  PipelineRun run;
  EMBER_ASSIGN_OR_RETURN(run.model, CompiledModel::compile(std::move(M), co));
  fillInputs(*run.model, 1);
  EMBER_TRY(run.model->run());
  for (Placeholder *p : run.model->getOutputs()) {
    EMBER_ASSIGN_OR_RETURN(Tensor t, run.model->getOutput(p->getName()));
    run.outputs.push_back(std::move(t));
  }
  return std::move(run);
}

llvm::Expected<PipelineRun> expectSameResultsBuilt(const GraphBuilder &build,
                                                   std::vector<std::string> pipeline) {
  EMBER_ASSIGN_OR_RETURN(PipelineRun reference, runBuilt(build, {"dce"}));
  EMBER_ASSIGN_OR_RETURN(PipelineRun optimized, runBuilt(build, std::move(pipeline)));
  EXPECT_EQ(reference.outputs.size(), optimized.outputs.size());
  for (size_t i = 0; i < reference.outputs.size() && i < optimized.outputs.size(); ++i)
    EXPECT_EQ(tools::compareTensors(optimized.outputs[i], reference.outputs[i], {1e-6, 1e-5}), "")
        << "output " << i;
  return std::move(optimized);
}

/// Creates \p kind on \p operands (result type from the shape rule).
llvm::Expected<NodeValue> make(Function &F, NodeKind kind, llvm::ArrayRef<NodeValue> operands,
                               AttrList attrs = {}) {
  EMBER_ASSIGN_OR_RETURN(Node * n, F.createNode(kind, nodeKindName(kind), operands, attrs));
  return n->getResult();
}

llvm::Error save(Module &M, Function &F, NodeValue v, const std::string &name) {
  Placeholder *out = M.createPlaceholder(v.getType(), name);
  return F.createNode(NodeKind::Save, "save_" + name, {v, out}).takeError();
}

/// Loads \p text and runs the pass \p name on it with \p ctx; returns whether it changed.
struct DirectRun {
  std::unique_ptr<Module> module;
  Function *F = nullptr;
  bool changed = false;
};
llvm::Expected<DirectRun> runPassDirectly(const std::string &text, const std::string &name,
                                          const PassContext &ctx) {
  TempDir dir;
  std::string path = dir.write("m.onnxtxt", text);
  DirectRun r;
  EMBER_ASSIGN_OR_RETURN(r.module, loadModel(path, withConstantEvaluation({})));
  r.F = r.module->getFunction(kMainFunctionName);
  r.changed = findGraphPass(name)->run(*r.F, ctx);
  EMBER_TRY(r.F->verify());
  return std::move(r);
}

const std::string x23 = valueInfo("x", {2, 3});
const std::string y23 = valueInfo("y", {2, 3});

//===------------------------------------------------------------------------------------------===//
// constant-fold
//===------------------------------------------------------------------------------------------===//

TEST(ConstantFold, SeedModelBecomesASaveOfAConstant) {
  // The walkthrough: with the default pipeline only the Save of a folded Constant is left.
  ASSERT_OK_AND_ASSIGN(auto M, loadModel(sourcePath("tests/models/const_add/model.onnxtxt"),
                                         withConstantEvaluation({})));
  CompileOptions co;
  co.verifyEach = true;
  ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(M), co));
  const Function &F = cm->getFunction();
  EXPECT_EQ(kindCounts(F), (std::map<std::string, int>{{"Save", 1}}));
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F.getNodes()[0]->getOperand(0).node->getKind(), NodeKind::Constant);
  ASSERT_FALSE(bool(cm->run()));
  ASSERT_OK_AND_ASSIGN(Tensor sum, cm->getOutput("sum"));
  Tensor want = Tensor::fromValues<float>({3}, {51.7f, 14.4f, 28.6f});
  EXPECT_EQ(tools::compareTensors(sum, want, {1e-6, 1e-6}), "");
}

TEST(ConstantFold, FoldsAConstantChainFeedingAComputation) {
  std::string body = floats("a", {2, 3}, iota(6)) + floats("b", {2, 3}, iota(6, -1.0f)) +
                     floats("c", {3}, {2.0f, -1.0f, 0.5f}) +
                     node("Add", {"a", "b"}, {"ab"}) + node("Mul", {"ab", "c"}, {"abc"}) +
                     node("Relu", {"abc"}, {"r"}) + node("Add", {"x", "r"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResults(model(body, {x23}, {y23}), {"constant-fold", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Mul"], 0);
  EXPECT_EQ(counts["Relu"], 0);
  EXPECT_EQ(counts["Broadcast"], 0);
  EXPECT_EQ(counts["Add"], 1); // x + folded
}

TEST(ConstantFold, EvaluatesOnlyTheFrontier) {
  // A chain of 40 constant Adds read by two computations: two evaluations, not 40.
  std::string body = floats("c0", {2, 3}, iota(6)) + floats("one", {2, 3}, filled(6, 1.0f));
  for (int i = 1; i <= 40; ++i)
    body += node("Add", {"c" + std::to_string(i - 1), "one"}, {"c" + std::to_string(i)});
  body += node("Mul", {"x", "c40"}, {"m"}) + node("Add", {"m", "c20"}, {"y"});
  std::string text = model(body, {x23}, {y23});
  unsigned evaluations = 0;
  PassContext ctx;
  ctx.evaluateConstant = [&](NodeValue v) {
    ++evaluations;
    return evaluateConstant(v);
  };
  ASSERT_OK_AND_ASSIGN(DirectRun r, runPassDirectly(text, "constant-fold", ctx));
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(evaluations, 2u);
  const Node *mul = findKind(*r.F, NodeKind::Mul);
  ASSERT_TRUE(mul);
  EXPECT_EQ(mul->getOperand(1).node->getKind(), NodeKind::Constant);
  // And the values are right.
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, {"constant-fold", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Add"], 1);
}

TEST(ConstantFold, DoesNothingWithoutAnEvaluator) {
  std::string body = floats("a", {2, 3}, iota(6)) + node("Relu", {"a"}, {"r"}) +
                     node("Add", {"x", "r"}, {"y"});
  ASSERT_OK_AND_ASSIGN(DirectRun r, runPassDirectly(model(body, {x23}, {y23}), "constant-fold",
                                                    PassContext()));
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(findKind(*r.F, NodeKind::Relu));
}

TEST(ConstantFold, KeepsLargeBroadcastsButFoldsSmallOnes) {
  // Expanding a scalar to 256 x 256 floats (256 KiB from 4 bytes) stays a Broadcast; a
  // transpose of a 256 KiB constant (no growth) and a small broadcast fold.
  std::vector<float> big = iota(256 * 256, -3.0f);
  std::string body = floats("s", {}, {1.5f}) + ints("shape", {2}, {256, 256}) +
                     floats("w", {256, 256}, big) + floats("v", {1, 256}, iota(256)) +
                     node("Expand", {"s", "shape"}, {"e"}) +
                     node("Transpose", {"w"}, {"wt"}, intsAttr("perm", {1, 0})) +
                     node("Add", {"x", "e"}, {"xe"}) + node("Add", {"xe", "wt"}, {"xw"}) +
                     node("Mul", {"xw", "v"}, {"y"});
  std::string text = model(body, {valueInfo("x", {256, 256})}, {valueInfo("y", {256, 256})});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, {"constant-fold", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Transpose"], 0);
  // The scalar's Broadcast stays; v's [1, 256] -> [256, 256] (1 KiB -> 256 KiB) stays too.
  EXPECT_EQ(counts["Broadcast"], 2);

  std::string small = floats("v", {1, 3}, {1.0f, 2.0f, 3.0f}) + node("Mul", {"x", "v"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run2,
                       expectSameResults(model(small, {x23}, {y23}), {"constant-fold", "dce"}));
  EXPECT_EQ(kindCounts(run2.graph())["Broadcast"], 0);
}

TEST(ConstantFold, FoldsAllResultsOfAMultiResultNode) {
  std::string body = floats("a", {2, 3}, {3.0f, 1.0f, 2.0f, -1.0f, 5.0f, 4.0f}) +
                     ints("k", {1}, {3}) +
                     node("TopK", {"a", "k"}, {"vals", "idx"}, "attribute { name: \"axis\" type: INT i: 1 }") +
                     node("Cast", {"idx"}, {"fidx"}, "attribute { name: \"to\" type: INT i: 1 }") +
                     node("Add", {"x", "vals"}, {"xv"}) + node("Mul", {"xv", "fidx"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResults(model(body, {x23}, {y23}), {"constant-fold", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["TopK"], 0);
  EXPECT_EQ(counts["Cast"], 0);
}

TEST(ConstantFold, LeavesWhatCannotBeEvaluatedButFoldsItsInputs) {
  // An integer division by zero fails at evaluation: the Div stays (the error shows at run
  // time, as without folding), the Add feeding it still folds.
  std::string body = ints("a", {3}, {1, 2, 3}, kInt32) + ints("b", {3}, {4, 5, 6}, kInt32) +
                     ints("z", {3}, {0, 1, 0}, kInt32) + node("Add", {"a", "b"}, {"ab"}) +
                     node("Div", {"ab", "z"}, {"q"}) + node("Add", {"x", "q"}, {"y"});
  std::string text = model(body, {valueInfo("x", {3}, kInt32)}, {valueInfo("y", {3}, kInt32)});
  PassContext ctx;
  ctx.evaluateConstant = evaluateConstant;
  ASSERT_OK_AND_ASSIGN(DirectRun r, runPassDirectly(text, "constant-fold", ctx));
  EXPECT_TRUE(r.changed);
  const Node *div = findKind(*r.F, NodeKind::Div);
  ASSERT_TRUE(div);
  EXPECT_EQ(div->getOperand(0).node->getKind(), NodeKind::Constant);
}

//===------------------------------------------------------------------------------------------===//
// cse
//===------------------------------------------------------------------------------------------===//

TEST(CSE, MergesEqualConstantsAndThenTheirUsers) {
  std::string body = floats("w1", {2, 3}, iota(6)) + floats("w2", {2, 3}, iota(6)) +
                     node("Mul", {"x", "w1"}, {"m1"}) + node("Mul", {"x", "w2"}, {"m2"}) +
                     node("Sub", {"m1", "m2"}, {"d"}) + node("Add", {"d", "m1"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResults(model(body, {x23}, {y23}), {"cse", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Mul"], 1);
  const Node *sub = findKind(run.graph(), NodeKind::Sub);
  ASSERT_TRUE(sub);
  EXPECT_EQ(sub->getOperand(0), sub->getOperand(1));
}

TEST(CSE, MergesChainsAndMultiResultNodes) {
  std::string body = ints("k", {1}, {2}) + node("Relu", {"x"}, {"r1"}) +
                     node("Relu", {"x"}, {"r2"}) + node("Sigmoid", {"r1"}, {"s1"}) +
                     node("Sigmoid", {"r2"}, {"s2"}) + node("Mul", {"s1", "s2"}, {"p"}) +
                     node("TopK", {"p", "k"}, {"v1", "i1"}) + node("TopK", {"p", "k"}, {"v2", "i2"}) +
                     node("Add", {"v1", "v2"}, {"y"}) + node("Add", {"i1", "i2"}, {"z"});
  std::string text =
      model(body, {x23}, {valueInfo("y", {2, 2}), valueInfo("z", {2, 2}, kInt64)});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, {"cse", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Relu"], 1);
  EXPECT_EQ(counts["Sigmoid"], 1);
  EXPECT_EQ(counts["TopK"], 1);
}

TEST(CSE, KeepsNodesThatDiffer) {
  // Different attributes, different constant contents, constants of equal bytes but other dims.
  std::string body = floats("w1", {2, 3}, iota(6)) + floats("w2", {2, 3}, iota(6, 1.0f)) +
                     floats("c1", {1, 3}, {1.0f, 2.0f, 3.0f}) + floats("c2", {3}, {1.0f, 2.0f, 3.0f}) +
                     node("LeakyRelu", {"x"}, {"l1"}, floatAttr("alpha", 0.1f)) +
                     node("LeakyRelu", {"x"}, {"l2"}, floatAttr("alpha", 0.2f)) +
                     node("Mul", {"l1", "w1"}, {"m1"}) + node("Mul", {"l2", "w2"}, {"m2"}) +
                     node("Add", {"m1", "c1"}, {"a1"}) + node("Add", {"m2", "c2"}, {"a2"}) +
                     node("Sub", {"a1", "a2"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResults(model(body, {x23}, {y23}), {"cse", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["LeakyRelu"], 2);
  EXPECT_EQ(counts["Mul"], 2);
  EXPECT_EQ(counts["Broadcast"], 2);
}

TEST(CSE, NeverMergesSaves) {
  std::string body = node("Relu", {"x"}, {"y"}) + node("Relu", {"x"}, {"z"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResults(model(body, {x23}, {y23, valueInfo("z", {2, 3})}),
                                         {"cse", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Relu"], 1);
  EXPECT_EQ(counts["Save"], 2);
}

//===------------------------------------------------------------------------------------------===//
// simplify-arithmetic
//===------------------------------------------------------------------------------------------===//

TEST(SimplifyArithmetic, RemovesAdditiveAndMultiplicativeIdentities) {
  std::string body = floats("zero", {}, {0.0f}) + floats("zeros", {2, 3}, filled(6, 0.0f)) +
                     floats("nzero", {3}, filled(3, -0.0f)) + floats("one", {1}, {1.0f}) +
                     floats("ones", {2, 3}, filled(6, 1.0f)) + node("Add", {"x", "zero"}, {"a"}) +
                     node("Add", {"zeros", "a"}, {"b"}) + node("Sub", {"b", "nzero"}, {"c"}) +
                     node("Mul", {"c", "one"}, {"d"}) + node("Mul", {"ones", "d"}, {"e"}) +
                     node("Div", {"e", "ones"}, {"f"}) + node("Relu", {"f"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(model(body, {x23}, {y23}),
                                                          {"simplify-arithmetic", "dce"}));
  EXPECT_EQ(kindCounts(run.graph()), (std::map<std::string, int>{{"Relu", 1}, {"Save", 1}}));
}

TEST(SimplifyArithmetic, WorksOnIntegersAndThroughBroadcasts) {
  std::string body = ints("one", {}, {1}, kInt32) + ints("zero", {2, 3}, {0, 0, 0, 0, 0, 0}, kInt32) +
                     node("Mul", {"x", "one"}, {"a"}) + node("Div", {"a", "one"}, {"b"}) +
                     node("Add", {"b", "zero"}, {"y"});
  // x is [3]: x + zeros[2, 3] is the Broadcast of x.
  std::string text = model(body, {valueInfo("x", {3}, kInt32)}, {valueInfo("y", {2, 3}, kInt32)});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, {"simplify-arithmetic", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Mul"], 0);
  EXPECT_EQ(counts["Div"], 0);
  EXPECT_EQ(counts["Add"], 0);
  EXPECT_EQ(counts["Broadcast"], 1);
}

TEST(SimplifyArithmetic, SquaresAreProducts) {
  // Pow(x, 2) on floats becomes x * x (a scalar exponent, or one broadcast); Pow(x, 3), Pow(x,
  // 2.5) and an integer Pow(n, 2) stay. The optimized graph's result is checked against the
  // square computed here, and the unoptimized one's (libm's pow) within a tolerance.
  std::string body = floats("two", {}, {2.0f}) + floats("twos", {2, 3}, filled(6, 2.0f)) +
                     floats("three", {}, {3.0f}) + floats("half", {}, {2.5f}) +
                     node("Pow", {"x", "two"}, {"a"}) + node("Pow", {"x", "twos"}, {"b"}) +
                     node("Pow", {"x", "three"}, {"c"}) + node("Pow", {"x", "half"}, {"d"}) +
                     node("Abs", {"a"}, {"p"}) + node("Sum", {"p", "b"}, {"y"}) +
                     node("Sum", {"c", "d"}, {"z"});
  std::string text = model(body, {x23}, {y23, valueInfo("z", {2, 3})});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, {"simplify-arithmetic", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Pow"], 2);
  EXPECT_EQ(counts["Mul"], 2);
  ASSERT_EQ(run.inputs.size(), 1u);
  const Tensor &x = run.inputs[0];
  for (size_t i = 0; i < x.numElements(); ++i) {
    volatile float square = x.values<float>()[i] * x.values<float>()[i]; // not fused into an FMA
    EXPECT_EQ(run.outputs[0].values<float>()[i], square + square) << "element " << i;
  }
  std::string intText =
      model(ints("k", {}, {2}, kInt32) + node("Pow", {"n", "k"}, {"m"}),
            {valueInfo("n", {2, 3}, kInt32)}, {valueInfo("m", {2, 3}, kInt32)});
  ASSERT_OK_AND_ASSIGN(PipelineRun intRun,
                       expectSameResults(intText, {"simplify-arithmetic", "dce"}));
  EXPECT_EQ(kindCounts(intRun.graph())["Pow"], 1);
}

TEST(SimplifyArithmetic, KeepsNearMisses) {
  // x * 0, 0 - x, 1 / x, x + 1, x * [1, 1, 2], x * NaN, x - x: none is an identity.
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::string body = floats("zero", {}, {0.0f}) + floats("one", {}, {1.0f}) +
                     floats("almost", {3}, {1.0f, 1.0f, 2.0f}) + floats("nan", {}, {nan}) +
                     node("Mul", {"x", "zero"}, {"a"}) + node("Sub", {"zero", "x"}, {"b"}) +
                     node("Div", {"one", "x"}, {"c"}) + node("Add", {"x", "one"}, {"d"}) +
                     node("Mul", {"x", "almost"}, {"e"}) + node("Mul", {"x", "nan"}, {"n"}) +
                     node("Sub", {"x", "x"}, {"f"}) + node("Sum", {"a", "b", "c", "d", "e", "f"}, {"s"}) +
                     node("Add", {"s", "n"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(model(body, {x23}, {y23}),
                                                          {"simplify-arithmetic", "dce"}));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Mul"], 3);
  EXPECT_EQ(counts["Div"], 1);
  EXPECT_EQ(counts["Sub"], 2);
}

//===------------------------------------------------------------------------------------------===//
// remove-noops
//===------------------------------------------------------------------------------------------===//

TEST(RemoveNoOps, CancelsAndMergesTransposePairs) {
  std::string body = node("Transpose", {"x"}, {"t1"}, intsAttr("perm", {1, 0, 2})) +
                     node("Transpose", {"t1"}, {"t2"}, intsAttr("perm", {1, 0, 2})) +
                     node("Transpose", {"t2"}, {"t3"}, intsAttr("perm", {1, 2, 0})) +
                     node("Transpose", {"t3"}, {"y"}, intsAttr("perm", {1, 2, 0}));
  std::string text = model(body, {valueInfo("x", {2, 3, 4})}, {valueInfo("y", {4, 2, 3})});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, {"remove-noops", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Transpose"], 1);
  const Node *t = findKind(run.graph(), NodeKind::Transpose);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->attr<AttrKind::Shuffle>(), (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(t->getOperand(0).node->getKind(), NodeKind::Placeholder);
}

TEST(RemoveNoOps, MergesReshapeAndBroadcastChains) {
  // Flatten -> Reshape -> Reshape back to x's dims: nothing left; Relu then Reshape -> Reshape.
  std::string body = ints("s1", {1}, {24}) + ints("s2", {2}, {6, 4}) + ints("s3", {3}, {2, 3, 4}) +
         node("Flatten", {"x"}, {"f"}, "attribute { name: \"axis\" type: INT i: 2 }") +
         node("Reshape", {"f", "s1"}, {"r1"}) + node("Reshape", {"r1", "s3"}, {"r2"}) +
         node("Relu", {"r2"}, {"a"}) + node("Reshape", {"a", "s1"}, {"r3"}) +
         node("Reshape", {"r3", "s2"}, {"y"});
  std::string text = model(body, {valueInfo("x", {2, 3, 4})}, {valueInfo("y", {6, 4})});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, {"remove-noops", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Reshape"], 1);
  EXPECT_EQ(findKind(run.graph(), NodeKind::Relu)->getOperand(0).node->getKind(),
            NodeKind::Placeholder);

  std::string bc = ints("e1", {2}, {2, 3}) + ints("e2", {3}, {4, 2, 3}) +
                   node("Expand", {"x", "e1"}, {"b1"}) + node("Expand", {"b1", "e2"}, {"y"});
  ASSERT_OK_AND_ASSIGN(PipelineRun run2,
                       expectSameResults(model(bc, {valueInfo("x", {3})}, {valueInfo("y", {4, 2, 3})}),
                                         {"remove-noops", "dce"}));
  EXPECT_EQ(kindCounts(run2.graph())["Broadcast"], 1);
}

/// x [2, 3, 4] through every kind of no-op (or, with \p nearMiss, a near miss of each), then a
/// Relu.
GraphBuilder noOpChain(bool nearMiss) {
  using Ints = std::vector<int64_t>;
  return [nearMiss](Module &M, Function &F) -> llvm::Error {
    NodeValue v = M.createPlaceholder(Type(ElemKind::Float32, {2, 3, 4}), "x")->getResult();
    auto step = [&](NodeKind kind, AttrList attrs, std::vector<NodeValue> extra = {}) -> llvm::Error {
      std::vector<NodeValue> ops{v};
      ops.insert(ops.end(), extra.begin(), extra.end());
      EMBER_ASSIGN_OR_RETURN(v, make(F, kind, ops, std::move(attrs)));
      return llvm::Error::success();
    };
    auto dims = [](Ints d) { return AttrList().set<AttrKind::Dims>(std::move(d)); };
    if (nearMiss) {
      EMBER_TRY(step(NodeKind::Reshape, dims({2, 4, 3})));
      EMBER_TRY(step(NodeKind::Transpose, AttrList().set<AttrKind::Shuffle>(Ints{0, 2, 1})));
      EMBER_TRY(step(NodeKind::Broadcast, dims({2, 2, 3, 4})));
      EMBER_TRY(step(NodeKind::Slice, AttrList()
                                          .set<AttrKind::Starts>(Ints{0, 0, 0, 3})
                                          .set<AttrKind::Steps>(Ints{1, 1, 1, -1})
                                          .set<AttrKind::Dims>(Ints{2, 2, 3, 4})));
    } else {
      EMBER_TRY(step(NodeKind::Reshape, dims({2, 3, 4})));
      EMBER_TRY(step(NodeKind::Reshape, dims({2, 3, 4})));
      EMBER_TRY(step(NodeKind::Transpose, AttrList().set<AttrKind::Shuffle>(Ints{0, 1, 2})));
      EMBER_TRY(step(NodeKind::Broadcast, dims({2, 3, 4})));
      EMBER_TRY(step(NodeKind::Slice, AttrList()
                                          .set<AttrKind::Starts>(Ints{0, 0, 0})
                                          .set<AttrKind::Steps>(Ints{1, 1, 1})
                                          .set<AttrKind::Dims>(Ints{2, 3, 4})));
    }
    Constant *padValue = M.createConstant(Tensor::fromValues<float>({}, {0.0f}), "pad_value");
    Ints pads(2 * v.getType().rank(), 0);
    pads[1] = nearMiss ? 1 : 0;
    EMBER_TRY(step(NodeKind::Pad,
                   AttrList().set<AttrKind::Pads>(pads).set<AttrKind::Mode>(std::string("reflect")),
                   {padValue->getResult()}));
    EMBER_TRY(step(NodeKind::Cast, AttrList().set<AttrKind::ResultKind>(
                                       std::string(nearMiss ? "float16" : "float32"))));
    if (nearMiss) {
      EMBER_ASSIGN_OR_RETURN(v, make(F, NodeKind::Concat, {v, v}, AttrList().set<AttrKind::Axis>(0)));
    } else {
      EMBER_TRY(step(NodeKind::Concat, AttrList().set<AttrKind::Axis>(0)));
    }
    EMBER_TRY(step(NodeKind::Relu, AttrList()));
    return save(M, F, v, "y");
  };
}

TEST(RemoveNoOps, RemovesEveryKindOfNoOp) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResultsBuilt(noOpChain(false), {"remove-noops", "dce"}));
  EXPECT_EQ(kindCounts(run.graph()), (std::map<std::string, int>{{"Relu", 1}, {"Save", 1}}));
}

TEST(RemoveNoOps, KeepsNearMisses) {
  ASSERT_OK_AND_ASSIGN(PipelineRun run,
                       expectSameResultsBuilt(noOpChain(true), {"remove-noops", "dce"}));
  auto counts = kindCounts(run.graph());
  for (const char *k : {"Reshape", "Transpose", "Broadcast", "Slice", "Pad", "Cast", "Concat", "Relu"})
    EXPECT_EQ(counts[k], 1) << k;
}

//===------------------------------------------------------------------------------------------===//
// sink-transposes
//===------------------------------------------------------------------------------------------===//

const std::vector<std::string> kSinkPipeline = {"sink-transposes", "remove-noops", "dce"};

TEST(SinkTransposes, PairsMeetThroughUnaryOpsAndCancel) {
  std::string body = floats("lo", {}, {-0.5f}) + floats("hi", {}, {0.75f}) +
                     node("Transpose", {"x"}, {"t"}, intsAttr("perm", {0, 2, 3, 1})) +
                     node("Relu", {"t"}, {"a"}) + node("Sigmoid", {"a"}, {"b"}) +
                     node("Clip", {"b", "lo", "hi"}, {"c"}) + node("Cast", {"c"}, {"d"}, "attribute { name: \"to\" type: INT i: 10 }") +
                     node("Cast", {"d"}, {"e"}, "attribute { name: \"to\" type: INT i: 1 }") +
                     node("Transpose", {"e"}, {"y"}, intsAttr("perm", {0, 3, 1, 2}));
  std::string text = model(body, {valueInfo("x", {1, 2, 3, 4})}, {valueInfo("y", {1, 2, 3, 4})});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, kSinkPipeline));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Transpose"], 0);
  EXPECT_EQ(counts["Relu"], 1);
  EXPECT_EQ(counts["Clip"], 1);
}

TEST(SinkTransposes, MovesBelowBinaryOpsWithConstantsOrEqualTransposes) {
  // T(x) * T(z) + W + 2, compared and selected, then T^-1: W is transposed instead, the
  // scalar's Broadcasts redone, and no transpose is left.
  std::string body = floats("w", {3, 4, 2}, iota(24, -2.0f)) + floats("two", {}, {2.0f}) +
                     node("Transpose", {"x"}, {"tx"}, intsAttr("perm", {1, 2, 0})) +
                     node("Transpose", {"z"}, {"tz"}, intsAttr("perm", {1, 2, 0})) +
                     node("Mul", {"tx", "tz"}, {"m"}) + node("Add", {"m", "w"}, {"a"}) +
                     node("Add", {"two", "a"}, {"b"}) + node("Greater", {"b", "w"}, {"g"}) +
                     node("Where", {"g", "w", "two"}, {"s"}) +
                     node("Transpose", {"s"}, {"y"}, intsAttr("perm", {2, 0, 1}));
  std::string text = model(body, {valueInfo("x", {2, 3, 4}), valueInfo("z", {2, 3, 4})},
                           {valueInfo("y", {2, 3, 4})});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, kSinkPipeline));
  auto counts = kindCounts(run.graph());
  EXPECT_EQ(counts["Transpose"], 0);
  EXPECT_EQ(counts["Where"], 1);
}

TEST(SinkTransposes, FoldsTransposesOfConstants) {
  std::string body = floats("w", {3, 4}, iota(12)) +
                     node("Transpose", {"w"}, {"wt"}, intsAttr("perm", {1, 0})) +
                     node("MatMul", {"x", "wt"}, {"y"});
  std::string text = model(body, {valueInfo("x", {2, 4})}, {valueInfo("y", {2, 3})});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, {"sink-transposes", "dce"}));
  EXPECT_EQ(kindCounts(run.graph())["Transpose"], 0);
}

TEST(SinkTransposes, LeavesSharedMismatchedOrBlockedTransposes) {
  // t1 has two users; t2 meets a non-constant operand; t3 and t4 differ; Softmax is not
  // element-wise. Nothing moves.
  std::string body =
      node("Transpose", {"x"}, {"t1"}, intsAttr("perm", {1, 0, 2})) + node("Relu", {"t1"}, {"a"}) +
      node("Sigmoid", {"t1"}, {"b"}) + node("Transpose", {"x"}, {"t2"}, intsAttr("perm", {2, 1, 0})) +
      node("Add", {"t2", "z"}, {"c"}) + node("Transpose", {"x"}, {"t3"}, intsAttr("perm", {0, 2, 1})) +
      node("Transpose", {"z"}, {"t4"}, intsAttr("perm", {2, 1, 0})) + node("Mul", {"t3", "t4"}, {"d"}) +
      node("Transpose", {"z"}, {"t5"}, intsAttr("perm", {1, 0, 2})) +
      node("Softmax", {"t5"}, {"e"}, "attribute { name: \"axis\" type: INT i: 2 }") +
      node("Sum", {"a", "b", "c", "d", "e"}, {"y"});
  std::string text = model(body, {valueInfo("x", {3, 3, 3}), valueInfo("z", {3, 3, 3})},
                           {valueInfo("y", {3, 3, 3})});
  ASSERT_OK_AND_ASSIGN(PipelineRun run, expectSameResults(text, kSinkPipeline));
  EXPECT_EQ(kindCounts(run.graph())["Transpose"], 5);
  for (const auto &n : run.graph().getNodes())
    if (n->getKind() == NodeKind::Transpose) {
      EXPECT_EQ(n->getOperand(0).node->getKind(), NodeKind::Placeholder) << n->getName().str();
    }
}

} // namespace
