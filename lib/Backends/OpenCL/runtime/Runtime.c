/* The OpenCL runtime shared by the backend and its bundles: see Runtime.h. */
#include "Runtime.h"

#include <stdlib.h>
#include <string.h>

const char *ember_ocl_status_message(ember_ocl_status s) {
  switch (s) {
  case EMBER_OCL_OK:
    return "no error";
  case EMBER_OCL_NO_PLATFORM:
    return "OpenCL: no platform with a device (install an OpenCL driver, e.g. pocl-opencl-icd)";
  case EMBER_OCL_NO_SUCH_DEVICE:
    return "OpenCL: the platform or device asked for does not exist";
  case EMBER_OCL_UNSUITABLE:
    return "OpenCL: the device lacks what ember's kernels need (cl_khr_fp64, work-groups of 64)";
  case EMBER_OCL_CONTEXT:
    return "OpenCL: creating a context or command queue on the device failed";
  case EMBER_OCL_BUILD:
    return "OpenCL: building the kernel library for the device failed";
  case EMBER_OCL_ALLOCATE:
    return "OpenCL: allocating the model's device memory failed";
  case EMBER_OCL_KERNEL:
    return "OpenCL: creating a kernel or setting its arguments failed";
  case EMBER_OCL_TRANSFER:
    return "OpenCL: copying to or from the device failed";
  case EMBER_OCL_LAUNCH:
    return "OpenCL: enqueueing a kernel failed";
  case EMBER_OCL_KERNEL_FAILED:
    return "a kernel failed";
  default:
    return "unknown OpenCL runtime status";
  }
}

static ember_ocl_status fail(ember_ocl_error *err, ember_ocl_status s, cl_int cl) {
  err->cl = cl;
  return s;
}

/* Whether `device` runs the kernel library: it computes float64 conversions and reductions in
 * double (cl_khr_fp64) and launches work-groups of up to 64 items. */
static int suitable(cl_device_id device) {
  size_t size = 0, group = 0;
  if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, 0, &size) != CL_SUCCESS)
    return 0;
  char *extensions = (char *)malloc(size + 1);
  if (!extensions)
    return 0;
  extensions[size] = 0;
  clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, extensions, 0);
  int fp64 = strstr(extensions, "cl_khr_fp64") != 0;
  free(extensions);
  clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(group), &group, 0);
  return fp64 && group >= 64;
}

/* The device of platform `p`: number `device`, or with `any` the first suitable one. */
static ember_ocl_status pick(cl_platform_id p, unsigned device, int any, cl_device_id *out,
                             ember_ocl_error *err) {
  cl_uint devices = 0;
  cl_int status = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, 0, &devices);
  if (status != CL_SUCCESS || devices == 0)
    return fail(err, any ? EMBER_OCL_NO_PLATFORM : EMBER_OCL_NO_SUCH_DEVICE, status);
  if (!any && device >= devices)
    return fail(err, EMBER_OCL_NO_SUCH_DEVICE, CL_INVALID_DEVICE);
  cl_device_id *ids = (cl_device_id *)malloc(devices * sizeof(cl_device_id));
  if (!ids)
    return fail(err, EMBER_OCL_NO_PLATFORM, CL_OUT_OF_HOST_MEMORY);
  clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, devices, ids, 0);
  ember_ocl_status result = EMBER_OCL_UNSUITABLE;
  for (cl_uint i = any ? 0 : device; i < (any ? devices : device + 1); ++i)
    if (suitable(ids[i])) {
      *out = ids[i];
      result = EMBER_OCL_OK;
      break;
    }
  free(ids);
  return result == EMBER_OCL_OK ? result : fail(err, result, CL_DEVICE_NOT_AVAILABLE);
}

