// Intra-operator parallelism for the heavy kernels (GEMM, convolution), with -threads above 1.
//
// A kernel hands a team a job of `parts`, which the caller and the workers claim one at a time
// until none is left. A team is one of three (Parallel.cpp):
//  - started by the generated entry function on its own stack for one call and stopped before
//    it returns (ember_team_start, ember_team_stop): nothing lives between calls, so a compiled
//    model keeps no global state and stays reentrant; the threads' start (tens of microseconds
//    each, and more until the OS first runs them) is paid every call;
//  - started by the caller once and kept across calls (a bundle's NET_team_start, the JIT's
//    CPUFunction): its workers are running when a call's first job comes;
//  - the caller's own pool (a bundle's NET_team_of_pool): each job is handed to its parallel-for.
// Waiting workers spin, then yield the core, then sleep on a futex (Linux) until the next job:
// a team kept between calls costs no CPU while the program does other things. A worker the OS
// has not run yet never holds a job up: the caller takes its part. With one thread the team is
// null and no thread exists; when every call site passes null the optimizer removes the
// pthread calls altogether (a single-threaded bundle needs no -pthread).
#ifndef EMBER_CPU_KERNELS_PARALLEL_H
#define EMBER_CPU_KERNELS_PARALLEL_H

#include "KernelCommon.h"
#include "Scratch.h"
#include "Trace.h"

// pthread_t is an unsigned long (glibc) or a pointer (musl): 8 bytes on the 64-bit targets.
extern "C" int pthread_create(u64 *thread, const void *attr, void *(*start)(void *), void *arg);
extern "C" int pthread_join(u64 thread, void **result);
extern "C" int sched_yield(void);
extern "C" long syscall(long number, ...);

