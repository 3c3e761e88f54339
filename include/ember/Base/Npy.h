// NumPy .npy files: the format model-runner reads inputs from and writes outputs to.
#ifndef EMBER_BASE_NPY_H
#define EMBER_BASE_NPY_H

#include "ember/Base/Tensor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace ember {

/// numpy's dtype string of \p k ("<f4", "|b1"; a quantized kind's storage type), or nullptr
/// where numpy has none (bfloat16, the narrow kinds).
const char *npyDescr(ElemKind k);
/// The element kind of numpy dtype string \p descr (byte order '<', '=' or '|'); false if none.
bool npyDescrKind(llvm::StringRef descr, ElemKind &k);

/// Parses an .npy image (versions 1-3, C order, little-endian numeric and bool dtypes).
llvm::Expected<Tensor> parseNpy(llvm::StringRef bytes);
llvm::Expected<Tensor> readNpyFile(llvm::StringRef path);
/// Writes \p t as a version 1.0 .npy file. Quantized tensors are written as their storage type.
llvm::Error writeNpyFile(llvm::StringRef path, const Tensor &t);

} // namespace ember

#endif
