// The command-line conventions of model-runner, model-compiler and the conformance tool: Glow's
// flag spellings in, and every mistake out as "error: ..." lines with exit code 1.
#ifndef EMBER_TOOLS_COMMON_COMMANDLINE_H
#define EMBER_TOOLS_COMMON_COMMANDLINE_H

#include "llvm/Support/Error.h"

namespace ember {
namespace tools {

/// Parses the command line: accepts -flag, --flag, -flag=v and -flag v, dashes or underscores
/// in names, and Glow's aliases (-dumpGraph). -model, -model-input, -input, -onnx-define-symbol
/// and -onnx-define-input may repeat, their values accumulating; any other flag given twice is
/// an error naming it.
/// Handles -help (prints this tool's flags and exits 0). \p usage describes the tool.
void parseCommandLine(int &argc, char **&argv, const char *usage);

/// Prints "error: <message>" for each line of \p err and returns exit code 1.
int reportError(llvm::Error err);

} // namespace tools
} // namespace ember

#endif
