// Indexed data movement kernels: Gather, GatherElements, GatherND, ScatterElements, ScatterND,
// OneHot, ReverseSequence. Elements move as bytes, so every element kind is served; only the
// scatter reductions (add, mul, max, min: Graph/ScatterReduction.h) compute, per kind. Indices are read at run time: a negative one
// counts from the end of its axis, one out of range is an error (never an out-of-bounds access).
#include "KernelUtils.h"

#include "ember/Graph/ScatterReduction.h"

#include "llvm/ADT/SmallVector.h"

#include <cstring>
#include <type_traits>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// Element \p i of an int32 or int64 index tensor (the shape rules allow no other kind).
int64_t indexAt(const TensorArg &t, size_t i) {
  return t.type.kind == ElemKind::Int32 ? int64_t(t.as<int32_t>()[i]) : t.as<int64_t>()[i];
}

/// \p index (negative counts from the end) as a position on an axis of length \p n.
Expected<size_t> resolveIndex(const KernelContext &ctx, int64_t index, dim_t n, size_t axis) {
  // Unsigned arithmetic: no index (INT64_MIN included) or length can overflow it.
  uint64_t fromEnd = index < 0 ? uint64_t(-(index + 1)) + 1 : 0;
  if (index < 0 ? fromEnd > n : uint64_t(index) >= n)
    return ctx.unsupported("index " + Twine(index) + " is out of range for axis " + Twine(axis) +
                           " of length " + Twine(n));
  return index < 0 ? size_t(n - fromEnd) : size_t(index);
}

/// Steps \p idx (a multi-index within \p dims) to the next element in row-major order.
void advance(MutableArrayRef<dim_t> idx, ArrayRef<dim_t> dims) {
  for (size_t d = idx.size(); d-- > 0;) {
    if (++idx[d] < dims[d])
      return;
    idx[d] = 0;
  }
}

/// Offset in \p data (row-major, strides \p strides) of the element at multi-index \p idx with
/// axis \p axis replaced by the index \p indices holds at \p e: GatherElements/ScatterElements.
Expected<size_t> elementOffset(const KernelContext &ctx, const TensorArg &data,
                               ArrayRef<dim_t> strides, const TensorArg &indices, size_t e,
                               ArrayRef<dim_t> idx, size_t axis) {
  EMBER_ASSIGN_OR_RETURN(size_t at,
                         resolveIndex(ctx, indexAt(indices, e), data.dims()[axis], axis));
  size_t off = at * strides[axis];
  for (size_t d = 0; d < idx.size(); ++d)
    if (d != axis)
      off += idx[d] * strides[d];
  return off;
}

/// Offset in \p data of the index tuple that \p indices holds at [tuple * m, (tuple+1) * m),
/// naming data axes first, first+1, ... (GatherND/ScatterND).
Expected<size_t> tupleOffset(const KernelContext &ctx, const TensorArg &data,
                             ArrayRef<dim_t> strides, const TensorArg &indices, size_t tuple,
                             size_t m, size_t first) {
  size_t off = 0;
  for (size_t j = 0; j < m; ++j) {
    size_t axis = first + j;
    EMBER_ASSIGN_OR_RETURN(
        size_t at, resolveIndex(ctx, indexAt(indices, tuple * m + j), data.dims()[axis], axis));
    off += at * strides[axis];
  }
  return off;
}

/// How a scatter writes \p count elements of \p esz bytes from \p src into \p dst.
using Combine = void (*)(uint8_t *dst, const uint8_t *src, size_t count, size_t esz);

void replaceInto(uint8_t *dst, const uint8_t *src, size_t count, size_t esz) {
  std::memcpy(dst, src, count * esz);
}

