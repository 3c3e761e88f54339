// The Resize kernel (ONNX Resize-13 semantics, which the loader also uses for Resize-10/11 and
// Upsample). Every result coordinate maps to an input coordinate per axis; there, nearest picks
// one element and linear/cubic weigh 2/4 neighbours per axis (the N-D result is the tensor
// product of the per-axis weights). Neighbours past the border repeat the border element, as
// in the ONNX reference implementation.
#include "KernelUtils.h"

#include "ember/Semantics/ResizeSampling.h"

#include "llvm/ADT/SmallVector.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// Calls visit(e, idx) for every result element, e its flat index and idx its multi-index.
template <typename Visit> void forEachResult(ArrayRef<dim_t> dims, Visit visit) {
  size_t n = dimsProduct(dims, 0, dims.size());
  SmallVector<dim_t, 6> idx(dims.size(), 0);
  for (size_t e = 0; e < n; ++e) {
    visit(e, ArrayRef<dim_t>(idx));
    for (size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d])
        break;
      idx[d] = 0;
    }
  }
}

/// Whether tf_crop_and_resize maps result multi-index \p idx outside the input on some axis.
bool outside(ArrayRef<std::vector<ResizeSample>> axes, ArrayRef<dim_t> idx) {
  for (size_t d = 0; d < idx.size(); ++d)
    if (axes[d][idx[d]].outside)
      return true;
  return false;
}

} // namespace

Error runResize(const KernelContext &ctx) {
  TensorArg src = ctx.in(ops::Resize::Input), dst = ctx.out();
  const DimsVec &inDims = src.dims(), &outDims = dst.dims();
  size_t rank = outDims.size(), esz = dst.type.elementSize();
  if (dst.numElements() == 0)
    return Error::success();
  DimsVec strides = rowMajorStrides(inDims);
  std::vector<std::vector<ResizeSample>> axes;
  for (unsigned d = 0; d < rank; ++d)
    axes.push_back(resizeAxisSamples(ctx.instr().getAttrs(), unsigned(rank), d, inDims[d],
                                     outDims[d], int64_t(strides[d])));
  Tensor extrapolationElement =
      resizeExtrapolationElement(dst.type, ctx.attr<AttrKind::ExtrapolationValue>());
  const uint8_t *extrapolation = extrapolationElement.data();

  if (ctx.attr<AttrKind::Mode>() == "nearest") { // one tap per axis: moves bytes, any kind
    forEachResult(outDims, [&](size_t e, ArrayRef<dim_t> idx) {
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d)
        off += axes[d][idx[d]].taps[0].offset;
      std::memcpy(dst.data + e * esz, outside(axes, idx) ? extrapolation : src.data + off * esz,
                  esz);
    });
    return Error::success();
  }

  return dispatchAllKinds(dst.type.kind, [&](auto zero) -> Error {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, bool>) {
      return ctx.unsupported("linear and cubic resize of bool is not defined");
    } else {
      const T *in = src.as<T>();
      T *out = dst.as<T>();
      SmallVector<size_t, 6> tap(rank, 0); // which tap of each axis the sum is at
      forEachResult(outDims, [&](size_t e, ArrayRef<dim_t> idx) {
        if (outside(axes, idx)) {
          std::memcpy(&out[e], extrapolation, esz);
          return;
        }
        // Sum over the tensor product of every axis' taps, odometer style.
        double sum = 0;
        std::fill(tap.begin(), tap.end(), 0);
        for (bool more = true; more;) {
          int64_t off = 0;
          double w = 1;
          for (size_t d = 0; d < rank; ++d) {
            const ResizeTap &t = axes[d][idx[d]].taps[tap[d]];
            off += t.offset;
            w *= t.weight;
          }
          sum += w * double(in[off]);
          more = false;
          for (size_t d = rank; d-- > 0;) {
            if (++tap[d] < axes[d][idx[d]].taps.size()) {
              more = true;
              break;
            }
            tap[d] = 0;
          }
        }
        out[e] = resizeValueAs<T>(sum);
      });
      return Error::success();
    }
  });
}

// Nearest moves elements: any kind. Linear and cubic compute on floats and integers.
bool supportsResize(const Node &n) {
  ElemKind k = resultKind(n);
  return n.attr<AttrKind::Mode>() == "nearest" || (!isQuantizedKind(k) && k != ElemKind::Bool);
}

} // namespace interp
} // namespace ember
