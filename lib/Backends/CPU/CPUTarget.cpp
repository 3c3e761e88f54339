// Target selection: see CPUTarget.h.
#include "CPUTarget.h"

#include "ember/Support/Error.h"

#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <iterator>
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
    // Kernels may hold inline assembly (the AMX kernel's system call): writing an object
    // parses it.
    InitializeAllAsmParsers();
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

Expected<CPUTargetOptions> CPUTargetOptions::fromOptions(const BackendOptions &o) {
  CPUTargetOptions host = CPUTargetOptions::host(), t = host;
  if (!o.target.empty()) {
    t.triple = Triple::normalize(o.target);
    Triple want(t.triple), have(host.triple);
    if (want.getArch() != have.getArch() || want.getOS() != have.getOS()) {
      t.cpu = "generic";
      t.features.clear();
    }
  }
  if (!o.cpu.empty() && o.cpu != "native") {
    t.cpu = o.cpu;
    t.features.clear(); // the named CPU's own features, not the host's
  }
  if (!o.features.empty())
    t.features += (t.features.empty() ? "" : ",") + o.features;
  if (!o.codeModel.empty()) {
    auto cm = StringSwitch<std::optional<CodeModel::Model>>(o.codeModel)
                  .Case("tiny", CodeModel::Tiny)
                  .Case("small", CodeModel::Small)
                  .Case("kernel", CodeModel::Kernel)
                  .Case("medium", CodeModel::Medium)
                  .Case("large", CodeModel::Large)
                  .Default(std::nullopt);
    if (!cm)
      return makeError("unknown code model '" + o.codeModel +
                       "' (tiny, small, kernel, medium, large)");
    t.codeModel = *cm;
  }
  static constexpr CodeGenOptLevel kLevels[] = {CodeGenOptLevel::None, CodeGenOptLevel::Less,
                                                 CodeGenOptLevel::Default,
                                                 CodeGenOptLevel::Aggressive};
  if (o.llvmOptLevel < 0 || size_t(o.llvmOptLevel) >= std::size(kLevels))
    return makeError("-llvm-opt-level must be 0, 1, 2 or 3, not " + Twine(o.llvmOptLevel));
  t.optLevel = kLevels[size_t(o.llvmOptLevel)];
  if (!o.relocModel.empty()) {
    if (o.relocModel == "pic")
      t.relocModel = Reloc::PIC_;
    else if (o.relocModel == "static")
      t.relocModel = Reloc::Static;
    else
      return makeError("unknown relocation model '" + o.relocModel + "' (pic, static)");
  }
  return t;
}

bool CPUTargetOptions::runsOnHost() const {
  Triple want(Triple::normalize(triple)), have(sys::getProcessTriple());
  return want.getArch() == have.getArch() && want.getOS() == have.getOS();
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
  std::string cpu = opts.cpu.empty() ? "generic" : opts.cpu;
  {
    // An unknown CPU or feature only warns inside LLVM: refuse it here instead.
    std::unique_ptr<MCSubtargetInfo> sti(
        target->createMCSubtargetInfo(triple.str(), "generic", ""));
    if (cpu != "generic" && sti && !sti->isCPUStringValid(cpu))
      return makeError("unknown CPU '" + cpu + "' for target '" + triple.str() + "'");
    SmallVector<StringRef, 16> feats;
    StringRef(opts.features).split(feats, ',', -1, false);
    for (StringRef f : feats) {
      StringRef name = f.drop_front(f.starts_with("+") || f.starts_with("-") ? 1 : 0);
      if (sti && !sti->getAllProcessorFeatures().empty() &&
          llvm::none_of(sti->getAllProcessorFeatures(),
                        [&](const SubtargetFeatureKV &kv) { return name == kv.Key; }))
        return makeError("unknown feature '" + f + "' for target '" + triple.str() + "'");
    }
  }
  TargetOptions to;
  std::unique_ptr<TargetMachine> TM(target->createTargetMachine(
      triple.str(), cpu, opts.features, to, opts.relocModel,
      opts.codeModel, opts.optLevel));
  if (!TM)
    return makeError("cannot create a target machine for '" + opts.triple + "'");
  return std::move(TM);
}

} // namespace cpu
} // namespace ember
