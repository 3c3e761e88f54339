#include "ONNXTensor.h"

#include "ember/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <vector>

using namespace llvm;

namespace ember {

namespace {
struct DataTypeEntry {
  int onnx;
  const char *name;
  bool supported;
  ElemKind kind;
};
const DataTypeEntry kDataTypes[] = {
    {onnx::TensorProto::FLOAT, "FLOAT", true, ElemKind::Float32},
    {onnx::TensorProto::UINT8, "UINT8", true, ElemKind::UInt8},
    {onnx::TensorProto::INT8, "INT8", true, ElemKind::Int8},
    {onnx::TensorProto::UINT16, "UINT16", true, ElemKind::UInt16},
    {onnx::TensorProto::INT16, "INT16", true, ElemKind::Int16},
    {onnx::TensorProto::INT32, "INT32", true, ElemKind::Int32},
    {onnx::TensorProto::INT64, "INT64", true, ElemKind::Int64},
    {onnx::TensorProto::STRING, "STRING", false, ElemKind::Float32},
    {onnx::TensorProto::BOOL, "BOOL", true, ElemKind::Bool},
    {onnx::TensorProto::FLOAT16, "FLOAT16", true, ElemKind::Float16},
    {onnx::TensorProto::DOUBLE, "DOUBLE", true, ElemKind::Float64},
    {onnx::TensorProto::UINT32, "UINT32", true, ElemKind::UInt32},
    {onnx::TensorProto::UINT64, "UINT64", true, ElemKind::UInt64},
    {onnx::TensorProto::COMPLEX64, "COMPLEX64", false, ElemKind::Float32},
    {onnx::TensorProto::COMPLEX128, "COMPLEX128", false, ElemKind::Float32},
    {onnx::TensorProto::BFLOAT16, "BFLOAT16", true, ElemKind::BFloat16},
    // The kinds of ONNX 1.14 and later, which the linked onnx (1.12) does not name, by number.
    // The narrow kinds (ElemKinds.def); INT4, UINT4 and FLOAT4E2M1 are packed two per byte in
    // files (packedNibbles), one per byte in ember.
    {17, "FLOAT8E4M3FN", true, ElemKind::Float8E4M3FN},
    {18, "FLOAT8E4M3FNUZ", true, ElemKind::Float8E4M3FNUZ},
    {19, "FLOAT8E5M2", true, ElemKind::Float8E5M2},
    {20, "FLOAT8E5M2FNUZ", true, ElemKind::Float8E5M2FNUZ},
    {21, "UINT4", true, ElemKind::UInt4},
    {22, "INT4", true, ElemKind::Int4},
    {23, "FLOAT4E2M1", true, ElemKind::Float4E2M1},
    // Known, so that a model using them is refused by name, but no ember kind.
    {24, "FLOAT8E8M0", false, ElemKind::Float32},
    {25, "UINT2", false, ElemKind::Float32},
    {26, "INT2", false, ElemKind::Float32},
    {27, "FLOAT6E2M3", false, ElemKind::Float32},
    {28, "FLOAT6E3M2", false, ElemKind::Float32},
};

const DataTypeEntry *findDataType(int t) {
  for (const DataTypeEntry &e : kDataTypes)
    if (e.onnx == t)
      return &e;
  return nullptr;
}

/// Whether a TensorProto packs \p k two elements per byte, the first in the low nibble (ONNX's
/// INT4, UINT4 and FLOAT4E2M1, in raw_data and in int32_data alike: one byte per int32).
bool packedNibbles(ElemKind k) {
  return k == ElemKind::Int4 || k == ElemKind::UInt4 || k == ElemKind::Float4E2M1;
}

/// Bytes of \p n elements of kind \p k in a TensorProto.
size_t protoBytes(ElemKind k, size_t n) { return packedNibbles(k) ? (n + 1) / 2 : n * elemSize(k); }

/// Element \p i of packed bytes \p packed as ember stores it: int4 sign-extended, the others
/// as their 4 bits.
uint8_t unpackNibble(ElemKind k, const uint8_t *packed, size_t i) {
  uint8_t v = i % 2 ? packed[i / 2] >> 4 : packed[i / 2] & 0xF;
  return k == ElemKind::Int4 && (v & 0x8) ? uint8_t(v | 0xF0) : v;
}

/// Copies a typed repeated field into \p t, narrowing each value to the storage type.
template <typename Storage, typename Field> void copyField(const Field &field, Tensor &t) {
  Storage *dst = t.dataAs<Storage>();
  for (int i = 0; i < field.size(); ++i)
    dst[i] = static_cast<Storage>(field.Get(i));
}
} // namespace

StringRef onnxDataTypeName(int dataType) {
  const DataTypeEntry *e = findDataType(dataType);
  return e ? e->name : "UNDEFINED";
}

Expected<ElemKind> elemKindFromONNX(int dataType) {
  const DataTypeEntry *e = findDataType(dataType);
  if (!e)
    return makeError("unknown tensor data type " + Twine(dataType));
  if (!e->supported)
    return makeError("tensor data type " + Twine(e->name) + " is not supported");
  return e->kind;
}

Expected<Tensor> tensorFromONNX(const onnx::TensorProto &proto) {
  std::string what = "tensor '" + proto.name() + "'";
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return makeError(what + ": external data is not supported");
  if (proto.has_segment())
    return makeError(what + ": segmented tensors are not supported");
  auto kind = elemKindFromONNX(proto.data_type());
  if (!kind)
    return withContext(kind.takeError(), what);
  SmallVector<int64_t, 6> dims(proto.dims().begin(), proto.dims().end());
  auto ty = Type::checked(*kind, dims);
  if (!ty)
    return withContext(ty.takeError(), what);
  size_t n = ty->numElements();
  // Allocated only once the data is known to be there: the shape alone is a claim, and a
  // crafted file can claim gigabytes in a few bytes.
  Tensor t;

  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    size_t bytes = protoBytes(*kind, n);
    if (raw.size() != bytes)
      return makeError(what + ": raw_data has " + Twine(raw.size()) + " bytes, shape " +
                       dimsToString(ty->dims) + " of " + elemKindName(*kind) + " needs " +
                       Twine(bytes));
    t = Tensor(*ty);
    if (packedNibbles(*kind)) {
      for (size_t i = 0; i < n; ++i)
        t.dataAs<uint8_t>()[i] = unpackNibble(*kind, reinterpret_cast<const uint8_t *>(raw.data()), i);
      return t;
    }
    if (n)
      std::memcpy(t.data(), raw.data(), raw.size());
    if (*kind == ElemKind::Bool)
      for (size_t i = 0; i < n; ++i)
        t.dataAs<uint8_t>()[i] = t.dataAs<uint8_t>()[i] != 0;
    return t;
  }