ember_ocl_status ember_ocl_open(unsigned platform, unsigned device, const char *source,
                                ember_ocl_device *d, ember_ocl_error *err) {
  memset(d, 0, sizeof(*d));
  err->cl = CL_SUCCESS;
  err->launch = 0;
  cl_uint platforms = 0;
  cl_int status = clGetPlatformIDs(0, 0, &platforms);
  if (status != CL_SUCCESS || platforms == 0)
    return fail(err, EMBER_OCL_NO_PLATFORM, status);
  cl_platform_id *ids = (cl_platform_id *)malloc(platforms * sizeof(cl_platform_id));
  if (!ids)
    return fail(err, EMBER_OCL_NO_PLATFORM, CL_OUT_OF_HOST_MEMORY);
  clGetPlatformIDs(platforms, ids, 0);
  ember_ocl_status result;
  if (platform != ~0u) {
    result = platform < platforms ? pick(ids[platform], device, 0, &d->device, err)
                                  : fail(err, EMBER_OCL_NO_SUCH_DEVICE, CL_INVALID_PLATFORM);
  } else {
    /* The first suitable device; if none is, say why of the first platform with devices. */
    ember_ocl_status first = EMBER_OCL_NO_PLATFORM;
    result = EMBER_OCL_NO_PLATFORM;
    for (cl_uint p = 0; p < platforms && result != EMBER_OCL_OK; ++p) {
      result = pick(ids[p], 0, 1, &d->device, err);
      if (first == EMBER_OCL_NO_PLATFORM)
        first = result;
    }
    if (result != EMBER_OCL_OK)
      result = first;
  }
  free(ids);
  if (result != EMBER_OCL_OK)
    return result;

  d->context = clCreateContext(0, 1, &d->device, 0, 0, &status);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_CONTEXT, status);
  /* Profiling costs nothing until a run asks its launches for events (-profile). */
  d->queue = clCreateCommandQueue(d->context, d->device, CL_QUEUE_PROFILING_ENABLE, &status);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_CONTEXT, status);
  d->program = clCreateProgramWithSource(d->context, 1, &source, 0, &status);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_BUILD, status);
  status = clBuildProgram(d->program, 1, &d->device, "-cl-std=CL1.2", 0, 0);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_BUILD, status);
  return EMBER_OCL_OK;
}

void ember_ocl_close(ember_ocl_device *d) {
  if (d->program)
    clReleaseProgram(d->program);
  if (d->queue)
    clReleaseCommandQueue(d->queue);
  if (d->context)
    clReleaseContext(d->context);
  memset(d, 0, sizeof(*d));
}

ember_ocl_status ember_ocl_prepare(const ember_ocl_device *d, const ember_ocl_model *m,
                                   ember_ocl_function *f, ember_ocl_error *err) {
  memset(f, 0, sizeof(*f));
  f->dev = d;
  f->model = m;
  err->cl = CL_SUCCESS;
  err->launch = 0;
  cl_int status;
  for (unsigned r = 0; r < 3; ++r) {
    /* Empty regions still get a buffer: every kernel takes all three. */
    size_t size = m->region_sizes[r] < 64 ? 64 : (size_t)m->region_sizes[r];
    f->regions[r] = clCreateBuffer(d->context, CL_MEM_READ_WRITE, size, 0, &status);
    if (status != CL_SUCCESS)
      return fail(err, EMBER_OCL_ALLOCATE, status);
  }
  f->params = clCreateBuffer(d->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                             (m->num_params ? m->num_params : 1) * sizeof(int64_t),
                             m->num_params ? (void *)m->params : (void *)&m->region_sizes[0],
                             &status);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_ALLOCATE, status);
  f->error = clCreateBuffer(d->context, CL_MEM_READ_WRITE, sizeof(cl_int), 0, &status);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_ALLOCATE, status);
  size_t steps = m->num_launches ? (size_t)m->num_launches : 1;
  f->kernels = (cl_kernel *)calloc(steps, sizeof(cl_kernel));
  f->iterations = (int64_t *)calloc(steps, sizeof(int64_t));
  f->events = (cl_event *)calloc(steps, sizeof(cl_event));
  if (!f->kernels || !f->iterations || !f->events)
    return fail(err, EMBER_OCL_ALLOCATE, CL_OUT_OF_HOST_MEMORY);
  for (uint64_t i = 0; i < m->num_launches; ++i) {
    if (m->launches[i].control != EMBER_OCL_LAUNCH_KERNEL)
      continue;
    err->launch = i;
    cl_kernel k = clCreateKernel(d->program, m->launches[i].kernel, &status);
    if (status != CL_SUCCESS)
      return fail(err, EMBER_OCL_KERNEL, status);
    f->kernels[i] = k;
    cl_long p0 = (cl_long)m->launches[i].param_offset;
    for (unsigned r = 0; r < 3; ++r)
      clSetKernelArg(k, r, sizeof(cl_mem), &f->regions[r]);
    clSetKernelArg(k, 3, sizeof(cl_mem), &f->params);
    clSetKernelArg(k, 5, sizeof(cl_mem), &f->error);
    if ((status = clSetKernelArg(k, 4, sizeof(cl_long), &p0)) != CL_SUCCESS)
      return fail(err, EMBER_OCL_KERNEL, status);
  }
  err->launch = 0;
  return EMBER_OCL_OK;
}

