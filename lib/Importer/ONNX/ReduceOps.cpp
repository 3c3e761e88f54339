// ONNX reductions and selections: ReduceX, ArgMax/ArgMin, CumSum, CumProd, TopK, Einsum. The
// losses are in ReduceOpsLoss.cpp.
#include "DataMovementOps.h"
#include "OpContext.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace ember {

void registerReduceLossOps(OpRegistry &r);
void registerReduceDetOps(OpRegistry &r);

namespace {

/// ONNX axes (negative counts from the end) as the sorted, distinct axes ember nodes take.
Expected<std::vector<int64_t>> normalizeAxes(OpContext &ctx, std::vector<int64_t> axes,
                                             unsigned rank) {
  for (int64_t &a : axes) {
    EMBER_ASSIGN_OR_RETURN(a, normalizeAxis(a, rank));
  }
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
    return ctx.fail("axes name an axis twice");
  return axes;
}

/// \p v with the size-1 axes \p axes removed (keepdims=0), or \p v itself when \p keep.
Expected<NodeValue> dropAxes(OpContext &ctx, NodeValue v, ArrayRef<int64_t> axes, bool keep) {
  if (keep)
    return v;
  DimsVec dims;
  const DimsVec &all = v.getType().dims;
  for (size_t i = 0; i < all.size(); ++i)
    if (!llvm::is_contained(axes, int64_t(i)))
      dims.push_back(all[i]);
  return ctx.reshape(v, dims);
}

/// ReduceX over \p axes; no axes means all of them, or nothing when noop_with_empty_axes.
Error emitReduce(OpContext &ctx, std::vector<int64_t> axes) {
  std::string reduction = StringSwitch<std::string>(ctx.proto().op_type())
                              .Case("ReduceSum", "sum")
                              .Case("ReduceMean", "mean")
                              .Case("ReduceMax", "max")
                              .Case("ReduceMin", "min")
                              .Case("ReduceProd", "prod")
                              .Case("ReduceL1", "l1")
                              .Case("ReduceL2", "l2")
                              .Case("ReduceLogSum", "log_sum")
                              .Case("ReduceLogSumExp", "log_sum_exp")
                              .Case("ReduceSumSquare", "sum_square")
                              .Default("");
  if (reduction.empty())
    return ctx.fail("no reduction for operator " + ctx.proto().op_type());
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  unsigned rank = x.getType().rank();
  if (axes.empty()) {
    if (ctx.getInt("noop_with_empty_axes", 0) != 0)
      return ctx.setOutput(0, x);
    for (unsigned i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  EMBER_ASSIGN_OR_RETURN(axes, normalizeAxes(ctx, axes, rank));
  // ReduceMax/ReduceMin-20 take bool (False < True): reduced as uint8 0/1 and cast back, so the
  // Reduce node and every backend's kernel stay numeric.
  bool boolMinMax = x.getType().kind == ElemKind::Bool && ctx.opset() >= 20 &&
                    (reduction == "max" || reduction == "min");
  auto castTo = [&](NodeValue v, ElemKind kind, StringRef suffix) {
    return ctx.create(NodeKind::Cast, {v},
                      AttrList().set<AttrKind::ResultKind>(elemKindName(kind).str()), suffix);
  };
  if (boolMinMax) {
    EMBER_ASSIGN_OR_RETURN(x, castTo(x, ElemKind::UInt8, "as_uint8"));
  }
  AttrList attrs;
  attrs.set<AttrKind::Reduction>(reduction).set<AttrKind::Axes>(axes);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Reduce, {x}, attrs));
  if (boolMinMax) {
    EMBER_ASSIGN_OR_RETURN(y, castTo(y, ElemKind::Bool, "as_bool"));
  }
  EMBER_ASSIGN_OR_RETURN(y, dropAxes(ctx, y, axes, ctx.getInt("keepdims", 1) != 0));
  return ctx.setOutput(0, y);
}

/// Every ReduceX up to opset 17 (ReduceSum up to 12): axes is an attribute.
Error loadReduce(OpContext &ctx) { return emitReduce(ctx, ctx.getInts("axes")); }

/// ReduceSum from opset 13, the other ReduceX from opset 18: axes is an optional input.
Error loadReduceAxesInput(OpContext &ctx) {
  std::vector<int64_t> axes;
  if (ctx.hasInput(1)) {
    EMBER_ASSIGN_OR_RETURN(axes, ctx.constantInts(1));
  }
  return emitReduce(ctx, axes);
}

template <NodeKind K> Error loadArgSelect(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", 0), x.getType().rank()));
  AttrList attrs;
  attrs.set<AttrKind::Axis>(axis).set<AttrKind::SelectLastIndex>(
      ctx.getInt("select_last_index", 0) != 0);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {x}, attrs));
  EMBER_ASSIGN_OR_RETURN(y, dropAxes(ctx, y, {axis}, ctx.getInt("keepdims", 1) != 0));
  return ctx.setOutput(0, y);
}

