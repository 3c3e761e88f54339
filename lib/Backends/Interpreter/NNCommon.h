// Helpers shared by the convolution, pooling and matrix-product kernels (NNConv.cpp, NNPool.cpp,
// NNPoolUnpool.cpp, NNMatMul.cpp).
#ifndef EMBER_LIB_BACKENDS_INTERPRETER_CONVPOOLUTILS_H
#define EMBER_LIB_BACKENDS_INTERPRETER_CONVPOOLUTILS_H

#include "KernelUtils.h"

#include <type_traits>

namespace ember {
namespace interp {

/// What a float kernel accumulates in: double for every float kind, rounded once to the result.
/// The reference's sums must not depend on their order: a float sum rounding at each of a
/// convolution's 256 taps was 4e-8 off where they cancel, which a log spectrum's
/// log(1 + 2^20 |X|) (Silero VAD) turned into 1e-3 on the LSTM states downstream, six times
/// onnxruntime's own error against the exact value.
template <typename T> using FloatAccum = double;

constexpr std::initializer_list<ElemKind> kFloatKinds = {ElemKind::Float16, ElemKind::BFloat16,
                                                         ElemKind::Float32, ElemKind::Float64};

template <typename T>
constexpr bool isFloatStorage = std::is_floating_point_v<T> || std::is_same_v<T, float16_t> ||
                                std::is_same_v<T, bfloat16_t>;

/// Calls kernel(T()) with T the storage type of the result's kind when it is a float kind;
/// other kinds get an error (hasKernel keeps them away, a hand-built IR must not get garbage).
template <typename Fn> llvm::Error dispatchFloatKinds(const KernelContext &ctx, Fn &&kernel) {
  ElemKind k = ctx.out().type.kind;
  return dispatchAllKinds(k, [&](auto tag) -> llvm::Error {
    using T = decltype(tag);
    if constexpr (isFloatStorage<T>)
      return kernel(T());
    else
      return ctx.unsupported("no kernel for element kind " + elemKindName(k) +
                             " (floating point only)");
  });
}

/// The row-major multi-index of \p flat within \p dims.
inline void unflatten(size_t flat, llvm::ArrayRef<dim_t> dims, llvm::MutableArrayRef<int64_t> idx) {
  for (size_t a = dims.size(); a-- > 0;) {
    idx[a] = int64_t(flat % dims[a]);
    flat /= dims[a];
  }
}

/// Spatial dims (all but N and C) of a channels-first tensor.
inline llvm::ArrayRef<dim_t> spatialDims(const TensorArg &t) {
  return llvm::ArrayRef<dim_t>(t.dims()).drop_front(2);
}

} // namespace interp
} // namespace ember

#endif
