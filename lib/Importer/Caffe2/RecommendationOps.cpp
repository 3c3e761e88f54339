// Caffe2's recommendation operators onto the EmbeddingBag node kind
// (ember/Semantics/EmbeddingBag.h): SparseLengthsSum, SparseLengthsWeightedSum and
// SparseLengthsMean (lengths_reducer_ops.h), their Fused8BitRowwise forms
// (lengths_reducer_fused_8bit_rowwise_ops.h), and LengthsSum (segment_reduction_op.h), whose
// segments are consecutive rows: an embedding bag over indices 0, 1, ..., rows - 1.
// Registered by SelectionOps.cpp. What the sources enforce on shapes is refused here with their
// words; what they enforce on values (the lengths against the indices, an index out of range)
// is checked by the kernels at run time.
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

/// The operand forms: whether there is a WEIGHTS input, the table layout, sum or mean.
struct BagForm {
  bool weighted;
  bool fused8;
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
      return ctx.fail(Twine(form.fused8 ? "WEIGHTS" : "WEIGHT") + " must be a vector, got " +
                      wt.str());
    if (wt.dims[0] != it.dims[0])
      return ctx.fail(form.fused8 ? "WEIGHTS should have the same length as INDICES."
                                  : "Weight should have the same length as indices.");
    if (wt.kind != ElemKind::Float32)
      return ctx.fail("weights must be float32, got " + wt.str());
    operands.push_back(weights);
  }
  const Type &dt = data.getType();
  if (form.fused8) {
    if (dt.kind != ElemKind::UInt8 || dt.rank() != 2)
      return ctx.fail("DATA must be a uint8 matrix of fused rows, got " + dt.str());
    if (dt.dims[1] <= 8)
      return ctx.fail("DATA must have more than 8 columns, got " + dt.str());
  } else if (dt.kind != ElemKind::Float32 || dt.rank() < 1) {
    return ctx.fail("DATA must be float32 of rank 1 or more, got " + dt.str());
  }
  AttrList attrs;
  attrs.set<AttrKind::Mode>(form.fused8 ? "fused8" : "float")
      .set<AttrKind::Reduction>(form.mean ? "mean" : "sum");
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::EmbeddingBag, operands, attrs));
  return ctx.setOutput(0, y);
}

template <bool Weighted, bool Fused8, bool Mean> Error loadBag(OpContext &ctx) {
  return loadSparseLengths(ctx, BagForm{Weighted, Fused8, Mean});
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
  r.add("SparseLengthsSum", loadBag<false, false, false>);
  r.add("SparseLengthsWeightedSum", loadBag<true, false, false>);
  r.add("SparseLengthsMean", loadBag<false, false, true>);
  r.add("SparseLengthsSumFused8BitRowwise", loadBag<false, true, false>);
  r.add("SparseLengthsWeightedSumFused8BitRowwise", loadBag<true, true, false>);
  r.add("SparseLengthsMeanFused8BitRowwise", loadBag<false, true, true>);
}

} // namespace c2
} // namespace ember