// Integers wrap (two's complement, computed in uint64) instead of overflowing; bool adds as
// 'or' and multiplies as 'and' (numpy's rules); 16-bit floats compute as float.
template <typename T> T addValues(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else if constexpr (std::is_integral_v<T>)
    return T(uint64_t(a) + uint64_t(b));
  else
    return T(a + b);
}
template <typename T> T mulValues(T a, T b) {
  if constexpr (std::is_same_v<T, bool>)
    return a && b;
  else if constexpr (std::is_integral_v<T>)
    return T(uint64_t(a) * uint64_t(b));
  else
    return T(a * b);
}
// numpy's maximum and minimum: a NaN operand wins, the element already there first; bool takes
// 'or' and 'and'. The winner is returned itself, so a 16-bit NaN keeps its bits.
template <typename T> auto comparable(T x) {
  if constexpr (std::is_arithmetic_v<T>)
    return x;
  else
    return float(x); // float16_t, bfloat16_t
}
template <typename T> T maxValues(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else {
    auto x = comparable(a), y = comparable(b);
    return x != x ? a : y != y ? b : x < y ? b : a;
  }
}
template <typename T> T minValues(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else {
    auto x = comparable(a), y = comparable(b);
    return x != x ? a : y != y ? b : y < x ? b : a;
  }
}
template <typename T, T (*Op)(T, T)>
void combineInto(uint8_t *dst, const uint8_t *src, size_t count, size_t) {
  T *d = reinterpret_cast<T *>(dst);
  const T *s = reinterpret_cast<const T *>(src);
  for (size_t i = 0; i < count; ++i)
    d[i] = Op(d[i], s[i]);
}

/// The combine step of reduction \p how for element kind \p k.
Expected<Combine> combinerFor(const KernelContext &ctx, StringRef how, ElemKind k) {
  std::optional<ScatterReduction> r = scatterReductionNamed(how);
  if (!r)
    return ctx.unsupported("unknown scatter reduction '" + how + "'");
  if (*r == ScatterReduction::None)
    return &replaceInto;
  Combine fn = nullptr;
  EMBER_TRY(dispatchAllKinds(k, [&](auto zero) -> Error {
    using T = decltype(zero);
    switch (*r) {
    case ScatterReduction::Add: fn = &combineInto<T, addValues<T>>; break;
    case ScatterReduction::Mul: fn = &combineInto<T, mulValues<T>>; break;
    case ScatterReduction::Max: fn = &combineInto<T, maxValues<T>>; break;
    case ScatterReduction::Min: fn = &combineInto<T, minValues<T>>; break;
    case ScatterReduction::None: fn = &replaceInto; break;
    }
    return Error::success();
  }));
  return fn;
}

/// The result of a scatter starts as a copy of its data operand.
void copyData(const TensorArg &data, const TensorArg &dst) {
  if (dst.data != data.data)
    std::memmove(dst.data, data.data, data.sizeInBytes());
}

} // namespace

Error runGather(const KernelContext &ctx) {
  TensorArg data = ctx.in(ops::Gather::Data), indices = ctx.in(ops::Gather::Indices);
  TensorArg dst = ctx.out();
  size_t axis = size_t(ctx.attr<AttrKind::Axis>());
  const DimsVec &dims = data.dims();
  // data is [outer, axisLen, inner]; the result [outer, numIndices, inner].
  size_t outer = dimsProduct(dims, 0, axis), inner = dimsProduct(dims, axis + 1, dims.size());
  size_t count = indices.numElements(), rowBytes = inner * dst.type.elementSize();
  for (size_t k = 0; k < count; ++k) {
    EMBER_ASSIGN_OR_RETURN(size_t at, resolveIndex(ctx, indexAt(indices, k), dims[axis], axis));
    for (size_t o = 0; o < outer; ++o)
      std::memcpy(dst.data + (o * count + k) * rowBytes,
                  data.data + (o * dims[axis] + at) * rowBytes, rowBytes);
  }
  return Error::success();
}

