// Pools (Nodes/NN.def): window pools N-D and channels first, and MaxRoiPool, as the
// Interpreter's NNPool.cpp and NNPoolUnpool.cpp (MaxUnpool, a scatter, is Indexed.cl's).
// Common.cl says how kernels are called; the accumulator types NN_ACC_<kind> are NN.cl's.

// What a max over no cells gives: the kind's lowest value (numeric_limits' lowest: finite for
// float32 and float64, -infinity for the 16-bit floats).
#define NN_LOWEST_f32 (-FLT_MAX)
#define NN_LOWEST_f64 (-DBL_MAX)
#define NN_LOWEST_f16 (-INFINITY)
#define NN_LOWEST_bf16 (-INFINITY)
#define NN_LOWEST_i8 (-128)
#define NN_LOWEST_u8 0

// A window pool's geometry, shared by its kernels: per spatial axis at ax, [in, out, kernel,
// stride, begin pad, end pad, dilation]. For output cell op (within a plane) sets each axis's
// first window coordinate in start and returns how many window cells lie inside the padded
// input (count_include_pad's divisor). With ceil mode the last window may run past the end
// padding: cells out there are in neither count.
static inline long nn_pool_window(__global const long *ax, long ns, long op, long *start) {
  long padded = 1;
  for (long d = ns - 1; d >= 0; --d) {
    __global const long *e = ax + 7 * d;
    start[d] = (op % e[1]) * e[3] - e[4];
    op /= e[1];
    long cells = 0;
    for (long j = 0; j < e[2]; ++j)
      cells += start[d] + j * e[6] < e[0] + e[5];
    padded *= cells;
  }
  return padded;
}

// Element counts of an input plane, an output plane and a window.
static inline long3 nn_pool_sizes(__global const long *ax, long ns) {
  long3 s = (long3)(1, 1, 1);
  for (long d = 0; d < ns; ++d)
    s *= (long3)(ax[7 * d], ax[7 * d + 1], ax[7 * d + 2]);
  return s;
}

// Walks window position k (row-major over the kernel) and sets the cell's row-major offset
// within an input plane (col: its column-major one); false when the cell lies outside the
// real input (in the padding, or past it).
static inline bool nn_pool_cell(__global const long *ax, long ns, const long *start,
                                const long *k, long *row, long *col) {
  long r = 0, c = 0, stride = 1;
  for (long d = 0; d < ns; ++d) {
    __global const long *e = ax + 7 * d;
    long at = start[d] + k[d] * e[6];
    if (at < 0 || at >= e[0])
      return false;
    r = r * e[0] + at;
    c += at * stride;
    stride *= e[0];
  }
  *row = r;
  *col = c;
  return true;
}

static inline void nn_pool_step(__global const long *ax, long ns, long *k) {
  for (long d = ns - 1; d >= 0; --d) {
    if (++k[d] < ax[7 * d + 2])
      return;
    k[d] = 0;
  }
}

