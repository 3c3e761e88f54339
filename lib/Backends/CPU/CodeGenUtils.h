// Helpers shared by the per-family codegen files (CodeGen<Family>.cpp).
#ifndef EMBER_LIB_BACKENDS_CPU_CODEGENUTILS_H
#define EMBER_LIB_BACKENDS_CPU_CODEGENUTILS_H

#include "CodeGen.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace ember {
namespace cpu {

inline int64_t numElements(const IRValue *v) { return int64_t(v->getType().numElements()); }

/// Product of dims[begin, end).
inline int64_t dimsProduct(llvm::ArrayRef<dim_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i)
    p *= int64_t(dims[i]);
  return p;
}

/// The suffix of the kernels instantiated for element kind \p k (kernels/Types.h):
/// f32 f64 f16 bf16 i8 u8 i16 u16 i32 u32 i64 u64 b8; quantized kinds by their storage.
inline const char *kindSuffix(ElemKind k) {
  switch (k) {
  case ElemKind::Float32: return "f32";
  case ElemKind::Float64: return "f64";
  case ElemKind::Float16: return "f16";
  case ElemKind::BFloat16: return "bf16";
  case ElemKind::Int8: return "i8";
  case ElemKind::UInt8: return "u8";
  case ElemKind::Int16: return "i16";
  case ElemKind::UInt16: return "u16";
  case ElemKind::Int32: return "i32";
  case ElemKind::UInt32: return "u32";
  case ElemKind::Int64: return "i64";
  case ElemKind::UInt64: return "u64";
  case ElemKind::Bool: return "b8";
  case ElemKind::QInt8: return "i8";
  case ElemKind::QUInt8: return "u8";
  }
  return "";
}

/// \p base + "_" + the suffix of \p k: the name of a kernel instantiated per element kind.
inline std::string kernelFor(llvm::StringRef base, ElemKind k) {
  return (base + "_" + kindSuffix(k)).str();
}

/// Row-major strides of \p dims, in elements.
inline llvm::SmallVector<int64_t, 6> rowMajorStrides(llvm::ArrayRef<dim_t> dims) {
  llvm::SmallVector<int64_t, 6> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    s[i - 1] = s[i] * int64_t(dims[i]);
  return s;
}

/// Whether every result and operand of \p n is float32 (the float kernels' contract).
inline bool allFloat32(const Node &n) {
  for (const Type &t : n.getResultTypes())
    if (t.kind != ElemKind::Float32)
      return false;
  for (const NodeValue &v : n.getOperands())
    if (v.getType().kind != ElemKind::Float32)
      return false;
  return true;
}

} // namespace cpu
} // namespace ember

#endif
