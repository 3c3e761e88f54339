// Recurrent layers (Nodes/Recurrent.def): RNN, GRU and LSTM, for float32, float64 and float16
// (float16 computed in float, as the Interpreter does). Common.cl says how kernels are called.

// The activation functions: one case per row of Nodes/RecurrentActivations.def, in its order
// (LaunchesRecurrent.cpp numbers them from the .def and checks the count), each the row's
// formula of x with alpha a and beta b. rnnActivate clips the input first when CellClip is set
// (f: the function's code, alpha bits and beta bits). The double overload calls the formulas'
// double instantiation when the program has one; the prelude (OpenCLBackend.cpp) instantiates
// them for float only so far, so float64 layers evaluate their activations in float.
#define RNN_ACTIVATIONS(C)                                                                         \
  static inline __attribute__((overloadable)) C rnnActivation(long f, C x, C a, C b) {             \
    switch (f) {                                                                                   \
    case 0: return ember_relu(x);                                                                  \
    case 1: return ember_tanh(x);                                                                  \
    case 2: return ember_sigmoid(x);                                                               \
    case 3: return ember_affine(x, a, b);                                                          \
    case 4: return ember_leaky_relu(x, a);                                                         \
    case 5: return ember_thresholded_relu(x, a);                                                   \
    case 6: return ember_scaled_tanh(x, a, b);                                                     \
    case 7: return ember_hard_sigmoid(x, a, b);                                                    \
    case 8: return ember_elu(x, a);                                                                \
    case 9: return ember_softsign(x);                                                              \
    case 10: return ember_softplus(x);                                                             \
    }                                                                                              \
    return x;                                                                                      \
  }                                                                                                \
  static inline __attribute__((overloadable)) C rnnActivate(__global const long *f, C clip,        \
                                                            C v) {                                 \
    if (clip > 0) {                                                                                \
      v = v < -clip ? -clip : v;                                                                   \
      v = clip < v ? clip : v;                                                                     \
    }                                                                                              \
    return rnnActivation(f[0], v, (C)as_float((int)f[1]), (C)as_float((int)f[2]));                 \
  }
RNN_ACTIVATIONS(float)
RNN_ACTIVATIONS(double)

// The largest hidden size: each work-group keeps its states in local memory, three vectors of
// this many compute values (24 KiB in double, within the 32 KiB every device has).
#define RNN_MAX_HIDDEN 1024

