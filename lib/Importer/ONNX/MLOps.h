// Shared by the ONNX-ML loaders (domain ai.onnx.ml): MLOps.cpp (preprocessing: Binarizer,
// Scaler, Normalizer, Imputer, ArrayFeatureExtractor, OneHotEncoder), MLOpsLabelEncoder.cpp,
// MLOpsLinear.cpp (LinearRegressor, LinearClassifier), MLOpsSVM.cpp (SVMRegressor,
// SVMClassifier) and
// MLOpsTree*.cpp (the tree ensembles).
// None has a node kind of its own: each is composed at import from existing ones, so it runs on
// every backend. Where the spec is silent, they follow onnxruntime's kernels, which the tests'
// expected outputs come from.
#ifndef EMBER_LIB_IMPORTER_ONNX_MLOPS_H
#define EMBER_LIB_IMPORTER_ONNX_MLOPS_H

#include "OpContext.h"

namespace ember {

void registerMLLabelEncoderOps(OpRegistry &r);
void registerMLLinearOps(OpRegistry &r);
void registerMLTreeOps(OpRegistry &r);
void registerMLSVMOps(OpRegistry &r);

/// A constant of \p kind and \p dims holding \p values (converted as Tensor::setElementFromDouble).
llvm::Expected<NodeValue> mlConstant(OpContext &ctx, ElemKind kind, llvm::ArrayRef<dim_t> dims,
                                     llvm::ArrayRef<double> values, llvm::StringRef suffix);
/// \p kind applied to \p a and \p b broadcast to their common shape (numpy rules).
llvm::Expected<NodeValue> mlBinary(OpContext &ctx, NodeKind kind, NodeValue a, NodeValue b,
                                   llvm::StringRef suffix);
/// Where(\p cond, \p a, \p b), the three broadcast to their common shape.
llvm::Expected<NodeValue> mlWhere(OpContext &ctx, NodeValue cond, NodeValue a, NodeValue b,
                                  llvm::StringRef suffix);
/// \p v converted to \p kind; v itself when it has that kind.
llvm::Expected<NodeValue> mlCast(OpContext &ctx, NodeValue v, ElemKind kind,
                                 llvm::StringRef suffix);
llvm::Expected<NodeValue> mlUnary(OpContext &ctx, NodeValue v, llvm::StringRef function,
                                  llvm::StringRef suffix);

/// Input 0 of a model operator that reads rows of features (the linear models, the tree
/// ensembles): [C] is one row, [N, C] N rows; other ranks are refused. Returns it as [N, C] of
/// \p kind (integers convert as onnxruntime casts them, to float).
llvm::Expected<NodeValue> mlFeatureRows(OpContext &ctx, ElemKind kind);

/// What a model operator applies to its scores (attribute post_transform).
enum class PostTransform { None, Softmax, Logistic, SoftmaxZero, Probit };
/// Attribute post_transform; an unknown name is refused.
llvm::Expected<PostTransform> readPostTransform(OpContext &ctx);
/// \p t applied to the rows of \p scores ([N, K]) as onnxruntime computes it (SOFTMAX_ZERO leaves
/// out the zero scores, PROBIT is its approximation of sqrt(2) * erfinv(2x - 1)).
llvm::Expected<NodeValue> applyPostTransform(OpContext &ctx, PostTransform t, NodeValue scores);

/// An attribute holding numbers: \p name as floats, or \p name + "_as_tensor" (any numeric
/// kind), read as doubles; empty when neither is there. Both is an error.
llvm::Expected<std::vector<double>> mlNumbers(OpContext &ctx, llvm::StringRef name);
/// A tensor attribute's values as doubles (\p name names it in errors); numeric kinds only.
llvm::Expected<std::vector<double>> mlTensorNumbers(OpContext &ctx, const onnx::TensorProto &t,
                                                    llvm::StringRef name);

} // namespace ember

#endif
