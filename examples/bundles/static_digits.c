/* The static bundle API, on the shipped digits CNN: the weights are compiled into the program
 * (digits_cnn.weights.txt as an initializer), the three regions are static arrays, and the
 * input and output are found by the offset macros of digits_cnn.h. No heap, no ember.
 *
 *   model-compiler -model=examples/models/digits_cnn.onnx -emit-bundle=out
 *   cc -O2 -Iout examples/bundles/static_digits.c out/digits_cnn.o -o digits
 *   ./digits examples/digits/images/digit_3.npy ...
 */
#include "digits_cnn.h"
#include "npy.h"

#include <stdio.h>
#include <string.h>

#define ALIGNED __attribute__((aligned(DIGITS_CNN_MEM_ALIGN)))

static uint8_t constantWeight[DIGITS_CNN_CONSTANT_MEM_SIZE] ALIGNED = {
#include "digits_cnn.weights.txt"
};
static uint8_t mutableWeight[DIGITS_CNN_MUTABLE_MEM_SIZE] ALIGNED;
static uint8_t activations[DIGITS_CNN_ACTIVATIONS_MEM_SIZE] ALIGNED;

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s IMAGE.npy... (float32 [1, 1, 8, 8], pixels in [0, 1])\n", argv[0]);
    return 2;
  }
  float *image = (float *)(mutableWeight + DIGITS_CNN_image);
  const float *probabilities = (const float *)(mutableWeight + DIGITS_CNN_probabilities);
  for (int a = 1; a < argc; ++a) {
    void *data;
    size_t bytes;
    char descr[8];
    if (npy_read(argv[a], &data, &bytes, descr) != 0)
      return 1;
    if (strcmp(descr, "<f4") != 0 || bytes != 64 * sizeof(float)) {
      fprintf(stderr, "error: %s: expected 64 float32 pixels\n", argv[a]);
      return 1;
    }
    memcpy(image, data, bytes);
    free(data);
    int status = digits_cnn(constantWeight, mutableWeight, activations);
    if (status != 0) {
      fprintf(stderr, "error: digits_cnn returned %d\n", status);
      return 1;
    }
    int best = 0;
    for (int k = 1; k < 10; ++k)
      if (probabilities[k] > probabilities[best])
        best = k;
    printf("%s: %d (p=%.4f)\n", argv[a], best, probabilities[best]);
    for (int y = 0; y < 8; ++y) {
      printf("    |");
      for (int x = 0; x < 8; ++x) {
        float v = image[y * 8 + x];
        printf("%s", v > 0.66f ? "##" : v > 0.33f ? "++" : v > 0.05f ? ".." : "  ");
      }
      printf("|\n");
    }
  }
  return 0;
}
