/* A minimal reader of NumPy .npy files (version 1.0/2.0, little-endian,
 * C order): enough for the examples to exchange tensors with numpy and with ember's tools.
 * Header-only C99; the bundles themselves need none of it. */
#ifndef EMBER_EXAMPLES_NPY_H
#define EMBER_EXAMPLES_NPY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the data of the .npy file at path into a fresh buffer (*data, *bytes) and its dtype
 * descriptor (e.g. "<f4") into descr. Returns 0, or -1 with a message on stderr. */
static int npy_read(const char *path, void **data, size_t *bytes, char descr[8]) {
  FILE *f = fopen(path, "rb");
  unsigned char magic[10];
  if (!f || fread(magic, 1, 10, f) != 10 || memcmp(magic, "\x93NUMPY", 6) != 0) {
    fprintf(stderr, "error: %s: not a .npy file\n", path);
    if (f)
      fclose(f);
    return -1;
  }
  size_t headerLen = magic[8] | (magic[9] << 8);
  if (magic[6] >= 2) { /* version 2: a 4-byte header length */
    unsigned char more[2];
    if (fread(more, 1, 2, f) != 2) {
      fclose(f);
      return -1;
    }
    headerLen |= ((size_t)more[0] << 16) | ((size_t)more[1] << 24);
  }
  char *header = (char *)malloc(headerLen + 1);
  if (!header || fread(header, 1, headerLen, f) != headerLen) {
    fprintf(stderr, "error: %s: truncated header\n", path);
    free(header);
    fclose(f);
    return -1;
  }
  header[headerLen] = 0;
  const char *d = strstr(header, "'descr': '");
  descr[0] = 0;
  if (d) {
    d += 10;
    size_t n = 0;
    while (d[n] && d[n] != '\'' && n < 7)
      ++n;
    memcpy(descr, d, n);
    descr[n] = 0;
  }
  if (strstr(header, "'fortran_order': True")) {
    fprintf(stderr, "error: %s: Fortran order is not supported\n", path);
    free(header);
    fclose(f);
    return -1;
  }
  free(header);
  long start = ftell(f);
  fseek(f, 0, SEEK_END);
  *bytes = (size_t)(ftell(f) - start);
  fseek(f, start, SEEK_SET);
  *data = malloc(*bytes ? *bytes : 1);
  if (!*data || fread(*data, 1, *bytes, f) != *bytes) {
    fprintf(stderr, "error: %s: truncated data\n", path);
    fclose(f);
    return -1;
  }
  fclose(f);
  return 0;
}

#endif
