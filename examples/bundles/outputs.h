/* Writing a bundle's output as a raw file, named after the output: the runners' rule, which
 * ember's bundle tests read back (<dir>/<name>.bin, characters other than letters, digits, '.'
 * and '-' becoming '_'). Header-only C99. */
#ifndef EMBER_EXAMPLES_OUTPUTS_H
#define EMBER_EXAMPLES_OUTPUTS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Writes the `size` bytes at `data` to dir/<name>.bin. Returns 0, or -1 with a message. */
static int write_output(const char *dir, const char *name, const uint8_t *data, uint64_t size) {
  char path[4096];
  int n = snprintf(path, sizeof path, "%s/", dir);
  for (const char *c = name; *c && n < (int)sizeof path - 8; ++c)
    path[n++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                        *c == '.' || *c == '-'
                    ? *c
                    : '_';
  strcpy(path + n, ".bin");
  FILE *o = fopen(path, "wb");
  if (!o || fwrite(data, 1, size, o) != size || fclose(o) != 0) {
    fprintf(stderr, "error: cannot write %s\n", path);
    return -1;
  }
  return 0;
}

#endif
