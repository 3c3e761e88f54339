// What model-runner and model-compiler share: flag conventions (Glow's dashed spellings),
// -help, input files, and loading + compiling a model from the flags.
#ifndef EMBER_TOOLS_COMMON_TOOLSUPPORT_H
#define EMBER_TOOLS_COMMON_TOOLSUPPORT_H

#include "InputBinding.h"

#include "ember/Driver/CompiledModel.h"
#include "ember/Importer/ModelLoader.h"

#include <gflags/gflags.h>

#include <string>
#include <vector>

DECLARE_string(model);
DECLARE_string(model_input);
DECLARE_string(backend);
DECLARE_string(input);
DECLARE_string(onnx_define_symbol);
DECLARE_string(onnx_define_input);
DECLARE_bool(strict_onnx);
DECLARE_int64(unroll_loops_up_to);
DECLARE_int64(max_loop_iterations);
DECLARE_bool(dump_graph);
DECLARE_string(dump_graph_DAG);
DECLARE_bool(dump_ir);
DECLARE_bool(verify_each);
DECLARE_string(dump_graph_after);
DECLARE_bool(print_pass_stats);
DECLARE_string(ir_passes);
DECLARE_string(dump_ir_after);
DECLARE_bool(print_memory);
DECLARE_bool(time_phases);
DECLARE_bool(profile);

namespace ember {
namespace tools {

/// Parses the command line: accepts -flag, --flag, -flag=v and -flag v, dashes or underscores
/// in names, and Glow's aliases (-dumpGraph). Repeated -onnx-define-symbol flags accumulate.
/// Handles -help (prints this tool's flags and exits 0). \p usage describes the tool.
void parseCommandLine(int &argc, char **&argv, const char *usage);

/// The import options every tool takes from its flags: the ONNX checker's strictness and the
/// control-flow limits.
void applyImportFlags(ImportOptions &opts);

/// Prints "error: <message>" for each line of \p err and returns exit code 1.
int reportError(llvm::Error err);

/// The files given with -model (repeatable: a Caffe2 model is a predict_net and an init_net).
std::vector<std::string> modelPaths();
/// The name a bundle of the -model gets by default: the file's stem; a Caffe2 model's folder.
std::string defaultNetworkName();

/// Reads every file named by -input (NAME=FILE; a lone FILE has no name: the model's only
/// input), each as its input's value (InputBinding.h: a tensor, a sequence, an optional).
llvm::Expected<std::vector<InputFile>> readInputFiles();

/// Loads -model with -onnx-define-symbol/-onnx-define-input and the input files' shapes bound;
/// \p loadMillis gets the time it took. With \p bound (model-runner), the inputs the model
/// needs at compile time are bound to their files in \p inputs and listed in \p bound
/// (loadBindingCompileTimeInputs); without it (model-compiler) the error names them, to be
/// given with -onnx-define-input. \p outputs (when non-null) receives the graph's outputs
/// (ImportOptions::graphOutputs).
llvm::Expected<std::unique_ptr<Module>>
loadModelFromFlags(const std::vector<InputFile> &inputs, double &loadMillis,
                   std::vector<BoundInput> *bound = nullptr,
                   std::vector<GraphValue> *outputs = nullptr);
/// The compile options the flags ask for (backend and its options, passes, dumps, quantizing
/// from -load-profile); fails on a profile that cannot be read.
llvm::Expected<CompileOptions> compileOptionsFromFlags();
/// What the flags ask to print after compiling: pass statistics, the memory summary, phase
/// times, the graph (text or DOT file) and the IR.
llvm::Error printCompileReports(const CompileSummary &summary, double loadMillis,
                                const Function &F, const IRFunction &IR);
/// loadModelFromFlags (binding the inputs needed at compile time: \p bound), CompiledModel::compile
/// with compileOptionsFromFlags, then the reports; \p outputs gets the graph's outputs. With
/// \p instrumentForProfiling, every float value is saved for a profile (CompileOptions).
llvm::Expected<std::unique_ptr<CompiledModel>>
loadAndCompile(const std::vector<InputFile> &inputs, std::vector<BoundInput> &bound,
               std::vector<GraphValue> &outputs, bool instrumentForProfiling = false);

/// With -profile: each computing instruction's time over \p runs runs of the compiled function,
/// slowest first, with its share of the total and its output type.
void printProfile(const CompiledModel &cm, unsigned runs);

/// \p name with every character outside [A-Za-z0-9_.-] replaced by '_'.
std::string legalizeFileName(llvm::StringRef name);

} // namespace tools
} // namespace ember

#endif
