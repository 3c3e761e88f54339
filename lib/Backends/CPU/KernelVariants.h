// Which target-specific variant of the float32 GEMM and convolution kernels codegen calls: the
// first row of kernels/Variants.def whose architecture is the target's and whose features the
// target CPU has. Private to lib/Backends/CPU.
#ifndef EMBER_LIB_BACKENDS_CPU_KERNELVARIANTS_H
#define EMBER_LIB_BACKENDS_CPU_KERNELVARIANTS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace ember {
namespace cpu {

/// One row of kernels/Variants.def.
struct KernelVariant {
  llvm::StringRef name;     ///< the entries' suffix: ember_conv2d_f32_<name>
  llvm::StringRef arch;     ///< x86_64 or aarch64
  llvm::StringRef features; ///< clang target features, comma-separated
  int MR, NV;               ///< the register tile: MR rows x NV vectors of 16 floats
  int64_t NR() const { return int64_t(NV) * 16; } ///< the tile's columns
};

/// Every row, in the order they are tried.
llvm::ArrayRef<KernelVariant> kernelVariants();

/// The first row \p TM can run; an error if none (e.g. -mattr=-neon).
llvm::Expected<const KernelVariant *> selectKernelVariant(const llvm::TargetMachine &TM);

/// One row of kernels/QuantizedIntegerVariants.def: a variant of the int8 GEMM behind
/// IntegerConv and IntegerMatMul, chosen the same way among its own rows.
struct IntegerKernelVariant {
  llvm::StringRef name;     ///< the entries' suffix: ember_integer_conv2d_<name>
  llvm::StringRef arch;     ///< x86_64 or aarch64
  llvm::StringRef features; ///< clang target features, comma-separated
};

/// The first int8 row the CPU \p TM compiles for can run (its CPU name and -mattr features).
llvm::Expected<const IntegerKernelVariant *>
selectIntegerKernelVariant(const llvm::TargetMachine &TM);

} // namespace cpu
} // namespace ember

#endif