namespace parallel {

constexpr i64 kMaxThreads = scratch::kMaxThreads;

struct Team;
struct Worker {
  Team *team;
  i64 index;
};

/// A job's parts, run through one function so the team needs no template.
typedef void (*PartFn)(const void *body, i64 part);
/// A caller's pool: runs run(body, p) for every p in [0, parts), on any of its threads, and
/// returns when all have finished.
typedef void (*PoolFn)(void *pool, i64 parts, PartFn run, const void *body);

struct Team {
  i64 size;    ///< threads, the caller included
  PoolFn pool; ///< the caller's pool's parallel-for, or null: this team's own workers
  void *poolArg;
  u64 ids[kMaxThreads];
  Worker workers[kMaxThreads];
  // The current job, published by bumping `generation` after these are set.
  PartFn run;       ///< atomic
  const void *body; ///< atomic
  i64 claim;        ///< atomic: the job's generation << 32 | its parts << 16 | the next part
  i64 done;         ///< atomic: the job's parts finished
  i32 generation;   ///< atomic; the futex sleeping workers wait on
  i32 stop;         ///< atomic
  i64 sleepers;     ///< atomic: workers asleep on generation, or about to be
  /// An instrumented model's events while one of its calls runs on the team, else null; read
  /// only when ember_tracing is 1 (Trace.h), so an uninstrumented model neither sets nor reads it.
  tracebuf::Buffer *trace;
};
static_assert(sizeof(Team) <= scratch::kTeamBytes, "the entry function's storage for a team");

EMBER_INLINE i64 load(const i64 *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
EMBER_INLINE i32 load(const i32 *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

// Linux's futex on a team's generation: a worker sleeps while it holds the job it has seen; a
// new job wakes every sleeper. Elsewhere waiting workers keep yielding.
#if defined(__linux__) && defined(__x86_64__)
constexpr long kSysFutex = 202;
#elif defined(__linux__) && defined(__aarch64__)
constexpr long kSysFutex = 98;
#else
constexpr long kSysFutex = -1;
#endif
constexpr long kFutexWaitPrivate = 128, kFutexWakePrivate = 129;

EMBER_INLINE void futexWait(i32 *word, i32 seen) {
  if (kSysFutex >= 0)
    syscall(kSysFutex, word, kFutexWaitPrivate, seen, nullptr, nullptr, 0);
  else
    sched_yield();
}
EMBER_INLINE void futexWakeAll(i32 *word) {
  if (kSysFutex >= 0)
    syscall(kSysFutex, word, kFutexWakePrivate, 0x7fffffff, nullptr, nullptr, 0);
}

/// Pauses a waiter spins through before it yields the core: about 30 microseconds. (20000, as
/// before, cost a job up to 350 microseconds whenever both threads shared a core.)
constexpr i64 kSpins = 2000;

/// Waits until done() holds: spinning first (a job is usually a few microseconds away), then
/// yielding the core, at most \p maxYields times when that is not negative. Returns done().
template <typename Done> EMBER_INLINE bool waitUntil(Done done, i64 maxYields = -1) {
  for (i64 spins = 0; !done(); ++spins) {
    if (spins < kSpins) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      __builtin_arm_yield();
#endif
    } else if (maxYields >= 0 && spins - kSpins >= maxYields) {
      return false;
    } else {
      sched_yield();
    }
  }
  return true;
}

/// Claims the next part of job \p job: its index, or -1 when the job has none left or is no
/// longer the current one. The claim word carries the job and its part count, so a claim never
/// mixes one job's count with another's index; a job's run and body, read after a claim
/// succeeds, are its own (the next job is published only once every part of this one is done).
EMBER_INLINE i64 claimPart(Team *t, i64 job) {
  i64 v = load(&t->claim);
  for (;;) {
    i64 next = v & 0xffff, parts = (v >> 16) & 0xffff;
    if ((v >> 32) != job || next >= parts)
      return -1;
    if (__atomic_compare_exchange_n(&t->claim, &v, v + 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
      return next;
  }
}

/// run(body, p), recorded as thread \p self's part \p p of the running instruction (the
/// caller set the buffer's current before it published the job, so the claim's acquire shows it).
/// Out of line: the parts' loop keeps its size and the clock calls stay out of it.
EMBER_NOINLINE void runPartTraced(tracebuf::Buffer *b, PartFn run, const void *body, i64 p,
                                  i64 self);

/// Runs parts of job \p job until none is left to claim; \p self is the thread (0: the caller,
/// k: worker k), for an instrumented model's events.
EMBER_INLINE void runParts(Team *t, i64 job, i64 self) {
  for (i64 p; (p = claimPart(t, job)) >= 0;) {
    PartFn run = __atomic_load_n(&t->run, __ATOMIC_RELAXED);
    const void *body = __atomic_load_n(&t->body, __ATOMIC_RELAXED);
    // The one test tracing adds to a part, folded away in an uninstrumented model (Trace.h).
    if (ember_tracing && t->trace)
      runPartTraced(t->trace, run, body, p, self);
    else
      run(body, p);
    __atomic_fetch_add(&t->done, 1, __ATOMIC_ACQ_REL);
  }
}

/// Yields a worker makes, after its spins, before it sleeps: about a millisecond of no job.
constexpr i64 kYieldsBeforeSleep = 1000;

/// Waits until the team's generation is no longer \p seen or the team stops: spinning, then
/// yielding, then asleep on the futex. The sleeper count and the generation are sequentially
/// consistent on both sides, so either the publisher sees the sleeper and wakes it, or the
/// sleeper sees the new generation (and the futex refuses to sleep on a changed word).
EMBER_INLINE void waitForJob(Team *t, i32 seen) {
  auto ready = [&] { return load(&t->generation) != seen || load(&t->stop); };
  if (waitUntil(ready, kYieldsBeforeSleep))
    return;
  while (!ready()) {
    __atomic_fetch_add(&t->sleepers, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&t->generation, __ATOMIC_SEQ_CST) == seen &&
        !__atomic_load_n(&t->stop, __ATOMIC_SEQ_CST))
      futexWait(&t->generation, seen);
    __atomic_fetch_sub(&t->sleepers, 1, __ATOMIC_SEQ_CST);
  }
}

/// Wakes the workers asleep on the team's generation, if any (a system call: skipped when every
/// worker is awake, as it is while a call's jobs follow each other).
EMBER_INLINE void wakeSleepers(Team *t) {
  if (__atomic_load_n(&t->sleepers, __ATOMIC_SEQ_CST) > 0)
    futexWakeAll(&t->generation);
}

EMBER_INLINE void *workerMain(void *arg) {
  Worker *w = static_cast<Worker *>(arg);
  Team *t = w->team;
  i32 seen = 0;
  for (;;) {
    waitForJob(t, seen);
    if (load(&t->stop))
      return nullptr;
    seen = load(&t->generation);
    runParts(t, seen, w->index);
  }
}

template <typename F> void runPart(const void *body, i64 part) {
  (*static_cast<const F *>(body))(part);
}

/// body(p) for every p in [0, parts): on the team when there is one (at most its size parts),
/// else here, one after the other.
template <typename F> EMBER_INLINE void forEachPart(Team *team, i64 parts, const F &body) {
  if (!team || team->size <= 1 || parts <= 1) {
    for (i64 p = 0; p < parts; ++p)
      body(p);
    return;
  }
  parts = minI(parts, team->size);
  if (team->pool) {
    team->pool(team->poolArg, parts, runPart<F>, static_cast<const void *>(&body));
    return;
  }
  i32 job = (team->generation + 1) & 0x7fffffff; // only this thread writes generation
  __atomic_store_n(&team->run, runPart<F>, __ATOMIC_RELAXED);
  __atomic_store_n(&team->body, static_cast<const void *>(&body), __ATOMIC_RELAXED);
  __atomic_store_n(&team->done, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&team->claim, i64(job) << 32 | parts << 16, __ATOMIC_RELEASE);
  __atomic_store_n(&team->generation, job, __ATOMIC_SEQ_CST); // the spinning workers see it
  wakeSleepers(team);
  runParts(team, job, 0);
  waitUntil([&] { return load(&team->done) == parts; });
}

/// How many parts are worth splitting \p flops of work into on \p team
/// (scratch::kMinFlopsPerPart each).
EMBER_INLINE i64 partsFor(const Team *team, i64 flops) {
  if (!team)
    return 1;
  return maxI(1, minI(team->size, flops / scratch::kMinFlopsPerPart));
}

/// partsFor work of \p flops that also moves \p floats floats: whichever weighs more. Pools and
/// depthwise convolutions counted their taps alone, and ran on one thread whatever their size
/// (squeezenet1_1's pools of 128 x 55 x 55 floats); on two threads that one thread read what the
/// other core's convolution had just written, and ran slower than on one.
EMBER_INLINE i64 partsForMoving(const Team *team, i64 flops, i64 floats) {
  return partsFor(team, maxI(flops, scratch::kFloatMoveFlops * floats));
}

/// scratch::partRange into \p begin and \p end.
EMBER_INLINE void partRange(i64 n, i64 parts, i64 unit, i64 p, i64 &begin, i64 &end) {
  scratch::Range r = scratch::partRange(n, parts, unit, p);
  begin = r.begin;
  end = r.end;
}

/// body(part, begin, end) for each of \p parts ranges of [0, n) in whole `unit`s (partRange; a
/// range may be empty), on the team when there is one.
template <typename F>
EMBER_INLINE void forEachRange(Team *team, i64 parts, i64 n, i64 unit, const F &body) {
  forEachPart(team, parts, [&](i64 part) {
    i64 begin, end;
    partRange(n, parts, unit, part, begin, end);
    body(part, begin, end);
  });
}

} // namespace parallel

#endif