  // Typed fields: which one holds the data depends on the type (onnx.proto's comments).
  auto count = [&](int got) -> Error {
    if (size_t(got) != n)
      return makeError(what + ": has " + Twine(got) + " values, shape " + dimsToString(ty->dims) +
                       " needs " + Twine(n));
    t = Tensor(*ty);
    return Error::success();
  };
  switch (*kind) {
  case ElemKind::Float32:
    EMBER_TRY(count(proto.float_data_size()));
    copyField<float>(proto.float_data(), t);
    break;
  case ElemKind::Float64:
    EMBER_TRY(count(proto.double_data_size()));
    copyField<double>(proto.double_data(), t);
    break;
  case ElemKind::Int64:
    EMBER_TRY(count(proto.int64_data_size()));
    copyField<int64_t>(proto.int64_data(), t);
    break;
  case ElemKind::UInt32:
    EMBER_TRY(count(proto.uint64_data_size()));
    copyField<uint32_t>(proto.uint64_data(), t);
    break;
  case ElemKind::UInt64:
    EMBER_TRY(count(proto.uint64_data_size()));
    copyField<uint64_t>(proto.uint64_data(), t);
    break;
  case ElemKind::Int32:
    EMBER_TRY(count(proto.int32_data_size()));
    copyField<int32_t>(proto.int32_data(), t);
    break;
  case ElemKind::Int16:
    EMBER_TRY(count(proto.int32_data_size()));
    copyField<int16_t>(proto.int32_data(), t);
    break;
  case ElemKind::UInt16:
  case ElemKind::Float16:
  case ElemKind::BFloat16: // the raw 16 bits sit in int32_data
    EMBER_TRY(count(proto.int32_data_size()));
    copyField<uint16_t>(proto.int32_data(), t);
    break;
  case ElemKind::Int8:
    EMBER_TRY(count(proto.int32_data_size()));
    copyField<int8_t>(proto.int32_data(), t);
    break;
  case ElemKind::UInt8:
    EMBER_TRY(count(proto.int32_data_size()));
    copyField<uint8_t>(proto.int32_data(), t);
    break;
  case ElemKind::Bool:
    EMBER_TRY(count(proto.int32_data_size()));
    for (size_t i = 0; i < n; ++i)
      t.dataAs<bool>()[i] = proto.int32_data(int(i)) != 0;
    break;
  case ElemKind::Float8E4M3FN:
  case ElemKind::Float8E4M3FNUZ:
  case ElemKind::Float8E5M2:
  case ElemKind::Float8E5M2FNUZ: // the bits, one element per int32
    EMBER_TRY(count(proto.int32_data_size()));
    copyField<uint8_t>(proto.int32_data(), t);
    break;
  case ElemKind::Int4:
  case ElemKind::UInt4:
  case ElemKind::Float4E2M1: { // one packed byte (two elements) per int32
    size_t bytes = protoBytes(*kind, n);
    if (size_t(proto.int32_data_size()) != bytes)
      return makeError(what + ": has " + Twine(proto.int32_data_size()) + " int32_data values, " +
                       "shape " + dimsToString(ty->dims) + " of " + elemKindName(*kind) +
                       " needs " + Twine(bytes) + " (two elements per value)");
    std::vector<uint8_t> packed(bytes);
    for (size_t i = 0; i < bytes; ++i)
      packed[i] = uint8_t(proto.int32_data(int(i)));
    t = Tensor(*ty);
    for (size_t i = 0; i < n; ++i)
      t.dataAs<uint8_t>()[i] = unpackNibble(*kind, packed.data(), i);
    break;
  }
  default:
    return makeError(what + ": cannot read " + elemKindName(*kind));
  }
  return t;
}

