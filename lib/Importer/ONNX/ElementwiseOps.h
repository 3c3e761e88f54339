// Shared by the element-wise loader files (ElementwiseOps*.cpp): registration of the parts and the
// numpy-broadcasting helper, and Cast's node (Cast, CastLike, Bernoulli).
#ifndef EMBER_LIB_IMPORTER_ONNX_ELEMENTWISEOPS_H
#define EMBER_LIB_IMPORTER_ONNX_ELEMENTWISEOPS_H

#include "OpContext.h"

namespace ember {

/// Unary math functions and activations (ElementwiseOpsActivations.cpp); called by registerElementwiseOps.
void registerElementwiseActivationOps(OpRegistry &r);

/// \p values broadcast (numpy multidirectional rules) to their common dims.
llvm::Expected<llvm::SmallVector<NodeValue, 3>> broadcastTogether(OpContext &ctx,
                                                                  llvm::ArrayRef<NodeValue> values);

/// Binds output 0 to \p x cast to \p to (\p x itself when it has that kind already); \p saturate
/// is Cast-19's attribute (to a float8 kind, out of range gives the largest finite value).
llvm::Error createCast(OpContext &ctx, NodeValue x, ElemKind to, bool saturate = true);

} // namespace ember

#endif
