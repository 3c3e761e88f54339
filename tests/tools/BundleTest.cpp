// End-to-end tests of bundles, as a user makes and uses them: model-compiler writes the bundle,
// the system C compiler builds a program against its header alone (examples/bundles/), the
// program runs with no ember in it, and what it writes is compared with references computed
// outside ember (numpy/torch outputs of tests/models and of the torchvision zoo). Also: the
// manifest agrees with the header and the weights, the weights come in the forms asked for (an
// object a program links instead of reading a file too), compiling twice gives identical bytes,
// cross-compiled objects are valid ELF for their target, the target's features choose the
// kernel variant, run-time errors come back as the codes the header lists, and bad options are
// refused cleanly. OpenCL bundles (-backend=OpenCL) run resnet18 and the digits example. Every
// bundle runs in regions that end at a faulting page with its constants read-only
// (bundle_check.c); concurrent calls: BundleConcurrencyTest.cpp. AArch64BundleTest.cpp runs
// aarch64 bundles under qemu.
#include "BundleTestUtils.h"
#include "TraceCheck.h"

#include <csignal>
#include <iterator>
#include <map>
#include <regex>
#include <set>

using namespace ember;
using namespace ember::bundletest;

namespace {

//===----------------------------------------------------------------------------------------===//
// Bundles of the model cases and of the zoo, against their references
//===----------------------------------------------------------------------------------------===//

class BundleCase : public ::testing::TestWithParam<std::string> {};

TEST_P(BundleCase, MatchesReference) {
  TempDir work;
  EXPECT_EQ(checkCase(GetParam(), work.path(), modelCaseTolerance(GetParam())), "");
}

INSTANTIATE_TEST_SUITE_P(Models, BundleCase, ::testing::ValuesIn(modelCaseDirs()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                           return modelCaseName(info.param);
                         });

TEST(Bundle, ZooModelsMatchTorch) {
  // The networks utils/zoo.sh checks on the JIT (exported by the Zoo.Export fixture), as
  // bundles, with zoo.sh's tolerance: atol 1e-4 of the output's largest magnitude.
  std::string zoo = std::string(EMBER_BUILD_DIR) + "/zoo/models";
  std::vector<std::string> names = {"resnet18",           "mobilenet_v2",  "squeezenet1_1",
                                    "shufflenet_v2_x1_0", "efficientnet_b0", "transformer_encoder",
                                    "resnet50",           "inception_v3",  "densenet121", "mlp"};
  for (const std::string &name : names) {
    SCOPED_TRACE(name);
    std::string dir = zoo + "/" + name;
    ASSERT_TRUE(llvm::sys::fs::exists(dir + "/test_data_set_0/output_0.pb"))
        << dir << " is not exported (utils/models/export_zoo.py --set full)";
    TempDir work;
    EXPECT_EQ(checkCase(dir, work.path(), zooTolerance(dir)), "");
  }
}

TEST(Bundle, ZooModelsAtOpset21MatchTorch) {
  // The zoo as users bring it from newer exporters: converted to opset 21 by the onnx package's
  // version converter (utils/onnx/convert_opset.py in the build tree's venv), then compiled into
  // bundles and held to the same torch outputs.
  std::string zoo = std::string(EMBER_BUILD_DIR) + "/zoo/models";
  std::string python = std::string(EMBER_BUILD_DIR) + "/venv/bin/python";
  ASSERT_TRUE(llvm::sys::fs::exists(python)) << python << " missing (utils/python-env.sh)";
  for (const char *name : {"resnet18", "mobilenet_v2_bn", "transformer_encoder"}) {
    SCOPED_TRACE(name);
    std::string dir = zoo + "/" + name;
    ASSERT_TRUE(llvm::sys::fs::exists(dir + "/test_data_set_0/output_0.pb"))
        << dir << " is not exported (utils/models/export_zoo.py --set full)";
    TempDir work, converted;
    std::string command = "'" + python + "' '" + kSource + "/utils/onnx/convert_opset.py' '" +
                          dir + "/model.onnx' '" + converted.path() + "/model.onnx' 21";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    ASSERT_FALSE(llvm::sys::fs::create_link(dir + "/test_data_set_0",
                                            converted.path() + "/test_data_set_0"));
    EXPECT_EQ(checkCase(converted.path(), work.path(), zooTolerance(dir)), "");
  }
}

TEST(Bundle, Caffe2ZooModelsMatchTorch) {
  // Caffe2 NetDefs of torchvision networks (utils/models/export_caffe2_zoo.py, the Caffe2Zoo.Export
  // fixture), given as the folder holding predict_net.pb and init_net.pb.
  std::string zoo = std::string(EMBER_BUILD_DIR) + "/zoo/caffe2";
  for (const char *name : {"resnet18", "squeezenet1_1"}) {
    SCOPED_TRACE(name);
    std::string dir = zoo + "/" + name;
    ASSERT_TRUE(llvm::sys::fs::exists(dir + "/test_data_set_0/output_0.pb"))
        << dir << " is not exported (utils/models/export_caffe2_zoo.py --set ci)";
    TempDir work, binary;
    // The folder holds the text nets too; the bundle reads the binary pair.
    for (const char *net : {"predict_net.pb", "init_net.pb", "test_data_set_0"})
      ASSERT_FALSE(llvm::sys::fs::create_link(dir + "/" + net, binary.path() + "/" + net));
    EXPECT_EQ(checkCase(binary.path(), work.path(), zooTolerance(dir)), "");
  }
}

TEST(Bundle, OpenCLBundleMatchesTorch) {
  // resnet18 compiled with -backend=OpenCL: the object carries the kernel library and the C
  // runtime, and the same runner runs it on the first OpenCL device (PoCL here).
  std::string dir = std::string(EMBER_BUILD_DIR) + "/zoo/models/resnet18";
  TempDir work;
  EXPECT_EQ(checkCase(dir, work.path(), zooTolerance(dir), {"-backend=OpenCL"}), "");
  llvm::json::Object m = readManifest(work.path() + "/bundle/net.json");
  std::vector<std::string> flags;
  for (const llvm::json::Value &f : *m.getArray("link_flags"))
    flags.push_back(f.getAsString()->str());
  EXPECT_EQ(flags, (std::vector<std::string>{"-lOpenCL", "-pthread"}));
  EXPECT_EQ(m.getBoolean("reentrant"), false);
  std::string header = readBytes(work.path() + "/bundle/net.h");
  EXPECT_NE(header.find("keeps it (heap and global state)"), std::string::npos);
}

TEST(Bundle, CheckingRunnerCatchesAccessesOutsideTheRegions) {
  // The runner the bundle tests use must fault on what it promises to catch: a stand-in for a
  // bundle's object (the digits bundle's header, an entry written here) touching one byte past
  // a region, or writing its constants.
  TempDir work;
  compileBundle({"-model=" + kDigits, "-emit-bundle=" + work.path(), "-network-name=net",
                 "-bundle-api=dynamic"});
  std::string image = "image=" + kSource + "/examples/digits/images/digit_7.npy";
  std::map<std::string, std::string> faults = {
      {"ok", "return 0;"},
      {"mutable_past_end", "m[(NET_MUTABLE_MEM_SIZE + 63) / 64 * 64] = 1; return 0;"},
      {"activations_past_end", "return a[(NET_ACTIVATIONS_MEM_SIZE + 63) / 64 * 64];"},
      {"constant_past_end", "return c[(NET_CONSTANT_MEM_SIZE + 63) / 64 * 64];"},
      {"constant_written", "c[0] = 1; return 0;"},
      {"before_mutable", "m[-4096] = 1; return 0;"}};
  for (const auto &[name, body] : faults) {
    SCOPED_TRACE(name);
    std::string fake = work.write(name + ".c", "#include \"net.h\"\n"
                                  "static const net_symbol syms[] = {{\"image\", 0, 256, 'i'}};\n"
                                  "const net_config_t net_config = {NET_CONSTANT_MEM_SIZE,\n"
                                  "  NET_MUTABLE_MEM_SIZE, NET_ACTIVATIONS_MEM_SIZE, NET_MEM_ALIGN,\n"
                                  "  1, syms};\n"
                                  "int net(uint8_t *c, uint8_t *m, uint8_t *a) {\n"
                                  "  (void)c; (void)m; (void)a;\n  " + body + "\n}\n");
    RunResult cc = runProgram("cc", {"-O0", "-I" + work.path(), "-I" + kExamples, "-DBUNDLE=net",
                                     kSource + "/tests/tools/bundle_check.c", fake, "-o",
                                     work.path() + "/" + name, "-pthread"});
    ASSERT_EQ(cc.exitCode, 0) << cc.describe();
    RunResult r = runProgram(work.path() + "/" + name, {work.path() + "/net.weights.bin", image});
    if (name == "ok")
      EXPECT_SUCCESS(r);
    else
      EXPECT_TRUE(r.signaled && r.signal == SIGSEGV) << r.describe();
  }
}

TEST(Bundle, ThreadedBundleNeedsPthreadAndMatchesTorch) {
  // -threads=2 splits resnet18's convolutions over two threads: the bundle then links -pthread
  // (and only then: the single-threaded bundles above need nothing but libc).
  std::string dir = std::string(EMBER_BUILD_DIR) + "/zoo/models/resnet18";
  TempDir work;
  EXPECT_EQ(checkCase(dir, work.path(), zooTolerance(dir), {"-threads=2"}), "");
  llvm::json::Object m = readManifest(work.path() + "/bundle/net.json");
  std::vector<std::string> flags;
  for (const llvm::json::Value &f : *m.getArray("link_flags"))
    flags.push_back(f.getAsString()->str());
  EXPECT_NE(std::find(flags.begin(), flags.end(), "-pthread"), flags.end());
  EXPECT_EQ(m.getInteger("threads"), 2);
  // The team functions: two threads at once, each making its runs on a team it keeps (its
  // workers waiting, or asleep, between runs) or on a pool of its own; every run's outputs
  // equal to those of the first (a team of its own per call).
  std::string input;
  for (const llvm::json::Value &p : *m.getArray("placeholders"))
    if (*p.getAsObject()->getString("kind") == "input")
      input = p.getAsObject()->getString("name")->str() + "=" + work.path() + "/input_0.npy";
  for (const char *mode : {"own", "pool"}) {
    SCOPED_TRACE(mode);
    RunResult r = runProgram(work.path() + "/runner",
                             {work.path() + "/bundle/net.weights.bin", input, "-t", "2", "-r",
                              "3", "-team", mode});
    EXPECT_SUCCESS(r);
    EXPECT_NE(r.out.find("2 threads x 3 runs: all equal"), std::string::npos) << r.describe();
    if (std::string(mode) == "pool") {
      EXPECT_NE(r.out.find("the pools ran "), std::string::npos) << r.describe();
      EXPECT_EQ(r.out.find("the pools ran 0 jobs"), std::string::npos) << r.describe();
    }
  }
  TempDir single;
  compileBundle({"-model=" + kDigits, "-emit-bundle=" + single.path()});
  llvm::json::Object d = readManifest(single.path() + "/digits_cnn.json");
  EXPECT_EQ(d.getArray("link_flags")->size(), 0u);
}

TEST(Bundle, UnoptimizedBundleMatchesTorch) {
  // -llvm-opt-level=0 compiles a bundle without LLVM's optimizer: it must still need nothing a
  // bundle cannot provide, link with the flags its manifest lists (-pthread: no optimizer
  // removes the thread team's calls) and give torch's output.
  std::string dir = std::string(EMBER_BUILD_DIR) + "/zoo/models/resnet18";
  TempDir work;
  EXPECT_EQ(checkCase(dir, work.path(), zooTolerance(dir), {"-llvm-opt-level=0"}), "");
}

//===----------------------------------------------------------------------------------------===//
// The examples, built with their own CMake project
//===----------------------------------------------------------------------------------------===//

class BundleExamples : public ::testing::Test {
protected:
  static TempDir *build;
  static void SetUpTestSuite() {
    build = new TempDir();
    RunResult c = runProgram("cmake", {"-S", kExamples, "-B", build->path(),
                                       "-DEMBER_MODEL_COMPILER=" + kCompiler},
                             300);
    EXPECT_SUCCESS(c);
    RunResult b = runProgram("cmake", {"--build", build->path()}, 600);
    EXPECT_SUCCESS(b);
  }
  static void TearDownTestSuite() { delete build; }
};
TempDir *BundleExamples::build = nullptr;

TEST_F(BundleExamples, StaticAPIClassifiesEveryTestDigit) {
  std::vector<std::string> images;
  for (int d = 0; d < 10; ++d)
    images.push_back(kSource + "/examples/digits/images/digit_" + std::to_string(d) + ".npy");
  RunResult r = runProgram(build->path() + "/static_digits", images);
  EXPECT_SUCCESS(r);
  for (int d = 0; d < 10; ++d)
    EXPECT_NE(r.out.find("digit_" + std::to_string(d) + ".npy: " + std::to_string(d) + " (p="),
              std::string::npos)
        << r.describe();
}

TEST_F(BundleExamples, DynamicAPIGivesTorchsProbabilities) {
  expectTorchsProbabilities(build->path() + "/dynamic_runner",
                            {build->path() + "/dynamic/digits.weights.bin"});
}

TEST_F(BundleExamples, OpenCLBundleGivesTorchsProbabilities) {
  // The same runner on a -backend=OpenCL bundle, linked -lOpenCL -pthread: PoCL here.
  expectTorchsProbabilities(build->path() + "/opencl_runner",
                            {build->path() + "/opencl/digits.weights.bin"});
}

//===----------------------------------------------------------------------------------------===//
// The bundle's files
//===----------------------------------------------------------------------------------------===//

/// The integer value of `#define <name> <value>` in \p header, or -1.
long long macro(const std::string &header, const std::string &name) {
  std::smatch m;
  if (std::regex_search(header, m, std::regex("#define " + name + " ([0-9]+)\n")))
    return std::stoll(m[1]);
  return -1;
}

TEST(Bundle, ManifestAgreesWithHeaderAndWeights) {
  TempDir out;
  compileBundle({"-model=" + kDigits, "-emit-bundle=" + out.path(), "-bundle-weights=bin,txt"});
  std::string header = readBytes(out.path() + "/digits_cnn.h");
  llvm::json::Object m = readManifest(out.path() + "/digits_cnn.json");
  EXPECT_EQ(*m.getString("network"), "digits_cnn");
  EXPECT_EQ(*m.getString("entry"), "digits_cnn");
  const llvm::json::Object *mem = m.getObject("memory");
  ASSERT_TRUE(mem);
  EXPECT_EQ(macro(header, "DIGITS_CNN_CONSTANT_MEM_SIZE"), *mem->getInteger("constant"));
  EXPECT_EQ(macro(header, "DIGITS_CNN_MUTABLE_MEM_SIZE"), *mem->getInteger("mutable"));
  EXPECT_EQ(macro(header, "DIGITS_CNN_ACTIVATIONS_MEM_SIZE"), *mem->getInteger("activations"));
  EXPECT_EQ(macro(header, "DIGITS_CNN_MEM_ALIGN"), *mem->getInteger("alignment"));
  EXPECT_EQ(*mem->getInteger("alignment"), 64);
  // Scratch apart from values: the digits CNN's convolutions take some, so the values alone
  // fit in less than the region, and the largest scratch fits in it.
  EXPECT_GT(*mem->getInteger("scratchLargest"), 0);
  EXPECT_LE(*mem->getInteger("scratchLargest"), *mem->getInteger("activations"));
  EXPECT_LT(*mem->getInteger("activationsValues"), *mem->getInteger("activations"));
  EXPECT_NE(header.find("int digits_cnn(uint8_t *constantWeight, uint8_t *mutableWeight, "
                        "uint8_t *activations);"),
            std::string::npos);
  EXPECT_NE(header.find("#ifndef DIGITS_CNN_H"), std::string::npos);
  EXPECT_NE(header.find("extern \"C\" {"), std::string::npos);
  // Every placeholder: an offset macro equal to the manifest's, inside the mutable region, and
  // its original name, type and shape in the header's comment.
  const llvm::json::Array *places = m.getArray("placeholders");
  ASSERT_TRUE(places && places->size() == 2);
  for (const llvm::json::Value &v : *places) {
    const llvm::json::Object &p = *v.getAsObject();
    std::string symbol = p.getString("symbol")->str();
    EXPECT_EQ(macro(header, "DIGITS_CNN_" + symbol), *p.getInteger("offset")) << symbol;
    EXPECT_LE(*p.getInteger("offset") + *p.getInteger("bytes"), *mem->getInteger("mutable"));
    EXPECT_NE(header.find("'" + p.getString("name")->str() + "' (DIGITS_CNN_" + symbol + "): "),
              std::string::npos);
  }
  // The weights: the binary is the constant region exactly; the text holds the same bytes.
  std::string bin = readBytes(out.path() + "/digits_cnn.weights.bin");
  EXPECT_EQ((long long)bin.size(), *mem->getInteger("constant"));
  std::string text = readBytes(out.path() + "/digits_cnn.weights.txt");
  std::istringstream in(text);
  std::string fromText;
  for (std::string item; std::getline(in, item, ',');) {
    size_t at = item.find("0x");
    if (at != std::string::npos)
      fromText += char(std::stoi(item.substr(at + 2), nullptr, 16));
  }
  EXPECT_EQ(fromText, bin);
  std::vector<std::string> files;
  for (const llvm::json::Value &f : *m.getArray("files"))
    files.push_back(f.getAsString()->str());
  EXPECT_EQ(files, (std::vector<std::string>{"digits_cnn.o", "digits_cnn.h",
                                             "digits_cnn.weights.bin", "digits_cnn.weights.txt",
                                             "digits_cnn.json"}));
}

TEST(Bundle, WeightsInTheFormsAskedFor) {
  // -bundle-weights: the binary alone by default (the text is six times larger: 953 MB for
  // resnet50, a third of its compile), the text alone, the object with the binary (alone:
  // WeightsObjectRunsWithNoWeightsFile); an unknown form refused by name, and so is a list of
  // none.
  for (const char *forms : {"", "txt", "bin,txt", "bin,object"}) {
    SCOPED_TRACE(forms);
    TempDir out;
    std::vector<std::string> args = {"-model=" + kDigits, "-emit-bundle=" + out.path()};
    if (*forms)
      args.push_back(std::string("-bundle-weights=") + forms);
    compileBundle(args);
    std::string f(forms);
    bool bin = f.empty() || f.find("bin") != std::string::npos;
    bool txt = f.find("txt") != std::string::npos;
    bool object = f.find("object") != std::string::npos;
    EXPECT_EQ(llvm::sys::fs::exists(out.path() + "/digits_cnn.weights.bin"), bin);
    EXPECT_EQ(llvm::sys::fs::exists(out.path() + "/digits_cnn.weights.txt"), txt);
    EXPECT_EQ(llvm::sys::fs::exists(out.path() + "/digits_cnn.weights.o"), object);
    llvm::json::Object m = readManifest(out.path() + "/digits_cnn.json");
    std::string files, written;
    for (const llvm::json::Value &v : *m.getArray("files"))
      files += v.getAsString()->str() + " ";
    for (const llvm::json::Value &v : *m.getArray("weights"))
      written += v.getAsObject()->getString("form")->str() + " ";
    EXPECT_EQ(files.find("weights.bin") != std::string::npos, bin) << files;
    EXPECT_EQ(files.find("weights.txt") != std::string::npos, txt) << files;
    EXPECT_EQ(files.find("weights.o") != std::string::npos, object) << files;
    EXPECT_EQ(written, std::string(bin ? "bin " : "") + (txt ? "txt " : "") +
                           (object ? "object " : ""));
    // The header declares the object's array only when there is one to link.
    std::string header = readBytes(out.path() + "/digits_cnn.h");
    EXPECT_EQ(header.find("extern const uint8_t digits_cnn_constant_weights[];") !=
                  std::string::npos,
              object);
  }
  TempDir out;
  std::string m = "-model=" + kDigits, d = "-emit-bundle=" + out.path();
  expectCleanError(runProgram(kCompiler, {m, d, "-bundle-weights=bin,elf"}),
                   {"-bundle-weights: unknown form 'elf' (bin, txt, object)"});
  for (const char *none : {"-bundle-weights=", "-bundle-weights=,"})
    expectCleanError(runProgram(kCompiler, {m, d, none}),
                     {"-bundle-weights names no form of the weights (bin, txt, object)"});
  // A program links the entry and the weights' array together: one symbol cannot be both.
  expectCleanError(runProgram(kCompiler, {m, d, "-bundle-weights=object",
                                          "-main-entry-name=digits_cnn_constant_weights"}),
                   {"'digits_cnn_constant_weights' is the weights object's symbol"});
}

/// The symbols \p object defines (`nm -S`): name -> {type letter, size}.
std::map<std::string, std::pair<char, long long>> definedSymbols(const std::string &object) {
  RunResult nm = runProgram("nm", {"-S", object});
  EXPECT_SUCCESS(nm);
  std::map<std::string, std::pair<char, long long>> out;
  std::istringstream lines(nm.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(f), {}};
    if (w.size() == 4) // value size type name
      out[w[3]] = {w[2][0], std::stoll(w[1], nullptr, 16)};
    else
      ADD_FAILURE() << "not a defined symbol with a size: " << line;
  }
  return out;
}

