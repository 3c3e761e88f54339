// ThreadSanitizer over a generated module (CodeGen.h: instrumentForThreadSanitizer): for bundles
// compiled with model-compiler -sanitize-bundle=thread, and for the JIT in a process built with
// TSan. Generated code is otherwise invisible to TSan: it sees the kernels' memcpy and memset
// (libc calls its runtime intercepts) but not the team's atomics that order them, and reports
// every hand-over between the team's threads as a race.
#include "CodeGen.h"

#include "ember/Support/Error.h"

#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Transforms/Instrumentation/ThreadSanitizer.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// The pass calls __tsan_memcpy and the like for the memory intrinsics, which GCC's runtime
/// (libtsan of GCC 12, what an EMBER_SANITIZE=thread build links) does not have; every runtime
/// intercepts libc's own, which check the same ranges.
Error callLibcMemoryFunctions(llvm::Module &M) {
  for (auto [tsan, libc] : {std::pair<StringRef, StringRef>{"__tsan_memcpy", "memcpy"},
                            {"__tsan_memmove", "memmove"},
                            {"__tsan_memset", "memset"}}) {
    llvm::Function *F = M.getFunction(tsan);
    if (!F)
      continue;
    llvm::Function *existing = M.getFunction(libc);
    if (!existing) {
      F->setName(libc);
      continue;
    }
    if (existing->getFunctionType() != F->getFunctionType())
      return makeError("ThreadSanitizer: the module declares '" + libc +
                       "' with another type than the pass's '" + tsan + "'");
    F->replaceAllUsesWith(existing);
    F->eraseFromParent();
  }
  return Error::success();
}

} // namespace

Error instrumentForThreadSanitizer(llvm::Module &M) {
  // The function pass alone, over every function, the kernels' included (the team's atomics
  // are in the kernel library). ModuleThreadSanitizerPass would add a constructor calling
  // __tsan_init, a writable llvm.global_ctors that a bundle must not have; the runtime of the
  // program (or of this process) starts before any call reaches the model.
  FunctionAnalysisManager FAM;
  FAM.registerPass([] { return PassInstrumentationAnalysis(); }); // every manager needs it
  FAM.registerPass([] { return TargetLibraryAnalysis(); });
  ThreadSanitizerPass pass;
  for (llvm::Function &F : M)
    if (!F.isDeclaration()) {
      F.addFnAttr(Attribute::SanitizeThread);
      pass.run(F, FAM);
    }
  return callLibcMemoryFunctions(M);
}

} // namespace cpu
} // namespace ember
