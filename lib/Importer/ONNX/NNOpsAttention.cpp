// ONNX Attention (opsets 23, 24, 25) and RotaryEmbedding (opset 23), composed at import from node
// kinds every backend runs, so the CPU backend's matrix products serve them.
//
// Attention follows its ONNX function body: Q and K each scaled by sqrt(scale), Q x K^T (one
// batched MatMul), the softcap, the attention bias (the mask, the causal frontier, the sliding
// window and the padding of nonpad_kv_seqlen, as one additive bias of 0 and -inf), Softmax over
// the keys, a row whose every key is masked set to zeros, and the product with V. Grouped-query
// attention repeats no K or V head: the query heads sharing a KV head are stacked along the
// query rows of one matrix ((B, Hkv, r * Sq, D) x (B, Hkv, D, T)).
#include "DataMovementOps.h"
#include "ONNXTensor.h"
#include "OpContext.h"

#include "ember/Support/Error.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace llvm;

namespace ember {

namespace {

/// \p kind on \p a and \p b broadcast to their common dims (numpy rules).
Expected<NodeValue> binary(OpContext &ctx, NodeKind kind, NodeValue a, NodeValue b,
                           StringRef suffix) {
  EMBER_ASSIGN_OR_RETURN(DimsVec dims, broadcastShapes(a.getType().dims, b.getType().dims));
  EMBER_ASSIGN_OR_RETURN(a, ctx.broadcastTo(a, dims));
  EMBER_ASSIGN_OR_RETURN(b, ctx.broadcastTo(b, dims));
  return ctx.create(kind, {a, b}, {}, suffix);
}

/// \p v times the scalar \p s of its kind.
Expected<NodeValue> scaleBy(OpContext &ctx, NodeValue v, double s, StringRef suffix) {
  EMBER_ASSIGN_OR_RETURN(NodeValue c, ctx.createFilled(v.getType().kind, {}, s, suffix));
  return binary(ctx, NodeKind::Mul, v, c, suffix);
}

/// A constant int64 (1, 1, rows, cols) matrix of f(i, j).
template <typename F>
Expected<NodeValue> indexMatrix(OpContext &ctx, dim_t rows, dim_t cols, F f, StringRef suffix) {
  EMBER_ASSIGN_OR_RETURN(Tensor t, ctx.newTensor(Type(ElemKind::Int64, {1, 1, rows, cols}),
                                                 suffix));
  for (dim_t i = 0; i < rows; ++i)
    for (dim_t j = 0; j < cols; ++j)
      t.setElementFromDouble(i * cols + j, double(f(int64_t(i), int64_t(j))));
  return ctx.createConstant(std::move(t), suffix)->getResult();
}

/// \p a and \p b, either of which may be absent (null).
Expected<NodeValue> andMasks(OpContext &ctx, NodeValue a, NodeValue b, StringRef suffix) {
  if (!a.node)
    return b;
  if (!b.node)
    return a;
  return binary(ctx, NodeKind::And, a, b, suffix);
}

Error loadAttention(OpContext &ctx) {
  int64_t version = ctx.opset() >= 25 ? 25 : ctx.opset() >= 24 ? 24 : 23;
  EMBER_ASSIGN_OR_RETURN(auto qkv, ctx.inputs(3));
  NodeValue q = qkv[0], k = qkv[1], v = qkv[2];
  const Type qt = q.getType(), kt = k.getType(), vt = v.getType();
  if (!isFloatKind(qt.kind))
    return ctx.fail("Q must be floating point, got " + qt.str());
  if (kt.kind != qt.kind || vt.kind != qt.kind)
    return ctx.fail("K " + kt.str() + " and V " + vt.str() + " must have Q's kind (" + qt.str() +
                    ")");
  if (qt.rank() != kt.rank() || qt.rank() != vt.rank() || (qt.rank() != 3 && qt.rank() != 4))
    return ctx.fail("Q " + qt.str() + ", K " + kt.str() + " and V " + vt.str() +
                    " must all be 3-D (batch, sequence, hidden) or all 4-D (batch, heads, "
                    "sequence, head size)");
  if (version < 24 && ctx.hasInput(6))
    return ctx.fail("input 6 (nonpad_kv_seqlen) needs Attention-24");
  const ElemKind kind = qt.kind;
  const dim_t batch = qt.dims[0];
  if (kt.dims[0] != batch || vt.dims[0] != batch)
    return ctx.fail("Q " + qt.str() + ", K " + kt.str() + " and V " + vt.str() +
                    " differ in the batch");
  bool hasHeadAttrs = ctx.hasAttr("q_num_heads") || ctx.hasAttr("kv_num_heads");
  int64_t qHeadsAttr = ctx.getInt("q_num_heads", 0), kvHeadsAttr = ctx.getInt("kv_num_heads", 0);
  if (qt.rank() == 3) {
    if (qHeadsAttr <= 0 || kvHeadsAttr <= 0)
      return ctx.fail("3-D Q, K and V need positive q_num_heads and kv_num_heads, got " +
                      Twine(qHeadsAttr) + " and " + Twine(kvHeadsAttr));
    if (qt.dims[2] % dim_t(qHeadsAttr) != 0 || kt.dims[2] % dim_t(kvHeadsAttr) != 0 ||
        vt.dims[2] % dim_t(kvHeadsAttr) != 0)
      return ctx.fail("the hidden sizes of Q " + qt.str() + ", K " + kt.str() + " and V " +
                      vt.str() + " must divide by q_num_heads " + Twine(qHeadsAttr) +
                      " and kv_num_heads " + Twine(kvHeadsAttr));
    // (B, S, H * D) -> (B, H, S, D).
    auto toHeads = [&](NodeValue &x, int64_t heads, StringRef what) -> Error {
      const Type &t = x.getType();
      EMBER_ASSIGN_OR_RETURN(x, ctx.reshape(x, {t.dims[0], t.dims[1], dim_t(heads),
                                                t.dims[2] / dim_t(heads)}));
      EMBER_ASSIGN_OR_RETURN(x, ctx.transpose(x, {0, 2, 1, 3}, what.str() + "_heads"));
      return Error::success();
    };
    EMBER_TRY(toHeads(q, qHeadsAttr, "q"));
    EMBER_TRY(toHeads(k, kvHeadsAttr, "k"));
    EMBER_TRY(toHeads(v, kvHeadsAttr, "v"));
  } else if (hasHeadAttrs) {
    if (version >= 25)
      return ctx.fail("q_num_heads and kv_num_heads must not be given with 4-D Q, K and V");
    if ((ctx.hasAttr("q_num_heads") && qHeadsAttr != int64_t(qt.dims[1])) ||
        (ctx.hasAttr("kv_num_heads") && kvHeadsAttr != int64_t(kt.dims[1])))
      return ctx.fail("q_num_heads " + Twine(qHeadsAttr) + " and kv_num_heads " +
                      Twine(kvHeadsAttr) + " disagree with the heads of 4-D Q " + qt.str() +
                      " and K " + kt.str());
  }
  const dim_t qHeads = q.getType().dims[1], kvHeads = k.getType().dims[1];
  const dim_t qLen = q.getType().dims[2], kvLen = k.getType().dims[2];
  const dim_t headSize = q.getType().dims[3], vHeadSize = v.getType().dims[3];
  if (v.getType().dims[1] != kvHeads || v.getType().dims[2] != kvLen ||
      k.getType().dims[3] != headSize)
    return ctx.fail("Q " + qt.str() + ", K " + kt.str() + " and V " + vt.str() +
                    " disagree in the KV heads, the KV sequence or the head size");
  if (kvHeads == 0 || qHeads % kvHeads != 0)
    return ctx.fail("the " + Twine(qHeads) + " query heads must be a multiple of the " +
                    Twine(kvHeads) + " key/value heads");
  const dim_t group = qHeads / kvHeads;

  // The past cache, concatenated before K and V along the sequence.
  if (ctx.hasInput(4) != ctx.hasInput(5))
    return ctx.fail("past_key and past_value must be given together");
  dim_t pastLen = 0;
  if (ctx.hasInput(4)) {
    if (ctx.hasInput(6))
      return ctx.fail("nonpad_kv_seqlen cannot be combined with past_key and past_value");
    EMBER_ASSIGN_OR_RETURN(NodeValue pk, ctx.input(4));
    EMBER_ASSIGN_OR_RETURN(NodeValue pv, ctx.input(5));
    const Type &pkt = pk.getType(), &pvt = pv.getType();
    if (pkt.kind != kind || pvt.kind != kind || pkt.rank() != 4 || pvt.rank() != 4 ||
        pkt.dims[0] != batch || pkt.dims[1] != kvHeads || pkt.dims[3] != headSize ||
        pvt.dims[0] != batch || pvt.dims[1] != kvHeads || pvt.dims[2] != pkt.dims[2] ||
        pvt.dims[3] != vHeadSize)
      return ctx.fail("past_key " + pkt.str() + " and past_value " + pvt.str() + " must be " +
                      Type(kind, {batch, kvHeads, pkt.rank() == 4 ? pkt.dims[2] : 0, headSize})
                          .str() +
                      " and " + Type(kind, {batch, kvHeads, pkt.rank() == 4 ? pkt.dims[2] : 0,
                                            vHeadSize})
                                    .str());
    pastLen = pkt.dims[2];
    AttrList axis2 = AttrList().set<AttrKind::Axis>(2);
    EMBER_ASSIGN_OR_RETURN(k, ctx.create(NodeKind::Concat, {pk, k}, axis2, "present_key"));
    EMBER_ASSIGN_OR_RETURN(v, ctx.create(NodeKind::Concat, {pv, v}, axis2, "present_value"));
  }
  const dim_t total = pastLen + kvLen;
  const DimsVec scoreDims{batch, qHeads, qLen, total};

  // Q K^T, each scaled by sqrt(scale) (the function body's order).
  double scale = ctx.hasAttr("scale") ? double(ctx.getFloat("scale", 1.0f))
                                      : 1.0 / std::sqrt(double(headSize));
  if (!(scale > 0) || !std::isfinite(scale))
    return ctx.fail("scale must be positive and finite, got " + numberToString(scale));
  double sqrtScale = std::sqrt(scale);
  EMBER_ASSIGN_OR_RETURN(NodeValue qs, scaleBy(ctx, q, sqrtScale, "q_scaled"));
  EMBER_ASSIGN_OR_RETURN(NodeValue ks, scaleBy(ctx, k, sqrtScale, "k_scaled"));
  EMBER_ASSIGN_OR_RETURN(ks, ctx.transpose(ks, {0, 1, 3, 2}, "k_transposed"));
  EMBER_ASSIGN_OR_RETURN(qs, ctx.reshape(qs, {batch, kvHeads, group * qLen, headSize}));
  EMBER_ASSIGN_OR_RETURN(NodeValue qk, ctx.create(NodeKind::MatMul, {qs, ks}, {}, "qk"));
  EMBER_ASSIGN_OR_RETURN(qk, ctx.reshape(qk, scoreDims));
  NodeValue raw = qk;
  float softcap = ctx.getFloat("softcap", 0.0f);
  if (softcap > 0) {
    EMBER_ASSIGN_OR_RETURN(qk, scaleBy(ctx, qk, 1.0 / double(softcap), "softcap_div"));
    EMBER_ASSIGN_OR_RETURN(qk, ctx.create(NodeKind::Tanh, {qk}, {}, "softcap_tanh"));
    EMBER_ASSIGN_OR_RETURN(qk, scaleBy(ctx, qk, double(softcap), "softcap"));
  }
  NodeValue capped = qk;

  // The bias: which keys each query may attend (allowed, bool), and a float mask added.
  int64_t isCausal = ctx.getInt("is_causal", 0);
  int64_t left = version >= 25 ? ctx.getInt("left_window_size", -1) : -1;
  int64_t right = version >= 25 ? ctx.getInt("right_window_size", -1) : -1;
  if (isCausal != 0 && isCausal != 1)
    return ctx.fail("is_causal must be 0 or 1, got " + Twine(isCausal));
  if (left < -1 || right < -1)
    return ctx.fail("left_window_size and right_window_size must be -1 or non-negative, got " +
                    Twine(left) + " and " + Twine(right));
  NodeValue allowed, additive;
  bool runtimeBias = false;
  std::vector<bool> rowsMasked; // of the compile-time mask: rows with no allowed key
  if (ctx.hasInput(6)) {
    // An external cache: per batch, offset = nonpad_kv_seqlen[b] - Sq, and keys from
    // nonpad_kv_seqlen[b] on are padding. Each rule compares nonpad_kv_seqlen with a constant
    // matrix of (i, j).
    EMBER_ASSIGN_OR_RETURN(NodeValue nonpad, ctx.input(6));
    if (nonpad.getType().kind != ElemKind::Int64 || nonpad.getType().dims != DimsVec{batch})
      return ctx.fail("nonpad_kv_seqlen must be " + Type(ElemKind::Int64, {batch}).str() +
                      ", got " + nonpad.getType().str());
    runtimeBias = true;
    EMBER_ASSIGN_OR_RETURN(nonpad, ctx.reshape(nonpad, {batch, 1, 1, 1}));
    const int64_t sq = int64_t(qLen);
    auto rule = [&](NodeKind cmp, auto f, StringRef suffix) -> Error {
      EMBER_ASSIGN_OR_RETURN(NodeValue m, indexMatrix(ctx, qLen, total, f, suffix));
      EMBER_ASSIGN_OR_RETURN(NodeValue a, binary(ctx, cmp, nonpad, m, suffix));
      EMBER_ASSIGN_OR_RETURN(allowed, andMasks(ctx, allowed, a, suffix.str() + "_and"));
      return Error::success();
    };
    // Key j is a real token: j < nonpad.
    EMBER_TRY(rule(NodeKind::Greater, [](int64_t, int64_t j) { return j; }, "padding"));
    if (isCausal) { // j <= i + nonpad - Sq
      EMBER_TRY(rule(NodeKind::GreaterOrEqual,
                     [sq](int64_t i, int64_t j) { return j - i + sq; }, "causal"));
    }
    if (left >= 0) { // i + nonpad - Sq - j <= left
      EMBER_TRY(rule(NodeKind::LessOrEqual,
                     [sq, left](int64_t i, int64_t j) { return j - i + sq + left; },
                     "left_window"));
    }
    if (right >= 0) { // j - (i + nonpad - Sq) <= right
      EMBER_TRY(rule(NodeKind::GreaterOrEqual,
                     [sq, right](int64_t i, int64_t j) { return j - i + sq - right; },
                     "right_window"));
    }
  } else if (isCausal || left >= 0 || right >= 0) {
    // A compile-time (Sq, T) matrix: the query at i sits at p = i + past length.
    EMBER_ASSIGN_OR_RETURN(Tensor t, ctx.newTensor(Type(ElemKind::Bool, {qLen, total}), "mask"));
    bool every = true;
    rowsMasked.assign(qLen, true);
    for (dim_t i = 0; i < qLen; ++i)
      for (dim_t j = 0; j < total; ++j) {
        int64_t d = int64_t(i + pastLen) - int64_t(j); // p - j
        bool ok = (!isCausal || d >= 0) && (left < 0 || d <= left) && (right < 0 || -d <= right);
        t.setElementFromDouble(i * total + j, ok ? 1.0 : 0.0);
        every &= ok;
        if (ok)
          rowsMasked[i] = false;
      }
    if (!every)
      allowed = ctx.createConstant(std::move(t), "causal_window")->getResult();
  }
  if (ctx.hasInput(3)) {
    EMBER_ASSIGN_OR_RETURN(NodeValue mask, ctx.input(3));
    const Type mt = mask.getType();
    bool isBool = mt.kind == ElemKind::Bool;
    if (!isBool && mt.kind != kind)
      return ctx.fail("attn_mask must be bool or of Q's kind (" + elemKindName(kind) +
                      "), got " + mt.str());
    if (mt.rank() == 0 || mt.rank() > 4 || mt.dims.back() > total)
      return ctx.fail("attn_mask " + mt.str() + " must have 1 to 4 axes and at most " +
                      Twine(total) + " keys (past plus current)");
    runtimeBias = true;
    if (mt.dims.back() < total) {
      // Padded with masked keys (False, -inf), as the ONNX reference does.
      std::vector<int64_t> pads(2 * mt.rank(), 0);
      pads.back() = int64_t(total - mt.dims.back());
      EMBER_ASSIGN_OR_RETURN(
          NodeValue fill,
          ctx.createFilled(mt.kind, {}, isBool ? 0.0 : -std::numeric_limits<double>::infinity(),
                           "mask_fill"));
      EMBER_ASSIGN_OR_RETURN(
          mask, ctx.create(NodeKind::Pad, {mask, fill},
                           AttrList().set<AttrKind::Pads>(pads).set<AttrKind::Mode>("constant"),
                           "mask_padded"));
    }
    auto dims = broadcastShapes(mask.getType().dims, scoreDims);
    if (!dims || ArrayRef<dim_t>(*dims) != ArrayRef<dim_t>(scoreDims)) {
      consumeError(dims.takeError());
      return ctx.fail("attn_mask " + mt.str() + " does not broadcast to the scores " +
                      dimsToString(scoreDims));
    }
    if (isBool) {
      EMBER_ASSIGN_OR_RETURN(allowed, andMasks(ctx, allowed, mask, "mask_and"));
    } else {
      additive = mask;
    }
  }
  NodeValue bias;
  if (allowed.node) {
    const DimsVec &ad = allowed.getType().dims;
    EMBER_ASSIGN_OR_RETURN(NodeValue zero, ctx.createFilled(kind, {}, 0.0, "bias_zero"));
    EMBER_ASSIGN_OR_RETURN(zero, ctx.broadcastTo(zero, ad));
    EMBER_ASSIGN_OR_RETURN(
        NodeValue ninf,
        ctx.createFilled(kind, {}, -std::numeric_limits<double>::infinity(), "bias_ninf"));
    EMBER_ASSIGN_OR_RETURN(ninf, ctx.broadcastTo(ninf, ad));
    EMBER_ASSIGN_OR_RETURN(bias, ctx.create(NodeKind::Where, {allowed, zero, ninf}, {}, "bias"));
  }
  if (additive.node) {
    if (bias.node) {
      EMBER_ASSIGN_OR_RETURN(bias, binary(ctx, NodeKind::Add, additive, bias, "bias_sum"));
    } else {
      bias = additive;
    }
  }
  if (bias.node) {
    EMBER_ASSIGN_OR_RETURN(qk, binary(ctx, NodeKind::Add, qk, bias, "biased"));
  }
  NodeValue withBias = qk;

  // Softmax over the keys, in softmax_precision when given.
  ElemKind softmaxKind = kind;
  if (ctx.hasAttr("softmax_precision")) {
    int64_t p = ctx.getInt("softmax_precision", 1);
    if (p != 1 && p != 10 && p != 11 && p != 16)
      return ctx.fail("softmax_precision must be 1 (float), 10 (float16), 11 (double) or 16 "
                      "(bfloat16), got " + Twine(p));
    EMBER_ASSIGN_OR_RETURN(softmaxKind, elemKindFromONNX(int(p)));
  }
  EMBER_ASSIGN_OR_RETURN(qk, ctx.castTo(qk, softmaxKind, "softmax_in"));
  EMBER_ASSIGN_OR_RETURN(NodeValue probs, ctx.create(NodeKind::Softmax, {qk},
                                                     AttrList().set<AttrKind::Axis>(3),
                                                     "softmax"));
  EMBER_ASSIGN_OR_RETURN(probs, ctx.castTo(probs, kind, "softmax_out"));
  // A query row whose every key is masked (its bias all -inf) gives zeros, not NaN.
  NodeValue rowMasked;
  if (runtimeBias) {
    EMBER_ASSIGN_OR_RETURN(
        NodeValue rowMax,
        ctx.create(NodeKind::Reduce, {bias},
                   AttrList().set<AttrKind::Reduction>("max").set<AttrKind::Axes>(
                       {int64_t(bias.getType().rank()) - 1}),
                   "bias_row_max"));
    EMBER_ASSIGN_OR_RETURN(
        rowMasked, ctx.create(NodeKind::IsInf, {rowMax},
                              AttrList().set<AttrKind::DetectNegative>(1).set<AttrKind::DetectPositive>(0),
                              "row_masked"));
  } else if (std::find(rowsMasked.begin(), rowsMasked.end(), true) != rowsMasked.end()) {
    EMBER_ASSIGN_OR_RETURN(Tensor t, ctx.newTensor(Type(ElemKind::Bool, {qLen, 1}), "rows"));
    for (dim_t i = 0; i < qLen; ++i)
      t.setElementFromDouble(i, rowsMasked[i] ? 1.0 : 0.0);
    rowMasked = ctx.createConstant(std::move(t), "row_masked")->getResult();
  }
  if (rowMasked.node) {
    EMBER_ASSIGN_OR_RETURN(rowMasked, ctx.broadcastTo(rowMasked, scoreDims));
    EMBER_ASSIGN_OR_RETURN(NodeValue zero, ctx.createFilled(kind, scoreDims, 0.0, "zero_probs"));
    EMBER_ASSIGN_OR_RETURN(probs, ctx.create(NodeKind::Where, {rowMasked, zero, probs}, {},
                                             "probs_guarded"));
  }

  // The product with V, per KV head over its group of query heads.
  EMBER_ASSIGN_OR_RETURN(NodeValue p, ctx.reshape(probs, {batch, kvHeads, group * qLen, total}));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::MatMul, {p, v}, {}, "y"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, {batch, qHeads, qLen, vHeadSize}));
  if (qt.rank() == 3) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.transpose(y, {0, 2, 1, 3}, "y_heads"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, {batch, qLen, qHeads * vHeadSize}));
  }
  EMBER_TRY(ctx.setOutput(0, y));
  if (ctx.hasOutput(1)) {
    EMBER_TRY(ctx.setOutput(1, k));
  }
  if (ctx.hasOutput(2)) {
    EMBER_TRY(ctx.setOutput(2, v));
  }
  if (ctx.hasOutput(3)) {
    int64_t mode = ctx.getInt("qk_matmul_output_mode", 0);
    NodeValue out = mode == 0 ? raw : mode == 1 ? capped : mode == 2 ? withBias : probs;
    if (mode < 0 || mode > 3)
      return ctx.fail("qk_matmul_output_mode must be 0 to 3, got " + Twine(mode));
    EMBER_TRY(ctx.setOutput(3, out));
  }
  return Error::success();
}