TEST(Bundle, WeightsObjectRunsWithNoWeightsFile) {
  // -bundle-weights=object: the constant region as an object for the bundle's target, its one
  // symbol a 64-byte aligned read-only array (of the bytes NET.weights.bin would hold:
  // CompilingTwiceGivesIdenticalFiles); the runner links it, reads no weights file, and gives
  // torch's probabilities.
  TempDir out;
  compileBundle({"-model=" + kDigits, "-emit-bundle=" + out.path(), "-network-name=net",
                 "-bundle-api=dynamic", "-bundle-weights=object"});
  EXPECT_FALSE(llvm::sys::fs::exists(out.path() + "/net.weights.bin"));
  llvm::json::Object m = readManifest(out.path() + "/net.json");
  const llvm::json::Array *forms = m.getArray("weights");
  ASSERT_TRUE(forms && forms->size() == 1);
  const llvm::json::Object &form = *(*forms)[0].getAsObject();
  EXPECT_EQ(form.getString("form"), llvm::StringRef("object"));
  EXPECT_EQ(form.getString("file"), llvm::StringRef("net.weights.o"));
  EXPECT_EQ(form.getString("symbol"), llvm::StringRef("net_constant_weights"));

  EXPECT_NE(readBytes(out.path() + "/net.h").find("extern const uint8_t net_constant_weights[];"),
            std::string::npos);
  std::string object = out.path() + "/net.weights.o";
  auto symbols = definedSymbols(object);
  ASSERT_EQ(symbols.size(), 1u) << "only the array, no code and nothing undefined";
  EXPECT_EQ(symbols["net_constant_weights"],
            std::make_pair('R', (long long)*m.getObject("memory")->getInteger("constant")));
  // Its section: read-only data, aligned as the bundle's regions are (NET_MEM_ALIGN).
  RunResult sections = runProgram("readelf", {"-SW", object});
  EXPECT_SUCCESS(sections);
  std::smatch rodata;
  // [Nr] Name Type Address Off Size ES Flg Lk Inf Al
  std::regex line(R"(\.rodata +PROGBITS( +[0-9a-f]+){4} +(\w*) +\d+ +\d+ +(\d+))");
  ASSERT_TRUE(std::regex_search(sections.out, rodata, line)) << sections.out;
  EXPECT_EQ(rodata[2].str(), "A") << "allocated, not writable";
  EXPECT_EQ(rodata[3].str(), "64");

  std::string runner = out.path() + "/runner";
  buildRunner(out.path(), "net", runner);
  ASSERT_FALSE(llvm::sys::fs::remove(object)); // linked in: the program needs no bundle file
  expectTorchsProbabilities(runner, {});
}

