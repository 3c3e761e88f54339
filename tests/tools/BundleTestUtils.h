// What the bundle tests share: model-compiler run as a user runs it, the example runner
// (examples/bundles/dynamic_runner.c) built against a bundle's header alone by a C compiler (the
// host's, or a cross compiler whose programs run under an emulator), and its outputs compared
// with references computed outside ember.
#ifndef EMBER_TESTS_TOOLS_BUNDLETESTUTILS_H
#define EMBER_TESTS_TOOLS_BUNDLETESTUTILS_H

#include "ToolTestUtils.h"

#include "ModelTestCase.h"
#include "../unittests/TestUtils.h"

#include "ember/Base/Npy.h"
#include "ember/Importer/TensorFiles.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

namespace ember {
namespace bundletest {

using namespace ember::test;
using namespace tooltest;


inline const std::string kCompiler = EMBER_MODEL_COMPILER;
inline const std::string kSource = EMBER_SOURCE_DIR;
inline const std::string kExamples = kSource + "/examples/bundles";
inline const std::string kDigits = kSource + "/examples/models/digits_cnn.onnx";

inline std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The bundle's manifest, parsed.
inline llvm::json::Object readManifest(const std::string &path) {
  auto parsed = llvm::json::parse(readBytes(path));
  if (!parsed) {
    ADD_FAILURE() << path << ": " << llvm::toString(parsed.takeError());
    return {};
  }
  return std::move(*parsed->getAsObject());
}

/// model-compiler with \p args; the run must succeed.
inline RunResult compileBundle(std::vector<std::string> args) {
  RunResult r = runProgram(kCompiler, args, 300);
  EXPECT_SUCCESS(r);
  return r;
}

/// Where a bundle's program runs: this machine (the host's cc, run directly), or another
/// architecture (model-compiler's -target flags, a cross compiler, and an emulator to run it).
struct Toolchain {
  std::vector<std::string> compilerArgs; ///< model-compiler flags choosing the target
  std::string cc = "cc";
  std::vector<std::string> ccFlags;
  std::string emulator; ///< empty: run the program directly