/// A scalar (or one-element) integer input known at compile time: CumSum's axis, TopK's K.
Expected<int64_t> constantScalar(OpContext &ctx, unsigned i, StringRef what) {
  EMBER_ASSIGN_OR_RETURN(std::vector<int64_t> values, ctx.constantInts(i));
  if (values.size() != 1)
    return ctx.fail(what + " must hold one value, got " + intsToString(values));
  return values[0];
}

Error loadCumSum(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(int64_t axis, constantScalar(ctx, 1, "axis"));
  EMBER_ASSIGN_OR_RETURN(axis, normalizeAxis(axis, x.getType().rank()));
  AttrList attrs;
  attrs.set<AttrKind::Axis>(axis)
      .set<AttrKind::Exclusive>(ctx.getInt("exclusive", 0) != 0)
      .set<AttrKind::Reverse>(ctx.getInt("reverse", 0) != 0);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::CumSum, {x}, attrs));
  return ctx.setOutput(0, y);
}

/// CumProd (opset 26), as CumSum's inputs and attributes. A scan of products in ceil(log2 n)
/// element-wise steps (Hillis and Steele): step s multiplies each running product by the one s
/// places earlier along the axis (later when reverse), ones shifted in at the border; the
/// exclusive form shifts the result one place more. Integers wrap as numpy's cumprod does;
/// floats round after each product in their kind, as numpy's does, but the products associate
/// as a tree, not left to right, so the last bits may differ from a running product.
Error loadCumProd(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  if (t.isQuantized() || t.kind == ElemKind::Bool ||
      !(isFloatKind(t.kind) || isIntegerKind(t.kind)))
    return ctx.fail("x must be numeric, got " + t.str());
  EMBER_ASSIGN_OR_RETURN(int64_t a, constantScalar(ctx, 1, "axis"));
  EMBER_ASSIGN_OR_RETURN(a, normalizeAxis(a, t.rank()));
  unsigned axis = unsigned(a);
  bool exclusive = ctx.getInt("exclusive", 0) != 0, reverse = ctx.getInt("reverse", 0) != 0;
  dim_t n = t.dims[axis];
  EMBER_ASSIGN_OR_RETURN(NodeValue one, ctx.createFilled(t.kind, {}, 1, "one"));
  // v moved s places along the axis, toward its end (its start when reverse), ones filling in.
  auto shifted = [&](NodeValue v, dim_t s) -> Expected<NodeValue> {
    DimsVec onesDims(t.dims.begin(), t.dims.end());
    onesDims[axis] = s;
    EMBER_ASSIGN_OR_RETURN(NodeValue ones, ctx.broadcastTo(one, onesDims));
    EMBER_ASSIGN_OR_RETURN(NodeValue kept,
                           sliceAxis(ctx, v, axis, reverse ? s : 0, n - s, "kept"));
    std::vector<NodeValue> parts = {ones, kept};
    if (reverse)
      std::swap(parts[0], parts[1]);
    return ctx.create(NodeKind::Concat, parts, AttrList().set<AttrKind::Axis>(int64_t(axis)),
                      "shifted");
  };
  NodeValue y = x;
  for (dim_t s = 1; s < n; s *= 2) {
    EMBER_ASSIGN_OR_RETURN(NodeValue earlier, shifted(y, s));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Mul, {y, earlier}, {}, "scan"));
  }
  if (exclusive && n == 1) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.broadcastTo(one, t.dims));
  } else if (exclusive && n > 1) {
    EMBER_ASSIGN_OR_RETURN(y, shifted(y, 1));
  }
  return ctx.setOutput(0, y);
}

