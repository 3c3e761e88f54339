#include "OpContext.h"

#include "ember/Importer/ModelLoader.h"
#include "ember/Support/Error.h"

#include <algorithm>

using namespace llvm;

namespace ember {
namespace c2 {

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &e : loaders_)
    out.push_back(e.getKey().str());
  std::sort(out.begin(), out.end());
  return out;
}

const OpRegistry &OpRegistry::get() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerFillOps(r);
    registerElementwiseOps(r);
    registerElementwiseMathOps(r);
    registerNNOps(r);
    registerNormalizationOps(r);
    registerDataMovementOps(r);
    registerLayoutOps(r);
    registerReductionOps(r);
    registerQuantizedOps(r);
    registerSelectionOps(r);
    registerPairwiseOps(r);
    return r;
  }();
  return registry;
}

Expected<NodeValue> unaryFunction(OpContext &ctx, NodeValue x, StringRef function,
                                  StringRef suffix) {
  return ctx.create(NodeKind::Unary, {x}, AttrList().set<AttrKind::Function>(function.str()),
                    suffix);
}

Expected<NodeValue> reduceAlong(OpContext &ctx, NodeValue x, StringRef reduction,
                                std::vector<int64_t> axes, StringRef suffix) {
  return ctx.create(NodeKind::Reduce, {x},
                    AttrList()
                        .set<AttrKind::Reduction>(reduction.str())
                        .set<AttrKind::Axes>(std::move(axes)),
                    suffix);
}

std::string caffe2OpLabel(const caffe2::OperatorDef &op) {
  std::string name = !op.name().empty() ? op.name() : op.output_size() ? op.output(0) : "";
  return "operator '" + name + "' (" + op.type() + ")";
}

Expected<ElemKind> elemKindFromCaffe2(int dataType) {
  switch (dataType) {
  case caffe2::TensorProto::FLOAT: return ElemKind::Float32;
  case caffe2::TensorProto::INT32: return ElemKind::Int32;
  case caffe2::TensorProto::BYTE:
  case caffe2::TensorProto::UINT8: return ElemKind::UInt8;
  case caffe2::TensorProto::BOOL: return ElemKind::Bool;
  case caffe2::TensorProto::INT8: return ElemKind::Int8;
  case caffe2::TensorProto::UINT16: return ElemKind::UInt16;
  case caffe2::TensorProto::INT16: return ElemKind::Int16;
  case caffe2::TensorProto::INT64: return ElemKind::Int64;
  case caffe2::TensorProto::FLOAT16: return ElemKind::Float16;
  case caffe2::TensorProto::DOUBLE: return ElemKind::Float64;
  default: break;
  }
  const char *name = caffe2::TensorProto::DataType_IsValid(dataType)
                         ? caffe2::TensorProto::DataType_Name(
                               caffe2::TensorProto::DataType(dataType)).c_str()
                         : "unknown";
  return makeError("Caffe2 data type " + Twine(dataType) + " (" + name + ") is not supported");
}

std::string OpContext::baseName() const {
  if (!op_.name().empty())
    return op_.name();
  if (op_.output_size() && !op_.output(0).empty())
    return op_.output(0);
  return op_.type();
}

Error OpContext::fail(const Twine &why) const { return makeError(why); }

Expected<NodeValue> OpContext::splat(NodeValue like, double value, StringRef suffix) {
  EMBER_ASSIGN_OR_RETURN(NodeValue scalar, createFilled(like.getType().kind, {}, value, suffix));
  return broadcastTo(scalar, like.getType().dims);
}

Expected<NodeValue> OpContext::input(unsigned i) {
  if (int(i) >= op_.input_size())
    return makeError("input " + Twine(i) + " is missing");
  auto it = blobs_.find(op_.input(i));
  if (it == blobs_.end())
    return makeError("input " + Twine(i) + " ('" + op_.input(i) +
                     "') is produced by neither the init_net, an earlier operator, nor an "
                     "external input");
  return it->second;
}

Error OpContext::setOutput(unsigned i, NodeValue v) {
  if (int(i) >= op_.output_size() || op_.output(i).empty())
    return Error::success();
  blobs_[op_.output(i)] = v;
  if (v.getType().kind != ElemKind::UInt8) // an int8 blob rebound to another value
    quant_.erase(op_.output(i));
  return Error::success();
}

Expected<QuantParams> OpContext::inputQuant(unsigned i) const {
  auto it = int(i) < op_.input_size() ? quant_.find(op_.input(i)) : quant_.end();
  if (it == quant_.end())
    return makeError("input " + Twine(i) + " must be an int8 blob (from Int8Quantize, "
                     "Int8GivenTensorFill or another Int8 operator)");
  return it->second;
}

Error OpContext::setQuantOutput(unsigned i, NodeValue v, QuantParams q) {
  if (int(i) < op_.output_size() && !op_.output(i).empty())
    quant_[op_.output(i)] = q;
  return setOutput(i, v);
}

void OpContext::leaveUndefined(unsigned i) {
  if (int(i) >= op_.output_size() || op_.output(i).empty())
    return;
  blobs_.erase(op_.output(i));
  undefined_.push_back(i);
}

const caffe2::Argument *OpContext::findArg(StringRef name) const {
  for (const auto &a : op_.arg())
    if (a.name() == name)
      return &a;
  return nullptr;
}

void OpContext::argError(StringRef name, StringRef expected) {
  argError_ = joinErrors(std::move(argError_),
                         makeError("argument '" + name + "' must be " + expected));
}

int64_t OpContext::getInt(StringRef name, int64_t def) {
  const caffe2::Argument *a = findArg(name);
  if (!a)
    return def;
  if (!a->has_i()) {
    argError(name, "an integer (field i)");
    return def;
  }
  return a->i();
}

float OpContext::getFloat(StringRef name, float def) {
  const caffe2::Argument *a = findArg(name);
  if (!a)
    return def;
  if (a->has_f())
    return a->f();
  // Caffe2 insists on field f; an integer (e.g. "value: 0") means the same, so it is read too.
  if (a->has_i())
    return float(a->i());
  argError(name, "a number (field f)");
  return def;
}

std::string OpContext::getString(StringRef name, StringRef def) {
  const caffe2::Argument *a = findArg(name);
  if (!a)
    return def.str();
  if (!a->has_s()) {
    argError(name, "a string (field s)");
    return def.str();
  }
  return a->s();
}

std::vector<int64_t> OpContext::getInts(StringRef name, std::vector<int64_t> def) {
  const caffe2::Argument *a = findArg(name);
  if (!a)
    return def;
  if (a->floats_size() || a->has_i() || a->has_f() || a->has_s()) {
    argError(name, "a list of integers (field ints)");
    return def;
  }
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> OpContext::getFloats(StringRef name) {
  const caffe2::Argument *a = findArg(name);
  if (!a)
    return {};
  if (a->ints_size() || a->has_i() || a->has_f() || a->has_s()) {
    argError(name, "a list of floats (field floats)");
    return {};
  }
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

} // namespace c2
} // namespace ember
