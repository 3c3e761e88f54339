// What the tools print on request about a compiled model: after compiling, the pass
// statistics, memory plan, phase times and dumps the flags ask for; after running, with
// -profile, each instruction's time.
#ifndef EMBER_TOOLS_COMMON_TOOLREPORTS_H
#define EMBER_TOOLS_COMMON_TOOLREPORTS_H

#include "ember/Driver/CompiledModel.h"

namespace ember {
namespace tools {

/// What the flags ask to print after compiling: pass statistics, the memory summary, phase
/// times, the graph (text or DOT file) and the IR.
llvm::Error printCompileReports(const CompileSummary &summary, double loadMillis,
                                const Function &F, const IRFunction &IR);

/// The graph as -dump-graph prints it: \p F, then the bodies nested in it (If's branches, Loop
/// bodies).
void printGraph(const Function &F, llvm::raw_ostream &os);

/// With -profile: each computing instruction's time over \p runs runs of the compiled function,
/// slowest first, with its share of the total and its output type.
void printProfile(const CompiledModel &cm, unsigned runs);

} // namespace tools
} // namespace ember

#endif
