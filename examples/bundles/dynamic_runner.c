/* The dynamic bundle API: a program that knows no offsets or sizes when it is written. It
 * reads them from the bundle's NET_config (compile the bundle with -bundle-api=dynamic), loads
 * NET.weights.bin at run time, looks each input up by name in the symbol table and writes each
 * output to a file. It serves any model: name the bundle when compiling it,
 *
 *   model-compiler -model=m.onnx -emit-bundle=out -network-name=net -bundle-api=dynamic
 *   cc -O2 -Iout -DBUNDLE=net examples/bundles/dynamic_runner.c out/net.o -lm -o runner
 *   ./runner out/net.weights.bin x=input.npy -o outputs/      (writes outputs/<name>.bin)
 *   ./runner out/net.weights.bin x=input.npy -n 100 -w 5     (also times 100 runs after 5
 *                                                             more untimed ones)
 *
 * Inputs are .npy files whose data has the input's byte size; outputs are written raw, in the
 * element type and shape the bundle's NET.json manifest gives.
 *
 * A CPU bundle compiled with -threads=N (its manifest's "threads") runs its calls on one team
 * of threads kept from the first call to the last (NET_team_start, NET_on_team) when this file
 * is compiled with -DBUNDLE_TEAM -DBUNDLE_UPPER=NET (NET in capitals, its macros' prefix); else
 * each call starts and joins its own workers.
 */
#define _POSIX_C_SOURCE 200809L
/* BUNDLE names the bundle (its network name NET): include NET.h, use NET_config and NET(). */
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define STR(x) #x
#define XSTR(x) STR(x)
#include XSTR(BUNDLE.h)
#define BUNDLE_CONFIG XCAT(BUNDLE, _config)
#define BUNDLE_CONFIG_TYPE XCAT(BUNDLE, _config_t)
#ifdef BUNDLE_TEAM
#define BUNDLE_ENTRY(c, m, a) XCAT(BUNDLE, _on_team)(team, c, m, a)
#else
#define BUNDLE_ENTRY(c, m, a) BUNDLE(c, m, a)
#endif

#include "npy.h"
#include "outputs.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint8_t *alignedBuffer(uint64_t bytes, uint64_t alignment) {
  void *p = NULL;
  if (posix_memalign(&p, alignment, bytes ? bytes : alignment) != 0)
    return NULL;
  memset(p, 0, bytes);
  return (uint8_t *)p;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int compareDoubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const char *weightsPath = NULL, *outDir = NULL;
  int iterations = 0, warmup = 0;
  const BUNDLE_CONFIG_TYPE *cfg = &BUNDLE_CONFIG;
  uint8_t *constant = alignedBuffer(cfg->constantMemSize, cfg->alignment);
  uint8_t *mutableWeight = alignedBuffer(cfg->mutableMemSize, cfg->alignment);
  uint8_t *activations = alignedBuffer(cfg->activationsMemSize, cfg->alignment);
  int *given = (int *)calloc(cfg->numSymbols + 1, sizeof(int));
  if (!constant || !mutableWeight || !activations || !given) {
    fprintf(stderr, "error: out of memory\n");
    return 1;
  }
  for (int a = 1; a < argc; ++a) {
    if (!strcmp(argv[a], "-o") && a + 1 < argc) {
      outDir = argv[++a];
    } else if (!strcmp(argv[a], "-n") && a + 1 < argc) {
      iterations = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "-w") && a + 1 < argc) {
      warmup = atoi(argv[++a]);
    } else if (!weightsPath) {
      weightsPath = argv[a];
    } else {
      char *eq = strchr(argv[a], '=');
      if (!eq) {
        fprintf(stderr, "error: expected NAME=FILE.npy, got '%s'\n", argv[a]);
        return 2;
      }
      *eq = 0;
      const char *name = argv[a], *path = eq + 1;
      uint64_t s = 0;
      while (s < cfg->numSymbols &&
             (strcmp(cfg->symbols[s].name, name) != 0 || cfg->symbols[s].kind != 'i'))
        ++s;
      if (s == cfg->numSymbols) {
        fprintf(stderr, "error: the bundle has no input '%s'\n", name);
        return 1;
      }
      void *data;
      size_t bytes;
      char descr[8];
      if (npy_read(path, &data, &bytes, descr) != 0)
        return 1;
      if (bytes != cfg->symbols[s].size) {
        fprintf(stderr, "error: %s: %zu bytes of data, input '%s' takes %llu\n", path, bytes,
                name, (unsigned long long)cfg->symbols[s].size);
        return 1;
      }
      memcpy(mutableWeight + cfg->symbols[s].offset, data, bytes);
      free(data);
      given[s] = 1;
    }
  }
  if (!weightsPath) {
    fprintf(stderr,
            "usage: %s NET.weights.bin NAME=INPUT.npy... [-o OUTDIR] [-n RUNS] [-w WARMUP]\n",
            argv[0]);
    return 2;
  }
  FILE *w = fopen(weightsPath, "rb");
  if (!w || fread(constant, 1, cfg->constantMemSize, w) != cfg->constantMemSize ||
      fgetc(w) != EOF) {
    fprintf(stderr, "error: %s: expected exactly %llu bytes of weights\n", weightsPath,
            (unsigned long long)cfg->constantMemSize);
    return 1;
  }
  fclose(w);
  for (uint64_t s = 0; s < cfg->numSymbols; ++s)
    if (cfg->symbols[s].kind == 'i' && !given[s]) {
      fprintf(stderr, "error: no data for input '%s'\n", cfg->symbols[s].name);
      return 1;
    }

#ifdef BUNDLE_TEAM
  void *storage = NULL;
  if (posix_memalign(&storage, 64, XCAT(BUNDLE_UPPER, _TEAM_BYTES)) != 0) {
    fprintf(stderr, "error: out of memory\n");
    return 1;
  }
  XCAT(BUNDLE, _team) *team = XCAT(BUNDLE, _team_start)(storage);
#endif
  int status = BUNDLE_ENTRY(constant, mutableWeight, activations);
  if (status != 0) {
    fprintf(stderr, "error: the bundle returned %d\n", status);
    return 1;
  }
  for (int i = 0; i < warmup; ++i)
    BUNDLE_ENTRY(constant, mutableWeight, activations);
  if (iterations > 0) {
    double *ms = (double *)malloc(sizeof(double) * (size_t)iterations);
    for (int i = 0; i < iterations; ++i) {
      double t = now();
      BUNDLE_ENTRY(constant, mutableWeight, activations);
      ms[i] = now() - t;
    }
    qsort(ms, (size_t)iterations, sizeof(double), compareDoubles);
    double median = iterations % 2 ? ms[iterations / 2]
                                   : (ms[iterations / 2 - 1] + ms[iterations / 2]) / 2;
    printf("latency: median %.3f ms, min %.3f ms over %d runs\n", median, ms[0], iterations);
    free(ms);
  }
#ifdef BUNDLE_TEAM
  XCAT(BUNDLE, _team_stop)(team);
  free(storage);
#endif
  for (uint64_t s = 0; s < cfg->numSymbols; ++s) {
    if (cfg->symbols[s].kind != 'o')
      continue;
    printf("output '%s': %llu bytes at offset %llu\n", cfg->symbols[s].name,
           (unsigned long long)cfg->symbols[s].size, (unsigned long long)cfg->symbols[s].offset);
    if (!outDir)
      continue;
    if (write_output(outDir, cfg->symbols[s].name, mutableWeight + cfg->symbols[s].offset,
                     cfg->symbols[s].size) != 0)
      return 1;
  }
  return 0;
}
