// Det (Nodes/Reduce.def), float kinds. Common.cl says how kernels are called. Each matrix is
// copied to double into its own part of the instruction's scratch and factorized by
// ember/Semantics/Determinant.h (in the program before this file), the Interpreter's own.
// Parameters: [count, y, x, scratch, M]; one work-item per matrix.
#define DET(K)                                                                                  \
  __kernel void det_##K(ARGS) {                                                                 \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long m = P[4];                                                                              \
    __global const uchar *x = PLACE(P[2]);                                                      \
    __global double *a = (__global double *)PLACE(P[3]) + i * m * m;                            \
    for (long e = 0; e < m * m; ++e)                                                            \
      a[e] = (double)LOAD_##K(x, i * m * m + e);                                                \
    STORE_##K(PLACE(P[1]), i, ember_determinant(a, m));                                         \
  }
FOR_EACH_FLOAT_KIND(DET)