TEST(Bundle, CompilingTwiceGivesIdenticalFiles) {
  // Every file, in two directories: nothing of the time or the place of a compile in them.
  for (std::vector<std::string> flags :
       {std::vector<std::string>{"-bundle-api=static"}, {"-bundle-api=dynamic"},
        {"-bundle-api=dynamic", "-backend=OpenCL"}, {"-threads=2", "-instrument"},
        {"-target=aarch64-linux-gnu", "-mcpu=cortex-a72"}}) {
    SCOPED_TRACE(flags.back());
    TempDir a, b;
    for (const TempDir *d : {&a, &b}) {
      std::vector<std::string> args = {"-model=" + kDigits, "-emit-bundle=" + d->path(),
                                       "-bundle-weights=bin,txt,object"};
      args.insert(args.end(), flags.begin(), flags.end());
      compileBundle(args);
    }
    for (const char *suffix : {".o", ".h", ".weights.bin", ".weights.txt", ".weights.o",
                               ".json"}) {
      std::string fa = readBytes(a.path() + "/digits_cnn" + suffix);
      EXPECT_FALSE(fa.empty()) << suffix;
      EXPECT_TRUE(fa == readBytes(b.path() + "/digits_cnn" + suffix)) << suffix << " differs";
      EXPECT_EQ(fa.find(a.path()), std::string::npos) << suffix << " holds its directory";
    }
    std::string bin = readBytes(a.path() + "/digits_cnn.weights.bin");
    EXPECT_NE(readBytes(a.path() + "/digits_cnn.weights.o").find(bin), std::string::npos)
        << "the object holds the bytes of the binary";
  }
}

