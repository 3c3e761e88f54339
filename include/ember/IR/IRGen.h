// IRGen: lowers a verified graph Function into an IRFunction.
#ifndef EMBER_IR_IRGEN_H
#define EMBER_IR_IRGEN_H

#include "ember/IR/IR.h"

namespace ember {

/// Every placeholder and used constant becomes a WeightVar; every node an instruction writing
/// fresh activations (Save: a copy into its placeholder); each activation is deallocated right
/// after its last reader. If and Loop become control-flow markers around their bodies' code,
/// placed inline (IR.h).
llvm::Expected<std::unique_ptr<IRFunction>> generateIR(const Function &F);

} // namespace ember

#endif
