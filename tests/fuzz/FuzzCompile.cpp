// Harness of the whole compile pipeline on one backend (EMBER_FUZZ_BACKEND): an ONNX model
// (binary) is loaded, optimized, lowered to IR, planned and compiled, but not run. Every stage
// must refuse what it cannot handle with an error.
//
// The CPU backend compiles at -llvm-opt-level=0 unless EMBER_FUZZ_LLVM_OPT_LEVEL says. Every
// stage of ember's own (loading, graph passes, IR, plan, the LLVM module and its verifier, the
// kernel linking, the JIT) runs as at O3, while LLVM's O3 pipeline and instruction selection
// over the linked kernels, which made the harness several times slower, do not. utils/fuzz.sh
// replays the inputs a campaign keeps (those that reached new code) at 3 afterwards.
#include "FuzzInput.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"

#include <cstdlib>

using namespace ember;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > fuzz::kMaxInputBytes)
    return -1;
  fuzz::setUpProcess();
  auto M = loadModel(fuzz::writeInput("model.onnx", fuzz::bytesOf(data, size)));
  if (!M) {
    llvm::consumeError(M.takeError());
    return 0;
  }
  CompileOptions opts;
  opts.backend = EMBER_FUZZ_BACKEND;
  static const int llvmOptLevel = [] {
    const char *level = std::getenv("EMBER_FUZZ_LLVM_OPT_LEVEL");
    return level ? std::atoi(level) : 0;
  }();
  if (opts.backend == "CPU") // the other backends refuse the option
    opts.backendOptions.llvmOptLevel = llvmOptLevel;
  opts.verifyEach = true; // a pass that breaks the graph is a bug the fuzzer should see
  auto compiled = CompiledModel::compile(std::move(*M), opts);
  if (!compiled)
    llvm::consumeError(compiled.takeError());
  return 0;
}
