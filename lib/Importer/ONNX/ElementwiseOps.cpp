// ONNX element-wise arithmetic, comparisons, logic, selection, clamping and conversion. The
// one-input functions and activations are in ElementwiseOpsActivations.cpp.
#include "ElementwiseOps.h"
#include "ONNXTensor.h"

#include "ember/Support/Error.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace llvm;

namespace ember {

Expected<SmallVector<NodeValue, 3>> broadcastTogether(OpContext &ctx, ArrayRef<NodeValue> values) {
  DimsVec dims = values[0].getType().dims;
  for (NodeValue v : values.drop_front()) {
    EMBER_ASSIGN_OR_RETURN(dims, broadcastShapes(dims, v.getType().dims));
  }
  SmallVector<NodeValue, 3> out;
  for (NodeValue v : values) {
    EMBER_ASSIGN_OR_RETURN(NodeValue b, ctx.broadcastTo(v, dims));
    out.push_back(b);
  }
  return out;
}

namespace {

/// A binary op's operands brought to one shape. From opset 7 that is numpy broadcasting. Before,
/// shapes must match unless broadcast=1, and then only B broadcasts, to A's shape: B holds one
/// element, or its dims equal A's starting at 'axis' (by default, A's last dims). Dims of 1 in B
/// also expand, as the exporters of that time (PyTorch) expect, though the spec says they don't.
Expected<SmallVector<NodeValue, 3>> broadcastBinary(OpContext &ctx, NodeValue a, NodeValue b) {
  if (ctx.opset() >= 7)
    return broadcastTogether(ctx, {a, b});
  const Type &at = a.getType(), &bt = b.getType();
  if (ctx.getInt("broadcast", 0) == 0) {
    if (at.dims != bt.dims)
      return ctx.fail("operand shapes " + at.str() + " and " + bt.str() +
                      " differ and 'broadcast' is not set (opset < 7)");
    return SmallVector<NodeValue, 3>{a, b};
  }
  DimsVec dims(at.rank(), 1);
  if (bt.numElements() != 1) {
    int64_t axis = ctx.getInt("axis", int64_t(at.rank()) - int64_t(bt.rank()));
    if (axis < 0 || axis + bt.rank() > at.rank())
      return ctx.fail("B " + bt.str() + " does not fit in A " + at.str() + " at axis " +
                      Twine(axis));
    for (unsigned i = 0; i < bt.rank(); ++i) {
      if (bt.dims[i] != at.dims[axis + i] && bt.dims[i] != 1)
        return ctx.fail("B " + bt.str() + " does not match A " + at.str() + " at axis " +
                        Twine(axis));
      dims[axis + i] = bt.dims[i];
    }
  }
  EMBER_ASSIGN_OR_RETURN(b, ctx.reshape(b, dims));
  EMBER_ASSIGN_OR_RETURN(b, ctx.broadcastTo(b, at.dims));
  return SmallVector<NodeValue, 3>{a, b};
}

Error expectSameKinds(OpContext &ctx, ArrayRef<NodeValue> values) {
  for (NodeValue v : values.drop_front())
    if (v.getType().kind != values[0].getType().kind)
      return ctx.fail("operand types differ: " + values[0].getType().str() + " and " +
                      v.getType().str());
  return Error::success();
}

/// Operands broadcast together and \p kind created on them.
Error createBroadcast(OpContext &ctx, NodeKind kind, ArrayRef<NodeValue> operands,
                      AttrList attrs = {}) {
  EMBER_ASSIGN_OR_RETURN(auto broadcast, broadcastTogether(ctx, operands));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.create(kind, broadcast, std::move(attrs)));
  return ctx.setOutput(0, r);
}

/// Binary element-wise op; its operands have one element kind, except Pow's exponent (which
/// may differ from opset 12).
template <NodeKind K> Error loadBinary(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(2));
  if (K != NodeKind::Pow)
    EMBER_TRY(expectSameKinds(ctx, operands));
  EMBER_ASSIGN_OR_RETURN(auto broadcast, broadcastBinary(ctx, operands[0], operands[1]));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.create(K, broadcast));
  return ctx.setOutput(0, r);
}