// RNN (op 0), GRU (1), LSTM (2): [count, op, dirs * batch, Y, YH, YC, X, W, R, B, sequence
// lengths, initial H, initial C, peepholes, seq, batch, input size, hidden, dirs, reverse only,
// clip bits, flag (GRU linear before reset, LSTM input forget), activations per direction, then
// per activation its code, alpha bits and beta bits]. Layouts are Recurrent.def's.
//
// One work-group per (direction, batch row) walks the row's steps; its work-items share the
// hidden units (unit j on item j mod the group size), and local barriers separate a step's
// reads of the state from its writes. The state stays in local memory in the compute type, as
// the Interpreter keeps it, and is stored to Y after every step. The group computes each gate
// row's sums in the Interpreter's order, so results agree bit for bit up to the math library.
// Every item of a group takes part in every barrier, so no item stops at the count (groups
// beyond the pairs have nothing to do), and no barrier sits under a condition or after a
// `continue`: PoCL's work-group compiler mishandles those even when uniform.
#define RECURRENT_KERNEL(K)                                                                        \
  /* x_t . W[d, row] + Wb[d, row], row being (d * gates + gate) * hidden + unit. */                \
  static inline COMPUTE_##K rnnInput_##K(__global const uchar *x, long xoff,                       \
                                         __global const uchar *w, __global const uchar *bias,      \
                                         long row, long wbRow, long n) {                           \
    COMPUTE_##K sum = LOAD_##K(bias, wbRow);                                                       \
    for (long i = 0; i < n; ++i)                                                                   \
      sum += LOAD_##K(x, xoff + i) * LOAD_##K(w, row * n + i);                                     \
    return sum;                                                                                    \
  }                                                                                                \
  /* h . R[d, row] + Rb[d, row]. */                                                                \
  static inline COMPUTE_##K rnnState_##K(__local const COMPUTE_##K *h,                             \
                                         __global const uchar *r, __global const uchar *bias,      \
                                         long row, long rbRow, long n) {                           \
    COMPUTE_##K sum = LOAD_##K(bias, rbRow);                                                       \
    for (long i = 0; i < n; ++i)                                                                   \
      sum += h[i] * LOAD_##K(r, row * n + i);                                                      \
    return sum;                                                                                    \
  }                                                                                                \
  __kernel void recurrent_##K(ARGS) {                                                              \
    __local COMPUTE_##K buf[3 * RNN_MAX_HIDDEN];                                                   \
    P += p0;                                                                                       \
    long op = P[1], pairs = P[2], seq = P[14], batch = P[15], nin = P[16], H = P[17];              \
    long dirs = P[18], flag = P[21], G = op == 0 ? 1 : op == 1 ? 3 : 4;                            \
    long lid = get_local_id(0), lsize = get_local_size(0);                                         \
    COMPUTE_##K clip = PF(20);                                                                     \
    __global const uchar *x = PLACE(P[6]), *w = PLACE(P[7]), *r = PLACE(P[8]);                     \
    __global const uchar *bias = PLACE(P[9]);                                                      \
    __global const int *lens = (__global const int *)PLACE(P[10]);                                 \
    __global uchar *y = PLACE(P[3]);                                                               \
    for (long pair = get_group_id(0); pair < pairs; pair += get_num_groups(0)) {                   \
      long d = pair / batch, bi = pair % batch, len = lens[bi];                                    \
      barrier(CLK_LOCAL_MEM_FENCE); /* the previous pair's last reads of buf */                    \
      if (len < 0 || len > seq) { /* the run fails; the group still meets every barrier */         \
        if (lid == 0)                                                                              \
          FAIL();                                                                                  \
        len = 0;                                                                                   \
      }                                                                                            \
      /* h: the state; hn: the next one; extra: GRU's reset gate (times h unless linear */         \
      /* before reset), LSTM's cell state. */                                                      \
      __local COMPUTE_##K *h = buf, *hn = buf + RNN_MAX_HIDDEN;                                    \
      __local COMPUTE_##K *extra = buf + 2 * RNN_MAX_HIDDEN;                                       \
      __global const long *acts = P + 23 + 3 * d * P[22];                                          \
      __global const uchar *peep = op == 2 ? PLACE(P[13]) : 0;                                     \
      long state = (d * batch + bi) * H, gates = d * G * H, wb = d * 2 * G * H, rb = wb + G * H;   \
      for (long j = lid; j < H; j += lsize) {                                                      \
        h[j] = LOAD_##K(PLACE(P[11]), state + j);                                                  \
        if (op == 2)                                                                               \
          extra[j] = LOAD_##K(PLACE(P[12]), state + j);                                            \
      }                                                                                            \
      barrier(CLK_LOCAL_MEM_FENCE);                                                                \
      bool reverse = P[19] || d == 1;                                                              \
      for (long k = 0; k < len; ++k) {                                                             \
        long t = reverse ? len - 1 - k : k, xoff = (t * batch + bi) * nin;                         \
        for (long j = lid; op == 1 && j < H; j += lsize) {                                         \
          long g = H + j;                                                                          \
          COMPUTE_##K reset =                                                                      \
              rnnActivate(acts, clip,                                                              \
                          rnnInput_##K(x, xoff, w, bias, gates + g, wb + g, nin) +                 \
                              rnnState_##K(h, r, bias, gates + g, rb + g, H));                     \
          extra[j] = flag ? reset : reset * h[j];                                                  \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE); /* GRU: the reset gate is complete */                        \
        for (long j = lid; j < H; j += lsize) {                                                    \
          /* Gate block g's row for unit j: input part + state part. */                            \
          COMPUTE_##K gate[4] = {0, 0, 0, 0};                                                      \
          for (long g = 0; g < G; ++g)                                                             \
            if (op != 1 || g == 0)                                                                 \
              gate[g] = rnnInput_##K(x, xoff, w, bias, gates + g * H + j, wb + g * H + j,          \
                                     nin) +                                                        \
                        rnnState_##K(h, r, bias, gates + g * H + j, rb + g * H + j, H);            \
          COMPUTE_##K next;                                                                        \
          if (op == 0) {                                                                           \
            next = rnnActivate(acts, clip, gate[0]);                                               \
          } else if (op == 1) {                                                                    \
            long g = 2 * H + j;                                                                    \
            COMPUTE_##K z = rnnActivate(acts, clip, gate[0]);                                      \
            COMPUTE_##K candIn = rnnInput_##K(x, xoff, w, bias, gates + g, wb + g, nin);           \
            candIn += flag ? extra[j] * rnnState_##K(h, r, bias, gates + g, rb + g, H)             \
                           : rnnState_##K(extra, r, bias, gates + g, rb + g, H);                   \
            COMPUTE_##K candidate = rnnActivate(acts + 3, clip, candIn);                           \
            next = (1 - z) * candidate + z * h[j];                                                 \
          } else {                                                                                 \
            /* Gate blocks i, o, f, c; peepholes i, o, f. */                                       \
            COMPUTE_##K c = extra[j];                                                              \
            long pi = d * 3 * H + j;                                                               \
            COMPUTE_##K input = rnnActivate(acts, clip, gate[0] + LOAD_##K(peep, pi) * c);         \
            COMPUTE_##K forget =                                                                   \
                flag ? 1 - input                                                                   \
                     : rnnActivate(acts, clip, gate[2] + LOAD_##K(peep, pi + 2 * H) * c);          \
            COMPUTE_##K cell = rnnActivate(acts + 3, clip, gate[3]);                               \
            COMPUTE_##K nc = forget * c + input * cell;                                            \
            COMPUTE_##K out = rnnActivate(acts, clip, gate[1] + LOAD_##K(peep, pi + H) * nc);      \
            next = out * rnnActivate(acts + 6, clip, nc);                                          \
            extra[j] = nc; /* unit j's own: no other item reads it */                              \
          }                                                                                        \
          hn[j] = next;                                                                            \
          STORE_##K(y, ((t * dirs + d) * batch + bi) * H + j, next);                               \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        __local COMPUTE_##K *swap = h;                                                             \
        h = hn;                                                                                    \
        hn = swap;                                                                                 \
      }                                                                                            \
      /* The final states; Y is zero past the row's length. */                                     \
      for (long j = lid; j < H; j += lsize) {                                                      \
        STORE_##K(PLACE(P[4]), state + j, h[j]);                                                   \
        if (op == 2)                                                                               \
          STORE_##K(PLACE(P[5]), state + j, extra[j]);                                             \
        for (long t = len; t < seq; ++t)                                                           \
          STORE_##K(y, ((t * dirs + d) * batch + bi) * H + j, 0.0f);                               \
      }                                                                                            \
    }                                                                                              \
  }
RECURRENT_KERNEL(f32)
RECURRENT_KERNEL(f64)
RECURRENT_KERNEL(f16)
