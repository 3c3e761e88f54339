// Tensor files: NumPy .npy, or a serialized ONNX TensorProto (.pb); and the files of ONNX's
// other values, SequenceProto and OptionalProto (.pb).
#ifndef EMBER_IMPORTER_TENSORFILES_H
#define EMBER_IMPORTER_TENSORFILES_H

#include "ember/Base/Tensor.h"
#include "ember/Importer/ModelLoader.h"

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

/// Reads \p path as a value of what \p value says it is (its `sequence` and `optional`; the
/// model's declaration: a TensorProto, a SequenceProto and an OptionalProto cannot be told apart
/// by their bytes): a tensor (`.npy`, or a TensorProto `.pb`), a SequenceProto of tensors of one
/// element kind, or an OptionalProto holding nothing, a tensor or such a sequence. Returns its
/// tensors; \p value receives their types and whether an optional holds a value, and \p name
/// (when non-null) the stored name.
llvm::Expected<std::vector<Tensor>> readValueFile(llvm::StringRef path, GraphValue &value,
                                                  std::string *name = nullptr);

/// Writes \p tensors as \p value says: a TensorProto (as writeONNXTensorFile), a SequenceProto
/// or an OptionalProto, named value.name.
llvm::Error writeValueFile(llvm::StringRef path, const GraphValue &value,
                           llvm::ArrayRef<Tensor> tensors);

} // namespace ember

#endif
