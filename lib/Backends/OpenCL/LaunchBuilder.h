// What the per-family launch planners (Launches<Family>.cpp) share: the parameter array being
// built, operand places, strides, the kernels' element kind codes, and the strided copy many
// data movement instructions become. Each family file defines a planner and a support check,
// declared here and tried in turn by Launches.cpp.
#ifndef EMBER_LIB_BACKENDS_OPENCL_LAUNCHBUILDER_H
#define EMBER_LIB_BACKENDS_OPENCL_LAUNCHBUILDER_H

#include "Launches.h"

#include "ember/Graph/Node.h"

#include <array>
#include <optional>

namespace ember {
namespace opencl {

class LaunchBuilder {
  LaunchPlan &plan_;

public:
  explicit LaunchBuilder(LaunchPlan &plan) : plan_(plan) {}

  /// Adds a launch of \p count work-items of \p kernel for \p I; its parameters are \p count
  /// (P[0] in the kernel) followed by \p params, in work-groups of \p group. Nothing for count
  /// 0. \p failure is the run's error when the kernel calls FAIL(). True (planned), so a
  /// family's planner can return it.
  llvm::Expected<bool> add(const Instruction &I, llvm::StringRef kernel, uint64_t count,
                           llvm::ArrayRef<int64_t> params, size_t group = kDefaultGroup,
                           llvm::StringRef failure = "an index is out of range");
  /// A strided copy (Library's copy_nd_<bytes>); per output dim {out dim, out stride, in dim,
  /// in stride, start, step}; \p fill is the place of the value read outside the input, or -1.
  llvm::Expected<bool> copyND(const Instruction &I, int64_t y, int64_t x, int64_t fill,
                              size_t elemBytes, llvm::ArrayRef<std::array<int64_t, 6>> dims);
};

/// A value's place: region << 48 | byte offset (Common.cl's place()).
int64_t placeOf(IRValue *v);
/// Row-major strides in elements.
std::vector<int64_t> stridesOf(llvm::ArrayRef<dim_t> dims);
/// A float's bits, as kernels read them with PF().
int64_t floatBits(float f);
/// The suffix of the kernel instantiated for kind \p k (Common.cl's FOR_EACH_KIND): "f32",
/// "bf16", "u8", "bool", ...; quantized kinds are their storage kinds (qint8 "i8").
llvm::StringRef kindSuffix(ElemKind k);

// One per family: plan \p I's launches (false: not a kind of this family), and whether the
// family's kernels run \p n (std::nullopt: not a kind of this family).
#define EMBER_OPENCL_FAMILY(F)                                                                     \
  llvm::Expected<bool> plan##F(LaunchBuilder &b, const Instruction &I);                          \
  std::optional<bool> supports##F(const Node &n);
EMBER_OPENCL_FAMILY(Elementwise)
EMBER_OPENCL_FAMILY(DataMovement)
EMBER_OPENCL_FAMILY(NN)
EMBER_OPENCL_FAMILY(Normalization)
EMBER_OPENCL_FAMILY(Reduce)
EMBER_OPENCL_FAMILY(Quantized)
EMBER_OPENCL_FAMILY(Indexed)
EMBER_OPENCL_FAMILY(Selection)
EMBER_OPENCL_FAMILY(Recurrent)
EMBER_OPENCL_FAMILY(Loss)
#undef EMBER_OPENCL_FAMILY

/// [code, a bits, b bits] of the fused activation of a FusedConv, FusedMatMul or
/// FullyConnected, as nn_activation (Common.cl) takes it: code 0 for none (and for the unfused
/// kinds), -1 for a row of Nodes/FusedActivations.def it does not have (LaunchesNN.cpp).
std::array<int64_t, 3> fusedActivationParams(const Instruction &I);

/// The fast paths of float32 convolutions (GEMM, depthwise) and matrix products
/// (LaunchesGemm.cpp), tried before the families, and the scratch bytes its im2col needs.
llvm::Expected<bool> planGemm(LaunchBuilder &b, const Instruction &I);
uint64_t gemmScratchBytes(const Instruction &I);

} // namespace opencl
} // namespace ember

#endif
