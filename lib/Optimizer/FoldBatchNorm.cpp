// fold-batchnorm: an inference BatchNorm whose input is a Conv or ConvTranspose becomes that
// convolution with new weights. BatchNorm computes y = Scale * (conv - Mean) / sqrt(Var + eps) +
// Bias per output channel c; with f = Scale / sqrt(Var + eps) that is conv with its filter's
// channel-c taps scaled by f[c] and bias (b - Mean) * f + Bias. Safe because the convolution is
// linear in its filter and bias, the convolution is not used elsewhere (it is replaced, not
// duplicated), the filter, bias and four statistics are Constants, the new values are computed in
// double and rounded once to the element kind, and the rewrite is refused when any of them would
// not be finite. Only float32 and float64: rounding folded weights to a 16-bit float would move
// the result by far more than the unfused graph's own rounding.
#include "FusionUtils.h"
#include "Passes.h"
#include "PatternUtils.h"

#include <cmath>
#include <vector>

using namespace llvm;

namespace ember {

using namespace fusion;

namespace {

/// The output channel of each kernel (the k.. taps of one filter row, kVolume elements). Conv's
/// filter is [C_out, C_in/group, k..]; ConvTranspose's is [C_in, C_out/group, k..], input channel
/// ic belonging to group ic / (C_in/group).
struct FilterLayout {
  bool transposed;
  size_t kVolume = 1, rows, dim1, cinPerGroup;

  explicit FilterLayout(const Node &conv) : transposed(conv.getKind() == NodeKind::ConvTranspose) {
    const Type &w = conv.getOperand(ops::Conv::Filter).getType();
    for (size_t d = 2; d < w.rank(); ++d)
      kVolume *= w.dims[d];
    rows = w.dims[0] * w.dims[1];
    dim1 = w.dims[1];
    cinPerGroup = w.dims[0] / size_t(conv.attr<AttrKind::Group>());
  }
  size_t outputChannel(size_t row) const {
    if (!transposed)
      return row / dim1;
    size_t ic = row / dim1, j = row % dim1; // dim1 is C_out/group
    return (ic / cinPerGroup) * dim1 + j;
  }
};

/// \p w with each kernel times factor[its output channel], computed in double and rounded to T
/// into \p out; false if a result is not finite.
template <typename T>
bool scaleFilter(const Tensor &w, const std::vector<double> &factor, const FilterLayout &layout,
                 Tensor &out) {
  const T *src = w.dataAs<T>();
  T *dst = out.dataAs<T>();
  for (size_t row = 0; row < layout.rows; ++row) {
    double f = factor[layout.outputChannel(row)];
    for (size_t k = row * layout.kVolume, e = k + layout.kVolume; k < e; ++k) {
      dst[k] = T(double(src[k]) * f);
      if (!std::isfinite(dst[k]))
        return false;
    }
  }
  return true;
}

/// Folds \p bn into the convolution that is its input, if the pattern holds.
bool foldInto(Function &F, Node *bn) {
  Node *conv = bn->getOperand(ops::BatchNorm::Input).node;
  if (conv->getKind() != NodeKind::Conv && conv->getKind() != NodeKind::ConvTranspose)
    return false;
  ElemKind kind = conv->getType().kind;
  if ((kind != ElemKind::Float32 && kind != ElemKind::Float64) || !onlyUsedBy(conv, bn))
    return false;
  // Conv and ConvTranspose number their operands alike.
  Constant *filter = asConstant(conv->getOperand(ops::Conv::Filter));
  Constant *bias = asConstant(conv->getOperand(ops::Conv::Bias));
  Constant *scale = asConstant(bn->getOperand(ops::BatchNorm::Scale));
  Constant *shift = asConstant(bn->getOperand(ops::BatchNorm::Bias));
  Constant *mean = asConstant(bn->getOperand(ops::BatchNorm::Mean));
  Constant *var = asConstant(bn->getOperand(ops::BatchNorm::Var));
  if (!filter || !bias || !scale || !shift || !mean || !var)
    return false;
  size_t channels = conv->getType().dims[1];
  if (bias->getType().numElements() != channels || scale->getType().numElements() != channels)
    return false;

  double eps = bn->attr<AttrKind::Epsilon>(); // as the BatchNorm kernel reads it
  std::vector<double> factor(channels);
  Tensor newBias(bias->getType());
  for (size_t c = 0; c < channels; ++c) {
    double f = scale->getPayload().elementAsDouble(c) /
               std::sqrt(var->getPayload().elementAsDouble(c) + eps);
    double b = (bias->getPayload().elementAsDouble(c) - mean->getPayload().elementAsDouble(c)) *
                   f +
               shift->getPayload().elementAsDouble(c);
    if (!std::isfinite(f) || !std::isfinite(b))
      return false;
    factor[c] = f;
    newBias.setElementFromDouble(c, b);
  }
  Tensor newFilter(filter->getType());
  FilterLayout layout(*conv);
  bool finite = kind == ElemKind::Float32
                    ? scaleFilter<float>(filter->getPayload(), factor, layout, newFilter)
                    : scaleFilter<double>(filter->getPayload(), factor, layout, newFilter);
  if (!finite || !allFinite(newBias)) // rounding to float32 may overflow
    return false;
  Module *M = F.getParent();
  Constant *w = M->createConstant(std::move(newFilter), filter->getName().str() + ".bn_folded");
  Constant *b = M->createConstant(std::move(newBias), bias->getName().str() + ".bn_folded");
  // The new constants have the old ones' types, so the convolution types as before; were it
  // refused anyway, the unused constants would go with the next DCE.
  return replaceWithNew(F, bn, conv->getKind(), conv->getName(),
                        {conv->getOperand(ops::Conv::Input), w->getResult(), b->getResult()},
                        conv->getAttrs());
}

} // namespace

bool runFoldBatchNorm(Function &F, const PassContext &) {
  return pattern::rewriteEach(
      F, [&](Node *n) { return n->getKind() == NodeKind::BatchNorm && foldInto(F, n); });
}

} // namespace ember
