// ONNX quantization, recurrent and control-flow ops (QuantizeLinear, QLinearConv, LSTM, If, ...).
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {} // namespace

void registerQuantOps(OpRegistry &r) {}

} // namespace ember