Error runGatherElements(const KernelContext &ctx) {
  TensorArg data = ctx.in(ops::GatherElements::Data);
  TensorArg indices = ctx.in(ops::GatherElements::Indices), dst = ctx.out();
  size_t axis = size_t(ctx.attr<AttrKind::Axis>()), esz = dst.type.elementSize();
  DimsVec strides = rowMajorStrides(data.dims());
  SmallVector<dim_t, 6> idx(indices.dims().size(), 0);
  for (size_t e = 0, n = indices.numElements(); e < n; ++e, advance(idx, indices.dims())) {
    EMBER_ASSIGN_OR_RETURN(size_t off, elementOffset(ctx, data, strides, indices, e, idx, axis));
    std::memcpy(dst.data + e * esz, data.data + off * esz, esz);
  }
  return Error::success();
}

Error runGatherND(const KernelContext &ctx) {
  TensorArg data = ctx.in(ops::GatherND::Data), indices = ctx.in(ops::GatherND::Indices);
  TensorArg dst = ctx.out();
  size_t batch = size_t(ctx.attr<AttrKind::BatchDims>()), esz = dst.type.elementSize();
  const DimsVec &dims = data.dims();
  size_t m = indices.dims().back();
  DimsVec strides = rowMajorStrides(dims);
  // data is [batches, rest...], indices [batches, tuplesPerBatch, m]; each tuple picks a slice
  // of sliceSize elements.
  size_t batches = dimsProduct(dims, 0, batch), batchSize = dimsProduct(dims, batch, dims.size());
  size_t sliceSize = dimsProduct(dims, batch + m, dims.size());
  size_t tuples = indices.numElements() / m, perBatch = batches ? tuples / batches : 0;
  for (size_t t = 0; t < tuples; ++t) {
    EMBER_ASSIGN_OR_RETURN(size_t off, tupleOffset(ctx, data, strides, indices, t, m, batch));
    off += (t / perBatch) * batchSize;
    std::memcpy(dst.data + t * sliceSize * esz, data.data + off * esz, sliceSize * esz);
  }
  return Error::success();
}

Error runScatterElements(const KernelContext &ctx) {
  TensorArg data = ctx.in(ops::ScatterElements::Data);
  TensorArg indices = ctx.in(ops::ScatterElements::Indices);
  TensorArg updates = ctx.in(ops::ScatterElements::Updates), dst = ctx.out();
  size_t axis = size_t(ctx.attr<AttrKind::Axis>()), esz = dst.type.elementSize();
  EMBER_ASSIGN_OR_RETURN(Combine combine,
                         combinerFor(ctx, ctx.attr<AttrKind::Reduction>(), dst.type.kind));
  copyData(data, dst);
  DimsVec strides = rowMajorStrides(data.dims());
  SmallVector<dim_t, 6> idx(indices.dims().size(), 0);
  for (size_t e = 0, n = indices.numElements(); e < n; ++e, advance(idx, indices.dims())) {
    EMBER_ASSIGN_OR_RETURN(size_t off, elementOffset(ctx, data, strides, indices, e, idx, axis));
    combine(dst.data + off * esz, updates.data + e * esz, 1, esz);
  }
  return Error::success();
}

Error runScatterND(const KernelContext &ctx) {
  TensorArg data = ctx.in(ops::ScatterND::Data), indices = ctx.in(ops::ScatterND::Indices);
  TensorArg updates = ctx.in(ops::ScatterND::Updates), dst = ctx.out();
  size_t esz = dst.type.elementSize(), m = indices.dims().back();
  EMBER_ASSIGN_OR_RETURN(Combine combine,
                         combinerFor(ctx, ctx.attr<AttrKind::Reduction>(), dst.type.kind));
  copyData(data, dst);
  const DimsVec &dims = data.dims();
  DimsVec strides = rowMajorStrides(dims);
  size_t sliceSize = dimsProduct(dims, m, dims.size()), tuples = indices.numElements() / m;
  for (size_t t = 0; t < tuples; ++t) {
    EMBER_ASSIGN_OR_RETURN(size_t off, tupleOffset(ctx, data, strides, indices, t, m, 0));
    combine(dst.data + off * esz, updates.data + t * sliceSize * esz, sliceSize, esz);
  }
  return Error::success();
}