TEST(Bundle, InstrumentedBundleRecordsTheTrace) {
  // -instrument: NET_traced records into its caller's buffer; a C program runs it (with no team,
  // then on a team it keeps) and writes the events, utils/bundle-trace.py makes them a Chrome
  // Trace Event file, and that passes model-runner -trace's checks (TraceCheck.h): each
  // computing instruction the manifest lists once per run, each thread's part of a threaded
  // step inside its instruction's span. A relu, a broadcast and an add over 1M x 4 floats,
  // each split over 2 threads (large enough that the worker wakes before the caller is done).
  TempDir out;
  std::string dir = out.path(), model = kSource + "/tests/models/symbolic_batch/model.onnxtxt";
  std::vector<std::string> flags = {"-model=" + model, "-onnx-define-symbol=N,1048576",
                                    "-network-name=net", "-threads=2"};
  std::vector<std::string> instrumented = flags;
  instrumented.push_back("-emit-bundle=" + dir);
  instrumented.push_back("-instrument");
  compileBundle(instrumented);
  llvm::json::Object m = readManifest(dir + "/net.json");
  ASSERT_EQ(m.getInteger("threads"), 2);
  const llvm::json::Array *listed = m.getArray("instructions");
  ASSERT_TRUE(listed && listed->size() >= 3);
  std::set<std::string> names;
  std::map<std::string, std::string> kinds;
  for (const llvm::json::Value &v : *listed) {
    std::string name = v.getAsObject()->getString("name")->str();
    if (!v.getAsObject()->getString("timed_with")) // else fused into another's call
      names.insert(name);
    kinds[name] = v.getAsObject()->getString("kind")->str();
  }
  EXPECT_EQ(kinds.size(), listed->size());
  EXPECT_GE(names.size(), 3u);
  EXPECT_NE(readBytes(dir + "/net.h").find("#define NET_INSTRUCTIONS " +
                                           std::to_string(listed->size())),
            std::string::npos);
  std::vector<std::string> cc = {"-O2", "-std=c11", "-Wall", "-Werror", "-I" + dir,
                                 "-DBUNDLE=net", "-DBUNDLE_UPPER=NET",
                                 kSource + "/tests/tools/bundle_trace.c", dir + "/net.o", "-o",
                                 dir + "/traced"};
  for (const llvm::json::Value &f : *m.getArray("link_flags"))
    cc.push_back(f.getAsString()->str());
  RunResult built = runProgram("cc", cc, 120);
  ASSERT_EQ(built.exitCode, 0) << built.describe();
  auto traceOf = [&](const std::string &runs, const std::string &capacity, RunResult &ran,
                     RunResult &converted, tracecheck::Trace &t) {
    std::string events = dir + "/events" + capacity, json = dir + "/trace" + capacity + ".json";
    ran = runProgram(dir + "/traced", {dir + "/net.weights.bin", runs, capacity, events}, 120);
    ASSERT_EQ(ran.exitCode, 0) << ran.describe();
    converted = runProgram("/usr/bin/python3",
                           {kSource + "/utils/bundle-trace.py", dir + "/net.json", events, json});
    ASSERT_EQ(converted.exitCode, 0) << converted.describe();
    ASSERT_NO_FATAL_FAILURE(tracecheck::readTrace(readBytes(json), t));
  };
  RunResult ran, converted;
  tracecheck::Trace t;
  ASSERT_NO_FATAL_FAILURE(traceOf("5", "4096", ran, converted, t));
  EXPECT_EQ(t.runs.size(), 5u);
  EXPECT_EQ(t.named["process_name"], 1);
  tracecheck::expectEachInstructionOncePerRun(t, names);
  for (const tracecheck::Span &i : t.instrs)
    EXPECT_EQ(i.args.getString("kind").value_or(""), kinds[i.name]) << i.name;
  tracecheck::expectPartsNestInTheirInstructions(t, 2);
  // A buffer of 3: the run counts every event, keeps the first 3, writes nothing past them
  // (bundle_trace.c checks a canary after the buffer), and the converter says what was dropped.
  tracecheck::Trace small;
  ASSERT_NO_FATAL_FAILURE(traceOf("1", "3", ran, converted, small));
  unsigned long long count = 0;
  ASSERT_EQ(sscanf(ran.out.c_str(), "run 0: %llu events", &count), 1) << ran.describe();
  EXPECT_GT(count, listed->size());
  EXPECT_EQ(small.instrs.size() + small.parts.size(), 3u);
  EXPECT_NE(converted.err.find("run 0 dropped " + std::to_string(count - 3) + " events"),
            std::string::npos)
      << converted.describe();
  // Without -instrument the bundle has no traced entry and lists no instructions.
  TempDir plain;
  flags.push_back("-emit-bundle=" + plain.path());
  compileBundle(flags);
  EXPECT_EQ(readBytes(plain.path() + "/net.h").find("_traced"), std::string::npos);
  EXPECT_FALSE(readManifest(plain.path() + "/net.json").getArray("instructions"));
}

