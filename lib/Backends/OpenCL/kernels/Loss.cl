// Losses (Nodes/Reduce.def): NLLLoss, for the float kinds. Common.cl says how kernels are
// called.

// NLLLoss of input [N, C, D] (the dims after C flattened) against targets [N, D]: [count, y, x,
// target, weight, target is int64, has ignore index, ignore index, reduction (0 none, 1 sum,
// 2 mean), C, D, N * D]. With reduction none one work-item per target writes
// -x[n, t, d] * weight[t] (0 for an ignored target); sum and mean have one work-item add every
// term in order, in double, as the Interpreter does (the mean divides by the sum of the weights
// used: NaN when every target is ignored). A target outside [0, C) that is not ignored fails
// the run.
#define NLLLOSS_KERNEL(K)                                                                          \
  __kernel void nllloss_##K(ARGS) {                                                                \
    P += p0;                                                                                       \
    long e = get_global_id(0);                                                                     \
    if (e >= P[0])                                                                                 \
      return;                                                                                      \
    __global const uchar *x = PLACE(P[2]), *target = PLACE(P[3]), *weight = PLACE(P[4]);           \
    __global uchar *y = PLACE(P[1]);                                                               \
    long mode = P[8], classes = P[9], D = P[10];                                                   \
    long first = mode == 0 ? e : 0, end = mode == 0 ? e + 1 : P[11];                               \
    double lossSum = 0.0, weightSum = 0.0;                                                         \
    for (e = first; e < end; ++e) {                                                                \
      long t = P[5] ? ((__global const long *)target)[e]                                           \
                    : (long)((__global const int *)target)[e];                                     \
      double loss = 0.0, w = 0.0;                                                                  \
      if (!P[6] || t != P[7]) {                                                                    \
        if (t < 0 || t >= classes) {                                                               \
          FAIL();                                                                                  \
          return;                                                                                  \
        }                                                                                          \
        w = (double)LOAD_##K(weight, t);                                                           \
        loss = -(double)LOAD_##K(x, ((e / D) * classes + t) * D + e % D) * w;                      \
      }                                                                                            \
      if (mode == 0)                                                                               \
        STORE_##K(y, e, loss);                                                                     \
      lossSum += loss;                                                                             \
      weightSum += w;                                                                              \
    }                                                                                              \
    if (mode != 0)                                                                                 \
      STORE_##K(y, 0, mode == 1 ? lossSum : lossSum / weightSum);                                  \
  }
FOR_EACH_FLOAT_KIND(NLLLOSS_KERNEL)
