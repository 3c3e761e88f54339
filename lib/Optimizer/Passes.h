// Pass entry points; each pass lives in its own file and is registered in GraphOptimizer.cpp.
#ifndef EMBER_LIB_OPTIMIZER_PASSES_H
#define EMBER_LIB_OPTIMIZER_PASSES_H

#include "ember/Graph/Graph.h"

namespace ember {

bool runDCE(Function &F);

} // namespace ember

#endif
