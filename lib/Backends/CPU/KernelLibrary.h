// The kernel library (kernels/*.cpp), compiled to bitcode per architecture at build time and
// embedded in the binary. A model's module declares the kernels it calls; linkKernels then
// brings in just those (and what they call) from a lazily read copy of the library, so the cost
// of a compile follows the model, not the size of the library.
#ifndef EMBER_LIB_BACKENDS_CPU_KERNELLIBRARY_H
#define EMBER_LIB_BACKENDS_CPU_KERNELLIBRARY_H

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

namespace ember {
namespace cpu {

/// The kernel library for \p TM's architecture, read lazily into \p ctx: declarations and
/// types are there at once, bodies only when linked. Its triple and data layout are \p TM's.
llvm::Expected<std::unique_ptr<llvm::Module>> loadKernelLibrary(llvm::LLVMContext &ctx,
                                                                const llvm::TargetMachine &TM);

/// Links into \p M the library functions it calls (transitively), then gives every function
/// defined in \p M the CPU and features of \p TM, plus the features a kernel variant was
/// compiled with (kernels/Variants.def).
llvm::Error linkKernels(llvm::Module &M, std::unique_ptr<llvm::Module> library,
                        const llvm::TargetMachine &TM);

} // namespace cpu
} // namespace ember

#endif
