// What lets a header of ember/Semantics state an operator's meaning once for all three places
// that compute it: host C++ (the Interpreter, hence constant folding), the CPU backend's
// freestanding kernel library (clang, -nostdinc) and the OpenCL program (OpenCL C 1.2, which
// the OpenCL backend's CMakeLists embeds these headers into, after Common.cl). Such a header
// includes this one only outside OpenCL C, and is written in the subset the three share: no
// templates, namespaces, overloads or library calls; math through the macros below; integers
// as long (64 bits in all three); memory an OpenCL kernel passes through EMBER_GLOBAL pointers.
#ifndef EMBER_SEMANTICS_PORTABLE_H
#define EMBER_SEMANTICS_PORTABLE_H

#ifdef __OPENCL_C_VERSION__
#define EMBER_PORTABLE static inline
#define EMBER_GLOBAL __global
#define EMBER_FLOOR(x) floor(x)
#define EMBER_CEIL(x) ceil(x)
#define EMBER_RINT(x) rint(x)
#define EMBER_FABS(x) fabs(x)
#define EMBER_NAN ((double)NAN)
// The program turns contraction off as a whole (#pragma OPENCL FP_CONTRACT OFF).
#define EMBER_PORTABLE_NO_FMA
#else
#define EMBER_PORTABLE static inline
#define EMBER_GLOBAL
#define EMBER_FLOOR(x) __builtin_floor(x)
#define EMBER_CEIL(x) __builtin_ceil(x)
// Round half to even (the default rounding mode), as std::nearbyint and OpenCL's rint.
#define EMBER_RINT(x) __builtin_rint(x)
#define EMBER_FABS(x) __builtin_fabs(x)
#define EMBER_NAN __builtin_nan("")
// At the top of a function body: no a * b + c contracted into a fused multiply-add, so the CPU
// kernels (clang contracts by default) round as the Interpreter does. The host build targets
// baseline x86-64 or aarch64 without FMA contraction (ember/Semantics/Formulas.h).
#ifdef __clang__
#define EMBER_PORTABLE_NO_FMA _Pragma("clang fp contract(off)")
#else
#define EMBER_PORTABLE_NO_FMA
#endif
#endif

/// min(max(x, lo), hi) on doubles; NaN stays NaN.
EMBER_PORTABLE double ember_clamp_double(double x, double lo, double hi) {
  return x < lo ? lo : hi < x ? hi : x;
}

/// min(max(x, lo), hi) on integers.
EMBER_PORTABLE long ember_clamp_long(long x, long lo, long hi) {
  return x < lo ? lo : hi < x ? hi : x;
}

#ifndef __OPENCL_C_VERSION__
/// The position of \p name among the \p count \p names, or -1: an attribute's name as the code
/// a kernel takes (host and CPU kernel code only: OpenCL kernels receive the code).
EMBER_PORTABLE int ember_name_code(const char *name, const char *const *names, int count) {
  for (int i = 0; i < count; ++i) {
    const char *a = name, *b = names[i];
    while (*a && *a == *b)
      ++a, ++b;
    if (*a == *b)
      return i;
  }
  return -1;
}
#endif

#endif
