// GridSample (Nodes/DataMovement.def), float kinds. Common.cl says how kernels are called. The
// taps of each grid point come from ember/Semantics/GridSample.h (in the program before this
// file), the Interpreter's own, and are summed as weight * value in double, in tap order.
// Parameters: [count, y, x, grid, C, points per image, mode, padding, align_corners, spatial
// rank r, then the r input dims]; one work-item per grid point, for every channel.
#define GRID_SAMPLE(K)                                                                          \
  __kernel void gridsample_##K(ARGS) {                                                          \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long Cc = P[4], points = P[5], volume = 1;                                                  \
    int rank = (int)P[9];                                                                       \
    long n = i / points, pt = i % points;                                                       \
    __global const uchar *g = PLACE(P[3]), *x = PLACE(P[2]);                                    \
    long dims[EMBER_GRID_MAX_RANK];                                                             \
    double coords[EMBER_GRID_MAX_RANK];                                                         \
    /* The grid lists a point's coordinates innermost axis first. */                            \
    for (int a = 0; a < rank; ++a) {                                                            \
      dims[a] = P[10 + a];                                                                      \
      volume *= dims[a];                                                                        \
      coords[a] = (double)LOAD_##K(g, rank * i + rank - 1 - a);                                 \
    }                                                                                           \
    long offsets[EMBER_GRID_MAX_TAPS];                                                          \
    double weights[EMBER_GRID_MAX_TAPS];                                                        \
    int taps = ember_grid_sample_taps(coords, dims, rank, (int)P[6], (int)P[7], (int)P[8],      \
                                      offsets, weights);                                        \
    for (long c = 0; c < Cc; ++c) {                                                             \
      long plane = (n * Cc + c) * volume;                                                       \
      double sum = 0;                                                                           \
      for (int t = 0; t < taps; ++t)                                                            \
        sum += weights[t] * (offsets[t] < 0 ? 0.0 : (double)LOAD_##K(x, plane + offsets[t]));  \
      STORE_##K(PLACE(P[1]), (n * Cc + c) * points + pt, sum);                                  \
    }                                                                                           \
  }
FOR_EACH_FLOAT_KIND(GRID_SAMPLE)
