// What an instrumented model's code calls (TraceBuffer.h): its public functions bracket each
// call with ember_trace_start and ember_trace_finish, and the model marks each computing
// instruction's start, at the same places as -profile's hook (CodeGen.cpp). A null buffer (an
// instrumented bundle's NET() and NET_on_team) records nothing.
#include "Parallel.h"
#include "Trace.h"

using namespace trace;

/// Ends the running instruction's event, if any, and starts instruction \p next's (-1: none).
EMBER_INLINE void markIn(Buffer *b, i32 next) {
  u64 t = now();
  i32 current = __atomic_load_n(&b->current, __ATOMIC_RELAXED);
  if (current >= 0)
    record(b, current, 0, -1, b->since, t);
  // Before the instruction publishes a job: its workers read current after claiming a part.
  __atomic_store_n(&b->current, next, __ATOMIC_RELAXED);
  b->since = t;
}

/// A call's start: no instruction running yet, and the team's parts recorded into \p b.
EMBER_KERNEL void ember_trace_start(parallel::Team *team, Buffer *b) {
  if (b)
    __atomic_store_n(&b->current, -1, __ATOMIC_RELAXED);
  if (team && !team->pool) // a caller's pool runs the parts on threads ember does not know
    team->trace = b;
}

/// Before computing instruction \p instruction.
EMBER_KERNEL void ember_trace_mark(Buffer *b, i32 instruction) {
  if (b)
    markIn(b, instruction);
}

/// A call's end, whichever way it returns (an error returns from the instruction that failed):
/// the last instruction's event, and the team no longer records (a kept team may serve a
/// call without a buffer next, or the buffer may be freed).
EMBER_KERNEL void ember_trace_finish(parallel::Team *team, Buffer *b) {
  if (b)
    markIn(b, -1);
  if (team && !team->pool)
    team->trace = nullptr;
}

void parallel::runPartTraced(Buffer *b, PartFn run, const void *body, i64 p, i64 self) {
  u64 start = now();
  run(body, p);
  record(b, __atomic_load_n(&b->current, __ATOMIC_RELAXED), i32(self), i32(p), start, now());
}
