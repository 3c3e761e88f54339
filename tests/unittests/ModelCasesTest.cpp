// Every model case in tests/models (expected outputs from numpy/torch, and from onnxruntime for
// the int8 QDQ models qdq_*; see utils/models/) run on every registered backend from one source,
// so each kernel is checked on each backend; and the shipped digits example. A backend that
// refuses a case fails the test unless the case is in that backend's exclusion list below, with
// the reason.
#include "TestUtils.h"

#include "ModelTestCase.h"

#include "ember/Backends/Backend.h"
#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Importer/TensorFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdio>

using namespace ember;
using namespace ember::test;

namespace {

/// The ONNX cases in tests/models and the Caffe2 cases in tests/models/caffe2.
std::vector<std::string> caseDirs() {
  std::vector<std::string> dirs;
  for (const char *root : {"tests/models", "tests/models/caffe2"}) {
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(sourcePath(root), ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::fs::is_directory(it->path() + "/test_data_set_0"))
        dirs.push_back(it->path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

/// "caffe2_concat" for tests/models/caffe2/concat, "concat" for tests/models/concat.
std::string caseName(const std::string &dir) {
  llvm::StringRef parent = llvm::sys::path::filename(llvm::sys::path::parent_path(dir));
  std::string name = llvm::sys::path::filename(dir).str();
  return parent == "caffe2" ? "caffe2_" + name : name;
}

/// The QDQ cases' tolerance in steps of their output's quantization scale, as
/// utils/models/make_qdq_models.py writes it: ember and onnxruntime may each round an element
/// to the neighbouring level at any requantization (onnxruntime runs these models with its
/// integer kernels), one step at the last one plus what earlier ones carry to the output.
constexpr double kQDQToleranceSteps = 2;

/// A case's absolute tolerance: the number in its `tolerance` file (Caffe2 int8 cases: one
/// quantization step; QDQ cases: kQDQToleranceSteps of the output's), else 1e-5.
double caseTolerance(const std::string &dir) {
  auto buf = llvm::MemoryBuffer::getFile(dir + "/tolerance");
  double atol = 1e-5;
  if (buf && (*buf)->getBuffer().trim().getAsDouble(atol))
    atol = 1e-5;
  return atol;
}

/// Cases a backend is known not to run, each with the reason. Keep it short: an entry is a
/// missing kernel, to be removed when the kernel lands.
struct Exclusion {
  const char *backend, *caseName, *reason;
};
const Exclusion kExclusions[] = {
    // {"CPU", "some_case", "no CPU kernel for X yet"},
    {"", "", ""},
};

const char *exclusionReason(const std::string &backend, const std::string &caseName) {
  for (const Exclusion &e : kExclusions)
    if (backend == e.backend && caseName == e.caseName)
      return e.reason;
  return nullptr;
}

struct CaseParam {
  std::string backend, dir;
};

std::vector<CaseParam> casesOnEveryBackend() {
  std::vector<CaseParam> params;
  for (const std::string &backend : getBackendNames())
    for (const std::string &dir : caseDirs())
      params.push_back({backend, dir});
  return params;
}

class ModelCase : public ::testing::TestWithParam<CaseParam> {};

TEST_P(ModelCase, MatchesReference) {
  const CaseParam &p = GetParam();
  std::string name = caseName(p.dir);
  if (const char *why = exclusionReason(p.backend, name))
    GTEST_SKIP() << p.backend << " excludes " << name << ": " << why;
  tools::CaseResult r = tools::runModelTestCase(p.dir, p.backend, {caseTolerance(p.dir), 1e-4});
  EXPECT_EQ(r.status, tools::CaseResult::Pass) << r.detail;
}

INSTANTIATE_TEST_SUITE_P(Models, ModelCase, ::testing::ValuesIn(casesOnEveryBackend()),
                         [](const ::testing::TestParamInfo<CaseParam> &info) {
                           return info.param.backend + "_" + caseName(info.param.dir);
                         });

TEST(ModelCases, EveryBackendIsTested) {
  std::vector<std::string> names = getBackendNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "Interpreter"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "CPU"), names.end());
  // OpenCL is listed when a device is found; utils/install-deps.sh installs one (PoCL), so its
  // absence is a failure, with the reason.
  auto opencl = createBackend("OpenCL");
  EXPECT_TRUE(bool(opencl)) << (opencl ? "" : errorToString(opencl.takeError()));
  EXPECT_NE(std::find(names.begin(), names.end(), "OpenCL"), names.end());
}

TEST(ModelCases, FoundAll) { EXPECT_GE(caseDirs().size(), 38u); }

// The seed walkthrough: torch's nn.Linear(10,5) + Sigmoid, to 1e-5 of torch's own output.
TEST(ModelCases, LinearSigmoidMatchesTorch) {
  for (const std::string &backend : getBackendNames()) {
    SCOPED_TRACE(backend);
    tools::CaseResult r =
        tools::runModelTestCase(sourcePath("tests/models/linear_sigmoid"), backend, {1e-5, 0});
    EXPECT_EQ(r.status, tools::CaseResult::Pass) << r.detail;
    EXPECT_LE(r.maxAbsErr, 1e-5);
  }
}

// Silero VAD's front end in small (utils/models/cf_recurrent_cases.py): sums that cancel to
// ~1e-8, their error multiplied by 2^20 in a log spectrum before an LSTM. Every backend is within
// the case's tolerance of numpy's float64 states (onnxruntime's own error); the reference, and
// OpenCL's kernels that sum as it does, must be right to 1e-5: each sum rounded once (issue 43).
TEST(ModelCases, ReferenceSumsRoundOnce) {
  for (const std::string &backend : getBackendNames()) {
    if (backend == "CPU")
      continue;
    SCOPED_TRACE(backend);
    tools::CaseResult r = tools::runModelTestCase(
        sourcePath("tests/models/cf_if_nested_spectrum_lstm"), backend, {1e-5, 1e-4});
    EXPECT_EQ(r.status, tools::CaseResult::Pass) << r.detail;
  }
}

// The shipped example: every test digit gives torch's probabilities and the right label.
TEST(ModelCases, DigitsExampleMatchesTorch) {
  for (const std::string &backend : getBackendNames()) {
    SCOPED_TRACE(backend);
    ASSERT_OK_AND_ASSIGN(auto module, loadModel(sourcePath("examples/models/digits_cnn.onnx")));
    CompileOptions opts;
    opts.backend = backend;
    ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(module), opts));
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
}

// The int8 QDQ models (utils/models/make_qdq_models.py) are classifiers: besides matching
// onnxruntime's outputs to their tolerance (ModelCase above), ember must predict the class
// onnxruntime predicts. Prints the largest difference in output quantization steps.
TEST(ModelCases, QDQClassifiersPredictOnnxruntimesClass) {
  unsigned cases = 0;
  for (const std::string &dir : caseDirs()) {
    std::string name = caseName(dir);
    if (!llvm::StringRef(name).starts_with("qdq_"))
      continue;
    ++cases;
    double step = caseTolerance(dir) / kQDQToleranceSteps;
    std::string data = dir + "/test_data_set_0/", inputName, outputName;
    ASSERT_OK_AND_ASSIGN(Tensor input, readTensorFile(data + "input_0.pb", &inputName));
    ASSERT_OK_AND_ASSIGN(Tensor want, readTensorFile(data + "output_0.pb", &outputName));
    auto wantValues = want.values<float>();
    auto wantClass = std::max_element(wantValues.begin(), wantValues.end()) - wantValues.begin();
    for (const std::string &backend : getBackendNames()) {
      SCOPED_TRACE(backend + " " + name);
      ASSERT_OK_AND_ASSIGN(auto module, loadModel(dir + "/model.onnx"));
      CompileOptions opts;
      opts.backend = backend;
      ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(module), opts));
      ASSERT_FALSE(bool(cm->setInput(inputName, input)));
      ASSERT_FALSE(bool(cm->run()));
      ASSERT_OK_AND_ASSIGN(Tensor got, cm->getOutput(outputName));
      double err = 0;
      (void)tools::compareTensors(got, want, {caseTolerance(dir), 0}, &err);
      std::printf("%s on %s: max |ember - onnxruntime| = %.2f output steps\n", name.c_str(),
                  backend.c_str(), err / step);
      auto gotValues = got.values<float>();
      auto gotClass = std::max_element(gotValues.begin(), gotValues.end()) - gotValues.begin();
      EXPECT_EQ(gotClass, wantClass);
    }
  }
  EXPECT_GE(cases, 2u);
}

} // namespace
