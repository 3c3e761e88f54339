// Bundles for another architecture, run: model-compiler cross-compiles for aarch64, Debian's
// cross gcc links the object into the example runner (statically, so the emulator needs no
// aarch64 root), qemu-aarch64 runs it, and its outputs are compared with the references computed
// outside ember (torch/numpy). This runs the aarch64 kernel library, with the NEON rows of the
// kernel variant table (lib/Backends/CPU/kernels/Variants.def), end to end.
// utils/install-deps.sh installs gcc-aarch64-linux-gnu and qemu-user.
#include "BundleTestUtils.h"

using namespace ember;
using namespace ember::bundletest;

namespace {

const Toolchain kAArch64 = {{"-target=aarch64-linux-gnu", "-mcpu=cortex-a72"},
                            "aarch64-linux-gnu-gcc",
                            {"-static"},
                            "qemu-aarch64"};

/// Whether the cross toolchain and the emulator are on PATH: without them every test here would
/// fail on a missing program instead of saying what to install.
bool haveCrossTools() {
  RunResult gcc = runProgram("aarch64-linux-gnu-gcc", {"--version"}, 30);
  RunResult qemu = runProgram("qemu-aarch64", {"-version"}, 30);
  return gcc.exitCode == 0 && qemu.exitCode == 0;
}

class AArch64Bundle : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(haveCrossTools())
        << "aarch64-linux-gnu-gcc and qemu-aarch64 are needed (utils/install-deps.sh)";
  }
};

TEST_F(AArch64Bundle, DigitsExampleGivesTorchsProbabilities) {
  TempDir out;
  compileBundle({"-model=" + kDigits, "-emit-bundle=" + out.path(), "-network-name=digits",
                 "-bundle-api=dynamic", "-target=aarch64-linux-gnu", "-mcpu=cortex-a72"});
  std::string runner = out.path() + "/runner";
  buildRunner(out.path(), "digits", runner, kAArch64);
  for (int d = 0; d < 10; ++d) {
    SCOPED_TRACE(d);
    std::string base = kSource + "/examples/digits/images/digit_" + std::to_string(d);
    TempDir result;
    RunResult r = kAArch64.run(runner,
                               {out.path() + "/digits.weights.bin", "image=" + base + ".npy",
                                "-o", result.path()},
                               120);
    EXPECT_SUCCESS(r);
    auto want = readTensorFile(base + ".expected.npy");
    ASSERT_TRUE(bool(want));
    Tensor got(want->getType());
    std::string bytes = readBytes(result.path() + "/probabilities.bin");
    ASSERT_EQ(bytes.size(), got.sizeInBytes());
    std::memcpy(got.data(), bytes.data(), bytes.size());
    EXPECT_EQ(tools::compareTensors(got, *want, {1e-5, 1e-4}), "");
  }
}

TEST_F(AArch64Bundle, ZooModelsMatchTorch) {
  // CI-sized networks of utils/zoo.sh's set (exported by the Zoo.Export fixture): convolutions
  // on the NEON GEMM tile, depthwise and pooling kernels, and a transformer's products.
  std::string zoo = std::string(EMBER_BUILD_DIR) + "/zoo/models";
  for (const std::string name : {"mobilenet_v2", "transformer_encoder"}) {
    SCOPED_TRACE(name);
    std::string dir = zoo + "/" + name;
    ASSERT_TRUE(llvm::sys::fs::exists(dir + "/test_data_set_0/output_0.pb"))
        << dir << " is not exported (utils/models/export_zoo.py)";
    TempDir work;
    EXPECT_EQ(checkCase(dir, work.path(), zooTolerance(dir), {}, kAArch64), "");
  }
}

class AArch64BundleCase : public ::testing::TestWithParam<std::string> {};

TEST_P(AArch64BundleCase, MatchesReference) {
  ASSERT_TRUE(haveCrossTools())
      << "aarch64-linux-gnu-gcc and qemu-aarch64 are needed (utils/install-deps.sh)";
  TempDir work;
  EXPECT_EQ(checkCase(GetParam(), work.path(), modelCaseTolerance(GetParam()), {}, kAArch64), "");
}

// The ONNX cases: the Caffe2 ones differ in the importer only, which the target does not touch.
INSTANTIATE_TEST_SUITE_P(Models, AArch64BundleCase, ::testing::ValuesIn(modelCaseDirs(false)),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return llvm::sys::path::filename(info.param).str();
                         });

} // namespace
