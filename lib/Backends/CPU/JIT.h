// Running a generated module in this process with ORC's LLJIT (the model-runner path; bundles
// write the same module as an object file instead).
#ifndef EMBER_LIB_BACKENDS_CPU_JIT_H
#define EMBER_LIB_BACKENDS_CPU_JIT_H

#include "CPUTarget.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>

namespace llvm {
namespace orc {
class LLJIT;
}
} // namespace llvm

namespace ember {
namespace cpu {

/// The generated module's entry and team functions (CodeGen.h: GeneratedModule).
struct EntryPoints {
  int32_t (*entry)(uint8_t *constantWeights, uint8_t *mutableWeights, uint8_t *activations);
  int32_t (*onTeam)(void *team, uint8_t *constantWeights, uint8_t *mutableWeights,
                    uint8_t *activations);
  void *(*teamStart)(void *storage);
  void (*teamStop)(void *team);
};

/// Machine code for one module, alive as long as this object.
class JITCode {
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  EntryPoints entry_;

public:
  JITCode(std::unique_ptr<llvm::orc::LLJIT> jit, EntryPoints entry);
  ~JITCode();
  const EntryPoints &entry() const { return entry_; }
};

/// Compiles \p M (already optimized) for \p opts's target and returns its \p entryName with
/// its team functions. Calls the module makes outside itself (libm, memcpy, pthreads) resolve
/// against this process.
llvm::Expected<std::unique_ptr<JITCode>> jitCompile(std::unique_ptr<llvm::Module> M,
                                                    std::unique_ptr<llvm::LLVMContext> ctx,
                                                    const CPUTargetOptions &opts,
                                                    llvm::StringRef entryName);

} // namespace cpu
} // namespace ember

#endif
