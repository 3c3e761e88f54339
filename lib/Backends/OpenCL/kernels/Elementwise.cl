// Element-wise kernels (Nodes/Elementwise.def). Common.cl says how kernels are called.

// y = op(x): [n, op, y, x, p0 bits, p1 bits]
__kernel void ew_unary(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  FP(P[2])[i] = ember_ew_unary((int)P[1], FP(P[3])[i], PF(4), PF(5));
}

// y = op(a, b), all of one shape (the importer makes broadcasts explicit): [n, op, y, a, b]
__kernel void ew_binary(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  FP(P[2])[i] = ember_ew_binary((int)P[1], FP(P[3])[i], FP(P[4])[i]);
}

// Clip: [n, y, x, min, max]; min and max are one element each. NaN stays NaN; min > max gives
// max (the Interpreter's rule).
__kernel void clip(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  float lo = FP(P[3])[0], hi = FP(P[4])[0], x = FP(P[2])[i];
  x = x < lo ? lo : x;
  FP(P[1])[i] = hi < x ? hi : x;
}

// Cast: [n, y, x, from, to]. To an integer: NaN gives 0, truncation toward zero, saturation
// (convert_*_sat_rtz, Conversions.h's rule); to bool: nonzero.
__kernel void cast(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  double v = loadAs(PLACE(P[2]), i, P[3]);
  __global uchar *y = PLACE(P[1]);
  switch (P[4]) {
  case 0: ((__global float *)y)[i] = (float)v; break;
  case 1: ((__global int *)y)[i] = convert_int_sat_rtz(v); break;
  case 2: ((__global long *)y)[i] = convert_long_sat_rtz(v); break;
  case 3: y[i] = convert_uchar_sat_rtz(v); break;
  case 4: ((__global char *)y)[i] = convert_char_sat_rtz(v); break;
  default: y[i] = v != 0.0; break;
  }
}

// Element-wise int32 Add, Sub, Mul wrapping around, and Clip of integers: [n, op, y, a, b,
// kind]; op 0 add, 1 sub, 2 mul, 3 clip (b is min, and P[6] the place of max).
__kernel void ew_integer(ARGS) {
  P += p0;
  long i = get_global_id(0);
  if (i >= P[0])
    return;
  long op = P[1], k = P[5];
  __global uchar *y = PLACE(P[2]);
  if (op == 3) {
    double v = loadAs(PLACE(P[3]), i, k), lo = loadAs(PLACE(P[4]), 0, k);
    double hi = loadAs(PLACE(P[6]), 0, k);
    v = v < lo ? lo : v;
    v = hi < v ? hi : v;
    if (k == 3)
      y[i] = (uchar)v;
    else if (k == 4)
      ((__global char *)y)[i] = (char)v;
    else if (k == 1)
      ((__global int *)y)[i] = (int)v;
    else
      ((__global long *)y)[i] = (long)v;
    return;
  }
  uint a = (uint)((__global const int *)PLACE(P[3]))[i];
  uint b = (uint)((__global const int *)PLACE(P[4]))[i];
  ((__global int *)y)[i] = (int)(op == 0 ? a + b : op == 1 ? a - b : a * b);
}
