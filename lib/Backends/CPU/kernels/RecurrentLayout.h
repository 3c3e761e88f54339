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

} // namespace rnnlayout

#endif
