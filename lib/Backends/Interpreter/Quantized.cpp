// Interpreter kernels: quantization (QuantizeLinear, DequantizeLinear, Requantize,
// DynamicQuantizeLinear, IntegerMatMul, IntegerConv). The recurrent kinds are in
// Recurrent.cpp.
#include "KernelUtils.h"

#include "ember/Semantics/Conversions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

/// Reads a parameter operand (Scale, ZeroPoint: the rank of the tensor it describes, each dim 1
/// or equal) at the element matching a flat index of the described tensor.
class ParameterIndex {
  DimsVec dims_, strides_; // strides_ is 0 along the parameter's dims of size 1

public:
  ParameterIndex(const TensorArg &t, const TensorArg &param) : dims_(t.dims()) {
    DimsVec paramStrides = rowMajorStrides(param.dims());
    for (size_t i = 0; i < dims_.size(); ++i)
      strides_.push_back(param.dims()[i] == 1 ? 0 : paramStrides[i]);
  }
  size_t operator()(size_t flat) const {
    size_t p = 0;
    for (size_t i = dims_.size(); i-- > 0;) {
      p += (flat % dims_[i]) * strides_[i];
      flat /= dims_[i];
    }
    return p;
  }
};

/// round-half-to-even(v) + zeroPoint saturated to Q's range. \p v is the scaled value (x / scale
/// or acc * scale); NaN gives Q's lowest value rather than undefined behavior.
template <typename Q, typename F> Q roundAndSaturate(F v, int32_t zeroPoint) {
  return conversions::roundAndSaturate(v, zeroPoint, std::numeric_limits<Q>::lowest(),
                                       std::numeric_limits<Q>::max());
}

/// Calls fn(Q()) for the 8-bit result kinds.
template <typename Fn> Error dispatchByteKinds(ElemKind k, Fn &&fn) {
  if (k == ElemKind::Int8)
    return fn(int8_t());
  if (k == ElemKind::UInt8)
    return fn(uint8_t());
  return makeError("no kernel for element kind " + elemKindName(k) + " (int8 and uint8 only)");
}

/// The precision ONNX's reference divides in: float32 for float32 and narrower (numpy keeps
/// float32), float64 for float64 and for int32 (numpy promotes int32 / float32 to float64).
template <typename T>
using DivisionType =
    std::conditional_t<std::is_same_v<T, double> || std::is_same_v<T, int32_t>, double, float>;

/// y = saturate(round(scaled(x, scale)) + zp) for the kinds dispatch picks; shared by
/// QuantizeLinear (x / scale) and Requantize (x * scale).
template <bool Divide> Error quantize(const KernelContext &ctx) {
  TensorArg x = ctx.in(0), scale = ctx.in(1), zp = ctx.in(2), y = ctx.out();
  ParameterIndex scaleAt(x, scale), zpAt(x, zp);
  return dispatchAllKinds(x.type.kind, [&](auto xTag) -> Error {
    using T = decltype(xTag);
    if constexpr (std::is_same_v<T, bool> ||
                  (std::is_integral_v<T> && !std::is_same_v<T, int32_t>)) {
      return ctx.unsupported("no kernel for input kind " + elemKindName(x.type.kind));
    } else {
      return dispatchByteKinds(y.type.kind, [&](auto qTag) -> Error {
        using Q = decltype(qTag);
        using F = std::conditional_t<Divide, DivisionType<T>, float>;
        const T *in = x.as<T>();
        const float *s = scale.as<float>();
        const Q *z = zp.as<Q>();
        Q *out = y.as<Q>();
        for (size_t i = 0, e = x.numElements(); i < e; ++i) {
          F v = F(in[i]), sc = F(s[scaleAt(i)]);
          out[i] = roundAndSaturate<Q>(Divide ? F(v / sc) : F(v * sc), int32_t(z[zpAt(i)]));
        }
        return Error::success();
      });
    }
  });
}

bool isByteKind(ElemKind k) { return k == ElemKind::Int8 || k == ElemKind::UInt8; }

/// Operand \p x minus its zero point \p zp, as int32: the values integer kernels multiply.
Expected<std::vector<int32_t>> shiftedByZeroPoint(const KernelContext &ctx, TensorArg x,
                                                  TensorArg zp) {
  std::vector<int32_t> out(x.numElements());
  ParameterIndex zpAt(x, zp);
  EMBER_TRY(dispatchByteKinds(x.type.kind, [&](auto tag) -> Error {
    using T = decltype(tag);
    const T *in = x.as<T>(), *z = zp.as<T>();
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = int32_t(in[i]) - int32_t(z[zpAt(i)]);
    return Error::success();
  }));
  return out;
}

