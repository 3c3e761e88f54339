#include "ember/Base/Npy.h"
#include "ember/Support/Error.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

namespace ember {

namespace {

struct DescrKind {
  const char *descr;
  ElemKind kind;
};
// '|' marks byte-sized types; '<' little-endian.
const DescrKind kDescrs[] = {
    {"<f4", ElemKind::Float32}, {"<f8", ElemKind::Float64}, {"<f2", ElemKind::Float16},
    {"|i1", ElemKind::Int8},    {"|u1", ElemKind::UInt8},   {"<i2", ElemKind::Int16},
    {"<u2", ElemKind::UInt16},  {"<i4", ElemKind::Int32},   {"<u4", ElemKind::UInt32},
    {"<i8", ElemKind::Int64},   {"<u8", ElemKind::UInt64},  {"|b1", ElemKind::Bool},
};

/// The value of 'key' in the header dict, as raw text up to the next top-level comma or brace.
Expected<StringRef> headerField(StringRef header, StringRef key) {
  size_t pos = header.find(("'" + key + "'").str());
  if (pos == StringRef::npos)
    return makeError("header has no '" + key + "'");
  StringRef rest = header.drop_front(pos + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return makeError("header field '" + key + "' is malformed");
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    if (close == StringRef::npos)
      return makeError("header shape is not closed");
    return rest.take_front(close + 1);
  }
  size_t end = rest.find_first_of(",}");
  return rest.take_front(end).trim();
}

} // namespace

const char *npyDescr(ElemKind k) {
  if (k == ElemKind::QInt8)
    k = ElemKind::Int8;
  if (k == ElemKind::QUInt8)
    k = ElemKind::UInt8;
  for (const DescrKind &d : kDescrs)
    if (d.kind == k)
      return d.descr;
  return nullptr;
}

bool npyDescrKind(StringRef descr, ElemKind &k) {
  // '=' and '<' mean the same on a little-endian host; '|' for byte types.
  std::string norm = descr.str();
  if (!norm.empty() && norm[0] == '=')
    norm[0] = '<';
  for (const DescrKind &d : kDescrs)
    if (norm == d.descr || (norm.size() == 3 && norm[1] == d.descr[1] && norm[2] == d.descr[2] &&
                            d.descr[0] == '|' && (norm[0] == '<' || norm[0] == '|'))) {
      k = d.kind;
      return true;
    }
  return false;
}

Expected<Tensor> parseNpy(StringRef bytes) {
  if (bytes.size() < 10 || !bytes.starts_with("\x93NUMPY"))
    return makeError("not an .npy file (bad magic)");
  uint8_t major = bytes[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return makeError("truncated .npy header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
    headerStart = 12;
  } else {
    return makeError("unsupported .npy version " + Twine(major));
  }
  if (headerLen > bytes.size() - headerStart)
    return makeError("truncated .npy header");
  StringRef header = bytes.substr(headerStart, headerLen);
  StringRef data = bytes.drop_front(headerStart + headerLen);

  EMBER_ASSIGN_OR_RETURN(StringRef descr, headerField(header, "descr"));
  descr = descr.trim("'\" ");
  ElemKind kind;
  if (!npyDescrKind(descr, kind))
    return makeError("unsupported .npy dtype '" + descr + "'");
  EMBER_ASSIGN_OR_RETURN(StringRef order, headerField(header, "fortran_order"));
  if (order != "False")
    return makeError(".npy in Fortran order is not supported");
  EMBER_ASSIGN_OR_RETURN(StringRef shapeText, headerField(header, "shape"));
  shapeText = shapeText.trim("() ");
  SmallVector<int64_t, 6> dims;
  SmallVector<StringRef, 6> parts;
  shapeText.split(parts, ',', -1, false);
  for (StringRef p : parts) {
    p = p.trim();
    if (p.empty())
      continue;
    int64_t v;
    if (p.getAsInteger(10, v))
      return makeError("bad .npy shape '" + shapeText + "'");
    dims.push_back(v);
  }
  EMBER_ASSIGN_OR_RETURN(Type ty, Type::checked(kind, dims));
  if (data.size() != ty.sizeInBytes())
    return makeError(".npy data has " + Twine(data.size()) + " bytes, shape " +
                     dimsToString(ty.dims) + " of " + elemKindName(ty.kind) + " needs " +
                     Twine(ty.sizeInBytes()));
  Tensor t(ty);
  if (data.size())
    std::memcpy(t.data(), data.data(), data.size());
  if (ty.kind == ElemKind::Bool)
    for (size_t i = 0; i < data.size(); ++i)
      if (uint8_t(data[i]) > 1)
        return makeError(".npy bool data holds a value other than 0 or 1");
  return t;
}

Expected<Tensor> readNpyFile(StringRef path) {
  if (sys::fs::is_directory(path))
    return makeError(path + ": is a directory");
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return makeError(path + ": " + buf.getError().message());
  auto t = parseNpy((*buf)->getBuffer());
  if (!t)
    return withContext(t.takeError(), path);
  return t;
}

Error writeNpyFile(StringRef path, const Tensor &t) {
  ElemKind k = t.getType().kind;
  const char *descr = npyDescr(k);
  if (!descr)
    return makeError(path + ": cannot write " + elemKindName(k) + " as .npy" +
                     // numpy has no such dtype (ml_dtypes' are not in the .npy format).
                     (isNarrowKind(k) ? " (numpy has no such dtype; write an ONNX .pb)" : ""));
  // numpy's own spelling: "()", "(5,)", "(2, 3)".
  std::string shape = "(";
  for (size_t i = 0; i < t.getType().rank(); ++i)
    shape += (i ? ", " : "") + std::to_string(t.getType().dims[i]);
  shape += t.getType().rank() == 1 ? ",)" : ")";
  std::string header =
      "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so the data starts on a 64-byte boundary, header ends with '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::error_code ec;
  raw_fd_ostream os(path, ec, sys::fs::OF_None);
  if (ec)
    return makeError(path + ": " + ec.message());
  os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
     << char((header.size() >> 8) & 0xff) << header;
  os.write(reinterpret_cast<const char *>(t.data()), t.sizeInBytes());
  os.close();
  if (os.has_error())
    return makeError(path + ": write failed");
  return Error::success();
}

} // namespace ember