Error runOneHot(const KernelContext &ctx) {
  TensorArg indices = ctx.in(ops::OneHot::Indices), values = ctx.in(ops::OneHot::Values);
  TensorArg dst = ctx.out();
  int64_t depth = ctx.attr<AttrKind::Depth>();
  size_t axis = size_t(ctx.attr<AttrKind::Axis>()), esz = dst.type.elementSize();
  // Each index as a position in [0, depth), or -1 (all off) when outside [-depth, depth).
  std::vector<int64_t> hot(indices.numElements());
  EMBER_TRY(dispatchAllKinds(indices.type.kind, [&](auto zero) -> Error {
    using T = decltype(zero);
    const T *in = indices.as<T>();
    for (size_t i = 0; i < hot.size(); ++i) {
      int64_t v;
      if constexpr (std::is_integral_v<T>) {
        if constexpr (std::is_unsigned_v<T>)
          v = uint64_t(in[i]) < uint64_t(depth) ? int64_t(in[i]) : depth;
        else
          v = int64_t(in[i]);
      } else { // fractional indices truncate toward zero, as a cast to int64 does
        double d = double(in[i]);
        v = d > -double(depth + 1) && d < double(depth) ? int64_t(d) : depth;
      }
      hot[i] = v < -depth || v >= depth ? -1 : (v < 0 ? v + depth : v);
    }
    return Error::success();
  }));
  const DimsVec &inDims = indices.dims();
  size_t outer = dimsProduct(inDims, 0, axis), inner = dimsProduct(inDims, axis, inDims.size());
  const uint8_t *off = values.data, *on = values.data + esz;
  for (size_t o = 0; o < outer; ++o)
    for (int64_t d = 0; d < depth; ++d)
      for (size_t i = 0; i < inner; ++i)
        std::memcpy(dst.data + ((o * depth + d) * inner + i) * esz,
                    hot[o * inner + i] == d ? on : off, esz);
  return Error::success();
}

Error runReverseSequence(const KernelContext &ctx) {
  TensorArg src = ctx.in(ops::ReverseSequence::Input);
  TensorArg lens = ctx.in(ops::ReverseSequence::SequenceLens), dst = ctx.out();
  size_t batchAxis = size_t(ctx.attr<AttrKind::BatchAxis>());
  size_t timeAxis = size_t(ctx.attr<AttrKind::TimeAxis>());
  const DimsVec &dims = src.dims();
  size_t esz = dst.type.elementSize();
  // The input is [d0, d1, inner] with batch and time the first two axes in some order.
  size_t rowBytes = dimsProduct(dims, 2, dims.size()) * esz;
  auto row = [&](size_t b, size_t t) {
    return (timeAxis == 1 ? b * dims[1] + t : t * dims[1] + b) * rowBytes;
  };
  copyData(src, dst);
  for (size_t b = 0; b < dims[batchAxis]; ++b) {
    int64_t len = indexAt(lens, b);
    if (len < 0 || uint64_t(len) > dims[timeAxis])
      return ctx.unsupported("sequence length " + Twine(len) + " of batch " + Twine(b) +
                             " is outside [0, " + Twine(dims[timeAxis]) + "]");
    for (size_t t = 0; t < size_t(len); ++t)
      std::memcpy(dst.data + row(b, t), src.data + row(b, size_t(len) - 1 - t), rowBytes);
  }
  return Error::success();
}

// Moving bytes serves every kind.
bool supportsGather(const Node &) { return true; }
bool supportsGatherElements(const Node &) { return true; }
bool supportsGatherND(const Node &) { return true; }
bool supportsOneHot(const Node &n) {
  return !isQuantizedKind(n.getOperand(ops::OneHot::Indices).getType().kind);
}
bool supportsReverseSequence(const Node &) { return true; }
// Replacing moves bytes; add and mul compute on every non-quantized kind.
bool supportsScatterElements(const Node &n) {
  return n.attr<AttrKind::Reduction>() == "none" || !isQuantizedKind(resultKind(n));
}
bool supportsScatterND(const Node &n) {
  return n.attr<AttrKind::Reduction>() == "none" || !isQuantizedKind(resultKind(n));
}

} // namespace interp
} // namespace ember
