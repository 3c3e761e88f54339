#include "ProtoFile.h"

#include "ember/Support/Error.h"

#include "llvm/Support/FileSystem.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include <climits>

using namespace llvm;

namespace ember {

namespace {

/// Collects protobuf's text-format parse errors instead of printing them to stderr.
class TextErrorCollector : public google::protobuf::io::ErrorCollector {
public:
  std::string first;
  void AddError(int line, int column, const std::string &message) override {
    if (first.empty())
      first = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) +
              ": " + message;
  }
};

} // namespace

Expected<std::unique_ptr<MemoryBuffer>> readProtoFile(StringRef path, StringRef notAFile) {
  if (sys::fs::is_directory(path))
    return makeError("is a directory, not " + notAFile);
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buf)
    return makeError(buf.getError().message());
  if ((*buf)->getBufferSize() > size_t(INT_MAX))
    return makeError("file is larger than 2 GiB; external data is not supported");
  return std::move(*buf);
}

Error parseProto(StringRef bytes, bool text, google::protobuf::Message &msg,
                 const Twine &textError, const Twine &binaryError) {
  if (text) {
    google::protobuf::TextFormat::Parser parser;
    TextErrorCollector errors;
    parser.RecordErrorsTo(&errors);
    google::protobuf::io::ArrayInputStream in(bytes.data(), int(bytes.size()));
    if (!parser.Parse(&in, &msg))
      return makeError(textError + ": " + errors.first);
    return Error::success();
  }
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t *>(bytes.data()),
                                            int(bytes.size()));
  in.SetTotalBytesLimit(INT_MAX);
  if (!msg.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
    return makeError(binaryError);
  return Error::success();
}

} // namespace ember
