// The OpenCL launches of selections along an axis: ArgMax, ArgMin, Hardmax, TopK, CumSum (kernels/Selection.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planSelection(LaunchBuilder &, const Instruction &) { return false; }

std::optional<bool> supportsSelection(const Node &) { return std::nullopt; }

} // namespace opencl
} // namespace ember
