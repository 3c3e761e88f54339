/* What an OpenCL bundle's entry point calls (BundleWriter.cpp generates the entry and the model
 * it passes). The first call opens the first suitable OpenCL device (Runtime.h), builds the kernel library and
 * prepares the model; later calls reuse them, so the bundle, unlike a CPU bundle, keeps state:
 * the device objects (a failed first call leaves none, and the next call tries again). Calls are
 * serialized: the model's device buffers are shared. Returns 0, or the code of the header's
 * run-time error: a status of Runtime.h, or a failing launch's `failure`.
 *
 * This file and Runtime.c are linked into each bundle with internal linkage, so every bundle in
 * a program has its own state and two bundles never clash. */
#include "Runtime.h"

#include <pthread.h>

typedef struct ember_ocl_bundle {
  const char *source; /* the kernel library's OpenCL C */
  ember_ocl_model model;
} ember_ocl_bundle;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ember_ocl_device device;
static ember_ocl_function function;
static int ready;

static int prepare(const ember_ocl_bundle *b) {
  ember_ocl_error err;
  ember_ocl_status s = ember_ocl_open(~0u, 0, b->source, &device, &err);
  if (s == EMBER_OCL_OK)
    s = ember_ocl_prepare(&device, &b->model, &function, &err);
  if (s != EMBER_OCL_OK) {
    ember_ocl_release(&function);
    ember_ocl_close(&device);
    return (int)s;
  }
  ready = 1;
  return 0;
}

int ember_ocl_bundle_run(const ember_ocl_bundle *b, uint8_t *constant_weights,
                         uint8_t *mutable_weights, uint8_t *activations) {
  (void)activations; /* the activations live on the device */
  pthread_mutex_lock(&lock);
  int code = ready ? 0 : prepare(b);
  if (code == 0) {
    ember_ocl_error err;
    ember_ocl_status s = ember_ocl_run(&function, constant_weights, mutable_weights, 0, &err);
    if (s == EMBER_OCL_KERNEL_FAILED)
      code = (int)b->model.launches[err.launch].failure;
    else
      code = (int)s;
  }
  pthread_mutex_unlock(&lock);
  return code;
}
