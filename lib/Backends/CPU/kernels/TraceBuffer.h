// The events a model compiled with instrumentation records (model-runner -trace, model-compiler
// -instrument): one per computing instruction a run executes and one per part of a threaded
// step each thread ran, into a buffer its caller owns. One layout for the three sides that
// meet here: the kernel library writes it (Trace.h), the JIT's host code reads it
// (CPUBackend.cpp), and a bundle's header declares it to C (BundleObject.cpp writes the same
// fields as ember_trace_event and ember_trace). Plain C++ with no includes, as Scratch.h.
#ifndef EMBER_CPU_KERNELS_TRACEBUFFER_H
#define EMBER_CPU_KERNELS_TRACEBUFFER_H

namespace tracebuf {

/// One span, in nanoseconds of CLOCK_MONOTONIC (steady_clock's epoch on Linux).
struct Event {
  __UINT64_TYPE__ startNs, endNs;
  __INT32_TYPE__ instruction; ///< the computing instruction's index (the -profile slot)
  __INT32_TYPE__ thread;      ///< 0: the calling thread; k: the team's k-th worker
  __INT32_TYPE__ part;        ///< -1: the instruction itself; p: part p of its threaded step
  __INT32_TYPE__ reserved;
};
static_assert(sizeof(Event) == 32, "ember_trace_event in a bundle's header");

/// The caller sets events, capacity and count (0). Every event claims an index from count
/// atomically and is written only below capacity: count - capacity events were dropped when
/// count ends above it. current and since belong to the run (the instruction running and its
/// start), so a buffer serves one call at a time.
struct Buffer {
  Event *events;
  __UINT64_TYPE__ capacity;
  __UINT64_TYPE__ count;   ///< atomic
  __INT32_TYPE__ current;  ///< atomic: the running instruction, -1 before the first
  __INT32_TYPE__ reserved;
  __UINT64_TYPE__ since;   ///< when the running instruction started
};
static_assert(sizeof(Buffer) == 40, "ember_trace in a bundle's header");

} // namespace tracebuf

#endif