Error loadMod(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(2));
  EMBER_TRY(expectSameKinds(ctx, operands));
  int64_t fmod = ctx.getInt("fmod", 0);
  if (fmod != 0 && fmod != 1)
    return ctx.fail("fmod must be 0 or 1, got " + Twine(fmod));
  if (fmod == 0 && isFloatKind(operands[0].getType().kind))
    return ctx.fail("floating point Mod needs fmod=1, got fmod=0 for " +
                    operands[0].getType().str());
  return createBroadcast(ctx, NodeKind::Mod, operands, AttrList().set<AttrKind::FMod>(fmod));
}

Error loadBitShift(OpContext &ctx) {
  std::string direction = ctx.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return ctx.fail("direction must be \"LEFT\" or \"RIGHT\", got \"" + direction + "\"");
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(2));
  EMBER_TRY(expectSameKinds(ctx, operands));
  return createBroadcast(ctx, direction == "LEFT" ? NodeKind::ShiftLeft : NodeKind::ShiftRight,
                         operands);
}

/// And, Or, Xor (bool operands) and BitwiseAnd, BitwiseOr, BitwiseXor (integer operands): one
/// node kind each, bitwise on either (a bool is one bit); the ONNX operators differ only in the
/// kinds they accept.
template <NodeKind K, bool Bitwise> Error loadLogic(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(2));
  EMBER_TRY(expectSameKinds(ctx, operands));
  const Type &t = operands[0].getType();
  if (Bitwise && (isFloatKind(t.kind) || isQuantizedKind(t.kind) || t.kind == ElemKind::Bool))
    return ctx.fail("operands must be integers, got " + t.str());
  if (!Bitwise && t.kind != ElemKind::Bool)
    return ctx.fail("operands must be bool, got " + t.str());
  EMBER_ASSIGN_OR_RETURN(auto broadcast, broadcastBinary(ctx, operands[0], operands[1]));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.create(K, broadcast));
  return ctx.setOutput(0, r);
}

/// BitwiseNot: X ^ ~0, the Xor of every element with an all-ones constant of its kind.
Error loadBitwiseNot(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  if (isFloatKind(t.kind) || isQuantizedKind(t.kind) || t.kind == ElemKind::Bool)
    return ctx.fail("input must be an integer, got " + t.str());
  EMBER_ASSIGN_OR_RETURN(Tensor ones, ctx.newTensor(Type(t.kind, {}), "all-ones operand"));
  std::memset(ones.data(), 0xff, ones.sizeInBytes());
  NodeValue c = ctx.createConstant(std::move(ones), "ones")->getResult();
  EMBER_ASSIGN_OR_RETURN(c, ctx.broadcastTo(c, t.dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.create(NodeKind::Xor, {x, c}));
  return ctx.setOutput(0, r);
}

/// Max, Min, Sum (K = Add) and Mean (K = Add, then a division): 1 or more inputs, folded
/// pairwise from the left with numpy broadcasting at each step (before opset 8 the shapes must
/// be equal, a special case).
template <NodeKind K, bool Mean = false> Error loadVariadic(OpContext &ctx) {
  if (ctx.numInputs() == 0)
    return ctx.fail("needs at least one input");
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(ctx.numInputs()));
  EMBER_TRY(expectSameKinds(ctx, operands));
  if (Mean && !isFloatKind(operands[0].getType().kind))
    return ctx.fail("Mean needs floating point inputs, got " + operands[0].getType().str());
  NodeValue acc = operands[0];
  for (size_t i = 1; i < operands.size(); ++i) {
    EMBER_ASSIGN_OR_RETURN(auto pair, broadcastTogether(ctx, {acc, operands[i]}));
    EMBER_ASSIGN_OR_RETURN(acc, ctx.create(K, pair));
  }
  if (Mean && operands.size() > 1) {
    const Type &t = acc.getType();
    Tensor count(Type(t.kind, {}));
    count.setElementFromDouble(0, double(operands.size()));
    NodeValue countValue = ctx.createConstant(std::move(count), "count")->getResult();
    EMBER_ASSIGN_OR_RETURN(NodeValue divisor, ctx.broadcastTo(countValue, t.dims));
    EMBER_ASSIGN_OR_RETURN(acc, ctx.create(NodeKind::Div, {acc, divisor}));
  }
  return ctx.setOutput(0, acc);
}

