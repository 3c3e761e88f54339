// The FLOP model of the products: what -profile divides by time, what backends split work by.
#include "ember/IR/IR.h"

#include "ember/Base/Dims.h"

namespace ember {

int64_t productFlops(const Instruction &I) {
  if (I.getNumOutputs() == 0)
    return 0;
  // The product of a filter's dims after its first: the taps of one of the channels it counts.
  auto taps = [](const DimsVec &f) { return dimsProductAsInt64(f, 1, f.size()); };
  int64_t out = int64_t(I.getOutput()->getType().numElements());
  switch (I.getKind()) {
  case InstrKind::Conv:
  case InstrKind::FusedConv: // each result: a filter's worth (Cin/G x kernel) of products
    return 2 * out * taps(I.getInput(ops::Conv::Filter)->getType().dims);
  case InstrKind::ConvTranspose: { // each input element meets Cout/G x kernel filter taps
    const DimsVec &f = I.getInput(ops::ConvTranspose::Filter)->getType().dims;
    return 2 * int64_t(I.getInput(ops::ConvTranspose::Input)->getType().numElements()) *
           taps(f);
  }
  case InstrKind::MatMul:
  case InstrKind::FusedMatMul:
    return 2 * out * int64_t(I.getInput(ops::MatMul::LHS)->getType().dims.back());
  case InstrKind::FullyConnected:
    return 2 * out * int64_t(I.getInput(ops::FullyConnected::Weights)->getType().dims[0]);
  case InstrKind::IntegerConv: // integer multiply-adds, counted as Conv's
    return 2 * out * taps(I.getInput(ops::IntegerConv::Filter)->getType().dims);
  case InstrKind::IntegerMatMul:
    return 2 * out * int64_t(I.getInput(ops::IntegerMatMul::LHS)->getType().dims.back());
  default:
    return 0;
  }
}

} // namespace ember
