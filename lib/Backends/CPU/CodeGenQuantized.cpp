// Codegen for the quantized family (kernels/Quantized.cpp, QuantizedInteger.cpp):
// QuantizeLinear, Requantize, DequantizeLinear, DynamicQuantizeLinear, IntegerMatMul and
// IntegerConv, for exactly the element kinds the Interpreter runs (its supports<Kind> in
// lib/Backends/Interpreter/Quantized.cpp).
//
// Scale and ZeroPoint operands have the rank of the tensor they describe with each dim 1 or
// equal (Nodes/Quantized.def); the kernels get the tensor's dims and each parameter's strides,
// 0 along its size-1 dims.
//
// IntegerConv (1-D and 2-D, not depthwise) and IntegerMatMul with a per-tensor zero point for
// the input (the RHS) and a per-tensor or per-output-channel (per-row) one for the filter (the
// LHS) run the int8 GEMM (kernels/QuantizedIntegerGemm.h), in the variant of
// kernels/QuantizedIntegerVariants.def the target CPU runs best. The others first shift both
// operands by their zero points into int16 scratch, then multiply those (QuantizedInteger.cpp).
// An IntegerConv on the int8 GEMM or the depthwise kernel whose result only a Requantize reads
// is emitted with it (CodeGenFusion.cpp finds the pairs): the kernel requantizes as it finishes
// the sums.
#include "CodeGenQuantized.h"
#include "CodeGenUtils.h"
#include "KernelVariants.h"

#include "kernels/QuantizedDepthwise.h"
#include "kernels/QuantizedLayout.h"

#include "ember/Graph/Node.h"

#include <initializer_list>
#include <optional>

using namespace llvm;

