// Control flow decided at run time (If, Loop, Scan as IR regions) on every backend: one compile
// of a model whose If picks either branch gives both branches' answers; a Loop past its
// -max-loop-iterations bound fails at run time with a clear error; the IR verifier refuses
// badly nested regions. The model cases tests/models/cf_*_runtime*, cf_loop_static_long and
// cf_scan_long (ModelCasesTest, BundleTest) check the results against numpy.
#include "TestUtils.h"

#include "ember/Backends/Backend.h"
#include "ember/Driver/CompiledModel.h"
#include "ember/Driver/ConstantEvaluator.h"
#include "ember/IR/IR.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Importer/TensorFiles.h"

#include <cmath>

using namespace ember;
using namespace ember::test;

namespace {

std::string caseFile(const std::string &caseName, const std::string &file) {
  return sourcePath("tests/models/" + caseName + "/" + file);
}

Tensor readCaseTensor(const std::string &caseName, const std::string &file) {
  auto t = readTensorFile(caseFile(caseName, "test_data_set_0/" + file));
  EXPECT_TRUE(bool(t)) << caseName << "/" << file;
  return t ? std::move(*t) : Tensor();
}

double maxAbsDiff(const Tensor &a, const Tensor &b) {
  if (a.getType() != b.getType())
    return INFINITY;
  double worst = 0;
  for (size_t i = 0; i < a.numElements(); ++i)
    worst = std::max(worst, std::fabs(a.elementAsDouble(i) - b.elementAsDouble(i)));
  return worst;
}

TEST(ControlFlow, RuntimeIfGivesBothBranchesFromOneCompile) {
  // The two cases are one model with the data of either branch; the expected outputs come
  // from numpy (utils/models/make_import_test_models.py).
  for (const std::string &backend : getBackendNames()) {
    SCOPED_TRACE(backend);
    ASSERT_OK_AND_ASSIGN(auto module,
                         loadModel(caseFile("cf_if_runtime_then", "model.onnxtxt"),
                                   withConstantEvaluation(ImportOptions())));
    CompileOptions opts;
    opts.backend = backend;
    ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(module), opts));
    for (const char *branch : {"cf_if_runtime_then", "cf_if_runtime_else", "cf_if_runtime_then"}) {
      SCOPED_TRACE(branch);
      ASSERT_EQ(errorOf(cm->setInput("x", readCaseTensor(branch, "input_0.pb"))), "");
      ASSERT_EQ(errorOf(cm->setInput("flag", readCaseTensor(branch, "input_1.pb"))), "");
      ASSERT_EQ(errorOf(cm->run()), "");
      ASSERT_OK_AND_ASSIGN(Tensor z, cm->getOutput("z"));
      EXPECT_LE(maxAbsDiff(z, readCaseTensor(branch, "output_0.pb")), 1e-6);
    }
  }
}

TEST(ControlFlow, LoopPastItsBoundFailsAtRunTime) {
  // cf_loop_runtime_count's trip count and condition are run-time inputs; its data runs about
  // ten iterations, more than a bound of 3.
  const std::string c = "cf_loop_runtime_count";
  for (const std::string &backend : getBackendNames()) {
    SCOPED_TRACE(backend);
    ImportOptions io;
    io.maxLoopIterations = 3;
    ASSERT_OK_AND_ASSIGN(auto module, loadModel(caseFile(c, "model.onnxtxt"),
                                                withConstantEvaluation(io)));
    CompileOptions opts;
    opts.backend = backend;
    ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(module), opts));
    const char *inputs[] = {"M", "cond", "acc0", "x", "limit"};
    for (unsigned i = 0; i < 5; ++i)
      ASSERT_EQ(errorOf(cm->setInput(inputs[i],
                                     readCaseTensor(c, "input_" + std::to_string(i) + ".pb"))),
                "");
    std::string error = errorOf(cm->run());
    EXPECT_NE(error.find("bound of 3 iterations"), std::string::npos) << error;
    // A trip count within the bound runs: M = 2 stops the loop first.
    ASSERT_EQ(errorOf(cm->setInput("M", Tensor::fromValues<int64_t>({}, {2}))), "");
    ASSERT_EQ(errorOf(cm->run()), "");
    ASSERT_OK_AND_ASSIGN(Tensor n, cm->getOutput("n"));
    EXPECT_EQ(n.elementAsDouble(0), 2);
  }
}

TEST(ControlFlow, NegativeUnrollBoundUnrollsNoScan) {
  // cf_scan_long scans 24 steps: run as a loop in the IR its body is a function of its own,
  // unrolled it is not. A negative -unroll-loops-up-to unrolls nothing, as 0 does.
  auto functionsWith = [](int64_t unrollUpTo) -> size_t {
    ImportOptions io;
    io.unrollLoopsUpTo = unrollUpTo;
    auto module = loadModel(caseFile("cf_scan_long", "model.onnxtxt"), io);
    EXPECT_TRUE(bool(module)) << errorOf(module.takeError());
    return module ? (*module)->getFunctions().size() : 0;
  };
  size_t unrolled = functionsWith(100), asLoop = functionsWith(0);
  EXPECT_GT(asLoop, unrolled);
  EXPECT_EQ(functionsWith(-1), asLoop);
}

/// An IR function over one bool input holding \p kinds as markers, for the verifier.
std::string verifyMarkers(std::initializer_list<InstrKind> kinds) {
  Module M;
  Placeholder *flag = M.createPlaceholder(Type(ElemKind::Bool, {}), "flag");
  Function *F = M.createFunction("main");
  IRFunction IR(F);
  WeightVar *w = IR.createWeightVar(flag);
  unsigned i = 0;
  for (InstrKind k : kinds) {
    std::vector<InstrOperand> ops;
    if (k == InstrKind::IfBegin)
      ops.push_back({w, OperandMode::In});
    IR.append(std::make_unique<Instruction>(k, "m" + std::to_string(i++), ops, AttrList(), 0));
  }
  return errorOf(IR.verify());
}

TEST(ControlFlow, VerifierChecksRegionNesting) {
  using K = InstrKind;
  EXPECT_EQ(verifyMarkers({K::IfBegin, K::IfElse, K::IfEnd}), "");
  EXPECT_NE(verifyMarkers({K::IfBegin, K::IfEnd}), "");          // no else
  EXPECT_NE(verifyMarkers({K::IfElse, K::IfEnd}), "");           // no if
  EXPECT_NE(verifyMarkers({K::IfBegin, K::IfElse}), "");         // never closed
  EXPECT_NE(verifyMarkers({K::IfBegin, K::IfBegin, K::IfElse, K::IfEnd}), "");
}

} // namespace
