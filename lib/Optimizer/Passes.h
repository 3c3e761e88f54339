// Pass entry points, one per file, declared from Passes.def.
#ifndef EMBER_LIB_OPTIMIZER_PASSES_H
#define EMBER_LIB_OPTIMIZER_PASSES_H

#include "ember/Optimizer/GraphOptimizer.h"

namespace ember {

#define PASS(NAME, FN, DEFAULT, DOC) bool FN(Function &F, const PassContext &ctx);
#include "ember/Optimizer/Passes.def"

} // namespace ember

#endif
