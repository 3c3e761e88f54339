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
// input (count_include_pad's count, ember/Semantics/Pool.h).
static inline long nn_pool_window(__global const long *ax, long ns, long op, long *start) {
  long padded = 1;
  for (long d = ns - 1; d >= 0; --d) {
    __global const long *e = ax + 7 * d;
    start[d] = (op % e[1]) * e[3] - e[4];
    op /= e[1];
    padded *= ember_pool_padded_taps(start[d], e[6], e[2], e[0], e[5]);
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
    long count = ember_pool_average_divisor(cells, padded, mode == 1);                         \
    NN_ACC_##K r = mode == 2 ? NN_POW(K, sum, (NN_ACC_##K)1 / p)                               \
                   : count   ? sum / (NN_ACC_##K)count                                         \
                             : (NN_ACC_##K)0;                                                  \
    STORE_##K(PLACE(P[1]), i, r);                                                              \
  }
FOR_EACH_FLOAT_KIND(NN_SUMPOOL)

// The float32 2-D pools, POOL_BLOCK outputs along a row per work-item: a float8 per window
// tap where the block's windows are all real cells (vector loads as in dwconv_f32), else lane
// by lane as maxpool_f32 and sumpool_f32 compute, on the same cells in the same order, so both
// give those kernels' results to the bit. [count, y, x, indices place or -1 (AvgPool, or a
// MaxPool's indices that nothing reads), storage order, mode (AvgPool: 1 counts the padded
// cells), H, W, OH, OW, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW, blocks per row].
#define POOL_BLOCK 8

// The 8 cells of a tap for the outputs ow0.. (SW apart from at), all inside the row.
static inline float8 pool_row8(__global const float *row, long at, long SW) {
  if (SW == 1)
    return vload8(0, row + at);
  if (SW == 2)
    return vload16(0, row + at).even;
  return (float8)(row[at], row[at + SW], row[at + 2 * SW], row[at + 3 * SW], row[at + 4 * SW],
                  row[at + 5 * SW], row[at + 6 * SW], row[at + 7 * SW]);
}

// Whether every tap of the block's windows is a real cell, read by pool_row8's loads.
static inline bool pool_block_inside(__global const long *q, long oh, long ow0) {
  long H = q[6], W = q[7], OW = q[9], KH = q[10], KW = q[11], SH = q[12], SW = q[13];
  long top = oh * SH - q[14], left = ow0 * SW - q[15];
  return top >= 0 && top + (KH - 1) * q[18] < H && left >= 0 &&
         left + (POOL_BLOCK - 1) * SW + (KW - 1) * q[19] + (SW == 2 ? 1 : 0) < W &&
         ow0 + POOL_BLOCK <= OW;
}

// MaxPool keeps a float8 of POOL_BLOCK outputs for every block, edges included: a tap whose 8
// cells are all inside the row is one vector load, any other is read lane by lane, and a lane
// whose cell is padding (or past the row's last output) does not take part. Before, a block
// touching padding ran the scalar per-output loop of maxpool_f32, 8x the work of the vector
// one: shufflenet's first pool spent twice as long in its edge blocks as in all the others.
// A lane's first real cell starts it and a later one wins only where strictly greater, as in
// maxpool_f32, so the results (NaN included) are that kernel's to the bit.
__kernel void maxpool2d_f32(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long H = P[6], W = P[7], OH = P[8], OW = P[9], KH = P[10], KW = P[11], SH = P[12], SW = P[13];
  long PT = P[14], PL = P[15], DH = P[18], DWd = P[19], blocks = P[20];
  long ow0 = (i % blocks) * POOL_BLOCK, oh = (i / blocks) % OH, plane = i / (blocks * OH);
  long base = plane * H * W, out = (plane * OH + oh) * OW + ow0;
  __global const float *x = FP(P[2]);
  __global float *y = FP(P[1]);
  // No indices (-1) when nothing reads them: their per-lane arithmetic costs more than the max.
  __global long *indices = P[3] >= 0 ? (__global long *)PLACE(P[3]) : 0;
  bool colMajor = P[4] != 0;
  long lanes = min((long)POOL_BLOCK, OW - ow0);
  long top = oh * SH - PT, left = ow0 * SW - PL;
  const int8 laneIds = (int8)(0, 1, 2, 3, 4, 5, 6, 7);
  const int8 laneUsed = laneIds < (int8)((int)lanes);
  float8 best = (float8)(NN_LOWEST_f32);
  int8 seen = (int8)(0), tap = (int8)(0);
  for (long kh = 0; kh < KH; ++kh) {
    long ih = top + kh * DH;
    if (ih < 0 || ih >= H)
      continue;
    __global const float *row = x + base + ih * W;
    for (long kw = 0; kw < KW; ++kw) {
      long at = left + kw * DWd;
      float8 v;
      int8 real;
      if (lanes == POOL_BLOCK && at >= 0 &&
          at + (POOL_BLOCK - 1) * SW + (SW == 2 ? 1 : 0) < W) {
        v = pool_row8(row, at, SW);
        real = (int8)(-1);
      } else {
        float cells[POOL_BLOCK];
        int inside[POOL_BLOCK];
        for (int j = 0; j < POOL_BLOCK; ++j) {
          long iw = at + j * SW;
          bool ok = j < lanes && iw >= 0 && iw < W;
          cells[j] = ok ? row[iw] : 0.0f;
          inside[j] = ok ? -1 : 0;
        }
        v = vload8(0, cells);
        real = vload8(0, inside);
      }
      int8 wins = real & (~seen | isgreater(v, best));
      best = select(best, v, wins);
      tap = select(tap, (int8)((int)(kh * KW + kw)), wins);
      seen |= real;
    }
  }
  if (lanes == POOL_BLOCK) {
    vstore8(best, 0, y + out);
  } else {
    float bests[POOL_BLOCK];
    vstore8(best, 0, bests);
    for (long j = 0; j < lanes; ++j)
      y[out + j] = bests[j];
  }
  if (!indices)
    return;
  int taps[POOL_BLOCK], seens[POOL_BLOCK];
  vstore8(tap, 0, taps);
  vstore8(seen, 0, seens);
  for (long j = 0; j < lanes; ++j) {
    long ih = top + (taps[j] / KW) * DH, iw = left + j * SW + (taps[j] % KW) * DWd;
    indices[out + j] = !seens[j] ? -1 : base + (colMajor ? iw * H + ih : ih * W + iw);
  }
}

__kernel void avgpool2d_f32(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long H = P[6], W = P[7], OH = P[8], OW = P[9], KH = P[10], KW = P[11], SH = P[12], SW = P[13];
  long PT = P[14], PL = P[15], PB = P[16], PR = P[17], blocks = P[20];
  long ow0 = (i % blocks) * POOL_BLOCK, oh = (i / blocks) % OH, plane = i / (blocks * OH);
  __global const float *x = FP(P[2]) + plane * H * W;
  __global float *y = FP(P[1]) + (plane * OH + oh) * OW + ow0;
  if (pool_block_inside(P, oh, ow0)) {
    long top = oh * SH - PT, left = ow0 * SW - PL;
    float8 sum = (float8)(0.0f);
    for (long kh = 0; kh < KH; ++kh)
      for (long kw = 0; kw < KW; ++kw)
        sum += pool_row8(x + (top + kh) * W, left + kw, SW);
    vstore8(sum / (float)(KH * KW), 0, y);
    return;
  }
  for (long j = 0; j < min((long)POOL_BLOCK, OW - ow0); ++j) {
    float sum = 0;
    long cells = 0;
    for (long kh = 0; kh < KH; ++kh) {
      long ih = oh * SH - PT + kh;
      if (ih < 0 || ih >= H)
        continue;
      for (long kw = 0; kw < KW; ++kw) {
        long iw = (ow0 + j) * SW - PL + kw;
        if (iw < 0 || iw >= W)
          continue;
        sum += x[ih * W + iw];
        ++cells;
      }
    }
    long padded = ember_pool_padded_taps(oh * SH - PT, 1, KH, H, PB) *
                  ember_pool_padded_taps((ow0 + j) * SW - PL, 1, KW, W, PR);
    long count = ember_pool_average_divisor(cells, padded, P[5] != 0);
    y[j] = count ? sum / (float)count : 0.0f;
  }
}

// A float32 AvgPool whose one window is its whole input plane (GlobalAveragePool): one
// work-item per plane, summing 16 columns at a time (another order than sumpool_f32's, within
// float32 rounding): [count, y, x, plane size].
__kernel void global_avgpool_f32(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long size = P[3];
  __global const float *x = FP(P[2]) + i * size;
  float16 acc = (float16)(0.0f);
  long k = 0;
  for (; k + 16 <= size; k += 16)
    acc += vload16(0, x + k);
  float8 half8 = acc.lo + acc.hi;
  float4 half4 = half8.lo + half8.hi;
  float sum = half4.x + half4.y + half4.z + half4.w;
  for (; k < size; ++k)
    sum += x[k];
  FP(P[1])[i] = sum / (float)size;
}

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
