// The onnx package's checker, with the findings onnxruntime and Glow load anyway tolerated.
#ifndef EMBER_LIB_IMPORTER_ONNX_ONNXCHECKER_H
#define EMBER_LIB_IMPORTER_ONNX_ONNXCHECKER_H

#include "llvm/Support/Error.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace ember {

/// Runs onnx::checker::check_model on \p model. With \p strict, any finding is an error. Without
/// it, the findings that leave the model unambiguous are first repaired in a copy of the model
/// (made only when one is found; \p model itself is never changed, and the importer reads it
/// as it is) and described in \p warnings, one line per kind of finding; whatever the checker
/// still finds in the repaired copy is an error. Errors read "invalid ONNX model: <finding>".
llvm::Error checkONNXModel(const onnx::ModelProto &model, bool strict,
                           std::vector<std::string> &warnings);

} // namespace ember

#endif
