// Data movement kernels: Reshape, Transpose, Broadcast, Concat, Slice, Pad, Trilu, Range. All
// but Range never look at values, only move `elementSize()` bytes per element, so one kernel
// serves every element kind. The indexed kinds (Gather, Scatter, ...) are in
// DataMovementIndexed.cpp, Resize in DataMovementResize.cpp.
#include "KernelUtils.h"

#include "ember/Semantics/PadSource.h"

#include "llvm/ADT/SmallVector.h"

#include <cstring>
#include <type_traits>
#include <vector>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// Fills \p dst (of \p dims) element by element: the element at multi-index idx comes from
/// src element base + sum(idx[d] * srcStrides[d]). Transpose is this with permuted strides,
/// Broadcast with stride 0 on the broadcast axes, Slice with a start offset and scaled (maybe
/// negative) strides. \p Size is the element size when known at compile time (so the copy
/// becomes one move), 0 to use \p esz.
template <size_t Size>
void gatherImpl(uint8_t *dst, const uint8_t *src, ArrayRef<dim_t> dims, int64_t base,
                ArrayRef<int64_t> srcStrides, size_t esz) {
  const size_t bytes = Size ? Size : esz;
  size_t n = dimsProduct(dims, 0, dims.size());
  if (n == 0)
    return;
  size_t rank = dims.size();
  SmallVector<dim_t, 6> idx(rank, 0);
  int64_t srcOff = base; // in elements; always base + sum(idx[d] * srcStrides[d])
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * bytes, src + srcOff * int64_t(bytes), bytes);
    // Step the multi-index like an odometer, keeping srcOff in sync.
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < dims[d]) {
        srcOff += srcStrides[d];
        break;
      }
      srcOff -= int64_t(dims[d] - 1) * srcStrides[d];
      idx[d] = 0;
    }
  }
}

void gather(const TensorArg &src, const TensorArg &dst, int64_t base,
            ArrayRef<int64_t> srcStrides) {
  size_t esz = dst.type.elementSize();
  switch (esz) {
  case 1:
    return gatherImpl<1>(dst.data, src.data, dst.dims(), base, srcStrides, esz);
  case 2:
    return gatherImpl<2>(dst.data, src.data, dst.dims(), base, srcStrides, esz);
  case 4:
    return gatherImpl<4>(dst.data, src.data, dst.dims(), base, srcStrides, esz);
  case 8:
    return gatherImpl<8>(dst.data, src.data, dst.dims(), base, srcStrides, esz);
  default:
    return gatherImpl<0>(dst.data, src.data, dst.dims(), base, srcStrides, esz);
  }
}

/// Row-major strides of \p dims as signed element counts.
SmallVector<int64_t, 6> signedStrides(ArrayRef<dim_t> dims) {
  DimsVec strides = rowMajorStrides(dims);
  return SmallVector<int64_t, 6>(strides.begin(), strides.end());
}

} // namespace

Error runReshape(const KernelContext &ctx) {
  // Same bytes in the same order; only the type's dims change.
  TensorArg src = ctx.in(ops::Reshape::Input), dst = ctx.out();
  if (dst.data != src.data)
    std::memmove(dst.data, src.data, src.sizeInBytes());
  return Error::success();
}

Error runTranspose(const KernelContext &ctx) {
  TensorArg src = ctx.in(ops::Transpose::Input), dst = ctx.out();
  const auto &shuffle = ctx.attr<AttrKind::Shuffle>();
  auto inStrides = signedStrides(src.dims());
  // Result axis i walks input axis shuffle[i].
  SmallVector<int64_t, 6> srcStrides;
  for (int64_t s : shuffle)
    srcStrides.push_back(inStrides[size_t(s)]);
  gather(src, dst, 0, srcStrides);
  return Error::success();
}

Error runBroadcast(const KernelContext &ctx) {
  TensorArg src = ctx.in(ops::Broadcast::Input), dst = ctx.out();
  const DimsVec &inDims = src.dims();
  auto inStrides = signedStrides(inDims);
  // The input's axes align with the result's last ones; leading result axes and input axes of
  // size 1 repeat the same input elements, i.e. have stride 0.
  size_t shift = dst.dims().size() - inDims.size();
  SmallVector<int64_t, 6> srcStrides(dst.dims().size(), 0);
  for (size_t d = 0; d < inDims.size(); ++d)
    srcStrides[d + shift] = inDims[d] == 1 ? 0 : inStrides[d];
  gather(src, dst, 0, srcStrides);
  return Error::success();
}

Error runConcat(const KernelContext &ctx) {
  TensorArg dst = ctx.out();
  size_t axis = size_t(ctx.attr<AttrKind::Axis>()); // the shape rule keeps it in [0, rank)
  const DimsVec &dims = dst.dims();
  size_t esz = dst.type.elementSize();
  // Viewed as [outer, rest]: each input contributes one contiguous block of its `rest` bytes to
  // every outer row of the result, inputs in order.
  size_t outer = dimsProduct(dims, 0, axis);
  size_t dstRowBytes = dimsProduct(dims, axis, dims.size()) * esz;
  size_t colOffset = 0; // where the current input's block starts within a result row
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    TensorArg src = ctx.in(i);
    size_t srcRowBytes = dimsProduct(src.dims(), axis, src.dims().size()) * esz;
    for (size_t o = 0; o < outer; ++o)
      std::memcpy(dst.data + o * dstRowBytes + colOffset, src.data + o * srcRowBytes, srcRowBytes);
    colOffset += srcRowBytes;
  }
  return Error::success();
}

