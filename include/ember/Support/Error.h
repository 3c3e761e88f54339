// Error helpers: every failure that user input can cause travels as an llvm::Error with a message
// that names what failed and why; callers add context (file, node, operator) as it propagates.
#ifndef EMBER_SUPPORT_ERROR_H
#define EMBER_SUPPORT_ERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ember {

/// An error that carries data its callers act on (not just a message to print): withContext
/// adds context to it in place instead of flattening it into a string, so the data survives
/// the layers it propagates through. CompileTimeInputsError (ember/Importer) is one.
class ContextualError : public llvm::ErrorInfo<ContextualError> {
public:
  static char ID;
  /// Prefixes the error's message(s) with "\p context: ".
  virtual void addContext(const std::string &context) = 0;
};

/// An error carrying \p msg.
llvm::Error makeError(const llvm::Twine &msg);

/// Prefixes every message inside \p err with "\p context: ". Success passes through. A
/// ContextualError keeps its type (and data); any other error becomes a plain message.
llvm::Error withContext(llvm::Error err, const llvm::Twine &context);

/// The messages of \p err, one per line; consumes it.
std::string errorToString(llvm::Error err);

/// Product of \p a and \p b, or false on overflow of size_t.
inline bool checkedMul(size_t a, size_t b, size_t &result) {
  return !__builtin_mul_overflow(a, b, &result);
}
inline bool checkedAdd(size_t a, size_t b, size_t &result) {
  return !__builtin_add_overflow(a, b, &result);
}

} // namespace ember

/// Returns from the enclosing function if \p expr (an llvm::Error) failed.
#define EMBER_TRY(expr)                                                                            \
  do {                                                                                             \
    if (llvm::Error emberErr_ = (expr))                                                            \
      return emberErr_;                                                                            \
  } while (0)

#define EMBER_CONCAT_IMPL(a, b) a##b
#define EMBER_CONCAT(a, b) EMBER_CONCAT_IMPL(a, b)
/// `EMBER_ASSIGN_OR_RETURN(auto x, expectedExpr);` binds the value or returns the error.
#define EMBER_ASSIGN_OR_RETURN(decl, expr)                                                         \
  EMBER_ASSIGN_OR_RETURN_IMPL(EMBER_CONCAT(emberExp_, __LINE__), decl, expr)
#define EMBER_ASSIGN_OR_RETURN_IMPL(tmp, decl, expr)                                               \
  auto tmp = (expr);                                                                               \
  if (!tmp)                                                                                        \
    return tmp.takeError();                                                                        \
  decl = std::move(*tmp)

#endif
