// What every backend's bundle object has in common, whatever its code: the dynamic bundle API's
// config struct, and emitting an LLVM module as a relocatable object file. Private to
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

} // namespace ember

#endif
