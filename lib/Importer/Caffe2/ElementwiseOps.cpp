// Caffe2's element-wise operators: activations (relu_op.cc, sigmoid_op.cc, tanh_op.cc,
// clip_op.cc), arithmetic, comparisons and logic with both broadcasting rules (elementwise_ops.h,
// elementwise_ops_utils.cc, elementwise_ops_schema.cc), Sum (utility_ops.h), Max and Min
// (minmax_ops.h), Mean (mean_op.h), Cast (cast_op.cc), HalfToFloat (half_float_ops.cc), the
// identities (Copy, Alias, Dropout in test mode, the device copies and gradient markers) and
// Free (free_op.cc).
#include "OpContext.h"

#include "ember/Support/Error.h"

#include <limits>

using namespace llvm;

namespace ember {
namespace c2 {

namespace {

template <NodeKind K> Error loadUnary(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {x}));
  return ctx.setOutput(0, y);
}

/// Copy, Alias, Identity, the device copies (EnsureCPUOutput, CopyCPUToMKL, CopyMKLToCPU),
/// EnsureDense of a dense tensor, and the gradient markers StopGradient and ScaleGradient
/// (identities in the forward pass): the output is the input.
Error loadIdentity(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  return ctx.setOutput(0, x);
}

/// Dropout (dropout_op.cc): in test mode the output is the input and the mask is not written.
/// Training mode draws random masks, which inference cannot reproduce.
Error loadDropout(OpContext &ctx) {
  if (!ctx.getInt("is_test", 0))
    return ctx.fail("Dropout in training mode (is_test = 0) is random; inference needs "
                    "is_test = 1");
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ctx.leaveUndefined(1);
  return ctx.setOutput(0, x);
}

/// Clip: min(max(X, min), max); `min` and `max` default to the type's limits.
Error loadClip(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  ElemKind kind = x.getType().kind;
  if (!isFloatKind(kind))
    return ctx.fail("Clip takes float inputs, got " + x.getType().str());
  NodeValue bounds[2];
  const char *names[2] = {"min", "max"};
  for (unsigned b = 0; b < 2; ++b) {
    Tensor limit(Type(kind, {}));
    limit.setElementFromDouble(0, ctx.hasArg(names[b])
                                      ? double(ctx.getFloat(names[b], 0))
                                      : (b ? 1 : -1) * std::numeric_limits<double>::infinity());
    bounds[b] = ctx.createConstant(std::move(limit), names[b])->getResult();
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Clip, {x, bounds[0], bounds[1]}));
  return ctx.setOutput(0, y);
}

/// B in A's rank for the legacy `broadcast` rule (ComputeLegacyBroadcastSizes): B's dims, less
/// its leading and trailing 1s, match A's from `axis` (default: B aligned to A's end).
Expected<NodeValue> legacyBroadcast(OpContext &ctx, NodeValue a, NodeValue b) {
  ArrayRef<dim_t> ad = a.getType().dims, bd = b.getType().dims;
  // BinaryElementwiseWithArgsOp takes a one-element B as a scalar before looking at dims.
  if (b.getType().numElements() == 1) {
    EMBER_ASSIGN_OR_RETURN(NodeValue s, ctx.reshape(b, {}));
    return ctx.broadcastTo(s, ad);
  }
  if (bd.size() > ad.size())
    return ctx.fail("with broadcast = 1, B " + b.getType().str() +
                    " must not have more dims than A " + a.getType().str());
  int64_t axis = ctx.getInt("axis", -1);
  if (axis == -1)
    axis = int64_t(ad.size() - bd.size());
  if (axis < 0 || axis > int64_t(ad.size() - bd.size()))
    return ctx.fail("broadcast axis " + Twine(axis) + " must be in [0, " +
                    Twine(ad.size() - bd.size()) + "] for A " + a.getType().str() + " and B " +
                    b.getType().str());
  size_t begin = 0, end = bd.size();
  while (begin < end && bd[begin] == 1)
    ++begin;
  while (end > begin && bd[end - 1] == 1)
    --end;
  DimsVec dims(ad.size(), 1);
  for (size_t i = begin; i < end; ++i) {
    if (ad[size_t(axis) + i] != bd[i])
      return ctx.fail("B " + b.getType().str() + " does not match A " + a.getType().str() +
                      " from axis " + Twine(axis));
    dims[size_t(axis) + i] = bd[i];
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue b2, ctx.reshape(b, dims));
  return ctx.broadcastTo(b2, ad);
}

