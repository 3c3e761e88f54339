#include "ember/Support/Error.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ember {

char ContextualError::ID = 0;

Error makeError(const Twine &msg) {
  return make_error<StringError>(msg, inconvertibleErrorCode());
}

Error withContext(Error err, const Twine &context) {
  if (!err)
    return Error::success();
  std::string prefix = context.str();
  Error result = Error::success();
  handleAllErrors(std::move(err), [&](std::unique_ptr<ErrorInfoBase> info) {
    if (info->isA<ContextualError>()) {
      static_cast<ContextualError &>(*info).addContext(prefix);
      result = joinErrors(std::move(result), Error(std::move(info)));
      return;
    }
    result = joinErrors(std::move(result), makeError(prefix + ": " + info->message()));
  });
  return result;
}

std::string errorToString(Error err) {
  std::string out;
  handleAllErrors(std::move(err), [&](const ErrorInfoBase &info) {
    if (!out.empty())
      out += "\n";
    out += info.message();
  });
  return out;
}

} // namespace ember