void ember_ocl_release(ember_ocl_function *f) {
  if (f->kernels && f->model)
    for (uint64_t i = 0; i < f->model->num_launches; ++i)
      if (f->kernels[i])
        clReleaseKernel(f->kernels[i]);
  free(f->kernels);
  free(f->iterations);
  free(f->events);
  for (unsigned r = 0; r < 3; ++r)
    if (f->regions[r])
      clReleaseMemObject(f->regions[r]);
  if (f->params)
    clReleaseMemObject(f->params);
  if (f->error)
    clReleaseMemObject(f->error);
  memset(f, 0, sizeof(*f));
}

/* The device memory at place `p` (region << 48 | byte offset): its buffer and offset. */
static cl_mem buffer_of(const ember_ocl_function *f, int64_t p, size_t *offset) {
  *offset = (size_t)(p & 0xFFFFFFFFFFFFLL);
  return f->regions[p >> 48];
}

/* Reads `bytes` at place `p` into `out`, blocking when `wait` (after the queue's earlier
 * commands: the in-order queue runs them first). */
static cl_int read_place(const ember_ocl_function *f, int64_t p, size_t bytes, void *out,
                         cl_bool wait) {
  size_t offset;
  cl_mem b = buffer_of(f, p, &offset);
  return clEnqueueReadBuffer(f->dev->queue, b, wait, offset, bytes, out, 0, 0, 0);
}

/* Adds the device time of step i's pending event to nanos[i] and releases it. */
static void time_event(ember_ocl_function *f, uint64_t i, uint64_t *nanos) {
  cl_event *e = &f->events[i];
  if (!*e)
    return;
  cl_ulong start = 0, end = 0;
  clWaitForEvents(1, e);
  clGetEventProfilingInfo(*e, CL_PROFILING_COMMAND_START, sizeof(start), &start, 0);
  clGetEventProfilingInfo(*e, CL_PROFILING_COMMAND_END, sizeof(end), &end, 0);
  if (end > start)
    nanos[i] += end - start;
  clReleaseEvent(*e);
  *e = 0;
}

/* The loop test of the LOOP_BEGIN step `begin` (Runtime.h): the next step in *pc, or a status.
 * First it writes the host's iteration number where the body's kernels read it. The write does
 * not block, so it may read f->iterations[begin] after this returns; that is safe: the host
 * changes the number only after the next test's blocking read, when the in-order queue has
 * done the write. */
