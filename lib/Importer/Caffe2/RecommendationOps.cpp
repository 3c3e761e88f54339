// Caffe2's recommendation operators onto the EmbeddingBag node kind
// (ember/Semantics/EmbeddingBag.h): SparseLengthsSum, SparseLengthsWeightedSum and
// SparseLengthsMean (lengths_reducer_ops.h), their Fused8BitRowwise forms
// (lengths_reducer_fused_8bit_rowwise_ops.h) and Fused4BitRowwise forms
// (lengths_reducer_fused_nbit_rowwise_ops.h), their 8BitsRowwise forms
// (lengths_reducer_rowwise_8bit_ops.h: the same rows, with the scales and biases in an input of
// their own, fused into one table at load time), and LengthsSum (segment_reduction_op.h), whose
// segments are consecutive rows: an embedding bag over indices 0, 1, ..., rows - 1.
// Registered by SelectionOps.cpp. What the sources enforce on shapes is refused here with their
// words; what they enforce on values (the lengths against the indices, an index out of range)
// is checked by the kernels at run time.
#include "OpContext.h"

#include "ember/Support/Error.h"

#include <cstring>

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// The operand forms: whether there is a WEIGHTS input, the table layout, sum or mean.
struct BagForm {
  bool weighted;
  int fusedBits; // 0 (float), 8 or 4
  bool mean;
};

/// Caffe2 reads LENGTHS as int (Tensor::data<int>), so another element kind is refused.
Error checkLengths(OpContext &ctx, const Type &lengths) {
  if (lengths.rank() != 1)
    return ctx.fail("LENGTHS must be a vector, got " + lengths.str());
  if (lengths.kind != ElemKind::Int32)
    return ctx.fail("LENGTHS must be int32 (Caffe2 reads them as int), got " + lengths.str());
  return Error::success();
}

/// DATA, [WEIGHTS], INDICES, LENGTHS (the enums of both sources).
Error loadSparseLengths(OpContext &ctx, BagForm form) {
  unsigned indicesAt = form.weighted ? 2 : 1, lengthsAt = indicesAt + 1;
  if (ctx.numInputs() != lengthsAt + 1)
    return ctx.fail("takes " + Twine(lengthsAt + 1) + " inputs, got " + Twine(ctx.numInputs()));
  EMBER_ASSIGN_OR_RETURN(NodeValue data, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue indices, ctx.input(indicesAt));
  EMBER_ASSIGN_OR_RETURN(NodeValue lengths, ctx.input(lengthsAt));
  const Type &it = indices.getType();
  if (it.rank() != 1)
    return ctx.fail("INDICES must be a vector, got " + it.str());
  if (it.kind != ElemKind::Int32 && it.kind != ElemKind::Int64)
    return ctx.fail("INDICES must be int32 or int64, got " + it.str());
  EMBER_TRY(checkLengths(ctx, lengths.getType()));
  std::vector<NodeValue> operands = {data, indices, lengths};
  if (form.weighted) {
    EMBER_ASSIGN_OR_RETURN(NodeValue weights, ctx.input(1));
    const Type &wt = weights.getType();
    // The float family names it WEIGHT, the fused family WEIGHTS.
    if (wt.rank() != 1)
      return ctx.fail(Twine(form.fusedBits ? "WEIGHTS" : "WEIGHT") + " must be a vector, got " +
                      wt.str());
    if (wt.dims[0] != it.dims[0])
      return ctx.fail(form.fusedBits ? "WEIGHTS should have the same length as INDICES."
                                  : "Weight should have the same length as indices.");
    if (wt.kind != ElemKind::Float32)
      return ctx.fail("weights must be float32, got " + wt.str());
    operands.push_back(weights);
  }
  const Type &dt = data.getType();
  if (form.fusedBits) {
    if (dt.kind != ElemKind::UInt8 || dt.rank() != 2)
      return ctx.fail("DATA must be a uint8 matrix of fused rows, got " + dt.str());
    // Their scale and bias: 2 float32 (8 bits) or 2 float16 (lengths_reducer_fused_nbit_*).
    dim_t tail = form.fusedBits == 8 ? 8 : 4;
    if (dt.dims[1] <= tail)
      return ctx.fail("DATA must have more than " + Twine(tail) + " columns, got " + dt.str());
  } else if (dt.kind != ElemKind::Float32 || dt.rank() < 1) {
    return ctx.fail("DATA must be float32 of rank 1 or more, got " + dt.str());
  }
  AttrList attrs;
  attrs.set<AttrKind::Mode>(form.fusedBits == 8   ? "fused8"
                           : form.fusedBits == 4 ? "fused4"
                                                 : "float")
      .set<AttrKind::Reduction>(form.mean ? "mean" : "sum");
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::EmbeddingBag, operands, attrs));
  return ctx.setOutput(0, y);
}