/// TopK: k is an attribute up to opset 9, input K from 10; largest from opset 11. sorted=0
/// leaves the order open, so the sorted order ember produces is always valid.
Error loadTopK(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  int64_t k;
  if (ctx.opset() < 10) {
    if (!ctx.hasAttr("k"))
      return ctx.fail("attribute 'k' is required");
    k = ctx.getInt("k", 0);
  } else {
    EMBER_ASSIGN_OR_RETURN(k, constantScalar(ctx, 1, "K"));
  }
  EMBER_ASSIGN_OR_RETURN(int64_t axis, normalizeAxis(ctx.getInt("axis", -1), x.getType().rank()));
  AttrList attrs;
  attrs.set<AttrKind::Axis>(axis).set<AttrKind::Count>(k).set<AttrKind::Largest>(
      ctx.getInt("largest", 1) != 0);
  EMBER_ASSIGN_OR_RETURN(NodeValue values, ctx.create(NodeKind::TopK, {x}, attrs));
  EMBER_TRY(ctx.setOutput(0, values));
  return ctx.setOutput(1, values.node->getResult(ops::TopK::Indices));
}

/// An einsum term: letters (their character codes) and at most one ellipsis.
struct EinsumTerm {
  std::vector<int64_t> letters; // the ellipsis, if any, sits before letters[ellipsisAt]
  int64_t ellipsisAt = -1;
};

/// Labels of the dims an ellipsis stands for: kEllipsisLabel + position, counted so that the
/// ellipses of all operands align at their last dim (numpy's broadcasting order).
constexpr int64_t kEllipsisLabel = 256;

Expected<EinsumTerm> parseEinsumTerm(OpContext &ctx, StringRef term) {
  EinsumTerm t;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term.substr(i).starts_with("...")) {
      if (t.ellipsisAt >= 0)
        return ctx.fail("einsum term '" + term + "' has two ellipses");
      t.ellipsisAt = int64_t(t.letters.size());
      i += 2;
    } else if (isAlpha(term[i])) {
      t.letters.push_back(int64_t(term[i]));
    } else {
      return ctx.fail("unexpected character '" + Twine(term[i]) + "' in einsum term '" + term +
                      "'");
    }
  }
  return t;
}

/// The term's labels with its ellipsis expanded to \p ellipsisDims dims, the last of which is
/// ellipsis position \p ellipsisEnd - 1.
std::vector<int64_t> expandTerm(const EinsumTerm &t, size_t ellipsisDims, size_t ellipsisEnd) {
  std::vector<int64_t> labels;
  for (size_t i = 0; i <= t.letters.size(); ++i) {
    if (int64_t(i) == t.ellipsisAt)
      for (size_t e = 0; e < ellipsisDims; ++e)
        labels.push_back(kEllipsisLabel + int64_t(ellipsisEnd - ellipsisDims + e));
    if (i < t.letters.size())
      labels.push_back(t.letters[i]);
  }
  return labels;
}

