// Starting and stopping the team of Parallel.h: the generated entry function calls these first
// and last when the model is compiled with -threads above 1.
#include "Parallel.h"

using namespace parallel;

/// Starts `threads - 1` workers into \p storage (scratch::kTeamBytes on the caller's stack);
/// fewer when a thread cannot be created (the team then runs on those it has).
EMBER_KERNEL Team *ember_team_start(void *storage, i64 threads) {
  Team *t = static_cast<Team *>(storage);
  t->size = 1;
  t->run = nullptr;
  t->body = nullptr;
  t->claim = 0;
  t->done = 0;
  t->generation = 0;
  t->stop = 0;
  for (i64 i = 1; i < minI(threads, kMaxThreads); ++i) {
    t->workers[i] = Worker{t, i};
    if (pthread_create(&t->ids[i], nullptr, workerMain, &t->workers[i]) != 0)
      break;
    t->size = i + 1;
  }
  return t;
}

/// Stops the team's workers and joins them.
EMBER_KERNEL void ember_team_stop(Team *t) {
  __atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
  for (i64 i = 1; i < t->size; ++i)
    pthread_join(t->ids[i], nullptr);
}
