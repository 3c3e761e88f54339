// The kernel library's OpenCL C, as one program source: what the backend builds once per device
// and what an OpenCL bundle carries.
#ifndef EMBER_LIB_BACKENDS_OPENCL_PROGRAM_H
#define EMBER_LIB_BACKENDS_OPENCL_PROGRAM_H

#include <string>

namespace ember {
namespace opencl {

/// The shared scalar formulas for float and double, the element-wise switch, then kernels/*.cl
/// (Common.cl first).
std::string programSource();

} // namespace opencl
} // namespace ember

#endif