namespace ember {
namespace cpu {

namespace {

bool kindIn(ElemKind k, std::initializer_list<ElemKind> kinds) {
  for (ElemKind c : kinds)
    if (c == k)
      return true;
  return false;
}

bool isByteKind(ElemKind k) { return k == ElemKind::Int8 || k == ElemKind::UInt8; }

ElemKind operandKind(const Node &n, unsigned i) { return n.getOperand(i).getType().kind; }

bool supportsQuantizeLinear(const Node &n) {
  return kindIn(operandKind(n, ops::QuantizeLinear::Input),
                {ElemKind::Float32, ElemKind::Float64, ElemKind::Float16, ElemKind::BFloat16,
                 ElemKind::Int32}) &&
         isByteKind(n.getType(ops::QuantizeLinear::Result).kind);
}
bool supportsRequantize(const Node &n) {
  return operandKind(n, ops::Requantize::Input) == ElemKind::Int32 &&
         isByteKind(n.getType(ops::Requantize::Result).kind);
}
bool supportsRequantizeInstr(const Instruction &I) {
  return I.getInput(ops::Requantize::Input)->getType().kind == ElemKind::Int32 &&
         isByteKind(I.getOutput()->getType().kind);
}
bool supportsDequantizeLinear(const Node &n) {
  return kindIn(operandKind(n, ops::DequantizeLinear::Input),
                {ElemKind::Int8, ElemKind::UInt8, ElemKind::Int32});
}
bool supportsDynamicQuantizeLinear(const Node &n) {
  return operandKind(n, ops::DynamicQuantizeLinear::Input) == ElemKind::Float32;
}
bool supportsIntegerMatMul(const Node &n) {
  return isByteKind(operandKind(n, ops::IntegerMatMul::LHS)) &&
         isByteKind(operandKind(n, ops::IntegerMatMul::RHS));
}
bool supportsIntegerConv(const Node &n) {
  return isByteKind(operandKind(n, ops::IntegerConv::Input)) &&
         isByteKind(operandKind(n, ops::IntegerConv::Filter));
}

/// The dims the kernels walk (a scalar as [1]).
SmallVector<int64_t, 6> walkDims(ArrayRef<dim_t> dims) {
  SmallVector<int64_t, 6> d(dims.begin(), dims.end());
  if (d.empty())
    d.push_back(1);
  return d;
}

/// Strides of parameter \p param along the dims of the tensor it describes: its row-major
/// strides, 0 along its dims of size 1 (broadcast). A scalar's: [0].
SmallVector<int64_t, 6> paramStrides(ArrayRef<dim_t> param) {
  SmallVector<int64_t, 6> s = rowMajorStrides(param);
  for (size_t i = 0; i < param.size(); ++i)
    if (param[i] == 1)
      s[i] = 0;
  if (s.empty())
    s.push_back(0);
  return s;
}

const DimsVec &dimsOf(const Instruction &I, unsigned input) {
  return I.getInput(input)->getType().dims;
}

/// The arguments every parameterized kernel ends with: rank, dims, and the strides of the
/// operands \p params (Scale and/or ZeroPoint) along the dims of input \p x. Adjacent dims
/// merge where every parameter walks them as one (both broadcast, or both contiguous in it), so
/// the kernels' rows are as long as the parameters allow.
/// In a fused loop's chunk (CodeGenFusion.cpp, which fuses only per-tensor parameters): one row
/// of the chunk's elements, every parameter read at its one element.
SmallVector<Value *, 4> walkArgs(Emitter &E, const Instruction &I, unsigned x,
                                 ArrayRef<unsigned> params) {
  SmallVector<int64_t, 6> dims = walkDims(dimsOf(I, x));
  SmallVector<SmallVector<int64_t, 6>, 2> strides;
  for (unsigned p : params)
    strides.push_back(paramStrides(dimsOf(I, p)));
  if (int64_t chunk = E.chunkElements()) {
    dims = {chunk};
    for (auto &s : strides)
      s = {0};
  }
  for (size_t d = dims.size() - 1; d-- > 0;) {
    bool merges = true;
    for (const auto &s : strides)
      merges &= s[d] == s[d + 1] * dims[d + 1];
    if (!merges)
      continue;
    dims[d] *= dims[d + 1];
    dims.erase(dims.begin() + d + 1);
    for (auto &s : strides)
      s.erase(s.begin() + d);
  }
  SmallVector<Value *, 4> args{E.i64(int64_t(dims.size())), E.constArray(dims, "dims")};
  for (const auto &s : strides)
    args.push_back(E.constArray(s, "param_strides"));
  return args;
}

/// QuantizeLinear and Requantize: saturate(round(Input / or * Scale) + ZeroPoint).
Error emitQuantize(Emitter &E, const Instruction &I) {
  ElemKind in = I.getInput(ops::QuantizeLinear::Input)->getType().kind;
  ElemKind q = I.getOutput()->getType().kind;
  std::string kernel = I.getKind() == InstrKind::Requantize
                           ? kernelFor("ember_requantize_i32", q)
                           : kernelFor(kernelFor("ember_quantize_linear", in), q);
  static_assert(unsigned(ops::QuantizeLinear::Scale) == unsigned(ops::Requantize::Scale) &&
                    unsigned(ops::QuantizeLinear::ZeroPoint) ==
                        unsigned(ops::Requantize::ZeroPoint),
                "QuantizeLinear and Requantize share one emitter");
  SmallVector<Value *, 8> args{E.out(I), E.in(I, ops::QuantizeLinear::Input),
                               E.in(I, ops::QuantizeLinear::Scale),
                               E.in(I, ops::QuantizeLinear::ZeroPoint)};
  args.append(walkArgs(E, I, ops::QuantizeLinear::Input,
                       {ops::QuantizeLinear::Scale, ops::QuantizeLinear::ZeroPoint}));
  return E.call(kernel, args);
}

Error emitDequantizeLinear(Emitter &E, const Instruction &I) {
  ElemKind in = I.getInput(ops::DequantizeLinear::Input)->getType().kind;
  SmallVector<Value *, 8> args{E.out(I), E.in(I, ops::DequantizeLinear::Input),
                               E.in(I, ops::DequantizeLinear::Scale),
                               E.in(I, ops::DequantizeLinear::ZeroPoint)};
  args.append(walkArgs(E, I, ops::DequantizeLinear::Input,
                       {ops::DequantizeLinear::Scale, ops::DequantizeLinear::ZeroPoint}));
  return E.call(kernelFor("ember_dequantize_linear", in), args);
}

Error emitDynamicQuantizeLinear(Emitter &E, const Instruction &I) {
  return E.call("ember_dynamic_quantize_linear_f32",
                {E.out(I, ops::DynamicQuantizeLinear::Result),
                 E.out(I, ops::DynamicQuantizeLinear::Scale),
                 E.out(I, ops::DynamicQuantizeLinear::ZeroPoint),
                 E.in(I, ops::DynamicQuantizeLinear::Input),
                 E.i64(numElements(I.getInput(ops::DynamicQuantizeLinear::Input)))});
}

/// Scratch of the integer products: the int16 shifted copies of operands \p a and \p b.
uint64_t shiftedPairScratch(const Instruction &I, unsigned a, unsigned b) {
  return uint64_t(quantlayout::shiftedBytes(numElements(I.getInput(a))) +
                  quantlayout::shiftedBytes(numElements(I.getInput(b))));
}

/// Emits the shift of operands \p a and \p b by their zero points \p za and \p zb into the
/// scratch; returns the two copies' addresses.
Expected<std::pair<Value *, Value *>> emitShifts(Emitter &E, const Instruction &I, unsigned a,
                                                 unsigned za, unsigned b, unsigned zb) {
  Value *sa = E.scratch(I);
  Value *sb = E.builder().CreateInBoundsGEP(
      E.builder().getInt8Ty(), sa,
      E.i64(quantlayout::shiftedBytes(numElements(I.getInput(a)))), "shifted");
  for (auto [dst, x, zp] : {std::tuple<Value *, unsigned, unsigned>{sa, a, za},
                            std::tuple<Value *, unsigned, unsigned>{sb, b, zb}}) {
    SmallVector<Value *, 8> args{dst, E.in(I, x), E.in(I, zp)};
    args.append(walkArgs(E, I, x, {zp}));
    EMBER_TRY(E.call(kernelFor("ember_shift_zero_point", I.getInput(x)->getType().kind), args));
  }
  return std::make_pair(sa, sb);
}

/// Whether every dim of \p dims is 1 but, where \p except is in range, dim \p except.
bool onesBut(ArrayRef<dim_t> dims, size_t except) {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != 1 && i != except)
      return false;
  return true;
}

/// IntegerMatMul's parameters for the int8 GEMM (kernels/QuantizedLayout.h: QMatMulParam), if
/// its zero points are a per-tensor one for the RHS and a per-tensor or per-row one for the LHS.
std::optional<std::vector<int64_t>> fastMatMulParams(const Instruction &I) {
  const DimsVec &a = dimsOf(I, ops::IntegerMatMul::LHS), &b = dimsOf(I, ops::IntegerMatMul::RHS);
  const DimsVec &r = I.getOutput()->getType().dims;
  size_t rank = r.size();
  if (!onesBut(dimsOf(I, ops::IntegerMatMul::RHSZeroPoint), rank) ||
      !onesBut(dimsOf(I, ops::IntegerMatMul::LHSZeroPoint), rank - 2))
    return std::nullopt;
  std::vector<int64_t> p(static_cast<size_t>(quantlayout::kQmCount));
  p[quantlayout::kQmM] = int64_t(a[rank - 2]);
  p[quantlayout::kQmN] = int64_t(b[rank - 1]);
  p[quantlayout::kQmK] = int64_t(a[rank - 1]);
  p[quantlayout::kQmBatches] = matmulBatches(a, b, r).count;
  p[quantlayout::kQmLhsUnsigned] =
      I.getInput(ops::IntegerMatMul::LHS)->getType().kind == ElemKind::UInt8;
  p[quantlayout::kQmRhsSigned] =
      I.getInput(ops::IntegerMatMul::RHS)->getType().kind == ElemKind::Int8;
  p[quantlayout::kQmLhsZpPerRow] = dimsOf(I, ops::IntegerMatMul::LHSZeroPoint)[rank - 2] != 1;
  return p;
}

uint64_t integerMatMulScratch(const Instruction &I, int64_t threads) {
  if (auto p = fastMatMulParams(I)) {
    int64_t M = (*p)[quantlayout::kQmM];
    return M <= quantlayout::kQGemvMaxRows
               ? 0
               : uint64_t(quantlayout::qgemmScratchBytes(1, M, (*p)[quantlayout::kQmK], threads));
  }
  return shiftedPairScratch(I, ops::IntegerMatMul::LHS, ops::IntegerMatMul::RHS);
}

Error emitIntegerMatMul(Emitter &E, const Instruction &I) {
  const DimsVec &a = dimsOf(I, ops::IntegerMatMul::LHS), &b = dimsOf(I, ops::IntegerMatMul::RHS);
  const DimsVec &r = I.getOutput()->getType().dims;
  size_t rank = r.size();
  int64_t M = int64_t(a[rank - 2]), K = int64_t(a[rank - 1]), N = int64_t(b[rank - 1]);
  MatMulBatches batches = matmulBatches(a, b, r);
  if (auto p = fastMatMulParams(I)) {
    std::string entry = ("ember_integer_matmul_" + E.integerVariant()).str();
    return E.call(entry, {E.out(I), E.in(I, ops::IntegerMatMul::LHS),
                          E.in(I, ops::IntegerMatMul::RHS),
                          E.in(I, ops::IntegerMatMul::LHSZeroPoint),
                          E.in(I, ops::IntegerMatMul::RHSZeroPoint),
                          E.constArray(*p, "integer_matmul"),
                          E.constArray(batches.lhs, "lhs_offsets"),
                          E.constArray(batches.rhs, "rhs_offsets"), E.scratch(I), E.team()});
  }
  EMBER_ASSIGN_OR_RETURN(auto shifted,
                         emitShifts(E, I, ops::IntegerMatMul::LHS, ops::IntegerMatMul::LHSZeroPoint,
                                    ops::IntegerMatMul::RHS, ops::IntegerMatMul::RHSZeroPoint));
  return E.call("ember_integer_matmul_i16",
                {E.out(I), shifted.first, shifted.second, E.i64(M), E.i64(N), E.i64(K),
                 E.i64(batches.count), E.constArray(batches.lhs, "lhs_offsets"),
                 E.constArray(batches.rhs, "rhs_offsets")});
}

/// IntegerConv's shapes and attributes, as both of its kernels read them.
struct IntegerConvShape {
  const DimsVec &x, &w, &y; // input, filter, result
  size_t nsp;               // spatial dims
  const std::vector<int64_t> &strides, &pads, &dilations; // pads: begins, then ends
  int64_t group;

