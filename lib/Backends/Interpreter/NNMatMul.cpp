// MatMul, row-major: [B.., M, K] x [B.., K, N] with numpy broadcasting of the batch dims (ONNX
// Gemm is lowered onto it). Every numeric kind: floats accumulate in float (double for double);
// integers accumulate modulo 2^64 and wrap to the result's width, as two's complement hardware
// (and numpy) do, with no undefined overflow.
//
// FusedMatMul applies an activation to each stored result (FusedActivation.h); FullyConnected
// (float kinds) multiplies each row of its input by the weights as MatMul does, rounds, adds the
// bias as Add does, and applies its activation: the same values as the unfused nodes.
#include "NNCommon.h"
#include "FusedActivation.h"

#include <vector>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// How T's products accumulate and store back.
template <typename T> struct ProductArith {
  using Acc = std::conditional_t<std::is_integral_v<T>, uint64_t, FloatAccum<T>>;
  static Acc widen(T v) {
    if constexpr (std::is_integral_v<T>)
      return Acc(int64_t(v)); // sign-extends, so the modular arithmetic below is exact
    else
      return Acc(v);
  }
  static T narrow(Acc v) {
    if constexpr (std::is_integral_v<T>)
      return T(int64_t(v)); // keeps the low bits (two's complement)
    else
      return T(v);
  }
};

template <typename T>
constexpr bool isProductKind = isFloatStorage<T> ||
                               (std::is_integral_v<T> && !std::is_same_v<T, bool>);

/// Calls kernel(T()) for the numeric (non-bool) result kinds.
template <typename Fn> Error dispatchProductKinds(const KernelContext &ctx, Fn &&kernel) {
  ElemKind k = ctx.out().type.kind;
  return dispatchAllKinds(k, [&](auto tag) -> Error {
    using T = decltype(tag);
    if constexpr (isProductKind<T>)
      return kernel(T());
    else
      return ctx.unsupported("no kernel for element kind " + elemKindName(k));
  });
}

/// The rows of lhs [M, K] times rhs [K, N]: store(i, j, acc) receives each result element.
/// i-k-j order walks rhs and the accumulators row by row (cache friendly) while every element
/// still sums its products in ascending k, as the textbook dot product would.
template <typename T, typename Store>
void multiplyRows(const T *lhs, const T *rhs, size_t M, size_t K, size_t N, Store store) {
  using Arith = ProductArith<T>;
  using Acc = typename Arith::Acc;
  std::vector<Acc> row;
  for (size_t i = 0; i < M; ++i) {
    row.assign(N, Acc(0));
    for (size_t k = 0; k < K; ++k) {
      Acc aik = Arith::widen(lhs[i * K + k]);
      const T *rhsRow = rhs + k * N;
      for (size_t j = 0; j < N; ++j)
        row[j] += aik * Arith::widen(rhsRow[j]);
    }
    for (size_t j = 0; j < N; ++j)
      store(i, j, row[j]);
  }
}

template <typename T> Error matMul(const KernelContext &ctx, const FusedActivation &act) {
  using Arith = ProductArith<T>;
  using Acc = typename Arith::Acc;
  TensorArg a = ctx.in(ops::MatMul::LHS), b = ctx.in(ops::MatMul::RHS), r = ctx.out();
  size_t rank = r.dims().size(), batchRank = rank - 2;
  size_t M = a.dims()[rank - 2], K = a.dims()[rank - 1], N = b.dims()[rank - 1];
  ArrayRef<dim_t> batchDims = ArrayRef<dim_t>(r.dims()).take_front(batchRank);
  // Element strides of each operand's matrices along the result's batch dims; a broadcast
  // (size 1) dim does not move.
  DimsVec aStrides(batchRank), bStrides(batchRank);
  size_t aStride = M * K, bStride = K * N;
  for (size_t d = batchRank; d-- > 0;) {
    aStrides[d] = a.dims()[d] == 1 ? 0 : aStride;
    bStrides[d] = b.dims()[d] == 1 ? 0 : bStride;
    aStride *= a.dims()[d];
    bStride *= b.dims()[d];
  }
  const T *A = a.as<T>(), *B = b.as<T>();
  T *R = r.as<T>();
  SmallVector<int64_t, 6> idx(batchRank);
  for (size_t batch = 0, e = dimsProduct(batchDims, 0, batchRank); batch < e; ++batch) {
    unflatten(batch, batchDims, idx);
    size_t aOffset = 0, bOffset = 0;
    for (size_t d = 0; d < batchRank; ++d) {
      aOffset += size_t(idx[d]) * aStrides[d];
      bOffset += size_t(idx[d]) * bStrides[d];
    }
    const T *lhs = A + aOffset, *rhs = B + bOffset;
    T *out = R + batch * M * N;
    multiplyRows(lhs, rhs, M, K, N, [&](size_t i, size_t j, Acc acc) {
      T v = Arith::narrow(acc);
      if constexpr (isFloatStorage<T>)
        v = act.apply(v);
      out[i * N + j] = v;
    });
  }
  return Error::success();
}

/// Float kinds: Input's rows (all dims but the last flattened) times Weights, plus Bias.
template <typename T> Error fullyConnected(const KernelContext &ctx, const FusedActivation &act) {
  using C = Compute<T>;
  TensorArg x = ctx.in(ops::FullyConnected::Input), w = ctx.in(ops::FullyConnected::Weights),
            b = ctx.in(ops::FullyConnected::Bias), r = ctx.out();
  size_t K = w.dims()[0], N = w.dims()[1];
  size_t M = dimsProduct(x.dims(), 0, x.dims().size() - 1);
  const T *bias = b.as<T>();
  T *out = r.as<T>();
  multiplyRows(x.as<T>(), w.as<T>(), M, K, N, [&](size_t i, size_t j, FloatAccum<T> acc) {
    T product = T(acc);
    out[i * N + j] = act.apply(T(C(product) + C(bias[j])));
  });
  return Error::success();
}

} // namespace

Error runMatMul(const KernelContext &ctx) {
  return dispatchProductKinds(
      ctx, [&](auto tag) { return matMul<decltype(tag)>(ctx, FusedActivation::none()); });
}

Error runFusedMatMul(const KernelContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(FusedActivation act, FusedActivation::of(ctx));
  return dispatchFloatKinds(ctx, [&](auto tag) { return matMul<decltype(tag)>(ctx, act); });
}

Error runFullyConnected(const KernelContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(FusedActivation act, FusedActivation::of(ctx));
  return dispatchFloatKinds(ctx,
                            [&](auto tag) { return fullyConnected<decltype(tag)>(ctx, act); });
}

/// Every numeric kind but bool and the quantized kinds (the Quantized family works on plain
/// integer tensors instead).
bool supportsMatMul(const Node &n) {
  ElemKind k = resultKind(n);
  return k != ElemKind::Bool && !isQuantizedKind(k);
}
bool supportsFusedMatMul(const Node &n) { return resultKindIn(n, kFloatKinds); }
bool supportsFullyConnected(const Node &n) { return resultKindIn(n, kFloatKinds); }

} // namespace interp
} // namespace ember
