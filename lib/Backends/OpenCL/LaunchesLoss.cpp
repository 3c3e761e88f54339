// The OpenCL launches of losses: NLLLoss (kernels/Loss.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planLoss(LaunchBuilder &, const Instruction &) { return false; }

std::optional<bool> supportsLoss(const Node &) { return std::nullopt; }

} // namespace opencl
} // namespace ember
