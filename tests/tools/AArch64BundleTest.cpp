// Bundles for another architecture, run: model-compiler cross-compiles for aarch64, Debian's
// cross gcc links the object into the example runner (statically, so the emulator needs no
// aarch64 root), qemu-aarch64 runs it, and its outputs are compared with the references computed
// outside ember (torch/numpy). This runs the aarch64 kernel library, with the NEON rows of the
// kernel variant table (lib/Backends/CPU/kernels/Variants.def), end to end.
// utils/install-deps.sh installs gcc-aarch64-linux-gnu and qemu-user.
#include "BundleTestUtils.h"

#include "ember/Base/Dims.h"

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
  expectTorchsProbabilities(runner, {out.path() + "/digits.weights.bin"}, kAArch64);
}

TEST_F(AArch64Bundle, WeightsObjectRunsWithNoWeightsFile) {
  // -bundle-weights=object for aarch64: the weights object is an aarch64 ELF object the cross
  // gcc links statically; the program runs under qemu with no weights file anywhere.
  TempDir out;
  compileBundle({"-model=" + kDigits, "-emit-bundle=" + out.path(), "-network-name=digits",
                 "-bundle-api=dynamic", "-bundle-weights=object", "-target=aarch64-linux-gnu",
                 "-mcpu=cortex-a72"});
  EXPECT_FALSE(llvm::sys::fs::exists(out.path() + "/digits.weights.bin"));
  std::string object = readBytes(out.path() + "/digits.weights.o");
  ASSERT_GE(object.size(), 20u);
  EXPECT_EQ(uint8_t(object[18]) | (uint8_t(object[19]) << 8), 183) << "not EM_AARCH64";
  std::string runner = out.path() + "/runner";
  buildRunner(out.path(), "digits", runner, kAArch64);
  expectTorchsProbabilities(runner, {}, kAArch64);
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

/// Bytes \p n of a fixed pseudo-random sequence (a 32-bit LCG's high bytes), as \p T.
template <typename T> std::vector<T> pseudoRandom(size_t n, uint32_t seed) {
  std::vector<T> v(n);
  for (T &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = T(uint8_t(seed >> 24));
  }
  return v;
}

TEST_F(AArch64Bundle, IntegerRowsMatchTheInterpreterBitForBit) {
  // The int8 GEMM's aarch64 rows (kernels/QuantizedIntegerVariants.def): the plain NEON tile
  // (cortex-a72) and the dot-product one (neoverse-n1 has ARMv8.2's sdot), each in a bundle run
  // under qemu, against the Interpreter on this machine. Shapes for each path of the GEMM: a
  // flat 3x3 convolution (input channels not a multiple of 4, per-channel filter zero points,
  // so column terms), a strided 1x1 one on the subsampled copy (int8 input, uint8 filter), one
  // deep enough for two blocks of k (K = 2448), a strided 3x3 one on packed im2col panels (10
  // input channels: not flat), and
  // a matrix product of 37 rows (uint8 LHS, int8 RHS); no size a multiple of a tile's.
  TempDir work;
  std::string model = work.write("integer.onnxtxt", R"(ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "integer_rows"
  node { input: "x1" input: "w1" input: "xz1" input: "wz1" output: "y1" op_type: "ConvInteger"
         attribute { name: "pads" ints: [1, 1, 1, 1] type: INTS } }
  node { input: "x2" input: "w2" input: "xz2" input: "wz2" output: "y2" op_type: "ConvInteger"
         attribute { name: "strides" ints: [2, 2] type: INTS } }
  node { input: "x3" input: "w3" output: "y3" op_type: "ConvInteger"
         attribute { name: "pads" ints: [1, 1, 1, 1] type: INTS } }
  node { input: "x4" input: "w4" input: "xz4" input: "wz4" output: "y4" op_type: "ConvInteger"
         attribute { name: "pads" ints: [1, 1, 1, 1] type: INTS }
         attribute { name: "strides" ints: [2, 2] type: INTS } }
  node { input: "a" input: "b" input: "az" input: "bz" output: "m" op_type: "MatMulInteger" }
  initializer { name: "xz1" data_type: 2 int32_data: [7] }
  initializer { name: "wz1" dims: [19] data_type: 3
                int32_data: [0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7, 8, -8, 9, -9] }
  initializer { name: "xz2" data_type: 3 int32_data: [-3] }
  initializer { name: "wz2" data_type: 2 int32_data: [130] }
  initializer { name: "xz4" data_type: 2 int32_data: [128] }
  initializer { name: "wz4" dims: [13] data_type: 3
                int32_data: [3, -3, 0, 0, 1, 2, 3, 4, -5, -6, 7, 8, -128] }
  initializer { name: "az" data_type: 2 int32_data: [5] }
  initializer { name: "bz" data_type: 3 int32_data: [-9] }
  input { name: "x1" type { tensor_type { elem_type: 2 shape { dim { dim_value: 1 } dim { dim_value: 20 } dim { dim_value: 13 } dim { dim_value: 13 } } } } }
  input { name: "w1" type { tensor_type { elem_type: 3 shape { dim { dim_value: 19 } dim { dim_value: 20 } dim { dim_value: 3 } dim { dim_value: 3 } } } } }
  input { name: "x2" type { tensor_type { elem_type: 3 shape { dim { dim_value: 1 } dim { dim_value: 16 } dim { dim_value: 11 } dim { dim_value: 11 } } } } }
  input { name: "w2" type { tensor_type { elem_type: 2 shape { dim { dim_value: 10 } dim { dim_value: 16 } dim { dim_value: 1 } dim { dim_value: 1 } } } } }
  input { name: "x3" type { tensor_type { elem_type: 2 shape { dim { dim_value: 1 } dim { dim_value: 272 } dim { dim_value: 6 } dim { dim_value: 6 } } } } }
  input { name: "w3" type { tensor_type { elem_type: 3 shape { dim { dim_value: 9 } dim { dim_value: 272 } dim { dim_value: 3 } dim { dim_value: 3 } } } } }
  input { name: "x4" type { tensor_type { elem_type: 2 shape { dim { dim_value: 1 } dim { dim_value: 10 } dim { dim_value: 9 } dim { dim_value: 9 } } } } }
  input { name: "w4" type { tensor_type { elem_type: 3 shape { dim { dim_value: 13 } dim { dim_value: 10 } dim { dim_value: 3 } dim { dim_value: 3 } } } } }
  input { name: "a" type { tensor_type { elem_type: 2 shape { dim { dim_value: 37 } dim { dim_value: 300 } } } } }
  input { name: "b" type { tensor_type { elem_type: 3 shape { dim { dim_value: 300 } dim { dim_value: 29 } } } } }
  output { name: "y1" type { tensor_type { elem_type: 6 } } }
  output { name: "y2" type { tensor_type { elem_type: 6 } } }
  output { name: "y3" type { tensor_type { elem_type: 6 } } }
  output { name: "y4" type { tensor_type { elem_type: 6 } } }
  output { name: "m" type { tensor_type { elem_type: 6 } } }
}
)");
  struct Input {
    const char *name;
    std::vector<dim_t> dims;
    bool isSigned;
  };
  std::vector<std::string> bindings;
  uint32_t seed = 1;
  for (const Input &in : {Input{"x1", {1, 20, 13, 13}, false}, Input{"w1", {19, 20, 3, 3}, true},
                          Input{"x2", {1, 16, 11, 11}, true}, Input{"w2", {10, 16, 1, 1}, false},
                          Input{"x3", {1, 272, 6, 6}, false}, Input{"w3", {9, 272, 3, 3}, true},
                          Input{"x4", {1, 10, 9, 9}, false}, Input{"w4", {13, 10, 3, 3}, true},
                          Input{"a", {37, 300}, false}, Input{"b", {300, 29}, true}}) {
    size_t n = dimsProduct(in.dims);
    std::string file = work.path() + "/" + in.name + ".npy";
    Tensor t = in.isSigned ? Tensor::fromValues<int8_t>(in.dims, pseudoRandom<int8_t>(n, ++seed))
                           : Tensor::fromValues<uint8_t>(in.dims, pseudoRandom<uint8_t>(n, ++seed));
    ASSERT_FALSE(bool(writeNpyFile(file, t)));
    bindings.push_back(std::string(in.name) + "=" + file);
  }
  std::string joined;
  for (const std::string &b : bindings)
    joined += (joined.empty() ? "" : ",") + b;
  std::string ref = work.path() + "/interpreter";
  RunResult interp = runProgram(EMBER_MODEL_RUNNER, {"-model=" + model, "-backend=Interpreter",
                                                    "-input=" + joined, "-output-dir=" + ref},
                                300);
  ASSERT_EQ(interp.exitCode, 0) << interp.describe();

  for (const auto &[cpu, row] : {std::pair<const char *, const char *>{"cortex-a72", "neon"},
                                 {"neoverse-n1", "dotprod"}}) {
    SCOPED_TRACE(row);
    std::string dir = work.path() + "/" + row;
    RunResult c = compileBundle({"-model=" + model, "-emit-bundle=" + dir, "-network-name=net",
                                 "-bundle-api=dynamic", "-target=aarch64-linux-gnu",
                                 std::string("-mcpu=") + cpu, "-dump-llvm-ir"});
    EXPECT_NE(c.out.find(std::string("@ember_integer_conv2d_") + row + "("), std::string::npos);
    EXPECT_NE(c.out.find(std::string("@ember_integer_matmul_") + row + "("), std::string::npos);
    buildRunner(dir, "net", dir + "/runner", kAArch64);
    std::vector<std::string> args = {dir + "/net.weights.bin"};
    args.insert(args.end(), bindings.begin(), bindings.end());
    args.push_back("-o");
    args.push_back(dir);
    EXPECT_SUCCESS(kAArch64.run(dir + "/runner", args, 300));
    llvm::json::Object m = readManifest(dir + "/net.json");
    int outputs = 0;
    for (const llvm::json::Value &v : *m.getArray("placeholders")) {
      const llvm::json::Object &p = *v.getAsObject();
      if (*p.getString("kind") != "output")
        continue;
      ++outputs;
      std::string name = p.getString("name")->str();
      auto want = readTensorFile(ref + "/" + name + ".npy");
      ASSERT_TRUE(bool(want)) << name;
      Tensor got = readOutput(dir, p);
      ASSERT_EQ(got.sizeInBytes(), want->sizeInBytes()) << name;
      EXPECT_EQ(std::memcmp(got.data(), want->data(), got.sizeInBytes()), 0) << name;
    }
    EXPECT_EQ(outputs, 5);
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
