// The OpenCL backend's kernel library (OpenCL C 1.2), one file per family of
// include/ember/Graph/Nodes/ after this one, Common.cl. The program is the prelude (the scalar
// formulas for float, the element-wise switch generated from Ops.def; OpenCLBackend.cpp), this
// file, then the others in name order.
//
// Every kernel takes the three regions of the bundle ABI (constant weights C, mutable weights M,
// activations A), the model's parameter array P, the offset p0 of this launch's parameters in
// it, and the error word E; an operand is a "place": region << 48 | byte offset (place()
// below). A kernel that meets bad data (an index out of range) calls FAIL(): the run then
// returns an error naming the instruction, as the CPU backend's do. Kernels are
// generic over shapes (dims and strides are parameters), so one compiled kernel serves every
// instruction of its kind; one work-item computes one output element unless a kernel says
// otherwise, and items past the count P[0] do nothing (global sizes are rounded up to the
// work-group size).

#define ARGS __global uchar *C, __global uchar *M, __global uchar *A, __global const long *P, \
             long p0, __global int *E
// The first failing launch's code (its parameters' offset + 1) stays in E[0].
#define FAIL() atomic_cmpxchg(E, 0, (int)(p0 + 1))
#define PLACE(code) place(C, M, A, (code))
#define FP(code) ((__global float *)PLACE(code))
#define PF(k) as_float((int)P[k])
#define MAX_RANK 6

static inline __global uchar *place(__global uchar *C, __global uchar *M,
                                    __global uchar *A, long code) {
  long region = code >> 48, offset = code & 0xFFFFFFFFFFFFL;
  return (region == 0 ? C : region == 1 ? M : A) + offset;
}

// Element kinds by suffix (kindSuffix in LaunchBuilder.h): LOAD_<k>(p, i) reads element i of
// the bytes at p as the kind's compute type (COMPUTE_<k>), STORE_<k>(p, i, v) writes it.
// float16 and bfloat16 are stored as 16-bit values and computed in float: vload_half and
// vstore_half_rte round like the host; bfloat16 rounds to nearest even, NaN staying a quiet NaN
// (ember/Base/HalfBits.h). FOR_EACH_KIND(X) calls X(suffix) for every kind, to instantiate a
// kernel per kind: kernel_<suffix>.
#define COMPUTE_f32 float
#define COMPUTE_f64 double
#define COMPUTE_f16 float
#define COMPUTE_bf16 float
#define COMPUTE_i8 int
#define COMPUTE_u8 uint
#define COMPUTE_i16 int
#define COMPUTE_u16 uint
#define COMPUTE_i32 int
#define COMPUTE_u32 uint
#define COMPUTE_i64 long
#define COMPUTE_u64 ulong
#define COMPUTE_bool uchar
#define STORAGE_f32 float
#define STORAGE_f64 double
#define STORAGE_f16 ushort
#define STORAGE_bf16 ushort
#define STORAGE_i8 char
#define STORAGE_u8 uchar
#define STORAGE_i16 short
#define STORAGE_u16 ushort
#define STORAGE_i32 int
#define STORAGE_u32 uint
#define STORAGE_i64 long
#define STORAGE_u64 ulong
#define STORAGE_bool uchar
#define LOAD_PLAIN(K, p, i) ((COMPUTE_##K)((__global const STORAGE_##K *)(p))[i])
#define STORE_PLAIN(K, p, i, v) (((__global STORAGE_##K *)(p))[i] = (STORAGE_##K)(v))
#define LOAD_f32(p, i) LOAD_PLAIN(f32, p, i)
#define LOAD_f64(p, i) LOAD_PLAIN(f64, p, i)
#define LOAD_i8(p, i) LOAD_PLAIN(i8, p, i)
#define LOAD_u8(p, i) LOAD_PLAIN(u8, p, i)
#define LOAD_i16(p, i) LOAD_PLAIN(i16, p, i)
#define LOAD_u16(p, i) LOAD_PLAIN(u16, p, i)
#define LOAD_i32(p, i) LOAD_PLAIN(i32, p, i)
#define LOAD_u32(p, i) LOAD_PLAIN(u32, p, i)
#define LOAD_i64(p, i) LOAD_PLAIN(i64, p, i)
#define LOAD_u64(p, i) LOAD_PLAIN(u64, p, i)
#define LOAD_bool(p, i) ((uchar)(((__global const uchar *)(p))[i] != 0))
#define LOAD_f16(p, i) vload_half((i), (__global const half *)(p))
#define LOAD_bf16(p, i) as_float((uint)((__global const ushort *)(p))[i] << 16)
#define STORE_f32(p, i, v) STORE_PLAIN(f32, p, i, v)
#define STORE_f64(p, i, v) STORE_PLAIN(f64, p, i, v)
#define STORE_i8(p, i, v) STORE_PLAIN(i8, p, i, v)
#define STORE_u8(p, i, v) STORE_PLAIN(u8, p, i, v)
#define STORE_i16(p, i, v) STORE_PLAIN(i16, p, i, v)
#define STORE_u16(p, i, v) STORE_PLAIN(u16, p, i, v)
#define STORE_i32(p, i, v) STORE_PLAIN(i32, p, i, v)
#define STORE_u32(p, i, v) STORE_PLAIN(u32, p, i, v)
#define STORE_i64(p, i, v) STORE_PLAIN(i64, p, i, v)
#define STORE_u64(p, i, v) STORE_PLAIN(u64, p, i, v)
#define STORE_bool(p, i, v) (((__global uchar *)(p))[i] = (uchar)((v) != 0))
#define STORE_f16(p, i, v) vstore_half_rte((float)(v), (i), (__global half *)(p))
#define STORE_bf16(p, i, v) (((__global ushort *)(p))[i] = float_to_bfloat((float)(v)))

