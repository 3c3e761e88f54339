/* The bundle test's runner: dynamic_runner.c's command line (NET.weights.bin NAME=FILE.npy...
 * -o OUTDIR), but every region in memory of exactly its size (rounded up to the alignment)
 * that ends at an inaccessible page, and the constant weights read-only, so a bundle that
 * reads or writes outside its regions, or writes its constants, dies with SIGSEGV instead of
 * passing. With -t THREADS, after the first run each thread runs the same inputs RUNS times
 * (-r, default 3) on regions of its own, at the same time, and every run's outputs must equal
 * the first run's bytes (a bundle keeps no state between calls, or serializes them). With
 * -team own (a CPU bundle, compiled with -DBUNDLE_TEAM) each of those threads starts one team
 * and makes all its runs on it (NET_team_start, NET_on_team); with -team pool, on a pool of its
 * own whose parallel-for runs each part but the first on a thread of its own, and the runner
 * then prints how many jobs the pools ran. Compiled with -DBUNDLE_WEIGHTS_OBJECT and linked with
 * NET.weights.o (-bundle-weights=object), it reads no weights file and takes no path for one:
 * the constants are NET_constant_weights, which must be aligned as the bundle's regions are.
 *
 *   cc -Iout -Iexamples/bundles -DBUNDLE=net tests/tools/bundle_check.c out/net.o -pthread
 */
#define _DEFAULT_SOURCE
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define STR(x) #x
#define XSTR(x) STR(x)
#include XSTR(BUNDLE.h)
#define BUNDLE_CONFIG XCAT(BUNDLE, _config)
#define BUNDLE_CONFIG_TYPE XCAT(BUNDLE, _config_t)

#include "npy.h"
#include "outputs.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const BUNDLE_CONFIG_TYPE *cfg = &BUNDLE_CONFIG;

/* `bytes` of zeroed memory, aligned to cfg->alignment, whose rounded-up end is the start of a
 * page that faults on any access (and a faulting page before it). */
static uint8_t *guarded(uint64_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uint64_t rounded = (bytes + cfg->alignment - 1) / cfg->alignment * cfg->alignment;
  size_t dataPages = (size_t)((rounded + page - 1) / page);
  size_t total = (dataPages + 2) * page;
  uint8_t *base = (uint8_t *)mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED ||
      (dataPages && mprotect(base + page, dataPages * page, PROT_READ | PROT_WRITE))) {
    fprintf(stderr, "error: cannot map %llu bytes\n", (unsigned long long)bytes);
    exit(1);
  }
  return base + page + dataPages * page - rounded;
}

static uint8_t *constant, *inputs;
static const char *teamMode = NULL; /* -team: "own" or "pool" */

#ifdef BUNDLE_TEAM
#define BUNDLE_TEAM_T XCAT(BUNDLE, _team)
/* The pool of -team pool: part 0 on the calling thread, each other part on a thread started
 * for it, all joined before it returns. */
typedef struct {
  void (*run)(const void *, int64_t);
  const void *job;
  int64_t part;
} PoolPart;
static long poolJobs;
static void *runPoolPart(void *arg) {
  PoolPart *p = (PoolPart *)arg;
  p->run(p->job, p->part);
  return NULL;
}
static void parallelFor(void *pool, int64_t parts, void (*run)(const void *, int64_t),
                        const void *job) {
  (void)pool;
  __atomic_fetch_add(&poolJobs, 1, __ATOMIC_RELAXED);
  pthread_t ids[64];
  PoolPart ps[64];
  for (int64_t p = 1; p < parts && p < 64; ++p) {
    ps[p] = (PoolPart){run, job, p};
    if (pthread_create(&ids[p], NULL, runPoolPart, &ps[p]) != 0)
      abort();
  }
  run(job, 0);
  for (int64_t p = 1; p < parts && p < 64; ++p)
    pthread_join(ids[p], NULL);
}
#endif

typedef struct {
  int runs, failures;
} Job;

static void *runJob(void *arg) {
  Job *job = (Job *)arg;
  uint8_t *m = guarded(cfg->mutableMemSize), *a = guarded(cfg->activationsMemSize);
#ifdef BUNDLE_TEAM
  void *storage = NULL;
  if (posix_memalign(&storage, 64, XCAT(BUNDLE_UPPER, _TEAM_BYTES)) != 0)
    abort();
  BUNDLE_TEAM_T *team = NULL;
  if (teamMode && !strcmp(teamMode, "own"))
    team = XCAT(BUNDLE_TEAM_T, _start)(storage);
  else if (teamMode)
    team = XCAT(BUNDLE_TEAM_T, _of_pool)(storage, parallelFor, NULL, 2);
#endif
  for (int r = 0; r < job->runs; ++r) {
    memcpy(m, inputs, cfg->mutableMemSize);
    for (uint64_t s = 0; s < cfg->numSymbols; ++s) /* outputs start unknown */
      if (cfg->symbols[s].kind == 'o')
        memset(m + cfg->symbols[s].offset, 0xA5, cfg->symbols[s].size);
#ifdef BUNDLE_TEAM
    int status = XCAT(BUNDLE, _on_team)(team, constant, m, a);
#else
    int status = BUNDLE(constant, m, a);
#endif
    for (uint64_t s = 0; s < cfg->numSymbols && status == 0; ++s)
      if (cfg->symbols[s].kind == 'o' &&
          memcmp(m + cfg->symbols[s].offset, inputs + cfg->symbols[s].offset,
                 cfg->symbols[s].size) != 0)
        status = -1;
    if (status != 0)
      job->failures++;
  }
#ifdef BUNDLE_TEAM
  if (team)
    XCAT(BUNDLE_TEAM_T, _stop)(team);
  free(storage);
#endif
  return NULL;
}

