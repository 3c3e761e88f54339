// Intra-operator parallelism for the heavy kernels (GEMM, convolution), with -threads above 1.
//
// The generated entry function starts a team on its own stack when it begins (ember_team_start:
// threads - 1 workers) and stops it before it returns (ember_team_stop joins them): nothing
// lives between calls, so a compiled model (or a bundle) keeps no global state and stays
// reentrant, and the cost of creating threads (tens of microseconds each) is paid once a call,
// not once a kernel. A kernel hands the team a job of `parts`: the caller runs part 0, worker w
// part w; workers wait for the next job spinning, then yielding. With one thread the team is
// null and no thread exists; when every call site passes null the optimizer removes the pthread
// calls altogether (a single-threaded bundle needs no -pthread).
#ifndef EMBER_CPU_KERNELS_PARALLEL_H
#define EMBER_CPU_KERNELS_PARALLEL_H

#include "KernelCommon.h"
#include "Scratch.h"

// pthread_t is an unsigned long (glibc) or a pointer (musl): 8 bytes on the 64-bit targets.
extern "C" int pthread_create(u64 *thread, const void *attr, void *(*start)(void *), void *arg);
extern "C" int pthread_join(u64 thread, void **result);
extern "C" int sched_yield(void);

namespace parallel {

constexpr i64 kMaxThreads = scratch::kMaxThreads;

struct Team;
struct Worker {
  Team *team;
  i64 index;
};

/// A job's parts, run through one function so the team needs no template.
typedef void (*PartFn)(const void *body, i64 part);

struct Team {
  i64 size; ///< threads, the caller included
  u64 ids[kMaxThreads];
  Worker workers[kMaxThreads];
  // The current job, published by bumping `generation` after these are set.
  PartFn run;
  const void *body;
  i64 parts;
  i64 generation; ///< atomic
  i64 pending;    ///< atomic: workers that have not finished the current job
  i64 stop;       ///< atomic
};
static_assert(sizeof(Team) <= scratch::kTeamBytes, "the entry function's storage for a team");

EMBER_INLINE i64 load(const i64 *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/// Waits until done() holds: spinning first (a job is usually a few microseconds away), then
/// yielding the core.
template <typename Done> EMBER_INLINE void waitUntil(Done done) {
  for (i64 spins = 0; !done(); ++spins) {
    if (spins < 20000) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#elif defined(__aarch64__)
      __builtin_arm_yield();
#endif
    } else {
      sched_yield();
    }
  }
}

EMBER_INLINE void *workerMain(void *arg) {
  Worker *w = static_cast<Worker *>(arg);
  Team *t = w->team;
  i64 seen = 0;
  for (;;) {
    waitUntil([&] { return load(&t->generation) != seen || load(&t->stop); });
    if (load(&t->stop))
      return nullptr;
    seen = load(&t->generation);
    if (w->index < t->parts)
      t->run(t->body, w->index);
    __atomic_fetch_sub(&t->pending, 1, __ATOMIC_ACQ_REL);
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
  team->run = runPart<F>;
  team->body = &body;
  team->parts = parts;
  __atomic_store_n(&team->pending, team->size - 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&team->generation, 1, __ATOMIC_ACQ_REL); // publishes the job
  body(0);
  waitUntil([&] { return load(&team->pending) == 0; });
}

/// How many parts are worth splitting \p flops of work into on \p team
/// (scratch::kMinFlopsPerPart each).
EMBER_INLINE i64 partsFor(const Team *team, i64 flops) {
  if (!team)
    return 1;
  return maxI(1, minI(team->size, flops / scratch::kMinFlopsPerPart));
}

/// [begin, end) of part p of n items split in `parts` ranges of whole `unit`s, as even as units
/// allow; later parts may be empty.
EMBER_INLINE void partRange(i64 n, i64 parts, i64 unit, i64 p, i64 &begin, i64 &end) {
  i64 units = (n + unit - 1) / unit, per = (units + parts - 1) / parts;
  begin = minI(n, p * per * unit);
  end = minI(n, (p + 1) * per * unit);
}

} // namespace parallel

#endif
