// ONNX recurrent ops (RNN, GRU, LSTM) as the RNN/GRU/LSTM node kinds (Nodes/Recurrent.def):
// omitted optional inputs become constants, layout 1 becomes transposes around the node, and the
// activation list is resolved to canonical names with one alpha and beta each.
#include "OpContext.h"

#include "ember/Support/Error.h"

#include "llvm/ADT/StringExtras.h"

#include <climits>

using namespace llvm;

namespace ember {

namespace {

struct ActivationInfo {
  const char *name;
  bool usesAlpha;
  float alpha;
  bool usesBeta;
  float beta;
};

const ActivationInfo kActivations[] = {
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC) {NAME, UA, A, UB, B},
#include "ember/Graph/Nodes/RecurrentActivations.def"
};

/// What distinguishes the three ops to the loader.
struct RecurrentOp {
  NodeKind kind;
  unsigned gates;
  std::vector<const char *> defaultActivations; // per direction
};

const onnx::AttributeProto *findAttribute(OpContext &ctx, StringRef name) {
  for (const auto &a : ctx.proto().attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

/// Sets the Activations, ActivationAlpha and ActivationBeta attributes: names matched
/// case-insensitively, the ONNX operators' defaults where activation_alpha/activation_beta give
/// no value. The spec says only that the values are "consumed in the order of activation
/// functions": onnxruntime gives them to the functions that use them, in order; some exporters
/// write one per function. Both readings are accepted where the count tells them apart.
Error resolveActivations(OpContext &ctx, const RecurrentOp &op, unsigned dirs, AttrList &attrs) {
  std::vector<std::string> names;
  if (const auto *a = findAttribute(ctx, "activations")) {
    if (a->type() != onnx::AttributeProto::STRINGS)
      return ctx.fail("attribute 'activations' must be a list of strings");
    names.assign(a->strings().begin(), a->strings().end());
  } else {
    for (unsigned d = 0; d < dirs; ++d)
      names.insert(names.end(), op.defaultActivations.begin(), op.defaultActivations.end());
  }
  size_t expected = size_t(dirs) * op.defaultActivations.size();
  if (names.size() != expected)
    return ctx.fail("activations lists " + Twine(names.size()) + " functions, expected " +
                    Twine(expected) + " (" + Twine(op.defaultActivations.size()) +
                    " per direction)");
  std::vector<const ActivationInfo *> infos;
  std::string canonical;
  for (const std::string &name : names) {
    const ActivationInfo *info = nullptr;
    for (const ActivationInfo &a : kActivations)
      if (StringRef(name).equals_insensitive(a.name))
        info = &a;
    if (!info)
      return ctx.fail("unsupported activation function '" + name + "'");
    infos.push_back(info);
    canonical += (canonical.empty() ? "" : ",") + std::string(info->name);
  }
  // Per list: the value of each function (its default when it uses none given).
  auto resolve = [&](StringRef attrName, bool ActivationInfo::*uses,
                     float ActivationInfo::*def) -> Expected<std::vector<float>> {
    std::vector<float> given;
    if (const auto *a = findAttribute(ctx, attrName)) {
      if (a->type() != onnx::AttributeProto::FLOATS)
        return ctx.fail("attribute '" + attrName + "' must be a list of floats");
      given.assign(a->floats().begin(), a->floats().end());
    }
    size_t users = 0;
    for (const ActivationInfo *info : infos)
      users += info->*uses;
    bool perFunction = given.size() == infos.size() && given.size() != users;
    if (!perFunction && given.size() > users)
      return ctx.fail(attrName + " has " + Twine(given.size()) + " values, but the activations " +
                      canonical + " use " + Twine(users));
    std::vector<float> values;
    size_t next = 0;
    for (size_t i = 0; i < infos.size(); ++i) {
      float v = 0;
      if (infos[i]->*uses) {
        size_t at = perFunction ? i : next++;
        v = at < given.size() ? given[at] : infos[i]->*def;
      }
      values.push_back(v);
    }
    return values;
  };
  EMBER_ASSIGN_OR_RETURN(std::vector<float> alphas,
                         resolve("activation_alpha", &ActivationInfo::usesAlpha,
                                 &ActivationInfo::alpha));
  EMBER_ASSIGN_OR_RETURN(std::vector<float> betas,
                         resolve("activation_beta", &ActivationInfo::usesBeta,
                                 &ActivationInfo::beta));
  attrs.set<AttrKind::Activations>(canonical)
      .set<AttrKind::ActivationAlpha>(alphas)
      .set<AttrKind::ActivationBeta>(betas);
  return Error::success();
}

/// Optional input \p i, or a zero constant of \p type; \p batchFirst inputs ([batch, dirs,
/// hidden] in layout 1) are transposed to [dirs, batch, hidden].
Expected<NodeValue> optionalInput(OpContext &ctx, unsigned i, const Type &type, bool batchFirst,
                                  StringRef suffix) {
  if (!ctx.hasInput(i)) {
    EMBER_ASSIGN_OR_RETURN(Type t, Type::checkedDims(type.kind, type.dims));
    return ctx.createConstant(Tensor(t), suffix)->getResult();
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(i));
  if (batchFirst)
    return ctx.transpose(v, {1, 0, 2}, suffix);
  return v;
}

/// The sequence_lens operand: the input, or every row running the full \p seq steps.
Expected<NodeValue> sequenceLens(OpContext &ctx, dim_t batch, dim_t seq) {
  if (ctx.hasInput(4))
    return ctx.input(4);
  if (seq > dim_t(INT32_MAX))
    return ctx.fail("sequence length " + Twine(seq) + " does not fit sequence_lens (int32)");
  EMBER_ASSIGN_OR_RETURN(Type t, Type::checkedDims(ElemKind::Int32, {batch}));
  EMBER_ASSIGN_OR_RETURN(Tensor lens, ctx.newTensor(t, "sequence_lens"));
  std::fill(lens.dataAs<int32_t>(), lens.dataAs<int32_t>() + batch, int32_t(seq));
  return ctx.createConstant(std::move(lens), "sequence_lens")->getResult();
}

Error loadRecurrent(OpContext &ctx, const RecurrentOp &op) {
  std::string direction = ctx.getString("direction", "forward");
  unsigned dirs = direction == "bidirectional" ? 2 : 1;
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional")
    return ctx.fail("direction must be forward, reverse or bidirectional, got '" + direction +
                    "'");
  int64_t layout = ctx.opset() >= 14 ? ctx.getInt("layout", 0) : 0;
  if (layout != 0 && layout != 1)
    return ctx.fail("layout must be 0 or 1, got " + Twine(layout));
  bool batchFirst = layout == 1;

  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue w, ctx.input(1));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.input(2));
  const Type &rt = r.getType();
  if (x.getType().rank() != 3 || w.getType().rank() != 3 || rt.rank() != 3)
    return ctx.fail("X, W and R must have rank 3, got " + x.getType().str() + ", " +
                    w.getType().str() + ", " + rt.str());
  if (batchFirst) {
    EMBER_ASSIGN_OR_RETURN(x, ctx.transpose(x, {1, 0, 2}, "seq_first"));
  }
  ElemKind kind = x.getType().kind;
  dim_t seq = x.getType().dims[0], batch = x.getType().dims[1], hidden = rt.dims[2];
  if (ctx.hasAttr("hidden_size") && ctx.getInt("hidden_size", 0) != int64_t(hidden))
    return ctx.fail("hidden_size " + Twine(ctx.getInt("hidden_size", 0)) +
                    " does not match R " + rt.str());

  EMBER_ASSIGN_OR_RETURN(NodeValue b, optionalInput(ctx, 3,
                                                    Type(kind, {dirs, 2 * op.gates * hidden}),
                                                    false, "bias"));
  EMBER_ASSIGN_OR_RETURN(NodeValue lens, sequenceLens(ctx, batch, seq));
  Type state(kind, {dirs, batch, hidden});
  EMBER_ASSIGN_OR_RETURN(NodeValue h0, optionalInput(ctx, 5, state, batchFirst, "initial_h"));
  SmallVector<NodeValue, 8> operands{x, w, r, b, lens, h0};
  bool isLSTM = op.kind == NodeKind::LSTM;
  if (isLSTM) {
    EMBER_ASSIGN_OR_RETURN(NodeValue c0, optionalInput(ctx, 6, state, batchFirst, "initial_c"));
    EMBER_ASSIGN_OR_RETURN(NodeValue p, optionalInput(ctx, 7, Type(kind, {dirs, 3 * hidden}),
                                                      false, "peepholes"));
    operands.append({c0, p});
  }

  AttrList attrs;
  attrs.set<AttrKind::Direction>(direction);
  EMBER_TRY(resolveActivations(ctx, op, dirs, attrs));
  float clip = ctx.getFloat("clip", 0);
  if (ctx.hasAttr("clip") && !(clip > 0))
    return ctx.fail("clip must be positive, got " + std::to_string(clip));
  attrs.set<AttrKind::CellClip>(clip);
  if (op.kind == NodeKind::GRU)
    attrs.set<AttrKind::LinearBeforeReset>(ctx.getInt("linear_before_reset", 0));
  if (isLSTM)
    attrs.set<AttrKind::InputForget>(ctx.getInt("input_forget", 0));

  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(op.kind, operands, std::move(attrs)));
  Node *node = y.node;
  // Y [seq, dirs, batch, hidden] is [batch, seq, dirs, hidden] in layout 1; the states
  // [dirs, batch, hidden] are [batch, dirs, hidden].
  if (batchFirst && ctx.hasOutput(0)) {
    EMBER_ASSIGN_OR_RETURN(y, ctx.transpose(y, {2, 0, 1, 3}, "Y"));
  }
  EMBER_TRY(ctx.setOutput(0, y));
  for (unsigned i = 1; i < (isLSTM ? 3u : 2u); ++i) {
    NodeValue s = node->getResult(i);
    if (batchFirst && ctx.hasOutput(i)) {
      EMBER_ASSIGN_OR_RETURN(s, ctx.transpose(s, {1, 0, 2}, i == 1 ? "Y_h" : "Y_c"));
    }
    EMBER_TRY(ctx.setOutput(i, s));
  }
  return Error::success();
}

Error loadRNN(OpContext &ctx) { return loadRecurrent(ctx, {NodeKind::RNN, 1, {"Tanh"}}); }
Error loadGRU(OpContext &ctx) {
  return loadRecurrent(ctx, {NodeKind::GRU, 3, {"Sigmoid", "Tanh"}});
}
Error loadLSTM(OpContext &ctx) {
  return loadRecurrent(ctx, {NodeKind::LSTM, 4, {"Sigmoid", "Tanh", "Tanh"}});
}

} // namespace

/// Opsets 7 and 14 (which added layout); earlier opsets had other attributes (output_sequence).
void registerRecurrentOps(OpRegistry &r) {
  r.add("RNN", 7, loadRNN);
  r.add("GRU", 7, loadGRU);
  r.add("LSTM", 7, loadLSTM);
}

} // namespace ember
