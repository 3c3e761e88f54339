// Harnesses of the model loaders: the bytes as an ONNX model (binary .onnx or text .onnxtxt,
// by EMBER_FUZZ_SUFFIX), or as a Caffe2 predict_net + init_net pair. A load must either succeed
// or return an error; anything else (a crash, a sanitizer report, a leak, a hang) is a bug.
#include "FuzzInput.h"

#include "ember/Importer/ModelLoader.h"

#include "llvm/Support/Endian.h"

using namespace ember;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > fuzz::kMaxInputBytes)
    return -1;
  fuzz::setUpProcess();
  llvm::StringRef bytes = fuzz::bytesOf(data, size);
#ifdef EMBER_FUZZ_CAFFE2
  // The first byte: bit 0 chooses text nets over binary ones; the next four, the predict
  // net's length; then the predict net and the init net.
  if (bytes.size() < 5)
    return -1;
  bool text = bytes[0] & 1;
  uint32_t predictSize = llvm::support::endian::read32le(bytes.data() + 1);
  bytes = bytes.drop_front(5);
  if (predictSize > bytes.size())
    return -1;
  std::string ext = text ? ".pbtxt" : ".pb";
  std::string predict = fuzz::writeInput("predict_net" + ext, bytes.take_front(predictSize));
  std::string init = fuzz::writeInput("init_net" + ext, bytes.drop_front(predictSize));
  auto M = loadModelFiles({predict, init});
#else
  auto M = loadModel(fuzz::writeInput(std::string("model") + EMBER_FUZZ_SUFFIX, bytes));
#endif
  if (!M)
    llvm::consumeError(M.takeError());
  return 0;
}