/// Y = X < 0 ? slope * X : X with the slope broadcast to X (unidirectionally).
Error loadPRelu(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(2));
  EMBER_TRY(expectSameKinds(ctx, operands));
  NodeValue s = operands[1];
  const Type &x = operands[0].getType(), &slope = s.getType();
  // Before opset 7 a slope is one value, one per channel (axis 1), or one per element.
  if (ctx.opset() < 7 && slope.numElements() != 1 && slope.dims != x.dims) {
    if (slope.rank() != 1 || x.rank() < 2 || slope.dims[0] != x.dims[1])
      return ctx.fail("slope " + slope.str() + " (opset < 7) is neither one value, one per " +
                      "channel, nor one per element of " + x.str());
    DimsVec perChannel(x.rank() - 1, 1);
    perChannel[0] = slope.dims[0];
    EMBER_ASSIGN_OR_RETURN(s, ctx.reshape(s, perChannel));
  }
  auto dims = broadcastShapes(x.dims, s.getType().dims);
  if (!dims || *dims != x.dims) {
    if (!dims)
      consumeError(dims.takeError());
    return ctx.fail("slope " + slope.str() + " does not broadcast to the input " + x.str());
  }
  EMBER_ASSIGN_OR_RETURN(s, ctx.broadcastTo(s, x.dims));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::PRelu, {operands[0], s}));
  return ctx.setOutput(0, y);
}

Error loadWhere(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto operands, ctx.inputs(3));
  if (operands[1].getType().kind != operands[2].getType().kind)
    return ctx.fail("X and Y types differ: " + operands[1].getType().str() + " and " +
                    operands[2].getType().str());
  return createBroadcast(ctx, NodeKind::Where, operands);
}

/// A one-element constant of \p kind that bounds nothing: the lowest (or highest) value of an
/// integer kind, -inf (or +inf) for a float kind.
Tensor unboundedLimit(ElemKind kind, bool highest) {
  Tensor t(Type(kind, {}));
  auto store = [&](auto tag) {
    using T = decltype(tag);
    T v = highest ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    std::memcpy(t.data(), &v, sizeof v);
  };
  switch (kind) {
  case ElemKind::Int8: store(int8_t()); break;
  case ElemKind::UInt8: store(uint8_t()); break;
  case ElemKind::Int16: store(int16_t()); break;
  case ElemKind::UInt16: store(uint16_t()); break;
  case ElemKind::Int32: store(int32_t()); break;
  case ElemKind::UInt32: store(uint32_t()); break;
  case ElemKind::Int64: store(int64_t()); break;
  case ElemKind::UInt64: store(uint64_t()); break;
  default: // float kinds; the Clip shape rule refuses the rest
    t.setElementFromDouble(0, highest ? INFINITY : -INFINITY);
  }
  return t;
}

/// Clip: the bounds are attributes before opset 11 and optional one-element inputs from it
/// (integer kinds from opset 12); a missing bound bounds nothing.
Error loadClip(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ElemKind kind = x.getType().kind;
  NodeValue bounds[2];
  const char *names[2] = {"min", "max"};
  for (unsigned b = 0; b < 2; ++b) {
    bool highest = b == 1;
    if (ctx.opset() >= 11 && ctx.hasInput(1 + b)) {
      EMBER_ASSIGN_OR_RETURN(bounds[b], ctx.input(1 + b));
      continue;
    }
    Tensor limit = unboundedLimit(kind, highest);
    if (ctx.opset() < 11 && ctx.hasAttr(names[b])) {
      if (!isFloatKind(kind))
        return ctx.fail("Clip before opset 11 takes floating point inputs, got " +
                        x.getType().str());
      limit.setElementFromDouble(0, ctx.getFloat(names[b], 0.0f));
    }
    bounds[b] = ctx.createConstant(std::move(limit), names[b])->getResult();
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Clip, {x, bounds[0], bounds[1]}));
  return ctx.setOutput(0, y);
}

} // namespace

Error createCast(OpContext &ctx, NodeValue x, ElemKind to, bool saturate) {
  if (x.getType().kind == to)
    return ctx.setOutput(0, x);
  AttrList attrs;
  attrs.set<AttrKind::ResultKind>(elemKindName(to).str());
  // Saturate is optional and 1 when absent (castSaturates): only a 0 is written, so that every
  // other Cast stays as it was (and equal to the same Cast built elsewhere, for CSE).
  if (!saturate)
    attrs.set<AttrKind::Saturate>(0);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Cast, {x}, attrs));
  return ctx.setOutput(0, y);
}

