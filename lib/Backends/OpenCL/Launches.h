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

/// Work-items per work-group unless a launch says otherwise: fixed, so that PoCL compiles each
/// kernel once (it compiles per kernel and group size).
constexpr size_t kDefaultGroup = 64;

/// One step of a model: a kernel launch, `count` work-items of `kernel` in groups of `group`,
/// reading its parameters at `paramOffset` in the model's parameter array; or, with `control`
/// nonzero, a step of the host's control flow (runtime/Runtime.h's ember_ocl_control, planned
/// by ControlFlow.cpp), its operands at `paramOffset` and no kernel. `failure` says what went
/// wrong when the kernel calls FAIL() or the control step fails.
struct Launch {
  const Instruction *instr;
  std::string kernel;
  uint64_t count;
  size_t paramOffset;
  size_t group;
  std::string failure;
  uint64_t control = 0;
};

/// The steps of a planned IRFunction, in order, and the parameter array they read.
struct LaunchPlan {
  std::vector<Launch> launches;
  std::vector<int64_t> params;
};

llvm::Expected<LaunchPlan> planLaunches(const IRFunction &IR);

/// Whether the kernel library runs \p n (its kind and element types).
bool hasKernel(const Node &n);
/// The scratch memory \p I's launches need (Backend::getScratchBytes).
uint64_t scratchBytes(const Instruction &I);

/// The element-wise operations of kernels/Ops.def as OpenCL C: the EMBER_EW_*_CASES(K) macros
/// that kernels/Elementwise.cl expands once per element kind.
std::string elementwiseSwitchSource();

} // namespace opencl
} // namespace ember

#endif
