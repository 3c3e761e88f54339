// The kernel variant table: see KernelVariants.h and kernels/Variants.def.
#include "KernelVariants.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace ember {
namespace cpu {

namespace {
const KernelVariant kVariants[] = {
#define KERNEL_VARIANT(NAME, ARCH, FEATURES, MR, NV, DOC) {#NAME, #ARCH, FEATURES, MR, NV},
#include "kernels/Variants.def"
};

const IntegerKernelVariant kIntegerVariants[] = {
#define INTEGER_VARIANT(NAME, ARCH, FEATURES, DOC) {#NAME, #ARCH, FEATURES},
#include "kernels/QuantizedIntegerVariants.def"
};

/// Whether the subtarget \p STI has every feature of \p features (the subtarget knows what the
/// CPU name implies as well as the explicit -mattr features).
bool hasFeatures(const MCSubtargetInfo &STI, StringRef features) {
  SmallVector<StringRef, 4> names;
  features.split(names, ',', -1, false);
  for (StringRef f : names)
    if (!STI.checkFeatures(("+" + f.trim()).str()))
      return false;
  return true;
}
bool hasFeatures(const TargetMachine &TM, StringRef features) {
  return hasFeatures(*TM.getMCSubtargetInfo(), features);
}
} // namespace

ArrayRef<KernelVariant> kernelVariants() { return kVariants; }

Expected<const KernelVariant *> selectKernelVariant(const TargetMachine &TM) {
  StringRef arch = Triple::getArchTypeName(TM.getTargetTriple().getArch());
  for (const KernelVariant &v : kVariants)
    if (v.arch == arch && hasFeatures(TM, v.features))
      return &v;
  return makeError("no CPU kernel variant for " + arch + " CPU '" + TM.getTargetCPU() +
                   "' with features '" + TM.getTargetFeatureString() +
                   "' (kernels/Variants.def lists what each needs)");
}

Expected<const IntegerKernelVariant *> selectIntegerKernelVariant(const TargetMachine &TM) {
  StringRef arch = Triple::getArchTypeName(TM.getTargetTriple().getArch());
  for (const IntegerKernelVariant &v : kIntegerVariants)
    if (v.arch == arch && hasFeatures(TM, v.features))
      return &v;
  return makeError("no int8 CPU kernel variant for " + arch + " CPU '" + TM.getTargetCPU() +
                   "' with features '" + TM.getTargetFeatureString() +
                   "' (kernels/QuantizedIntegerVariants.def lists what each needs)");
}

} // namespace cpu
} // namespace ember
