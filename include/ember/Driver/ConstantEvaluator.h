// Evaluating values computed from constants alone, by running them on the Interpreter.
#ifndef EMBER_DRIVER_CONSTANTEVALUATOR_H
#define EMBER_DRIVER_CONSTANTEVALUATOR_H

#include "ember/Graph/Graph.h"
#include "ember/Importer/ModelLoader.h"

#include "llvm/Support/Error.h"

namespace ember {

/// The value of \p v, which must depend on Constants only: its subgraph is copied into a
/// scratch module, compiled for the Interpreter (the reference) and run once.
llvm::Expected<Tensor> evaluateConstant(NodeValue v);

/// \p opts with evaluateConstant installed, so loaders can fold compile-time operands.
ImportOptions withConstantEvaluation(ImportOptions opts);

} // namespace ember

#endif
