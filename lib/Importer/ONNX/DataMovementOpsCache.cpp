// ONNX TensorScatter (opset 24), the KV-cache update of Attention models, composed at import as a
// ScatterElements: the update's element at sequence index s of batch b lands at index
// write_indices[b] + s of the cache's sequence axis (modulo its length in 'circular' mode). The
// indices are a constant range along that axis plus the run-time write indices; an index outside
// the cache in 'linear' mode is ScatterElements' run-time error.
#include "DataMovementOps.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

Error loadTensorScatter(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue past, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue update, ctx.input(1));
  const Type pt = past.getType(), ut = update.getType();
  if (ut.kind != pt.kind)
    return ctx.fail("update " + ut.str() + " must have past_cache's kind (" + pt.str() + ")");
  if (pt.rank() < 2 || ut.rank() != pt.rank())
    return ctx.fail("past_cache " + pt.str() + " and update " + ut.str() +
                    " must have the same rank, at least 2 (a batch and a sequence axis)");
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", -2), pt.rank()));
  if (axis == 0)
    return ctx.fail("axis must not be 0, the batch axis");
  std::string mode = ctx.getString("mode", "linear");
  if (mode != "linear" && mode != "circular")
    return ctx.fail("mode must be \"linear\" or \"circular\", got \"" + mode + "\"");
  for (unsigned i = 0; i < pt.rank(); ++i)
    if (int64_t(i) == axis ? ut.dims[i] > pt.dims[i] : ut.dims[i] != pt.dims[i])
      return ctx.fail("update " + ut.str() + " must be past_cache " + pt.str() +
                      " but for a sequence axis (" + Twine(axis) + ") no longer than the cache's");
  const dim_t batch = pt.dims[0], maxLen = pt.dims[axis], len = ut.dims[axis];
  if (len == 0)
    return ctx.setOutput(0, past);
  // The sequence index along the axis, (1, .., len, .., 1).
  DimsVec rangeDims(pt.rank(), 1);
  rangeDims[axis] = len;
  EMBER_ASSIGN_OR_RETURN(Tensor range, ctx.newTensor(Type(ElemKind::Int64, rangeDims), "range"));
  for (dim_t s = 0; s < len; ++s)
    range.setElementFromDouble(s, double(s));
  NodeValue idx = ctx.createConstant(std::move(range), "sequence_index")->getResult();
  EMBER_ASSIGN_OR_RETURN(idx, ctx.broadcastTo(idx, ut.dims));
  if (ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(NodeValue w, ctx.input(2));
    if (w.getType().kind != ElemKind::Int64 || w.getType().dims != DimsVec{batch})
      return ctx.fail("write_indices must be " + Type(ElemKind::Int64, {batch}).str() +
                      ", got " + w.getType().str());
    DimsVec wDims(pt.rank(), 1);
    wDims[0] = batch;
    EMBER_ASSIGN_OR_RETURN(w, ctx.reshape(w, wDims));
    EMBER_ASSIGN_OR_RETURN(w, ctx.broadcastTo(w, ut.dims));
    EMBER_ASSIGN_OR_RETURN(idx, ctx.create(NodeKind::Add, {idx, w}, {}, "cache_index"));
  }
  if (mode == "circular") {
    // Mod with the divisor's sign: in [0, maxLen) for any write index.
    EMBER_ASSIGN_OR_RETURN(NodeValue m,
                           ctx.createFilled(ElemKind::Int64, {}, double(maxLen), "length"));
    EMBER_ASSIGN_OR_RETURN(m, ctx.broadcastTo(m, ut.dims));
    EMBER_ASSIGN_OR_RETURN(idx, ctx.create(NodeKind::Mod, {idx, m},
                                           AttrList().set<AttrKind::FMod>(0), "wrapped"));
  }
  EMBER_ASSIGN_OR_RETURN(
      NodeValue y,
      ctx.create(NodeKind::ScatterElements, {past, idx, update},
                 AttrList().set<AttrKind::Axis>(axis).set<AttrKind::Reduction>("none")));
  return ctx.setOutput(0, y);
}

} // namespace

void registerDataMovementCacheOps(OpRegistry &r) { r.add("TensorScatter", 24, loadTensorScatter); }

} // namespace ember
