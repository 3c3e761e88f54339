// ONNX TensorProto <-> ember Tensor.
#ifndef EMBER_LIB_IMPORTER_ONNX_ONNXTENSOR_H
#define EMBER_LIB_IMPORTER_ONNX_ONNXTENSOR_H

#include "ember/Base/Tensor.h"

#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

namespace ember {

/// The ElemKind of an ONNX TensorProto::DataType, or an error naming the unsupported type.
llvm::Expected<ElemKind> elemKindFromONNX(int dataType);
llvm::StringRef onnxDataTypeName(int dataType);

/// Converts \p proto, checking that its data matches its dims and type. Data stored outside
/// the file (external data) is refused.
llvm::Expected<Tensor> tensorFromONNX(const onnx::TensorProto &proto);

/// Parses a serialized TensorProto file (the ONNX test suite's input_N.pb / output_N.pb).
/// \p name receives the tensor's name (may be empty).
llvm::Expected<Tensor> readONNXTensorFile(llvm::StringRef path, std::string *name = nullptr);

} // namespace ember

#endif
