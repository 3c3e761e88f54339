// ORC LLJIT execution: see JIT.h.
#include "JIT.h"

#include "CachedCompile.h"
#include "CodeGen.h"

#include "ember/Support/Error.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace ember {
namespace cpu {

JITCode::JITCode(std::unique_ptr<orc::LLJIT> jit, EntryPoints entry)
    : jit_(std::move(jit)), entry_(entry) {}
JITCode::~JITCode() = default;

Expected<std::unique_ptr<JITCode>> jitCompile(std::unique_ptr<llvm::Module> M,
                                              std::unique_ptr<LLVMContext> ctx,
                                              const CPUTargetOptions &opts, StringRef entryName) {
  orc::JITTargetMachineBuilder JTMB{Triple(Triple::normalize(opts.triple))};
  JTMB.setCPU(opts.cpu);
  SubtargetFeatures features(opts.features);
  JTMB.addFeatures(features.getFeatures());
  JTMB.setCodeGenOptLevel(opts.optLevel);
  JTMB.setRelocationModel(opts.relocModel);
  if (opts.codeModel)
    JTMB.setCodeModel(*opts.codeModel);
  // The machine code of the parts, compiled by the target machine the JIT would have used.
  std::vector<std::shared_ptr<const std::string>> objects;
  CodeCache &cache = CodeCache::process();
  if (cache.enabled()) {
    auto TM = JTMB.createTargetMachine();
    if (!TM)
      return makeError("cannot create the JIT's target machine: " + toString(TM.takeError()));
    EMBER_ASSIGN_OR_RETURN(objects, compileInParts(*M, **TM, entryName, cache));
    M.reset();
    ctx.reset();
  }
  auto jit = orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(JTMB)).create();
  if (!jit)
    return makeError("cannot create the JIT: " + toString(jit.takeError()));
  orc::LLJIT &J = **jit;
  auto gen = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      J.getDataLayout().getGlobalPrefix());
  if (!gen)
    return makeError("JIT symbol resolution: " + toString(gen.takeError()));
  J.getMainJITDylib().addGenerator(std::move(*gen));
  if (M) {
    if (Error e = J.addIRModule(orc::ThreadSafeModule(std::move(M), std::move(ctx))))
      return makeError("JIT: " + toString(std::move(e)));
  }
  // Copies: the cache may drop its objects while the JIT links them.
  for (const std::shared_ptr<const std::string> &object : objects)
    if (Error e = J.addObjectFile(MemoryBuffer::getMemBufferCopy(*object, "ember-part")))
      return makeError("JIT: " + toString(std::move(e)));
  EntryPoints entry{};
  auto find = [&](StringRef name, auto &fn) -> Error {
    auto sym = J.lookup(name);
    if (!sym)
      return makeError("JIT compilation failed: " + toString(sym.takeError()));
    fn = sym->toPtr<std::remove_reference_t<decltype(fn)>>();
    return Error::success();
  };
  EMBER_TRY(find(entryName, entry.entry));
  EMBER_TRY(find(onTeamName(entryName), entry.onTeam));
  EMBER_TRY(find(teamStartName(entryName), entry.teamStart));
  EMBER_TRY(find(teamStopName(entryName), entry.teamStop));
  return std::make_unique<JITCode>(std::move(*jit), entry);
}

} // namespace cpu
} // namespace ember