/// SparseLengths[Weighted]Sum8BitsRowwise / SparseLengthsMean8BitsRowwise: DATA (uint8, rows of
/// D = size_from_dim(1) codes), [WEIGHTS], INDICES, LENGTHS, SCALE_BIAS (float32 [rows, 2]).
/// EmbeddingLookup adds the rows exactly as it adds fused ones, so ember builds the fused table
/// from the two constants (as Glow, it needs SCALE_BIAS known at load time) and reshapes the
/// [segments, D] result to DATA's dims with the first replaced.
Error loadRowwise8Bits(OpContext &ctx, bool weighted, bool mean) {
  unsigned scaleBiasAt = weighted ? 4 : 3;
  if (ctx.numInputs() != scaleBiasAt + 1)
    return ctx.fail("takes " + Twine(scaleBiasAt + 1) + " inputs, got " +
                    Twine(ctx.numInputs()));
  EMBER_ASSIGN_OR_RETURN(NodeValue sbValue, ctx.input(scaleBiasAt));
  EMBER_ASSIGN_OR_RETURN(NodeValue dataValue, ctx.input(0));
  const Type &sbt = sbValue.getType(), &dt = dataValue.getType();
  if (sbt.rank() != 2)
    return ctx.fail("scale_bias has to be matrix, got " + sbt.str());
  if (dt.rank() < 1 || sbt.dims[0] != dt.dims[0])
    return ctx.fail("scale_bias must have the same first dim as data: " + sbt.str() + ", " +
                    dt.str());
  if (sbt.dims[1] != 2)
    return ctx.fail("the second dim of scale_bias has to be equal to 2, got " + sbt.str());
  if (dt.kind != ElemKind::UInt8 || sbt.kind != ElemKind::Float32)
    return ctx.fail("DATA must be uint8 and scale_bias float32, got " + dt.str() + ", " +
                    sbt.str());
  EMBER_ASSIGN_OR_RETURN(auto known, ctx.constantInputs({0, scaleBiasAt},
                                                        "ember fuses them into one table"));
  dim_t rows = dt.dims[0], cols = rows ? dim_t(dt.numElements()) / rows : 0;
  Tensor fused(Type(ElemKind::UInt8, {rows, cols + 8}));
  uint8_t *to = fused.dataAs<uint8_t>();
  const uint8_t *codes = known[0]->dataAs<uint8_t>();
  const float *sb = known[1]->dataAs<float>();
  for (dim_t r = 0; r < rows; ++r) { // the codes, then scale and bias as little-endian float32
    std::memcpy(to + r * (cols + 8), codes + r * cols, cols);
    std::memcpy(to + r * (cols + 8) + cols, sb + 2 * r, 8);
  }
  NodeValue table = ctx.createConstant(std::move(fused), "fused")->getResult();
  EMBER_ASSIGN_OR_RETURN(NodeValue indices, ctx.input(weighted ? 2 : 1));
  EMBER_ASSIGN_OR_RETURN(NodeValue lengths, ctx.input(weighted ? 3 : 2));
  if (indices.getType().rank() != 1)
    return ctx.fail("INDICES must be a vector, got " + indices.getType().str());
  EMBER_TRY(checkLengths(ctx, lengths.getType()));
  std::vector<NodeValue> operands = {table, indices, lengths};
  if (weighted) {
    EMBER_ASSIGN_OR_RETURN(NodeValue weights, ctx.input(1));
    operands.push_back(weights);
  }
  AttrList attrs;
  attrs.set<AttrKind::Mode>("fused8").set<AttrKind::Reduction>(mean ? "mean" : "sum");
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::EmbeddingBag, operands, attrs));
  if (dt.rank() != 2) {
    std::vector<int64_t> dims(dt.dims.begin(), dt.dims.end());
    dims[0] = int64_t(lengths.getType().dims[0]);
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Reshape, {y},
                                         AttrList().set<AttrKind::Dims>(dims), "reshape"));
  }
  return ctx.setOutput(0, y);
}