  /// \p program with \p args, under the emulator if there is one.
  RunResult run(const std::string &program, std::vector<std::string> args,
                double timeoutSec) const {
    if (emulator.empty())
      return runProgram(program, args, timeoutSec);
    args.insert(args.begin(), program);
    return runProgram(emulator, args, timeoutSec);
  }
};

inline const Toolchain kHost;

/// The weights object a bundle's manifest lists (-bundle-weights=object), or "".
inline std::string weightsObjectFile(const llvm::json::Object &manifest) {
  if (const llvm::json::Array *forms = manifest.getArray("weights"))
    for (const llvm::json::Value &f : *forms)
      if (f.getAsObject()->getString("form") == llvm::StringRef("object"))
        return f.getAsObject()->getString("file")->str();
  return "";
}

/// What a runner built by buildRunner takes before its inputs: the path of NET.weights.bin, or
/// nothing when it links the bundle's weights object.
inline std::vector<std::string> weightsArgs(const std::string &dir, const std::string &net) {
  if (!weightsObjectFile(readManifest(dir + "/" + net + ".json")).empty())
    return {};
  return {dir + "/" + net + ".weights.bin"};
}

/// Builds tests/tools/bundle_check.c (examples/bundles/dynamic_runner.c's command line, with
/// every region ending at a faulting page, the constants read-only, and -t THREADS for
/// concurrent calls) against the bundle NET in \p dir (its header and object, and the link
/// flags its manifest lists) into \p exe; with the bundle's weights object, if it has one, in
/// place of a weights file (bundle_check.c: BUNDLE_WEIGHTS_OBJECT).
inline void buildRunner(const std::string &dir, const std::string &net, const std::string &exe,
                        const Toolchain &tc = kHost) {
  std::vector<std::string> args = {"-O2",       "-std=c99",     "-Wall",
                                   "-Werror",   "-I" + dir,     "-I" + kExamples,
                                   "-DBUNDLE=" + net,
                                   kSource + "/tests/tools/bundle_check.c",
                                   dir + "/" + net + ".o",      "-o",
                                   exe,         "-pthread"};
  args.insert(args.end(), tc.ccFlags.begin(), tc.ccFlags.end());
  llvm::json::Object m = readManifest(dir + "/" + net + ".json");
  if (const llvm::json::Array *flags = m.getArray("link_flags"))
    for (const llvm::json::Value &f : *flags)
      args.push_back(f.getAsString()->str());
  std::string weights = weightsObjectFile(m);
  if (!weights.empty()) {
    args.push_back("-DBUNDLE_WEIGHTS_OBJECT");
    args.push_back(dir + "/" + weights);
  }
  if (m.getInteger("threads")) { // a CPU bundle's team functions (bundle_check.c: -team)
    std::string upper;
    for (char c : net)
      upper += char(toupper(static_cast<unsigned char>(c)));
    args.push_back("-DBUNDLE_TEAM");
    args.push_back("-DBUNDLE_UPPER=" + upper);
  }
  RunResult r = runProgram(tc.cc, args, 120);
  EXPECT_SUCCESS(r);
}

/// What \p runner (dynamic_runner.c or bundle_check.c built against a digits bundle) writes for
/// every test digit, given \p weights before the image, against torch's probabilities.
inline void expectTorchsProbabilities(const std::string &runner,
                                      const std::vector<std::string> &weights,
                                      const Toolchain &tc = kHost) {
  for (int d = 0; d < 10; ++d) {
    SCOPED_TRACE(d);
    std::string base = kSource + "/examples/digits/images/digit_" + std::to_string(d);
    TempDir out;
    std::vector<std::string> args = weights;
    for (const std::string &a : {"image=" + base + ".npy", std::string("-o"), out.path()})
      args.push_back(a);
    RunResult r = tc.run(runner, args, 120);
    EXPECT_SUCCESS(r);
    auto want = readTensorFile(base + ".expected.npy");
    ASSERT_TRUE(bool(want));
    Tensor got(want->getType());
    std::string bytes = readBytes(out.path() + "/probabilities.bin");
    ASSERT_EQ(bytes.size(), got.sizeInBytes());
    std::memcpy(got.data(), bytes.data(), bytes.size());
    EXPECT_EQ(tools::compareTensors(got, *want, {1e-5, 1e-4}), "");
  }
}

/// The runner's file name for output \p name (dynamic_runner.c's rule).
inline std::string outputFile(const std::string &dir, llvm::StringRef name) {
  std::string f;
  for (char c : name)
    f += isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  return dir + "/" + f + ".bin";
}

/// The raw output a runner wrote for manifest placeholder \p p, as a tensor of its type.
inline Tensor readOutput(const std::string &dir, const llvm::json::Object &p) {
  ElemKind k = ElemKind::Float32;
  EXPECT_TRUE(parseElemKind(*p.getString("type"), k));
  std::vector<dim_t> dims;
  for (const llvm::json::Value &d : *p.getArray("shape"))
    dims.push_back(dim_t(*d.getAsInteger()));
  Type ty(k, dims);
  if (auto scale = p.getNumber("scale"))
    ty = Type(k, dims, float(*scale), int32_t(*p.getInteger("zero_point")));
  Tensor t(ty);
  std::string bytes = readBytes(outputFile(dir, *p.getString("name")));
  EXPECT_EQ(bytes.size(), t.sizeInBytes()) << p.getString("name")->str();
  std::memcpy(t.data(), bytes.data(), std::min(bytes.size(), t.sizeInBytes()));
  return t;
}

/// For an ONNX-style case folder (model + test_data_set_0/{input,output}_k.pb): compiles a
/// dynamic-API bundle, builds the runner, runs it on the inputs and compares each output with
/// the reference. Returns what went wrong, or "".
inline std::string checkCase(const std::string &caseDir, const std::string &work,
                             const tools::Tolerance &tol,
                             const std::vector<std::string> &compilerArgs = {},
                             const Toolchain &tc = kHost) {
  std::string model = caseDir + "/model.onnx";
  if (!llvm::sys::fs::exists(model))
    model = caseDir + "/model.onnxtxt";
  if (!llvm::sys::fs::exists(model)) // a Caffe2 case: the folder holding both nets
    model = caseDir;
  std::string data = caseDir + "/test_data_set_0";
  std::vector<std::string> inputArgs;
  for (int k = 0;; ++k) {
    std::string pb = data + "/input_" + std::to_string(k) + ".pb";
    if (!llvm::sys::fs::exists(pb))
      break;
    std::string name;
    auto t = readTensorFile(pb, &name);
    if (!t)
      return llvm::toString(t.takeError());
    std::string npy = work + "/input_" + std::to_string(k) + ".npy";
    if (llvm::Error e = writeNpyFile(npy, *t))
      return llvm::toString(std::move(e));
    if (name.empty())
      return pb + " has no name to bind it by";
    inputArgs.push_back(name + "=" + npy);
  }
  std::string dir = work + "/bundle";
  std::vector<std::string> args = {"-model=" + model, "-emit-bundle=" + dir, "-network-name=net",
                                   "-bundle-api=dynamic"};
  std::string joined;
  for (const std::string &a : inputArgs)
    joined += (joined.empty() ? "" : ",") + a;
  if (!joined.empty())
    args.push_back("-input=" + joined);
  args.insert(args.end(), compilerArgs.begin(), compilerArgs.end());
  args.insert(args.end(), tc.compilerArgs.begin(), tc.compilerArgs.end());
  RunResult c = runProgram(kCompiler, args, 300);
  if (c.exitCode != 0)
    return "model-compiler failed:\n" + c.describe();
  buildRunner(dir, "net", work + "/runner", tc);
  std::vector<std::string> run = weightsArgs(dir, "net");
  run.insert(run.end(), inputArgs.begin(), inputArgs.end());
  run.push_back("-o");
  run.push_back(work);
  RunResult r = tc.run(work + "/runner", run, 300);
  if (r.exitCode != 0)
    return "the runner failed:\n" + r.describe();

  llvm::json::Object m = readManifest(dir + "/net.json");
  std::vector<const llvm::json::Object *> outputs;
  for (const llvm::json::Value &p : *m.getArray("placeholders"))
    if (*p.getAsObject()->getString("kind") == "output")
      outputs.push_back(p.getAsObject());
  std::string problems;
  for (size_t k = 0;; ++k) {
    std::string pb = data + "/output_" + std::to_string(k) + ".pb";
    if (!llvm::sys::fs::exists(pb))
      break;
    std::string name;
    auto want = readTensorFile(pb, &name);
    if (!want)
      return llvm::toString(want.takeError());
    const llvm::json::Object *p = nullptr;
    for (const llvm::json::Object *o : outputs)
      if (*o->getString("name") == name)
        p = o;
    if (!p && k < outputs.size())
      p = outputs[k];
    if (!p)
      return "no output for " + pb;
    Tensor got = readOutput(work, *p);
    std::string diff = tools::compareTensors(got, *want, tol);
    if (!diff.empty())
      problems += "output '" + p->getString("name")->str() + "': " + diff + "\n";
  }
  return problems;
}

/// The ONNX cases of tests/models and, with \p caffe2, the Caffe2 cases of tests/models/caffe2.
inline std::vector<std::string> modelCaseDirs(bool caffe2 = true) {
  std::vector<std::string> dirs;
  for (const char *root : {"/tests/models", "/tests/models/caffe2"}) {
    if (!caffe2 && llvm::StringRef(root).ends_with("caffe2"))
      continue;
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(kSource + root, ec), end; it != end && !ec;
         it.increment(ec))
      if (llvm::sys::fs::exists(it->path() + "/test_data_set_0"))
        dirs.push_back(it->path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

/// "caffe2_concat" for tests/models/caffe2/concat, "concat" for tests/models/concat.
inline std::string modelCaseName(const std::string &dir) {
  llvm::StringRef parent = llvm::sys::path::filename(llvm::sys::path::parent_path(dir));
  std::string name = llvm::sys::path::filename(dir).str();
  return parent == "caffe2" ? "caffe2_" + name : name;
}

/// A case's tolerance: atol from its `tolerance` file (int8 cases: one quantization step),
/// else 1e-5; rtol 1e-4.
inline tools::Tolerance modelCaseTolerance(const std::string &dir) {
  double atol = 1e-5;
  auto buf = llvm::MemoryBuffer::getFile(dir + "/tolerance");
  if (buf && (*buf)->getBuffer().trim().getAsDouble(atol))
    atol = 1e-5;
  return {atol, 1e-4};
}

/// The zoo's tolerance for the reference output of \p caseDir (utils/zoo.sh's rule): atol 1e-4 of
/// the output's largest magnitude (at least 1e-5), rtol 1e-4.
inline tools::Tolerance zooTolerance(const std::string &caseDir) {
  auto want = readTensorFile(caseDir + "/test_data_set_0/output_0.pb");
  if (!want) {
    ADD_FAILURE() << llvm::toString(want.takeError());
    return {1e-5, 1e-4};
  }
  double largest = 0;
  for (size_t i = 0; i < want->numElements(); ++i)
    largest = std::max(largest, std::abs(want->elementAsDouble(i)));
  return {std::max(1e-5, 1e-4 * largest), 1e-4};
}

} // namespace bundletest
} // namespace ember

#endif
