// The backend interface: which nodes a backend runs, which it wants lowered, and compiling a
// planned IRFunction into something that runs on the three memory regions of the bundle ABI.
#ifndef EMBER_BACKENDS_BACKEND_H
#define EMBER_BACKENDS_BACKEND_H

#include "ember/IR/IR.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace ember {

/// A compiled function. It reads and writes only the three regions it is given: constant weights
/// (read-only), mutable weights (inputs and outputs) and activations (scratch), each aligned to
/// kTensorAlignment and as large as the IRFunction's plan says.
class CompiledFunction {
public:
  virtual ~CompiledFunction() = default;
  virtual llvm::Error execute(uint8_t *constantWeights, uint8_t *mutableWeights,
                              uint8_t *activations) = 0;
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual llvm::StringRef getName() const = 0;
  /// Whether the backend can run \p n (kind and element types) after lowering.
  virtual bool isOpSupported(const Node &n) const = 0;
  /// Whether the graph optimizer should expand \p n into simpler nodes for this backend.
  virtual bool shouldLower(const Node &n) const { return false; }
  /// Bytes of working memory the backend's kernel for \p I needs while it runs; the memory plan
  /// places them in the activations region (no kernel allocates or keeps global state).
  virtual uint64_t getScratchBytes(const Instruction &I) const { return 0; }
  /// Compiles \p IR, which must outlive the result and have a memory plan.
  virtual llvm::Expected<std::unique_ptr<CompiledFunction>> compile(const IRFunction &IR) const = 0;
};

/// Names accepted by createBackend().
std::vector<std::string> getBackendNames();
llvm::Expected<std::unique_ptr<Backend>> createBackend(llvm::StringRef name);

} // namespace ember

#endif
