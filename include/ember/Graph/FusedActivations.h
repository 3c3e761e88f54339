// The activations fused kernels apply (Nodes/FusedActivations.def) as data, for the passes and
// backends that look them up by name or by the node they come from.
#ifndef EMBER_GRAPH_FUSEDACTIVATIONS_H
#define EMBER_GRAPH_FUSEDACTIVATIONS_H

#include "ember/Graph/Node.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace ember {

struct FusedActivationInfo {
  /// 1-based position in the table: the CPU kernels' ActKind (0 is no activation).
  int64_t code;
  llvm::StringRef name;
  unsigned arity;
  /// The node fuse-activations folds: of kind `from`, and a Unary of `fromFunction` if non-empty.
  NodeKind from;
  llvm::StringRef fromFunction;
  /// Whether the CPU kernels have a float32 vector form (else its generic kernels run it).
  bool vectorized;
  llvm::StringRef doc;
};

/// Every row of Nodes/FusedActivations.def, in order.
llvm::ArrayRef<FusedActivationInfo> fusedActivations();

/// The row named \p name, or null (also for "", no activation).
const FusedActivationInfo *findFusedActivation(llvm::StringRef name);

/// Whether a FusedActivation attribute \p name with \p numArgs FusedActivationArgs is one the
/// shape rule accepts: "" with no arguments (then \p row is null) or a row of that arity (then
/// \p row is it).
bool resolveFusedActivation(llvm::StringRef name, size_t numArgs,
                            const FusedActivationInfo *&row);

/// The row whose `from` node \p n is (its kind, and its function for a Unary), or null.
const FusedActivationInfo *fusedActivationFrom(const Node &n);

/// "relu, clip, ...": the names, for error messages.
std::string fusedActivationNames();

} // namespace ember

#endif
