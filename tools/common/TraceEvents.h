// -trace: what model-runner did, as a Chrome Trace Event file (the JSON Object Format that
// chrome://tracing and ui.perfetto.dev load): the compile phases, then each run with one event
// per computing instruction and, where the backend records them (the CPU's instrumentation),
// one per thread's part of a threaded step. utils/bundle-trace.py writes the same events of an
// instrumented bundle.
#ifndef EMBER_TOOLS_COMMON_TRACEEVENTS_H
#define EMBER_TOOLS_COMMON_TRACEEVENTS_H

#include "ember/Driver/CompiledModel.h"

#include "llvm/Support/JSON.h"

#include <memory>
#include <string>
#include <vector>

namespace llvm {
class ToolOutputFile;
}

namespace ember {
namespace tools {

/// Gathers the events of one process and writes them as {"traceEvents": [...]}. Times are
/// microseconds from the start of the model's import.
class TraceEvents {
  std::unique_ptr<llvm::ToolOutputFile> file_;
  llvm::json::Array events_;
  int64_t pid_, tid_;
  std::vector<bool> namedWorkers_; ///< the workers whose thread_name is written

  TraceEvents(std::unique_ptr<llvm::ToolOutputFile> file, llvm::StringRef processName);
  llvm::json::Object instructionEvent(const Instruction &I, double ts, double millis,
                                      int64_t tid);

public:
  /// Opens \p path now, so that a path that cannot be written fails before the compile and the
  /// runs; \p processName names the process in the viewer (the model). The file is removed
  /// unless write() completes it.
  static llvm::Expected<std::unique_ptr<TraceEvents>> create(llvm::StringRef path,
                                                             llvm::StringRef processName);
  ~TraceEvents();

  /// The import (\p importMillis, from time 0) and then \p phases (CompileSummary::phaseMillis)
  /// one after the other; a phase's parts (indented) start where it starts.
  void addPhases(double importMillis, const PhaseTimes &phases);

  /// Run \p index, from \p startMicros for \p runMicros, and within it one event per computing
  /// instruction that ran. With \p spans (CompiledModel::takeTrace; \p originNanos is time 0
  /// on steady_clock) each is where it ran, and each thread's part of a threaded step is an
  /// event on that thread's tid. Else an instruction's time is what the profile gained over
  /// the run (\p after less \p before, CompiledModel::getProfile), placed after the
  /// instruction before it (the profile keeps totals, not start times), on the caller's tid.
  void addRun(unsigned index, double startMicros, double runMicros,
              llvm::ArrayRef<InstructionTime> before, llvm::ArrayRef<InstructionTime> after,
              llvm::ArrayRef<TraceSpan> spans, uint64_t originNanos);

  /// Writes the events to the file; an error names it.
  llvm::Error write();
};

} // namespace tools
} // namespace ember

#endif
