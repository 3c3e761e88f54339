// Harness of the whole compile pipeline on one backend (EMBER_FUZZ_BACKEND): an ONNX model
// (binary) is loaded, optimized, lowered to IR, planned and compiled, but not run. Every stage
// must refuse what it cannot handle with an error.
#include "FuzzInput.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"

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
  opts.verifyEach = true; // a pass that breaks the graph is a bug the fuzzer should see
  auto compiled = CompiledModel::compile(std::move(*M), opts);
  if (!compiled)
    llvm::consumeError(compiled.takeError());
  return 0;
}
