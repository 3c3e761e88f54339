// The offline allocator behind the activation memory plan: given every buffer's size and live
// interval up front, choose offsets so that buffers live at the same time never share memory,
// keeping the peak (the region size) small.
#ifndef EMBER_IROPTIMIZER_INTERVALPACKING_H
#define EMBER_IROPTIMIZER_INTERVALPACKING_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ember {

/// A buffer live from instruction position `begin` to `end`, both inclusive (begin <= end).
struct LiveBuffer {
  uint64_t begin, end, size;
};

/// Byte offsets, one per buffer, and the bytes they need in all: max(offset + aligned size).
struct Packing {
  std::vector<uint64_t> offsets;
  uint64_t peak = 0;
};

/// Offsets for every buffer (same order), aligned, so that buffers live at the same time do not
/// overlap. Sizes are rounded up to `alignment` (> 0); a 0-byte buffer takes one unit.
/// Deterministic: the same buffers always get the same offsets.
Packing packBuffers(llvm::ArrayRef<LiveBuffer> buffers, uint64_t alignment);

/// The largest total (aligned) size of buffers live at one position: no packing can beat it.
uint64_t peakLiveBytes(llvm::ArrayRef<LiveBuffer> buffers, uint64_t alignment);

/// Whether `offsets` is a legal packing (one per buffer, aligned, no two simultaneously live
/// buffers overlap); `why`, if given, gets the reason when it is not.
bool isValidPacking(llvm::ArrayRef<LiveBuffer> buffers, llvm::ArrayRef<uint64_t> offsets,
                    uint64_t alignment, std::string *why = nullptr);

} // namespace ember

#endif
