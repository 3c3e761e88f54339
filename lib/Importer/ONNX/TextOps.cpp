// ONNX text operators on integer token ids (TfIdfVectorizer): built from ember's existing
// nodes and constants, no node kind of their own.
//
// TfIdfVectorizer's attributes fix everything but the tokens, so the loader turns the pool into
// constants and builds a counting graph. For each n-gram length n counted, the n-grams that
// start at position p with skip s read tokens p, p + (s+1), ..., p + (n-1)(s+1). Slicing the
// rows at offset k(s+1) for every skip and joining the slices gives, for each k < n, one view
// whose column t is token k of candidate n-gram t; comparing view k with token k of every pool
// n-gram (Equal, broadcast to [rows, candidates, pool n-grams]) and And-ing over k marks the
// candidates that match, and summing over the candidates counts each pool n-gram. A
// ScatterElements (add) then moves the counts to their output columns, and the mode scales them.
// Semantics follow onnxruntime's kernel, which the ONNX reference copies where the spec is
// silent or differs: unigrams are counted once (skips do not apply to them); the i-th weight
// scales output column i (the spec says pool n-gram i: the same when ngram_indexes is the
// identity); a duplicate n-gram in the pool is refused.
#include "DataMovementOps.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <limits>
#include <set>

using namespace llvm;