/// int64 sums truncated to int32: the 32-bit wrap-around ONNX allows, without signed overflow.
int32_t wrapToInt32(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }

} // namespace

Error runQuantizeLinear(const KernelContext &ctx) { return quantize<true>(ctx); }
Error runRequantize(const KernelContext &ctx) { return quantize<false>(ctx); }

Error runDequantizeLinear(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::DequantizeLinear::Input), scale = ctx.in(ops::DequantizeLinear::Scale),
            zp = ctx.in(ops::DequantizeLinear::ZeroPoint), y = ctx.out();
  ParameterIndex scaleAt(x, scale), zpAt(x, zp);
  auto run = [&](auto tag) -> Error {
    using T = decltype(tag);
    const T *in = x.as<T>(), *z = zp.as<T>();
    const float *s = scale.as<float>();
    float *out = y.as<float>();
    for (size_t i = 0, e = x.numElements(); i < e; ++i)
      out[i] = float(int64_t(in[i]) - int64_t(z[zpAt(i)])) * s[scaleAt(i)];
    return Error::success();
  };
  if (x.type.kind == ElemKind::Int32)
    return run(int32_t());
  return dispatchByteKinds(x.type.kind, run);
}

Error runDynamicQuantizeLinear(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::DynamicQuantizeLinear::Input);
  if (x.type.kind != ElemKind::Float32)
    return ctx.unsupported("no kernel for input kind " + elemKindName(x.type.kind));
  const float *in = x.as<float>();
  size_t n = x.numElements();
  // The range always includes 0 so that 0 is exactly representable.
  float lo = 0, hi = 0;
  for (size_t i = 0; i < n; ++i) {
    lo = std::min(lo, in[i]);
    hi = std::max(hi, in[i]);
  }
  float scale = (hi - lo) / 255.0f;
  uint8_t zeroPoint = scale == 0 ? 0 : roundAndSaturate<uint8_t>(-lo / scale, 0);
  uint8_t *out = ctx.out(ops::DynamicQuantizeLinear::Result).as<uint8_t>();
  for (size_t i = 0; i < n; ++i)
    out[i] = scale == 0 ? 0 : roundAndSaturate<uint8_t>(in[i] / scale, zeroPoint);
  *ctx.out(ops::DynamicQuantizeLinear::Scale).as<float>() = scale;
  *ctx.out(ops::DynamicQuantizeLinear::ZeroPoint).as<uint8_t>() = zeroPoint;
  return Error::success();
}

Error runIntegerMatMul(const KernelContext &ctx) {
  TensorArg a = ctx.in(ops::IntegerMatMul::LHS), b = ctx.in(ops::IntegerMatMul::RHS),
            y = ctx.out();
  EMBER_ASSIGN_OR_RETURN(std::vector<int32_t> lhs,
                         shiftedByZeroPoint(ctx, a, ctx.in(ops::IntegerMatMul::LHSZeroPoint)));
  EMBER_ASSIGN_OR_RETURN(std::vector<int32_t> rhs,
                         shiftedByZeroPoint(ctx, b, ctx.in(ops::IntegerMatMul::RHSZeroPoint)));
  size_t r = y.dims().size();
  size_t M = y.dims()[r - 2], N = y.dims()[r - 1], K = a.dims()[r - 1];
  DimsVec outBatch(y.dims().begin(), y.dims().end() - 2);
  size_t batches = dimsProduct(outBatch, 0, outBatch.size());
  int32_t *out = y.as<int32_t>();
  for (size_t bi = 0; bi < batches; ++bi) {
    // Batch dims of size 1 broadcast: find each operand's matrix for output batch bi.
    size_t aBatch = 0, bBatch = 0, rest = bi;
    size_t aStride = 1, bStride = 1;
    for (size_t i = outBatch.size(); i-- > 0;) {
      size_t idx = rest % outBatch[i];
      rest /= outBatch[i];
      if (a.dims()[i] != 1)
        aBatch += idx * aStride;
      if (b.dims()[i] != 1)
        bBatch += idx * bStride;
      aStride *= a.dims()[i];
      bStride *= b.dims()[i];
    }
    const int32_t *am = lhs.data() + aBatch * M * K, *bm = rhs.data() + bBatch * K * N;
    int32_t *ym = out + bi * M * N;
    for (size_t m = 0; m < M; ++m)
      for (size_t n = 0; n < N; ++n) {
        int64_t sum = 0;
        for (size_t k = 0; k < K; ++k)
          sum += int64_t(am[m * K + k]) * bm[k * N + n];
        ym[m * N + n] = wrapToInt32(sum);
      }
  }
  return Error::success();
}

