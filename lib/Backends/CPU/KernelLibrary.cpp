// Loading and linking the embedded kernel bitcode: see KernelLibrary.h.
#include "KernelLibrary.h"

#include "ember/Support/Error.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

// Defined by the generated KernelBitcode.S (see CMakeLists.txt).
extern "C" const char ember_cpu_kernels_x86_64_start[], ember_cpu_kernels_x86_64_end[];
extern "C" const char ember_cpu_kernels_aarch64_start[], ember_cpu_kernels_aarch64_end[];

namespace ember {
namespace cpu {

namespace {
StringRef bitcodeFor(Triple::ArchType arch) {
  switch (arch) {
  case Triple::x86_64:
    return StringRef(ember_cpu_kernels_x86_64_start,
                     ember_cpu_kernels_x86_64_end - ember_cpu_kernels_x86_64_start);
  case Triple::aarch64:
    return StringRef(ember_cpu_kernels_aarch64_start,
                     ember_cpu_kernels_aarch64_end - ember_cpu_kernels_aarch64_start);
  default:
    return StringRef();
  }
}
} // namespace

Expected<std::unique_ptr<llvm::Module>> loadKernelLibrary(LLVMContext &ctx,
                                                          const TargetMachine &TM) {
  const Triple &triple = TM.getTargetTriple();
  StringRef bitcode = bitcodeFor(triple.getArch());
  if (bitcode.empty())
    return makeError("no CPU kernel library for architecture '" + triple.getArchName() + "'");
  // The bytes live in this binary's .rodata for the life of the process.
  auto lazy = getLazyBitcodeModule(MemoryBufferRef(bitcode, "ember-cpu-kernels"), ctx);
  if (!lazy)
    return makeError("cannot read the embedded CPU kernel library: " +
                     toString(lazy.takeError()));
  std::unique_ptr<llvm::Module> M = std::move(*lazy);
  M->setTargetTriple(triple.str());
  M->setDataLayout(TM.createDataLayout());
  return std::move(M);
}

Error linkKernels(llvm::Module &M, std::unique_ptr<llvm::Module> library,
                  const TargetMachine &TM) {
  if (Linker::linkModules(M, std::move(library), Linker::Flags::LinkOnlyNeeded))
    return makeError("cannot link the CPU kernel library into the model's module");
  // Every function runs on the target CPU with its features; a kernel compiled for features of
  // its own (a Variants.def row: target("avx512f")) keeps them too, listed last so that they win
  // over the target's explicit "-feature" entries. Codegen only calls such a kernel when the
  // target has its features (selectKernelVariant), so this never enables what the CPU lacks.
  std::string cpu = TM.getTargetCPU().str(), features = TM.getTargetFeatureString().str();
  for (llvm::Function &F : M) {
    if (F.isDeclaration())
      continue;
    std::string own = F.getFnAttribute("target-features").getValueAsString().str();
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
    F.removeFnAttr("tune-cpu");
    F.addFnAttr("target-cpu", cpu);
    std::string merged = features;
    if (!own.empty())
      merged += (merged.empty() ? "" : ",") + own;
    if (!merged.empty())
      F.addFnAttr("target-features", merged);
    // No type-based alias information: within one kernel clang's TBAA is sound C++, but the
    // model's function inlines kernels that see the same bytes as different types. The memory
    // plan gives a dead float buffer's bytes to a byte mover that stores them as int64 (a
    // Broadcast, a Where), and a float kernel then reads them; TBAA said the int64 stores could
    // not alias the float load, so LLVM forwarded the float the dead buffer had held (an
    // Attention's mask added as its scaled queries, at -O3 only).
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB) {
        I.setMetadata(llvm::LLVMContext::MD_tbaa, nullptr);
        I.setMetadata(llvm::LLVMContext::MD_tbaa_struct, nullptr);
      }
  }
  return Error::success();
}

} // namespace cpu
} // namespace ember