namespace ember {

namespace {

/// The pool n-grams of one length that the operator counts.
struct NgramLevel {
  int64_t length = 0;
  /// Token k of n-gram j at [k * size + j]: row k is what view k is compared with.
  std::vector<int64_t> tokensByPosition;
  /// Each n-gram's output column (its ngram_indexes entry).
  std::vector<int64_t> columns;
  size_t size() const { return columns.size(); }
};

/// TfIdfVectorizer's attributes, checked.
struct TfIdfAttrs {
  enum class Mode { TF, IDF, TFIDF } mode = Mode::TF;
  int64_t maxSkip = 0;
  std::vector<NgramLevel> levels; ///< lengths min_gram_length..max_gram_length with n-grams
  dim_t outputSize = 0;           ///< max(ngram_indexes) + 1
  std::vector<float> weights;     ///< per output column; empty means all 1
};

/// Attribute \p name, which the operator requires.
Error requireAttr(OpContext &ctx, StringRef name) {
  if (!ctx.hasAttr(name))
    return ctx.fail("attribute '" + name + "' is required");
  return Error::success();
}

Expected<TfIdfAttrs::Mode> readMode(OpContext &ctx) {
  std::string mode = ctx.getString("mode", "");
  if (mode == "TF")
    return TfIdfAttrs::Mode::TF;
  if (mode == "IDF")
    return TfIdfAttrs::Mode::IDF;
  if (mode == "TFIDF")
    return TfIdfAttrs::Mode::TFIDF;
  return ctx.fail("attribute 'mode' must be TF, IDF or TFIDF, got '" + mode + "'");
}

/// Reads and checks the attributes. \p tokenKind is the input's (int32 or int64): a pool
/// n-gram with a token that kind cannot hold never matches, so it is left out.
Expected<TfIdfAttrs> readAttrs(OpContext &ctx, ElemKind tokenKind) {
  for (StringRef name : {"mode", "min_gram_length", "max_gram_length", "max_skip_count",
                         "ngram_counts", "ngram_indexes"})
    EMBER_TRY(requireAttr(ctx, name));
  if (ctx.hasAttr("pool_strings"))
    return ctx.fail("pool_strings is not supported: ember has no string tensors, so the pool "
                    "must be integer token ids (pool_int64s)");
  EMBER_TRY(requireAttr(ctx, "pool_int64s"));

  TfIdfAttrs attrs;
  EMBER_ASSIGN_OR_RETURN(attrs.mode, readMode(ctx));
  int64_t minLength = ctx.getInt("min_gram_length", 0);
  int64_t maxLength = ctx.getInt("max_gram_length", 0);
  attrs.maxSkip = ctx.getInt("max_skip_count", 0);
  std::vector<int64_t> starts = ctx.getInts("ngram_counts");
  std::vector<int64_t> indexes = ctx.getInts("ngram_indexes");
  std::vector<int64_t> pool = ctx.getInts("pool_int64s");
  attrs.weights = ctx.getFloats("weights");
  EMBER_TRY(ctx.takeAttrError());

  if (minLength < 1 || maxLength < minLength)
    return ctx.fail("the n-gram lengths must satisfy 1 <= min_gram_length <= max_gram_length, "
                    "got " + Twine(minLength) + " and " + Twine(maxLength));
  if (attrs.maxSkip < 0)
    return ctx.fail("max_skip_count must be at least 0, got " + Twine(attrs.maxSkip));
  if (indexes.empty())
    return ctx.fail("ngram_indexes is empty");
  for (int64_t column : indexes)
    if (column < 0)
      return ctx.fail("ngram_indexes must not be negative, got " + intsToString(indexes));
  attrs.outputSize = dim_t(*std::max_element(indexes.begin(), indexes.end())) + 1;
  if (!attrs.weights.empty() && attrs.weights.size() != indexes.size())
    return ctx.fail("weights has " + Twine(attrs.weights.size()) +
                    " values but ngram_indexes has " + Twine(indexes.size()) +
                    " entries: they must match");
  // onnxruntime scales output column i by weights[i]: every column needs one.
  if (!attrs.weights.empty() && attrs.weights.size() < attrs.outputSize)
    return ctx.fail("weights has " + Twine(attrs.weights.size()) + " values for " +
                    Twine(attrs.outputSize) + " output columns (max(ngram_indexes) + 1)");

  // ngram_counts[n-1] is where the n-grams start in the pool; they end where the (n+1)-grams
  // start, the last length at the pool's end. Items before ngram_counts[0] belong to no n-gram.
  size_t poolSize = pool.size(), id = 0;
  for (size_t level = 0; level < starts.size(); ++level) {
    int64_t length = int64_t(level) + 1;
    int64_t begin = starts[level];
    int64_t end = level + 1 < starts.size() ? starts[level + 1] : int64_t(poolSize);
    if (begin < 0 || end < begin || end > int64_t(poolSize))
      return ctx.fail("ngram_counts must be ascending starts within pool_int64s's " +
                      Twine(poolSize) + " items, got " + intsToString(starts));
    if ((end - begin) % length != 0)
      return ctx.fail("pool_int64s[" + Twine(begin) + ":" + Twine(end) + "] holds " +
                      Twine(end - begin) + " items, not whole " + Twine(length) + "-grams");
    size_t count = size_t((end - begin) / length);
    if (id + count > indexes.size())
      return ctx.fail("ngram_indexes has " + Twine(indexes.size()) +
                      " entries, fewer than the n-grams of the pool");
    bool counted = length >= minLength && length <= maxLength;
    NgramLevel ngrams;
    ngrams.length = length;
    std::set<std::vector<int64_t>> seen;
    std::vector<std::vector<int64_t>> kept;
    for (size_t j = 0; j < count && counted; ++j) {
      std::vector<int64_t> ngram(pool.begin() + begin + int64_t(j) * length,
                                 pool.begin() + begin + int64_t(j + 1) * length);
      if (!seen.insert(ngram).second)
        return ctx.fail("pool_int64s holds the " + Twine(length) + "-gram " +
                        intsToString(ngram) + " twice");
      bool representable =
          tokenKind == ElemKind::Int64 ||
          llvm::all_of(ngram, [](int64_t t) {
            return t >= std::numeric_limits<int32_t>::min() &&
                   t <= std::numeric_limits<int32_t>::max();
          });
      if (representable) {
        kept.push_back(std::move(ngram));
        ngrams.columns.push_back(indexes[id + j]);
      }
    }
    id += count;
    for (int64_t k = 0; k < length; ++k)
      for (const auto &ngram : kept)
        ngrams.tokensByPosition.push_back(ngram[size_t(k)]);
    if (ngrams.size() > 0)
      attrs.levels.push_back(std::move(ngrams));
  }
  if (id != indexes.size())
    return ctx.fail("ngram_indexes has " + Twine(indexes.size()) + " entries for the " +
                    Twine(id) + " n-grams of the pool");
  return attrs;
}

/// The tokens of \p ngrams at position \p k, as a [1, 1, size] constant of \p kind.
NodeValue poolTokens(OpContext &ctx, const NgramLevel &ngrams, int64_t k, ElemKind kind) {
  size_t m = ngrams.size();
  ArrayRef<int64_t> tokens = ArrayRef<int64_t>(ngrams.tokensByPosition).slice(size_t(k) * m, m);
  DimsVec dims = {1, 1, dim_t(m)};
  std::string suffix = "pool" + std::to_string(ngrams.length) + "_" + std::to_string(k);
  if (kind == ElemKind::Int64)
    return ctx.createConstant(Tensor::fromValues<int64_t>(dims, tokens), suffix)->getResult();
  std::vector<int32_t> narrow(tokens.begin(), tokens.end()); // in range: readAttrs checked
  return ctx.createConstant(Tensor::fromValues<int32_t>(dims, narrow), suffix)->getResult();
}

/// How often each n-gram of \p ngrams occurs in each row of \p rows ([N, C]), over every skip
/// (unigrams: once): [N, ngrams.size()] float32, or nullopt when no n-gram of that length fits
/// in a row.
Expected<std::optional<NodeValue>> countLevel(OpContext &ctx, NodeValue rows,
                                              const NgramLevel &ngrams, int64_t maxSkip) {
  dim_t batch = rows.getType().dims[0], rowLength = rows.getType().dims[1];
  int64_t n = ngrams.length;
  int64_t lastSkip = n == 1 ? 0 : maxSkip;
  std::string level = std::to_string(n) + "gram";
  std::optional<NodeValue> matches;
  for (int64_t k = 0; k < n; ++k) {
    // View k: token k of every candidate, the candidates of each skip one after the other.
    std::vector<NodeValue> pieces;
    for (int64_t skip = 0; skip <= lastSkip; ++skip) {
      int64_t distance = skip + 1, span = (n - 1) * distance;
      if (span >= int64_t(rowLength))
        break; // larger skips fit still less
      EMBER_ASSIGN_OR_RETURN(NodeValue piece,
                             sliceAxis(ctx, rows, 1, dim_t(k * distance),
                                       rowLength - dim_t(span), level + "_view"));
      pieces.push_back(piece);
    }
    if (pieces.empty())
      return std::nullopt;
    NodeValue view = pieces.front();
    if (pieces.size() > 1) {
      EMBER_ASSIGN_OR_RETURN(view, ctx.create(NodeKind::Concat, pieces,
                                              AttrList().set<AttrKind::Axis>(1), level + "_views"));
    }
    dim_t candidates = view.getType().dims[1];
    DimsVec compared = {batch, candidates, dim_t(ngrams.size())};
    EMBER_ASSIGN_OR_RETURN(view, ctx.reshape(view, {batch, candidates, 1}));
    EMBER_ASSIGN_OR_RETURN(view, ctx.broadcastTo(view, compared));
    EMBER_ASSIGN_OR_RETURN(
        NodeValue pool,
        ctx.broadcastTo(poolTokens(ctx, ngrams, k, rows.getType().kind), compared));
    EMBER_ASSIGN_OR_RETURN(NodeValue equal,
                           ctx.create(NodeKind::Equal, {view, pool}, {}, level + "_equal"));
    if (matches) {
      EMBER_ASSIGN_OR_RETURN(equal,
                             ctx.create(NodeKind::And, {*matches, equal}, {}, level + "_match"));
    }
    matches = equal;
  }
  EMBER_ASSIGN_OR_RETURN(
      NodeValue counts,
      ctx.create(NodeKind::Cast, {*matches},
                 AttrList().set<AttrKind::ResultKind>(elemKindName(ElemKind::Float32).str()),
                 level + "_cast"));
  EMBER_ASSIGN_OR_RETURN(counts, ctx.create(NodeKind::Reduce, {counts},
                                            AttrList()
                                                .set<AttrKind::Reduction>(std::string("sum"))
                                                .set<AttrKind::Axes>(std::vector<int64_t>{1}),
                                            level + "_count"));
  EMBER_ASSIGN_OR_RETURN(counts, ctx.reshape(counts, {batch, dim_t(ngrams.size())}));
  return std::optional<NodeValue>(counts);
}

/// \p counts ([N, K], one column per pool n-gram of \p columns) added into the output columns
/// they map to: [N, outputSize]. Nothing to move when n-gram i is column i for every column.
Expected<NodeValue> toOutputColumns(OpContext &ctx, NodeValue counts, ArrayRef<int64_t> columns,
                                    dim_t outputSize) {
  bool identity = columns.size() == outputSize;
  for (size_t i = 0; i < columns.size() && identity; ++i)
    identity = columns[i] == int64_t(i);
  if (identity)
    return counts;
  dim_t batch = counts.getType().dims[0];
  DimsVec dims = {1, dim_t(columns.size())};
  NodeValue indices = ctx.createConstant(Tensor::fromValues<int64_t>(dims, columns),
                                         "columns")->getResult();
  EMBER_ASSIGN_OR_RETURN(indices, ctx.broadcastTo(indices, counts.getType().dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue zeros, ctx.createFilled(ElemKind::Float32, {}, 0, "zero"));
  EMBER_ASSIGN_OR_RETURN(zeros, ctx.broadcastTo(zeros, {batch, outputSize}));
  return ctx.create(NodeKind::ScatterElements, {zeros, indices, counts},
                    AttrList().set<AttrKind::Axis>(1).set<AttrKind::Reduction>(std::string("add")),
                    "to_columns");
}

/// The mode applied to the per-column counts \p y ([N, outputSize]): TF keeps them, IDF turns
/// them into presence (min(count, 1)), and both IDF and TFIDF scale column i by weights[i].
Expected<NodeValue> applyMode(OpContext &ctx, const TfIdfAttrs &attrs, NodeValue y) {
  const DimsVec &dims = y.getType().dims;
  if (attrs.mode == TfIdfAttrs::Mode::IDF) {
    EMBER_ASSIGN_OR_RETURN(NodeValue one, ctx.createFilled(ElemKind::Float32, {}, 1, "one"));
    EMBER_ASSIGN_OR_RETURN(one, ctx.broadcastTo(one, dims));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Min, {y, one}, {}, "presence"));
  }
  if (attrs.mode == TfIdfAttrs::Mode::TF || attrs.weights.empty())
    return y;
  ArrayRef<float> weights = ArrayRef<float>(attrs.weights).take_front(attrs.outputSize);
  NodeValue w = ctx.createConstant(Tensor::fromValues<float>({1, attrs.outputSize}, weights),
                                   "weights")->getResult();
  EMBER_ASSIGN_OR_RETURN(w, ctx.broadcastTo(w, dims));
  return ctx.create(NodeKind::Mul, {y, w}, {}, "weighted");
}

/// TfIdfVectorizer-9 on int32 or int64 token ids: X [C] gives [max(ngram_indexes) + 1] float32,
/// X [N, C] gives [N, that] (a scalar X is one token, as onnxruntime reads it).
Error loadTfIdfVectorizer(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &xType = x.getType();
  if (xType.kind != ElemKind::Int32 && xType.kind != ElemKind::Int64)
    return ctx.fail("input " + xType.str() + ": ember counts int32 or int64 token ids only");
  if (xType.rank() < 1 || xType.rank() > 2) // the spec's shapes; a scalar is not a sequence
    return ctx.fail("input " + xType.str() + " must be [C] or [N, C]");
  EMBER_ASSIGN_OR_RETURN(TfIdfAttrs attrs, readAttrs(ctx, xType.kind));

  bool batched = xType.rank() == 2;
  dim_t batch = batched ? xType.dims[0] : 1;
  dim_t rowLength = batched ? xType.dims[1] : xType.dims[0];
  EMBER_ASSIGN_OR_RETURN(NodeValue rows, ctx.reshape(x, {batch, rowLength}));

  std::vector<NodeValue> counts;
  std::vector<int64_t> columns;
  for (const NgramLevel &ngrams : attrs.levels) {
    EMBER_ASSIGN_OR_RETURN(std::optional<NodeValue> c,
                           countLevel(ctx, rows, ngrams, attrs.maxSkip));
    if (!c)
      continue;
    counts.push_back(*c);
    columns.insert(columns.end(), ngrams.columns.begin(), ngrams.columns.end());
  }

  NodeValue y;
  if (counts.empty()) { // nothing in the pool fits in a row: every count is 0
    EMBER_ASSIGN_OR_RETURN(y, ctx.createFilled(ElemKind::Float32, {}, 0, "zero"));
    EMBER_ASSIGN_OR_RETURN(y, ctx.broadcastTo(y, {batch, attrs.outputSize}));
  } else {
    y = counts.front();
    if (counts.size() > 1) {
      EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Concat, counts,
                                           AttrList().set<AttrKind::Axis>(1), "counts"));
    }
    EMBER_ASSIGN_OR_RETURN(y, toOutputColumns(ctx, y, columns, attrs.outputSize));
  }
  EMBER_ASSIGN_OR_RETURN(y, applyMode(ctx, attrs, y));
  if (!batched) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.reshape(y, {attrs.outputSize}));
  }
  return ctx.setOutput(0, y);
}

} // namespace

void registerTextOps(OpRegistry &r) { r.add("TfIdfVectorizer", 9, loadTfIdfVectorizer); }

} // namespace ember
