// The OpenCL launches of indexed data movement: GatherElements, GatherND, ScatterElements, ScatterND, OneHot, Trilu,
// ReverseSequence, Range, MaxUnpool (kernels/Indexed.cl).
#include "LaunchBuilder.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace opencl {

Expected<bool> planIndexed(LaunchBuilder &, const Instruction &) { return false; }

std::optional<bool> supportsIndexed(const Node &) { return std::nullopt; }

} // namespace opencl
} // namespace ember
