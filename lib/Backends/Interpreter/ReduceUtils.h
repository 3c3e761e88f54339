// Helpers shared by the reduction, normalization and selection kernels (Reduce*.cpp,
// Normalization*.cpp): what type a kernel computes in, safe conversions back to storage, and
// the two ways these kernels walk a tensor (along one axis, or grouped by the reduced axes).
#ifndef EMBER_LIB_BACKENDS_INTERPRETER_REDUCEUTILS_H
#define EMBER_LIB_BACKENDS_INTERPRETER_REDUCEUTILS_H

#include "KernelUtils.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace ember {
namespace interp {

template <typename T>
constexpr bool isFloatStorage =
    std::is_floating_point_v<T> || std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;

/// The type exact accumulations (sums, products) run in: double for every float kind; int64 or
/// uint64 for integers, where they wrap around as numpy's do (see wrapAdd).
template <typename T>
using Accum = std::conditional_t<isFloatStorage<T>, double,
                                 std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

/// a + b and a * b that wrap for integers (two's complement) instead of overflowing.
template <typename A> A wrapAdd(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return A(uint64_t(a) + uint64_t(b));
  else
    return a + b;
}
template <typename A> A wrapMul(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return A(uint64_t(a) * uint64_t(b));
  else
    return a * b;
}

/// An accumulator value converted to storage type T: floats round, integers wrap (as numpy's
/// astype); a double for an integer T saturates and NaN becomes 0, so nothing is undefined.
template <typename T, typename A> T toStorage(A v) {
  if constexpr (isFloatStorage<T>) {
    if constexpr (std::is_same_v<T, double>)
      return double(v);
    else
      return T(float(v));
  } else if constexpr (std::is_integral_v<A>) {
    return T(v);
  } else {
    if (std::isnan(v))
      return T(0);
    if (v <= double(std::numeric_limits<T>::lowest()))
      return std::numeric_limits<T>::lowest();
    if (v >= double(std::numeric_limits<T>::max()))
      return std::numeric_limits<T>::max();
    return T(v);
  }
}

/// Storage value as the type kernels compute in.
template <typename T> Accum<T> load(T v) {
  if constexpr (std::is_same_v<T, double>)
    return v;
  else if constexpr (isFloatStorage<T>)
    return double(float(v));
  else
    return Accum<T>(v);
}

/// Calls fn(T()) for the four float kinds; other kinds are an error naming the instruction.
template <typename Fn>
llvm::Error dispatchFloatKinds(const KernelContext &ctx, ElemKind k, Fn &&fn) {
  switch (k) {
  case ElemKind::Float32:
    return fn(float());
  case ElemKind::Float64:
    return fn(double());
  case ElemKind::Float16:
    return fn(float16_t());
  case ElemKind::BFloat16:
    return fn(bfloat16_t());
  default:
    return ctx.unsupported("no kernel for element kind " + elemKindName(k) + " (floats only)");
  }
}

/// Calls fn(T()) for every kind but bool and the quantized ones.
template <typename Fn>
llvm::Error dispatchNumericKinds(const KernelContext &ctx, ElemKind k, Fn &&fn) {
  if (k == ElemKind::Bool || isQuantizedKind(k))
    return ctx.unsupported("no kernel for element kind " + elemKindName(k));
  return dispatchAllKinds(k, [&](auto t) -> llvm::Error {
    if constexpr (std::is_same_v<decltype(t), bool>)
      return llvm::Error::success(); // unreachable: refused above
    else
      return fn(t);
  });
}

inline bool isNumericKind(ElemKind k) { return k != ElemKind::Bool && !isQuantizedKind(k); }

/// A tensor seen as [outer, len, inner] around one axis: element k of line (o, i) is at
/// (o * len + k) * inner + i, so kernels along any axis of any rank need three loops.
struct AxisView {
  size_t outer, len, inner;
  AxisView(llvm::ArrayRef<dim_t> dims, size_t axis)
      : outer(dimsProduct(dims, 0, axis)), len(dims[axis]),
        inner(dimsProduct(dims, axis + 1, dims.size())) {}
  size_t lines() const { return outer * inner; }
  /// Offset of element 0 of line \p line; the line's elements are `inner` apart.
  size_t lineStart(size_t line) const { return (line / inner) * len * inner + line % inner; }
};

/// Mask of the axes in \p axes (each in [0, rank)).
inline llvm::SmallVector<bool, 6> axesMask(size_t rank, llvm::ArrayRef<int64_t> axes) {
  llvm::SmallVector<bool, 6> mask(rank, false);
  for (int64_t a : axes)
    mask[size_t(a)] = true;
  return mask;
}

/// Calls fn(i, group) for every element i (row-major) of a tensor with \p dims, where group is
/// the position of the element in the tensor whose \p reduced axes are collapsed to size 1:
/// the elements one reduction combines share a group.
template <typename Fn>
void forEachReduced(llvm::ArrayRef<dim_t> dims, llvm::ArrayRef<bool> reduced, Fn &&fn) {
  size_t rank = dims.size(), n = dimsProduct(dims, 0, rank);
  if (n == 0)
    return;
  DimsVec kept(dims.begin(), dims.end());
  for (size_t a = 0; a < rank; ++a)
    if (reduced[a])
      kept[a] = 1;
  DimsVec strides = rowMajorStrides(kept);
  for (size_t a = 0; a < rank; ++a)
    if (reduced[a])
      strides[a] = 0;
  DimsVec idx(rank, 0);
  size_t group = 0;
  for (size_t i = 0; i < n; ++i) {
    fn(i, group);
    // Odometer step: advance the last axis, carrying into earlier ones.
    for (size_t a = rank; a-- > 0;) {
      if (++idx[a] < dims[a]) {
        group += strides[a];
        break;
      }
      group -= strides[a] * (dims[a] - 1);
      idx[a] = 0;
    }
  }
}

/// Population mean and variance of every group of elements (see forEachReduced).
struct Moments {
  std::vector<double> mean, var;
};
template <typename T>
Moments momentsOver(const T *in, llvm::ArrayRef<dim_t> dims, llvm::ArrayRef<bool> reduced) {
  size_t groups = 1, count = 1;
  for (size_t a = 0; a < dims.size(); ++a)
    (reduced[a] ? count : groups) *= dims[a];
  Moments m{std::vector<double>(groups, 0.0), std::vector<double>(groups, 0.0)};
  // Two passes (mean first, then squared deviations) keep the variance accurate.
  forEachReduced(dims, reduced, [&](size_t i, size_t g) { m.mean[g] += double(in[i]); });
  for (double &v : m.mean)
    v /= double(count);
  forEachReduced(dims, reduced, [&](size_t i, size_t g) {
    double d = double(in[i]) - m.mean[g];
    m.var[g] += d * d;
  });
  for (double &v : m.var)
    v /= double(count);
  return m;
}

/// A float vector operand of any float kind, read as doubles (per-channel parameters).
inline std::vector<double> readAsDoubles(const TensorArg &t) {
  std::vector<double> out(t.numElements());
  llvm::Error err = dispatchAllKinds(t.type.kind, [&](auto v) -> llvm::Error {
    using T = decltype(v);
    const T *p = t.as<T>();
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = double(p[i]);
    return llvm::Error::success();
  });
  llvm::consumeError(std::move(err)); // shape rules admit float kinds only
  return out;
}

} // namespace interp
} // namespace ember

#endif
