// Shared by the element-wise loader files (MathOps*.cpp): registration of the parts and the
// numpy-broadcasting helper.
#ifndef EMBER_LIB_IMPORTER_ONNX_MATHOPS_H
#define EMBER_LIB_IMPORTER_ONNX_MATHOPS_H

#include "OpContext.h"

namespace ember {

/// Unary math functions and activations (MathOpsActivations.cpp); called by registerMathOps.
void registerMathActivationOps(OpRegistry &r);

/// \p values broadcast (numpy multidirectional rules) to their common dims.
llvm::Expected<llvm::SmallVector<NodeValue, 3>> broadcastTogether(OpContext &ctx,
                                                                  llvm::ArrayRef<NodeValue> values);

} // namespace ember

#endif
