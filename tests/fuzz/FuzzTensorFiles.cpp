// Harness of the tensor file readers (model-runner's -input): the first byte chooses NumPy
// .npy or ONNX TensorProto .pb; the rest is the file.
#include "FuzzInput.h"

#include "ember/Importer/TensorFiles.h"

using namespace ember;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > fuzz::kMaxInputBytes)
    return -1;
  fuzz::setUpProcess();
  llvm::StringRef bytes = fuzz::bytesOf(data + 1, size - 1);
  std::string name;
  auto t = readTensorFile(fuzz::writeInput(data[0] & 1 ? "t.pb" : "t.npy", bytes), &name);
  if (!t)
    llvm::consumeError(t.takeError());
  return 0;
}