int main(int argc, char **argv) {
  const char *outDir = NULL;
#ifndef BUNDLE_WEIGHTS_OBJECT
  const char *weightsPath = NULL;
#endif
  int threads = 0, runs = 3;
  uint8_t *mutableWeight = guarded(cfg->mutableMemSize);
  uint8_t *activations = guarded(cfg->activationsMemSize);
  for (int a = 1; a < argc; ++a) {
    if (!strcmp(argv[a], "-o") && a + 1 < argc) {
      outDir = argv[++a];
    } else if (!strcmp(argv[a], "-t") && a + 1 < argc) {
      threads = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
      runs = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "-team") && a + 1 < argc) {
      teamMode = argv[++a];
#ifndef BUNDLE_TEAM
      fprintf(stderr, "error: -team needs a CPU bundle, built with -DBUNDLE_TEAM\n");
      return 2;
#endif
#ifndef BUNDLE_WEIGHTS_OBJECT
    } else if (!weightsPath) {
      weightsPath = argv[a];
#endif
    } else {
      char *eq = strchr(argv[a], '=');
      if (!eq) {
        fprintf(stderr, "error: expected NAME=FILE.npy, got '%s'\n", argv[a]);
        return 2;
      }
      *eq = 0;
      uint64_t s = 0;
      while (s < cfg->numSymbols &&
             (strcmp(cfg->symbols[s].name, argv[a]) != 0 || cfg->symbols[s].kind != 'i'))
        ++s;
      void *data;
      size_t bytes;
      char descr[8];
      if (s == cfg->numSymbols || npy_read(eq + 1, &data, &bytes, descr) != 0 ||
          bytes != cfg->symbols[s].size) {
        fprintf(stderr, "error: no input '%s' of the size of %s\n", argv[a], eq + 1);
        return 1;
      }
      memcpy(mutableWeight + cfg->symbols[s].offset, data, bytes);
      free(data);
    }
  }
#ifdef BUNDLE_WEIGHTS_OBJECT
  /* Linked in, in read-only data: a write faults already. */
  constant = (uint8_t *)XCAT(BUNDLE, _constant_weights);
  if ((uintptr_t)constant % cfg->alignment != 0) {
    fprintf(stderr, "error: the linked weights are not aligned to %llu bytes\n",
            (unsigned long long)cfg->alignment);
    return 1;
  }
#else
  constant = guarded(cfg->constantMemSize);
  FILE *w = weightsPath ? fopen(weightsPath, "rb") : NULL;
  if (!w || fread(constant, 1, cfg->constantMemSize, w) != cfg->constantMemSize ||
      fgetc(w) != EOF) {
    fprintf(stderr, "error: expected exactly %llu bytes of weights\n",
            (unsigned long long)cfg->constantMemSize);
    return 1;
  }
  fclose(w);
  /* The constant region is only read: make a write fault. */
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uintptr_t first = (uintptr_t)constant / page * page;
  uintptr_t end = ((uintptr_t)constant + cfg->constantMemSize + page - 1) / page * page;
  if (end > first && mprotect((void *)first, end - first, PROT_READ) != 0) {
    fprintf(stderr, "error: cannot protect the constant region\n");
    return 1;
  }
#endif
  inputs = (uint8_t *)malloc(cfg->mutableMemSize ? cfg->mutableMemSize : 1);
  memcpy(inputs, mutableWeight, cfg->mutableMemSize);

  int status = BUNDLE(constant, mutableWeight, activations);
  if (status != 0) {
    fprintf(stderr, "error: the bundle returned %d\n", status);
    return 1;
  }
  memcpy(inputs, mutableWeight, cfg->mutableMemSize); /* now with the outputs to compare */
  if (threads > 0) {
    pthread_t *ids = (pthread_t *)calloc((size_t)threads, sizeof(pthread_t));
    Job *jobs = (Job *)calloc((size_t)threads, sizeof(Job));
    for (int t = 0; t < threads; ++t) {
      jobs[t].runs = runs;
      pthread_create(&ids[t], NULL, runJob, &jobs[t]);
    }
    int failures = 0;
    for (int t = 0; t < threads; ++t) {
      pthread_join(ids[t], NULL);
      failures += jobs[t].failures;
    }
    if (failures) {
      fprintf(stderr, "error: %d of %d concurrent runs differ from the first run\n", failures,
              threads * runs);
      return 1;
    }
    printf("%d threads x %d runs: all equal to the first run\n", threads, runs);
#ifdef BUNDLE_TEAM
    if (teamMode && strcmp(teamMode, "own") != 0)
      printf("the pools ran %ld jobs\n", poolJobs);
#endif
  }
  for (uint64_t s = 0; s < cfg->numSymbols && outDir; ++s) {
    if (cfg->symbols[s].kind != 'o')
      continue;
    if (write_output(outDir, cfg->symbols[s].name, mutableWeight + cfg->symbols[s].offset,
                     cfg->symbols[s].size) != 0)
      return 1;
  }
  return 0;
}
