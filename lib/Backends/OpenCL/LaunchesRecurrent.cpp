// The OpenCL launches of recurrent layers: RNN, GRU, LSTM (kernels/Recurrent.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planRecurrent(LaunchBuilder &, const Instruction &) { return false; }

std::optional<bool> supportsRecurrent(const Node &) { return std::nullopt; }

} // namespace opencl
} // namespace ember
