// Writing a planned IRFunction as a relocatable object for a bundle (Backend::emitObject).
#ifndef EMBER_LIB_BACKENDS_CPU_OBJECTWRITER_H
#define EMBER_LIB_BACKENDS_CPU_OBJECTWRITER_H

#include "CPUTarget.h"

#include "ember/Backends/Backend.h"

namespace ember {
namespace cpu {

/// Generates, optimizes and emits \p IR for \p target into opts.path. The object calls only
/// libc's memory functions and libm (info.linkFlags says whether -lm is needed) and has no
/// writable data: the bundle's promise of no heap and no global state.
llvm::Expected<ObjectInfo> writeObject(const IRFunction &IR, const ObjectOptions &opts,
                                       const CPUTargetOptions &target,
                                       const BackendOptions &backend, PhaseTimes *phases);

} // namespace cpu
} // namespace ember

#endif
