// Tensor files: NumPy .npy, or a serialized ONNX TensorProto (.pb).
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

/// Writes \p t as a serialized ONNX TensorProto named \p name, its data as raw_data: lossless
/// for every element kind (bfloat16 as BFLOAT16; quantized kinds as their storage, INT8 or
/// UINT8, since a TensorProto holds no scale).
llvm::Error writeONNXTensorFile(llvm::StringRef path, const Tensor &t, llvm::StringRef name);

} // namespace ember

#endif
