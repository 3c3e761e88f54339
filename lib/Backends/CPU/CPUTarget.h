// Target selection for the CPU backend, in one place: the triple, CPU and features, code model
// and relocation model. The JIT uses the host's; a bundle writer (issue 7) fills them from
// -target/-mcpu/-mattr flags. Private to lib/Backends/CPU (LLVM types stay out of public headers).
#ifndef EMBER_LIB_BACKENDS_CPU_CPUTARGET_H
#define EMBER_LIB_BACKENDS_CPU_CPUTARGET_H

#include "llvm/Support/CodeGen.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <optional>
#include <string>

namespace ember {
namespace cpu {

struct CPUTargetOptions {
  std::string triple;   ///< e.g. x86_64-unknown-linux-gnu
  std::string cpu;      ///< e.g. znver4, skylake-avx512, neoverse-n1, generic
  std::string features; ///< LLVM feature string: "+avx2,+fma,-avx512f"
  std::optional<llvm::CodeModel::Model> codeModel;
  llvm::Reloc::Model relocModel = llvm::Reloc::PIC_;
  llvm::CodeGenOptLevel optLevel = llvm::CodeGenOptLevel::Aggressive;

  /// The machine this process runs on: its triple, CPU name and every feature it has.
  static CPUTargetOptions host();
};

/// A TargetMachine for \p opts; an error for an unknown triple or an architecture the kernel
/// library is not built for.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CPUTargetOptions &opts);

/// Whether \p TM's features give 32 vector registers of 16 floats (AVX-512): the GEMM and conv
/// kernels then use their wide register tile.
bool hasWideVectors(const llvm::TargetMachine &TM);

} // namespace cpu
} // namespace ember

#endif
