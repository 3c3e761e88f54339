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

using EntryFn = int32_t (*)(uint8_t *constantWeights, uint8_t *mutableWeights,
                            uint8_t *activations);

/// Machine code for one module, alive as long as this object.
class JITCode {
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  EntryFn entry_ = nullptr;

public:
  JITCode(std::unique_ptr<llvm::orc::LLJIT> jit, EntryFn entry);
  ~JITCode();
  EntryFn entry() const { return entry_; }
};

/// Compiles \p M (already optimized) for \p opts's target and returns its \p entryName. Calls
/// the module makes outside itself (libm, memcpy) resolve against this process.
llvm::Expected<std::unique_ptr<JITCode>> jitCompile(std::unique_ptr<llvm::Module> M,
                                                    std::unique_ptr<llvm::LLVMContext> ctx,
                                                    const CPUTargetOptions &opts,
                                                    llvm::StringRef entryName);

} // namespace cpu
} // namespace ember

#endif
