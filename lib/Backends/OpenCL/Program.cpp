// See Program.h. The sources are embedded by CMake (OpenCLSources.inc), so nothing is read at
// run time.
#include "Program.h"

#include "Launches.h"

namespace ember {
namespace opencl {

namespace {
#include "OpenCLSources.inc"

/// NN_ACTIVATIONS(X) for Common.cl: X(code, formula) per row of the fused activations' table,
/// so a row added there has its OpenCL case without another copy of its formula.
std::string fusedActivationsSource() {
  std::string s = "#define NN_ACTIVATIONS(X) \\\n";
  int code = 0;
#define FUSED_ACTIVATION(Enum, Name, Arity, FromKind, FromFunction, Formula, Vector, Doc)        \
  s += "  X(" + std::to_string(++code) + ", " #Formula ") \\\n";
#include "ember/Graph/Nodes/FusedActivations.def"
#undef FUSED_ACTIVATION
  return s + "\n";
}
} // namespace

std::string programSource() {
  std::string s = "#pragma OPENCL FP_CONTRACT OFF\n"
                  "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                  "#define fm_exp exp\n#define fm_expm1 expm1\n#define fm_log1p log1p\n"
                  "#define fm_tanh tanh\n#define fm_erf erf\n#define fm_fabs fabs\n"
                  "#define fm_log log\n#define fm_floor floor\n#define fm_ceil ceil\n"
                  "#define fm_roundeven rint\n#define fm_sqrt sqrt\n#define fm_sin sin\n"
                  "#define fm_cos cos\n#define fm_tan tan\n#define fm_asin asin\n"
                  "#define fm_acos acos\n#define fm_atan atan\n#define fm_sinh sinh\n"
                  "#define fm_cosh cosh\n#define fm_asinh asinh\n#define fm_acosh acosh\n"
                  "#define fm_atanh atanh\n"
                  "#define EMBER_FORMULA static inline __attribute__((overloadable))\n"
                  "#define EMBER_NO_FMA\n#define EMBER_C float\n";
  s += kFormulasSource;
  // And for double, so float64 kernels compute as the Interpreter does (overloads pick it).
  s += "\n#undef EMBER_C\n#define EMBER_C double\n";
  s += kFormulasSource;
  s += "\n#undef EMBER_C\n";
  s += elementwiseSwitchSource();
  s += fusedActivationsSource();
  for (const char *family : kKernelSources)
    s += family;
  return s;
}

} // namespace opencl
} // namespace ember