/// numpy's broadcasting of both operands to a common shape.
Error numpyBroadcast(OpContext &ctx, NodeValue &a, NodeValue &b) {
  ArrayRef<dim_t> ad = a.getType().dims, bd = b.getType().dims;
  size_t rank = std::max(ad.size(), bd.size());
  DimsVec out(rank);
  for (size_t i = 0; i < rank; ++i) {
    dim_t x = i < rank - ad.size() ? 1 : ad[i - (rank - ad.size())];
    dim_t y = i < rank - bd.size() ? 1 : bd[i - (rank - bd.size())];
    if (x != y && x != 1 && y != 1)
      return ctx.fail("shapes " + a.getType().str() + " and " + b.getType().str() +
                      " cannot be broadcast together");
    out[i] = x == 1 ? y : x;
  }
  auto expand = [&](NodeValue v) -> Expected<NodeValue> {
    DimsVec dims(rank - v.getType().rank(), 1);
    dims.append(v.getType().dims.begin(), v.getType().dims.end());
    EMBER_ASSIGN_OR_RETURN(NodeValue r, ctx.reshape(v, dims));
    return ctx.broadcastTo(r, out);
  };
  EMBER_ASSIGN_OR_RETURN(a, expand(a));
  EMBER_ASSIGN_OR_RETURN(b, expand(b));
  return Error::success();
}

} // namespace

Error broadcastOperands(OpContext &ctx, NodeValue &a, NodeValue &b) {
  if (a.getType().kind != b.getType().kind)
    return ctx.fail("operands " + a.getType().str() + " and " + b.getType().str() +
                    " have different element types");
  if (ctx.getInt("broadcast", 0)) {
    EMBER_ASSIGN_OR_RETURN(b, legacyBroadcast(ctx, a, b));
    return Error::success();
  }
  return numpyBroadcast(ctx, a, b);
}

namespace {

/// Add, Sub, Mul, Div, the comparisons (bool results) and the logical operators: `broadcast = 1`
/// selects the legacy rule (B into A), otherwise numpy's.
template <NodeKind K> Error loadBinary(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  NodeValue a = in[0], b = in[1];
  EMBER_TRY(broadcastOperands(ctx, a, b));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(K, {a, b}));
  return ctx.setOutput(0, y);
}

/// NE: not EQ (elementwise_ops.h has no node of its own for it).
Error loadNotEqual(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  NodeValue a = in[0], b = in[1];
  EMBER_TRY(broadcastOperands(ctx, a, b));
  EMBER_ASSIGN_OR_RETURN(NodeValue eq, ctx.create(NodeKind::Equal, {a, b}, {}, "eq"));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Unary, {eq},
                                                 AttrList().set<AttrKind::Function>("not")));
  return ctx.setOutput(0, y);
}

/// And, Or, Xor: registered for bool tensors only (BoolTypes).
template <NodeKind K> Error loadLogical(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(2));
  for (unsigned i = 0; i < 2; ++i)
    if (in[i].getType().kind != ElemKind::Bool)
      return ctx.fail("input " + Twine(i) + " must be bool, got " + in[i].getType().str());
  return loadBinary<K>(ctx);
}

/// Max, Min (minmax_ops.h): inputs of one shape, combined left to right. (MaxOp's check compares
/// input 0 with the output, so a mismatched input would be read out of bounds; ember refuses it.)
template <NodeKind K> Error loadSelect(OpContext &ctx) {
  if (ctx.numInputs() == 0)
    return ctx.fail("needs at least one input");
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(ctx.numInputs()));
  NodeValue y = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].getType() != y.getType())
      return ctx.fail("Input #" + Twine(i) + ", input dimension: " + in[i].getType().str() +
                      " should match output dimension: " + y.getType().str());
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(K, {y, in[i]}, {},
                                         i + 1 == in.size() ? "" : "step" + std::to_string(i)));
  }
  return ctx.setOutput(0, y);
}

/// Mean (mean_op.h): float inputs broadcast together by numpy's rules, added left to right, then
/// scaled by the float 1 / n (a product, as math::Scale computes it, not a division).
Error loadMean(OpContext &ctx) {
  if (ctx.numInputs() == 0)
    return ctx.fail("needs at least one input");
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(ctx.numInputs()));
  if (in[0].getType().kind != ElemKind::Float32)
    return ctx.fail("Mean operator only supports 32-bit float, but input was of type " +
                    in[0].getType().str());
  NodeValue y = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    NodeValue x = in[i];
    EMBER_TRY(numpyBroadcast(ctx, y, x));
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Add, {y, x}, {}, "sum" + std::to_string(i)));
  }
  EMBER_ASSIGN_OR_RETURN(NodeValue scale, ctx.splat(y, double(1.0f / float(in.size())), "scale"));
  EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Mul, {y, scale}));
  return ctx.setOutput(0, y);
}

