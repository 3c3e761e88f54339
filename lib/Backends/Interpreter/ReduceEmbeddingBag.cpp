// The EmbeddingBag kernel: segments in order, each row weighted, scaled and added as
// ember/Semantics/EmbeddingBag.h says; Caffe2's run-time conditions (the lengths against the
// indices, every index in range) are checked before anything is written.
#include "ReduceUtils.h"

#include "ember/Semantics/EmbeddingBag.h"

#include <cstring>

using namespace llvm;

namespace ember {
namespace interp {

namespace {

template <typename I> Error embeddingBag(const KernelContext &ctx) {
  namespace Op = ops::EmbeddingBag;
  TensorArg data = ctx.in(Op::Data), ix = ctx.in(Op::Indices), len = ctx.in(Op::Lengths);
  TensorArg y = ctx.out();
  const std::string &mode = ctx.attr<AttrKind::Mode>();
  long layout = mode == "fused8"   ? EMBER_EMBAG_FUSED8
                : mode == "fused4" ? EMBER_EMBAG_FUSED4
                                   : EMBER_EMBAG_FLOAT;
  int mean = ctx.attr<AttrKind::Reduction>() == "mean";
  int64_t rows = int64_t(data.dims()[0]), segments = int64_t(len.dims()[0]);
  int64_t numIndices = int64_t(ix.dims()[0]);
  int64_t cols = segments ? int64_t(y.numElements()) / segments : 0;
  const I *indices = ix.as<I>();
  const int32_t *lengths = len.as<int32_t>();
  const float *weights = ctx.numInputs() > Op::Weights ? ctx.in(Op::Weights).as<float>() : nullptr;
  float *out = y.as<float>();
  std::memset(out, 0, y.numElements() * sizeof(float));
  if (numIndices == 0)
    return Error::success();
  int64_t at = 0;
  for (int64_t s = 0; s < segments; ++s) {
    int64_t end = ember_embag_segment_end(at, lengths[s], numIndices);
    if (end < 0)
      return ctx.unsupported("the lengths' sum passes the " + Twine(numIndices) +
                             " indices at segment " + Twine(s));
    for (; at < end; ++at)
      if (ember_embag_check_index(long(indices[at]), rows))
        return ctx.unsupported("index " + Twine(at) + " is out of bounds: " +
                               Twine(int64_t(indices[at])) + ", range 0 to " + Twine(rows));
  }
  if (at != numIndices)
    return ctx.unsupported("the lengths sum to " + Twine(at) + ", not the " +
                           Twine(numIndices) + " indices");
  long stride = ember_embag_row_stride(layout, cols);
  at = 0;
  for (int64_t s = 0; s < segments; ++s) {
    float *acc = out + s * cols;
    int64_t end = ember_embag_segment_end(at, lengths[s], numIndices);
    for (; at < end; ++at) {
      int64_t row = int64_t(indices[at]);
      float scaleBias[2];
      if (layout != EMBER_EMBAG_FLOAT) {
        const uint8_t *codes = data.as<uint8_t>() + row * stride;
        ember_embag_row_scale(layout, codes, cols, weights ? weights[at] : 1.0f, scaleBias);
        for (int64_t j = 0; j < cols; ++j)
          acc[j] = ember_embag_accumulate(acc[j], ember_embag_code(layout, codes, j), scaleBias);
      } else {
        const float *values = data.as<float>() + row * stride;
        ember_embag_row_scale(layout, nullptr, cols, weights ? weights[at] : 1.0f, scaleBias);
        for (int64_t j = 0; j < cols; ++j)
          acc[j] = ember_embag_accumulate(acc[j], values[j], scaleBias);
      }
    }
    for (int64_t j = 0; j < cols; ++j)
      acc[j] = ember_embag_finish(acc[j], mean, lengths[s]);
  }
  return Error::success();
}

} // namespace

Error runEmbeddingBag(const KernelContext &ctx) {
  if (ctx.in(ops::EmbeddingBag::Indices).type.kind == ElemKind::Int64)
    return embeddingBag<int64_t>(ctx);
  return embeddingBag<int32_t>(ctx);
}

bool supportsEmbeddingBag(const Node &) { return true; } // the shape rule admits what it runs

} // namespace interp
} // namespace ember