static inline ushort float_to_bfloat(float f) {
  uint x = as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (ushort)((x >> 16) | 0x40);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (ushort)(x >> 16);
}

#define FOR_EACH_FLOAT_KIND(X) X(f32) X(f64) X(f16) X(bf16)
#define FOR_EACH_INT_KIND(X) X(i8) X(u8) X(i16) X(u16) X(i32) X(u32) X(i64) X(u64)
#define FOR_EACH_KIND(X) FOR_EACH_FLOAT_KIND(X) FOR_EACH_INT_KIND(X) X(bool)

// The activation of a FusedConv, FusedMatMul or FullyConnected, for the epilogues of Gemm.cl
// and NN.cl (so here, before both): NN_ACTIVATIONS(X), which Program.cpp generates from
// Nodes/FusedActivations.def, lists X(code, formula) for every row (its 1-based code, its
// formula of ScalarFormulas.inc of x with arguments a and b); code 0 is none. The formulas are
// the float ones: the planner keeps float64 activations away.
#define NN_ACTIVATION_CASE(code, formula)                                                      \
  case code: return formula;
static inline float nn_activation(long code, float x, float a, float b) {
  switch (code) {
    NN_ACTIVATIONS(NN_ACTIVATION_CASE)
  default: return x;
  }
}

// The same on the 8 lanes of a vector: the switch outside the loop over lanes, so each case's
// loop is one formula the compiler can vectorize (the epilogues of the blocked kernels).
#define NN_ACTIVATION_CASE8(code, formula)                                                     \
  case code:                                                                                   \
    for (int j = 0; j < 8; ++j) {                                                              \
      float x = lanes[j];                                                                      \
      lanes[j] = formula;                                                                      \
    }                                                                                          \
    break;
static inline float8 nn_activation8(long code, float8 v, float a, float b) {
  float lanes[8];
  vstore8(v, 0, lanes);
  switch (code) {
    NN_ACTIVATIONS(NN_ACTIVATION_CASE8)
  default: return v;
  }
  return vload8(0, lanes);
}
