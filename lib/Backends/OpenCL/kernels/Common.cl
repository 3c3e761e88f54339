// The OpenCL backend's kernel library (OpenCL C 1.2), one file per family of
// include/ember/Graph/Nodes/ after this one, Common.cl. The program is the prelude (the scalar
// formulas for float, the element-wise switch generated from Ops.def; OpenCLBackend.cpp), this
// file, then the others in name order.
//
// Every kernel takes the three regions of the bundle ABI (constant weights C, mutable weights M,
// activations A), the model's parameter array P and the offset p0 of this launch's parameters
// in it; an operand is a "place": region << 48 | byte offset (place() below). Kernels are
// generic over shapes (dims and strides are parameters), so one compiled kernel serves every
// instruction of its kind; one work-item computes one output element unless a kernel says
// otherwise, and items past the count P[0] do nothing (global sizes are rounded up to the
// work-group size).

#define ARGS __global uchar *C, __global uchar *M, __global uchar *A, __global const long *P, \
             long p0
#define PLACE(code) place(C, M, A, (code))
#define FP(code) ((__global float *)PLACE(code))
#define PF(k) as_float((int)P[k])
#define MAX_RANK 6

static inline __global uchar *place(__global uchar *C, __global uchar *M,
                                    __global uchar *A, long code) {
  long region = code >> 48, offset = code & 0xFFFFFFFFFFFFL;
  return (region == 0 ? C : region == 1 ? M : A) + offset;
}

// Element kinds of the kernels below that take more than float: 0 float32, 1 int32, 2 int64,
// 3 uint8, 4 int8, 5 bool (kindCode in LaunchBuilder.h).
static inline double loadAs(__global const uchar *p, long i, long kind) {
  switch (kind) {
  case 0: return ((__global const float *)p)[i];
  case 1: return ((__global const int *)p)[i];
  case 2: return ((__global const long *)p)[i];
  case 3: return p[i];
  case 4: return ((__global const char *)p)[i];
  default: return p[i] != 0;
  }
}
