// The compile pipeline every way of compiling shares (CompiledModel for the JIT and the
// Interpreter, the bundle writer for model-compiler): graph passes, the backend's support check,
// IRGen, IR passes and the memory plan, from a graph function to IR ready for a backend.
// Private to lib/Driver.
#ifndef EMBER_LIB_DRIVER_COMPILEPIPELINE_H
#define EMBER_LIB_DRIVER_COMPILEPIPELINE_H

#include "ember/Driver/CompiledModel.h"

#include <memory>

namespace ember {

/// The module's "main" function, or its only one.
llvm::Expected<Function *> mainFunction(Module &M);

/// Optimizes \p F for \p B, refuses it listing every node \p B cannot run, generates and
/// optimizes the IR and plans its memory (with \p B's scratch). Records node counts, pass
/// statistics and phase times in \p summary.
llvm::Expected<std::unique_ptr<IRFunction>> compileToPlannedIR(Function &F, const Backend &B,
                                                               const CompileOptions &opts,
                                                               CompileSummary &summary);

} // namespace ember

#endif
