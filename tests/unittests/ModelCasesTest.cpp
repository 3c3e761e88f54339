// Every model case in tests/models (expected outputs from numpy/torch, see utils/models/) and the
// shipped digits example, run on the Interpreter.
#include "TestUtils.h"

#include "../../tools/common/ModelTestCase.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Importer/TensorFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>

using namespace ember;
using namespace ember::test;

namespace {

std::vector<std::string> caseDirs() {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(sourcePath("tests/models"), ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::fs::is_directory(it->path() + "/test_data_set_0"))
      dirs.push_back(it->path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

class ModelCase : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelCase, InterpreterMatchesReference) {
  tools::CaseResult r = tools::runModelTestCase(GetParam(), "Interpreter", {1e-5, 1e-4});
  EXPECT_EQ(r.status, tools::CaseResult::Pass) << r.detail;
}

INSTANTIATE_TEST_SUITE_P(Models, ModelCase, ::testing::ValuesIn(caseDirs()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return llvm::sys::path::filename(info.param).str();
                         });

TEST(ModelCases, FoundAll) { EXPECT_GE(caseDirs().size(), 38u); }

// The seed walkthrough: torch's nn.Linear(10,5) + Sigmoid, to 1e-5 of torch's own output.
TEST(ModelCases, LinearSigmoidMatchesTorch) {
  tools::CaseResult r =
      tools::runModelTestCase(sourcePath("tests/models/linear_sigmoid"), "Interpreter", {1e-5, 0});
  EXPECT_EQ(r.status, tools::CaseResult::Pass) << r.detail;
  EXPECT_LE(r.maxAbsErr, 1e-5);
}

// The shipped example: every test digit gives torch's probabilities and the right label.
TEST(ModelCases, DigitsExampleMatchesTorch) {
  ASSERT_OK_AND_ASSIGN(auto module, loadModel(sourcePath("examples/models/digits_cnn.onnx")));
  ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(module), CompileOptions()));
  for (int digit = 0; digit < 10; ++digit) {
    std::string base = sourcePath("examples/digits/images/digit_" + std::to_string(digit));
    ASSERT_OK_AND_ASSIGN(Tensor image, readTensorFile(base + ".npy"));
    ASSERT_OK_AND_ASSIGN(Tensor want, readTensorFile(base + ".expected.npy"));
    ASSERT_FALSE(bool(cm->setInput("image", image)));
    ASSERT_FALSE(bool(cm->run()));
    ASSERT_OK_AND_ASSIGN(Tensor got, cm->getOutput("probabilities"));
    double err = 0;
    EXPECT_EQ(tools::compareTensors(got, want, {1e-5, 1e-4}, &err), "") << "digit " << digit;
    auto probs = got.values<float>();
    EXPECT_EQ(std::max_element(probs.begin(), probs.end()) - probs.begin(), digit);
  }
}

} // namespace
