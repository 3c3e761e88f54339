// Small helpers shared by several Interpreter kernel files.
#ifndef EMBER_LIB_BACKENDS_INTERPRETER_KERNELUTILS_H
#define EMBER_LIB_BACKENDS_INTERPRETER_KERNELUTILS_H

#include "Kernels.h"

#include "ember/Base/Dims.h"
#include "ember/Base/Float16.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstddef>
#include <initializer_list>

namespace ember {
namespace interp {

/// Row-major strides of \p dims, in elements.
inline DimsVec rowMajorStrides(llvm::ArrayRef<dim_t> dims) {
  DimsVec strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    strides[i - 1] = strides[i] * dims[i];
  return strides;
}

/// Calls fn(T()) with T the storage type of \p k, for every non-quantized kind: float,
/// double, float16_t, bfloat16_t (both compute as float), int8_t..int64_t, uint8_t..uint64_t,
/// bool. Kernels written as templates over T cover every ONNX numeric type with one body;
/// restrict T inside fn with if constexpr where an op is not defined for some types.
template <typename Fn> llvm::Error dispatchAllKinds(ElemKind k, Fn &&fn) {
  switch (k) {
  case ElemKind::Float32: return fn(float());
  case ElemKind::Float64: return fn(double());
  case ElemKind::Float16: return fn(float16_t());
  case ElemKind::BFloat16: return fn(bfloat16_t());
  case ElemKind::Int8: return fn(int8_t());
  case ElemKind::UInt8: return fn(uint8_t());
  case ElemKind::Int16: return fn(int16_t());
  case ElemKind::UInt16: return fn(uint16_t());
  case ElemKind::Int32: return fn(int32_t());
  case ElemKind::UInt32: return fn(uint32_t());
  case ElemKind::Int64: return fn(int64_t());
  case ElemKind::UInt64: return fn(uint64_t());
  case ElemKind::Bool: return fn(bool());
  case ElemKind::QInt8:
  case ElemKind::QUInt8:
  case ElemKind::Float8E4M3FN: // the narrow kinds: Cast converts them (ElementwiseLogic.cpp)
  case ElemKind::Float8E4M3FNUZ:
  case ElemKind::Float8E5M2:
  case ElemKind::Float8E5M2FNUZ:
  case ElemKind::Int4:
  case ElemKind::UInt4:
  case ElemKind::Float4E2M1:
    break;
  }
  return makeError("no kernel for element kind " + elemKindName(k));
}

/// The element kind a node produces (its first result's, or a Save's input's).
inline ElemKind resultKind(const Node &n) {
  return n.getNumResults() ? n.getType(0).kind : n.getOperand(0).getType().kind;
}

/// Whether \p n produces one of \p kinds.
inline bool resultKindIn(const Node &n, std::initializer_list<ElemKind> kinds) {
  for (ElemKind k : kinds)
    if (resultKind(n) == k)
      return true;
  return false;
}

/// The error for kernels that exist only for float32: hasKernel() keeps other kinds away from
/// them, but an IR built by hand must still get an error rather than garbage.
inline llvm::Error expectFloat32(const KernelContext &ctx) {
  ElemKind k = ctx.out().type.kind;
  if (k == ElemKind::Float32)
    return llvm::Error::success();
  return ctx.unsupported("no kernel for element kind " + elemKindName(k) + " (float32 only)");
}

} // namespace interp
} // namespace ember

#endif
