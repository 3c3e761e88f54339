// What the tools print on request about a compiled model: after compiling, the pass
// statistics, memory plan, phase times and dumps the flags ask for; after running, with
// -profile, each instruction's time; with -topk, the best classes of a model's scores.
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

/// The rate of product \p I (productFlops) when one run of it took \p millis; 0 for the others.
double productGflops(const Instruction &I, double millis);

/// The \p k best classes of each item of \p scores, output \p name, best first (ties: the
/// lower class first) with their scores and, when \p labels is not empty, the label of each
/// (labels[class]). The items are dim 0 of a tensor of two or more dims (the batch), each
/// item's scores the rest; a tensor of fewer dims is one item. \p itemNames (when one per
/// item: the image files) name the items.
void printTopK(llvm::StringRef name, const Tensor &scores, size_t k,
               llvm::ArrayRef<std::string> labels, llvm::ArrayRef<std::string> itemNames);

/// The number of items and the classes of each in \p scores, as printTopK splits it.
std::pair<size_t, size_t> topKItemsAndClasses(const Tensor &scores);

} // namespace tools
} // namespace ember

#endif
