// The command-line conventions of model-runner, model-compiler and the conformance tool: Glow's
// flag spellings in, and every mistake out as "error: ..." lines with exit code 1.
#ifndef EMBER_TOOLS_COMMON_COMMANDLINE_H
#define EMBER_TOOLS_COMMON_COMMANDLINE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <gflags/gflags.h>

#include <string>

namespace ember {
namespace tools {

/// Parses the command line: accepts -flag, --flag, -flag=v and -flag v, dashes or underscores
/// in names, and Glow's aliases (-dumpGraph). -model, -model-input, -input, -onnx-define-symbol
/// and -onnx-define-input may repeat, their values accumulating; any other flag given twice is
/// an error naming it.
/// Handles -help (prints this tool's flags and exits 0). \p usage describes the tool.
void parseCommandLine(int &argc, char **&argv, const char *usage);

/// The shared flag (ToolFlags.h) named \p rawName in any spelling the command line accepts
/// (dashes or underscores, Glow's aliases); none is "unknown flag '<spelling>'".
llvm::Expected<gflags::CommandLineFlagInfo> findToolFlag(llvm::StringRef rawName,
                                                         llvm::StringRef spelling);

/// Sets flags one occurrence at a time as the command line does (parseCommandLine, the Python
/// module): the repeatable flags accumulate, any other one given twice is an error, a value of
/// the wrong type is an error. \p spelling and \p rawName name the flag in the errors.
class ToolFlagAssigner {
  llvm::StringMap<std::string> given_;  ///< flag name -> its first spelling
  llvm::StringMap<std::string> joined_; ///< a repeatable flag's values so far
public:
  llvm::Error assign(const gflags::CommandLineFlagInfo &flag, llvm::StringRef value,
                     llvm::StringRef spelling, llvm::StringRef rawName);
};

/// Applies -max-memory (when given) as the memory budget; an unreadable size is an error.
llvm::Error applyMaxMemoryFlag();

/// Prints "error: <message>" for each line of \p err and returns exit code 1.
int reportError(llvm::Error err);

} // namespace tools
} // namespace ember

#endif