Error runIntegerConv(const KernelContext &ctx) {
  TensorArg x = ctx.in(ops::IntegerConv::Input), w = ctx.in(ops::IntegerConv::Filter),
            bias = ctx.in(ops::IntegerConv::Bias), y = ctx.out();
  EMBER_ASSIGN_OR_RETURN(std::vector<int32_t> in,
                         shiftedByZeroPoint(ctx, x, ctx.in(ops::IntegerConv::InputZeroPoint)));
  EMBER_ASSIGN_OR_RETURN(std::vector<int32_t> filter,
                         shiftedByZeroPoint(ctx, w, ctx.in(ops::IntegerConv::FilterZeroPoint)));
  const auto &strides = ctx.attr<AttrKind::Strides>();
  const auto &pads = ctx.attr<AttrKind::Pads>(); // begins, then ends
  const auto &dilations = ctx.attr<AttrKind::Dilations>();
  int64_t group = ctx.attr<AttrKind::Group>();

  size_t nsp = x.dims().size() - 2;
  ArrayRef<dim_t> inSpatial = ArrayRef<dim_t>(x.dims()).drop_front(2),
                  kSpatial = ArrayRef<dim_t>(w.dims()).drop_front(2),
                  outSpatial = ArrayRef<dim_t>(y.dims()).drop_front(2);
  size_t N = x.dims()[0], C = x.dims()[1], Cout = w.dims()[0];
  size_t inSize = dimsProduct(inSpatial, 0, nsp), kSize = dimsProduct(kSpatial, 0, nsp),
         outSize = dimsProduct(outSpatial, 0, nsp);
  size_t cinPerGroup = C / group, coutPerGroup = Cout / group;
  const int32_t *b = bias.as<int32_t>();
  int32_t *out = y.as<int32_t>();

  std::vector<int64_t> outPos(nsp), kPos(nsp);
  for (size_t n = 0; n < N; ++n)
    for (size_t oc = 0; oc < Cout; ++oc) {
      // Output channel oc reads only the input channels of its own group.
      size_t icBegin = (oc / coutPerGroup) * cinPerGroup;
      for (size_t o = 0; o < outSize; ++o) {
        for (size_t d = nsp, rest = o; d-- > 0; rest /= outSpatial[d])
          outPos[d] = int64_t(rest % outSpatial[d]);
        int64_t sum = b[oc];
        for (size_t k = 0; k < kSize; ++k) {
          // The input cell under kernel offset k, or none when it falls in the padding (which
          // holds the zero point, i.e. 0 after the shift).
          size_t inFlat = 0;
          bool inside = true;
          for (size_t d = nsp, rest = k; d-- > 0; rest /= kSpatial[d])
            kPos[d] = int64_t(rest % kSpatial[d]);
          for (size_t d = 0; d < nsp && inside; ++d) {
            int64_t i = outPos[d] * strides[d] - pads[d] + kPos[d] * dilations[d];
            inside = i >= 0 && i < int64_t(inSpatial[d]);
            inFlat = inFlat * inSpatial[d] + size_t(i);
          }
          if (!inside)
            continue;
          for (size_t ic = 0; ic < cinPerGroup; ++ic)
            sum += int64_t(in[(n * C + icBegin + ic) * inSize + inFlat]) *
                   filter[(oc * cinPerGroup + ic) * kSize + k];
        }
        out[(n * Cout + oc) * outSize + o] = wrapToInt32(sum);
      }
    }
  return Error::success();
}

namespace {
bool operandKindIs(const Node &n, unsigned i, std::initializer_list<ElemKind> kinds) {
  ElemKind k = n.getOperand(i).getType().kind;
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}
} // namespace

bool supportsQuantizeLinear(const Node &n) {
  return operandKindIs(n, 0,
                       {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16,
                        ElemKind::BFloat16, ElemKind::Int32}) &&
         isByteKind(resultKind(n));
}
bool supportsRequantize(const Node &n) {
  return operandKindIs(n, 0, {ElemKind::Int32}) && isByteKind(resultKind(n));
}
bool supportsDequantizeLinear(const Node &n) {
  return operandKindIs(n, 0, {ElemKind::Int8, ElemKind::UInt8, ElemKind::Int32});
}
bool supportsDynamicQuantizeLinear(const Node &n) {
  return operandKindIs(n, 0, {ElemKind::Float32});
}
bool supportsIntegerMatMul(const Node &n) {
  return operandKindIs(n, 0, {ElemKind::Int8, ElemKind::UInt8}) &&
         operandKindIs(n, 1, {ElemKind::Int8, ElemKind::UInt8});
}
bool supportsIntegerConv(const Node &n) { return supportsIntegerMatMul(n); }

} // namespace interp
} // namespace ember
