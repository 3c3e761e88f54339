// Timing a backend's compile phase by phase (-time-phases).
#ifndef EMBER_LIB_BACKENDS_COMMON_PHASECLOCK_H
#define EMBER_LIB_BACKENDS_COMMON_PHASECLOCK_H

#include "ember/Backends/Backend.h"

#include <chrono>

namespace ember {

/// Appends the time since the last lap (or its construction) to a phase list, if one is given.
class PhaseClock {
  PhaseTimes *out_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();

public:
  explicit PhaseClock(PhaseTimes *out) : out_(out) {}
  void lap(const char *phase) {
    auto now = std::chrono::steady_clock::now();
    if (out_)
      out_->push_back({phase, std::chrono::duration<double, std::milli>(now - last_).count()});
    last_ = now;
  }
};

} // namespace ember

#endif