Error runSlice(const KernelContext &ctx) {
  TensorArg src = ctx.in(ops::Slice::Input), dst = ctx.out();
  const auto &starts = ctx.attr<AttrKind::Starts>();
  const auto &steps = ctx.attr<AttrKind::Steps>();
  if (dst.numElements() == 0)
    return Error::success(); // the starts of an empty result need not be valid
  auto inStrides = signedStrides(src.dims());
  // The shape rule keeps every index read in bounds: result axis d walks input axis d from
  // starts[d] in steps of steps[d]. An axis the result keeps one element of never steps (its
  // step may be anything, e.g. INT64_MAX).
  int64_t base = 0;
  SmallVector<int64_t, 6> srcStrides;
  for (size_t d = 0; d < inStrides.size(); ++d) {
    base += starts[d] * inStrides[d];
    srcStrides.push_back(dst.dims()[d] > 1 ? steps[d] * inStrides[d] : 0);
  }
  gather(src, dst, base, srcStrides);
  return Error::success();
}

Error runPad(const KernelContext &ctx) {
  TensorArg src = ctx.in(ops::Pad::Input), value = ctx.in(ops::Pad::Value), dst = ctx.out();
  const auto &pads = ctx.attr<AttrKind::Pads>();
  const std::string &mode = ctx.attr<AttrKind::Mode>();
  const DimsVec &inDims = src.dims(), &outDims = dst.dims();
  size_t rank = inDims.size(), esz = dst.type.elementSize(), n = dst.numElements();
  if (n == 0)
    return Error::success();
  // Per axis, the input element offset each result index reads (-1: the pad value).
  auto inStrides = signedStrides(inDims);
  int modeCode = ember_pad_mode_code(mode.c_str());
  std::vector<std::vector<int64_t>> offsets(rank);
  for (size_t d = 0; d < rank; ++d)
    for (dim_t o = 0; o < outDims[d]; ++o) {
      int64_t i = ember_pad_source(int64_t(o), int64_t(inDims[d]), pads[d], modeCode);
      offsets[d].push_back(i < 0 ? -1 : i * inStrides[d]);
    }
  SmallVector<dim_t, 6> idx(rank, 0);
  for (size_t e = 0; e < n; ++e) {
    int64_t off = 0;
    for (size_t d = 0; d < rank && off >= 0; ++d)
      off = offsets[d][idx[d]] < 0 ? -1 : off + offsets[d][idx[d]];
    std::memcpy(dst.data + e * esz, off < 0 ? value.data : src.data + off * esz, esz);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < outDims[d])
        break;
      idx[d] = 0;
    }
  }
  return Error::success();
}

Error runTrilu(const KernelContext &ctx) {
  TensorArg src = ctx.in(ops::Trilu::Input), dst = ctx.out();
  bool upper = ctx.attr<AttrKind::Upper>();
  int64_t k = ctx.attr<AttrKind::DiagonalOffset>();
  const DimsVec &dims = dst.dims();
  size_t esz = dst.type.elementSize(), rank = dims.size();
  size_t rows = dims[rank - 2], cols = dims[rank - 1];
  size_t matrices = dimsProduct(dims, 0, rank - 2);
  // Element (i, j) stays when j - i >= k (upper) or j - i <= k (lower); the rest becomes 0,
  // whose bytes are all zero for every kind the kernel supports.
  for (size_t m = 0; m < matrices; ++m)
    for (size_t i = 0; i < rows; ++i)
      for (size_t j = 0; j < cols; ++j) {
        size_t e = ((m * rows + i) * cols + j) * esz;
        int64_t diag = int64_t(j) - int64_t(i);
        if (upper ? diag >= k : diag <= k)
          std::memmove(dst.data + e, src.data + e, esz);
        else
          std::memset(dst.data + e, 0, esz);
      }
  return Error::success();
}

Error runRange(const KernelContext &ctx) {
  TensorArg dst = ctx.out();
  return dispatchAllKinds(dst.type.kind, [&](auto zero) -> Error {
    using T = decltype(zero);
    T start = *ctx.in(ops::Range::Start).as<T>(), delta = *ctx.in(ops::Range::Delta).as<T>();
    T *out = dst.as<T>();
    // The loader sizes the result so every value lies between start and limit; integers still
    // wrap (computed in uint64) rather than overflow should an IR say otherwise.
    for (size_t i = 0, n = dst.numElements(); i < n; ++i) {
      if constexpr (std::is_integral_v<T>)
        out[i] = T(uint64_t(start) + uint64_t(i) * uint64_t(delta));
      else
        out[i] = T(double(start) + double(i) * double(delta));
    }
    return Error::success();
  });
}

// Data movement copies bytes: any element kind.
bool supportsReshape(const Node &) { return true; }
bool supportsTranspose(const Node &) { return true; }
bool supportsBroadcast(const Node &) { return true; }
bool supportsConcat(const Node &) { return true; }
bool supportsSlice(const Node &) { return true; }
bool supportsPad(const Node &) { return true; }
// Zero is all-zero bytes for every kind but the quantized ones.
bool supportsTrilu(const Node &n) { return !isQuantizedKind(resultKind(n)); }
// ONNX Range's types.
bool supportsRange(const Node &n) {
  return resultKindIn(
      n, {ElemKind::Float32, ElemKind::Float64, ElemKind::Int16, ElemKind::Int32, ElemKind::Int64});
}

} // namespace interp
} // namespace ember
