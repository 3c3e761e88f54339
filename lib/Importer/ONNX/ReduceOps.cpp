// ONNX reductions, normalizations and selections (ReduceSum, ArgMax, TopK, LayerNormalization, ...).
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {} // namespace

void registerReduceOps(OpRegistry &r) {}

} // namespace ember
