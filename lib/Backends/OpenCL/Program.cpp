// See Program.h. The sources are embedded by CMake (OpenCLSources.inc), so nothing is read at
// run time.
#include "Program.h"

#include "Launches.h"

namespace ember {
namespace opencl {

namespace {
#include "OpenCLSources.inc"
} // namespace

std::string programSource() {
  std::string s = "#pragma OPENCL FP_CONTRACT OFF\n"
                  "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                  "#define fm_exp exp\n#define fm_expm1 expm1\n#define fm_log1p log1p\n"
                  "#define fm_tanh tanh\n#define fm_erf erf\n#define fm_fabs fabs\n"
                  "#define EMBER_FORMULA static inline __attribute__((overloadable))\n"
                  "#define EMBER_NO_FMA\n#define EMBER_C float\n";
  s += kFormulasSource;
  // And for double, so float64 kernels compute as the Interpreter does (overloads pick it).
  s += "\n#undef EMBER_C\n#define EMBER_C double\n";
  s += kFormulasSource;
  s += "\n#undef EMBER_C\n";
  s += elementwiseSwitchSource();
  for (const char *family : kKernelSources)
    s += family;
  return s;
}

} // namespace opencl
} // namespace ember