TEST(Bundle, NamesAndTheDynamicAPI) {
  TempDir out;
  compileBundle({"-model=" + kDigits, "-emit-bundle=" + out.path(), "-network-name=Digits2",
                 "-main-entry-name=classify", "-bundle-api=dynamic"});
  std::string header = readBytes(out.path() + "/Digits2.h");
  EXPECT_NE(header.find("int classify(uint8_t *constantWeight"), std::string::npos) << header;
  EXPECT_NE(header.find("extern const Digits2_config_t Digits2_config;"), std::string::npos);
  EXPECT_EQ(header.find("#define DIGITS2_image"), std::string::npos) << "no offset macros";
  EXPECT_NE(header.find("#define DIGITS2_CONSTANT_MEM_SIZE"), std::string::npos);
  // The object exports exactly the entry, its team functions and the config, and needs nothing
  // but libc.
  RunResult nm = runProgram("nm", {"-g", out.path() + "/Digits2.o"});
  EXPECT_SUCCESS(nm);
  std::istringstream lines(nm.out);
  std::vector<std::string> defined, undefined;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::vector<std::string> w{std::istream_iterator<std::string>(f), {}};
    if (w.size() == 3)
      defined.push_back(w[2]);
    else if (w.size() == 2 && w[0] == "U")
      undefined.push_back(w[1]);
  }
  std::sort(defined.begin(), defined.end());
  EXPECT_EQ(defined, std::vector<std::string>({"Digits2_config", "classify", "classify_on_team",
                                               "classify_team_of_pool", "classify_team_start",
                                               "classify_team_stop"}))
      << nm.out;
  for (const std::string &u : undefined)
    EXPECT_TRUE(u == "memcpy" || u == "memset" || u == "memmove") << u;
  // The model file's stem is the default name, made a C identifier.
  TempDir other;
  std::string copy = other.path() + "/3d-model.v2.onnx";
  llvm::sys::fs::copy_file(kDigits, copy);
  compileBundle({"-model=" + copy, "-emit-bundle=" + other.path()});
  EXPECT_TRUE(llvm::sys::fs::exists(other.path() + "/_3d_model_v2.h"));
}

