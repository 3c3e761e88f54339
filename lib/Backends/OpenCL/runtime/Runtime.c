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
  f->kernels = (cl_kernel *)calloc(m->num_launches ? m->num_launches : 1, sizeof(cl_kernel));
  if (!f->kernels)
    return fail(err, EMBER_OCL_ALLOCATE, CL_OUT_OF_HOST_MEMORY);
  for (uint64_t i = 0; i < m->num_launches; ++i) {
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
  for (unsigned r = 0; r < 3; ++r)
    if (f->regions[r])
      clReleaseMemObject(f->regions[r]);
  if (f->params)
    clReleaseMemObject(f->params);
  if (f->error)
    clReleaseMemObject(f->error);
  memset(f, 0, sizeof(*f));
}

ember_ocl_status ember_ocl_run(ember_ocl_function *f, const uint8_t *constant_weights,
                               uint8_t *mutable_weights, cl_event *events,
                               ember_ocl_error *err) {
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
  cl_int no_error = 0, failed = 0;
  status = clEnqueueWriteBuffer(q, f->error, CL_FALSE, 0, sizeof(cl_int), &no_error, 0, 0, 0);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_TRANSFER, status);
  for (uint64_t i = 0; i < m->num_launches; ++i) {
    size_t local = (size_t)m->launches[i].group;
    size_t global = ((size_t)m->launches[i].count + local - 1) / local * local;
    status = clEnqueueNDRangeKernel(q, f->kernels[i], 1, 0, &global, &local, 0, 0,
                                    events ? &events[i] : 0);
    if (status != CL_SUCCESS) {
      err->launch = i;
      clFinish(q);
      return fail(err, EMBER_OCL_LAUNCH, status);
    }
  }
  status = clEnqueueReadBuffer(q, f->error, CL_TRUE, 0, sizeof(cl_int), &failed, 0, 0, 0);
  if (status != CL_SUCCESS)
    return fail(err, EMBER_OCL_TRANSFER, status);
  if (failed) {
    /* The kernel wrote its parameter offset plus one: the first launch reading there. */
    for (uint64_t i = 0; i < m->num_launches; ++i)
      if (m->launches[i].param_offset + 1 == (uint64_t)failed) {
        err->launch = i;
        break;
      }
    return fail(err, EMBER_OCL_KERNEL_FAILED, CL_SUCCESS);
  }
  if (m->region_sizes[1]) {
    status = clEnqueueReadBuffer(q, f->regions[1], CL_TRUE, 0, m->region_sizes[1],
                                 mutable_weights, 0, 0, 0);
    if (status != CL_SUCCESS)
      return fail(err, EMBER_OCL_TRANSFER, status);
  }
  return EMBER_OCL_OK;
}
