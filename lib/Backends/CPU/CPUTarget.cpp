// Target selection: see CPUTarget.h.
#include "CPUTarget.h"

#include "ember/Support/Error.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {
void initializeTargets() {
  // Every target libLLVM has: the host for the JIT, the others for cross-compiled bundles.
  static std::once_flag once;
  std::call_once(once, [] {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
  });
}
} // namespace

CPUTargetOptions CPUTargetOptions::host() {
  CPUTargetOptions o;
  o.triple = sys::getProcessTriple();
  o.cpu = sys::getHostCPUName().str();
  std::string features;
  for (const auto &f : sys::getHostCPUFeatures())
    features += std::string(features.empty() ? "" : ",") + (f.second ? "+" : "-") +
                f.first().str();
  o.features = features;
  return o;
}

Expected<std::unique_ptr<TargetMachine>> createTargetMachine(const CPUTargetOptions &opts) {
  initializeTargets();
  Triple triple(Triple::normalize(opts.triple));
  if (triple.getArch() != Triple::x86_64 && triple.getArch() != Triple::aarch64)
    return makeError("the CPU backend's kernels are built for x86_64 and aarch64, not '" +
                     opts.triple + "'");
  std::string err;
  const Target *target = TargetRegistry::lookupTarget(triple.str(), err);
  if (!target)
    return makeError("target '" + opts.triple + "': " + err);
  TargetOptions to;
  std::unique_ptr<TargetMachine> TM(target->createTargetMachine(
      triple.str(), opts.cpu.empty() ? "generic" : opts.cpu, opts.features, to, opts.relocModel,
      opts.codeModel, opts.optLevel));
  if (!TM)
    return makeError("cannot create a target machine for '" + opts.triple + "'");
  return std::move(TM);
}

bool hasWideVectors(const TargetMachine &TM) {
  // The subtarget knows what the CPU name implies as well as the explicit features.
  return TM.getTargetTriple().getArch() == Triple::x86_64 &&
         TM.getMCSubtargetInfo()->checkFeatures("+avx512f");
}

} // namespace cpu
} // namespace ember
