// Reading tensors from files: NumPy .npy, or a serialized ONNX TensorProto (.pb).
#ifndef EMBER_IMPORTER_TENSORFILES_H
#define EMBER_IMPORTER_TENSORFILES_H

#include "ember/Base/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ember {

/// Reads \p path by its extension: `.npy`, or `.pb` (ONNX TensorProto). For `.pb`, \p name
/// receives the tensor's stored name when non-null.
llvm::Expected<Tensor> readTensorFile(llvm::StringRef path, std::string *name = nullptr);

} // namespace ember

#endif