template <bool Weighted, bool Mean> Error loadRowwise(OpContext &ctx) {
  return loadRowwise8Bits(ctx, Weighted, Mean);
}

template <bool Weighted, int FusedBits, bool Mean> Error loadBag(OpContext &ctx) {
  return loadSparseLengths(ctx, BagForm{Weighted, FusedBits, Mean});
}

/// LengthsSum (segment_reduction_op.h, AbstractLengthsOp with SumReducer): DATA, LENGTHS; the
/// segments take DATA's rows in order, and the lengths must add up to its first dim.
Error loadLengthsSum(OpContext &ctx) {
  if (ctx.numInputs() != 2)
    return ctx.fail("takes 2 inputs, got " + Twine(ctx.numInputs()));
  EMBER_ASSIGN_OR_RETURN(NodeValue data, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue lengths, ctx.input(1));
  const Type &dt = data.getType();
  if (dt.rank() < 1 || dt.kind != ElemKind::Float32)
    return ctx.fail("DATA must be float32 of rank 1 or more, got " + dt.str());
  EMBER_TRY(checkLengths(ctx, lengths.getType()));
  Tensor rows(Type(ElemKind::Int64, {dt.dims[0]}));
  for (dim_t i = 0; i < dt.dims[0]; ++i)
    rows.dataAs<int64_t>()[i] = int64_t(i);
  NodeValue indices = ctx.createConstant(std::move(rows), "rows")->getResult();
  AttrList attrs;
  attrs.set<AttrKind::Mode>("float").set<AttrKind::Reduction>("sum");
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::EmbeddingBag, {data, indices, lengths}, attrs));
  return ctx.setOutput(0, y);
}

} // namespace

void registerRecommendationOps(OpRegistry &r) {
  r.add("LengthsSum", loadLengthsSum);
  r.add("SparseLengthsSum", loadBag<false, 0, false>);
  r.add("SparseLengthsWeightedSum", loadBag<true, 0, false>);
  r.add("SparseLengthsMean", loadBag<false, 0, true>);
  r.add("SparseLengthsSumFused8BitRowwise", loadBag<false, 8, false>);
  r.add("SparseLengthsWeightedSumFused8BitRowwise", loadBag<true, 8, false>);
  r.add("SparseLengthsMeanFused8BitRowwise", loadBag<false, 8, true>);
  r.add("SparseLengthsSumFused4BitRowwise", loadBag<false, 4, false>);
  r.add("SparseLengthsWeightedSumFused4BitRowwise", loadBag<true, 4, false>);
  r.add("SparseLengthsMeanFused4BitRowwise", loadBag<false, 4, true>);
  r.add("SparseLengthsSum8BitsRowwise", loadRowwise<false, false>);
  r.add("SparseLengthsWeightedSum8BitsRowwise", loadRowwise<true, false>);
  r.add("SparseLengthsMean8BitsRowwise", loadRowwise<false, true>);
}

} // namespace c2
} // namespace ember
