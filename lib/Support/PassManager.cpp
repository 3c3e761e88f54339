#include "ember/Support/PassManager.h"
#include "ember/Support/Error.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace llvm;

namespace ember {

namespace {

/// The index of \p name in \p registry, if it is there.
std::optional<size_t> indexOf(ArrayRef<StringRef> registry, StringRef name) {
  for (size_t i = 0; i < registry.size(); ++i)
    if (registry[i] == name)
      return i;
  return std::nullopt;
}

} // namespace

Error runPassPipeline(ArrayRef<StringRef> registry, ArrayRef<std::string> pipeline,
                      function_ref<bool(size_t)> run, const PassUnit &unit,
                      const PassRunOptions &opts, const PassManagerStyle &style) {
  std::vector<size_t> passes;
  for (const std::string &name : pipeline) {
    std::optional<size_t> i = indexOf(registry, name);
    if (!i)
      return makeError(Twine("unknown ") + style.passNoun + " '" + name + "'");
    passes.push_back(*i);
  }
  for (const std::string &name : opts.dumpAfter)
    if (name != "all" && !indexOf(registry, name))
      return makeError(Twine(style.dumpFlag) + ": unknown " + style.passNoun + " '" + name + "'");
  auto dumpsAfter = [&](StringRef pass) {
    return opts.dumpStream && llvm::any_of(opts.dumpAfter, [&](const std::string &n) {
             return n == pass || n == "all";
           });
  };
  for (unsigned round = 0; round < style.maxRounds; ++round) {
    bool anyChanged = false;
    for (size_t i : passes) {
      StringRef name = registry[i];
      size_t before = unit.size();
      auto start = std::chrono::steady_clock::now();
      bool changed = run(i);
      double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      anyChanged |= changed;
      if (opts.stats)
        opts.stats->push_back({name.str(), before, unit.size(), changed, ms});
      if (dumpsAfter(name)) {
        raw_ostream &os = *opts.dumpStream;
        os << "=== after " << style.dumpNoun << " '" << name << "'";
        if (style.maxRounds > 1)
          os << " (round " << round + 1 << (changed ? ", changed)" : ", unchanged)");
        else
          os << (changed ? " (changed)" : " (unchanged)");
        os << "\n";
        unit.dump(os);
      }
      if (opts.verifyEach)
        EMBER_TRY(withContext(unit.verify(), Twine("after ") + style.dumpNoun + " '" + name + "'"));
    }
    if (!anyChanged)
      break;
  }
  return Error::success();
}

std::optional<std::vector<std::string>> parsePassList(StringRef flag) {
  if (flag == "default")
    return std::nullopt;
  std::vector<std::string> names;
  if (flag == "none")
    return names;
  SmallVector<StringRef, 8> parts;
  flag.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef p : parts)
    names.push_back(p.trim().str());
  return names;
}

} // namespace ember
