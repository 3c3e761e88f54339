// What the recurrent kernels (kernels/Recurrent.cpp) and their codegen (CodeGenRecurrent.cpp)
// agree on: the cell kinds, the activation numbering, the shape array and the scratch size.
// Plain C++ including only the freestanding activation table: compiled into the kernel library
// and into the backend.
#ifndef EMBER_CPU_KERNELS_RECURRENTLAYOUT_H
#define EMBER_CPU_KERNELS_RECURRENTLAYOUT_H

namespace rnnlayout {

typedef long long idx;

enum Cell : idx { kRNN = 0, kGRU = 1, kLSTM = 2 };

/// The activation functions, numbered in the order of ember/Graph/Nodes/RecurrentActivations.def.
enum Act : idx {
#define RNN_ACTIVATION(E, NAME, UA, A, UB, B, FORMULA, DOC) k##E,
#include "ember/Graph/Nodes/RecurrentActivations.def"
  kNumActivations
};

/// The shape array: these many values.
enum Shape : idx {
  kCell,        // Cell
  kSeq,         // Input [seq, batch, inputSize]
  kBatch,
  kInputSize,
  kHidden,      // R [dirs, gates * hidden, hidden]
  kDirs,        // 1 or 2 (bidirectional: forward, then reverse)
  kReverseOnly, // direction "reverse"
  kFlag,        // GRU: linear_before_reset; LSTM: input_forget
  kPacked,      // the fast path's W and R come packed (packedWFloats, packedRFloats)
  kShapeCount
};

/// Bytes of scratch: the state vectors (h, c, and up to five per-step temporaries) of one
/// batch row, in float64 at most.
constexpr idx scratchBytes(idx hidden) { return 8 * (hidden + 1) * 8; }

/// The float32 fast path (kernels/RecurrentFast.cpp) takes these activations; others, a cell
/// clip, or LSTM's input_forget run the reference kernel.
constexpr bool fastActivation(idx act) { return act == kSigmoid || act == kTanh || act == kRelu; }

/// The fast path's gate rows of one gate block, padded to whole vectors of 16 floats.
constexpr idx fastBlockRows(idx hidden) { return (hidden + 15) / 16 * 16; }

/// Gate rows of one chunk of the fast path's packed R: 8 vectors of 16, 8 accumulators.
constexpr idx kChunkRows = 128;

/// Floats of the fast path's packed R of one direction: [gates][chunks][hidden][chunk width],
/// each gate block's rows padded to fastBlockRows.
constexpr idx packedRFloats(idx hidden, idx gates) {
  return gates * fastBlockRows(hidden) * hidden;
}

/// Packs rows [0, H) of a gate block (\p R: its first row, rows \p H apart) into chunks of up
/// to kChunkRows rows, the rows padded to fastBlockRows(H) with zeros: chunk at row c0 of width
/// w holds element (c0 + i, j) at c0 * H + j * w + i. The kernel packs a run-time R so; the
/// backend a constant one at compile time (CPUConstants.cpp).
template <typename T> void packGateBlock(T *dst, const T *R, idx H) {
  idx P = fastBlockRows(H);
  for (idx c0 = 0; c0 < P; c0 += kChunkRows) {
    idx w = P - c0 < kChunkRows ? P - c0 : kChunkRows;
    T *chunk = dst + c0 * H;
    for (idx j = 0; j < H; ++j)
      for (idx i = 0; i < w; ++i)
        chunk[j * w + i] = c0 + i < H ? R[(c0 + i) * H + j] : T(0);
  }
}

/// Steps of one batch row whose input projections a packed call computes in one GEMM, just
/// before running them: 32 rows keep the register tiles full, and scratch holds one block's
/// projections rather than the sequence's (an LSTM of hidden 256 over 200 steps: 0.8 MB). Only
/// with W packed at compile time: packing it for every block made the zoo's LSTM 11.2 -> 12.2
/// ms (the mem-bound branch).
constexpr idx kProjectionSteps = 32;

/// Floats of the fast path's scratch but the GEMM's packing buffer (which comes after, sized
/// by the GEMM): the input projections (packed: of a block of steps of one batch row,
/// [min(seq, kProjectionSteps)][gates * hidden]; else of every step of one direction,
/// [seq * batch][gates * hidden], then R packed, packedRFloats), the folded biases, the gate
/// sums of one step ([gates][padded]), and the states h, c and their next values, each padded.
constexpr idx fastScratchFloats(idx seq, idx batch, idx hidden, idx gates, bool packed) {
  idx rows = gates * hidden, padded = fastBlockRows(hidden);
  idx projections = packed ? (seq < kProjectionSteps ? seq : kProjectionSteps) * rows
                           : seq * batch * rows + packedRFloats(hidden, gates);
  return projections + 2 * rows + gates * padded + 5 * padded + 64;
}

} // namespace rnnlayout

#endif
