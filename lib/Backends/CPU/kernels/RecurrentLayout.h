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

/// Floats of the fast path's scratch but the GEMM's packing buffer (which comes after, sized
/// by the GEMM): the input projection of every step of one direction ([seq * batch][gates *
/// hidden]), the recurrent weights packed ([gates][chunks][hidden][chunk width], each block
/// padded to fastBlockRows), the folded biases, the gate sums of one step ([gates][padded]),
/// and the states h, c and their next values, each padded.
constexpr idx fastScratchFloats(idx seq, idx batch, idx hidden, idx gates) {
  idx rows = gates * hidden, padded = fastBlockRows(hidden);
  return seq * batch * rows + gates * padded * hidden + 2 * rows + gates * padded + 5 * padded +
         64;
}

} // namespace rnnlayout

#endif
