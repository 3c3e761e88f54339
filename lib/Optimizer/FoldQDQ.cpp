// fold-qdq: the QuantizeLinear / DequantizeLinear pairs around a float product become integer
// kernels. This is how both quantized forms reach the int8 kernels: ONNX models in QDQ form (what
// onnxruntime's and PyTorch's quantizers write) and ember's own post-training quantization
// (lib/Quantization), which inserts the same pairs from a profile.
//
//   Q(act(Conv(DQ(x), DQ(w), bias)))         -> Clip(Requantize(IntegerConv(x, w, bias_q)))
//   Q(act(MatMul(DQ(x), DQ(w)) [+ bias]))    -> Clip(Requantize(IntegerMatMul(x, w) [+ bias_q]))
//   Q(DQ(x)) with the same parameters        -> x
//   Q(op(..(DQ(x)))) with the same parameters -> op(..(x)), each op a Reshape, Transpose or
//                                                MaxPool
//
// x is int8 or uint8 with one scale and zero point; w a constant int8 or uint8 (possibly behind
// Reshapes that add or drop leading 1s, and Transposes: Gemm's transB) with one scale and zero
// point or one per output channel; the bias a float constant or the DequantizeLinear of an int32
// constant, as onnxruntime writes it; the activation none, Relu, or a Clip (on its own or fused).
// The folded form is what onnxruntime runs for these models too: the exact int32 sum of
// (x - x_zero) * (w - w_zero) plus the bias rounded to int32 at scale x_scale * w_scale, then
// Requantize by the multiplier (x_scale * w_scale) / y_scale, each in float32 in that order (as
// the QLinearConv import computes it). The unfolded graph sums the dequantized products in
// float32 and rounds once, so an output may differ by one step of y_scale where the float sum
// lands within rounding of a half step. Q is monotone, so Q(Relu(v)) = max(Q(v), Q(0)) and
// Q(Clip(v, a, b)) = Clip(Q(v), Q(a), Q(b)) exactly, and the same holds for max pooling and for
// data movement, which only select elements.
//
// Constant folding leaves a DequantizeLinear of a constant alone (ConstantFold.cpp), so the
// weights stay 8-bit and this pass can see them.
#include "FusionUtils.h"
#include "Passes.h"
#include "PatternUtils.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

using namespace llvm;