namespace {

/// Cast-19 and CastLike-19's saturate (default 1): whether a value beyond a float8 kind's range
/// gives its largest finite value rather than infinity or NaN. ONNX defines it for float8
/// results only, and ember's conversions ignore it for the others.
bool saturateAttr(OpContext &ctx) { return ctx.opset() < 19 || ctx.getInt("saturate", 1) != 0; }

/// Cast's target is a TensorProto data type number, or its name before opset 6.
Error loadCast(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (!ctx.hasAttr("to"))
    return ctx.fail("attribute 'to' is required");
  int to = 0;
  if (ctx.opset() < 6) {
    std::string name = ctx.getString("to", "");
    onnx::TensorProto::DataType parsed;
    if (!onnx::TensorProto::DataType_Parse(name, &parsed))
      return ctx.fail("'to' names no tensor data type: \"" + name + "\"");
    to = parsed;
  } else {
    to = int(ctx.getInt("to", 0));
  }
  if (to == onnx::TensorProto::STRING)
    return ctx.fail("casting to STRING is not supported: ember has no string tensors");
  auto kind = elemKindFromONNX(to);
  if (!kind)
    return withContext(kind.takeError(), "'to'");
  return createCast(ctx, x, *kind, saturateAttr(ctx));
}

/// CastLike: Cast to the element type of the second input.
Error loadCastLike(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue like, ctx.input(1));
  return createCast(ctx, x, like.getType().kind, saturateAttr(ctx));
}

} // namespace

void registerElementwiseOps(OpRegistry &r) {
  r.add("Add", 1, loadBinary<NodeKind::Add>);
  r.add("Sub", 1, loadBinary<NodeKind::Sub>);
  r.add("Mul", 1, loadBinary<NodeKind::Mul>);
  r.add("Div", 1, loadBinary<NodeKind::Div>);
  r.add("Pow", 1, loadBinary<NodeKind::Pow>);
  r.add("Mod", 10, loadMod);
  r.add("BitShift", 11, loadBitShift);
  r.add("PRelu", 1, loadPRelu);
  r.add("Max", 1, loadVariadic<NodeKind::Max>);
  r.add("Min", 1, loadVariadic<NodeKind::Min>);
  r.add("Sum", 1, loadVariadic<NodeKind::Add>);
  r.add("Mean", 1, loadVariadic<NodeKind::Add, true>);
  r.add("Equal", 1, loadBinary<NodeKind::Equal>);
  r.add("Less", 1, loadBinary<NodeKind::Less>);
  r.add("LessOrEqual", 12, loadBinary<NodeKind::LessOrEqual>);
  r.add("Greater", 1, loadBinary<NodeKind::Greater>);
  r.add("GreaterOrEqual", 12, loadBinary<NodeKind::GreaterOrEqual>);
  r.add("And", 1, loadLogic<NodeKind::And, false>);
  r.add("Or", 1, loadLogic<NodeKind::Or, false>);
  r.add("Xor", 1, loadLogic<NodeKind::Xor, false>);
  r.add("BitwiseAnd", 18, loadLogic<NodeKind::And, true>);
  r.add("BitwiseOr", 18, loadLogic<NodeKind::Or, true>);
  r.add("BitwiseXor", 18, loadLogic<NodeKind::Xor, true>);
  r.add("BitwiseNot", 18, loadBitwiseNot);
  r.add("Where", 9, loadWhere);
  r.add("Clip", 1, loadClip);
  r.add("Cast", 1, loadCast);
  r.add("CastLike", 15, loadCastLike);
  // Version 19's 'saturate' and 24's 'round_mode' say how a value is rounded into a float8
  // kind (24's also float8 E8M0); ember has no float8 kind, and elemKindFromONNX refuses one
  // on either side, so both attributes leave every cast ember makes unchanged.
  for (int64_t version : {19, 24}) {
    r.add("Cast", version, loadCast);
    r.add("CastLike", version, loadCastLike);
  }
  registerElementwiseActivationOps(r);
}

} // namespace ember
