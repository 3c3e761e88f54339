// RoiAlign (Nodes/NN.def), float kinds. Common.cl says how kernels are called. Where a region's
// samples lie, which cells they read and how they combine come from ember/Semantics/RoiAlign.h
// (in the program before this file), the Interpreter's own. Parameters: [count, y, x, rois,
// batch indices, spatial scale bits, N, C, H, W, pooled H, pooled W, sampling_ratio, half_pixel,
// max]; one work-item per result element. A batch index out of [0, N), a region that is not
// finite or needs too many samples fails the run.
#define ROI_ALIGN(K)                                                                            \
  __kernel void roialign_##K(ARGS) {                                                            \
    P += p0;                                                                                    \
    long i = get_global_id(0);                                                                  \
    if (i >= P[0])                                                                              \
      return;                                                                                   \
    long Nb = P[6], Cc = P[7], H = P[8], W = P[9], PH = P[10], PW = P[11];                      \
    int maxMode = (int)P[14];                                                                   \
    long pw = i % PW, ph = (i / PW) % PH, c = (i / (PW * PH)) % Cc, roi = i / (PW * PH * Cc);  \
    long image = ((__global const long *)PLACE(P[4]))[roi];                                     \
    __global const uchar *r = PLACE(P[3]);                                                      \
    double geometry[4];                                                                         \
    long grid[2];                                                                               \
    if (image < 0 || image >= Nb ||                                                             \
        ember_roi_align_region((double)LOAD_##K(r, roi * 4), (double)LOAD_##K(r, roi * 4 + 1),  \
                               (double)LOAD_##K(r, roi * 4 + 2),                                \
                               (double)LOAD_##K(r, roi * 4 + 3), (double)PF(5), (int)P[13], PH, \
                               PW, P[12], geometry, grid)) {                                    \
      FAIL();                                                                                   \
      return;                                                                                   \
    }                                                                                           \
    __global const uchar *x = PLACE(P[2]);                                                      \
    long plane = (image * Cc + c) * H * W;                                                      \
    double value;                                                                               \
    EMBER_ROI_ALIGN_BIN(value, geometry, grid, ph, pw, H, W, maxMode, LOAD_##K, x, plane);      \
    STORE_##K(PLACE(P[1]), i, value);                                                           \
  }
FOR_EACH_FLOAT_KIND(ROI_ALIGN)
