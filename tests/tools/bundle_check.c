/* The bundle test's runner: dynamic_runner.c's command line (NET.weights.bin NAME=FILE.npy...
 * -o OUTDIR), but every region in memory of exactly its size (rounded up to the alignment)
 * that ends at an inaccessible page, and the constant weights read-only, so a bundle that
 * reads or writes outside its regions, or writes its constants, dies with SIGSEGV instead of
 * passing. With -t THREADS, after the first run each thread runs the same inputs RUNS times
 * (-r, default 3) on regions of its own, at the same time, and every run's outputs must equal
 * the first run's bytes (a bundle keeps no state between calls, or serializes them).
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

typedef struct {
  int runs, failures;
} Job;

static void *runJob(void *arg) {
  Job *job = (Job *)arg;
  uint8_t *m = guarded(cfg->mutableMemSize), *a = guarded(cfg->activationsMemSize);
  for (int r = 0; r < job->runs; ++r) {
    memcpy(m, inputs, cfg->mutableMemSize);
    for (uint64_t s = 0; s < cfg->numSymbols; ++s) /* outputs start unknown */
      if (cfg->symbols[s].kind == 'o')
        memset(m + cfg->symbols[s].offset, 0xA5, cfg->symbols[s].size);
    int status = BUNDLE(constant, m, a);
    for (uint64_t s = 0; s < cfg->numSymbols && status == 0; ++s)
      if (cfg->symbols[s].kind == 'o' &&
          memcmp(m + cfg->symbols[s].offset, inputs + cfg->symbols[s].offset,
                 cfg->symbols[s].size) != 0)
        status = -1;
    if (status != 0)
      job->failures++;
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *weightsPath = NULL, *outDir = NULL;
  int threads = 0, runs = 3;
  constant = guarded(cfg->constantMemSize);
  uint8_t *mutableWeight = guarded(cfg->mutableMemSize);
  uint8_t *activations = guarded(cfg->activationsMemSize);
  for (int a = 1; a < argc; ++a) {
    if (!strcmp(argv[a], "-o") && a + 1 < argc) {
      outDir = argv[++a];
    } else if (!strcmp(argv[a], "-t") && a + 1 < argc) {
      threads = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "-r") && a + 1 < argc) {
      runs = atoi(argv[++a]);
    } else if (!weightsPath) {
      weightsPath = argv[a];
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