  explicit IntegerConvShape(const Instruction &I)
      : x(dimsOf(I, ops::IntegerConv::Input)), w(dimsOf(I, ops::IntegerConv::Filter)),
        y(I.getOutput()->getType().dims), nsp(x.size() - 2),
        strides(I.attr<AttrKind::Strides>()), pads(I.attr<AttrKind::Pads>()),
        dilations(I.attr<AttrKind::Dilations>()), group(I.attr<AttrKind::Group>()) {}
  /// Whether the attributes have the spatial rank.
  bool consistent() const {
    return strides.size() == nsp && pads.size() == 2 * nsp &&
           (dilations.empty() || dilations.size() == nsp);
  }
  int64_t dilation(size_t d) const { return dilations.empty() ? 1 : dilations[d]; }
};

/// IntegerConv's parameters for the int8 GEMM (kernels/QuantizedLayout.h: QConvParam), if it
/// is 1-D or 2-D, not depthwise (a GEMM one input channel deep would be mostly packing), with a
/// per-tensor input zero point and a per-tensor or per-output-channel filter zero point.
std::optional<std::vector<int64_t>> fastConvParams(const Instruction &I) {
  IntegerConvShape c(I);
  if ((c.nsp != 1 && c.nsp != 2) || !c.consistent() || c.group < 1 ||
      int64_t(c.x[1]) / c.group < 2 ||
      !onesBut(dimsOf(I, ops::IntegerConv::InputZeroPoint), c.x.size()) ||
      !onesBut(dimsOf(I, ops::IntegerConv::FilterZeroPoint), 0))
    return std::nullopt;
  // A 1-D convolution is a 2-D one of height 1: spatial dim 0 is the height, 1 the width.
  bool twoD = c.nsp == 2;
  auto spatial = [&](const DimsVec &d, size_t i) -> int64_t {
    return twoD ? int64_t(d[2 + i]) : i ? int64_t(d[2]) : 1;
  };
  using namespace quantlayout;
  std::vector<int64_t> p(static_cast<size_t>(kQcCount));
  p[kQcN] = int64_t(c.x[0]);
  p[kQcC] = int64_t(c.x[1]);
  p[kQcH] = spatial(c.x, 0);
  p[kQcW] = spatial(c.x, 1);
  p[kQcCout] = int64_t(c.w[0]);
  p[kQcGroup] = c.group;
  p[kQcKH] = spatial(c.w, 0);
  p[kQcKW] = spatial(c.w, 1);
  p[kQcOH] = spatial(c.y, 0);
  p[kQcOW] = spatial(c.y, 1);
  p[kQcSH] = twoD ? c.strides[0] : 1;
  p[kQcSW] = c.strides[c.nsp - 1];
  p[kQcPH] = twoD ? c.pads[0] : 0;
  p[kQcPW] = c.pads[c.nsp - 1];
  p[kQcDH] = twoD ? c.dilation(0) : 1;
  p[kQcDW] = c.dilation(c.nsp - 1);
  p[kQcInputSigned] = I.getInput(ops::IntegerConv::Input)->getType().kind == ElemKind::Int8;
  p[kQcFilterUnsigned] = I.getInput(ops::IntegerConv::Filter)->getType().kind == ElemKind::UInt8;
  p[kQcFilterZpPerChannel] = dimsOf(I, ops::IntegerConv::FilterZeroPoint)[0] != 1;
  return p;
}

} // namespace

uint64_t requantStagingBytes(const Instruction &I) {
  return uint64_t(quantlayout::roundUp64(numElements(I.getOutput())));
}

SmallVector<Value *, 12> integerConvArgs(Emitter &E, const Instruction &I,
                                         ArrayRef<int64_t> params, StringRef name,
                                         const Instruction *rq, Value *q) {
  Value *work = E.builder().CreateInBoundsGEP(E.builder().getInt8Ty(), E.scratch(I),
                                              E.i64(int64_t(requantStagingBytes(I))), "work");
  Value *none = E.nullPtr();
  return {E.out(I),
          E.in(I, ops::IntegerConv::Input),
          E.in(I, ops::IntegerConv::Filter),
          E.in(I, ops::IntegerConv::Bias),
          E.in(I, ops::IntegerConv::InputZeroPoint),
          E.in(I, ops::IntegerConv::FilterZeroPoint),
          E.constArray(params, name),
          work,
          E.team(),
          rq ? q : none,
          rq ? E.in(*rq, ops::Requantize::Scale) : none,
          rq ? E.in(*rq, ops::Requantize::ZeroPoint) : none};
}

namespace {

/// Whether the int8 GEMM's convolution of parameters \p p is flat with an int8 filter of input
/// channels a multiple of four a group: its tiles can read such a filter in place when it is
/// [Cout][taps][Cg] (k as (tap, four channels)).
bool tapMajorFlatFilter(const std::vector<int64_t> &p) {
  using namespace quantlayout;
  return qconvIsFlat(p.data()) && !p[kQcFilterUnsigned] && (p[kQcC] / p[kQcGroup]) % 4 == 0;
}

/// \p I's parameters with its filter in panels of output channels (for VNNI's tile over
/// pixels), if it may be so: flat so (tapMajorFlatFilter), more than one tap, groups of a
/// multiple of 16 filters.
std::optional<std::vector<int64_t>> inPanelsParams(const Instruction &I) {
  using namespace quantlayout;
  std::optional<std::vector<int64_t>> p = fastConvParams(I);
  if (!p || (*p)[kQcKH] * (*p)[kQcKW] == 1 || ((*p)[kQcCout] / (*p)[kQcGroup]) % 16 != 0)
    return std::nullopt;
  (*p)[kQcFilterLayout] = kQcFilterCoutPanels;
  if (!tapMajorFlatFilter(*p))
    return std::nullopt;
  return p;
}

uint64_t integerConvScratch(const Instruction &I, int64_t threads) {
  // The memory plan does not know which convolutions are requantized as they finish: every
  // one on the int8 GEMM or the depthwise kernel keeps room for the staged 8-bit result.
  if (auto p = fastConvParams(I)) {
    // Nor which int8 row runs them: a filter in panels (integerConvFilterLayout) may make a
    // convolution flat, whose scratch differs.
    int64_t bytes = quantlayout::qconvScratchBytes(p->data(), threads);
    if (auto inPanels = inPanelsParams(I))
      bytes = std::max<int64_t>(bytes, quantlayout::qconvScratchBytes(inPanels->data(), threads));
    return requantStagingBytes(I) + uint64_t(bytes);
  }
  if (auto p = depthwiseIntegerConvParams(I))
    return requantStagingBytes(I) + depthwiseIntegerConvScratch(*p, threads);
  return shiftedPairScratch(I, ops::IntegerConv::Input, ops::IntegerConv::Filter);
}

/// Each filter's sum of weights as int8 (uint8 ones flipped, as the GEMM reads them), wrapped
/// to 32 bits, when the filter of \p I is a constant: the GEMM's row terms need them, and
/// summing a layer's filter every call reads all of it once more from memory (on resnet50 as
/// much time as a tenth of the inference).
std::optional<std::vector<int32_t>> constantFilterSums(const Instruction &I) {
  IRValue *v = const_cast<IRValue *>(I.getInput(ops::IntegerConv::Filter));
  auto *w = dyn_cast<WeightVar>(rootOf(v).root);
  if (!w || w != v || !w->isConstant() || !w->getOrigin())
    return std::nullopt;
  const Tensor &payload = static_cast<const Constant *>(w->getOrigin())->getPayload();
  const Type &t = payload.getType();
  if ((t.kind != ElemKind::Int8 && t.kind != ElemKind::UInt8) || t.dims.empty() ||
      t.dims[0] == 0)
    return std::nullopt;
  uint8_t flip = t.kind == ElemKind::UInt8 ? 0x80 : 0;
  size_t rows = t.dims[0], K = t.numElements() / rows;
  std::vector<int32_t> sums(rows);
  const uint8_t *b = payload.data();
  for (size_t m = 0; m < rows; ++m) {
    uint32_t sum = 0;
    for (size_t k = 0; k < K; ++k)
      sum += uint32_t(int32_t(int8_t(b[m * K + k] ^ flip)));
    sums[m] = int32_t(sum);
  }
  return sums;
}

/// Whether such a filter is [Cout][taps][Cg] as it is: one tap.
bool flatFilterInPlace(const std::vector<int64_t> &p) {
  using namespace quantlayout;
  return tapMajorFlatFilter(p) && p[kQcKH] * p[kQcKW] == 1;
}

/// Calls the int8 GEMM's IntegerConv (parameters \p params) for \p I, and with \p rq its
/// Requantize (p's requantization set by the caller) to \p q.
Error emitFastIntegerConv(Emitter &E, const Instruction &I, const std::vector<int64_t> &params,
                          const Instruction *rq, Value *q) {
  using namespace quantlayout;
  std::string entry = ("ember_integer_conv2d_" + E.integerVariant()).str();
  std::vector<int64_t> p = params;
  if (E.isPackedFilter(I.getInput(ops::IntegerConv::Filter)))
    p[kQcFilterLayout] = integerConvFilterLayout(I, E.integerVariant());
  else
    p[kQcFilterLayout] = flatFilterInPlace(p) ? kQcFilterTapMajor : kQcFilterAsImported;
  SmallVector<Value *, 12> args = integerConvArgs(E, I, p, "integer_conv2d", rq, q);
  std::optional<std::vector<int32_t>> sums = constantFilterSums(I);
  args.push_back(sums ? E.int32Array(*sums, "filter_sums") : E.nullPtr());
  return E.call(entry, args);
}

Error emitIntegerConv(Emitter &E, const Instruction &I) {
  if (auto p = fastConvParams(I))
    return emitFastIntegerConv(E, I, *p, nullptr, nullptr);
  if (auto p = depthwiseIntegerConvParams(I))
    return emitDepthwiseIntegerConv(E, I, *p);
  IntegerConvShape c(I);
  if (!c.consistent())
    return instrError(I, "strides, pads or dilations do not match the spatial rank");
  size_t nsp = c.nsp;
  std::vector<int64_t> p(static_cast<size_t>(quantlayout::convParamCount(int64_t(nsp))));
  p[quantlayout::kConvNsp] = int64_t(nsp);
  p[quantlayout::kConvN] = int64_t(c.x[0]);
  p[quantlayout::kConvC] = int64_t(c.x[1]);
  p[quantlayout::kConvCout] = int64_t(c.w[0]);
  p[quantlayout::kConvGroup] = c.group;
  for (size_t d = 0; d < nsp; ++d) {
    auto at = [&](int64_t which) { return size_t(quantlayout::convArray(int64_t(nsp), which)) + d; };
    p[at(0)] = int64_t(c.x[2 + d]);
    p[at(1)] = int64_t(c.w[2 + d]);
    p[at(2)] = int64_t(c.y[2 + d]);
    p[at(3)] = c.strides[d];
    p[at(4)] = c.pads[d];
    p[at(5)] = c.dilation(d);
  }
  EMBER_ASSIGN_OR_RETURN(auto shifted,
                         emitShifts(E, I, ops::IntegerConv::Input, ops::IntegerConv::InputZeroPoint,
                                    ops::IntegerConv::Filter, ops::IntegerConv::FilterZeroPoint));
  return E.call("ember_integer_conv_i16", {E.out(I), shifted.first, shifted.second,
                                           E.in(I, ops::IntegerConv::Bias),
                                           E.constArray(p, "integer_conv")});
}

/// A Requantize's parameter \p param (Scale or ZeroPoint) over a convolution's result: whether
/// it is per tensor (false) or per output channel (true); none if it is neither.
std::optional<bool> perChannel(const Instruction &rq, unsigned param) {
  const DimsVec &d = dimsOf(rq, param);
  if (d.size() != rq.getOutput()->getType().rank() || !onesBut(d, 1))
    return std::nullopt;
  return d.size() > 1 && d[1] != 1;
}

/// Bytes [begin, end) of a region.
struct Span {
  MemRegion region;
  uint64_t begin, end;
  bool overlaps(const Span &o) const {
    return region == o.region && begin < o.end && o.begin < end;
  }
};
Span spanOf(const IRValue *v) { return {regionOf(v), v->offset, v->offset + v->sizeInBytes()}; }

/// The kernel that runs a convolution with the Requantize after it, and its parameters.
struct FusedConv {
  bool depthwise; // kernels/QuantizedDepthwise.cpp, else the int8 GEMM
  std::vector<int64_t> params;
};

/// The kernel and parameters of \p conv with \p rq's requantization, if it has one that takes it.
std::optional<FusedConv> fusedConvParams(const Instruction &conv, const Instruction &rq) {
  if (rq.getInput(ops::Requantize::Input) != conv.getOutput() || !supportsRequantizeInstr(rq))
    return std::nullopt;
  auto scale = perChannel(rq, ops::Requantize::Scale), zp = perChannel(rq, ops::Requantize::ZeroPoint);
  if (!scale || !zp)
    return std::nullopt;
  using namespace quantlayout;
  int64_t kind = rq.getOutput()->getType().kind == ElemKind::Int8 ? kQcRequantizeInt8
                                                                   : kQcRequantizeUInt8;
  // The two kernels' parameters name the requantization alike, at their own places.
  auto requantized = [&](bool depthwise, std::vector<int64_t> p, int64_t at) {
    p[size_t(at)] = kind;
    p[size_t(at) + 1] = *scale;
    p[size_t(at) + 2] = *zp;
    return FusedConv{depthwise, std::move(p)};
  };
  static_assert(kQcOutScalePerChannel == kQcRequantize + 1 &&
                    kQcOutZpPerChannel == kQcRequantize + 2 &&
                    qdepthwise::kQdwOutScalePerChannel == qdepthwise::kQdwRequantize + 1 &&
                    qdepthwise::kQdwOutZpPerChannel == qdepthwise::kQdwRequantize + 2,
                "requantization, then the scale's and the zero point's shapes");
  if (auto p = fastConvParams(conv))
    return requantized(false, std::move(*p), kQcRequantize);
  if (auto p = depthwiseIntegerConvParams(conv))
    return requantized(true, std::move(*p), qdepthwise::kQdwRequantize);
  return std::nullopt;
}

} // namespace

int64_t integerConvFilterLayout(const Instruction &I, StringRef integerVariant) {
  using namespace quantlayout;
  if (I.getKind() != InstrKind::IntegerConv)
    return kQcFilterAsImported;
  if (integerVariant == "vnni" && inPanelsParams(I))
    return kQcFilterCoutPanels;
  std::optional<std::vector<int64_t>> p = fastConvParams(I);
  return p && (*p)[kQcKH] * (*p)[kQcKW] > 1 && tapMajorFlatFilter(*p) ? kQcFilterTapMajor
                                                                       : kQcFilterAsImported;
}

bool fusesIntegerConvRequantize(const Instruction &conv, const Instruction &rq) {
  return conv.getKind() == InstrKind::IntegerConv && rq.getKind() == InstrKind::Requantize &&
         fusedConvParams(conv, rq);
}

namespace {

/// Whether the kernel may write \p rq's result in its place: it shares no byte with what the
/// convolution reads or works in (else it writes it to the staging bytes, copied after).
bool requantizesInPlace(const Instruction &conv, const Instruction &rq) {
  Span result = spanOf(rq.getOutput());
  std::vector<Span> used;
  for (const InstrOperand &op : conv.getOperands())
    used.push_back(spanOf(op.value));
  for (unsigned i = 0; i < rq.getNumInputs(); ++i)
    used.push_back(spanOf(rq.getInput(i)));
  if (conv.scratchSize)
    used.push_back({MemRegion::Activations, conv.scratchOffset,
                    conv.scratchOffset + conv.scratchSize});
  for (const Span &s : used)
    if (result.overlaps(s))
      return false;
  return true;
}

} // namespace

Error emitIntegerConvRequantize(Emitter &E, const Instruction &conv, const Instruction &rq) {
  auto f = fusedConvParams(conv, rq);
  if (!f)
    return instrError(conv, "cannot be requantized as it finishes");
  auto emit = [&](Value *q) {
    return f->depthwise ? emitDepthwiseIntegerConv(E, conv, f->params, &rq, q)
                        : emitFastIntegerConv(E, conv, f->params, &rq, q);
  };
  if (requantizesInPlace(conv, rq))
    return emit(E.out(rq));
  // Nothing runs between the two: the result written now is the one written at rq.
  EMBER_TRY(emit(E.scratch(conv)));
  return E.call("ember_copy", {E.out(rq), E.scratch(conv),
                               E.i64(int64_t(rq.getOutput()->sizeInBytes()))});
}

void addQuantizedKernels(KernelTable &t) {
  t.add(NodeKind::QuantizeLinear, supportsQuantizeLinear, emitQuantize);
  t.add(NodeKind::Requantize, supportsRequantize, emitQuantize);
  t.add(NodeKind::DequantizeLinear, supportsDequantizeLinear, emitDequantizeLinear);
  t.add(NodeKind::DynamicQuantizeLinear, supportsDynamicQuantizeLinear,
        emitDynamicQuantizeLinear);
  t.add(NodeKind::IntegerMatMul, supportsIntegerMatMul, emitIntegerMatMul, integerMatMulScratch);
  t.add(NodeKind::IntegerConv, supportsIntegerConv, emitIntegerConv, integerConvScratch);
}

} // namespace cpu
} // namespace ember
