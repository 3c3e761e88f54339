/* The OpenCL runtime of ember's compiled models, in C: opening a device and building the kernel
 * library on it, preparing a model's buffers and kernels, and running it. The OpenCL backend
 * runs models in-process with it, and OpenCL bundles carry the same code (compiled to bitcode
 * at build time and linked into each bundle's object), so a bundle runs exactly what
 * `model-runner -backend=OpenCL` runs. It calls only the OpenCL API and the C library. */
#ifndef EMBER_LIB_BACKENDS_OPENCL_RUNTIME_RUNTIME_H
#define EMBER_LIB_BACKENDS_OPENCL_RUNTIME_RUNTIME_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a step of a model does. Most launch a kernel; the others are the IR's run-time control
 * flow (If and Loop: IR.h's markers), which the host decides between launches by reading a few
 * bytes back, and the copy of a loop's scan output into its slice, at an offset only the host
 * knows. Their operands are at `param_offset` in the parameter array: a place is region << 48
 * | byte offset (as the kernels' place()), a target the index of the step to go on at. The host
 * keeps each loop's iteration number and writes it where the body's kernels read it. */
typedef enum ember_ocl_control {
  EMBER_OCL_LAUNCH_KERNEL = 0,
  /* cond place, else target: goes on when the byte at cond is nonzero, else jumps (IfBegin) */
  EMBER_OCL_IF,
  /* target (IfElse: the then-branch ran, skip the else-branch) */
  EMBER_OCL_JUMP,
  /* iter place, trip count place, cond place, max trip count, exit target: iter := 0, then the
   * loop test: jumps to exit unless iter < trip count && cond (both int64 / bool, read back
   * each time: the body writes cond); fails (the step's `failure`) when it would run an
   * iteration with iter >= max trip count (LoopBegin) */
  EMBER_OCL_LOOP_BEGIN,
  /* the loop's LOOP_BEGIN step: ++iter, then that step's loop test (LoopEnd) */
  EMBER_OCL_LOOP_END,
  /* dest place, value place, bytes, dest slices, the loop's LOOP_BEGIN step: copies the bytes
   * at value to dest + iter * bytes; fails (the step's `failure`) when iter >= slices
   * (StoreIteration) */
  EMBER_OCL_STORE_ITERATION
} ember_ocl_control;

/* One step: with `control` EMBER_OCL_LAUNCH_KERNEL, `count` work-items of `kernel` in groups of
 * `group`, its parameters at `param_offset` in the model's parameter array; else the control
 * step `control` (kernel 0). `failure`: for bundles, the code the entry returns when the
 * kernel calls FAIL() or the step fails (an index into the header's list, plus one). */
typedef struct ember_ocl_launch {
  const char *kernel;
  uint64_t count, param_offset, group, failure, control;
} ember_ocl_launch;

/* What a compiled model is to the runtime: its steps in order, the parameter array they read
 * and the sizes of the bundle ABI's three regions (constant weights, mutable weights,
 * activations). All of it constant: the memory plan fixed every offset at compile time. */
typedef struct ember_ocl_model {
  const int64_t *params;
  uint64_t num_params;
  const ember_ocl_launch *launches;
  uint64_t num_launches;
  uint64_t region_sizes[3];
} ember_ocl_model;

/* What failed. A bundle's header lists these first, in this order, as its run-time errors
 * 1 to EMBER_OCL_STATUS_COUNT - 1; the failures of its launches follow. */
typedef enum ember_ocl_status {
  EMBER_OCL_OK = 0,
  EMBER_OCL_NO_PLATFORM,    /* no platform, or none with a device */
  EMBER_OCL_NO_SUCH_DEVICE, /* the platform or device index is out of range */
  EMBER_OCL_UNSUITABLE,     /* no cl_khr_fp64, or work-groups smaller than 64 */
  EMBER_OCL_CONTEXT,        /* creating the context or the queue */
  EMBER_OCL_BUILD,          /* creating or building the kernel library */
  EMBER_OCL_ALLOCATE,       /* allocating device memory */
  EMBER_OCL_KERNEL,         /* creating a kernel object or setting its arguments */
  EMBER_OCL_TRANSFER,       /* a copy to or from the device */
  EMBER_OCL_LAUNCH,         /* enqueueing a launch */
  EMBER_OCL_KERNEL_FAILED,  /* a kernel called FAIL(), or a control step failed (a loop past
                               its bound): error.launch says which */
  EMBER_OCL_STATUS_COUNT
} ember_ocl_status;

/* What \p s means, in a sentence without the detail (the header of a bundle lists these). */
const char *ember_ocl_status_message(ember_ocl_status s);

/* The detail of a failure: the OpenCL status code and, for EMBER_OCL_KERNEL_FAILED, KERNEL and
 * LAUNCH, the launch's index. */
typedef struct ember_ocl_error {
  cl_int cl;
  uint64_t launch;
} ember_ocl_error;

/* A device with a context, an in-order queue (profiling on) and the kernel library built. */
typedef struct ember_ocl_device {
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
  cl_program program; /* kept after a failed build, so the caller can read the log */
} ember_ocl_device;

/* Opens device `device` of platform `platform` (clGetPlatformIDs order) and builds `source`
 * on it. With `platform` == ~0u: the first suitable device of any platform. A device is
 * suitable with cl_khr_fp64 and work-groups of 64 items. */
ember_ocl_status ember_ocl_open(unsigned platform, unsigned device, const char *source,
                                ember_ocl_device *d, ember_ocl_error *err);
void ember_ocl_close(ember_ocl_device *d);

/* A model prepared on a device: three buffers mirroring the regions, the parameters, the error
 * word, and one kernel object per kernel launch with its arguments set once. */
typedef struct ember_ocl_function {
  const ember_ocl_device *dev;
  const ember_ocl_model *model;
  cl_mem regions[3], params, error;
  cl_kernel *kernels;     /* per step; 0 for control steps */
  int64_t *iterations;    /* per step: a LOOP_BEGIN's iteration number while the run is in it */
  cl_event *events;       /* per step: its last event not yet timed, when a run profiles */
  const uint8_t *uploaded; /* the constant weights on the device, or 0 */
} ember_ocl_function;

ember_ocl_status ember_ocl_prepare(const ember_ocl_device *d, const ember_ocl_model *m,
                                   ember_ocl_function *f, ember_ocl_error *err);
void ember_ocl_release(ember_ocl_function *f);

/* One run: uploads the constant weights when they are not the ones on the device, writes the
 * mutable region (inputs), runs the steps (enqueues the launches in order, following the
 * control steps), and reads the mutable region back (outputs). With `nanos` (num_launches of
 * them), the device time of each step's commands (all its runs in loops) is added there. One
 * run at a time per device queue. */
ember_ocl_status ember_ocl_run(ember_ocl_function *f, const uint8_t *constant_weights,
                               uint8_t *mutable_weights, uint64_t *nanos, ember_ocl_error *err);

#ifdef __cplusplus
}
#endif

#endif
