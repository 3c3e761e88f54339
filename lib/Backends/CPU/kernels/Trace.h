// Recording the events of TraceBuffer.h. Only a model compiled with instrumentation calls these
// or takes their branch: codegen defines ember_tracing, a constant the kernels test, as 1 for
// such a model and 0 otherwise, so in an uninstrumented model the optimizer folds every test
// away and its code is the code it was without them (Parallel.h's runParts, say).
#ifndef EMBER_CPU_KERNELS_TRACE_H
#define EMBER_CPU_KERNELS_TRACE_H

#include "KernelCommon.h"
#include "TraceBuffer.h"

/// 1 in a model compiled with instrumentation, else 0 (defined by codegen: CodeGen.cpp).
extern "C" const i32 ember_tracing;
/// libc's; CLOCK_MONOTONIC is 1 on Linux (x86_64 and aarch64). Called by instrumented models
/// only, so an uninstrumented bundle still needs nothing but libc's memory functions.
extern "C" int clock_gettime(int clock, void *time);

namespace trace {

using tracebuf::Buffer;
using tracebuf::Event;

EMBER_INLINE u64 now() {
  i64 ts[2]; // struct timespec: seconds and nanoseconds, two longs on both targets
  clock_gettime(1, ts);
  return u64(ts[0]) * 1000000000ull + u64(ts[1]);
}

/// Claims an index and writes the event there if the buffer has room (never past capacity).
EMBER_INLINE void record(Buffer *b, i32 instruction, i32 thread, i32 part, u64 start, u64 end) {
  u64 i = __atomic_fetch_add(&b->count, 1, __ATOMIC_RELAXED);
  if (i < b->capacity)
    b->events[i] = Event{start, end, instruction, thread, part, 0};
}

} // namespace trace

#endif
