// Timing a compile phase by phase (-time-phases): the driver's phases, and under "backend
// compile" the backend's own. One clock for both, so every phase is measured the same way.
#ifndef EMBER_SUPPORT_PHASECLOCK_H
#define EMBER_SUPPORT_PHASECLOCK_H

#include "llvm/ADT/StringRef.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace ember {

/// (phase, milliseconds) in the order the phases ran. The parts a phase timed of its own follow
/// it, their names indented by two spaces: they are part of it, not added to it.
using PhaseTimes = std::vector<std::pair<std::string, double>>;

/// Appends to a phase list, if one is given, the time of each phase: from the previous lap (or
/// the clock's construction, or restart) to the lap that names it.
class PhaseClock {
  PhaseTimes *out_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();

public:
  explicit PhaseClock(PhaseTimes *out) : out_(out) {}
  /// Records the time since the last lap as \p phase, followed by \p parts (the phases it timed
  /// of its own, as a backend within "backend compile"), and starts the next phase.
  void lap(llvm::StringRef phase, const PhaseTimes &parts = {}) {
    auto now = std::chrono::steady_clock::now();
    if (out_) {
      double ms = std::chrono::duration<double, std::milli>(now - last_).count();
      out_->push_back({phase.str(), ms});
      for (const auto &[part, partMs] : parts)
        out_->push_back({"  " + part, partMs});
    }
    last_ = now;
  }
  /// Starts the next phase now: what ran since the last lap belongs to no phase.
  void restart() { last_ = std::chrono::steady_clock::now(); }
};

} // namespace ember

#endif
