// GridSample (Nodes/DataMovement.def), float kinds. Common.cl says how kernels are called. The
// taps of each grid point come from ember/Semantics/GridSample.h (in the program before this
// file), the Interpreter's own, and are summed as weight * value in double, in tap order.
// Parameters: [count, y, x, grid, C, H, W, points per image, mode, padding, align_corners]; one
// work-item per grid point, for every channel.
#define GRID_SAMPLE(K)                                                                          \
  __kernel void gridsample_##K(ARGS) {                                                          \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long Cc = P[4], H = P[5], W = P[6], points = P[7];                                          \
    long n = i / points, pt = i % points;                                                       \
    __global const uchar *g = PLACE(P[3]), *x = PLACE(P[2]);                                    \
    long offsets[EMBER_GRID_MAX_TAPS];                                                          \
    double weights[EMBER_GRID_MAX_TAPS];                                                        \
    int taps = ember_grid_sample_taps((double)LOAD_##K(g, 2 * i), (double)LOAD_##K(g, 2 * i + 1), \
                                      H, W, (int)P[8], (int)P[9], (int)P[10], offsets, weights); \
    for (long c = 0; c < Cc; ++c) {                                                             \
      long plane = (n * Cc + c) * H * W;                                                        \
      double sum = 0;                                                                           \
      for (int t = 0; t < taps; ++t)                                                            \
        sum += weights[t] * (offsets[t] < 0 ? 0.0 : (double)LOAD_##K(x, plane + offsets[t]));  \
      STORE_##K(PLACE(P[1]), (n * Cc + c) * points + pt, sum);                                  \
    }                                                                                           \
  }
FOR_EACH_FLOAT_KIND(GRID_SAMPLE)
