// ONNX Det (opset 11) as a Det node (ember/Semantics/Determinant.h).
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

Error loadDet(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Det, {x}));
  return ctx.setOutput(0, y);
}

} // namespace

void registerReduceDetOps(OpRegistry &r) { r.add("Det", 11, loadDet); }

} // namespace ember
