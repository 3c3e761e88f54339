// Data movement kernels: Reshape, Transpose, Broadcast, Concat. They never look at values, only
// move `elementSize()` bytes per element, so one kernel serves every element kind.
#include "KernelUtils.h"

#include "llvm/ADT/SmallVector.h"

#include <cstring>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// Fills \p dst (of \p dims) element by element: the element at multi-index idx comes from
/// src element sum(idx[d] * srcStrides[d]). Transpose is this with permuted strides, Broadcast
/// with stride 0 on the broadcast axes. \p Size is the element size when known at compile time
/// (so the copy becomes one move), 0 to use \p esz.
template <size_t Size>
void gatherImpl(uint8_t *dst, const uint8_t *src, ArrayRef<dim_t> dims,
                ArrayRef<size_t> srcStrides, size_t esz) {
  const size_t bytes = Size ? Size : esz;
  size_t n = dimsProduct(dims, 0, dims.size());
  if (n == 0)
    return;
  size_t rank = dims.size();
  SmallVector<dim_t, 6> idx(rank, 0);
  size_t srcOff = 0; // in elements; always sum(idx[d] * srcStrides[d])
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * bytes, src + srcOff * bytes, bytes);
    // Step the multi-index like an odometer, keeping srcOff in sync.
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < dims[d]) {
        srcOff += srcStrides[d];
        break;
      }
      srcOff -= (dims[d] - 1) * srcStrides[d];
      idx[d] = 0;
    }
  }
}

void gather(const TensorArg &src, const TensorArg &dst, ArrayRef<size_t> srcStrides) {
  size_t esz = dst.type.elementSize();
  switch (esz) {
  case 1:
    return gatherImpl<1>(dst.data, src.data, dst.dims(), srcStrides, esz);
  case 2:
    return gatherImpl<2>(dst.data, src.data, dst.dims(), srcStrides, esz);
  case 4:
    return gatherImpl<4>(dst.data, src.data, dst.dims(), srcStrides, esz);
  case 8:
    return gatherImpl<8>(dst.data, src.data, dst.dims(), srcStrides, esz);
  default:
    return gatherImpl<0>(dst.data, src.data, dst.dims(), srcStrides, esz);
  }
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
  DimsVec inStrides = rowMajorStrides(src.dims());
  // Result axis i walks input axis shuffle[i].
  SmallVector<size_t, 6> srcStrides;
  for (int64_t s : shuffle)
    srcStrides.push_back(inStrides[size_t(s)]);
  gather(src, dst, srcStrides);
  return Error::success();
}

Error runBroadcast(const KernelContext &ctx) {
  TensorArg src = ctx.in(ops::Broadcast::Input), dst = ctx.out();
  const DimsVec &inDims = src.dims();
  DimsVec inStrides = rowMajorStrides(inDims);
  // The input's axes align with the result's last ones; leading result axes and input axes of
  // size 1 repeat the same input elements, i.e. have stride 0.
  size_t shift = dst.dims().size() - inDims.size();
  SmallVector<size_t, 6> srcStrides(dst.dims().size(), 0);
  for (size_t d = 0; d < inDims.size(); ++d)
    srcStrides[d + shift] = inDims[d] == 1 ? 0 : inStrides[d];
  gather(src, dst, srcStrides);
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
      std::memcpy(dst.data + o * dstRowBytes + colOffset, src.data + o * srcRowBytes,
                  srcRowBytes);
    colOffset += srcRowBytes;
  }
  return Error::success();
}

// Data movement copies bytes: any element kind.
bool supportsReshape(const Node &) { return true; }
bool supportsTranspose(const Node &) { return true; }
bool supportsBroadcast(const Node &) { return true; }
bool supportsConcat(const Node &) { return true; }

} // namespace interp
} // namespace ember
