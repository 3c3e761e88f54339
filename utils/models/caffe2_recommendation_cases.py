"""The Caffe2 test nets of the recommendation operators (the embedding bags): LengthsSum,
SparseLengthsSum, SparseLengthsWeightedSum, SparseLengthsMean and their Fused8BitRowwise and
8BitsRowwise forms;
written by make_caffe2_test_models.py (which holds the Case class these functions fill through
`new`). The numpy references below are written from Caffe2's CPU source:

- caffe2/operators/lengths_reducer_ops.h (CPUSparseLengthsReductionOp): inputs DATA, [WEIGHT],
  INDICES, LENGTHS; the result is DATA's shape with the first dim the number of segments; with
  no indices at all the result is zeros.
- caffe2/operators/lengths_reducer_fused_8bit_rowwise_ops.h (SparseLengthsFused8BitRowwiseOp):
  DATA is uint8 [rows, cols + 8], each row's cols codes followed by its float32 scale and bias;
  the result is [segments, cols].
- caffe2/perfkernels/embedding_lookup_idx.cc / embedding_lookup.cc (the generic kernels; the
  AVX2 ones compute the same): per index, w = weight (1 unweighted), for a fused row
  b = w * bias, w = w * scale (b = 0 for a float row), then out[j] = fma(w, x[j], b + out[j]);
  a mean multiplies the segment's sum by 1.f / length when the length is not 0.
- caffe2/operators/lengths_reducer_fused_nbit_rowwise_ops.h (SparseLengthsNBitRowwiseFusedOp,
  BIT_RATE 4): DATA is uint8 [rows, cols / 2 + 4], element j in byte j / 2 shifted right by
  (j % 2) * 4 and masked to 4 bits, the row ending in float16 scale and bias; scale = weight *
  scale, bias = weight * bias, out[j] = fma(scale, code, out[j] + bias); the mean as above.
- caffe2/operators/lengths_reducer_rowwise_8bit_ops.h (SparseLengths8BitsRowwiseOp): DATA
  uint8 (rows of size_from_dim(1) codes), [WEIGHTS], INDICES, LENGTHS, SCALE_BIAS float [rows, 2];
  EmbeddingLookup takes scale_bias[2 * idx] and [2 * idx + 1] as a fused row's scale and bias;
  the result is DATA's shape with the first dim the number of segments.
- caffe2/operators/segment_reduction_op.h (AbstractLengthsOp, SumReducer): LengthsSum sums
  consecutive rows of DATA, LENGTHS[s] of them for segment s.
"""

import numpy as np

F32 = np.float32