/// Free (free_op.cc): its outputs are its inputs, one to one in place, and hold nothing after it;
/// a later reader of one is refused by name.
Error loadFree(OpContext &ctx) {
  if (ctx.numInputs() != ctx.numOutputs())
    return ctx.fail("the input and output blobs should be one-to-one inplace");
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    if (ctx.proto().input(int(i)) != ctx.proto().output(int(i)))
      return ctx.fail("the input and output blobs should be one-to-one inplace: input " +
                      Twine(i) + " is '" + ctx.proto().input(int(i)) + "', output " + Twine(i) +
                      " '" + ctx.proto().output(int(i)) + "'");
    ctx.leaveUndefined(i);
  }
  return Error::success();
}

/// Sum: the element-wise sum of inputs of one shape, added left to right.
Error loadSum(OpContext &ctx) {
  if (ctx.numInputs() == 0)
    return ctx.fail("Sum needs at least one input");
  EMBER_ASSIGN_OR_RETURN(auto in, ctx.inputs(ctx.numInputs()));
  NodeValue y = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].getType() != y.getType())
      return ctx.fail("input " + Twine(i) + " " + in[i].getType().str() +
                      " differs from input 0 " + in[0].getType().str());
    EMBER_ASSIGN_OR_RETURN(y, ctx.create(NodeKind::Add, {y, in[i]}, {},
                                         i + 1 == in.size() ? "" : "sum" + std::to_string(i)));
  }
  return ctx.setOutput(0, y);
}

/// Cast: `to` is a DataType number or its name ("FLOAT"); conversions as static_cast.
Error loadCast(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const caffe2::Argument *to = ctx.arg("to");
  if (!to)
    return ctx.fail("argument 'to' is required");
  int dataType = 0;
  if (to->has_i()) {
    dataType = int(to->i());
  } else if (to->has_s()) {
    caffe2::TensorProto::DataType t;
    std::string name = to->s();
    for (char &c : name)
      c = char(toupper(c));
    if (!caffe2::TensorProto::DataType_Parse(name, &t))
      return ctx.fail("argument 'to' names no data type: '" + to->s() + "'");
    dataType = int(t);
  } else {
    return ctx.fail("argument 'to' must be a data type number or name");
  }
  EMBER_ASSIGN_OR_RETURN(ElemKind kind, elemKindFromCaffe2(dataType));
  if (x.getType().kind == kind)
    return ctx.setOutput(0, x);
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::Cast, {x},
                                    AttrList().set<AttrKind::ResultKind>(elemKindName(kind).str())));
  return ctx.setOutput(0, y);
}

/// HalfToFloat (half_float_ops.cc): float16 widened to float, exactly.
Error loadHalfToFloat(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (x.getType().kind != ElemKind::Float16)
    return ctx.fail("takes a float16 tensor, got " + x.getType().str());
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.castTo(x, ElemKind::Float32, ""));
  return ctx.setOutput(0, y);
}

} // namespace

void registerElementwiseOps(OpRegistry &r) {
  r.add("Relu", loadUnary<NodeKind::Relu>);
  r.add("Sigmoid", loadUnary<NodeKind::Sigmoid>);
  r.add("Tanh", loadUnary<NodeKind::Tanh>);
  r.add("Clip", loadClip);
  r.add("Add", loadBinary<NodeKind::Add>);
  r.add("Sub", loadBinary<NodeKind::Sub>);
  r.add("Mul", loadBinary<NodeKind::Mul>);
  r.add("Div", loadBinary<NodeKind::Div>);
  r.add("Sum", loadSum);
  r.add("EQ", loadBinary<NodeKind::Equal>);
  r.add("NE", loadNotEqual);
  r.add("LT", loadBinary<NodeKind::Less>);
  r.add("Less", loadBinary<NodeKind::Less>); // Glow's spelling of LT
  r.add("LE", loadBinary<NodeKind::LessOrEqual>);
  r.add("GT", loadBinary<NodeKind::Greater>);
  r.add("GE", loadBinary<NodeKind::GreaterOrEqual>);
  r.add("And", loadLogical<NodeKind::And>);
  r.add("Or", loadLogical<NodeKind::Or>);
  r.add("Xor", loadLogical<NodeKind::Xor>);
  r.add("Max", loadSelect<NodeKind::Max>);
  r.add("Min", loadSelect<NodeKind::Min>);
  r.add("Mean", loadMean);
  r.add("Free", loadFree);
  r.add("Cast", loadCast);
  r.add("HalfToFloat", loadHalfToFloat);
  r.add("Dropout", loadDropout);
  for (const char *name : {"Copy", "Alias", "Identity", "EnsureCPUOutput", "CopyCPUToMKL",
                           "CopyMKLToCPU", "EnsureDense", "StopGradient", "ScaleGradient"})
    r.add(name, loadIdentity);
}

} // namespace c2
} // namespace ember
