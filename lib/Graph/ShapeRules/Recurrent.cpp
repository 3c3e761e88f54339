// Shape rules: recurrent networks (RNN, GRU, LSTM). Operand layouts are in Nodes/Recurrent.def.
#include "Common.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ember {

using namespace shape;

namespace {

bool isRecurrentActivation(StringRef name) {
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC)                                        \
  if (name == NAME)                                                                                \
    return true;
#include "ember/Graph/Nodes/RecurrentActivations.def"
  return false;
}

/// What distinguishes the three kinds to the shape rule.
struct RecurrentKind {
  unsigned gates;          // weight blocks stacked in W and R
  unsigned activations;    // functions per direction
  bool hasCellState;       // LSTM: InitialC, P and YC
};

Expected<unsigned> numDirections(StringRef direction) {
  if (direction == "forward" || direction == "reverse")
    return 1;
  if (direction == "bidirectional")
    return 2;
  return makeError("direction must be forward, reverse or bidirectional, got '" + direction +
                   "'");
}

Error checkActivations(const AttrList &attrs, size_t expected) {
  SmallVector<StringRef, 6> names;
  StringRef(attrs.get<AttrKind::Activations>()).split(names, ',');
  if (names.size() != expected)
    return makeError("activations '" + attrs.get<AttrKind::Activations>() + "' must name " +
                     Twine(expected) + " functions");
  for (StringRef n : names)
    if (!isRecurrentActivation(n))
      return makeError("unknown activation function '" + n + "'");
  if (attrs.get<AttrKind::ActivationAlpha>().size() != expected ||
      attrs.get<AttrKind::ActivationBeta>().size() != expected)
    return makeError("activation_alpha and activation_beta must have one value per activation (" +
                     Twine(expected) + ")");
  float clip = attrs.get<AttrKind::CellClip>();
  if (!(clip >= 0))
    return makeError("clip must be positive (or 0 for none), got " + std::to_string(clip));
  return Error::success();
}

Error expectDims(const Type &t, ArrayRef<dim_t> dims, ElemKind kind, StringRef what) {
  if (t.kind != kind || ArrayRef<dim_t>(t.dims) != dims)
    return makeError(what + " must be " + Type(kind, dims).str() + ", got " + t.str());
  return Error::success();
}

Expected<TypeList> inferRecurrent(ArrayRef<Type> in, const AttrList &attrs, RecurrentKind rk) {
  // The operands every kind shares come first, in the same order (Nodes/Recurrent.def).
  const Type &x = in[ops::RNN::Input], &w = in[ops::RNN::W], &r = in[ops::RNN::R];
  if (x.kind != ElemKind::Float32 && x.kind != ElemKind::Float64 &&
      x.kind != ElemKind::Float16)
    return makeError("input must be float16, float32 or float64, got " + x.str());
  EMBER_TRY(expectRank(x, 3, "input [seq, batch, input size]"));
  EMBER_TRY(expectRank(w, 3, "W"));
  EMBER_TRY(expectRank(r, 3, "R"));
  EMBER_ASSIGN_OR_RETURN(unsigned dirs, numDirections(attrs.get<AttrKind::Direction>()));
  EMBER_TRY(checkActivations(attrs, size_t(dirs) * rk.activations));
  dim_t seq = x.dims[0], batch = x.dims[1], inputSize = x.dims[2], hidden = r.dims[2];
  dim_t gateRows = rk.gates * hidden; // hidden <= 1 TiB: no overflow
  EMBER_TRY(expectDims(w, {dirs, gateRows, inputSize}, x.kind, "W"));
  EMBER_TRY(expectDims(r, {dirs, gateRows, hidden}, x.kind, "R"));
  EMBER_TRY(expectDims(in[ops::RNN::B], {dirs, 2 * gateRows}, x.kind, "B"));
  EMBER_TRY(expectDims(in[ops::RNN::SequenceLens], {batch}, ElemKind::Int32, "sequence_lens"));
  EMBER_TRY(expectDims(in[ops::RNN::InitialH], {dirs, batch, hidden}, x.kind, "initial_h"));
  if (rk.hasCellState) {
    EMBER_TRY(expectDims(in[ops::LSTM::InitialC], {dirs, batch, hidden}, x.kind, "initial_c"));
    EMBER_TRY(expectDims(in[ops::LSTM::P], {dirs, 3 * hidden}, x.kind, "P"));
  }
  EMBER_ASSIGN_OR_RETURN(Type y, Type::checkedDims(x.kind, {seq, dirs, batch, hidden}));
  Type state(x.kind, {dirs, batch, hidden});
  if (rk.hasCellState)
    return TypeList{y, state, state};
  return TypeList{y, state};
}

} // namespace

static_assert(unsigned(ops::RNN::InitialH) == unsigned(ops::GRU::InitialH) &&
                  unsigned(ops::RNN::InitialH) == unsigned(ops::LSTM::InitialH),
              "the recurrent kinds share their leading operands, read by RNN's indices");

Expected<TypeList> inferTypesRNN(ArrayRef<Type> in, const AttrList &attrs) {
  return inferRecurrent(in, attrs, {1, 1, false});
}

Expected<TypeList> inferTypesGRU(ArrayRef<Type> in, const AttrList &attrs) {
  return inferRecurrent(in, attrs, {3, 2, false});
}

Expected<TypeList> inferTypesLSTM(ArrayRef<Type> in, const AttrList &attrs) {
  return inferRecurrent(in, attrs, {4, 3, true});
}

} // namespace ember
