// The CPU backend's bundle object: the same generated module the JIT runs, for any target the
// kernel library is built for, written as a relocatable object with a C entry point (and, for
// the dynamic bundle API, a constant config struct). See ObjectWriter.h.
#include "ObjectWriter.h"

#include "CodeGen.h"
#include "kernels/Scratch.h"
#include "Common/BundleObject.h"

#include "ember/Support/Error.h"
#include "ember/Support/PhaseClock.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Object/ObjectFile.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

/// Functions the kernel library may leave as calls: the C library's memory functions, the math
/// library's (-lm), and with -threads > 1 pthreads' and the futex system call the team's idle
/// workers sleep on. Anything else would be a symbol a bundle cannot resolve.
const char *const kLibcFunctions[] = {"memcpy", "memmove", "memset"};
const char *const kPthreadFunctions[] = {"pthread_create", "pthread_join", "sched_yield",
                                         "syscall"};
/// The clock an instrumented bundle reads (-instrument; kernels/Trace.h), in libc.
const char *const kInstrumentFunctions[] = {"clock_gettime"};
const char *const kLibmFunctions[] = {
    "expf",  "exp",    "expm1f", "expm1", "logf",   "log",    "log1pf", "log1p", "sinf",
    "sin",   "cosf",   "cos",    "tanf",  "tan",    "asinf",  "asin",   "acosf", "acos",
    "atanf", "atan",   "sinhf",  "sinh",  "coshf",  "cosh",   "tanhf",  "tanh",  "asinhf",
    "asinh", "acoshf", "acosh",  "atanhf", "atanh", "erff",   "erf",    "fmodf", "fmod",
    "powf",  "pow",    "sqrtf",  "sqrt",  "floorf", "floor",  "ceilf",  "ceil",  "truncf",
    "trunc", "roundf", "round",  "rintf", "rint",   "nearbyintf", "nearbyint", "fabsf",
    "fabs",  "log2f",  "log2",   "log10f", "log10", "exp2f",  "exp2",   "cbrtf", "cbrt",
    "fminf", "fmin",   "fmaxf",  "fmax",  "fmaf",   "fma",    "erfcf",  "erfc",  "lgammaf",
    "lgamma", "tgammaf", "tgamma", "hypotf", "hypot", "atan2f", "atan2", "remainderf",
    "remainder", "copysignf", "copysign", "ldexpf", "ldexp", "frexpf", "frexp", "modff",
    "modf"};

bool listed(ArrayRef<const char *> names, StringRef n) {
  return llvm::any_of(names, [&](const char *x) { return n == x; });
}

} // namespace

Expected<ObjectInfo> writeObject(const IRFunction &IR, const ObjectOptions &opts,
                                 const CPUTargetOptions &target, const BackendOptions &backend,
                                 PhaseTimes *phases) {
  if (backend.profile)
    return makeError("-profile times a model in this process; a bundle cannot be profiled");
  PhaseClock clock(phases);
  EMBER_ASSIGN_OR_RETURN(std::unique_ptr<TargetMachine> TM, createTargetMachine(target));
  LLVMContext ctx;
  Instrumentation instrument; // no buffer of its own: the caller's, through ENTRY_traced
  EMBER_ASSIGN_OR_RETURN(GeneratedModule G,
                         generateModule(IR, ctx, *TM, opts.entryName, backend.threads, nullptr,
                                        backend.instrument ? &instrument : nullptr));
  llvm::Module &M = *G.module;
  if (!opts.configName.empty())
    EMBER_TRY(addBundleConfig(M, IR, opts));
  clock.lap("LLVM IR generation");
  optimizeModule(M, *TM);
  clock.lap("LLVM optimization");

  // What the object may need from outside: libc's memory functions and libm, nothing else;
  // and no writable data (a bundle keeps no state between calls).
  ObjectInfo info;
  info.triple = TM->getTargetTriple().str();
  info.errors = G.runtimeErrors;
  info.teamThreads = G.threads;
  info.teamBytes = scratch::kTeamBytes;
  info.instrumented = backend.instrument;
  if (backend.instrument) {
    for (const auto &I : IR.getInstrs())
      if (hasProfileSlot(I->getKind())) // the index codegen marks (CodeGen.cpp)
        info.tracedInstructions.push_back({I->getName().str(), I->getKindName().str(), ""});
    for (size_t i = 0; i < G.timedWith.size() && i < info.tracedInstructions.size(); ++i)
      if (size_t(G.timedWith[i]) != i)
        info.tracedInstructions[i].timedWith =
            info.tracedInstructions[size_t(G.timedWith[i])].name;
  }
  bool needsLibm = false, needsPthread = false;
  for (const llvm::Function &F : M) {
    if (!F.isDeclaration() || F.isIntrinsic() || F.use_empty())
      continue;
    if (listed(kLibmFunctions, F.getName()))
      needsLibm = true;
    else if (listed(kPthreadFunctions, F.getName()))
      needsPthread = true;
    else if (!listed(kLibcFunctions, F.getName()) &&
             !(backend.instrument && listed(kInstrumentFunctions, F.getName())))
      return makeError("the CPU kernel library calls '" + F.getName() +
                       "', which a bundle cannot provide");
  }
  if (needsLibm)
    info.linkFlags.push_back("-lm");
  if (needsPthread) // only a bundle compiled with -threads > 1
    info.linkFlags.push_back("-pthread");
  for (const GlobalVariable &g : M.globals())
    if (!g.isConstant() && !g.isDeclaration())
      return makeError("the generated code has writable global '" + g.getName() +
                       "': a bundle must keep no state");
  // After those checks: the instrumented code calls the TSan runtime, which the program links.
  if (backend.threadSanitizer) {
    EMBER_TRY(instrumentForThreadSanitizer(M));
    info.linkFlags.push_back("-fsanitize=thread");
  }

  EMBER_TRY(dumpModule(M, *TM, backend));
  using ObjectBytes = SmallVector<char, 0>;
  EMBER_ASSIGN_OR_RETURN(ObjectBytes object, emitObjectCode(M, *TM));
  // Code generation turns math intrinsics (llvm.pow on a target without a vector form, say)
  // into libm calls the IR does not show: the object's undefined symbols are what it needs.
  auto parsed = object::ObjectFile::createObjectFile(
      MemoryBufferRef(StringRef(object.data(), object.size()), opts.path));
  if (!parsed)
    return makeError("the emitted object cannot be read back: " +
                     toString(parsed.takeError()));
  for (const object::SymbolRef &sym : (*parsed)->symbols()) {
    Expected<uint32_t> flags = sym.getFlags();
    Expected<StringRef> name = sym.getName();
    if (!flags || !name) {
      consumeError(flags.takeError());
      consumeError(name.takeError());
      continue;
    }
    if ((*flags & object::SymbolRef::SF_Undefined) && listed(kLibmFunctions, *name) &&
        !needsLibm) {
      needsLibm = true;
      info.linkFlags.insert(info.linkFlags.begin(), "-lm");
    }
  }
  EMBER_TRY(writeObjectFile(opts.path, object));
  clock.lap("object file");
  return info;
}

} // namespace cpu
} // namespace ember
