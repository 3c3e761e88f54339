// Reductions (Nodes/Reduce.def). Common.cl says how kernels are called.

// Reductions: [count, y, x, op, rank, then per input dim: dim, stride, reduced]. The output has
// the input's rank with reduced dims 1; each work-item combines its cells in row-major order.
// op: 0 sum, 1 mean, 2 max, 3 min, 4 prod, 5 sum of squares, 6 l1, 7 l2, 8 log sum,
// 9 log sum exp.
__kernel void reduce(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long op = P[3], rank = P[4], rest = i, base = 0, cells = 1;
  long dims[MAX_RANK], strides[MAX_RANK];
  int nr = 0;
  for (long d = rank - 1; d >= 0; --d) {
    __global const long *q = P + 5 + 3 * d;
    if (q[2]) {
      dims[nr] = q[0];
      strides[nr] = q[1];
      cells *= q[0];
      ++nr;
    } else {
      base += (rest % q[0]) * q[1];
      rest /= q[0];
    }
  }
  __global const float *x = FP(P[2]);
  float mx = -INFINITY;
  if (op == 9)
    for (long k = 0; k < cells; ++k) {
      long off = base, kk = k;
      for (int d = 0; d < nr; ++d) {
        off += (kk % dims[d]) * strides[d];
        kk /= dims[d];
      }
      mx = fmax(mx, x[off]);
    }
  float acc = op == 2 ? -INFINITY : op == 3 ? INFINITY : op == 4 ? 1.0f : 0.0f;
  for (long k = 0; k < cells; ++k) {
    long off = base, kk = k;
    for (int d = 0; d < nr; ++d) { // innermost reduced dim first: row-major order
      off += (kk % dims[d]) * strides[d];
      kk /= dims[d];
    }
    float v = x[off];
    switch (op) {
    case 2: acc = isnan(v) || isnan(acc) ? NAN : fmax(acc, v); break;
    case 3: acc = isnan(v) || isnan(acc) ? NAN : fmin(acc, v); break;
    case 4: acc *= v; break;
    case 5: case 7: acc += v * v; break;
    case 6: acc += fabs(v); break;
    case 9: acc += exp(v - mx); break;
    default: acc += v; break;
    }
  }
  if (op == 1)
    acc /= (float)cells;
  else if (op == 7)
    acc = sqrt(acc);
  else if (op == 8)
    acc = log(acc);
  else if (op == 9)
    acc = mx + log(acc);
  FP(P[1])[i] = acc;
}
