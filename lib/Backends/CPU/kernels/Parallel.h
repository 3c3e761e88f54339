// Intra-operator parallelism for the heavy kernels (GEMM, convolution): a kernel splits its work
// into `parts`, runs all but the first on threads created for the call and the first on the
// calling thread, and joins them before it returns. No pool and nothing kept between calls, so
// a compiled model (or a bundle) still has no global state; creating a thread costs tens of
// microseconds, small next to the kernels this is used for. With one part no thread is created,
// and when every call site passes 1 the optimizer removes the pthread calls altogether (a
// single-threaded bundle needs no -pthread).
#ifndef EMBER_CPU_KERNELS_PARALLEL_H
#define EMBER_CPU_KERNELS_PARALLEL_H

#include "KernelCommon.h"

// pthread_t is an unsigned long (glibc) or a pointer (musl): 8 bytes on the 64-bit targets.
extern "C" int pthread_create(u64 *thread, const void *attr, void *(*start)(void *), void *arg);
extern "C" int pthread_join(u64 thread, void **result);

namespace parallel {

constexpr i64 kMaxParts = 64;

template <typename F> struct Job {
  const F *body;
  i64 part;
  static void *run(void *self) {
    Job *j = static_cast<Job *>(self);
    (*j->body)(j->part);
    return nullptr;
  }
};

/// body(p) for every p in [0, parts), at most kMaxParts of them, parts 1.. on their own threads.
/// A thread that cannot be created runs its part here instead.
template <typename F> EMBER_INLINE void forEachPart(i64 parts, const F &body) {
  parts = minI(parts, kMaxParts);
  if (parts <= 1) {
    body(0);
    return;
  }
  Job<F> jobs[kMaxParts];
  u64 ids[kMaxParts];
  bool started[kMaxParts];
  for (i64 p = 1; p < parts; ++p) {
    jobs[p] = Job<F>{&body, p};
    started[p] = pthread_create(&ids[p], nullptr, Job<F>::run, &jobs[p]) == 0;
  }
  body(0);
  for (i64 p = 1; p < parts; ++p) {
    if (started[p])
      pthread_join(ids[p], nullptr);
    else
      body(p);
  }
}

/// Creating and joining a thread costs tens of microseconds (80 on the machine this was tuned
/// on): a part must be worth several times that, or splitting makes a kernel slower.
constexpr i64 kMinFlopsPerPart = i64(16) << 20;

/// How many parts to split \p flops of work into with \p threads threads.
EMBER_INLINE i64 partsFor(i64 threads, i64 flops) {
  i64 worth = flops / kMinFlopsPerPart;
  return maxI(1, minI(threads, worth));
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
