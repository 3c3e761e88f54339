// quantizeFunction: QuantizeLinear/DequantizeLinear pairs from a profile around every product
// that has an integer kernel (Quantization.h). The pairs say what the int8 model computes;
// fold-qdq (lib/Optimizer/FoldQDQ.cpp) turns them into IntegerConv / IntegerMatMul and
// Requantize, and cancels the pair between two quantized products.
#include "ember/Quantization/Quantization.h"

#include "ember/Base/Dims.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace llvm;

namespace ember {

Expected<QuantizationSchema> parseQuantizationSchema(StringRef name) {
  if (name == "asymmetric")
    return QuantizationSchema::Asymmetric;
  if (name == "symmetric")
    return QuantizationSchema::Symmetric;
  if (name == "symmetric_with_uint8")
    return QuantizationSchema::SymmetricWithUInt8;
  if (name == "symmetric_with_power2_scale")
    return QuantizationSchema::SymmetricWithPower2Scale;
  return makeError("unknown quantization schema '" + name +
                   "' (asymmetric, symmetric, symmetric_with_uint8, "
                   "symmetric_with_power2_scale)");
}

Expected<QuantizationCalibration> parseQuantizationCalibration(StringRef name) {
  if (name.equals_insensitive("none"))
    return QuantizationCalibration::None;
  if (name.equals_insensitive("KL"))
    return QuantizationCalibration::KL;
  return makeError("unknown quantization calibration '" + name + "' (none, KL)");
}

Error checkQuantizationPrecision(StringRef precision, StringRef biasPrecision) {
  if (precision.equals_insensitive("Int16"))
    return makeError("-quantization-precision=" + precision +
                     ": not supported: the integer kernels (IntegerConv, IntegerMatMul) take "
                     "int8 and uint8 operands only; use Int8");
  if (!precision.equals_insensitive("Int8"))
    return makeError("-quantization-precision=" + precision + ": unknown (Int8, Int16)");
  if (biasPrecision.equals_insensitive("Int8"))
    return makeError("-quantization-precision-bias=" + biasPrecision +
                     ": not supported: the integer kernels add an int32 bias (at the scale "
                     "input_scale * weight_scale) to their int32 sums, and have no form for an "
                     "int8 one; use Int32");
  if (!biasPrecision.equals_insensitive("Int32"))
    return makeError("-quantization-precision-bias=" + biasPrecision + ": unknown (Int8, Int32)");
  return Error::success();
}

namespace {

/// One tensor's quantization: real = (q - zero) * scale.
struct Params {
  float scale;
  int32_t zero;
  ElemKind kind;
};

Params symmetricInt8(float m) {
  return {m > 0 ? m / 127.0f : 1.0f, 0, ElemKind::Int8};
}

/// The activation parameters for the range [lo, hi] under \p schema.
Params chooseParams(float lo, float hi, QuantizationSchema schema) {
  float m = std::max(std::fabs(lo), std::fabs(hi));
  switch (schema) {
  case QuantizationSchema::Asymmetric: {
    // The range must hold 0 exactly (padding and ReLU produce it).
    lo = std::min(lo, 0.0f);
    hi = std::max(hi, 0.0f);
    if (!(hi > lo))
      return {1.0f, 0, ElemKind::UInt8};
    float scale = (hi - lo) / 255.0f;
    double zero = std::nearbyint(-double(lo) / double(scale));
    return {scale, int32_t(std::min(255.0, std::max(0.0, zero))), ElemKind::UInt8};
  }
  case QuantizationSchema::Symmetric:
    return symmetricInt8(m);
  case QuantizationSchema::SymmetricWithUInt8:
    if (lo >= 0)
      return {hi > 0 ? hi / 255.0f : 1.0f, 0, ElemKind::UInt8};
    return symmetricInt8(m);
  case QuantizationSchema::SymmetricWithPower2Scale: {
    Params p = symmetricInt8(m);
    p.scale = std::exp2(std::ceil(std::log2(p.scale)));
    return p;
  }
  }
  return symmetricInt8(m);
}

Constant *scalarParam(Module &M, double value, ElemKind kind, unsigned rank, StringRef name) {
  Tensor t(Type(kind, DimsVec(rank, 1)));
  t.setElementFromDouble(0, value);
  return M.createConstant(std::move(t), name);
}

/// DequantizeLinear(QuantizeLinear(v)) with \p p: what the int8 model sees of \p v.
NodeValue fakeQuantize(Function &F, NodeValue v, const Params &p, StringRef name) {
  Module &M = *F.getParent();
  unsigned rank = v.getType().rank();
  Constant *s = scalarParam(M, p.scale, ElemKind::Float32, rank, (name + ".scale").str());
  Constant *z = scalarParam(M, p.zero, p.kind, rank, (name + ".zero").str());
  // QuantizeLinear's result has the zero point's kind.
  Node *q = F.createNodeWithTypes(NodeKind::QuantizeLinear, (name + ".quantize").str(),
                                  {v, s->getResult(), z->getResult()},
                                  {Type(p.kind, v.getType().dims)});
  Node *dq = F.createNodeWithTypes(NodeKind::DequantizeLinear, (name + ".dequantize").str(),
                                   {q->getResult(), s->getResult(), z->getResult()},
                                   {v.getType()});
  return dq->getResult();
}

/// A constant weight tensor as int8 (symmetric, zero point 0) behind a DequantizeLinear, with
/// one scale per slice along \p axis (per channel) or one for all (\p axis < 0).
NodeValue quantizeWeights(Function &F, const Constant &w, int axis, StringRef name) {
  Module &M = *F.getParent();
  const Type &t = w.getType();
  const float *src = w.getPayload().dataAs<float>();
  size_t n = t.numElements();
  size_t channels = axis < 0 ? 1 : t.dims[axis];
  // Elements of one channel repeat every `inner` elements, `channels` blocks apart.
  size_t inner = dimsProduct(t.dims, axis < 0 ? t.rank() : size_t(axis) + 1, t.rank());
  auto channelOf = [&](size_t i) { return axis < 0 ? 0 : (i / inner) % channels; };
  std::vector<float> maxAbs(channels, 0.0f);
  for (size_t i = 0; i < n; ++i)
    maxAbs[channelOf(i)] = std::max(maxAbs[channelOf(i)], std::fabs(src[i]));
  DimsVec pdims(t.rank(), 1);
  if (axis >= 0)
    pdims[axis] = channels;
  Tensor scale(Type(ElemKind::Float32, pdims)), zero(Type(ElemKind::Int8, pdims)),
      q(Type(ElemKind::Int8, t.dims));
  for (size_t c = 0; c < channels; ++c)
    scale.dataAs<float>()[c] = symmetricInt8(maxAbs[c]).scale;
  int8_t *dst = q.dataAs<int8_t>();
  for (size_t i = 0; i < n; ++i) {
    double r = std::nearbyint(double(src[i]) / double(scale.dataAs<float>()[channelOf(i)]));
    dst[i] = int8_t(std::min(127.0, std::max(-127.0, r)));
  }
  Constant *qc = M.createConstant(std::move(q), (name + ".q").str());
  Constant *sc = M.createConstant(std::move(scale), (name + ".scale").str());
  Constant *zc = M.createConstant(std::move(zero), (name + ".zero").str());
  Node *dq = F.createNodeWithTypes(NodeKind::DequantizeLinear, (name + ".dequantize").str(),
                                   {qc->getResult(), sc->getResult(), zc->getResult()}, {t});
  return dq->getResult();
}

const Constant *asFloatConstant(NodeValue v) {
  return v.node->getKind() == NodeKind::Constant && v.getType().kind == ElemKind::Float32
             ? static_cast<const Constant *>(v.node)
             : nullptr;
}

/// Why \p n cannot be quantized, or "" if it can: its kind, weights and fused activation.
/// \p weightsAxis is set to the weights' output-channel axis.
std::string unsupportedReason(const Node &n, unsigned &weightOperand, int &weightsAxis) {
  if (n.getType().kind != ElemKind::Float32)
    return "not float32";
  switch (n.getKind()) {
  case NodeKind::Conv:
  case NodeKind::FusedConv:
    weightOperand = ops::Conv::Filter;
    weightsAxis = 0;
    if (!asFloatConstant(n.getOperand(ops::Conv::Bias)))
      return "its bias is not a constant";
    break;
  case NodeKind::FullyConnected:
    weightOperand = ops::FullyConnected::Weights;
    weightsAxis = 1;
    if (!asFloatConstant(n.getOperand(ops::FullyConnected::Bias)))
      return "its bias is not a constant";
    break;
  case NodeKind::MatMul:
  case NodeKind::FusedMatMul:
    weightOperand = 1;
    weightsAxis = int(n.getOperand(1).getType().rank()) - 1;
    for (int d = 0; d + 2 <= weightsAxis; ++d)
      if (n.getOperand(1).getType().dims[d] != 1)
        return "its weights are batched";
    break;
  default:
    return "no integer kernel";
  }
  if (!asFloatConstant(n.getOperand(weightOperand)))
    return "its weights are not a constant";
  if (n.getKind() == NodeKind::FusedConv || n.getKind() == NodeKind::FusedMatMul ||
      n.getKind() == NodeKind::FullyConnected) {
    const std::string &act = n.attr<AttrKind::FusedActivation>();
    if (!act.empty() && act != "relu" && act != "clip")
      return "its fused activation " + act + " has no integer form";
  }
  return "";
}

bool isProduct(NodeKind k) {
  return k == NodeKind::Conv || k == NodeKind::FusedConv || k == NodeKind::MatMul ||
         k == NodeKind::FusedMatMul || k == NodeKind::FullyConnected;
}

/// Whether \p product's result (its only one) reaches a graph output (a Save) with no other
/// product on the way: the scores a user compares (logits, a class map before its pooling).
bool reachesOutputDirectly(const Node &product) {
  std::vector<const Node *> work{&product};
  DenseSet<const Node *> seen{&product};
  while (!work.empty()) {
    const Node *n = work.back();
    work.pop_back();
    for (const NodeUse &use : n->getUsers()) {
      NodeKind k = use.user->getKind();
      if (k == NodeKind::Save)
        return true;
      if (!isProduct(k) && seen.insert(use.user).second)
        work.push_back(use.user);
    }
  }
  return false;
}

} // namespace

Expected<QuantizationReport> quantizeFunction(Function &F, const Profile &profile,
                                              const QuantizationOptions &opts) {
  std::map<std::pair<const Node *, unsigned>, std::string> keyOf;
  unsigned found = 0;
  for (auto &[v, key] : profileKeys(F)) {
    found += profile.find(key) != nullptr;
    keyOf[{v.node, v.resNo}] = key;
  }
  if (!found && !keyOf.empty())
    return makeError("the profile names none of this model's values: it was recorded for "
                     "another model, or with other compile options");

  QuantizationReport report;
  std::map<std::string, unsigned> quantized, kept;
  auto rangeOf = [&](NodeValue v, std::string &why) -> const TensorProfile * {
    auto it = keyOf.find({v.node, v.resNo});
    const TensorProfile *p = it == keyOf.end() ? nullptr : profile.find(it->second);
    if (!p) {
      why = "the profile has no range for '" +
            (it == keyOf.end() ? v.node->getName().str() : it->second) + "'";
      return nullptr;
    }
    if (!std::isfinite(p->min) || !std::isfinite(p->max)) {
      why = "the range of '" + it->second + "' is not finite";
      return nullptr;
    }
    return p;
  };

  // The 8-bit range holds 0 (a zero point within the kind): a value whose range lies far from
  // 0 would spend most steps on values it never takes. The gates of squeeze-and-excitation
  // blocks are such values (a channel average, a sigmoid, each within a few percent of its mean),
  // in small products that cost little in float.
  auto farFromZero = [&](NodeValue v, const TensorProfile &p) -> std::string {
    float m = std::max(std::fabs(p.min), std::fabs(p.max));
    if (p.max - p.min >= 0.5f * m)
      return "";
    return "the values of '" + keyOf[{v.node, v.resNo}] + "' (" + std::to_string(p.min) +
           " to " + std::to_string(p.max) +
           ") lie far from 0, which its 8 bits must hold: they would get under half the steps";
  };

  // Calibration clips the tails of a value's range; not of what the graph outputs through
  // no other product, where the largest values are the answer (the top class's score).
  auto activationParams = [&](const TensorProfile &p, bool output) {
    auto [lo, hi] = calibratedRange(
        p, opts.schema, output ? QuantizationCalibration::None : opts.calibration);
    return chooseParams(lo, hi, opts.schema);
  };

  // Selections (Reshape, Transpose, MaxPool) keep the quantization of what they select from:
  // the input of a product read through them from a quantized product takes that product's
  // output parameters, so that fold-qdq moves the selections to the int8 values and cancels
  // the pair between the two products (FoldQDQ.cpp).
  std::map<std::pair<const Node *, unsigned>, Params> outputParams;
  auto inputParams = [&](NodeValue v, const TensorProfile &own) {
    for (NodeValue u = v;; u = u.node->getOperand(0)) {
      auto it = outputParams.find({u.node, u.resNo});
      if (it != outputParams.end())
        return it->second;
      NodeKind k = u.node->getKind();
      if (u.resNo != 0 ||
          (k != NodeKind::Reshape && k != NodeKind::Transpose && k != NodeKind::MaxPool))
        break;
    }
    return activationParams(own, false);
  };

  // The products as the profile saw them, with their original input values: the rewrite
  // changes the operands of the products after a quantized one.
  std::vector<std::pair<Node *, NodeValue>> products;
  for (Node *n : F.topologicalOrder())
    if (isProduct(n->getKind()))
      products.push_back({n, n->getOperand(0)});

  for (auto &[n, originalInput] : products) {
    std::string kind = n->getKindName().str();
    unsigned weightOperand = 0;
    int axis = 0;
    std::string why = unsupportedReason(*n, weightOperand, axis);
    if (why.empty() && llvm::is_contained(opts.keepFloatKinds, kind))
      why = "-keep-original-precision-for-nodes";
    const TensorProfile *in = nullptr, *out = nullptr;
    if (why.empty() && (in = rangeOf(originalInput, why)))
      out = rangeOf(n->getResult(), why);
    if (why.empty())
      why = farFromZero(originalInput, *in);
    if (why.empty())
      why = farFromZero(n->getResult(), *out);
    if (!why.empty() || !in || !out) {
      ++kept[kind + ": " + why];
      ++report.keptFloat;
      continue;
    }
    std::string name = n->getName().str();
    SmallVector<NodeValue, 3> operands(n->getOperands().begin(), n->getOperands().end());
    operands[0] = fakeQuantize(F, operands[0], inputParams(originalInput, *in), name + ".input");
    operands[weightOperand] =
        quantizeWeights(F, *asFloatConstant(operands[weightOperand]),
                        opts.channelwise ? axis : -1, name + ".weights");
    Node *replacement =
        F.createNodeWithTypes(n->getKind(), name, operands, n->getResultTypes(), n->getAttrs());
    Params outParams = activationParams(*out, reachesOutputDirectly(*n));
    outputParams[{n, 0}] = outParams;
    NodeValue result = fakeQuantize(F, replacement->getResult(), outParams, name + ".output");
    n->replaceAllUsesOfWith(0, result);
    ++quantized[kind];
    ++report.quantized;
  }
  for (auto &[kind, count] : quantized)
    report.lines.push_back("quantized " + std::to_string(count) + " " + kind);
  for (auto &[kindAndWhy, count] : kept)
    report.lines.push_back("kept in float32: " + std::to_string(count) + " " + kindAndWhy);
  return report;
}

} // namespace ember
