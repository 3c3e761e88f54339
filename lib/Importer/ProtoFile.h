// Reading a model's protobuf file, binary or text format, for every loader (ONNX, Caffe2).
#ifndef EMBER_LIB_IMPORTER_PROTOFILE_H
#define EMBER_LIB_IMPORTER_PROTOFILE_H

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>

namespace google {
namespace protobuf {
class Message;
} // namespace protobuf
} // namespace google

namespace ember {

/// The bytes of \p path; an error for a directory (saying \p notAFile), an unreadable file, or
/// one over protobuf's 2 GiB limit.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readProtoFile(llvm::StringRef path,
                                                                   llvm::StringRef notAFile);

/// Parses \p bytes into \p msg, as protobuf text format when \p text, else binary. Failures:
/// "<textError>: line L, column C: why" (the first error only; protobuf prints nothing), or
/// \p binaryError for a truncated or corrupt binary message.
llvm::Error parseProto(llvm::StringRef bytes, bool text, google::protobuf::Message &msg,
                       const llvm::Twine &textError, const llvm::Twine &binaryError);

} // namespace ember

#endif