// MaxPool: [count, y, x, indices, storage order, unused, unused, spatial rank, then the
// axes]. Only real cells are visited, so padding never wins; the first cell wins and then only
// a strictly greater one (a NaN first stays, a later one never wins). A window of padding
// alone gives the kind's lowest value and index -1. The index is flat over the whole input,
// its spatial part column-major with storage order 1.
#define NN_MAXPOOL(K)                                                                          \
  __kernel void maxpool_##K(ARGS) {                                                            \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long ns = P[7];                                                                            \
    __global const long *ax = P + 8;                                                           \
    long3 size = nn_pool_sizes(ax, ns);                                                        \
    long base = (i / size.y) * size.x, start[MAX_RANK], k[MAX_RANK];                           \
    nn_pool_window(ax, ns, i % size.y, start);                                                 \
    for (long d = 0; d < ns; ++d)                                                              \
      k[d] = 0;                                                                                \
    __global const uchar *x = PLACE(P[2]);                                                     \
    COMPUTE_##K best = NN_LOWEST_##K;                                                          \
    long at = -1, index = -1;                                                                  \
    for (long kp = 0; kp < size.z; ++kp, nn_pool_step(ax, ns, k)) {                            \
      long row, col;                                                                           \
      if (!nn_pool_cell(ax, ns, start, k, &row, &col))                                         \
        continue;                                                                              \
      COMPUTE_##K v = LOAD_##K(x, base + row);                                                 \
      if (at < 0 || v > best) {                                                                \
        best = v;                                                                              \
        at = base + row;                                                                       \
        index = base + (P[4] ? col : row);                                                     \
      }                                                                                        \
    }                                                                                          \
    __global STORAGE_##K *y = (__global STORAGE_##K *)PLACE(P[1]);                             \
    if (at >= 0)                                                                               \
      y[i] = ((__global const STORAGE_##K *)x)[at]; /* the cell's bits, NaN payload too */     \
    else                                                                                       \
      STORE_##K(y, i, best);                                                                   \
    ((__global long *)PLACE(P[3]))[i] = index;                                                 \
  }
FOR_EACH_FLOAT_KIND(NN_MAXPOOL)
NN_MAXPOOL(i8)
NN_MAXPOOL(u8)

// pow in the accumulator type K, taken in double and rounded: for float that is the correctly
// rounded powf the Interpreter's libm gives (OpenCL's float pow may be some ulps off).
#define NN_POW(K, x, y) ((NN_ACC_##K)pow((double)(x), (double)(y)))

// AvgPool and LpPool: [count, y, x, unused, unused, mode, p bits, spatial rank, then the axes];
// mode 0 averages over the real cells, 1 over the cells inside the padded input
// (count_include_pad), 2 is the Lp norm (padding adds |0|^p = 0). The real cells are summed
// row-major in the accumulator type; an average of no cells is 0.
#define NN_SUMPOOL(K)                                                                          \
  __kernel void sumpool_##K(ARGS) {                                                            \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long ns = P[7], mode = P[5];                                                               \
    __global const long *ax = P + 8;                                                           \
    long3 size = nn_pool_sizes(ax, ns);                                                        \
    long base = (i / size.y) * size.x, start[MAX_RANK], k[MAX_RANK];                           \
    long padded = nn_pool_window(ax, ns, i % size.y, start), cells = 0;                        \
    for (long d = 0; d < ns; ++d)                                                              \
      k[d] = 0;                                                                                \
    __global const uchar *x = PLACE(P[2]);                                                     \
    NN_ACC_##K sum = 0, p = (NN_ACC_##K)PF(6);                                                 \
    for (long kp = 0; kp < size.z; ++kp, nn_pool_step(ax, ns, k)) {                            \
      long row, col;                                                                           \
      if (!nn_pool_cell(ax, ns, start, k, &row, &col))                                         \
        continue;                                                                              \
      NN_ACC_##K v = (NN_ACC_##K)LOAD_##K(x, base + row);                                      \
      sum += mode == 2 ? NN_POW(K, fabs(v), p) : v;                                            \
      ++cells;                                                                                 \
    }                                                                                          \
    long count = mode == 1 ? padded : cells;                                                   \
    NN_ACC_##K r = mode == 2 ? NN_POW(K, sum, (NN_ACC_##K)1 / p)                               \
                   : count   ? sum / (NN_ACC_##K)count                                         \
                             : (NN_ACC_##K)0;                                                  \
    STORE_##K(PLACE(P[1]), i, r);                                                              \
  }
FOR_EACH_FLOAT_KIND(NN_SUMPOOL)

// A region coordinate scaled to input cells, rounded half away from zero as Caffe (and
// onnxruntime) round it; false when it is not finite or beyond 2^40.
static inline bool nn_roi_coordinate(double v, double scale, long *out) {
  double s = round(v * scale);
  if (!isfinite(s) || fabs(s) > (double)(1L << 40))
    return false;
  *out = (long)s;
  return true;
}

// MaxRoiPool: [count, y, x, rois, spatial scale bits, N, C, H, W, pooled H, pooled W]. Region
// rows are (batch, x1, y1, x2, y2); a batch index that is not an integer in [0, N), or a
// coordinate out of range, fails the run. A malformed region is forced to one cell; bins are
// computed in double, clamped to the input, and an empty bin is 0. NaN never wins a bin.
#define NN_MAXROIPOOL(K)                                                                       \
  __kernel void maxroipool_##K(ARGS) {                                                         \
    P += p0;                                                                                   \
    long i = get_global_id(0);                                                                 \
    if (i >= P[0])                                                                             \
      return;                                                                                  \
    long Nb = P[5], Cc = P[6], H = P[7], W = P[8], PH = P[9], PW = P[10];                      \
    long pw = i % PW, ph = (i / PW) % PH, c = (i / (PW * PH)) % Cc, roi = i / (PW * PH * Cc);  \
    __global const uchar *r = PLACE(P[3]);                                                     \
    double batch = (double)LOAD_##K(r, roi * 5), scale = (double)PF(4);                        \
    long x1, y1, x2, y2;                                                                       \
    if (!(batch >= 0) || batch >= (double)Nb || batch != floor(batch) ||                       \
        !nn_roi_coordinate((double)LOAD_##K(r, roi * 5 + 1), scale, &x1) ||                   \
        !nn_roi_coordinate((double)LOAD_##K(r, roi * 5 + 2), scale, &y1) ||                   \
        !nn_roi_coordinate((double)LOAD_##K(r, roi * 5 + 3), scale, &x2) ||                   \
        !nn_roi_coordinate((double)LOAD_##K(r, roi * 5 + 4), scale, &y2)) {                   \
      FAIL();                                                                                  \
      return;                                                                                  \
    }                                                                                          \
    double binH = (double)max(y2 - y1 + 1, 1L) / (double)PH;                                   \
    double binW = (double)max(x2 - x1 + 1, 1L) / (double)PW;                                   \
    long hBegin = clamp((long)floor((double)ph * binH) + y1, 0L, H);                           \
    long hEnd = clamp((long)ceil((double)(ph + 1) * binH) + y1, 0L, H);                        \
    long wBegin = clamp((long)floor((double)pw * binW) + x1, 0L, W);                           \
    long wEnd = clamp((long)ceil((double)(pw + 1) * binW) + x1, 0L, W);                        \
    __global const uchar *x = PLACE(P[2]);                                                     \
    long plane = ((long)batch * Cc + c) * H * W;                                               \
    double best = hEnd <= hBegin || wEnd <= wBegin ? 0.0 : -(double)INFINITY;                  \
    for (long h = hBegin; h < hEnd; ++h)                                                       \
      for (long w = wBegin; w < wEnd; ++w) {                                                   \
        double v = (double)LOAD_##K(x, plane + h * W + w);                                     \
        if (best < v)                                                                          \
          best = v;                                                                            \
      }                                                                                        \
    STORE_##K(PLACE(P[1]), i, (NN_ACC_##K)best);                                               \
  }
FOR_EACH_FLOAT_KIND(NN_MAXROIPOOL)