static ember_ocl_status loop_test(ember_ocl_function *f, uint64_t begin, uint64_t *pc,
                                  ember_ocl_error *err) {
  const int64_t *op = f->model->params + f->model->launches[begin].param_offset;
  int64_t iter = f->iterations[begin], trip = 0;
  uint8_t cond = 0;
  size_t offset;
  cl_mem b = buffer_of(f, op[0], &offset);
  cl_int status = clEnqueueWriteBuffer(f->dev->queue, b, CL_FALSE, offset, sizeof(int64_t),
                                       &f->iterations[begin], 0, 0, 0);
  if (status == CL_SUCCESS)
    status = read_place(f, op[1], sizeof(trip), &trip, CL_FALSE);
  if (status == CL_SUCCESS)
    status = read_place(f, op[2], 1, &cond, CL_TRUE);
  if (status != CL_SUCCESS) {
    clFinish(f->dev->queue); /* the read of trip may still be writing it */
    err->launch = begin;
    return fail(err, EMBER_OCL_TRANSFER, status);
  }
  if (!(iter < trip && cond)) {
    *pc = (uint64_t)op[4];
    return EMBER_OCL_OK;
  }
  if (iter >= op[3]) {
    err->launch = begin;
    return fail(err, EMBER_OCL_KERNEL_FAILED, CL_SUCCESS);
  }
  *pc = begin + 1;
  return EMBER_OCL_OK;
}

/* Runs control step `i` (Runtime.h's ember_ocl_control): the next step in *pc, or a status. */
static ember_ocl_status control_step(ember_ocl_function *f, uint64_t i, uint64_t *pc,
                                     cl_event *event, ember_ocl_error *err) {
  const ember_ocl_launch *l = &f->model->launches[i];
  const int64_t *op = f->model->params + l->param_offset;
  cl_int status = CL_SUCCESS;
  switch (l->control) {
  case EMBER_OCL_IF: {
    uint8_t cond = 0;
    status = read_place(f, op[0], 1, &cond, CL_TRUE);
    *pc = cond ? i + 1 : (uint64_t)op[1];
    break;
  }
  case EMBER_OCL_JUMP:
    *pc = (uint64_t)op[0];
    break;
  case EMBER_OCL_LOOP_BEGIN:
    f->iterations[i] = 0;
    return loop_test(f, i, pc, err);
  case EMBER_OCL_LOOP_END:
    ++f->iterations[op[0]];
    return loop_test(f, (uint64_t)op[0], pc, err);
  case EMBER_OCL_STORE_ITERATION: {
    int64_t iter = f->iterations[op[4]];
    if (iter < 0 || iter >= op[3]) {
      err->launch = i;
      return fail(err, EMBER_OCL_KERNEL_FAILED, CL_SUCCESS);
    }
    size_t dest, value;
    cl_mem d = buffer_of(f, op[0], &dest), v = buffer_of(f, op[1], &value);
    if (op[2])
      status = clEnqueueCopyBuffer(f->dev->queue, v, d, value, dest + (size_t)(iter * op[2]),
                                   (size_t)op[2], 0, 0, event);
    *pc = i + 1;
    if (status != CL_SUCCESS) {
      err->launch = i;
      return fail(err, EMBER_OCL_LAUNCH, status);
    }
    return EMBER_OCL_OK;
  }
  default:
    status = CL_INVALID_OPERATION;
    break;
  }
  if (status != CL_SUCCESS) {
    err->launch = i;
    return fail(err, EMBER_OCL_TRANSFER, status);
  }
  return EMBER_OCL_OK;
}

