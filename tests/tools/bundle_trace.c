/* The instrumented bundle test's program (model-compiler -instrument; docs/bundles.md): runs
 * the bundle RUNS times on zeroed inputs through NET_traced, the first run with no team (the
 * call starts its own), the others on a team it keeps, and appends each run's events to OUT as
 * utils/bundle-trace.py reads them: the run's count and how many were kept (two uint64),
 * then those (ember_trace_event each). The buffer holds CAPACITY events and one more, a canary the bundle
 * must never write: the program fails if it changes. It prints each run's count.
 *
 *   cc -Iout -DBUNDLE=net -DBUNDLE_UPPER=NET tests/tools/bundle_trace.c out/net.o -pthread
 *   ./a.out out/net.weights.bin RUNS CAPACITY OUT
 */
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define STR(x) #x
#define XSTR(x) STR(x)
#include XSTR(BUNDLE.h)
#define UP(x) XCAT(BUNDLE_UPPER, x)
#define NET(x) XCAT(BUNDLE, x)

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *region(uint64_t bytes) {
  uint64_t rounded = (bytes + UP(_MEM_ALIGN) - 1) / UP(_MEM_ALIGN) * UP(_MEM_ALIGN);
  uint8_t *p = aligned_alloc(UP(_MEM_ALIGN), rounded ? rounded : UP(_MEM_ALIGN));
  if (!p) {
    fprintf(stderr, "error: out of memory\n");
    exit(1);
  }
  memset(p, 0, rounded);
  return p;
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s WEIGHTS RUNS CAPACITY OUT\n", argv[0]);
    return 1;
  }
  int runs = atoi(argv[2]);
  uint64_t capacity = strtoull(argv[3], NULL, 10);
  uint8_t *constants = region(UP(_CONSTANT_MEM_SIZE));
  FILE *w = fopen(argv[1], "rb");
  if (!w || fread(constants, 1, UP(_CONSTANT_MEM_SIZE), w) != UP(_CONSTANT_MEM_SIZE)) {
    fprintf(stderr, "error: cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(w);
  uint8_t *mutableWeights = region(UP(_MUTABLE_MEM_SIZE));
  uint8_t *activations = region(UP(_ACTIVATIONS_MEM_SIZE));
  ember_trace_event *events = malloc((capacity + 1) * sizeof(ember_trace_event));
  ember_trace_event canary;
  memset(&canary, 0xab, sizeof canary);
  FILE *out = fopen(argv[4], "wb");
  if (!events || !out) {
    fprintf(stderr, "error: cannot write %s\n", argv[4]);
    return 1;
  }
  static _Alignas(64) uint8_t storage[UP(_TEAM_BYTES)];
  NET(_team) *team = NET(_team_start)(storage);
  for (int r = 0; r < runs; ++r) {
    ember_trace trace = {events, capacity, 0, 0, 0, 0};
    events[capacity] = canary;
    int status = NET(_traced)(r == 0 ? NULL : team, constants, mutableWeights, activations, &trace);
    if (status != 0) {
      fprintf(stderr, "error: the bundle returned %d\n", status);
      return 1;
    }
    if (memcmp(&events[capacity], &canary, sizeof canary) != 0) {
      fprintf(stderr, "error: the bundle wrote past the buffer's capacity\n");
      return 1;
    }
    uint64_t kept = trace.count < capacity ? trace.count : capacity;
    fwrite(&trace.count, sizeof trace.count, 1, out);
    fwrite(&kept, sizeof kept, 1, out);
    fwrite(events, sizeof(ember_trace_event), kept, out);
    printf("run %d: %llu events\n", r, (unsigned long long)trace.count);
  }
  NET(_team_stop)(team);
  return fclose(out) == 0 ? 0 : 1;
}