Error loadEinsum(OpContext &ctx) {
  std::string equation;
  for (char c : ctx.getString("equation", ""))
    if (c != ' ')
      equation += c;
  if (equation.empty())
    return ctx.fail("attribute 'equation' is required");
  StringRef lhs = equation, rhs;
  bool explicitOutput = StringRef(equation).contains("->");
  if (explicitOutput)
    std::tie(lhs, rhs) = StringRef(equation).split("->");
  SmallVector<StringRef, 4> termTexts;
  lhs.split(termTexts, ',');
  if (termTexts.size() != ctx.numInputs())
    return ctx.fail("equation '" + equation + "' has " + Twine(termTexts.size()) +
                    " operand terms, the node has " + Twine(ctx.numInputs()) + " inputs");

  SmallVector<NodeValue, 4> operands;
  std::vector<EinsumTerm> terms;
  std::vector<size_t> ellipsisDims;
  size_t maxEllipsis = 0;
  for (unsigned i = 0; i < termTexts.size(); ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(i));
    EMBER_ASSIGN_OR_RETURN(EinsumTerm t, parseEinsumTerm(ctx, termTexts[i]));
    size_t rank = v.getType().rank(), letters = t.letters.size();
    if (t.ellipsisAt < 0 ? rank != letters : rank < letters)
      return ctx.fail("einsum term '" + termTexts[i] + "' does not fit operand " + Twine(i) + " " +
                      v.getType().str());
    ellipsisDims.push_back(rank - letters);
    maxEllipsis = std::max(maxEllipsis, rank - letters);
    operands.push_back(v);
    terms.push_back(std::move(t));
  }

  std::vector<int64_t> inLabels, outLabels;
  std::map<int64_t, unsigned> letterCount; // ordered: implicit output lists letters sorted
  std::map<int64_t, dim_t> sizes;
  std::vector<std::vector<int64_t>> labelsOf;
  for (size_t i = 0; i < terms.size(); ++i) {
    labelsOf.push_back(expandTerm(terms[i], ellipsisDims[i], maxEllipsis));
    inLabels.insert(inLabels.end(), labelsOf[i].begin(), labelsOf[i].end());
    for (int64_t l : terms[i].letters)
      ++letterCount[l];
    // A letter has one size everywhere; ellipsis dims broadcast as in numpy.
    const DimsVec &dims = operands[i].getType().dims;
    for (size_t d = 0; d < dims.size(); ++d) {
      int64_t label = labelsOf[i][d];
      auto [it, inserted] = sizes.try_emplace(label, dims[d]);
      if (inserted || it->second == dims[d])
        continue;
      if (label >= kEllipsisLabel && (it->second == 1 || dims[d] == 1)) {
        it->second = std::max(it->second, dims[d]);
        continue;
      }
      return ctx.fail("equation '" + equation + "': " +
                      (label >= kEllipsisLabel ? Twine("an ellipsis dim")
                                               : "label '" + Twine(char(label)) + "'") +
                      " has size " + Twine(it->second) + " and size " + Twine(dims[d]) +
                      " (operand " + Twine(i) + " " + operands[i].getType().str() + ")");
    }
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    DimsVec dims;
    for (int64_t label : labelsOf[i])
      dims.push_back(sizes[label]);
    EMBER_ASSIGN_OR_RETURN(operands[i], ctx.broadcastTo(operands[i], dims));
  }
  if (explicitOutput) {
    EMBER_ASSIGN_OR_RETURN(EinsumTerm out, parseEinsumTerm(ctx, rhs));
    if (out.ellipsisAt < 0 && maxEllipsis > 0)
      return ctx.fail("equation '" + equation +
                      "': the output must keep the ellipsis dims (summing them is not supported)");
    for (size_t i = 0; i < out.letters.size(); ++i) {
      char letter = char(out.letters[i]);
      if (!letterCount.count(out.letters[i]))
        return ctx.fail("equation '" + equation + "': output label '" + Twine(letter) +
                        "' is in no operand term");
      if (llvm::is_contained(ArrayRef<int64_t>(out.letters).take_front(i), out.letters[i]))
        return ctx.fail("equation '" + equation + "': output label '" + Twine(letter) +
                        "' repeats");
    }
    outLabels = expandTerm(out, maxEllipsis, maxEllipsis);
  } else {
    // numpy's implicit output: the ellipsis dims, then the letters used once, sorted.
    EinsumTerm out;
    out.ellipsisAt = 0;
    for (auto [letter, count] : letterCount)
      if (count == 1)
        out.letters.push_back(letter);
    outLabels = expandTerm(out, maxEllipsis, maxEllipsis);
  }
  AttrList attrs;
  attrs.set<AttrKind::InputLabels>(inLabels).set<AttrKind::OutputLabels>(outLabels);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Einsum, operands, attrs));
  return ctx.setOutput(0, y);
}

} // namespace

void registerReduceOps(OpRegistry &r) {
  for (const char *op :
       {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    r.add(op, 1, loadReduce);
  r.add("ReduceSum", 13, loadReduceAxesInput);
  for (const char *op : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                         "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    r.add(op, 18, loadReduceAxesInput);
  r.add("ArgMax", 1, loadArgSelect<NodeKind::ArgMax>);
  r.add("ArgMin", 1, loadArgSelect<NodeKind::ArgMin>);
  r.add("CumSum", 11, loadCumSum);
  r.add("CumProd", 26, loadCumProd);
  r.add("TopK", 1, loadTopK);
  r.add("Einsum", 12, loadEinsum);
  registerReduceLossOps(r);
  registerReduceDetOps(r);
}

} // namespace ember
