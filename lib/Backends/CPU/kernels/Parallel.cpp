// Starting and stopping the teams of Parallel.h: the generated entry function calls these for a
// team of one call when the model is compiled with -threads above 1; a bundle's team functions
// (NET_team_start, NET_team_of_pool, NET_team_stop) and the JIT's persistent team call them too.
//
// Below them, what an instrumented model's code calls (Trace.h): its public functions bracket
// each call with ember_trace_start and ember_trace_finish, and the model marks each computing
// instruction's start, at the same places as -profile's hook (CodeGen.cpp). A null buffer (an
// instrumented bundle's NET() and NET_on_team) records nothing. Here rather than in a file of
// their own: each kernel source adds its compiler's ident to every bundle's .comment, and an
// uninstrumented bundle stays the bytes it was.
#include "Parallel.h"

using namespace parallel;

/// Starts `threads - 1` workers into \p storage (scratch::kTeamBytes, 64-byte aligned); fewer
/// when a thread cannot be created (the team then runs on those it has).
EMBER_KERNEL Team *ember_team_start(void *storage, i64 threads) {
  Team *t = static_cast<Team *>(storage);
  t->size = 1;
  t->pool = nullptr;
  t->poolArg = nullptr;
  t->run = nullptr;
  t->body = nullptr;
  t->claim = 0;
  t->done = 0;
  t->generation = 0;
  t->stop = 0;
  t->sleepers = 0;
  if (ember_tracing) // an uninstrumented model never reads it (Trace.h)
    t->trace = nullptr;
  for (i64 i = 1; i < minI(threads, kMaxThreads); ++i) {
    t->workers[i] = Worker{t, i};
    if (pthread_create(&t->ids[i], nullptr, workerMain, &t->workers[i]) != 0)
      break;
    t->size = i + 1;
  }
  return t;
}

/// A team in \p storage whose jobs go to the caller's pool: \p run(\p pool, parts, ...), at
/// most \p threads parts a job (at least 1, at most what the model was compiled for, which the
/// caller passes in \p threads already bounded).
EMBER_KERNEL Team *ember_team_of_pool(void *storage, PoolFn run, void *pool, i64 threads) {
  Team *t = static_cast<Team *>(ember_team_start(storage, 1));
  t->size = maxI(1, minI(threads, kMaxThreads));
  t->pool = run;
  t->poolArg = pool;
  return t;
}

/// Stops the team's workers (waking those asleep) and joins them; nothing for a pool's team.
EMBER_KERNEL void ember_team_stop(Team *t) {
  if (t->pool)
    return;
  __atomic_store_n(&t->stop, 1, __ATOMIC_SEQ_CST);
  // A new generation too: a worker between its last look at stop and its futex wait then finds
  // the word changed and does not sleep (no job is in flight, so none claims anything).
  __atomic_fetch_add(&t->generation, 1, __ATOMIC_SEQ_CST);
  wakeSleepers(t);
  for (i64 i = 1; i < t->size; ++i)
    pthread_join(t->ids[i], nullptr);
}

/// fn(ctx, p) for every p in [0, parts) on \p t (null: here, in order): the split loops codegen
/// writes (CodeGenFusion.cpp), whose parts are fixed when the model is compiled, so a team
/// smaller than that (a pool of fewer threads) runs several each.
EMBER_KERNEL void ember_team_run(Team *t, i64 parts, PartFn fn, const void *ctx) {
  i64 width = t ? minI(parts, t->size) : 1;
  forEachPart(t, width, [&](i64 q) {
    for (i64 p = q; p < parts; p += width)
      fn(ctx, p);
  });
}

//===--- Instrumentation ---===//

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
