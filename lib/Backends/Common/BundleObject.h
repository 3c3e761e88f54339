// What every backend's bundle object has in common, whatever its code: the dynamic bundle API's
// config struct, emitting an LLVM module as a relocatable object file, and the weights object
// (-bundle-weights=object). Private to
// lib/Backends (LLVM types stay out of public headers).
#ifndef EMBER_LIB_BACKENDS_COMMON_BUNDLEOBJECT_H
#define EMBER_LIB_BACKENDS_COMMON_BUNDLEOBJECT_H

#include "ember/Backends/Backend.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace ember {

/// Adds the constant config struct of the dynamic bundle API (ObjectOptions::configName) to
/// \p M; an error when the name clashes with a symbol of \p M.
llvm::Error addBundleConfig(llvm::Module &M, const IRFunction &IR, const ObjectOptions &opts);

/// \p M as a relocatable object for \p TM's target.
llvm::Expected<llvm::SmallVector<char, 0>> emitObjectCode(llvm::Module &M,
                                                           llvm::TargetMachine &TM);

/// Writes \p bytes to \p path.
llvm::Error writeObjectFile(const std::string &path, llvm::ArrayRef<char> bytes);

/// Writes to \p path a relocatable object for \p TM's target holding only \p region as the
/// read-only, external array \p symbol, aligned to kTensorAlignment (Backend::
/// emitConstantsObject). The bytes go in as one raw constant and the object is streamed to the
/// file, so memory grows with the region (about three copies of it at most), not faster.
llvm::Error writeConstantsObject(llvm::TargetMachine &TM, llvm::ArrayRef<uint8_t> region,
                                 llvm::StringRef symbol, const std::string &path);

} // namespace ember

#endif
