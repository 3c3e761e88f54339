// What the per-family launch planners (Launches<Family>.cpp) share: the parameter array being
// built, operand places, strides, the kernels' element kind codes, and the strided copy many
// data movement instructions become. Each family file registers its node kinds' planners and
// support checks in the kernel table (KernelTable.h).
#ifndef EMBER_LIB_BACKENDS_OPENCL_LAUNCHBUILDER_H
#define EMBER_LIB_BACKENDS_OPENCL_LAUNCHBUILDER_H

#include "Launches.h"

#include "ember/Backends/KernelKinds.h"
#include "ember/Base/Dims.h"
#include "ember/Graph/Node.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <array>

namespace ember {
namespace opencl {

class LaunchBuilder {
  LaunchPlan &plan_;
  using Iter = IRFunction::InstrList::const_iterator;
  /// The instructions after the one being planned (set by planLaunches).
  Iter after_, end_;

public:
  explicit LaunchBuilder(LaunchPlan &plan) : plan_(plan) {}

  /// The instructions after the one being planned: [after, end).
  void setRest(Iter after, Iter end) {
    after_ = after;
    end_ = end;
  }
  /// Whether nothing in [from, end) reads \p v's storage before it is deallocated: an
  /// activation never read again (false for weights, which outlive the run).
  static bool unreadFrom(Iter from, Iter end, IRValue *v);
  /// Whether nothing after the instruction being planned reads \p v: a result (MaxPool's
  /// indices, say) that need not be written.
  bool unreadAfter(IRValue *v) const { return unreadFrom(after_, end_, v); }

  /// Adds a launch of \p count work-items of \p kernel for \p I; its parameters are \p count
  /// (P[0] in the kernel) followed by \p params, in work-groups of \p group. Nothing for count
  /// 0. \p failure is the run's error when the kernel calls FAIL(); empty for the kernels that
  /// never do (a bundle then lists no run-time error for the launch). True (planned), so a
  /// family's planner can return it.
  llvm::Expected<bool> add(const Instruction &I, llvm::StringRef kernel, uint64_t count,
                           llvm::ArrayRef<int64_t> params, size_t group = kDefaultGroup,
                           llvm::StringRef failure = "");
  /// Adds a step of the host's control flow for \p I: \p control (runtime/Runtime.h's
  /// ember_ocl_control) with its operands \p operands, and \p failure, what its failing means.
  /// Its index among the steps.
  size_t addControl(const Instruction &I, uint64_t control, llvm::ArrayRef<int64_t> operands,
                    llvm::StringRef failure = "");
  /// The index the next step planned gets: where a jump over what was planned so far goes.
  size_t nextStep() const { return plan_.launches.size(); }
  /// Sets operand \p k of control step \p step (a jump's target, once it is known).
  void setOperand(size_t step, size_t k, int64_t value) {
    plan_.params[plan_.launches[step].paramOffset + k] = value;
  }
  /// A strided copy (Library's copy_nd_<bytes>); per output dim {out dim, out stride, in dim,
  /// in stride, start, step}; \p fill is the place of the value read outside the input, or -1.
  llvm::Expected<bool> copyND(const Instruction &I, int64_t y, int64_t x, int64_t fill,
                              size_t elemBytes, llvm::ArrayRef<std::array<int64_t, 6>> dims);
  /// A strided copy that reads inside x only: per output dim {dim, out stride, in stride} (an
  /// in stride of 0 repeats, as a broadcast does). Dims of 1 are dropped and dims that are
  /// contiguous in both merged; when the innermost is then a run contiguous in the result, a
  /// copy by runs (DataMovement.cl's copy_runs_<bytes>, vectorized), else copy_nd.
  llvm::Expected<bool> copyStrided(const Instruction &I, int64_t y, int64_t x, size_t elemBytes,
                                   llvm::ArrayRef<std::array<int64_t, 3>> dims);
};

/// A value's place: region << 48 | byte offset (Common.cl's place()).
int64_t placeOf(IRValue *v);
/// Row-major strides in elements.
std::vector<int64_t> stridesOf(llvm::ArrayRef<dim_t> dims);
/// A float's bits, as kernels read them with PF().
int64_t floatBits(float f);
/// Plans the host's control flow: the markers of If and Loop (IR.h) and StoreIteration, as
/// control steps (ControlFlow.cpp). Holds the regions open while the instructions are planned
/// in order.
class ControlFlowPlanner {
  /// The open regions, innermost last: the step of their IfBegin, IfElse or LoopBegin.
  struct Open {
    size_t step;
    const Instruction *marker;
  };
  std::vector<Open> open_;

public:
  /// Plans \p I when it is one of those kinds (true), else nothing (false).
  llvm::Expected<bool> plan(LaunchBuilder &b, const Instruction &I);
  /// After the last instruction: an error when a region was left open.
  llvm::Error finish() const;
};

/// Plans \p I and \p J, the next instruction that computes, as one launch of the float32
/// element-wise fast path when they form a chain it fuses (LaunchesElementwise.cpp): a fast
/// unary op then a binary one of its input and result (SiLU: x * sigmoid(x)), or a Broadcast
/// then a binary op reading it. \p deadAfterJ(): nothing after J reads I's result, which then
/// is never written. False (nothing planned) when they do not fuse.
llvm::Expected<bool> planElementwisePair(LaunchBuilder &b, const Instruction &I,
                                         const Instruction &J,
                                         llvm::function_ref<bool()> deadAfterJ);

/// [code, a bits, b bits] of the fused activation of a FusedConv, FusedMatMul or
/// FullyConnected, as nn_activation (Common.cl) takes it: code 0 for none (and for the unfused
/// kinds), -1 for a row of Nodes/FusedActivations.def it does not have (LaunchesNN.cpp).
std::array<int64_t, 3> fusedActivationParams(const Instruction &I);

/// The fast paths of float32 convolutions (GEMM, depthwise) and matrix products
/// (LaunchesGemm.cpp), which the NN rows try before the generic kernels (false: not one they
/// take), and the scratch bytes their im2col and padded depthwise input need.
llvm::Expected<bool> planGemm(LaunchBuilder &b, const Instruction &I);
uint64_t gemmScratchBytes(const Instruction &I);

} // namespace opencl
} // namespace ember

#endif
