// ONNX data movement and graph plumbing: Reshape, Flatten, Transpose, Concat, Identity,
// Dropout (inference), Constant.
#include "ONNXTensor.h"
#include "OpContext.h"

#include "ember/Support/Error.h"

using namespace llvm;

namespace ember {

namespace {

/// ONNX Reshape's target: 0 copies the input dim (unless allowzero), -1 takes what is left.
Expected<DimsVec> resolveReshape(OpContext &ctx, const Type &in, ArrayRef<int64_t> shape,
                                 bool allowZero) {
  DimsVec dims;
  int inferAt = -1;
  size_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t s = shape[i];
    if (s == -1) {
      if (inferAt >= 0)
        return ctx.fail("shape " + intsToString(shape) + " has more than one -1");
      inferAt = int(i);
      dims.push_back(1);
      continue;
    }
    if (s == 0 && !allowZero) {
      if (i >= in.rank())
        return ctx.fail("shape " + intsToString(shape) + " copies dim " + Twine(i) + " of " +
                        in.str() + ", which has none");
      s = int64_t(in.dims[i]);
    }
    if (s < 0)
      return ctx.fail("shape " + intsToString(shape) + " has a negative dim");
    dims.push_back(dim_t(s));
    if (!checkedMul(known, dim_t(s), known))
      return ctx.fail("shape " + intsToString(shape) + " overflows");
  }
  size_t total = in.numElements();
  if (inferAt >= 0) {
    if (known == 0 || total % known)
      return ctx.fail("cannot reshape " + in.str() + " to " + intsToString(shape));
    dims[inferAt] = total / known;
  } else if (known != total) {
    return ctx.fail("cannot reshape " + in.str() + " to " + intsToString(shape) +
                    ": element counts differ");
  }
  return dims;
}

Error loadReshape(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  std::vector<int64_t> shape;
  if (ctx.opset() < 5) {
    shape = ctx.getInts("shape");
  } else {
    EMBER_ASSIGN_OR_RETURN(shape, ctx.constantInts(1));
  }
  EMBER_ASSIGN_OR_RETURN(DimsVec dims,
                         resolveReshape(ctx, x.getType(), shape, ctx.getInt("allowzero", 0)));
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::Reshape, {x},
                                    AttrList().set<AttrKind::Dims>(
                                        std::vector<int64_t>(dims.begin(), dims.end()))));
  return ctx.setOutput(0, y);
}

Error loadFlatten(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  const Type &t = x.getType();
  int64_t axis = ctx.getInt("axis", 1);
  // axis may equal the rank (everything in the outer dim).
  if (axis < -int64_t(t.rank()) || axis > int64_t(t.rank()))
    return ctx.fail("axis " + Twine(axis) + " is out of range for " + t.str());
  if (axis < 0)
    axis += t.rank();
  dim_t outer = 1, inner = 1;
  for (unsigned i = 0; i < t.rank(); ++i)
    (int64_t(i) < axis ? outer : inner) *= t.dims[i];
  EMBER_ASSIGN_OR_RETURN(NodeValue y,
                         ctx.create(NodeKind::Reshape, {x},
                                    AttrList().set<AttrKind::Dims>(
                                        {int64_t(outer), int64_t(inner)})));
  return ctx.setOutput(0, y);
}

Error loadTranspose(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  unsigned rank = x.getType().rank();
  std::vector<int64_t> perm;
  for (unsigned i = 0; i < rank; ++i)
    perm.push_back(rank - 1 - i);
  perm = ctx.getInts("perm", perm);
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Transpose, {x},
                                                 AttrList().set<AttrKind::Shuffle>(perm)));
  return ctx.setOutput(0, y);
}

Error loadConcat(OpContext &ctx) {
  SmallVector<NodeValue, 4> inputs;
  for (unsigned i = 0; i < ctx.numInputs(); ++i) {
    EMBER_ASSIGN_OR_RETURN(NodeValue v, ctx.input(i));
    inputs.push_back(v);
  }
  if (inputs.empty())
    return ctx.fail("needs at least one input");
  if (!ctx.hasAttr("axis"))
    return ctx.fail("attribute 'axis' is required");
  EMBER_ASSIGN_OR_RETURN(int64_t axis,
                         normalizeAxis(ctx.getInt("axis", 0), inputs[0].getType().rank()));
  EMBER_ASSIGN_OR_RETURN(NodeValue y, ctx.create(NodeKind::Concat, inputs,
                                                 AttrList().set<AttrKind::Axis>(axis)));
  return ctx.setOutput(0, y);
}

Error loadIdentity(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  return ctx.setOutput(0, x);
}

/// Inference-mode Dropout is the identity; its optional mask is all true.
Error loadDropout(OpContext &ctx) {
  EMBER_ASSIGN_OR_RETURN(NodeValue x, ctx.input(0));
  if (ctx.opset() >= 12 && ctx.hasInput(2)) {
    EMBER_ASSIGN_OR_RETURN(const Tensor *training, ctx.constantInput(2));
    if (training->numElements() != 1 || training->elementAsDouble(0) != 0)
      return ctx.fail("training mode is not supported");
  }
  EMBER_TRY(ctx.setOutput(0, x));
  if (ctx.hasOutput(1)) {
    Tensor mask(Type(ElemKind::Bool, x.getType().dims));
    std::fill(mask.dataAs<bool>(), mask.dataAs<bool>() + mask.numElements(), true);
    EMBER_TRY(ctx.setOutput(1, ctx.createConstant(std::move(mask), "mask")->getResult()));
  }
  return Error::success();
}

Error loadConstant(OpContext &ctx) {
  Tensor t;
  if (const onnx::TensorProto *proto = ctx.getTensorAttr("value")) {
    auto parsed = tensorFromONNX(*proto);
    if (!parsed)
      return parsed.takeError();
    t = std::move(*parsed);
  } else if (ctx.hasAttr("value_float")) {
    t = Tensor::fromValues<float>({}, {ctx.getFloat("value_float", 0)});
  } else if (ctx.hasAttr("value_int")) {
    t = Tensor::fromValues<int64_t>({}, {ctx.getInt("value_int", 0)});
  } else if (ctx.hasAttr("value_ints")) {
    std::vector<int64_t> v = ctx.getInts("value_ints");
    t = Tensor::fromValues<int64_t>({v.size()}, v);
  } else {
    return ctx.fail("needs a 'value', 'value_float', 'value_int' or 'value_ints' attribute "
                    "(sparse and string constants are not supported)");
  }
  return ctx.setOutput(0, ctx.createConstant(std::move(t), "value")->getResult());
}

} // namespace

void registerShapeOps(OpRegistry &r) {
  r.add("Reshape", 1, loadReshape);
  r.add("Flatten", 1, loadFlatten);
  r.add("Transpose", 1, loadTranspose);
  r.add("Concat", 1, loadConcat);
  r.add("Identity", 1, loadIdentity);
  r.add("Dropout", 1, loadDropout);
  r.add("Constant", 1, loadConstant);
}

} // namespace ember
