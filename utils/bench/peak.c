/* This machine's single-core float32 peak: independent chains of fused multiply-adds on the
 * widest vectors the compiler targets (-march=native), enough of them to hide the FMA latency.
 * Prints GFLOP/s (2 flops per lane per FMA), the best of several timed runs.
 *   cc -O2 -march=native utils/bench/peak.c -o peak && ./peak */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <time.h>

#if defined(__AVX512F__)
#define LANES 16
#elif defined(__AVX__) || defined(__ARM_NEON)
#define LANES 8
#else
#define LANES 4
#endif
typedef float vec __attribute__((vector_size(LANES * 4)));

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  vec b, c;
  for (int l = 0; l < LANES; ++l) {
    b[l] = 0.999999f;
    c[l] = 1e-6f;
  }
  /* Twelve independent accumulators in registers: more than an FMA's latency times the FMA
   * units, so the units never wait. */
  vec a0 = c, a1 = c * 2, a2 = c * 3, a3 = c * 4, a4 = c * 5, a5 = c * 6, a6 = c * 7,
      a7 = c * 8, a8 = c * 9, a9 = c * 10, a10 = c * 11, a11 = c * 12;
  const long steps = 50000000;
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    double t = seconds();
    for (long s = 0; s < steps; ++s) {
      /* one FMA each with -ffp-contract=fast, GCC's default */
      a0 = a0 * b + c, a1 = a1 * b + c, a2 = a2 * b + c, a3 = a3 * b + c;
      a4 = a4 * b + c, a5 = a5 * b + c, a6 = a6 * b + c, a7 = a7 * b + c;
      a8 = a8 * b + c, a9 = a9 * b + c, a10 = a10 * b + c, a11 = a11 * b + c;
    }
    t = seconds() - t;
    best = t < best ? t : best;
  }
  vec sum = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
  printf("%.1f GFLOP/s per core (%d-lane FMA; checksum %g)\n",
         2.0 * LANES * 12 * steps / best / 1e9, LANES, sum[0]);
  return 0;
}
