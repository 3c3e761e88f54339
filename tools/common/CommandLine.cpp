#include "CommandLine.h"
#include "ToolFlags.h"

#include "ember/Support/Error.h"
#include "ember/Support/MemoryBudget.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace llvm;

namespace ember {
namespace tools {

namespace {

std::string normalizeFlagName(std::string name) {
  for (char &c : name)
    if (c == '-')
      c = '_';
  if (name == "dumpGraph")
    return "dump_graph";
  if (name == "dumpGraphDAG")
    return "dump_graph_DAG";
  if (name == "dumpIR")
    return "dump_ir";
  return name;
}

void printHelp(const char *usage) {
  outs() << usage << "\n\nFlags (-flag=value, -flag value, or --flag):\n";
  std::vector<gflags::CommandLineFlagInfo> flags;
  gflags::GetAllFlags(&flags);
  for (const auto &f : flags) {
    if (f.filename.find("tools/") == std::string::npos)
      continue;
    std::string name = f.name;
    for (char &c : name)
      if (c == '_')
        c = '-';
    outs() << "  -" << name;
    if (f.type != "bool")
      outs() << "=<" << f.type << ">";
    outs() << "\n      " << f.description;
    if (!f.default_value.empty() && f.default_value != "false")
      outs() << " (default: " << f.default_value << ")";
    outs() << "\n";
  }
  outs().flush();
}

} // namespace

Expected<gflags::CommandLineFlagInfo> findToolFlag(StringRef rawName, StringRef spelling) {
  std::string name = normalizeFlagName(rawName.str());
  gflags::CommandLineFlagInfo info;
  if (!gflags::GetCommandLineFlagInfo(name.c_str(), &info) ||
      info.filename.find("tools/") == std::string::npos)
    return makeError("unknown flag '" + spelling + "'");
  return std::move(info);
}

Error ToolFlagAssigner::assign(const gflags::CommandLineFlagInfo &flag, StringRef value,
                               StringRef spelling, StringRef rawName) {
  // The repeatable flags, each occurrence's value joined to the ones before it by the flag's
  // separator; any other flag given twice is a mistake (gflags kept the last value silently,
  // so -input=a=a.npy -input=b=b.npy ran with no data for 'a').
  static const StringMap<const char *> separators = {{"onnx_define_symbol", ";"},
                                                     {"onnx_define_input", ";"},
                                                     {"model", "\n"}, // Caffe2: two files
                                                     {"model_input", ";"},
                                                     {"input", ","}};
  std::string all = value.str();
  auto separator = separators.find(flag.name);
  if (separator != separators.end()) {
    std::string &joined = joined_[flag.name];
    joined += (joined.empty() ? "" : separator->second) + all;
    all = joined;
  } else if (auto [first, isNew] = given_.try_emplace(flag.name, spelling.str()); !isNew) {
    return makeError("flag '" + spelling + "' given twice (first as '" + first->second +
                     "'); only -model, -model-input, -input, -onnx-define-symbol and "
                     "-onnx-define-input may repeat");
  }
  if (gflags::SetCommandLineOption(flag.name.c_str(), all.c_str()).empty())
    return makeError("invalid value '" + all + "' for flag '-" + rawName + "' (" + flag.type +
                     ")");
  return Error::success();
}

Error applyMaxMemoryFlag() {
  if (FLAGS_max_memory.empty())
    return Error::success();
  StringRef spec = FLAGS_max_memory;
  uint64_t scale = 1, bytes = 0;
  if (spec.consume_back_insensitive("k"))
    scale = 1ull << 10;
  else if (spec.consume_back_insensitive("m"))
    scale = 1ull << 20;
  else if (spec.consume_back_insensitive("g"))
    scale = 1ull << 30;
  else if (spec.consume_back_insensitive("t"))
    scale = 1ull << 40;
  if (spec.getAsInteger(10, bytes) || bytes == 0 || bytes > ~0ull / scale)
    return makeError("-max-memory=" + FLAGS_max_memory + ": expected a size such as 512M or 8G");
  setMemoryBudget(bytes * scale);
  return Error::success();
}

void parseCommandLine(int &argc, char **&argv, const char *usage) {
  // Flags are set one by one through gflags so that every mistake gets ember's own
  // "error: ..." and exit code 1 instead of gflags' messages.
  static std::vector<char *> positional;
  positional.assign(1, argv[0]);
  gflags::SetUsageMessage(usage);
  auto fail = [](const Twine &msg) {
    errs() << "error: " << msg << " (see -help)\n";
    std::exit(1);
  };
  ToolFlagAssigner flags;
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    if (!arg.starts_with("-") || arg == "-") {
      positional.push_back(argv[i]);
      continue;
    }
    if (arg == "--") {
      for (++i; i < argc; ++i)
        positional.push_back(argv[i]);
      break;
    }
    StringRef body = arg.drop_while([](char c) { return c == '-'; });
    auto [rawName, rawValue] = body.split('=');
    bool hasValue = body.contains('=');
    std::string name = normalizeFlagName(rawName.str());
    if (name == "help" || name == "h" || name == "helpfull" || name == "helpshort") {
      printHelp(usage);
      std::exit(0);
    }
    Expected<gflags::CommandLineFlagInfo> info = findToolFlag(rawName, arg);
    if (!info)
      fail(errorToString(info.takeError()));
    std::string value = rawValue.str();
    if (!hasValue) {
      if (info->type == "bool") {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i]; // "-flag value"
      } else {
        fail("flag '" + arg + "' needs a value");
      }
    }
    if (Error err = flags.assign(*info, value, arg, rawName))
      fail(errorToString(std::move(err)));
  }
  if (Error err = applyMaxMemoryFlag())
    fail(errorToString(std::move(err)));
  positional.push_back(nullptr);
  argc = int(positional.size()) - 1;
  argv = positional.data();
}

int reportError(Error err) {
  std::string msg = errorToString(std::move(err));
  SmallVector<StringRef, 8> lines;
  StringRef(msg).split(lines, '\n');
  // Indented lines continue the message before them (e.g. a list of unsupported nodes).
  for (StringRef line : lines)
    errs() << (line.starts_with(" ") ? "" : "error: ") << line << "\n";
  return 1;
}

} // namespace tools
} // namespace ember
