// What the recurrent kernels (kernels/Recurrent.cpp) and their codegen (CodeGenRecurrent.cpp)
// agree on: the cell kinds, the activation numbering, the shape array and the scratch size.
// Plain C++ with no includes: compiled into the freestanding kernel library and into the backend.
#ifndef EMBER_CPU_KERNELS_RECURRENTLAYOUT_H
#define EMBER_CPU_KERNELS_RECURRENTLAYOUT_H

namespace rnnlayout {

typedef long long idx;

enum Cell : idx { kRNN = 0, kGRU = 1, kLSTM = 2 };

/// The activation functions in the order of include/ember/Graph/Nodes/RecurrentActivations.def
/// (codegen numbers the .def's entries and checks the count against kNumActivations).
enum Act : idx {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus,
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
