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
///
/// The linked checker (onnx 1.12) knows the default domain's opsets up to kCheckerOpset. For a
/// model of a newer \p opset, the copy it checks imports kCheckerOpset, and every node whose
/// operator changed its signature after that (or holds such a node in a subgraph) is taken out
/// of the copy, its outputs made graph inputs: the checker checks all the rest by the rules it
/// knows, and the importer's own rules check those nodes. With \p strict, a warning names them.
llvm::Error checkONNXModel(const onnx::ModelProto &model, int64_t opset, bool strict,
                           std::vector<std::string> &warnings);

/// The newest default-domain opset the linked onnx checker knows.
constexpr int64_t kCheckerOpset = 17;

} // namespace ember

#endif
