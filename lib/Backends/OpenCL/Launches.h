// How the OpenCL backend runs an instruction: which kernel of the library (kernels/Library.cl)
// and with which parameters. No OpenCL API here, so it is testable and cheap to include.
#ifndef EMBER_LIB_BACKENDS_OPENCL_LAUNCHES_H
#define EMBER_LIB_BACKENDS_OPENCL_LAUNCHES_H

#include "ember/IR/IR.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ember {
namespace opencl {

/// One kernel launch: `count` work-items of `kernel`, reading its parameters at `paramOffset`
/// in the model's parameter array.
struct Launch {
  const Instruction *instr;
  std::string kernel;
  uint64_t count;
  size_t paramOffset;
};

/// The launches of a planned IRFunction, in order, and the parameter array they read.
struct LaunchPlan {
  std::vector<Launch> launches;
  std::vector<int64_t> params;
};

llvm::Expected<LaunchPlan> planLaunches(const IRFunction &IR);

/// Whether the kernel library runs \p n (its kind and element types).
bool hasKernel(const Node &n);

/// The element-wise switch functions (ember_ew_unary, ember_ew_binary) from kernels/Ops.def,
/// as OpenCL C.
std::string elementwiseSwitchSource();

} // namespace opencl
} // namespace ember

#endif
