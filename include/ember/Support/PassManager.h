// The pass manager both optimizers share (the graph's, lib/Optimizer, and the IR's,
// lib/IROptimizer): a registry of named passes declared from a .def, pipelines that are lists of
// names, and around each pass run the hooks the tools expose (-verify-each, -dump-*-after,
// -print-pass-stats). What differs between the two (the unit a pass rewrites, the arguments it
// takes, whether the pipeline repeats until nothing changes) is a parameter, so the machinery
// and its messages are written once.
#ifndef EMBER_SUPPORT_PASSMANAGER_H
#define EMBER_SUPPORT_PASSMANAGER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace ember {

/// One pass run (-print-pass-stats): the unit's size (nodes or instructions) before and after.
struct PassStats {
  std::string pass;
  size_t sizeBefore = 0, sizeAfter = 0;
  bool changed = false;
  double millis = 0;
};

/// What a pipeline run does around each pass.
struct PassRunOptions {
  /// Verify the unit after every pass (always on in tests; -verify-each in the tools).
  bool verifyEach = false;
  /// Stats per pass run are appended here when non-null.
  std::vector<PassStats> *stats = nullptr;
  /// Print the unit after each pass named here ("all" for every pass) to dumpStream.
  std::vector<std::string> dumpAfter;
  llvm::raw_ostream *dumpStream = nullptr;
};

/// How one pass manager words its messages and how it repeats its pipeline.
struct PassManagerStyle {
  const char *passNoun; ///< in "unknown <passNoun> 'x'": "graph pass", "IR pass"
  const char *dumpFlag; ///< the flag naming passes to dump after: "-dump-graph-after"
  const char *dumpNoun; ///< in "=== after <dumpNoun> 'x'" and "after <dumpNoun> 'x'": "pass"
  /// 1: the pipeline runs once, in order. More: it repeats until no pass changes anything, at
  /// most this many rounds (and dumps say which round).
  unsigned maxRounds;
};

/// The unit a pipeline rewrites, as the pass manager sees it. (std::function, not
/// function_ref: callers build it from lambdas that must outlive the braces.)
struct PassUnit {
  std::function<size_t()> size;
  std::function<void(llvm::raw_ostream &)> dump;
  std::function<llvm::Error()> verify;
};

/// Runs the passes \p pipeline names, chosen among \p registry (every pass's name, in
/// declaration order), over \p unit: \p run(i) runs registry pass i and says whether it changed
/// anything. Unknown names (in the pipeline or in opts.dumpAfter) are errors before any pass runs.
llvm::Error runPassPipeline(llvm::ArrayRef<llvm::StringRef> registry,
                            llvm::ArrayRef<std::string> pipeline,
                            llvm::function_ref<bool(size_t)> run, const PassUnit &unit,
                            const PassRunOptions &opts, const PassManagerStyle &style);

/// A pipeline flag's value: "default" (nullopt: the default pipeline), "none" (no pass), or
/// comma-separated pass names.
std::optional<std::vector<std::string>> parsePassList(llvm::StringRef flag);

/// The passes declared in a .def, each a struct with `name`, `description` and
/// `inDefaultPipeline` (GraphPass, IRPass), looked up by name.
template <typename PassT> class PassRegistry {
  std::vector<PassT> passes_;
  std::vector<llvm::StringRef> names_;

public:
  explicit PassRegistry(std::vector<PassT> passes) : passes_(std::move(passes)) {
    for (const PassT &p : passes_)
      names_.push_back(p.name);
  }
  const std::vector<PassT> &passes() const { return passes_; }
  llvm::ArrayRef<llvm::StringRef> names() const { return names_; }
  const PassT *find(llvm::StringRef name) const {
    for (const PassT &p : passes_)
      if (name == p.name)
        return &p;
    return nullptr;
  }
  /// The default pipeline: the passes marked for it, in declaration order.
  std::vector<std::string> defaultPipeline() const {
    std::vector<std::string> names;
    for (const PassT &p : passes_)
      if (p.inDefaultPipeline)
        names.push_back(p.name);
    return names;
  }
};

} // namespace ember

#endif