TEST(Bundle, CrossCompilesForAArch64) {
  TempDir out;
  RunResult r = compileBundle({"-model=" + kDigits, "-emit-bundle=" + out.path(),
                               "-target=aarch64-linux-gnu", "-mcpu=cortex-a72"});
  EXPECT_NE(r.out.find("for aarch64-unknown-linux-gnu"), std::string::npos) << r.describe();
  std::string obj = readBytes(out.path() + "/digits_cnn.o");
  ASSERT_GE(obj.size(), 64u);
  // ELF64, little-endian, relocatable (e_type 1), machine EM_AARCH64 (183).
  EXPECT_EQ(obj.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(obj[4], 2);
  EXPECT_EQ(obj[5], 1);
  EXPECT_EQ(uint8_t(obj[16]) | (uint8_t(obj[17]) << 8), 1);
  EXPECT_EQ(uint8_t(obj[18]) | (uint8_t(obj[19]) << 8), 183);
  llvm::json::Object m = readManifest(out.path() + "/digits_cnn.json");
  EXPECT_EQ(*m.getString("target"), "aarch64-unknown-linux-gnu");
  // The same model for this machine is an x86-64 object (EM_X86_64, 62).
  TempDir host;
  compileBundle({"-model=" + kDigits, "-emit-bundle=" + host.path()});
  std::string hostObj = readBytes(host.path() + "/digits_cnn.o");
  EXPECT_EQ(uint8_t(hostObj[18]) | (uint8_t(hostObj[19]) << 8), 62);
}

TEST(Bundle, TargetFeaturesChooseTheKernelVariant) {
  // lib/Backends/CPU/kernels/Variants.def: the first row whose architecture is the target's and
  // whose features its CPU has. Bundles are not run here, so any CPU can be named.
  struct Case {
    std::vector<std::string> flags;
    const char *row;
  };
  for (const Case &c : {Case{{"-mcpu=x86-64"}, "sse2"},
                        Case{{"-mcpu=x86-64-v3"}, "avx2"},
                        Case{{"-mcpu=x86-64-v4"}, "avx512"},
                        Case{{"-mcpu=x86-64-v4", "-mattr=-avx512f"}, "avx2"},
                        Case{{"-target=aarch64-linux-gnu", "-mcpu=cortex-a72"}, "neon"}}) {
    SCOPED_TRACE(c.row);
    TempDir out;
    std::vector<std::string> args = {"-model=" + kDigits, "-emit-bundle=" + out.path(),
                                     "-dump-llvm-ir"};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    RunResult r = compileBundle(args);
    // The digits model's filters are constants, which the backend packs for the row's tile
    // (CPUConstants.h), so its convolutions call the packed entry.
    EXPECT_NE(r.out.find(std::string("@ember_conv2d_packed_f32_") + c.row + "("),
              std::string::npos)
        << r.command;
    for (const char *other : {"sse2", "avx2", "avx512", "neon"})
      if (std::string(other) != c.row) {
        EXPECT_EQ(r.out.find(std::string("_f32_") + other + "("), std::string::npos) << other;
      }
  }
}

TEST(Bundle, RunTimeErrorsAreCodesTheHeaderLists) {
  // A Gather whose indices are an input: an index out of range is found at run time.
  TempDir work;
  std::string model = work.write("gather.onnxtxt", R"(ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "g"
  node { input: "data" input: "idx" output: "y" name: "pick" op_type: "Gather" attribute { name: "axis" i: 0 type: INT } }
  input { name: "data" type { tensor_type { elem_type: 1 shape { dim { dim_value: 4 } dim { dim_value: 3 } } } } }
  input { name: "idx" type { tensor_type { elem_type: 7 shape { dim { dim_value: 2 } } } } }
  output { name: "y" type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } dim { dim_value: 3 } } } } }
}
)");
  std::string data = work.path() + "/data.npy", good = work.path() + "/good.npy",
              bad = work.path() + "/bad.npy";
  ASSERT_FALSE(bool(writeNpyFile(data, Tensor::fromValues<float>({4, 3}, std::vector<float>(12, 1.f)))));
  ASSERT_FALSE(bool(writeNpyFile(good, Tensor::fromValues<int64_t>({2}, {3, -4}))));
  ASSERT_FALSE(bool(writeNpyFile(bad, Tensor::fromValues<int64_t>({2}, {0, 4}))));
  for (const std::string backend : {"CPU", "OpenCL"}) {
    SCOPED_TRACE(backend);
    std::string dir = work.path() + "/" + backend;
    compileBundle({"-model=" + model, "-emit-bundle=" + dir, "-network-name=net",
                   "-bundle-api=dynamic", "-backend=" + backend});
    // The header lists the Gather's failure (an OpenCL bundle lists the runtime's own first).
    std::string header = readBytes(dir + "/net.h");
    std::smatch code;
    ASSERT_TRUE(std::regex_search(header, code,
                                  std::regex("//   ([0-9]+): instruction 'pick[^\n]*out of range")))
        << header;
    buildRunner(dir, "net", dir + "/runner");
    RunResult ok =
        runProgram(dir + "/runner", {dir + "/net.weights.bin", "data=" + data, "idx=" + good});
    EXPECT_SUCCESS(ok);
    RunResult fail =
        runProgram(dir + "/runner", {dir + "/net.weights.bin", "data=" + data, "idx=" + bad});
    EXPECT_EQ(fail.exitCode, 1) << fail.describe();
    EXPECT_NE(fail.err.find("the bundle returned " + code[1].str()), std::string::npos)
        << fail.describe();
  }
}

