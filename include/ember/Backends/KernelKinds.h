// How the backends' kernel libraries name and number element kinds: the suffix of a kernel
// instantiated once per kind (the CPU kernels' EMBER_FOR_* macros, kernels/Types.h; the OpenCL
// kernels' FOR_EACH_KIND, kernels/Common.cl) and the code of a float kind that a kernel taking
// any float kind receives.
#ifndef EMBER_BACKENDS_KERNELKINDS_H
#define EMBER_BACKENDS_KERNELKINDS_H

#include "ember/Base/Type.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace ember {

/// The suffix of the kernels instantiated for element kind \p k: f32 f64 f16 bf16 i8 u8 i16 u16
/// i32 u32 i64 u64 bool, the narrow kinds by name; quantized kinds by their storage.
inline llvm::StringRef kindSuffix(ElemKind k) {
  switch (k) {
  case ElemKind::Float32: return "f32";
  case ElemKind::Float64: return "f64";
  case ElemKind::Float16: return "f16";
  case ElemKind::BFloat16: return "bf16";
  case ElemKind::Int8:
  case ElemKind::QInt8: return "i8";
  case ElemKind::UInt8:
  case ElemKind::QUInt8: return "u8";
  case ElemKind::Int16: return "i16";
  case ElemKind::UInt16: return "u16";
  case ElemKind::Int32: return "i32";
  case ElemKind::UInt32: return "u32";
  case ElemKind::Int64: return "i64";
  case ElemKind::UInt64: return "u64";
  case ElemKind::Bool: return "bool";
  case ElemKind::Float8E4M3FN: return "f8e4m3fn";
  case ElemKind::Float8E4M3FNUZ: return "f8e4m3fnuz";
  case ElemKind::Float8E5M2: return "f8e5m2";
  case ElemKind::Float8E5M2FNUZ: return "f8e5m2fnuz";
  case ElemKind::Int4: return "i4";
  case ElemKind::UInt4: return "u4";
  case ElemKind::Float4E2M1: return "f4e2m1";
  }
  return "";
}

/// The code of a float kind for kernels that take any of them: float32 0, float64 1, float16 2,
/// bfloat16 3 (the CPU kernels' FloatCode, kernels/ReduceCommon.h; OpenCL's norm_load and
/// norm_store, kernels/Normalization.cl). Other kinds give 0.
inline int64_t floatCode(ElemKind k) {
  switch (k) {
  case ElemKind::Float64: return 1;
  case ElemKind::Float16: return 2;
  case ElemKind::BFloat16: return 3;
  default: return 0;
  }
}

} // namespace ember

#endif
