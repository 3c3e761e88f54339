// Target selection for the CPU backend, in one place: the triple, CPU and features, code model
// and relocation model, from BackendOptions (-target, -mcpu, -mattr, -code-model,
// -relocation-model). The JIT needs the host's architecture; bundles may cross-compile.
// Private to lib/Backends/CPU (LLVM types stay out of public headers).
#ifndef EMBER_LIB_BACKENDS_CPU_CPUTARGET_H
#define EMBER_LIB_BACKENDS_CPU_CPUTARGET_H

#include "ember/Backends/Backend.h"

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
  /// From the user's options: the host's unless -target names another machine, whose CPU is
  /// then "generic" unless -mcpu says; -mattr adds to or removes from the CPU's features.
  static llvm::Expected<CPUTargetOptions> fromOptions(const BackendOptions &opts);
  /// Whether code for these options runs on this machine (the JIT's condition).
  bool runsOnHost() const;
};

/// A TargetMachine for \p opts; an error for an unknown triple or CPU, or an architecture the
/// kernel library is not built for.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const CPUTargetOptions &opts);

} // namespace cpu
} // namespace ember

#endif
