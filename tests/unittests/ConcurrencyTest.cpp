// One compiled model run from several threads at once, each thread with an ExecutionContext of
// its own: every run gives exactly the outputs the same input gives run alone, on every
// backend (the OpenCL backend's runs take turns on its device). Built with
// EMBER_SANITIZE=thread (utils/test.sh --sanitize=thread) it also shows that the runs share no
// unguarded state, and (the JIT's code instrumented too) that the kernels' threads of
// -threads=2 hand their work over in order. Bundles called from several threads:
// BundleConcurrencyTest.
#include "TestUtils.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"
#include "ember/Importer/TensorFiles.h"

#include <thread>

using namespace ember;
using namespace ember::test;

namespace {

constexpr int kThreads = 4, kRunsPerThread = 6;

/// A model with one input and one output, and ten inputs to run it on.
struct Runs {
  std::string model, input, output;
  std::vector<Tensor> inputs;
};

/// The digits example on its ten test digits.
Runs digits() {
  Runs r{"examples/models/digits_cnn.onnx", "image", "probabilities", {}};
  for (int d = 0; d < 10; ++d) {
    auto image = readTensorFile(
        sourcePath("examples/digits/images/digit_" + std::to_string(d) + ".npy"));
    EXPECT_TRUE(bool(image)) << errorOf(image.takeError());
    r.inputs.push_back(image ? std::move(*image) : Tensor());
  }
  return r;
}

/// tests/models/conv_threaded, whose convolutions -threads=2 splits over the team (the digits'
/// are too small to split), on its input scaled by ten factors.
Runs convThreaded() {
  Runs r{"tests/models/conv_threaded/model.onnx", "x", "y", {}};
  auto x = readTensorFile(sourcePath("tests/models/conv_threaded/test_data_set_0/input_0.pb"));
  EXPECT_TRUE(bool(x)) << errorOf(x.takeError());
  for (int d = 0; d < 10 && x; ++d) {
    Tensor t = x->clone();
    for (size_t i = 0; i < t.numElements(); ++i)
      t.dataAs<float>()[i] *= 0.25f * float(d - 4);
    r.inputs.push_back(std::move(t));
  }
  return r;
}

void expectConcurrentRunsAgree(const Runs &runs, const std::string &backend,
                               unsigned kernelThreads) {
  ASSERT_OK_AND_ASSIGN(auto module, loadModel(sourcePath(runs.model)));
  CompileOptions opts;
  opts.backend = backend;
  opts.backendOptions.threads = kernelThreads;
  ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(module), opts));

  // The reference: each input run alone, on the model's own context.
  ASSERT_EQ(runs.inputs.size(), 10u);
  const std::vector<Tensor> &images = runs.inputs;
  std::vector<Tensor> alone;
  for (const Tensor &image : images) {
    ASSERT_EQ(errorOf(cm->setInput(runs.input, image)), "");
    ASSERT_EQ(errorOf(cm->run()), "");
    ASSERT_OK_AND_ASSIGN(Tensor out, cm->getOutput(runs.output));
    alone.push_back(std::move(out));
  }

  // Each thread runs its own sequence of digits (so concurrent runs have different inputs).
  std::vector<std::unique_ptr<ExecutionContext>> contexts;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_OK_AND_ASSIGN(auto c, cm->createContext());
    contexts.push_back(std::move(c));
  }
  std::vector<std::string> problems(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      ExecutionContext &c = *contexts[t];
      for (int r = 0; r < kRunsPerThread && problems[t].empty(); ++r) {
        int d = (t * 3 + r * 7) % 10;
        std::string e = errorOf(c.setInput(runs.input, images[d]));
        if (e.empty())
          e = errorOf(c.run());
        auto out = c.getOutput(runs.output);
        if (!out)
          e = errorOf(std::move(out));
        else if (!out->bitwiseEqual(alone[d]))
          e = "input " + std::to_string(d) + " differs from its run alone";
        if (!e.empty())
          problems[t] = "thread " + std::to_string(t) + ", run " + std::to_string(r) + ": " + e;
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (const std::string &p : problems)
    EXPECT_EQ(p, "");
}

TEST(Concurrency, ContextsRunAtOnceLikeAlone) {
  for (const std::string &backend : getBackendNames()) {
    SCOPED_TRACE(backend);
    expectConcurrentRunsAgree(digits(), backend, 1);
  }
}

TEST(Concurrency, ThreadedKernelsInConcurrentContexts) {
  // -threads=2: one run at a time on the compiled function's team, the others each on a team
  // of their own, their convolutions split over it.
  expectConcurrentRunsAgree(convThreaded(), "CPU", 2);
}

TEST(Concurrency, ContextsAreZeroedAndIndependent) {
  ASSERT_OK_AND_ASSIGN(auto module, loadModel(sourcePath("examples/models/digits_cnn.onnx")));
  ASSERT_OK_AND_ASSIGN(auto cm, CompiledModel::compile(std::move(module), CompileOptions()));
  ASSERT_OK_AND_ASSIGN(auto a, cm->createContext());
  ASSERT_OK_AND_ASSIGN(auto b, cm->createContext());
  ASSERT_OK_AND_ASSIGN(Tensor image,
                       readTensorFile(sourcePath("examples/digits/images/digit_5.npy")));
  ASSERT_EQ(errorOf(a->setInput("image", image)), "");
  ASSERT_OK_AND_ASSIGN(Tensor inB, b->getOutput("image"));
  for (float v : inB.values<float>())
    ASSERT_EQ(v, 0.f); // b's input is untouched by a's
  EXPECT_NE(errorOf(a->setInput("nonexistent", image)), "");
}

} // namespace