def fma32(a, b, c):
    """float32 fma(a, b, c): the product of two float32 values is exact in float64, so the only
    rounding is the final one (to float32, after a float64 sum whose error is far below it)."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(F32)


def ref_sparse_lengths(data, indices, lengths, weights=None, fused8=False, mean=False,
                       fused4=False):
    """SparseLengths[Weighted]Sum / Mean[Fused8BitRowwise / Fused4BitRowwise], the loop of the
    perfkernels (and of the nbit op's fallback)."""
    if fused4:
        cols = (data.shape[1] - 4) * 2
        scale_bias = np.ascontiguousarray(data[:, cols // 2:]).view(np.float16).astype(F32)
        rows = np.stack([data[:, j // 2] >> ((j % 2) * 4) & 15 for j in range(cols)],
                        axis=1).astype(F32)
        fused8 = True  # the same loop from here on
    elif fused8:
        cols = data.shape[1] - 8
        scale_bias = np.ascontiguousarray(data[:, cols:]).view(F32)  # [rows, 2]
        rows = data[:, :cols].astype(F32)
    else:
        cols = int(np.prod(data.shape[1:]))
        rows = data.reshape(data.shape[0], cols)
    out = np.zeros((len(lengths), cols), F32)
    if len(indices) == 0:
        return out.reshape((len(lengths),) + ((cols,) if fused8 else data.shape[1:]))
    at = 0
    for s, n in enumerate(lengths):
        for _ in range(max(int(n), 0)):
            idx = int(indices[at])
            assert 0 <= idx < data.shape[0]
            w = F32(1.0) if weights is None else F32(weights[at])
            if fused8:
                b = F32(w * scale_bias[idx, 1])
                w = F32(w * scale_bias[idx, 0])
            else:
                b = F32(0.0)
            out[s] = fma32(np.full(cols, w, F32), rows[idx], (b + out[s]).astype(F32))
            at += 1
        if mean and n != 0:
            out[s] = out[s] * F32(F32(1.0) / F32(n))
    assert at == len(indices)
    return out.reshape((len(lengths),) + ((cols,) if fused8 else data.shape[1:]))


def ref_rowwise_8bits(data, scale_bias, indices, lengths, weights=None, mean=False):
    """SparseLengths[Weighted]Sum8BitsRowwise / SparseLengthsMean8BitsRowwise: the fused loop
    with each row's scale and bias taken from SCALE_BIAS."""
    rows = data.reshape(data.shape[0], -1)
    table = np.concatenate([rows, scale_bias.astype(F32).view(np.uint8)], axis=1)
    out = ref_sparse_lengths(table, indices, lengths, weights, fused8=True, mean=mean)
    return out.reshape((len(lengths),) + data.shape[1:])


def ref_lengths_sum(data, lengths):
    """LengthsSum: segment s sums the next LENGTHS[s] rows of DATA, in order (SumReducer adds
    each row to the running sum)."""
    out = np.zeros((len(lengths),) + data.shape[1:], F32)
    at = 0
    for s, n in enumerate(lengths):
        for _ in range(int(n)):
            out[s] = (out[s] + data[at]).astype(F32)
            at += 1
    assert at == data.shape[0]
    return out


def fused8_table(rng, rows, cols):
    """A Fused8BitRowwise table: per row, random codes then float32 scale and bias (as
    FloatToFused8BitRowwiseQuantized writes: scale = range / 255, bias = the row's minimum)."""
    codes = rng.integers(0, 256, size=(rows, cols)).astype(np.uint8)
    scale = rng.uniform(0.001, 0.02, size=(rows, 1)).astype(F32)
    bias = rng.uniform(-1.5, 0.5, size=(rows, 1)).astype(F32)
    tail = np.concatenate([scale, bias], axis=1).view(np.uint8)  # [rows, 8], little-endian
    return np.concatenate([codes, tail], axis=1)


def fused4_table(rng, rows, cols):
    """A Fused4BitRowwise table: cols / 2 bytes of two codes, then float16 scale and bias."""
    packed = rng.integers(0, 256, size=(rows, cols // 2)).astype(np.uint8)
    scale = rng.uniform(0.01, 0.2, size=(rows, 1)).astype(np.float16)
    bias = rng.uniform(-1.5, 0.5, size=(rows, 1)).astype(np.float16)
    tail = np.concatenate([scale, bias], axis=1).view(np.uint8)  # [rows, 4], little-endian
    return np.concatenate([packed, tail], axis=1)


def recommendation_cases(new):
    rng = np.random.default_rng(4101)

    # --- sparse_lengths_sum: a float table (weights from init_net) read by every float form,
    # int64 and int32 indices, an empty segment, one long enough to prefetch ahead (10 rows),
    # a 3-D table (rows of 2 x 5), and an empty batch of indices (zeros whatever the lengths).
    c = new("sparse_lengths_sum")
    table = (rng.uniform(-1, 1, size=(12, 37))).astype(F32)
    table3 = (rng.uniform(-1, 1, size=(6, 2, 5))).astype(F32)
    idx = np.array([3, 0, 11, 3, 7, 1, 2, 4, 5, 6, 8, 9, 10, 0, 11, 5], np.int64)
    lengths = np.array([2, 0, 1, 10, 3], np.int32)
    weights = rng.uniform(-2, 2, size=idx.shape).astype(F32)
    c.weight("table", table)
    c.weight("table3", table3)
    c.input("indices", idx)
    c.input("indices32", idx.astype(np.int32) % 6)
    c.input("lengths", lengths)
    c.input("weights", weights)
    c.input("no_indices", np.zeros([0], np.int64))
    c.op("SparseLengthsSum", ["table", "indices", "lengths"], ["Y_sum"])
    c.output("Y_sum", ref_sparse_lengths(table, idx, lengths))
    c.op("SparseLengthsWeightedSum", ["table", "weights", "indices", "lengths"], ["Y_wsum"])
    c.output("Y_wsum", ref_sparse_lengths(table, idx, lengths, weights))
    c.op("SparseLengthsMean", ["table", "indices", "lengths"], ["Y_mean"])
    c.output("Y_mean", ref_sparse_lengths(table, idx, lengths, mean=True))
    c.op("SparseLengthsSum", ["table3", "indices32", "lengths"], ["Y_sum3"])
    c.output("Y_sum3", ref_sparse_lengths(table3, idx.astype(np.int32) % 6, lengths))
    c.op("SparseLengthsSum", ["table", "no_indices", "lengths"], ["Y_empty"])
    c.output("Y_empty", ref_sparse_lengths(table, np.zeros([0], np.int64), lengths))

    # --- sparse_lengths_fused8: Fused8BitRowwise tables read by the sum, weighted sum and mean;
    # 83 columns (a block of 64, one of 16 and a ragged 3 on the CPU) and 9 (ragged only).
    c = new("sparse_lengths_fused8")
    f83 = fused8_table(rng, 10, 83)
    f9 = fused8_table(rng, 5, 9)
    idx = np.array([9, 1, 1, 4, 0, 2, 3, 5, 6, 7, 8, 9, 2], np.int32)
    lengths = np.array([1, 2, 0, 10], np.int32)
    weights = rng.uniform(-2, 2, size=idx.shape).astype(F32)
    c.weight("f83", f83)
    c.input("f9", f9)
    c.input("indices", idx)
    c.input("indices64", idx.astype(np.int64) % 5)
    c.input("lengths", lengths)
    c.input("weights", weights)
    c.op("SparseLengthsSumFused8BitRowwise", ["f83", "indices", "lengths"], ["Y_sum"])
    c.output("Y_sum", ref_sparse_lengths(f83, idx, lengths, fused8=True))
    c.op("SparseLengthsWeightedSumFused8BitRowwise", ["f83", "weights", "indices", "lengths"],
         ["Y_wsum"])
    c.output("Y_wsum", ref_sparse_lengths(f83, idx, lengths, weights, fused8=True))
    c.op("SparseLengthsMeanFused8BitRowwise", ["f83", "indices", "lengths"], ["Y_mean"])
    c.output("Y_mean", ref_sparse_lengths(f83, idx, lengths, fused8=True, mean=True))
    c.op("SparseLengthsWeightedSumFused8BitRowwise", ["f9", "weights", "indices64", "lengths"],
         ["Y_wsum9"])
    c.output("Y_wsum9", ref_sparse_lengths(f9, idx.astype(np.int64) % 5, lengths, weights,
                                           fused8=True))

    # --- sparse_lengths_8bits_rowwise: a uint8 [7, 3, 4] table with its scale_bias, both from
    # init_net, read by the sum, the weighted sum and the mean (result [segments, 3, 4]).
    c = new("sparse_lengths_8bits_rowwise")
    codes = rng.integers(0, 256, size=(7, 3, 4)).astype(np.uint8)
    scale_bias = np.concatenate([rng.uniform(0.001, 0.02, size=(7, 1)),
                                 rng.uniform(-1.5, 0.5, size=(7, 1))], axis=1).astype(F32)
    idx = np.array([6, 0, 2, 2, 5, 1, 3], np.int64)
    lengths = np.array([3, 0, 4], np.int32)
    weights = rng.uniform(-2, 2, size=idx.shape).astype(F32)
    c.weight("codes", codes)
    c.weight("scale_bias", scale_bias)
    c.input("indices", idx)
    c.input("lengths", lengths)
    c.input("weights", weights)
    c.op("SparseLengthsSum8BitsRowwise", ["codes", "indices", "lengths", "scale_bias"], ["Y_sum"])
    c.output("Y_sum", ref_rowwise_8bits(codes, scale_bias, idx, lengths))
    c.op("SparseLengthsWeightedSum8BitsRowwise",
         ["codes", "weights", "indices", "lengths", "scale_bias"], ["Y_wsum"])
    c.output("Y_wsum", ref_rowwise_8bits(codes, scale_bias, idx, lengths, weights))
    c.op("SparseLengthsMean8BitsRowwise", ["codes", "indices", "lengths", "scale_bias"],
         ["Y_mean"])
    c.output("Y_mean", ref_rowwise_8bits(codes, scale_bias, idx, lengths, mean=True))

    # --- sparse_lengths_fused4: Fused4BitRowwise tables of 70 columns (a block of 64 and a
    # ragged 6 on the CPU) and 6, read by the sum, the weighted sum and the mean.
    c = new("sparse_lengths_fused4")
    f70 = fused4_table(rng, 9, 70)
    f6 = fused4_table(rng, 4, 6)
    idx = np.array([8, 0, 3, 3, 1, 2, 4, 5, 6, 7, 8, 0], np.int64)
    lengths = np.array([2, 0, 10], np.int32)
    weights = rng.uniform(-2, 2, size=idx.shape).astype(F32)
    c.weight("f70", f70)
    c.input("f6", f6)
    c.input("indices", idx)
    c.input("indices32", (idx % 4).astype(np.int32))
    c.input("lengths", lengths)
    c.input("weights", weights)
    c.op("SparseLengthsSumFused4BitRowwise", ["f70", "indices", "lengths"], ["Y_sum"])
    c.output("Y_sum", ref_sparse_lengths(f70, idx, lengths, fused4=True))
    c.op("SparseLengthsWeightedSumFused4BitRowwise", ["f70", "weights", "indices", "lengths"],
         ["Y_wsum"])
    c.output("Y_wsum", ref_sparse_lengths(f70, idx, lengths, weights, fused4=True))
    c.op("SparseLengthsMeanFused4BitRowwise", ["f70", "indices", "lengths"], ["Y_mean"])
    c.output("Y_mean", ref_sparse_lengths(f70, idx, lengths, mean=True, fused4=True))
    c.op("SparseLengthsWeightedSumFused4BitRowwise", ["f6", "weights", "indices32", "lengths"],
         ["Y_wsum6"])
    c.output("Y_wsum6", ref_sparse_lengths(f6, idx % 4, lengths, weights, fused4=True))

    # --- lengths_sum: consecutive rows per segment, an empty one among them, a 3-D DATA.
    c = new("lengths_sum")
    x = rng.uniform(-1, 1, size=(6, 3, 2)).astype(F32)
    lengths = np.array([2, 0, 3, 1], np.int32)
    c.input("X", x)
    c.input("lengths", lengths)
    c.op("LengthsSum", ["X", "lengths"], ["Y"])
    c.output("Y", ref_lengths_sum(x, lengths))