namespace ember {

using namespace fusion;

namespace {

bool isByteKind(ElemKind k) { return k == ElemKind::Int8 || k == ElemKind::UInt8; }

double kindLowest(ElemKind k) { return k == ElemKind::Int8 ? -128 : 0; }
double kindHighest(ElemKind k) { return k == ElemKind::Int8 ? 127 : 255; }

/// A DequantizeLinear whose scale and zero point are Constants.
struct Dequantized {
  Node *node = nullptr;
  NodeValue q;
  Constant *scale = nullptr, *zero = nullptr;
};

std::optional<Dequantized> asDequantized(NodeValue v) {
  if (!v.node || v.node->getKind() != NodeKind::DequantizeLinear)
    return std::nullopt;
  Dequantized d;
  d.node = v.node;
  d.q = v.node->getOperand(ops::DequantizeLinear::Input);
  d.scale = asConstant(v.node->getOperand(ops::DequantizeLinear::Scale));
  d.zero = asConstant(v.node->getOperand(ops::DequantizeLinear::ZeroPoint));
  if (!d.scale || !d.zero || d.scale->getType().kind != ElemKind::Float32)
    return std::nullopt;
  return d;
}

bool isPerTensor(const Constant *c) { return c->getType().numElements() == 1; }

/// The quantization of a QuantizeLinear's result: one scale and zero point.
struct OutputQuantization {
  float scale;
  int32_t zero;
  ElemKind kind;
  Constant *zeroConstant;
};

std::optional<OutputQuantization> outputQuantization(Node *q) {
  Constant *s = asConstant(q->getOperand(ops::QuantizeLinear::Scale));
  Constant *z = asConstant(q->getOperand(ops::QuantizeLinear::ZeroPoint));
  if (!s || !z || !isPerTensor(s) || !isPerTensor(z) || s->getType().kind != ElemKind::Float32 ||
      !isByteKind(z->getType().kind))
    return std::nullopt;
  float scale = s->getPayload().dataAs<float>()[0];
  if (!(scale > 0) || !std::isfinite(scale))
    return std::nullopt;
  return OutputQuantization{scale, int32_t(z->getPayload().elementAsDouble(0)),
                            z->getType().kind, z};
}

/// QuantizeLinear's value for \p v: round(v / scale) (float32 division, ties to even) + zero,
/// saturated.
double quantizeValue(double v, const OutputQuantization &oq) {
  float ratio = float(v) / oq.scale;
  if (std::isnan(ratio))
    return kindLowest(oq.kind);
  double r = std::nearbyint(double(ratio)) + oq.zero;
  return std::min(std::max(r, kindLowest(oq.kind)), kindHighest(oq.kind));
}

/// The activation between a product and its QuantizeLinear, as the bounds of a clamp (a
/// missing bound is infinite).
struct Activation {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
};

/// Reads a fused activation (FusedConv, FusedMatMul, FullyConnected): none, relu or clip.
std::optional<Activation> fusedActivation(const Node &n) {
  const std::string &name = n.attr<AttrKind::FusedActivation>();
  const auto &args = n.attr<AttrKind::FusedActivationArgs>();
  Activation a;
  if (name.empty())
    return a;
  if (name == "relu") {
    a.lo = 0;
    return a;
  }
  if (name == "clip" && args.size() == 2) {
    a.lo = args[0];
    a.hi = args[1];
    return a;
  }
  return std::nullopt;
}

/// Weights seen through Reshapes that add or drop leading 1s and Transposes, down to a
/// DequantizeLinear of three Constants: the quantized values, scale and zero point rearranged
/// as the operand sees them.
struct Weights {
  Tensor q, scale, zero;
};

std::optional<Weights> constantWeights(NodeValue v) {
  SmallVector<Node *, 4> views;
  while (v.node->getKind() == NodeKind::Reshape || v.node->getKind() == NodeKind::Transpose) {
    views.push_back(v.node);
    v = v.node->getOperand(0);
  }
  std::optional<Dequantized> d = asDequantized(v);
  if (!d)
    return std::nullopt;
  Constant *q = asConstant(d->q);
  if (!q || !isByteKind(q->getType().kind) || d->zero->getType().kind != q->getType().kind)
    return std::nullopt;
  Weights w{q->getPayload().clone(), d->scale->getPayload().clone(),
            d->zero->getPayload().clone()};
  for (auto it = views.rbegin(); it != views.rend(); ++it) {
    Node *view = *it;
    if (view->getKind() == NodeKind::Transpose) {
      auto shuffle = view->attr<AttrKind::Shuffle>();
      w.q = pattern::transposeTensor(w.q, shuffle);
      w.scale = pattern::transposeTensor(w.scale, shuffle);
      w.zero = pattern::transposeTensor(w.zero, shuffle);
      continue;
    }
    // A parameter follows a reshape only when the reshape just adds or drops leading 1s.
    const DimsVec &from = w.q.getType().dims, &to = view->getType().dims;
    auto strip = [](ArrayRef<dim_t> d) {
      while (!d.empty() && d.front() == 1)
        d = d.drop_front();
      return d;
    };
    if (strip(from) != strip(to))
      return std::nullopt;
    auto reshapeParam = [&](Tensor &p) {
      DimsVec dims(p.getType().dims);
      while (dims.size() > to.size() && dims.front() == 1)
        dims.erase(dims.begin());
      while (dims.size() < to.size())
        dims.insert(dims.begin(), 1);
      if (dims.size() != to.size())
        return false;
      p.reshape(dims);
      return true;
    };
    if (!reshapeParam(w.scale) || !reshapeParam(w.zero))
      return std::nullopt;
    w.q.reshape(to);
  }
  // Per-channel weights quantized symmetrically (what onnxruntime's and torch's quantizers
  // write) have one zero point, 0, in every channel: as a per-tensor one the integer kernels
  // take their fast paths (a per-column RHS zero point has none).
  size_t bytes = w.zero.getType().elementSize(), n = w.zero.numElements();
  bool uniform = n > 1;
  for (size_t i = 1; i < n && uniform; ++i)
    uniform = std::equal(w.zero.data(), w.zero.data() + bytes, w.zero.data() + i * bytes);
  if (uniform) {
    Tensor one(Type(w.zero.getType().kind, DimsVec(w.zero.getType().rank(), 1)));
    std::copy(w.zero.data(), w.zero.data() + bytes, one.data());
    w.zero = std::move(one);
  }
  return w;
}

/// Whether parameter \p p (rank of its tensor) varies along \p axis only, if at all.
bool variesAlongOnly(const Tensor &p, unsigned axis) {
  const DimsVec &d = p.getType().dims;
  for (unsigned i = 0; i < d.size(); ++i)
    if (i != axis && d[i] != 1)
      return false;
  return true;
}

/// Element \p c of a per-tensor or per-channel parameter.
double paramAt(const Tensor &p, size_t c) {
  return p.elementAsDouble(p.numElements() == 1 ? 0 : c);
}

/// The bias a product adds per output channel, as float32 values or the int32 values of a
/// DequantizeLinear (with their scale), seen through Broadcasts and Reshapes.
struct Bias {
  std::vector<float> values;     // what the float graph adds
  std::vector<int32_t> quantized; // the DequantizeLinear's int32 values, if it is one
  std::vector<float> scale;       // and its scale
};

std::optional<Bias> constantBias(NodeValue v, size_t channels) {
  while (v.node->getKind() == NodeKind::Broadcast || v.node->getKind() == NodeKind::Reshape)
    v = v.node->getOperand(0);
  Bias b;
  auto fits = [&](const Type &t) {
    return t.numElements() == channels || t.numElements() == 1;
  };
  if (Constant *c = asConstant(v)) {
    if (c->getType().kind != ElemKind::Float32 || !fits(c->getType()))
      return std::nullopt;
    for (size_t i = 0; i < channels; ++i)
      b.values.push_back(float(paramAt(c->getPayload(), i)));
    return b;
  }
  std::optional<Dequantized> d = asDequantized(v);
  if (!d)
    return std::nullopt;
  Constant *q = asConstant(d->q);
  if (!q || q->getType().kind != ElemKind::Int32 || !fits(q->getType()) ||
      !fits(d->scale->getType()) || !fits(d->zero->getType()))
    return std::nullopt;
  for (size_t i = 0; i < channels; ++i) {
    int64_t value = int64_t(paramAt(q->getPayload(), i)) -
                    int64_t(paramAt(d->zero->getPayload(), i));
    float s = float(paramAt(d->scale->getPayload(), i));
    // DequantizeLinear's own arithmetic: the difference in int32, the product in float32.
    b.values.push_back(float(int32_t(value)) * s);
    b.quantized.push_back(int32_t(value));
    b.scale.push_back(s);
  }
  return b;
}

/// The bias rounded to int32 at the accumulator's scale \p accScale (x_scale * w_scale per
/// channel); the DequantizeLinear's own values when it already has that scale. Empty if a
/// value does not fit.
std::optional<std::vector<int32_t>> quantizeBias(const Bias &b, ArrayRef<float> accScale) {
  std::vector<int32_t> out(accScale.size());
  for (size_t c = 0; c < out.size(); ++c) {
    if (!b.quantized.empty() && b.scale[c] == accScale[c]) {
      out[c] = b.quantized[c];
      continue;
    }
    double r = std::nearbyint(double(b.values[c]) / double(accScale[c]));
    if (!(std::fabs(r) < 2147483647.0))
      return std::nullopt;
    out[c] = int32_t(r);
  }
  return out;
}

/// What a product's fold needs from its surroundings.
struct Match {
  Node *quantize;       // the QuantizeLinear at the end
  Node *product;        // Conv, FusedConv, MatMul, FusedMatMul or FullyConnected
  NodeValue biasValue;  // the bias operand (Conv, FullyConnected) or the Add's other operand
  Activation act;
  Dequantized input;
  OutputQuantization out;
};

/// Requantize(acc, multiplier, zero), then the activation's clamp in the quantized domain.
NodeValue finish(Function &F, const Match &m, NodeValue acc, ArrayRef<float> accScale,
                 unsigned channelAxis) {
  Module &M = *F.getParent();
  unsigned rank = acc.getType().rank();
  DimsVec dims(rank, 1);
  bool perChannel = false;
  for (float s : accScale)
    perChannel |= s != accScale[0];
  if (perChannel)
    dims[channelAxis] = accScale.size();
  Tensor multiplier(Type(ElemKind::Float32, dims));
  for (size_t c = 0, e = perChannel ? accScale.size() : 1; c < e; ++c)
    multiplier.dataAs<float>()[c] = accScale[c] / m.out.scale; // float32, onnxruntime's order
  StringRef name = m.product->getName();
  Constant *mult = M.createConstant(std::move(multiplier), name.str() + ".multiplier");
  Tensor zero = m.out.zeroConstant->getPayload().clone();
  zero.reshape(DimsVec(rank, 1));
  Constant *zeroC = M.createConstant(std::move(zero), name.str() + ".output_zero");
  Node *rq = F.createNodeWithTypes(NodeKind::Requantize, name.str() + ".requantize",
                                   {acc, mult->getResult(), zeroC->getResult()},
                                   {m.quantize->getType()});
  NodeValue y = rq->getResult();
  double lo = quantizeValue(m.act.lo, m.out), hi = quantizeValue(m.act.hi, m.out);
  ElemKind k = m.out.kind;
  if (lo <= kindLowest(k) && hi >= kindHighest(k))
    return y;
  Tensor loT(Type(k, {})), hiT(Type(k, {}));
  loT.setElementFromDouble(0, lo);
  hiT.setElementFromDouble(0, hi);
  Constant *loC = M.createConstant(std::move(loT), name.str() + ".clip_lo");
  Constant *hiC = M.createConstant(std::move(hiT), name.str() + ".clip_hi");
  Node *clip = F.createNodeWithTypes(NodeKind::Clip, name.str() + ".clip",
                                     {y, loC->getResult(), hiC->getResult()},
                                     {m.quantize->getType()});
  return clip->getResult();
}

/// The accumulator's scale per output channel: x_scale * w_scale in float32.
std::vector<float> accumulatorScale(const Match &m, const Tensor &wScale, size_t channels) {
  float xs = m.input.scale->getPayload().dataAs<float>()[0];
  std::vector<float> s(channels);
  for (size_t c = 0; c < channels; ++c)
    s[c] = xs * float(paramAt(wScale, c));
  return s;
}

bool validScales(ArrayRef<float> s) {
  for (float v : s)
    if (!(v > 0) || !std::isfinite(v))
      return false;
  return true;
}

/// The input's DequantizeLinear, if it is per tensor on int8 or uint8.
bool readInput(NodeValue v, Match &m) {
  std::optional<Dequantized> d = asDequantized(v);
  if (!d || !isByteKind(d->q.getType().kind) || !isPerTensor(d->scale) || !isPerTensor(d->zero) ||
      d->zero->getType().kind != d->q.getType().kind)
    return false;
  m.input = *d;
  return true;
}

Constant *int32Vector(Module &M, ArrayRef<int32_t> values, DimsVec dims, StringRef name) {
  Tensor t(Type(ElemKind::Int32, dims));
  std::copy(values.begin(), values.end(), t.dataAs<int32_t>());
  return M.createConstant(std::move(t), name);
}

bool foldConv(Function &F, Match &m) {
  Node *conv = m.product;
  if (!readInput(conv->getOperand(ops::Conv::Input), m))
    return false;
  std::optional<Weights> w = constantWeights(conv->getOperand(ops::Conv::Filter));
  if (!w || !variesAlongOnly(w->scale, 0) || !variesAlongOnly(w->zero, 0))
    return false;
  size_t channels = w->q.getType().dims[0];
  std::optional<Bias> bias = constantBias(conv->getOperand(ops::Conv::Bias), channels);
  std::vector<float> accScale = accumulatorScale(m, w->scale, channels);
  if (!bias || !validScales(accScale))
    return false;
  std::optional<std::vector<int32_t>> biasQ = quantizeBias(*bias, accScale);
  if (!biasQ)
    return false;
  Module &M = *F.getParent();
  std::string name = conv->getName().str();
  Constant *filter = M.createConstant(std::move(w->q), name + ".filter_q");
  Constant *filterZero = M.createConstant(std::move(w->zero), name + ".filter_zero");
  Constant *b = int32Vector(M, *biasQ, {dim_t(channels)}, name + ".bias_q");
  AttrList attrs;
  attrs.set<AttrKind::Kernels>(conv->attr<AttrKind::Kernels>())
      .set<AttrKind::Strides>(conv->attr<AttrKind::Strides>())
      .set<AttrKind::Pads>(conv->attr<AttrKind::Pads>())
      .set<AttrKind::Dilations>(conv->attr<AttrKind::Dilations>())
      .set<AttrKind::Group>(conv->attr<AttrKind::Group>());
  Expected<Node *> acc = F.createNode(
      NodeKind::IntegerConv, name + ".acc",
      {m.input.q, filter->getResult(), b->getResult(), m.input.zero->getResult(),
       filterZero->getResult()},
      std::move(attrs));
  if (!acc) {
    consumeError(acc.takeError());
    return false;
  }
  m.quantize->replaceAllUsesOfWith(0, finish(F, m, (*acc)->getResult(), accScale, 1));
  return true;
}

/// MatMul, FusedMatMul and FullyConnected (and a MatMul whose bias an Add adds).
bool foldMatMul(Function &F, Match &m) {
  Node *mm = m.product;
  if (!readInput(mm->getOperand(0), m))
    return false;
  std::optional<Weights> w = constantWeights(mm->getOperand(1));
  unsigned xRank = m.input.q.getType().rank();
  if (!w || xRank < 2)
    return false;
  // IntegerMatMul takes equal ranks; the weights get leading 1s (one matrix for every row).
  unsigned wRank = w->q.getType().rank();
  for (unsigned d = 0; d + 2 < wRank; ++d)
    if (w->q.getType().dims[d] != 1)
      return false;
  if (wRank < 2 || !variesAlongOnly(w->scale, wRank - 1) || !variesAlongOnly(w->zero, wRank - 1))
    return false;
  DimsVec wDims(xRank - 2, 1);
  wDims.push_back(w->q.getType().dims[wRank - 2]);
  wDims.push_back(w->q.getType().dims[wRank - 1]);
  size_t channels = wDims.back();
  auto paramDims = [&](const Tensor &p) {
    DimsVec d(xRank, 1);
    d.back() = p.numElements();
    return d;
  };
  std::vector<float> accScale = accumulatorScale(m, w->scale, channels);
  if (!validScales(accScale))
    return false;
  std::optional<std::vector<int32_t>> biasQ;
  if (m.biasValue) {
    std::optional<Bias> bias = constantBias(m.biasValue, channels);
    if (!bias || !(biasQ = quantizeBias(*bias, accScale)))
      return false;
  }
  Module &M = *F.getParent();
  std::string name = mm->getName().str();
  w->q.reshape(wDims);
  w->zero.reshape(paramDims(w->zero));
  Constant *weights = M.createConstant(std::move(w->q), name + ".weights_q");
  Constant *weightsZero = M.createConstant(std::move(w->zero), name + ".weights_zero");
  Expected<Node *> acc =
      F.createNode(NodeKind::IntegerMatMul, name + ".acc",
                   {m.input.q, weights->getResult(), m.input.zero->getResult(),
                    weightsZero->getResult()});
  if (!acc) {
    consumeError(acc.takeError());
    return false;
  }
  NodeValue sum = (*acc)->getResult();
  if (biasQ) {
    DimsVec bDims(xRank, 1);
    bDims.back() = channels;
    Constant *b = int32Vector(M, *biasQ, bDims, name + ".bias_q");
    AttrList bc;
    const DimsVec &sumDims = sum.getType().dims;
    bc.set<AttrKind::Dims>(std::vector<int64_t>(sumDims.begin(), sumDims.end()));
    Expected<Node *> spread =
        F.createNode(NodeKind::Broadcast, name + ".bias_broadcast", {b->getResult()}, bc);
    Expected<Node *> add =
        spread ? F.createNode(NodeKind::Add, name + ".bias_add", {sum, (*spread)->getResult()})
               : spread.takeError();
    if (!add) {
      consumeError(add.takeError());
      return false;
    }
    sum = (*add)->getResult();
  }
  m.quantize->replaceAllUsesOfWith(0, finish(F, m, sum, accScale, xRank - 1));
  return true;
}

/// Q(act(product)): finds the product and the activation under \p q.
bool foldProduct(Function &F, Node *q) {
  std::optional<OutputQuantization> oq = outputQuantization(q);
  if (!oq)
    return false;
  Match m;
  m.quantize = q;
  m.out = *oq;
  Node *n = q->getOperand(ops::QuantizeLinear::Input).node;
  if (n->getType().kind != ElemKind::Float32 || !onlyUsedBy(n, q))
    return false;
  Node *user = q;
  if (n->getKind() == NodeKind::Relu) {
    m.act.lo = 0;
    user = n;
    n = n->getOperand(0).node;
  } else if (n->getKind() == NodeKind::Clip) {
    Constant *lo = asConstant(n->getOperand(ops::Clip::Min));
    Constant *hi = asConstant(n->getOperand(ops::Clip::Max));
    if (!lo || !hi)
      return false;
    m.act.lo = lo->getPayload().elementAsDouble(0);
    m.act.hi = hi->getPayload().elementAsDouble(0);
    user = n;
    n = n->getOperand(ops::Clip::Input).node;
  }
  if (user != q && !onlyUsedBy(n, user))
    return false;
  if (n->getKind() == NodeKind::Add) {
    // MatMul + bias, in either operand order.
    for (unsigned side = 0; side < 2; ++side) {
      Node *mm = n->getOperand(side).node;
      if (mm->getKind() == NodeKind::MatMul && onlyUsedBy(mm, n)) {
        m.product = mm;
        m.biasValue = n->getOperand(1 - side);
        return foldMatMul(F, m);
      }
    }
    return false;
  }
  switch (n->getKind()) {
  case NodeKind::Conv:
  case NodeKind::FusedConv:
  case NodeKind::MatMul:
  case NodeKind::FusedMatMul:
  case NodeKind::FullyConnected:
    break;
  default:
    return false;
  }
  m.product = n;
  if (n->getKind() == NodeKind::FusedConv || n->getKind() == NodeKind::FusedMatMul ||
      n->getKind() == NodeKind::FullyConnected) {
    if (user != q) // a fused activation and one more: not worth a second clamp
      return false;
    std::optional<Activation> act = fusedActivation(*n);
    if (!act)
      return false;
    m.act = *act;
  }
  if (n->getKind() == NodeKind::Conv || n->getKind() == NodeKind::FusedConv)
    return foldConv(F, m);
  if (n->getKind() == NodeKind::FullyConnected)
    m.biasValue = n->getOperand(ops::FullyConnected::Bias);
  return foldMatMul(F, m);
}

/// Q(DQ(x)) and Q(op(DQ(x))) with equal parameters, op selecting elements only.
/// Whether \p n only selects elements of its one operand: Reshape, Transpose, or a MaxPool whose
/// indices nobody reads (so \p user, its only user, reads the maxima).
bool isSelection(const Node *n, const Node *user) {
  switch (n->getKind()) {
  case NodeKind::Reshape:
  case NodeKind::Transpose:
    return true;
  case NodeKind::MaxPool:
    return onlyUsedBy(n, user);
  default:
    return false;
  }
}

bool foldRoundTrip(Function &F, Node *q) {
  // Q(s1(s2(..(DQ(x))))) for a chain of selections, each used only by the next.
  SmallVector<Node *, 4> chain; // from q down
  Node *n = q->getOperand(ops::QuantizeLinear::Input).node;
  for (Node *user = q; isSelection(n, user) && (user == q || onlyUsedBy(n, user));
       user = n, n = n->getOperand(0).node)
    chain.push_back(n);
  std::optional<Dequantized> d = asDequantized(n->getResult());
  Constant *s = asConstant(q->getOperand(ops::QuantizeLinear::Scale));
  Constant *z = asConstant(q->getOperand(ops::QuantizeLinear::ZeroPoint));
  if (!d || !s || !z || !isPerTensor(s) || !isPerTensor(z) || !isPerTensor(d->scale) ||
      !isPerTensor(d->zero) || d->q.getType().kind != z->getType().kind ||
      s->getPayload().elementAsDouble(0) != d->scale->getPayload().elementAsDouble(0) ||
      z->getPayload().elementAsDouble(0) != d->zero->getPayload().elementAsDouble(0))
    return false;
  // The same selections, bottom up, on the quantized values.
  NodeValue v = d->q;
  SmallVector<Node *, 4> made;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    Expected<Node *> moved = F.createNode((*it)->getKind(), (*it)->getName(), {v},
                                          (*it)->getAttrs());
    if (!moved) {
      consumeError(moved.takeError());
      break;
    }
    made.push_back(*moved);
    v = (*moved)->getResult();
  }
  if (made.size() != chain.size() || v.getType() != q->getType()) {
    while (!made.empty())
      F.eraseNode(made.pop_back_val());
    return false;
  }
  q->replaceAllUsesOfWith(0, v);
  return true;
}

} // namespace

bool runFoldQDQ(Function &F, const PassContext &) {
  return pattern::rewriteEach(F, [&](Node *n) {
    if (n->getKind() != NodeKind::QuantizeLinear || n->getType().kind == ElemKind::Int32)
      return false;
    return foldRoundTrip(F, n) || foldProduct(F, n);
  });
}

} // namespace ember