TEST(Bundle, BadOptionsAreRefusedCleanly) {
  TempDir out;
  std::string m = "-model=" + kDigits, d = "-emit-bundle=" + out.path();
  expectCleanError(runProgram(kCompiler, {m}), {"-emit-bundle"});
  expectCleanError(runProgram(kCompiler, {m, d, "-bundle-api=shared"}), {"static or dynamic"});
  expectCleanError(runProgram(kCompiler, {m, d, "-network-name=9lives"}), {"C identifier"});
  expectCleanError(runProgram(kCompiler, {m, d, "-main-entry-name=a-b"}), {"C identifier"});
  expectCleanError(runProgram(kCompiler, {m, d, "-backend=Interpreter"}),
                   {"cannot write bundles"});
  expectCleanError(runProgram(kCompiler, {m, d, "-profile"}), {"cannot be profiled"});
  expectCleanError(runProgram(kCompiler, {m, d, "-target=riscv64-linux-gnu"}),
                   {"x86_64 and aarch64"});
  std::string file = out.write("file", "x");
  expectCleanError(runProgram(kCompiler, {m, "-emit-bundle=" + file}), {"not a directory"});
  expectCleanError(runProgram(kCompiler, {"-model=/nonexistent.onnx", d}), {"nonexistent"});
}

} // namespace
