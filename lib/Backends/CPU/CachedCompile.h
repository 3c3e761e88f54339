// Machine code for the JIT in parts, through the process's CodeCache (CodeCache.h). An optimized
// generated module is split after LLVM's pipeline, when nothing will change a function's IR any
// more: each function that came from the kernel library is a part of its own (with the
// constants it reads), and the functions codegen wrote for the model (the model function, its
// team functions and part functions) are one more. Each part is keyed by its bitcode and the
// target, and compiled only when the cache lacks it. A kernel's part does not depend on the
// model that called it unless LLVM specialized it for that model (at -O3 it may inline, clone or
// propagate constants into it: its IR, and so its key, then differ), so the kernels a compile
// calls are mostly compiled already after the first few compiles of a process.
//
// Bundles do not go through this: ObjectWriter emits the module as one object, as before.
#ifndef EMBER_LIB_BACKENDS_CPU_CACHEDCOMPILE_H
#define EMBER_LIB_BACKENDS_CPU_CACHEDCOMPILE_H

#include "CodeCache.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>
#include <vector>

namespace ember {
namespace cpu {

/// Compiles the optimized \p M for \p TM as relocatable objects, one per part, taking from and
/// adding to \p cache. The functions codegen defined are named after the entry, \p entryName
/// (CodeGen.h: the model function, its part functions, the entry and team functions); every
/// other function defined in \p M is a kernel's. (A function counted on the wrong side only
/// lands in another part: a part's key is its content, so the code is right either way.) The
/// parts call each other by name: the kernels become external symbols of \p M, with default
/// visibility, reached through the GOT and PLT so that parts loaded far apart still link.
llvm::Expected<std::vector<std::shared_ptr<const std::string>>>
compileInParts(llvm::Module &M, llvm::TargetMachine &TM, llvm::StringRef entryName,
               CodeCache &cache);

} // namespace cpu
} // namespace ember

#endif
