// Bundles called from several threads at once, each thread with regions of its own
// (bundle_check.c -t): every call gives the outputs of one call alone; and a -threads=2 bundle
// instrumented with ThreadSanitizer (model-compiler -sanitize-bundle=thread) in a runner built
// with -fsanitize=thread shows no data race, on teams of one call, teams kept across calls and
// the caller's pool. An executable of its own, apart from BundleTest and its zoo fixtures, so
// that utils/test.sh --sanitize=thread -R Concurren runs it with ConcurrencyTest alone.
#include "BundleTestUtils.h"

using namespace ember;
using namespace ember::bundletest;

namespace {

TEST(BundleConcurrency, ConcurrentCallsGiveTheSameOutputs) {
  // Four threads call one bundle at once, each on regions of its own (bundle_check.c -t): a CPU
  // bundle keeps no state, one with -threads=2 starts threads of its own in every call, and an
  // OpenCL bundle serializes its calls on the device.
  for (std::vector<std::string> flags :
       {std::vector<std::string>{}, {"-threads=2"}, {"-backend=OpenCL"}}) {
    SCOPED_TRACE(flags.empty() ? "CPU" : flags[0]);
    TempDir work;
    std::vector<std::string> args = {"-model=" + kDigits, "-emit-bundle=" + work.path(),
                                     "-network-name=net", "-bundle-api=dynamic"};
    args.insert(args.end(), flags.begin(), flags.end());
    compileBundle(args);
    buildRunner(work.path(), "net", work.path() + "/runner");
    RunResult r = runProgram(work.path() + "/runner",
                             {work.path() + "/net.weights.bin",
                              "image=" + kSource + "/examples/digits/images/digit_7.npy", "-t",
                              "4", "-r", "8"});
    EXPECT_SUCCESS(r);
    EXPECT_NE(r.out.find("4 threads x 8 runs: all equal"), std::string::npos) << r.describe();
  }
}

TEST(BundleConcurrency, ThreadedBundleIsRaceFreeUnderThreadSanitizer) {
  // tests/models/conv_threaded: both convolutions split over a team of two (the digits' are too
  // small to split). Without the instrumentation TSan saw the kernels' memcpy and memset (libc
  // calls it intercepts) but not the team's atomics ordering them, and reported a race.
  std::string dir = kSource + "/tests/models/conv_threaded";
  TempDir work;
  Toolchain tsan;
  tsan.ccFlags = {"-g"}; // -fsanitize=thread comes from the manifest's link flags
  EXPECT_EQ(checkCase(dir, work.path(), modelCaseTolerance(dir),
                      {"-threads=2", "-sanitize-bundle=thread"}, tsan),
            "");
  llvm::json::Object m = readManifest(work.path() + "/bundle/net.json");
  std::vector<std::string> flags;
  for (const llvm::json::Value &f : *m.getArray("link_flags"))
    flags.push_back(f.getAsString()->str());
  EXPECT_NE(std::find(flags.begin(), flags.end(), "-fsanitize=thread"), flags.end());

  // Four threads, each call on a team of its own (whose worker, just started, seldom gets a
  // part); one thread making 200 calls on a team it keeps (its worker waiting between calls:
  // uninstrumented, TSan reported the two threads' memcpy of the GEMM's edge tiles in the first
  // 200); two threads, each on a pool of its own.
  std::vector<std::string> input = {work.path() + "/bundle/net.weights.bin",
                                    "x=" + work.path() + "/input_0.npy"};
  for (std::vector<std::string> mode : {std::vector<std::string>{"-t", "4", "-r", "4"},
                                        {"-t", "1", "-r", "200", "-team", "own"},
                                        {"-t", "2", "-r", "3", "-team", "pool"}}) {
    SCOPED_TRACE(mode.size() > 4 ? mode[5] : "a team per call");
    std::vector<std::string> args = input;
    args.insert(args.end(), mode.begin(), mode.end());
    RunResult r = runProgram(work.path() + "/runner", args, 300);
    EXPECT_SUCCESS(r);
    EXPECT_NE(r.out.find("runs: all equal"), std::string::npos) << r.describe();
    EXPECT_EQ(r.err.find("ThreadSanitizer"), std::string::npos) << r.describe();
  }
}

TEST(BundleConcurrency, SanitizeBundleIsRefusedWhereItCannotApply) {
  // Only CPU code can be instrumented, and only for ThreadSanitizer.
  TempDir work;
  for (std::vector<std::string> flags : {std::vector<std::string>{"-sanitize-bundle=address"},
                                         {"-sanitize-bundle=thread", "-backend=OpenCL"}}) {
    SCOPED_TRACE(flags.back());
    std::vector<std::string> args = {"-model=" + kDigits, "-emit-bundle=" + work.path()};
    args.insert(args.end(), flags.begin(), flags.end());
    RunResult r = runProgram(kCompiler, args, 300);
    EXPECT_NE(r.exitCode, 0) << r.describe();
    EXPECT_NE(r.err.find("sanitize"), std::string::npos) << r.describe();
  }
}

} // namespace
