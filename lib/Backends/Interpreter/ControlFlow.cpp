// Control flow: If and Loop become markers around their bodies' instructions (IR.h), which the
// Interpreter's walk follows (Interpreter.cpp); here are the node kinds' entries and the one
// marker that moves data, StoreIteration.
#include "Kernels.h"

#include <cstring>

using namespace llvm;

namespace ember {
namespace interp {

// Whether the Interpreter runs If or Loop depends on its bodies' nodes, which the driver checks
// one by one like any other.
bool supportsIf(const Node &) { return true; }
bool supportsLoop(const Node &) { return true; }
bool supportsBodyInput(const Node &) { return true; }
bool supportsBodyOutput(const Node &) { return true; }

static Error generatedAsMarkers(const KernelContext &ctx) {
  return ctx.unsupported("control flow is generated as markers around its bodies");
}
Error runIf(const KernelContext &ctx) { return generatedAsMarkers(ctx); }
Error runLoop(const KernelContext &ctx) { return generatedAsMarkers(ctx); }
Error runBodyInput(const KernelContext &ctx) { return generatedAsMarkers(ctx); }
Error runBodyOutput(const KernelContext &ctx) { return generatedAsMarkers(ctx); }

Error runStoreIteration(const KernelContext &ctx) {
  TensorArg dest = ctx.out(), value = ctx.in(0), iter = ctx.in(1);
  int64_t i = *reinterpret_cast<const int64_t *>(iter.data);
  uint64_t bytes = value.sizeInBytes();
  if (i < 0 || uint64_t(i) >= dest.type.dims[0])
    return ctx.unsupported("iteration " + Twine(i) + " is past the scan output's " +
                           Twine(dest.type.dims[0]) + " slices");
  std::memcpy(dest.data + uint64_t(i) * bytes, value.data, bytes);
  return Error::success();
}

} // namespace interp
} // namespace ember