/// RotaryEmbedding: X (B, H, S, D) or (B, S, H * D) rotated pairwise by the angles of cos_cache
/// and sin_cache (rows picked by position_ids when given): the pairs are the two halves of the
/// first rotary_embedding_dim elements of each head, or with 'interleaved' neighbours.
Error loadRotaryEmbedding(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue cosv, ctx.input(1));
  EMBER_ASSIGN_OR_RETURN(NodeValue sinv, ctx.input(2));
  const Type xt = x.getType();
  if (!isFloatKind(xt.kind))
    return ctx.fail("X must be floating point, got " + xt.str());
  if (cosv.getType().kind != xt.kind || sinv.getType().kind != xt.kind)
    return ctx.fail("cos_cache " + cosv.getType().str() + " and sin_cache " +
                    sinv.getType().str() + " must have X's kind (" + xt.str() + ")");
  if (xt.rank() != 3 && xt.rank() != 4)
    return ctx.fail("X must be (batch, heads, sequence, head size) or (batch, sequence, "
                    "hidden), got " + xt.str());
  int64_t interleaved = ctx.getInt("interleaved", 0);
  if (interleaved != 0 && interleaved != 1)
    return ctx.fail("interleaved must be 0 or 1, got " + Twine(interleaved));
  const dim_t batch = xt.dims[0];
  // The working layout: (B, H, S, D) for 4-D X, (B, S, H, D) for 3-D; seqAxis is S's.
  DimsVec w = xt.dims;
  unsigned seqAxis = 2;
  if (xt.rank() == 3) {
    int64_t heads = ctx.getInt("num_heads", 0);
    if (heads <= 0 || xt.dims[2] % dim_t(heads) != 0)
      return ctx.fail("3-D X " + xt.str() + " needs num_heads dividing its hidden size, got " +
                      Twine(heads));
    w = {batch, xt.dims[1], dim_t(heads), xt.dims[2] / dim_t(heads)};
    seqAxis = 1;
    EMBER_ASSIGN_OR_RETURN(x, ctx.reshape(x, w));
  } else if (ctx.hasAttr("num_heads") && ctx.getInt("num_heads", 0) != int64_t(xt.dims[1])) {
    return ctx.fail("num_heads " + Twine(ctx.getInt("num_heads", 0)) +
                    " disagrees with the heads of X " + xt.str());
  }
  const dim_t seq = w[seqAxis], headSize = w[3];
  int64_t rd = ctx.getInt("rotary_embedding_dim", 0);
  if (rd == 0)
    rd = int64_t(headSize);
  if (rd < 0 || rd > int64_t(headSize) || rd % 2 != 0)
    return ctx.fail("rotary_embedding_dim " + Twine(rd) +
                    " must be even and at most the head size " + Twine(headSize));
  const dim_t half = dim_t(rd / 2);
  // cos and sin as (B or 1, S, half), gathered by position_ids when given.
  if (ctx.hasInput(3)) {
    EMBER_ASSIGN_OR_RETURN(NodeValue pos, ctx.input(3));
    const Type &pt = pos.getType();
    if (pt.kind != ElemKind::Int64 || pt.rank() != 2)
      return ctx.fail("position_ids must be int64 (batch, sequence), got " + pt.str());
    for (NodeValue c : {cosv, sinv})
      if (c.getType().rank() != 2 || c.getType().dims[1] != half)
        return ctx.fail("with position_ids, cos_cache and sin_cache must be (max position + 1, " +
                        Twine(half) + "), got " + c.getType().str());
    AttrList axis0 = AttrList().set<AttrKind::Axis>(0);
    EMBER_ASSIGN_OR_RETURN(cosv, ctx.create(NodeKind::Gather, {cosv, pos}, axis0, "cos"));
    EMBER_ASSIGN_OR_RETURN(sinv, ctx.create(NodeKind::Gather, {sinv, pos}, axis0, "sin"));
  }
  for (NodeValue c : {cosv, sinv}) {
    const Type &ct = c.getType();
    if (ct.rank() != 3 || (ct.dims[0] != batch && ct.dims[0] != 1) ||
        (ct.dims[1] != seq && ct.dims[1] != 1) || ct.dims[2] != half)
      return ctx.fail("cos and sin (cos_cache, sin_cache, gathered by position_ids when given) "
                      "must be (" + Twine(batch) + ", " + Twine(seq) + ", " + Twine(half) +
                      "), got " + ct.str());
  }
  // To the working layout with the heads axis 1: (B, 1, S, half) or (B, S, 1, half), and with
  // 'interleaved' a trailing axis of 1.
  DimsVec rotDims{w[0], w[1], w[2], half};
  if (interleaved)
    rotDims.push_back(1);
  auto toLayout = [&](NodeValue c) -> Expected<NodeValue> {
    const Type &ct = c.getType();
    DimsVec d = seqAxis == 2 ? DimsVec{ct.dims[0], 1, ct.dims[1], half}
                             : DimsVec{ct.dims[0], ct.dims[1], 1, half};
    if (interleaved)
      d.push_back(1);
    EMBER_ASSIGN_OR_RETURN(c, ctx.reshape(c, d));
    return ctx.broadcastTo(c, rotDims);
  };
  EMBER_ASSIGN_OR_RETURN(cosv, toLayout(cosv));
  EMBER_ASSIGN_OR_RETURN(sinv, toLayout(sinv));
  NodeValue x1, x2;
  EMBER_ASSIGN_OR_RETURN(NodeValue rot, sliceAxis(ctx, x, 3, 0, dim_t(rd), "rotated"));
  unsigned pairAxis = 3;
  if (interleaved) {
    EMBER_ASSIGN_OR_RETURN(rot, ctx.reshape(rot, {w[0], w[1], w[2], half, 2}));
    pairAxis = 4;
    EMBER_ASSIGN_OR_RETURN(x1, sliceAxis(ctx, rot, 4, 0, 1, "x1"));
    EMBER_ASSIGN_OR_RETURN(x2, sliceAxis(ctx, rot, 4, 1, 1, "x2"));
  } else {
    EMBER_ASSIGN_OR_RETURN(x1, sliceAxis(ctx, rot, 3, 0, half, "x1"));
    EMBER_ASSIGN_OR_RETURN(x2, sliceAxis(ctx, rot, 3, half, half, "x2"));
  }
  auto mul = [&](NodeValue a, NodeValue b, StringRef s) {
    return ctx.create(NodeKind::Mul, {a, b}, {}, s);
  };
  EMBER_ASSIGN_OR_RETURN(NodeValue cx1, mul(cosv, x1, "cos_x1"));
  EMBER_ASSIGN_OR_RETURN(NodeValue sx2, mul(sinv, x2, "sin_x2"));
  EMBER_ASSIGN_OR_RETURN(NodeValue sx1, mul(sinv, x1, "sin_x1"));
  EMBER_ASSIGN_OR_RETURN(NodeValue cx2, mul(cosv, x2, "cos_x2"));
  EMBER_ASSIGN_OR_RETURN(NodeValue real, ctx.create(NodeKind::Sub, {cx1, sx2}, {}, "real"));
  EMBER_ASSIGN_OR_RETURN(NodeValue imag, ctx.create(NodeKind::Add, {sx1, cx2}, {}, "imag"));
  EMBER_ASSIGN_OR_RETURN(
      NodeValue y, ctx.create(NodeKind::Concat, {real, imag},
                              AttrList().set<AttrKind::Axis>(int64_t(pairAxis)), "pairs"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, {w[0], w[1], w[2], dim_t(rd)}));
  if (dim_t(rd) < headSize) {
    EMBER_ASSIGN_OR_RETURN(NodeValue rest,
                           sliceAxis(ctx, x, 3, dim_t(rd), headSize - dim_t(rd), "kept"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Concat, {y, rest},
                                         AttrList().set<AttrKind::Axis>(3), "joined"));
  }
  EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, xt.dims));
  return ctx.setOutput(0, y);
}

} // namespace

void registerNNAttentionOps(OpRegistry &r) {
  // 24 adds nonpad_kv_seqlen; 25 the sliding window (left/right_window_size).
  r.add("Attention", 23, loadAttention);
  r.add("Attention", 24, loadAttention);
  r.add("Attention", 25, loadAttention);
  r.add("RotaryEmbedding", 23, loadRotaryEmbedding);
}

} // namespace ember
