// Pad's index map, stated once for every backend (the Interpreter's kernel, the CPU backend's
// codegen): where each result index of a padded axis reads the input.
#ifndef EMBER_GRAPH_PADSOURCE_H
#define EMBER_GRAPH_PADSOURCE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace ember {

/// Where result index \p o of a padded axis (input length \p n, \p begin cells added in front)
/// reads the input in \p mode (constant, edge, reflect), or -1 for the pad value. The shape rule
/// gives n > 0 outside constant mode.
inline int64_t padSource(int64_t o, int64_t n, int64_t begin, llvm::StringRef mode) {
  int64_t i = o - begin;
  if (i >= 0 && i < n)
    return i;
  if (mode == "constant")
    return -1;
  if (mode == "edge" || n == 1)
    return i < 0 ? 0 : n - 1;
  // reflect: mirror at both borders without repeating them, i.e. period 2(n-1).
  int64_t period = 2 * (n - 1);
  int64_t m = ((i % period) + period) % period;
  return m < n ? m : period - m;
}

} // namespace ember

#endif