/* The steps from the first to past the last. */
static ember_ocl_status run_steps(ember_ocl_function *f, uint64_t *nanos, ember_ocl_error *err) {
  const ember_ocl_model *m = f->model;
  cl_command_queue q = f->dev->queue;
  for (uint64_t i = 0; i < m->num_launches;) {
    cl_event *event = 0;
    if (nanos) {
      time_event(f, i, nanos); /* the step's previous run, in an earlier iteration */
      event = &f->events[i];
    }
    const ember_ocl_launch *l = &m->launches[i];
    if (l->control != EMBER_OCL_LAUNCH_KERNEL) {
      ember_ocl_status s = control_step(f, i, &i, event, err);
      if (s != EMBER_OCL_OK)
        return s;
      continue;
    }
    size_t local = (size_t)l->group;
    size_t global = ((size_t)l->count + local - 1) / local * local;
    cl_int status = clEnqueueNDRangeKernel(q, f->kernels[i], 1, 0, &global, &local, 0, 0, event);
    if (status != CL_SUCCESS) {
      err->launch = i;
      return fail(err, EMBER_OCL_LAUNCH, status);
    }
    ++i;
  }
  return EMBER_OCL_OK;
}

/* Whether a kernel called FAIL(): then the status naming the first launch that did. */
static ember_ocl_status kernel_failure(ember_ocl_function *f, ember_ocl_error *err) {
  const ember_ocl_model *m = f->model;
  cl_int failed = 0;
  cl_int status =
      clEnqueueReadBuffer(f->dev->queue, f->error, CL_TRUE, 0, sizeof(cl_int), &failed, 0, 0, 0);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_TRANSFER, status);
  if (!failed)
    return EMBER_OCL_OK;
  /* The kernel wrote its parameter offset plus one: the launch reading there. */
  for (uint64_t i = 0; i < m->num_launches; ++i)
    if (m->launches[i].control == EMBER_OCL_LAUNCH_KERNEL &&
        m->launches[i].param_offset + 1 == (uint64_t)failed) {
      err->launch = i;
      break;
    }
  return fail(err, EMBER_OCL_KERNEL_FAILED, CL_SUCCESS);
}

ember_ocl_status ember_ocl_run(ember_ocl_function *f, const uint8_t *constant_weights,
                               uint8_t *mutable_weights, uint64_t *nanos, ember_ocl_error *err) {
  const ember_ocl_model *m = f->model;
  cl_command_queue q = f->dev->queue;
  err->cl = CL_SUCCESS;
  err->launch = 0;
  cl_int status;
  if (constant_weights != f->uploaded && m->region_sizes[0]) {
    status = clEnqueueWriteBuffer(q, f->regions[0], CL_FALSE, 0, m->region_sizes[0],
                                  constant_weights, 0, 0, 0);
    if (status != CL_SUCCESS)
      return fail(err, EMBER_OCL_TRANSFER, status);
    f->uploaded = constant_weights;
  }
  if (m->region_sizes[1]) {
    status = clEnqueueWriteBuffer(q, f->regions[1], CL_FALSE, 0, m->region_sizes[1],
                                  mutable_weights, 0, 0, 0);
    if (status != CL_SUCCESS)
      return fail(err, EMBER_OCL_TRANSFER, status);
  }
  cl_int no_error = 0;
  status = clEnqueueWriteBuffer(q, f->error, CL_FALSE, 0, sizeof(cl_int), &no_error, 0, 0, 0);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_TRANSFER, status);
  ember_ocl_status s = run_steps(f, nanos, err);
  clFinish(q);
  /* A kernel that failed comes first: a control step may have failed on the data it left. */
  ember_ocl_error kernel_err = *err;
  ember_ocl_status failed = kernel_failure(f, &kernel_err);
  if (failed != EMBER_OCL_OK && (s == EMBER_OCL_OK || s == EMBER_OCL_KERNEL_FAILED)) {
    *err = kernel_err;
    s = failed;
  }
  if (nanos)
    for (uint64_t i = 0; i < m->num_launches; ++i)
      time_event(f, i, nanos);
  if (s != EMBER_OCL_OK)
    return s;
  if (m->region_sizes[1]) {
    status = clEnqueueReadBuffer(q, f->regions[1], CL_TRUE, 0, m->region_sizes[1],
                                 mutable_weights, 0, 0, 0);
    if (status != CL_SUCCESS)
      return fail(err, EMBER_OCL_TRANSFER, status);
  }
  return EMBER_OCL_OK;
}