Expected<Tensor> readONNXTensorFile(StringRef path, std::string *name) {
  if (sys::fs::is_directory(path))
    return makeError(path + ": is a directory");
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return makeError(path + ": " + buf.getError().message());
  onnx::TensorProto proto;
  StringRef bytes = (*buf)->getBuffer();
  if (bytes.size() > size_t(INT32_MAX) || !proto.ParseFromArray(bytes.data(), int(bytes.size())))
    return makeError(path + ": not a serialized ONNX TensorProto");
  if (name)
    *name = proto.name();
  auto t = tensorFromONNX(proto);
  if (!t)
    return withContext(t.takeError(), path);
  return t;
}

} // namespace ember

#include "ember/Base/Npy.h"
#include "ember/Importer/TensorFiles.h"

#include <onnx/onnx-data_pb.h>

namespace ember {

llvm::Expected<Tensor> readTensorFile(llvm::StringRef path, std::string *name) {
  if (path.ends_with(".npy"))
    return readNpyFile(path);
  if (path.ends_with(".pb"))
    return readONNXTensorFile(path, name);
  return makeError(path + ": unknown tensor file type (expected .npy or .pb)");
}

namespace {

/// \p t as a TensorProto named \p name, its data as raw_data: lossless for every element kind
/// (bfloat16 as BFLOAT16; quantized kinds as their storage, INT8 or UINT8, since a TensorProto
/// holds no scale; int4, uint4 and float4e2m1 packed two per byte, as ONNX lays them out).
llvm::Error tensorToONNX(const Tensor &t, llvm::StringRef name, onnx::TensorProto &proto,
                         llvm::StringRef path) {
  ElemKind kind = t.getType().kind;
  if (kind == ElemKind::QInt8)
    kind = ElemKind::Int8;
  if (kind == ElemKind::QUInt8)
    kind = ElemKind::UInt8;
  const DataTypeEntry *type = nullptr;
  for (const DataTypeEntry &e : kDataTypes)
    if (e.supported && e.kind == kind)
      type = &e;
  if (!type)
    return makeError(path + ": cannot write " + elemKindName(kind) + " as an ONNX TensorProto");
  proto.set_name(name.str());
  proto.set_data_type(type->onnx);
  for (dim_t d : t.getType().dims)
    proto.add_dims(int64_t(d));
  if (packedNibbles(kind)) {
    // Two elements per byte, the first in the low nibble (ONNX's layout for 4-bit kinds).
    size_t n = t.getType().numElements();
    std::string raw(protoBytes(kind, n), '\0');
    for (size_t i = 0; i < n; ++i)
      raw[i / 2] = char(uint8_t(raw[i / 2]) | (t.dataAs<uint8_t>()[i] & 0xF) << (i % 2 ? 4 : 0));
    proto.set_raw_data(std::move(raw));
    return llvm::Error::success();
  }
  // Bools are stored one byte each, 0 or 1, as raw_data wants them.
  proto.set_raw_data(std::string(reinterpret_cast<const char *>(t.data()), t.sizeInBytes()));
  return llvm::Error::success();
}

llvm::Error writeMessage(llvm::StringRef path, const google::protobuf::Message &proto) {
  std::string bytes;
  if (!proto.SerializeToString(&bytes))
    return makeError(path + ": cannot serialize the value (over 2 GiB?)");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError(path + ": " + ec.message());
  os << bytes;
  os.close();
  if (os.has_error())
    return makeError(path + ": " + os.error().message());
  return llvm::Error::success();
}

/// Parses \p path as \p proto; \p what names the message in errors. Bytes that parse but
/// leave fields the message does not have are another message (a TensorProto given for a
/// sequence, say).
llvm::Error readMessage(llvm::StringRef path, google::protobuf::Message &proto,
                        llvm::StringRef what) {
  if (llvm::sys::fs::is_directory(path))
    return makeError(path + ": is a directory");
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return makeError(path + ": " + buf.getError().message());
  llvm::StringRef bytes = (*buf)->getBuffer();
  if (bytes.size() > size_t(INT32_MAX) || !proto.ParseFromArray(bytes.data(), int(bytes.size())) ||
      !proto.GetReflection()->GetUnknownFields(proto).empty())
    return makeError(path + ": not a serialized ONNX " + what);
  return llvm::Error::success();
}

/// A SequenceProto's tensors, of one element kind; \p value gets their types.
llvm::Expected<std::vector<Tensor>> sequenceTensors(const onnx::SequenceProto &seq,
                                                    llvm::StringRef path, GraphValue &value) {
  bool tensors = seq.elem_type() == onnx::SequenceProto::TENSOR ||
                 (seq.elem_type() == onnx::SequenceProto::UNDEFINED && seq.tensor_values_size() == 0);
  if (!tensors || seq.sparse_tensor_values_size() || seq.map_values_size() ||
      seq.optional_values_size() || seq.sequence_values_size())
    return makeError(path + ": a sequence of " +
                     onnx::SequenceProto::DataType_Name(onnx::SequenceProto::DataType(
                         seq.elem_type())) +
                     " values; ember reads sequences of (dense) tensors only");
  std::vector<Tensor> out;
  for (int i = 0; i < seq.tensor_values_size(); ++i) {
    auto t = tensorFromONNX(seq.tensor_values(i));
    if (!t)
      return withContext(t.takeError(), path + ": element " + llvm::Twine(i));
    if (!out.empty() && t->getType().kind != out[0].getType().kind)
      return makeError(path + ": element " + llvm::Twine(i) + " is " + t->getType().str() +
                       ", element 0 " + out[0].getType().str() +
                       "; a sequence's tensors share one element kind");
    value.types.push_back(t->getType());
    out.push_back(std::move(*t));
  }
  return out;
}

} // namespace

llvm::Error writeONNXTensorFile(llvm::StringRef path, const Tensor &t, llvm::StringRef name) {
  onnx::TensorProto proto;
  EMBER_TRY(tensorToONNX(t, name, proto, path));
  return writeMessage(path, proto);
}

llvm::Expected<std::vector<Tensor>> readValueFile(llvm::StringRef path, GraphValue &value,
                                                  std::string *name) {
  value.types.clear();
  value.present = true;
  value.source = path.str();
  std::vector<Tensor> out;
  if (value.isTensor()) {
    EMBER_ASSIGN_OR_RETURN(Tensor t, readTensorFile(path, name));
    value.types.push_back(t.getType());
    out.push_back(std::move(t));
    return out;
  }
  if (!path.ends_with(".pb"))
    return makeError(path + ": " + value.name + " is " +
                     (value.optional ? "an optional" : "a sequence") + ", which only an ONNX " +
                     (value.optional ? "OptionalProto" : "SequenceProto") + " .pb file holds");
  if (!value.optional) {
    onnx::SequenceProto seq;
    EMBER_TRY(readMessage(path, seq, "SequenceProto"));
    if (name)
      *name = seq.name();
    return sequenceTensors(seq, path, value);
  }
  onnx::OptionalProto opt;
  EMBER_TRY(readMessage(path, opt, "OptionalProto"));
  if (name)
    *name = opt.name();
  bool holdsTensor = opt.has_tensor_value(), holdsSequence = opt.has_sequence_value();
  // An empty optional may say what it would hold (numpy_helper.from_optional with a dtype).
  bool consistent = (!holdsTensor || opt.elem_type() == onnx::OptionalProto::TENSOR) &&
                    (!holdsSequence || opt.elem_type() == onnx::OptionalProto::SEQUENCE);
  bool known = opt.elem_type() == onnx::OptionalProto::TENSOR ||
               opt.elem_type() == onnx::OptionalProto::SEQUENCE ||
               opt.elem_type() == onnx::OptionalProto::UNDEFINED;
  if (!known || !consistent || opt.has_sparse_tensor_value() || opt.has_map_value() ||
      opt.has_optional_value())
    return makeError(path + ": an optional of type " +
                     onnx::OptionalProto::DataType_Name(onnx::OptionalProto::DataType(
                         opt.elem_type())) +
                     (consistent ? "" : " that holds another kind of value") +
                     "; ember reads optionals holding nothing, a tensor or a sequence of tensors");
  if (!holdsTensor && !holdsSequence) {
    value.present = false;
    return out;
  }
  if (holdsSequence != value.sequence)
    return makeError(path + ": holds an optional " + (holdsSequence ? "sequence" : "tensor") +
                     ", " + value.name + " is an optional " +
                     (value.sequence ? "sequence" : "tensor"));
  if (holdsSequence)
    return sequenceTensors(opt.sequence_value(), path, value);
  auto t = tensorFromONNX(opt.tensor_value());
  if (!t)
    return withContext(t.takeError(), path);
  value.types.push_back(t->getType());
  out.push_back(std::move(*t));
  return out;
}

llvm::Error writeValueFile(llvm::StringRef path, const GraphValue &value,
                           llvm::ArrayRef<Tensor> tensors) {
  if (value.isTensor()) {
    if (tensors.size() != 1)
      return makeError(path + ": a tensor output has " + llvm::Twine(tensors.size()) +
                       " tensors");
    return writeONNXTensorFile(path, tensors[0], value.name);
  }
  auto fillSequence = [&](onnx::SequenceProto &seq) -> llvm::Error {
    seq.set_name(value.name);
    seq.set_elem_type(onnx::SequenceProto::TENSOR);
    for (const Tensor &t : tensors)
      EMBER_TRY(tensorToONNX(t, "", *seq.add_tensor_values(), path));
    return llvm::Error::success();
  };
  if (!value.optional) {
    onnx::SequenceProto seq;
    EMBER_TRY(fillSequence(seq));
    return writeMessage(path, seq);
  }
  onnx::OptionalProto opt;
  opt.set_name(value.name);
  if (!value.present) {
    opt.set_elem_type(onnx::OptionalProto::UNDEFINED);
  } else if (value.sequence) {
    opt.set_elem_type(onnx::OptionalProto::SEQUENCE);
    EMBER_TRY(fillSequence(*opt.mutable_sequence_value()));
    opt.mutable_sequence_value()->set_name("");
  } else {
    if (tensors.size() != 1)
      return makeError(path + ": an optional tensor output has " +
                       llvm::Twine(tensors.size()) + " tensors");
    opt.set_elem_type(onnx::OptionalProto::TENSOR);
    EMBER_TRY(tensorToONNX(tensors[0], "", *opt.mutable_tensor_value(), path));
  }
  return writeMessage(path, opt);
}

} // namespace ember
